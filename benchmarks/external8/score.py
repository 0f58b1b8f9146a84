"""Scoring for the eighth external evaluation set (folder external8).

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`) and its value rules (`_score_natural`).

What is new is this set's six answer-format wordings (`wordings.json`): a closing
`Bottom line: ...` line, a closing sentence opening with `In short,`, the result in the
double quotation marks that end the reply, Discord-style `||spoiler||` bars, a one-line
SQL statement `SELECT '...' AS answer_value;` and an R assignment
`final_result <- ...`. `score(q, reply, wording)` reads a natural reply by that wording's
form alone (its LAST occurrence); a reply with nothing in the asked form is wrong ("not in
the asked form"); only an empty wording falls back to the general `answer_text`. The text
found is then judged by the first set's rules.

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


_BOTTOM = re.compile(r"^\s*(?:[*_]{1,2})?bottom line\s*:\s*(?:[*_]{1,2})?\s*(.*?)\s*$", re.I)


def _x_bottom_line(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _BOTTOM.match(ln)
        if m and _stop(m.group(1)):
            found = _unquote(_stop(m.group(1)))
    return found


_IN_SHORT = re.compile(r"^\s*(?:[*_]{1,2})?in short,\s*(.*?)\s*$", re.I)


def _x_in_short(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _IN_SHORT.match(ln)
        if m and _stop(m.group(1)):
            found = _unquote(_stop(m.group(1)))
    return found


_OPEN = {"\"": "\"", "\u201d": "\u201c\""}


def _x_closing_quotes(reply: str) -> str | None:
    t = reply.rstrip()
    t = re.sub(r"[*_]+$", "", t).rstrip()
    if t.endswith("."):
        t = t[:-1].rstrip()
    t = re.sub(r"[*_]+$", "", t).rstrip()
    if not t or t[-1] not in _OPEN:
        return None
    line = _lines(t)[-1]
    body = line[:-1]
    start = max(body.rfind(c) for c in _OPEN[t[-1]])
    if start < 0:
        return None
    value = body[start + 1:].strip()
    return value or None


_SPOILER = re.compile(r"\|\|(.*?)\|\|")


def _x_spoiler(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        for body in _SPOILER.findall(ln):
            if body.strip():
                found = body.strip()
    return found


_SELECT = re.compile(r"^\s*SELECT\s+(.+?)\s+AS\s+answer_value\s*;?\s*$", re.I)


def _x_sql(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _SELECT.match(ln.strip().strip("`"))
        if not m:
            continue
        v = m.group(1).strip()
        if len(v) >= 2 and v[0] == v[-1] == "'":
            v = v[1:-1].replace("''", "'")
        else:
            v = _unquote(v)
        if v.strip():
            found = v.strip()
    return found


_R_ASSIGN = re.compile(r"^\s*final_result\s*<-\s*(.*?)\s*;?\s*$")
_R_VECTOR = re.compile(r"^c\((.*)\)$", re.S)


def _x_r_assign(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _R_ASSIGN.match(ln.strip().strip("`"))
        if not m or not m.group(1).strip():
            continue
        v = m.group(1).strip()
        vec = _R_VECTOR.match(v)
        if vec:
            items = re.findall(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'|([^,\s][^,]*)', vec.group(1))
            vals = [next(x for x in it if x != "") .strip() for it in items if any(x.strip() for x in it)]
            if not vals:
                continue
            found = ", ".join(vals)
        else:
            found = _unquote(v)
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "bottom_line": _x_bottom_line,
    "in_short": _x_in_short,
    "closing_quotes": _x_closing_quotes,
    "spoiler_bars": _x_spoiler,
    "sql_select": _x_sql,
    "r_assign": _x_r_assign,
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
