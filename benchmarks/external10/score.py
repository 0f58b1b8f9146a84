"""Scoring for the tenth external evaluation set (folder external10).

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`) and its value rules (`_score_natural`).

What is new is this set's six answer-format wordings (`wordings.json`): a closing
`Verdict: ...` line, a closing sentence `The figure is X.`, a letter-style sign-off
`Regards, X`, a reStructuredText field line `:value: X`, an Org-mode keyword line
`#+RESULT: X` and a C preprocessor line `#define ANSWER X`. `score(q, reply,
wording)` reads a natural reply by that wording's form alone (its LAST occurrence); a reply
with nothing in the asked form is wrong ("not in the asked form"); only an empty wording
falls back to the general `answer_text`. The text found is then judged by the first set's
rules.

Functions: `load_questions`, `load_wordings`, `prompt_for`, `run_reference`, `score`,
`extract`, `EXTRACTORS`, and the first set's `parse_number` and `answer_text`.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Callable

try:
    from benchmarks.external import score as _first
except ImportError:  # run as a script from this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.external import score as _first

HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables"
WORDINGS = HERE / "wordings.json"

parse_number = _first.parse_number
answer_text = _first.answer_text
_score_closed = _first._score_closed
_score_natural = _first._score_natural
_clean = _first._clean


# ------------------------------------------------------------------ loading
def load_questions() -> list[dict]:
    return json.loads((HERE / "questions.json").read_text())


def load_wordings() -> list[dict]:
    return json.loads(WORDINGS.read_text())


def _wording(wording: dict | str | None) -> dict | None:
    if wording is None or isinstance(wording, dict):
        return wording
    for w in load_wordings():
        if w["id"] == wording:
            return w
    raise KeyError(f"no wording with id {wording!r} in {WORDINGS.name}")


def prompt_for(q: dict, wording: dict | str | None) -> str:
    """The question text, plus the wording's template for natural ones. ``wording`` is a
    wording dict, the id of one of this set's wordings, a template string, or None."""
    if isinstance(wording, str) and wording in {w["id"] for w in load_wordings()}:
        wording = _wording(wording)
    return _first.prompt_for(q, wording)


