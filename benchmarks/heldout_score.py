"""Scoring of the held-out set's natural questions, and one scorer for every question (pure).

A natural question asks for a final line ``Answer: <value>``. :func:`answer_line` takes the
last such line of a reply (Markdown around it tolerated: ``**Answer:** 12``, ``> Answer: `yes```).
The value is judged by the kind the question asks for:

* yes/no — the first word, ``yes``/``true``/``y`` or ``no``/``false``/``n``, any case;
* category — equal to the reference ignoring case, surrounding quotes and a final period;
* number — read like an ``@name[value]`` value (separators, currency, ``%``); when the line
  holds more than that, its only number; right within half a unit of the asked precision of
  the reference rounded to it (a whole number must be that number), or within the question's
  stated tolerance;
* list — split at commas or semicolons (a leading "and" dropped); compared as a set, or in
  order when the question says the order matters.

A wrong answer gets the same failure kinds as a closed-form one (``answers_score.failure_kind``);
no ``Answer:`` line, or one that cannot be read as the asked kind, is ``format``.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from benchmarks.answers_score import TurnFacts, Verdict, expected_parts, failure_kind, parse_number, score_answer

__all__ = ["answer_line", "read_value", "value_is_right", "score_natural", "score_question"]

_LINE = re.compile(r"^[\s>#*_`-]*answer[\s*_`]*:[\s*_`]*(.*)$", re.IGNORECASE | re.MULTILINE)
_WRAP = "`*_\"'“”‘’ \t"
_NUMBER = re.compile(r"[-+−]?[$€£]?\d[\d,]*(?:\.\d+)?%?")
_YES = {"yes", "true", "y"}
_NO = {"no", "false", "n"}


def answer_line(text: str) -> str | None:
    """The value of the last ``Answer:`` line in ``text`` (trimmed), or None."""
    found = _LINE.findall(text or "")
    if not found:
        return None
    return _clean(found[-1])


def _clean(value: str) -> str:
    value = value.strip().strip(_WRAP)
    while value.endswith("."):
        value = value[:-1].rstrip().strip(_WRAP)
    return value


def _norm(value: str) -> str:
    return " ".join(_clean(value).split()).casefold()


def read_value(reply: Any, written: str) -> Any:
    """``written`` read as ``reply.kind`` asks; None when it cannot be."""
    if reply.kind == "yesno":
        words = re.findall(r"[A-Za-z]+", written)
        if not words:
            return None
        first = words[0].casefold()
        return True if first in _YES else False if first in _NO else None
    if reply.kind == "number":
        number = parse_number(written)
        if number is None:
            found = _NUMBER.findall(written)
            number = parse_number(found[0]) if len(found) == 1 else None
        return number
    if reply.kind == "list":
        items = [re.sub(r"^and\s+", "", _norm(p)) for p in re.split(r"[,;]", written)]
        items = [i for i in items if i]
        return items or None
    return _norm(written) or None


def value_is_right(reply: Any, expected: Any, value: Any) -> bool:
    """Whether a value :func:`read_value` gave matches the reference."""
    if reply.kind == "yesno":
        return value is bool(expected)
    if reply.kind == "category":
        return value == _norm(str(expected))
    if reply.kind == "list":
        wanted = [_norm(str(v)) for v in expected]
        if reply.ordered:
            return list(value) == wanted
        return len(value) == len(set(value)) and set(value) == set(wanted)
    if reply.tolerance is not None:
        return abs(float(value) - float(expected)) <= reply.tolerance
    decimals = reply.decimals or 0
    if decimals == 0 and float(expected) == int(expected):
        return float(value) == int(expected)
    reference = round(float(expected), decimals)
    return abs(float(value) - reference) <= 0.5 * 10.0 ** -decimals * (1 + 1e-9) + 1e-12 * abs(reference)


def score_natural(reply: Any, expected: Any, text: str, facts: TurnFacts = TurnFacts()) -> Verdict:
    """Judge a reply to a natural question against its reference value."""
    written = answer_line(text)
    value = read_value(reply, written) if written else None
    correct = value is not None and value_is_right(reply, expected, value)
    kind = None if correct else failure_kind(facts, value is None)
    return Verdict(correct, kind, {"answer": written} if written is not None else {}, {"answer": correct},
                   () if value is not None else ("answer",))


def score_question(question: Any, expected: Mapping[str, Any], text: str, facts: TurnFacts = TurnFacts()) -> Verdict:
    """Score a reply to any question of either set: closed-form ones by their ``@name[value]``
    parts, natural ones by their ``Answer:`` line."""
    if getattr(question, "style", "closed") == "natural":
        return score_natural(question.reply, expected["answer"], text, facts)
    return score_answer(expected_parts(question.parts, expected), text, facts)
