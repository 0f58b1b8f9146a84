"""Numbers in an answer's prose written as a person would: ``32,050.23``, not
``32050.23183153285``.

:func:`humane_numbers` rewrites a decimal with a long tail (five or more digits after the point,
the mark of a value copied from a float) at a sensible precision: two decimals, with thousands
separators, for values of at least 1; three significant digits below 1. When the question
states a precision ("to 4 decimal places", "to the nearest integer", "3 significant figures")
long tails are rounded to that instead, and numbers already written at or under it are left as
they are. Never touched: fenced and inline code (SQL, Python), ``@name[value]`` answer slots,
dates and times, scientific notation, and numbers with a short tail.
"""
from __future__ import annotations

import math
import re

__all__ = ["humane_numbers", "asked_precision"]

_LONG_TAIL = 5
_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(\d{1,2}|" + "|".join(_WORDS) + r")"
_DECIMALS = re.compile(_COUNT + r"[\s-]*(?:decimal[\s-]*(?:places?|points?|digits?)|decimals|dp\b|d\.p\.)", re.I)
_SIGNIFICANT = re.compile(_COUNT + r"[\s-]*(?:significant[\s-]*(?:figures?|digits?)|sig\.?\s*figs?|s\.f\.)", re.I)
_INTEGER = re.compile(r"\b(?:nearest|to an?|as an?|whole)\s+(?:integer|whole number|unit)\b|\bno decimals\b", re.I)

# what is never rewritten: fenced code, inline code, answer slots (``@name[…]`` and the final
# ``Answer:`` line, which the composer wrote at the precision asked), dates and times
_PROTECTED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`|@\w+\[[^\]\n]*\]|^\s*Answer\s*:[^\n]*$"
                        r"|\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\b"
                        r"|\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b", re.S | re.M | re.I)
_NUMBER = re.compile(r"(?<![\w.,])([-−]?)((?:\d{1,3}(?:,\d{3})+|\d+)\.(\d+))(?![\w]|[.,]\d)")


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _WORDS[word.lower()]


def asked_precision(question: str) -> tuple[str, int] | None:
    """("decimals", n) or ("significant", n) when ``question`` states a precision, else None."""
    question = _PROTECTED.sub(" ", question or "")
    decimals = [_count(m.group(1)) for m in _DECIMALS.finditer(question)]
    if decimals:            # several parts at different precisions: none is written shorter than asked
        return "decimals", max(decimals)
    if m := _SIGNIFICANT.search(question):
        return "significant", max(1, _count(m.group(1)))
    if _INTEGER.search(question):
        return "decimals", 0
    return None


def _significant(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def _rewrite(sign: str, body: str, tail: str, precision: tuple[str, int] | None) -> str | None:
    value = float(body.replace(",", ""))
    if precision is None:
        if len(tail) < _LONG_TAIL:
            return None
        text = f"{value:,.2f}" if value >= 1 else _significant(value, 3)
    else:
        kind, n = precision
        if kind == "decimals":
            if len(tail) <= n:
                return None
            text = f"{value:,.{n}f}" if "," in body else f"{value:.{n}f}"
        else:
            if len(tail) < _LONG_TAIL:
                return None
            text = _significant(value, n)
    return sign + text


def humane_numbers(answer: str, question: str = "", *, decimals: int | None = None) -> str:
    """``answer`` with long-tailed decimals in its prose written at a sensible precision, or at
    the one the question asks (``decimals``, when given, is the asked number of decimals)."""
    if not answer or "." not in answer:
        return answer
    precision = ("decimals", decimals) if decimals is not None else asked_precision(question)

    def fix(match: re.Match[str]) -> str:
        new = _rewrite(match.group(1), match.group(2), match.group(3), precision)
        return match.group(0) if new is None else new

    out, last = [], 0
    for protected in _PROTECTED.finditer(answer):
        out.append(_NUMBER.sub(fix, answer[last:protected.start()]))
        out.append(protected.group(0))
        last = protected.end()
    out.append(_NUMBER.sub(fix, answer[last:]))
    return "".join(out)
