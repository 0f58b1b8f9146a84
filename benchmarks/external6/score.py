"""Scoring for the sixth external evaluation set.

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`: the last `Answer:` line, else `\\boxed{}` / `<answer>`, else the final
  sentence) and its value rules (`_score_natural`).

What is new is this set's eight answer-format wordings (`wordings.json`): a fenced CSV
block with an `answer` header, a markdown footnote `[^result]: ...`, a checked task-list
item `- [x] ...`, CJK lenticular brackets (given only by an example), a `SOLUTION:` line, a
call `OUTPUT(...)`, a Pandoc definition list under the term `Outcome`, and an e-mail
`Subject:` line. `score(q, reply, wording)` finds the answer by that wording's form alone:
the text the form marks, the LAST such occurrence in the reply. When nothing in the reply is
in the asked form the reply is wrong ("not in the asked form"); only an empty wording (no
instruction) falls back to the general `answer_text`. The text found is then judged by the
first set's rules (numbers within tolerance, one label of the choices, yes/no, lists),
which already forgive what a human grader would: bold, quotes, a trailing period,
thousands separators, the case of a label.

Functions: `load_questions`, `load_wordings`, `prompt_for`, `run_reference`, `score`,
`extract` (the wording's form), and the first set's `parse_number` and `answer_text`.
"""
from __future__ import annotations

import csv
import io
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

# the first set's helpers, unchanged
parse_number = _first.parse_number
answer_text = _first.answer_text
_score_closed = _first._score_closed
_score_natural = _first._score_natural
_norm_label = _first._norm_label
_split_list = _first._split_list
_clean = _first._clean


# ------------------------------------------------------------------ loading
def load_questions() -> list[dict]:
    return json.loads((HERE / "questions.json").read_text())


def load_wordings() -> list[dict]:
    return json.loads(WORDINGS.read_text())


def _wording(wording: dict | str | None) -> dict | None:
    """A wording dict from a dict, an id of this set's wordings, or None."""
    if wording is None or isinstance(wording, dict):
        return wording
    for w in load_wordings():
        if w["id"] == wording:
            return w
    raise KeyError(f"no wording with id {wording!r} in {WORDINGS.name}")


def prompt_for(q: dict, wording: dict | str | None) -> str:
    """The question text, plus the wording's answer-format template for natural ones.

    ``wording`` is a wording dict, the id of one of this set's wordings, a template
    string (as the first set's `prompt_for` takes it), or None."""
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
# Each extractor returns the answer text of the LAST occurrence of its form, or None
# when the reply has nothing in that form.
_FENCE = re.compile(r"^\s*```")
_BOLD = r"(?:\*\*|__)?"


def _lines(reply: str) -> list[str]:
    return reply.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _unquote(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'`":
        t = t[1:-1].strip()
    return t


def _fenced_blocks(reply: str) -> list[tuple[str, list[str]]]:
    """(language, body lines) of every closed fenced code block, in order."""
    out = []
    lines = _lines(reply)
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```\s*([A-Za-z0-9_+-]*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not _FENCE.match(lines[j]):
            j += 1
        if j < len(lines):
            out.append((m.group(1).lower(), lines[i + 1:j]))
        i = j + 1
    return out


def _x_csv_block(reply: str) -> str | None:
    found = None
    for lang, body in _fenced_blocks(reply):
        if lang not in ("csv", ""):
            continue
        rows = [ln for ln in body if ln.strip()]
        if len(rows) < 2 or _unquote(rows[0].strip().strip(",")).lower() != "answer":
            continue
        try:
            cells = next(csv.reader(io.StringIO(rows[1].strip()), skipinitialspace=True))
        except (csv.Error, StopIteration):
            continue
        cells = [_unquote(c) for c in cells if c.strip()]
        if cells:
            found = ", ".join(cells)
    return found


_FOOTNOTE = re.compile(r"^\s*\[\^result\]:\s*(.*?)\s*$", re.I)


def _x_footnote(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _FOOTNOTE.match(ln)
        if m and m.group(1).strip():
            found = m.group(1)
    return found


_TASK = re.compile(r"^\s*[-*+]\s+\[[xX]\]\s+(.*?)\s*$")


def _x_task_item(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _TASK.match(ln)
        if m and m.group(1).strip():
            found = m.group(1)
    return found


def _x_lenticular(reply: str) -> str | None:
    found = None
    for body in re.findall(r"\u3010([^\u3010\u3011]*)\u3011", reply):
        if body.strip():
            found = body.strip()
    return found


_SOLUTION = re.compile(r"^\s*" + _BOLD + r"\s*SOLUTION\s*" + _BOLD + r"\s*:\s*" + _BOLD + r"\s*(.*?)\s*$", re.I)


def _x_solution(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _SOLUTION.match(ln)
        if m and _clean(m.group(1)):
            found = m.group(1)
    return found


def _x_call(reply: str) -> str | None:
    found = None
    for m in re.finditer(r"(?<![\w])OUTPUT\s*\(", reply, re.I):
        depth = 0
        for i in range(m.end() - 1, len(reply)):
            if reply[i] == "(":
                depth += 1
            elif reply[i] == ")":
                depth -= 1
                if depth == 0:
                    inner = reply[m.end():i].strip()
                    if inner and "\n" not in inner.strip():
                        found = _unquote(inner)
                    break
    return found


_TERM = re.compile(r"^\s*" + _BOLD + r"\s*outcome\s*" + _BOLD + r"\s*$", re.I)
_DEFN = re.compile(r"^\s{0,3}:\s+(.*?)\s*$")


def _x_definition(reply: str) -> str | None:
    lines = _lines(reply)
    found = None
    for i, ln in enumerate(lines):
        if not _TERM.match(ln):
            continue
        for nxt in lines[i + 1:]:
            if not nxt.strip():
                continue
            m = _DEFN.match(nxt)
            if m and m.group(1).strip():
                found = m.group(1)
            break
    return found


_SUBJECT = re.compile(r"^\s*" + _BOLD + r"\s*subject\s*" + _BOLD + r"\s*:\s*(.*?)\s*$", re.I)


def _x_subject(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _SUBJECT.match(ln)
        if m and _clean(m.group(1)):
            found = m.group(1)
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "csv_block": _x_csv_block,
    "footnote": _x_footnote,
    "task_item": _x_task_item,
    "lenticular": _x_lenticular,
    "solution_line": _x_solution,
    "call_form": _x_call,
    "definition_list": _x_definition,
    "subject_line": _x_subject,
}


def extract(wording: dict | str, reply_text: str) -> str | None:
    """The answer text the wording's form marks in the reply (its last occurrence), or
    None when the reply has nothing in that form. An empty wording (no instruction) uses
    the first set's general `answer_text`."""
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
    """Judge one reply to one question: {"correct": bool, "found": ..., "why": str}.

    Closed questions are scored by their `@name[value]` parts whatever the wording.
    Natural ones: with ``wording=None`` by the first set's general extraction; with a
    wording (its id or dict) by that wording's form only."""
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
