"""Scoring for the sixth external evaluation set (folder external6b).

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`) and its value rules (`_score_natural`).

What is new is this set's six answer-format wordings (`wordings.json`): BBCode
`[result]...[/result]` tags, an INI section `[output]` with a `value = ...` line, an
S-expression `(final ...)` given only by an example, a markdown footnote `[^ans]: ...`, a
`<<< SLOT >>>` placeholder and a header-style `X-Result: ...` line. `score(q, reply,
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


def _items(text: str, sep: str) -> str:
    """Items separated by ``sep`` rejoined with commas, each unquoted."""
    if sep not in text:
        return _unquote(text)
    return ", ".join(_unquote(x) for x in text.split(sep) if x.strip())


def _x_bbcode(reply: str) -> str | None:
    found = None
    for body in re.findall(r"\[result\](.*?)\[/result\]", reply, re.S | re.I):
        if body.strip():
            found = body.strip()
    return found


_SECTION = re.compile(r"^\s*\[([^\[\]]+)\]\s*$")
_INI_VALUE = re.compile(r"^\s*value\s*[=:]\s*(.*?)\s*$", re.I)


def _x_ini(reply: str) -> str | None:
    found = None
    section = None
    for ln in _lines(reply):
        m = _SECTION.match(ln)
        if m:
            section = m.group(1).strip().lower()
            continue
        if section != "output":
            continue
        v = _INI_VALUE.match(ln)
        if v and v.group(1).strip():
            found = _items(v.group(1), ";")
    return found


_SEXPR = re.compile(r"^\s*`?\(final\s+(.*?)\)`?\s*$", re.I)


def _x_sexpr(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _SEXPR.match(ln)
        if not m or not m.group(1).strip():
            continue
        body = m.group(1).strip()
        quoted = re.findall(r'"([^"]*)"', body)
        if len(quoted) >= 2 and not re.sub(r'"[^"]*"', "", body).strip(" ,"):
            found = ", ".join(quoted)
        else:
            found = _unquote(body)
    return found


_FOOT = re.compile(r"^\s*\[\^ans\]:\s*(.*?)\s*$", re.I)


def _x_footnote(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _FOOT.match(ln)
        if m and m.group(1).strip():
            found = m.group(1)
    return found


def _x_chevron(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        for body in re.findall(r"<<<(.*?)>>>", ln):
            if body.strip():
                found = body.strip()
    return found


_HEADER = re.compile(r"^\s*X-Result\s*:\s*(.*?)\s*$", re.I)


def _x_header(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _HEADER.match(ln)
        if m and m.group(1).strip(" ."):
            found = _items(m.group(1), "|")
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "bbcode_result": _x_bbcode,
    "ini_output": _x_ini,
    "sexpr_example": _x_sexpr,
    "footnote_ans": _x_footnote,
    "chevron_slot": _x_chevron,
    "header_line": _x_header,
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
