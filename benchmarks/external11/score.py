"""Scoring for the eleventh external evaluation set (folder external11).

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`) and its value rules (`_score_natural`).

What is new is this set's six answer-format wordings (`wordings.json`): a closing
`TL;DR: ...` line, a closing sentence `So it comes to X.`, a postscript line `P.S. X`, a
LaTeX macro definition `\\newcommand{\\result}{X}`, a Makefile variable line `RESULT := X`
and a CSS custom property declaration `--result: X;`. `score(q, reply, wording)` reads a
natural reply by that wording's form alone (its LAST occurrence); a reply with nothing in
the asked form is wrong ("not in the asked form"); only an empty wording falls back to the
general `answer_text`. The text found is then judged by the first set's rules.

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


# "TL;DR: X" opening a line (any case, bold around the marker allowed)
_TLDR = re.compile(r"^\s*(?:[*_]{1,2})?tl;dr(?:[*_]{1,2})?\s*:\s*(?:[*_]{1,2})?[ \t]*(.*?)\s*$", re.I)


def _x_tldr(reply: str) -> str | None:
    return _last_line_value(_TLDR, reply)


# "So it comes to X." at the start of a line or right after the end of a sentence on it
_COMES = re.compile(r"(?:^|(?<=[.!?])\s+|(?<=[.!?][*_])\s+|(?<=[.!?][*_]{2})\s+)\s*(?:[*_]{1,2})?so it comes to[ \t]+(?![ \t])(.*?)\s*$",
                    re.I)


def _x_comes_to(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        for m in _COMES.finditer(ln):
            v = _stop(m.group(1))
            if v:
                found = _unquote(v)
    return found


# "P.S. X" opening a line (any case; "P. S." and a colon or dash after it allowed)
_PS = re.compile(r"^\s*(?:[*_]{1,2})?p\.\s?s\.(?:[*_]{1,2})?[ \t]*(?:[:\-\u2013\u2014][ \t]*)?(?:[*_]{1,2})?[ \t]*(.*?)\s*$",
                 re.I)


def _x_postscript(reply: str) -> str | None:
    return _last_line_value(_PS, reply)


# \newcommand{\result}{X} (or \renewcommand, \newcommand*, \newcommand\result{X}) opening a line
_NEWCOMMAND = re.compile(r"^\s*\\(?:re)?newcommand\*?\s*(?:\{\s*\\result\s*\}|\\result(?![A-Za-z]))\s*\{")


def _brace_body(text: str, start: int) -> str | None:
    """The text of the brace group whose ``{`` is just before ``start`` (nested braces kept),
    or None when it does not close on the line."""
    depth = 1
    for i in range(start, len(text)):
        c = text[i]
        if c == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif c == "}" and (i == 0 or text[i - 1] != "\\"):
            depth -= 1
            if depth == 0:
                return text[start:i]
    return None


def _latex_value(body: str) -> str | None:
    v = body.replace("{,}", ",").strip()
    v = re.sub(r"\\(?:text|textrm|textbf|mathrm|emph)\s*\{([^{}]*)\}", r"\1", v)
    v = v.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_").replace("\\ ", " ").replace("~", " ")
    if len(v) >= 2 and v.startswith("$") and v.endswith("$"):
        v = v.strip("$").strip()
    return _unquote(v) or None


def _x_latex_newcommand(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        s = ln.strip().strip("`").strip().strip("$").strip()
        m = _NEWCOMMAND.match(s)
        if not m:
            continue
        body = _brace_body(s, m.end())
        if body is None:
            continue
        v = _latex_value(body)
        if v:
            found = v
    return found


# RESULT := X (a Makefile simply-expanded variable; the name in capitals) opening a line
_MAKE = re.compile(r"^\s*RESULT[ \t]*:=[ \t]*(.*?)\s*$")


def _x_make_assign(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _MAKE.match(ln.strip().strip("`"))
        if not m:
            continue
        v = re.sub(r"(?<!\\)#.*$", "", m.group(1)).replace("\\#", "#").strip()
        v = _unquote(v)
        if v:
            found = v
    return found


# --result: X; a CSS custom property declaration anywhere on a line, outside /* comments */
_CSS = re.compile(r"(?<![\w-])--result\s*:\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[^;{}\"']*?)\s*(?:!important\s*)?(?:;|\}|$)")


def _css_value(raw: str) -> str | None:
    v = raw.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = re.sub(r"\\(.)", r"\1", v[1:-1]).strip()
    return v or None


def _x_css_property(reply: str) -> str | None:
    found = None
    text = re.sub(r"/\*.*?\*/", " ", reply.replace("\r\n", "\n"), flags=re.S)
    for ln in _lines(text):
        for m in _CSS.finditer(ln.strip().strip("`")):
            v = _css_value(m.group(1))
            if v:
                found = v
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "tldr_line": _x_tldr,
    "so_it_comes_to": _x_comes_to,
    "postscript": _x_postscript,
    "latex_newcommand": _x_latex_newcommand,
    "make_assign": _x_make_assign,
    "css_property": _x_css_property,
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
