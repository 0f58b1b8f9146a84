"""Scoring for the fourth external evaluation set.

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`: the last `Answer:` line, else `\\boxed{}` / `<answer>`, else the final
  sentence) and its value rules (`_score_natural`).

What is new is the answer-format wordings of this set (`wordings.json`): each asks for the
answer in a form of its own (a YAML block, an XML attribute, double curly braces, ...).
`score(q, reply, wording)` finds the answer by that form alone: the text the form marks,
the LAST such occurrence in the reply. When nothing in the reply is in the asked form the
reply is wrong ("not in the asked form"); only an empty wording (no instruction) falls back
to the general `answer_text`. The text found is then judged by the first set's rules
(numbers within tolerance, one label of the choices, yes/no, lists), which already forgive
what a human grader would: bold, quotes, a trailing period, thousands separators, the
case of a label.

Functions: `load_questions`, `load_wordings`, `prompt_for`, `run_reference`, `score`,
`extract` (the wording's form), and the first set's `parse_number` and `answer_text`.
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


def _lines(reply: str) -> list[str]:
    return reply.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _unquote(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        t = t[1:-1].strip()
    return t


def _x_yaml(reply: str) -> str | None:
    """`result:` in the last fenced block (```yaml, ```yml or a bare ```) that has one."""
    found = None
    lines = _lines(reply)
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```\s*([A-Za-z]*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang = m.group(1).lower()
        j = i + 1
        while j < len(lines) and not _FENCE.match(lines[j]):
            j += 1
        body = lines[i + 1:j]
        i = j + 1
        if lang not in ("yaml", "yml", ""):
            continue
        for k, ln in enumerate(body):
            km = re.match(r"^\s*(?:-\s+)?result\s*:\s*(.*?)\s*$", ln, re.I)
            if not km:
                continue
            value = km.group(1)
            if value in ("", "|", ">"):  # a block list or block text on the lines below
                items = []
                for nxt in body[k + 1:]:
                    if not nxt.strip():
                        continue
                    if not re.match(r"^\s+", nxt) and not nxt.lstrip().startswith("- "):
                        break
                    items.append(re.sub(r"^\s*-\s+", "", nxt).strip())
                value = ", ".join(_unquote(x) for x in items)
            found = _unquote(value)
    return found if found else None


_XML = re.compile(r"<\s*result\b[^<>]*?\bvalue\s*=\s*(?:\"([^\"]*)\"|'([^']*)')[^<>]*>", re.I)


def _x_xml(reply: str) -> str | None:
    hits = list(_XML.finditer(reply))
    if not hits:
        return None
    m = hits[-1]
    return m.group(1) if m.group(1) is not None else m.group(2)


def _x_braces(reply: str) -> str | None:
    hits = re.findall(r"\{\{(.*?)\}\}", reply, re.S)
    return hits[-1] if hits else None


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(?:\*\*|__)?\s*result\s*(?:\*\*|__)?\s*(?::\s*(.*?))?\s*#*\s*$", re.I)


def _x_heading(reply: str) -> str | None:
    lines = _lines(reply)
    idx = [i for i, ln in enumerate(lines) if _HEADING.match(ln)]
    if not idx:
        return None
    i = idx[-1]
    inline = _HEADING.match(lines[i]).group(1)
    if inline:
        return inline
    for ln in lines[i + 1:]:
        if not ln.strip() or _FENCE.match(ln):
            continue
        if re.match(r"^\s{0,3}#{1,6}\s", ln):
            return None
        return ln.strip()
    return None


_ASSIGN = re.compile(r"^\s*(?:>>>\s*)?final_value\s*(?::\s*[\w\[\], ]+)?=(?!=)\s*(.*?)\s*;?\s*$")


def _x_assign(reply: str) -> str | None:
    lines = _lines(reply)
    found = None
    for i, ln in enumerate(lines):
        m = _ASSIGN.match(ln)
        if not m or not m.group(1):
            continue
        value = m.group(1)
        opener = value[:1]
        closer = {"[": "]", "(": ")", "{": "}"}.get(opener)
        if closer and value.count(closer) < value.count(opener):  # a literal over several lines
            parts = [value]
            for nxt in lines[i + 1:]:
                parts.append(nxt.strip())
                if "".join(parts).count(closer) >= "".join(parts).count(opener):
                    break
            value = " ".join(parts)
        value = re.sub(r"\s*#.*$", "", value) if not re.search(r"[\"'].*#.*[\"']", value) else value
        found = _unquote(value)
    return found if found else None


def _x_guillemets(reply: str) -> str | None:
    hits = re.findall(r"\u00ab\s*(.*?)\s*\u00bb", reply, re.S)
    return hits[-1] if hits else None


def _x_first_line(reply: str) -> str | None:
    for ln in _lines(reply):
        if ln.strip() and not _FENCE.match(ln):
            return ln.strip()
    return None


def _x_blockquote(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = re.match(r"^\s*(?:>\s?)+(.*)$", ln)
        if m and m.group(1).strip():
            found = m.group(1).strip()
    return found


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "yaml_result": _x_yaml,
    "xml_attribute": _x_xml,
    "double_braces": _x_braces,
    "result_heading": _x_heading,
    "python_assign": _x_assign,
    "guillemets": _x_guillemets,
    "answer_first": _x_first_line,
    "blockquote": _x_blockquote,
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
