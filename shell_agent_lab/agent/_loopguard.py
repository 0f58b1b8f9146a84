"""What the loop refuses to take as an answer, and the notes that ask for a better one (pure).

* Three errors in a row from the same tool earn one corrective note (:class:`LoopDetector`).
* An empty reply, a reply that writes a tool result it never asked for (``<tool_response>`` with
  invented numbers, anywhere in the text), a reply that only promises a next step ("Let's try
  again.") and a reply that states numbers no tool result of the question contains are each
  sent back once with a note saying what to do instead.
"""
from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Iterable, Sequence

__all__ = ["missing_templates", "format_note", "named_tool_note", "correct_rounding", "written_query", "ANSWER_NOTE", "LoopDetector", "EMPTY_REPLY_NOTE", "FAKE_RESULT_NOTE", "PROMISE_NOTE", "REPEATED_CALL_NOTE", "imitates_tool_result",
           "strip_fake_result", "promises_next_step", "ungrounded_numbers", "grounding_note"]

EMPTY_REPLY_NOTE = ("Note: your previous reply was empty. Tell the user in one or two sentences what "
                    "the tool calls found.")
FAKE_RESULT_NOTE = ("Note: your previous reply made up a tool result instead of calling a tool. To get "
                    "data, call a tool such as query_sql; to act, call the tool the user asked for.")
PROMISE_NOTE = ("Note: your previous reply described a next step but did not take it. Do it now: call "
                "the tool with the corrected arguments. Do not answer until a tool result gives the numbers.")
ANSWER_NOTE = ("Note: the results above are all you need. Answer the question now from them, in the "
               "format the question asks for.")
REPEATED_CALL_NOTE = ("Not run again: this exact call was already made for this question and its result "
                      "is above. Answer the question from that result now.")
_FAKE_RESULT = re.compile(r"<\s*/?\s*tool_response\s*>", re.IGNORECASE)

# a reply that announces work instead of doing it: "Let's try again", "I will now run …"
_PROMISE = re.compile(
    r"\b(?:let\s+me|let['’]?s|let\s+us|i\s+will|i['’]ll|i\s+am\s+going\s+to|i['’]m\s+going\s+to|"
    r"we\s+(?:can|need\s+to|should|will|must)|i\s+(?:need|have)\s+to|next,?\s+(?:i|we)|now,?\s+(?:i|we)\s+(?:will|can))"
    r"\b[^.!?\n]{0,80}?\b(?:try|retry|run|re-?run|call|use|query|check|fix|correct|compute|calculate|"
    r"execute|adjust|modify|rewrite|cast|convert|quote|look|inspect|find|get|fetch)(?:s|es|ed|ing)?\b",
    re.IGNORECASE)
_SQL_IN_TEXT = re.compile(r"```\s*(?:sql|duckdb)\s*\n\s*(?:SELECT|WITH)\b", re.IGNORECASE)
_TRY_AGAIN = re.compile(r"\btry(?:ing)?\s+(?:it\s+|this\s+)?again\b|\bretry\b", re.IGNORECASE)


_FENCED_SQL = re.compile(r"```\s*(?:sql|duckdb)\s*\n(\s*(?:SELECT|WITH)\b.*?)```", re.IGNORECASE | re.S)


def written_query(text: str) -> str | None:
    """The query a reply wrote out instead of running it (a fenced SELECT and no closed-form
    answer), or None."""
    match = _FENCED_SQL.search(text)
    if not match or re.search(r"@\w+\[", text):
        return None
    return match.group(1).strip().rstrip(";").strip() or None


def imitates_tool_result(text: str) -> bool:
    """A reply holding a ``<tool_response>`` block: a small model writing the result of a call it
    never made (invented numbers), instead of making the call. Anywhere in the reply: an apology
    followed by a made-up result is as invented as one that opens with it."""
    return bool(_FAKE_RESULT.search(text))


def strip_fake_result(text: str) -> str:
    """``text`` up to the first ``<tool_response>`` tag (what the model wrote before inventing)."""
    match = _FAKE_RESULT.search(text)
    return text[:match.start()].rstrip() if match else text


def promises_next_step(text: str) -> bool:
    """The reply's last sentences announce an action ("Let's try again with …"), or it writes out
    a query instead of running it, and holds no closed-form answer. Only the end of the reply
    counts for the words: an answer that mentions what it did earlier, or closes with an
    offer, still answers."""
    tail = text.strip()[-300:]
    if not tail:
        return False
    if re.search(r"@\w+\[", tail):          # a closed-form answer is an answer
        return False
    if _SQL_IN_TEXT.search(text):            # the query written out instead of run
        return True
    if tail.rstrip().endswith("?"):         # a question to the user is a reply
        return False
    last = re.split(r"(?<=[.!:])\s+|\n+", tail)
    last_sentences = " ".join(s for s in last[-2:] if s.strip())
    return bool(_PROMISE.search(last_sentences) or _TRY_AGAIN.search(last_sentences))


# -- grounding: every number stated must come from a tool result or the question ---------------

_NUMBER = re.compile(r"(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\b|\b\d{1,2}:\d{2}(?::\d{2})?\b")
_LIST_MARK = re.compile(r"(?m)^\s*\d+[.)]\s")


