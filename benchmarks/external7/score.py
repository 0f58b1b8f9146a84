"""Scoring for the seventh external evaluation set (folder external7).

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`) and its value rules (`_score_natural`).

What is new is this set's six answer-format wordings (`wordings.json`): an XML-like
element `<out type="final">...</out>` whose attribute is required, a line opening with the
long double arrow `\u27f9`, the result written after the codeword KESTREL, a closing
sentence `Settled on ...` shown only by a worked example for another value, a
BEGIN VALUE / END VALUE block described in several sentences, and a shell line
`export RESULT='...'`. `score(q, reply,
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


_OUT = re.compile(r"""<out\s+type\s*=\s*(["'])final\1\s*>(.*?)</out\s*>""", re.S | re.I)


def _x_out_element(reply: str) -> str | None:
    found = None
    for m in _OUT.finditer(reply):
        if m.group(2).strip():
            found = m.group(2).strip()
    return found


_ARROW = re.compile(r"^\s*\u27f9\s*(.*?)\s*$")


def _x_arrow(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _ARROW.match(ln)
        if m and m.group(1).strip():
            found = _unquote(m.group(1))
    return found


_CODEWORD = re.compile(r"(?<![A-Za-z])KESTREL(?![A-Za-z])\s*[:\-\u2013\u2014=]?\s*(.*?)\s*$")


def _x_codeword(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = None
        for m in _CODEWORD.finditer(ln):
            pass
        if m and m.group(1).strip(" .*"):
            found = _unquote(m.group(1).strip("*").strip())
    return found


_SETTLED = re.compile(r"^\s*Settled on\s+(.*?)\s*$", re.I)


def _x_settled(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _SETTLED.match(ln)
        if m:
            body = m.group(1).strip()
            if body.endswith("."):  # the sentence's own full stop
                body = body[:-1].strip()
            if body:
                found = _unquote(body)
    return found


_BEGIN = re.compile(r"^\s*BEGIN VALUE\s*$")
_END = re.compile(r"^\s*END VALUE\s*$")


def _x_block(reply: str) -> str | None:
    found = None
    body: list[str] | None = None
    for ln in _lines(reply):
        if _BEGIN.match(ln):
            body = []
            continue
        if body is None:
            continue
        if _END.match(ln):
            text = ", ".join(x.strip() for x in body if x.strip())
            if text:
                found = text
            body = None
            continue
        body.append(ln)
    return found


_EXPORT = re.compile(r"^\s*\$?\s*export\s+RESULT=(.*?)\s*;?\s*$")


def _x_export(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _EXPORT.match(ln)
        if not m:
            continue
        v = _unquote(m.group(1))
        if v:
            found = v
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "out_element": _x_out_element,
    "arrow_line": _x_arrow,
    "codeword": _x_codeword,
    "settled_example": _x_settled,
    "value_block": _x_block,
    "shell_export": _x_export,
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
