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

from .precision import Precision, read_precision

__all__ = ["humane_numbers", "asked_precision"]

_LONG_TAIL = 5

# what is never rewritten: fenced code, inline code, answer slots (``@name[…]`` and the final
# ``Answer:`` line, which the composer wrote at the precision asked), dates and times
_PROTECTED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`|@\w+\[[^\]\n]*\]|^\s*Answer\s*:[^\n]*$"
                        r"|\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\b"
                        r"|\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b", re.S | re.M | re.I)
_NUMBER = re.compile(r"(?<![\w.,])([-−]?)((?:\d{1,3}(?:,\d{3})+|\d+)\.(\d+))(?![\w]|[.,]\d)")


def asked_precision(question: str) -> tuple[str, int] | None:
    """("decimals", n) or ("significant", n) when ``question`` states a precision, else None
    (read by :func:`.precision.read_precision`, the one reader of precision)."""
    found = read_precision(_PROTECTED.sub(" ", question or ""))
    return None if found is None else (found.kind, found.digits)


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


def humane_numbers(answer: str, question: str = "", *, decimals: int | None = None,
                   precision: Precision | None = None) -> str:
    """``answer`` with long-tailed decimals in its prose written at a sensible precision, or at
    the one asked: ``precision`` (the answer spec's), ``decimals``, or what ``question`` states."""
    if not answer or "." not in answer:
        return answer
    asked: tuple[str, int] | None
    if precision is not None:
        asked = (precision.kind, precision.digits)
    elif decimals is not None:
        asked = ("decimals", decimals)
    else:
        asked = asked_precision(question)

    def fix(match: re.Match[str]) -> str:
        new = _rewrite(match.group(1), match.group(2), match.group(3), asked)
        return match.group(0) if new is None else new

    out, last = [], 0
    for protected in _PROTECTED.finditer(answer):
        out.append(_NUMBER.sub(fix, answer[last:protected.start()]))
        out.append(protected.group(0))
        last = protected.end()
    out.append(_NUMBER.sub(fix, answer[last:]))
    return "".join(out)
