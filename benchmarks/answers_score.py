"""Scoring of the answer benchmark (pure: text and facts in, verdicts out).

An answer states each part in the closed form ``@name[value]``. :func:`parse_parts` finds every
such part in a reply, tolerating what models and Markdown put around it: bold or backticks
around the whole (``**@total[12]**``), around the value (``@total[`12`]``), quotes, escaped
brackets (``@total\\[12\\]``); the last mention of a name wins. :func:`parse_number` reads a
value with thousands separators, a currency sign, a trailing ``%`` or a Unicode minus.

A question is right when every part is present and right (strict):

* a number is right when it lies within half a unit of the last stated decimal place of the
  reference rounded to that place (``@p[0.0463]`` for 0.046267 at 4 places; 0.0462 is wrong);
  a whole-number part must be that whole number;
* a text is right when it equals the reference ignoring case and surrounding space.

A wrong answer gets one failure kind, the first that applies: ``timeout`` (the cell ran out of
time), ``error`` (the turn ended with an error), ``no_tool_call`` (the turn called no tool),
``tool_error`` (its last tool result was an error), ``format`` (some part has no parsable
``@name[…]``), ``wrong_number`` (every part parsed, some value is wrong).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence

__all__ = ["Expected", "TurnFacts", "Verdict", "FAILURE_KINDS", "parse_parts", "parse_number", "part_is_right",
           "score_answer", "failure_kind", "expected_parts"]

FailureKind = Literal["timeout", "error", "no_tool_call", "tool_error", "format", "wrong_number"]
FAILURE_KINDS: tuple[str, ...] = ("no_tool_call", "tool_error", "wrong_number", "format", "timeout", "error")

_PART = re.compile(r"@\s*([A-Za-z_][A-Za-z0-9_]*)\s*\\?\[([^\]\n]*?)\\?\]")
_WRAPPERS = "`*_\"'“”‘’ \t"
_GROUPED = re.compile(r"^[+-]?\d{1,3}(?:[,\u202f\u00a0 ]\d{3})+(?:\.\d+)?$")
_PLAIN = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")


@dataclass(frozen=True)
class Expected:
    """One part of a question's reference answer."""

    name: str
    kind: Literal["int", "float", "text"]
    value: Any
    decimals: int = 0


@dataclass(frozen=True)
class TurnFacts:
    """What happened in the turn besides its text."""

    tool_calls: int = 0
    last_tool_status: str | None = None     # "error" when the last tool result was an error
    error: str | None = None                # the turn (or its cell) ended with this error
    timed_out: bool = False


@dataclass(frozen=True)
class Verdict:
    correct: bool
    kind: str | None                         # a FAILURE_KINDS entry when wrong
    answer: dict[str, str] = field(default_factory=dict)    # the parts as written
    right: dict[str, bool] = field(default_factory=dict)
    missing: tuple[str, ...] = ()            # expected parts with no parsable value
    why: str = ""                            # the scorer's reason, when it gives one


def parse_parts(text: str) -> dict[str, str]:
    """Every ``@name[value]`` in ``text`` (names lower-cased, values trimmed; the last one wins)."""
    found: dict[str, str] = {}
    for match in _PART.finditer(text or ""):
        found[match.group(1).lower()] = _unwrap(match.group(2))
    return found


def _unwrap(value: str) -> str:
    value = value.strip(_WRAPPERS)
    if value.endswith("\\"):
        value = value[:-1].strip(_WRAPPERS)
    return value


def parse_number(value: str) -> float | None:
    """``1,234.50`` / ``$1,234.50`` / ``12.5%`` / ``−3`` / ``1e-05`` → a float; anything else → None."""
    text = _unwrap(value).replace("\u2212", "-").replace("\u2013", "-")
    sign = ""
    if text and text[0] in "+-":
        sign, text = text[0], text[1:].lstrip()
    text = text.lstrip("$€£").strip()
    if text.endswith("%"):
        text = text[:-1].rstrip()
    text = sign + text
    if _GROUPED.match(text):
        text = re.sub(r"[,\u202f\u00a0 ]", "", text)
    if not _PLAIN.match(text):
        return None
    number = float(text)
    return number if math.isfinite(number) else None


def _normal_text(value: str) -> str:
    return " ".join(_unwrap(_unwrap(value).rstrip(".")).split()).casefold()


def part_is_right(expected: Expected, written: str | None) -> bool | None:
    """True or False; None when ``written`` is absent or cannot be read as the part's kind."""
    if written is None:
        return None
    if expected.kind == "text":
        return _normal_text(written) == _normal_text(str(expected.value)) if _unwrap(written) else None
    number = parse_number(written)
    if number is None:
        return None
    if expected.kind == "int":
        return number == int(expected.value)
    reference = round(float(expected.value), expected.decimals)
    half_unit = 0.5 * 10.0 ** -expected.decimals
    return abs(number - reference) <= half_unit * (1 + 1e-9) + 1e-12 * abs(reference)


def score_answer(expected: Sequence[Expected], text: str, facts: TurnFacts = TurnFacts()) -> Verdict:
    """Judge one reply against the question's expected parts."""
    written = parse_parts(text)
    answer: dict[str, str] = {}
    right: dict[str, bool] = {}
    missing: list[str] = []
    for part in expected:
        value = written.get(part.name.lower())
        if value is not None:
            answer[part.name] = value
        ok = part_is_right(part, value)
        if ok is None:
            missing.append(part.name)
        right[part.name] = bool(ok)
    correct = bool(expected) and all(right.values())
    kind = None if correct else failure_kind(facts, bool(missing))
    return Verdict(correct, kind, answer, right, tuple(missing))


def failure_kind(facts: TurnFacts, unparsable: bool) -> str:
    """Why a wrong answer is wrong (see the module docstring for the order)."""
    if facts.timed_out:
        return "timeout"
    if facts.error:
        return "error"
    if facts.tool_calls == 0:
        return "no_tool_call"
    if facts.last_tool_status == "error":
        return "tool_error"
    if unparsable:
        return "format"
    return "wrong_number"


def expected_parts(parts: Sequence[Any], values: Mapping[str, Any]) -> list[Expected]:
    """:class:`Expected` for each of a question's parts (``Part`` objects) with its reference value."""
    return [Expected(p.name, p.kind, values[p.name], p.decimals) for p in parts]

