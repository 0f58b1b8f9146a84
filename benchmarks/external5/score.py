"""Scoring for the fifth external evaluation set.

The judging rules are those of `benchmarks/external/score.py`, reused from it:

* closed questions: the `@name[value]` parts, exactly as the earlier sets score them;
* natural questions, with ``wording=None``: the general extraction of the first set
  (`answer_text`: the last `Answer:` line, else `\\boxed{}` / `<answer>`, else the final
  sentence) and its value rules (`_score_natural`).

What is new is this set's eight answer-format wordings (`wordings.json`): a markdown table
row `| answer | ... |`, a `RESULT >>>` line, a TOML line `answer = ...`, a line opened by
the therefore sign, an HTML comment `<!-- result: ... -->`, a LaTeX `\\fbox{}`, a fenced
JSON object with a `value` key, and the line after a `---` rule. `score(q, reply, wording)`
finds the answer by that wording's form alone: the text the form marks, the LAST such
occurrence in the reply. When nothing in the reply is in the asked form the reply is wrong
("not in the asked form"); only an empty wording (no instruction) falls back to the general
`answer_text`. The text found is then judged by the first set's rules (numbers within
tolerance, one label of the choices, yes/no, lists), which already forgive what a human
grader would: bold, quotes, a trailing period, thousands separators, the case of a label.

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
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'`":
        t = t[1:-1].strip()
    return t


def _as_text(value: Any) -> str | None:
    """A parsed TOML/JSON value as answer text: arrays joined by commas, booleans as
    yes/no, numbers as written by Python."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        items = [_as_text(v) for v in value]
        return ", ".join(i for i in items if i)
    if isinstance(value, dict):
        return None
    return str(value).strip()


def _strip_markup(cell: str) -> str:
    return re.sub(r"^(?:\*\*|__|`)+|(?:\*\*|__|`)+$", "", cell.strip()).strip()


def _x_table_row(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        s = ln.strip()
        if not s.startswith("|"):
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if len(cells) >= 2 and _strip_markup(cells[0]).lower() == "answer" and cells[1]:
            found = cells[1]
    return found


_ARROW = re.compile(r"^\s*(?:\*\*|__)?RESULT(?:\*\*|__)?\s*>>>\s*(.*?)\s*$", re.I)


def _x_result_arrow(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _ARROW.match(ln)
        if m and m.group(1).strip():
            found = m.group(1)
    return found


_TOML = re.compile(r"^\s*answer\s*=(?!=)\s*(.*?)\s*$", re.I)


def _toml_value(raw: str) -> str | None:
    import tomllib

    try:
        return _as_text(tomllib.loads(f"answer = {raw}")["answer"])
    except (tomllib.TOMLDecodeError, KeyError, ValueError):
        pass
    # not strict TOML (single-quoted items, a bare word, a trailing comment): read loosely
    value = re.sub(r"\s+#[^\"']*$", "", raw).strip()
    if value.startswith("[") and value.endswith("]"):
        items = [_unquote(x) for x in value[1:-1].split(",") if x.strip()]
        return ", ".join(items) or None
    low = value.lower()
    if low in ("true", "false"):
        return "yes" if low == "true" else "no"
    return _unquote(value) or None


def _x_toml(reply: str) -> str | None:
    lines = _lines(reply)
    found = None
    for i, ln in enumerate(lines):
        m = _TOML.match(ln)
        if not m or not m.group(1):
            continue
        value = m.group(1)
        if value.startswith("[") and value.count("]") < value.count("["):  # an array over several lines
            parts = [value]
            for nxt in lines[i + 1:]:
                parts.append(nxt.strip())
                joined = " ".join(parts)
                if joined.count("]") >= joined.count("["):
                    break
            value = " ".join(parts)
        got = _toml_value(value)
        if got:
            found = got
    return found


_THEREFORE = re.compile(r"^\s*(?:\*\*|__)?\u2234\s*(.*?)\s*$")


def _x_therefore(reply: str) -> str | None:
    found = None
    for ln in _lines(reply):
        m = _THEREFORE.match(ln)
        if m and _strip_markup(m.group(1)):
            found = m.group(1)
    return found


def _x_html_comment(reply: str) -> str | None:
    found = None
    for body in re.findall(r"<!--(.*?)-->", reply, re.S):
        m = re.match(r"^\s*result\s*:\s*(.*?)\s*$", body, re.S | re.I)
        if m and m.group(1).strip():
            found = m.group(1)
    return found


def _balanced(text: str, start: int) -> str | None:
    """The text inside the braces opening at text[start] == '{', or None if unclosed."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return None


def _x_fbox(reply: str) -> str | None:
    found = None
    for m in re.finditer(r"\\fbox\s*\{", reply):
        inner = _balanced(reply, m.end() - 1)
        if inner is None:
            continue
        t = inner
        for _ in range(3):  # unwrap \text{...}, \textbf{...}, \mathrm{...}
            t = re.sub(r"\\(?:text|textbf|textrm|mathrm|mathbf|mbox)\s*\{([^{}]*)\}", r"\1", t)
        t = t.replace("{,}", ",").replace("\\%", "%").replace("\\,", "").replace("\\ ", " ").replace("$", "").strip()
        if t:
            found = t
    return found


def _x_json(reply: str) -> str | None:
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
        body = "\n".join(lines[i + 1:j])
        i = j + 1
        if lang not in ("json", "jsonc", "json5", ""):
            continue
        got = None
        try:
            obj = json.loads(body)
            if isinstance(obj, dict) and "value" in obj:
                got = _as_text(obj["value"])
        except ValueError:
            km = re.search(r"\"value\"\s*:\s*(\[[^\]]*\]|\"[^\"]*\"|[^,}\n]+)", body)
            if km:
                raw = km.group(1).strip()
                if raw.startswith("["):
                    got = ", ".join(_unquote(x) for x in raw[1:-1].split(",") if x.strip())
                elif raw.lower() in ("true", "false"):
                    got = "yes" if raw.lower() == "true" else "no"
                else:
                    got = _unquote(raw)
        if got:
            found = got
    return found


_RULE = re.compile(r"^\s{0,3}-{3,}\s*$")


def _x_after_rule(reply: str) -> str | None:
    lines = _lines(reply)
    idx = [i for i, ln in enumerate(lines) if _RULE.match(ln)]
    if not idx:
        return None
    for ln in lines[idx[-1] + 1:]:
        if not ln.strip() or _FENCE.match(ln):
            continue
        return ln.strip()
    return None


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "table_row": _x_table_row,
    "result_arrow": _x_result_arrow,
    "toml_line": _x_toml,
    "therefore": _x_therefore,
    "html_comment": _x_html_comment,
    "latex_fbox": _x_fbox,
    "json_value": _x_json,
    "after_rule": _x_after_rule,
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