def _numbers(text: str) -> list[tuple[float, int, str]]:
    """(value, decimals written, text) of each number in ``text`` (dates and times left out)."""
    text = _DATE.sub(" ", text)
    out = []
    for match in _NUMBER.finditer(text):
        raw = match.group(0).replace("−", "-")
        plain = raw.replace(",", "")
        try:
            value = float(plain)
        except ValueError:
            continue
        if not math.isfinite(value):
            continue
        mantissa = plain.split("e")[0].split("E")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        out.append((value, decimals, raw))
    return out


def _close(stated: float, decimals: int, source: float) -> bool:
    if stated == source:
        return True
    # the stated number is the source rounded (or truncated) to the decimals written
    step = 10.0 ** -decimals
    if abs(source - stated) <= step * 0.5000001 + 1e-12 * max(1.0, abs(source)):
        return True
    if abs(source - stated) < step and abs(source) >= abs(stated) and (source >= 0) == (stated >= 0):
        return True         # truncated
    # a few significant digits of a long number ("about 1.2 million" is left to the words)
    return source != 0 and abs(stated - source) / abs(source) < 5e-4 and decimals >= 2


def ungrounded_numbers(answer: str, sources: Iterable[str], *, ignore_below: float = 10) -> list[str]:
    """Numbers in ``answer`` that appear in none of ``sources`` (the question, the tool calls'
    arguments and results), allowing for rounding, truncation and percent ↔ fraction. Small
    whole numbers (counts like "top 3", list marks) and dates are not checked."""
    pool: list[float] = []
    for source in sources:
        pool.extend(value for value, _, _ in _numbers(source or ""))
    candidates = [value * 100 for value in pool] + [value / 100 for value in pool]
    out: list[str] = []
    for value, decimals, raw in _numbers(_LIST_MARK.sub(" ", answer)):
        if decimals == 0 and abs(value) <= ignore_below:
            continue
        if any(_close(value, decimals, s) for s in pool) or any(_close(value, decimals, s) for s in candidates):
            continue
        if raw not in out:
            out.append(raw)
    return out


def correct_rounding(answer: str, sources: Iterable[str]) -> str:
    """``answer`` with each number that a tool result holds more precisely, but that was
    rounded or truncated wrongly on the way (187.30 for 187.294888), rounded right at the
    precision written. A number near no result, or near two different ones, is left alone."""
    pool: list[float] = []
    for source in sources:
        pool.extend(value for value, decimals, _ in _numbers(source or "") if decimals > 0 or abs(value) > 10)
    if not pool:
        return answer

    def fix(match: re.Match[str]) -> str:
        raw = match.group(0)
        plain = raw.replace(",", "").replace("−", "-")
        if "e" in plain.lower() or "." not in plain:
            return raw
        decimals = len(plain.split(".")[1])
        value = float(plain)
        step = 10.0 ** -decimals
        near = {s for s in pool if abs(s - value) <= step * 1.0000001 and s != value}
        if not near or any(abs(s - value) < 1e-12 for s in pool):
            return raw
        rounded = {round(s, decimals) for s in near}
        if len(rounded) != 1:
            return raw
        right = rounded.pop()
        if abs(right - value) < step / 10:
            return raw
        text = f"{right:,.{decimals}f}" if "," in raw else f"{right:.{decimals}f}"
        return text.replace("-", "−") if "−" in raw else text
    # dates and times are left as they are
    spans = [m.span() for m in _DATE.finditer(answer)]
    out, last = [], 0
    for match in _NUMBER.finditer(answer):
        if any(s <= match.start() < e for s, e in spans):
            continue
        out.append(answer[last:match.start()])
        out.append(fix(match))
        last = match.end()
    out.append(answer[last:])
    return "".join(out)


def missing_templates(names: Sequence[str], answer: str) -> list[str]:
    """The ``@name[…]`` parts asked (``names``, from the answer spec) that the answer does not fill."""
    given = set(re.findall(r"@(\w+)\[(?!value\])[^\]\n]+\]", answer))
    return [name for name in names if name not in given]


def format_note(names: list[str]) -> str:
    shown = ", ".join(f"@{n}[…]" for n in names)
    return (f"Note: the question asks for the answer as {shown}. Answer again from the tool results, "
            "ending with that format, each value in its brackets.")


def named_tool_note(names: list[str]) -> str:
    shown = ", ".join(names)
    return (f"Note: the user asked for {shown}, and it has not been called for this question. Call it "
            "now with what the tool results found.")


def grounding_note(numbers: list[str]) -> str:
    shown = ", ".join(numbers[:5])
    return (f"Note: your answer states numbers that no tool result of this question contains ({shown}). "
            "Do not answer from memory or from earlier answers: call a tool now to compute them "
            "from the data, then answer from its result.")


class LoopDetector:
    """Keeps the last three (tool, status) outcomes of one user turn."""

    def __init__(self, window: int = 3) -> None:
        self._window = window
        self._trace: deque[tuple[str, str]] = deque(maxlen=window)

    def record(self, tool: str, status: str) -> str | None:
        """Add one outcome; returns the note to send once when the tool keeps failing."""
        self._trace.append((tool, status))
        if len(self._trace) < self._window:
            return None
        names = {name for name, _ in self._trace}
        if len(names) == 1 and all(s == "error" for _, s in self._trace):
            self._trace.clear()   # one-shot per stretch of failures
            return (f"Note: `{tool}` has returned an error {self._window} times in a row. Do not retry it "
                    "with small variations. Take a clearly different approach: inspect the inputs or the "
                    "data first, try another tool, or ask the user for clarification.")
        return None
