"""Scoring for the external evaluation set.

Pure functions, standard library only (pandas/scipy are needed only by
`run_reference`, which imports them lazily).

* `load_questions()` / `load_wordings()` read the JSON files beside this module.
* `prompt_for(q, wording)` gives the text to send: a closed question alone
  (it carries its own Format line), a natural question plus the wording's
  answer-format template.
* `score(q, reply_text)` judges a reply and returns
  {"correct": bool, "found": ..., "why": str}.
* `run_reference(q)` executes a question's reference code on the committed
  CSV and returns its result (used by the tests and the builder).
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables"


# ------------------------------------------------------------------ loading
def load_questions() -> list[dict]:
    return json.loads((HERE / "questions.json").read_text())


def load_wordings() -> list[dict]:
    return json.loads((HERE / "wordings.json").read_text())


def prompt_for(q: dict, wording: dict | str | None) -> str:
    """The question text, plus the answer-format template for natural ones."""
    question = q["question"].strip()
    if q["style"] == "closed":
        return question
    template = wording.get("template", "") if isinstance(wording, dict) else (wording or "")
    template = template.replace("{frame}", q.get("frame", "df")).strip()
    return question if not template else f"{question}\n\n{template}"


def run_reference(q: dict) -> Any:
    """Run q["reference_code"] with the table loaded as q["frame"]; return `result`."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    env: dict[str, Any] = {"pd": pd, "np": np, "stats": stats}
    env[q["frame"]] = pd.read_csv(TABLES / q["table"])
    exec(q["reference_code"], env)  # noqa: S102 - trusted, committed code
    return env["result"]


# ------------------------------------------------------------------ parsing helpers
_NUM = re.compile(
    r"(?<![\w.])[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+\u2212]?\d+)?"
)
_ORDINAL_OR_DECADE = re.compile(r"(?:st|nd|rd|th|s)\b", re.I)
_CONNECTOR = re.compile(
    r"^\s*(?:%|[a-z$\u20ac\u00a3\u00b0]{0,6})?\s*(?:or|and|to|vs\.?|versus|/|-|\u2013|\u2014|,|;|\u00b1|\+/-)\s*[$\u20ac\u00a3]?\s*$",
    re.I,
)


def _numbers(text: str) -> list[tuple[float, int, int]]:
    """Numbers in text as (value, start, end); ordinals and decades are skipped."""
    out = []
    for m in _NUM.finditer(text):
        s = m.group(0)
        if not re.search(r"\d", s):
            continue
        tail = text[m.end():m.end() + 3]
        if _ORDINAL_OR_DECADE.match(tail):
            continue
        try:
            v = float(s.replace(",", "").replace("\u2212", "-"))
        except ValueError:
            continue
        out.append((v, m.start(), m.end()))
    return out


def _strip_parens(text: str) -> str:
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r"\([^()]*\)", " ", text)
    return text


_MARKER = re.compile(
    r"\s(?:is|was|are|were|equals|of about|of approximately|about|approximately|~|\u2248)\s|=|:\s"
)


def parse_number(text: str) -> tuple[float | None, str]:
    """The single number a short answer gives, or (None, reason)."""
    t = _strip_parens(text.replace("**", ""))
    # "The 90th percentile is 598", "r = -0.78": read what follows the first
    # "is"/"="/":" marker that has no number before it
    for m in _MARKER.finditer(t):
        if not _numbers(t[:m.start()]):
            if _numbers(t[m.end():]):
                t = t[m.end():]
            break
    nums = _numbers(t)
    if not nums:
        return None, "no number"
    if len(nums) > 1:
        between = t[nums[0][2]:nums[1][1]]
        if _CONNECTOR.match(between):
            return None, "several candidate numbers"
    return nums[0][0], ""


def _clean(text: str) -> str:
    t = text.strip()
    t = re.sub(r"\\boxed\{([^{}]*)\}", r"\1", t)
    t = re.sub(r"\\text\{([^{}]*)\}", r"\1", t)
    t = t.replace("**", "").replace("__", "")
    t = t.strip().strip("`").strip()
    t = t.strip("\"'\u201c\u201d\u2018\u2019").strip()
    t = re.sub(r"[.!;]+$", "", t).strip()
    t = t.strip("`\"'\u201c\u201d\u2018\u2019").strip()
    return t


