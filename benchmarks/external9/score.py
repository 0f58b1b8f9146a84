"""Scoring for the ninth external evaluation set (folder external9).

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`) and its value rules (`_score_natural`).

What is new is this set's six answer-format wordings (`wordings.json`): a closing
`Takeaway: ...` line, a closing sentence `I make it X.`, the result in the round brackets
that end the reply, an HTML `<mark>...</mark>` element, a JavaScript statement
`const answer = ...;` and a chat-style slash command `/answer ...`. `score(q, reply,
wording)` reads a natural reply by that wording's form alone (its LAST occurrence); a reply
with nothing in the asked form is wrong ("not in the asked form"); only an empty wording
falls back to the general `answer_text`. The text found is then judged by the first set's
rules.

Functions: `load_questions`, `load_wordings`, `prompt_for`, `run_reference`, `score`,
`extract`, `EXTRACTORS`, and the first set's `parse_number` and `answer_text`.
"""
from __future__ import annotations

import html
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


_TAKEAWAY = re.compile(r"^\s*(?:[*_]{1,2})?takeaway\s*:\s*(?:[*_]{1,2})?\s*(.*?)\s*$", re.I)


def _x_takeaway(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _TAKEAWAY.match(ln)
        if m and _stop(m.group(1)):
            found = _unquote(_stop(m.group(1)))
    return found


# "I make it X." at the start of a line or right after the end of a sentence on it
_MAKE_IT = re.compile(r"(?:^|(?<=[.!?])\s+|(?<=[.!?][*_])\s+|(?<=[.!?][*_]{2})\s+)\s*(?:[*_]{1,2})?I make it\s+(?!\s)(.*?)\s*$", re.I)


def _x_i_make_it(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        for m in _MAKE_IT.finditer(ln):
            v = _stop(m.group(1))
            if v:
                found = _unquote(v)
    return found


def _x_round_brackets(reply: str) -> str | None:
    t = reply.rstrip()
    t = re.sub(r"[*_]+$", "", t).rstrip()
    if t.endswith("."):
        t = t[:-1].rstrip()
    t = re.sub(r"[*_]+$", "", t).rstrip()
    if not t.endswith(")"):
        return None
    line = _lines(t)[-1]
    depth = 0
    for i in range(len(line) - 1, -1, -1):
        if line[i] == ")":
            depth += 1
        elif line[i] == "(":
            depth -= 1
            if depth == 0:
                value = line[i + 1:-1].strip()
                return _unquote(value.strip("*_").strip()) or None
    return None


_MARK = re.compile(r"<mark(?:\s[^<>]*)?>(.*?)</mark\s*>", re.I)


def _x_html_mark(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        for body in _MARK.findall(ln):
            v = html.unescape(re.sub(r"<[^<>]*>", "", body)).strip()
            if v:
                found = v
    return found


_CONST = re.compile(r"^\s*const\s+answer\s*=\s*(.*?)\s*;?\s*(?://.*)?$")


def _js_items(body: str) -> list[str] | None:
    items = re.findall(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'|([^,\s][^,]*)', body)
    vals = [next(x for x in it if x != "").strip() for it in items if any(x.strip() for x in it)]
    return vals or None


def _x_js_const(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _CONST.match(ln.strip().strip("`"))
        if not m or not m.group(1).strip():
            continue
        v = m.group(1).strip().rstrip(";").strip()
        if v.startswith("[") and v.endswith("]"):
            vals = _js_items(v[1:-1])
            if not vals:
                continue
            found = ", ".join(vals)
        elif len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'`":
            body = v[1:-1].replace("\\" + v[0], v[0]).strip()
            if body:
                found = body
        else:
            found = v
    return found


_SLASH = re.compile(r"^\s*/answer\s+(.*?)\s*$", re.I)


def _x_slash(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _SLASH.match(ln.strip().strip("`"))
        if m and m.group(1).strip():
            found = _unquote(m.group(1).strip())
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "takeaway_line": _x_takeaway,
    "i_make_it": _x_i_make_it,
    "round_brackets": _x_round_brackets,
    "html_mark": _x_html_mark,
    "js_const": _x_js_const,
    "slash_command": _x_slash,
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