def run_reference(q: dict) -> Any:
    """Run q["reference_code"] with the table loaded as q["frame"]; return `result`."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    env: dict[str, Any] = {"pd": pd, "np": np, "stats": stats}
    env[q["frame"]] = pd.read_csv(TABLES / q["table"])
    exec(q["reference_code"], env)  # noqa: S102 - trusted, committed code
    return env["result"]


# ------------------------------------------------------------------ the wordings' forms
def _lines(reply: str) -> list[str]:
    return reply.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _unquote(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'`":
        t = t[1:-1].strip()
    return t


def _stop(text: str) -> str:
    """Without a closing full stop and surrounding bold/italic markers."""
    t = text.strip().strip("*_").strip()
    if t.endswith("."):
        t = t[:-1].strip()
    return t.strip("*_").strip()


def _last_line_value(pattern: re.Pattern, reply: str) -> str | None:
    """The value the last line matching ``pattern`` gives (its group 1), full stop and one
    pair of quotes dropped; None when no line matches with a value."""
    found = None
    for ln in _lines(reply):
        m = pattern.match(ln)
        if m and _stop(m.group(1)):
            found = _unquote(_stop(m.group(1)))
    return found


_VERDICT = re.compile(r"^\s*(?:[*_]{1,2})?verdict\s*:\s*(?:[*_]{1,2})?[ \t]*(.*?)\s*$", re.I)


def _x_verdict(reply: str) -> str | None:
    return _last_line_value(_VERDICT, reply)


# "The figure is X." at the start of a line or right after the end of a sentence on it
_FIGURE = re.compile(r"(?:^|(?<=[.!?])\s+|(?<=[.!?][*_])\s+|(?<=[.!?][*_]{2})\s+)\s*(?:[*_]{1,2})?the figure is[ \t]+(?![ \t])(.*?)\s*$",
                     re.I)


def _x_figure(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        for m in _FIGURE.finditer(ln):
            v = _stop(m.group(1))
            if v:
                found = _unquote(v)
    return found


_REGARDS = re.compile(r"^\s*(?:[*_]{1,2})?regards\s*,\s*(?:[*_]{1,2})?[ \t]*(.*?)\s*$", re.I)


def _x_regards(reply: str) -> str | None:
    return _last_line_value(_REGARDS, reply)


_FIELD = re.compile(r"^\s*:value:[ \t]+(.*?)\s*$", re.I)


def _x_rst_field(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _FIELD.match(ln.strip().strip("`"))
        if m and m.group(1).strip():
            found = _unquote(m.group(1).strip())
    return found


_ORG = re.compile(r"^\s*#\+result:[ \t]+(.*?)\s*$", re.I)


def _x_org_keyword(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _ORG.match(ln.strip().strip("`"))
        if m and m.group(1).strip():
            found = _unquote(m.group(1).strip())
    return found


_DEFINE = re.compile(r"^\s*#\s*define[ \t]+ANSWER[ \t]+(.*?)\s*$")


def _c_value(body: str) -> str | None:
    """The replacement text of a #define: comments, one pair of enclosing parentheses and a
    string literal's quotes dropped."""
    v = body.strip()
    if v.startswith('"'):
        m = re.match(r'"((?:[^"\\]|\\.)*)"', v)
        if not m:
            return None
        s = re.sub(r"\\(.)", r"\1", m.group(1)).strip()
        return s or None
    v = re.sub(r"/\*.*?\*/", " ", v)
    v = re.sub(r"//.*$", "", v).strip()
    if v.startswith("(") and v.endswith(")"):
        v = v[1:-1].strip()
    if v.startswith('"') and v.endswith('"') and len(v) >= 2:
        v = re.sub(r"\\(.)", r"\1", v[1:-1]).strip()
    return v or None


def _x_c_define(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _DEFINE.match(ln.strip().strip("`"))
        if not m or not m.group(1).strip():
            continue
        v = _c_value(m.group(1))
        if v:
            found = v
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "verdict_line": _x_verdict,
    "the_figure_is": _x_figure,
    "regards_signoff": _x_regards,
    "rst_field": _x_rst_field,
    "org_keyword": _x_org_keyword,
    "c_define": _x_c_define,
}


def extract(wording: dict | str, reply_text: str) -> str | None:
    """The answer text the wording's form marks in the reply (its last occurrence), or
    None. An empty wording (no instruction) uses the first set's general `answer_text`."""
    w = _wording(wording)
    if not (w.get("template") or "").strip():
        text, _src = answer_text(reply_text or "")
        return text or None
    fn = EXTRACTORS.get(w["id"])
    if fn is None:
        raise KeyError(f"wording {w['id']!r} has no extractor")
    return fn(reply_text or "")


# ------------------------------------------------------------------ judging
def _one_line(text: str) -> str:
    parts = [p.strip() for p in text.replace("\r", "\n").split("\n") if p.strip()]
    return ", ".join(parts)


def score(q: dict, reply_text: str, wording: dict | str | None = None) -> dict:
    """Judge one reply: {"correct": bool, "found": ..., "why": str}. Closed questions by
    their `@name[value]` parts whatever the wording; natural ones by the general extraction
    (``wording=None`` or an empty wording) or by the wording's form only."""
    reply_text = reply_text or ""
    if q["style"] == "closed":
        return _score_closed(q, reply_text)
    w = _wording(wording)
    if w is None or not (w.get("template") or "").strip():
        return _score_natural(q, reply_text)
    text = extract(w, reply_text)
    if text is None or not _clean(text).strip():
        return {"correct": False, "found": None, "why": f"not in the asked form ({w['id']})"}
    r = _score_natural(q, "Answer: " + _one_line(text))
    r["why"] = r["why"].replace("(answer line)", f"({w['id']} form)").replace(" in answer line", f" in {w['id']} form")
    return r
