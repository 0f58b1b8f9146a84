"""The precision a piece of text asks numbers in (pure): the one reader of "to 2 decimal places",
"4 dp", "to the nearest hundredth", "3 significant figures", "as a whole number".

The answer spec reads each part's precision with it, and the prose tidier
(:mod:`.numbers`) takes the spec's precision instead of reading the question again.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Precision", "read_precision", "read_precisions"]

_WORDS = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(\d{1,2}|" + "|".join(_WORDS) + r")"
_NEAREST = {"tenth": 1, "hundredth": 2, "thousandth": 3}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}

#: (kind, pattern): the number of digits is group 1
_READERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("decimals", re.compile(_COUNT + r"[\s-]*(?:decimal|dp\b|d\.p\.|digits?\s+after)", re.I)),
    ("decimals", re.compile(r"\bround(?:ed|ing)?\b[^.;\n]{0,40}?\bto\s+" + _COUNT + r"\s+(?:places|digits)", re.I)),
    ("decimals", re.compile(r"\bto\s+" + _COUNT + r"\s+places\b", re.I)),     # "fractions to 3 places"
    # "three places after the point", "2 digits past the decimal comma"
    ("decimals", re.compile(_COUNT + r"[\s-]*(?:places?|digits?|figures?)\s+(?:after|past|behind|beyond|to\s+the\s+right\s+of)"
                            r"\s+the\s+(?:decimal\s+)?(?:point|comma|separator|mark)\b", re.I)),
    # "to the second decimal place", "to the third decimal"
    ("ordinal", re.compile(r"\b(first|second|third|fourth|fifth|sixth)\s+(?:decimal|place\s+after)", re.I)),
    ("nearest", re.compile(r"\bnearest\s+(tenth|hundredth|thousandth)", re.I)),
    ("significant", re.compile(_COUNT + r"[\s-]*(?:significant[\s-]*(?:figures?|digits?)|sig\.?\s*figs?|s\.f\.)",
                               re.I)),
    ("whole", re.compile(r"\b(?:whole\s+number|integer|nearest\s+(?:whole|unit)|no\s+decimals?)\b", re.I)),
)


@dataclass(frozen=True)
class Precision:
    """Digits after the point (``kind="decimals"``) or significant digits; ``whole`` when the
    text asks for a whole number in words ("a whole number", "as an integer")."""

    kind: str                # "decimals" | "significant"
    digits: int
    whole: bool = False
    start: int = 0           # where in the text it was said


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _WORDS[word.lower()]


def read_precisions(text: str) -> list[Precision]:
    """Every precision ``text`` states, in the order it states them."""
    found: list[Precision] = []
    taken: list[tuple[int, int]] = []
    for kind, rx in _READERS:
        for m in rx.finditer(text or ""):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            if kind == "whole":
                found.append(Precision("decimals", 0, True, m.start()))
            elif kind == "ordinal":
                found.append(Precision("decimals", _ORDINALS[m.group(1).lower()], False, m.start()))
            elif kind == "nearest":
                found.append(Precision("decimals", _NEAREST[m.group(1).lower()], False, m.start()))
            elif kind == "significant":
                found.append(Precision("significant", max(1, _count(m.group(1))), False, m.start()))
            else:
                found.append(Precision("decimals", _count(m.group(1)), False, m.start()))
    return sorted(found, key=lambda p: p.start)


def read_precision(text: str) -> Precision | None:
    """The precision ``text`` asks, or None. Digits stated in numbers win over a whole number
    said in words; of several stated digits the largest wins (no value is written shorter than
    any part asks)."""
    found = read_precisions(text)
    digits = [p for p in found if not p.whole]
    if digits:
        decimals = [p for p in digits if p.kind == "decimals"]
        pool = decimals or digits
        return max(pool, key=lambda p: p.digits)
    return found[0] if found else None