def _norm_label(text: str) -> str:
    t = _clean(text).lower()
    t = re.sub(r"^(?:the)\s+", "", t)
    return re.sub(r"\s+", " ", t).strip()


def answer_text(reply: str) -> tuple[str, str]:
    """The part of a reply that states its answer, and where it came from."""
    text = reply.replace("\r\n", "\n")
    boxed = re.findall(r"\\boxed\{([^{}]*)\}", text) or re.findall(r"<answer>\s*(.*?)\s*</answer>", text, re.I | re.S)
    lines = [ln for ln in text.split("\n") if not ln.strip().startswith("```")]
    pat = re.compile(r"^\s*(?:[#>*\-]+\s*)*(?:\*\*|__)?\s*(?:final\s+)?answer\s*(?:\*\*|__)?\s*[:\uff1a]\s*(?:\*\*|__)?(.*)$", re.I)
    found = None
    for i, ln in enumerate(lines):
        m = pat.match(ln)
        if m:
            content = m.group(1).strip()
            if not content:
                nxt = [x for x in lines[i + 1:] if x.strip()]
                content = nxt[0].strip() if nxt else ""
            if content:
                found = content
    if found is not None:
        return found, "answer line"
    # "The answer is X." (a wording asks for that sentence): X, without the closing point
    said = None
    for ln in lines:
        m = re.match(r"^\s*(?:\*\*)?the\s+(?:final\s+)?answer\s+is\s*:?\s*(.+?)\s*\.?(?:\*\*)?\s*$", ln, re.I)
        if m and m.group(1).strip():
            said = m.group(1).strip()
    if said is not None and not boxed:
        return said, "answer sentence"
    if boxed:
        return boxed[-1], "boxed"
    nonempty = [ln.strip() for ln in lines if ln.strip()]
    if not nonempty:
        return "", "empty reply"
    last = nonempty[-1]
    sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`*\"'])", last) if s.strip()]
    return (sentences[-1] if sentences else last), "final sentence"


# ------------------------------------------------------------------ judging
def _close(found: float, expected: float, tol: float) -> bool:
    if math.isnan(found):
        return False
    return abs(found - expected) <= tol + 1e-9 * max(1.0, abs(expected))


def _judge_label(text: str, expected: str, choices: list[str] | None) -> tuple[bool, str]:
    got = _norm_label(text)
    exp = _norm_label(expected)
    if got == exp:
        return True, "label matches"
    if not choices:
        return False, f"label {got!r} is not {exp!r}"
    # which of the possible labels does the answer name? (longest first, so that
    # "AIRBUS INDUSTRIE" is not also read as "AIRBUS")
    rest = " " + _norm_label(_strip_parens(text)) + " "
    named = []
    for c in sorted({_norm_label(c) for c in choices}, key=len, reverse=True):
        pat = re.compile(r"(?<![\w])" + re.escape(c) + r"(?![\w])")
        if pat.search(rest):
            named.append(c)
            rest = pat.sub(" ", rest)
    if named == [exp]:
        return True, "names the expected label only"
    if exp in named:
        return False, f"names several labels: {named}"
    return False, f"names {named or got!r}, expected {exp!r}"


_YES = {"yes", "true", "y"}
_NO = {"no", "false", "n"}


def _yesno(text: str) -> str | None:
    for w in re.findall(r"[A-Za-z]+", text.lower()):
        if w in _YES - {"y"}:
            return "yes"
        if w in _NO - {"n"}:
            return "no"
    return None


def _split_list(text: str) -> list[str]:
    t = _clean(_strip_parens(text))
    t = t.strip().lstrip("[({").rstrip("])}").strip()
    items = re.split(r"\s*(?:,|;|>|\u2192|->|\n|\band then\b|\bthen\b|\band\b)\s*", t)
    out = []
    for it in items:
        it = re.sub(r"^\s*(?:\d+[.)]|[-*\u2022])\s+", "", it)
        it = _norm_label(it)
        if it:
            out.append(it)
    return out


def _items_equal(a: str, b: str) -> bool:
    if a == b:
        return True
    na, _ = parse_number(a)
    nb, _ = parse_number(b)
    return na is not None and nb is not None and _close(na, nb, 1e-9)


def _score_natural(q: dict, reply: str) -> dict:
    ans = q["answer"]
    kind = ans["kind"]
    text, src = answer_text(reply)
    if kind == "yesno" and src != "answer line" and _yesno(text) is None:
        first = re.findall(r"[A-Za-z]+", reply)
        if first and _yesno(first[0]):
            text, src = first[0], "first word"
    if not text.strip():
        return {"correct": False, "found": None, "why": "no answer found"}
    if kind in ("number", "count"):
        val, why = parse_number(text)
        if val is None:
            return {"correct": False, "found": text, "why": f"{why} in {src}"}
        tol = 0 if kind == "count" else float(ans.get("tolerance", 0))
        ok = _close(val, float(ans["value"]), tol)
        return {"correct": ok, "found": val,
                "why": f"{'within' if ok else 'outside'} tolerance {tol} of {ans['value']} ({src})"}
    if kind == "label":
        ok, why = _judge_label(text, str(ans["value"]), ans.get("choices"))
        return {"correct": ok, "found": _clean(text), "why": f"{why} ({src})"}
    if kind == "yesno":
        words = set(re.findall(r"[a-z]+", text.lower()))
        has_yes, has_no = bool(words & {"yes", "true"}), bool(words & {"no", "false"})
        if has_yes and has_no and src == "answer line" and len(words) <= 3:
            return {"correct": False, "found": text, "why": "answer says both yes and no"}
        got = _yesno(text)
        if got is None:
            return {"correct": False, "found": text, "why": f"no yes/no in {src}"}
        ok = got == str(ans["value"]).lower()
        return {"correct": ok, "found": got, "why": f"{got} vs expected {ans['value']} ({src})"}
    if kind == "list":
        got = _split_list(text)
        exp = [_norm_label(str(v)) for v in ans["value"]]
        if ans.get("ordered"):
            ok = len(got) == len(exp) and all(_items_equal(a, b) for a, b in zip(got, exp))
        else:
            ok = len(got) == len(exp) and all(any(_items_equal(a, b) for a in got) for b in exp) \
                and all(any(_items_equal(a, b) for b in exp) for a in got)
        return {"correct": ok, "found": got,
                "why": f"{'matches' if ok else 'differs from'} {'ordered' if ans.get('ordered') else 'unordered'} list ({src})"}
    return {"correct": False, "found": text, "why": f"unknown answer kind {kind!r}"}


_PART = re.compile(r"@(\w+)\s*\[([^\[\]]*)\]")


def _score_closed(q: dict, reply: str) -> dict:
    parts = q["answer"]["parts"]
    found: dict[str, str] = {}
    for name, raw in _PART.findall(reply):
        found[name] = raw  # last occurrence wins
    bad = []
    for name, spec in parts.items():
        if name not in found:
            bad.append(f"@{name} missing")
            continue
        raw = found[name]
        if spec["kind"] == "text":
            if _norm_label(raw) != _norm_label(str(spec["value"])):
                bad.append(f"@{name}: {raw!r} is not {spec['value']!r}")
            continue
        val, why = parse_number(raw)
        if val is None:
            bad.append(f"@{name}: {why} in {raw!r}")
            continue
        if spec["kind"] == "int":
            if not (val == int(val) and int(val) == int(spec["value"])):
                bad.append(f"@{name}: {raw!r} is not {spec['value']}")
        else:
            tol = float(spec.get("tolerance", 0))
            if not _close(val, float(spec["value"]), tol):
                bad.append(f"@{name}: {val} not within {tol} of {spec['value']}")
    ok = not bad
    return {"correct": ok, "found": {k: found[k] for k in parts if k in found},
            "why": "all parts match" if ok else "; ".join(bad)}


def score(q: dict, reply_text: str) -> dict:
    """Judge one reply to one question."""
    reply_text = reply_text or ""
    if q["style"] == "closed":
        return _score_closed(q, reply_text)
    return _score_natural(q, reply_text)
