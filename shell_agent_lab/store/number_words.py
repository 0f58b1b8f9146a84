"""Numbers written as words, read as digits (pure): "twelve percent" → "12%", "twenty-first" →
"21st", "doubled" → "2x", "3.5 million" → "3500000", "a dozen" → "12".

The similarity rules (:mod:`.similarity`) compare facts on their numbers, so "twelve" and "12"
must be one token. Words come from :mod:`._lexicon` (units, tens, scales, ordinals, multipliers).
"""
from __future__ import annotations

import re
from decimal import Decimal

from . import _lexicon

__all__ = ["spell_numbers", "number_run"]

_A_SCALE = re.compile(r"\ban?\s+(hundred|thousand|million|billion|trillion|dozen)\b", re.IGNORECASE)
_DIGITS_SCALE = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)[\s-]*(hundred|thousand|million|billion|trillion|dozen)\b",
    re.IGNORECASE,
)
_PERCENT_WORD = re.compile(r"(\d)\s*(?:percent|per\s+cent|pct)\b", re.IGNORECASE)
_ALPHA_WORD = re.compile(r"[A-Za-z]+")
_RUN_GAP = re.compile(r"[ \t]*-[ \t]*|[ \t]+")
# "one" after these is a pronoun ("the one", "no one"); "second" after these is a unit of time
_NOT_NUMBER_ONE = frozenset("no any every some each the this that which another".split())
_NOT_ORDINAL_SECOND = frozenset("per a an each every one split half nano milli micro".split())
_NUMBER_VOCAB = frozenset(
    set(_lexicon.UNITS) | set(_lexicon.TENS) | set(_lexicon.SCALES) | set(_lexicon.ORDINALS)
    | set(_lexicon.MULTIPLIERS)
)


def _decimal_text(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _ordinal_text(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def number_run(words: list[str]) -> tuple[int, int | None, bool]:
    """Read the longest well-formed number phrase at the start of ``words`` (lower case).

    Returns ``(words used, value, ordinal)``; ``(0, None, False)`` when there is none.
    """
    total = current = 0
    used = 0
    prev = "start"  # start | unit | tens | scale | and
    last_scale = 10**15
    for i, word in enumerate(words):
        if word == "and":
            if prev != "scale" or i + 1 >= len(words):
                break
            nxt = words[i + 1]
            if nxt not in _lexicon.UNITS and nxt not in _lexicon.TENS and nxt not in _lexicon.ORDINALS:
                break
            prev = "and"
            continue
        if word in _lexicon.UNITS:
            if prev == "unit" or (prev == "tens" and not 1 <= _lexicon.UNITS[word] <= 9):
                break
            if word == "zero" and prev != "start":
                break
            current += _lexicon.UNITS[word]
            prev, used = "unit", i + 1
        elif word in _lexicon.TENS:
            if prev in ("unit", "tens"):
                break
            current += _lexicon.TENS[word]
            prev, used = "tens", i + 1
        elif word in _lexicon.SCALES:
            scale = _lexicon.SCALES[word]
            if prev == "and" or (prev == "scale" and scale <= last_scale and word != "hundred"):
                break
            if scale in (100, 12):
                current = (current or 1) * scale
            else:
                total += (current or 1) * scale
                current = 0
            last_scale = scale
            prev, used = "scale", i + 1
        elif word in _lexicon.ORDINALS:
            value = _lexicon.ORDINALS[word]
            if (prev == "unit" and value < 100) or (prev == "tens" and 9 < value < 100):
                break
            if value >= 1000:
                total += (current or 1) * value
                current = 0
            elif value == 100:
                current = (current or 1) * value
            else:
                current += value
            return i + 1, total + current, True
        else:
            break
    if not used:
        return 0, None, False
    return used, total + current, False


def spell_numbers(text: str) -> str:
    """Spelled-out numbers, ordinals and multipliers as digits: "twelve percent" → "12%",
    "twenty-first" → "21st", "doubled" → "2x", "3.5 million" → "3500000"."""
    lowered = text.lower()
    if not any(w in _NUMBER_VOCAB for w in _ALPHA_WORD.findall(lowered)):
        return _PERCENT_WORD.sub(r"\1%", text) if "p" in lowered else text
    text = _A_SCALE.sub(r"one \1", text)
    text = _DIGITS_SCALE.sub(
        lambda m: _decimal_text(Decimal(m.group(1)) * _lexicon.SCALES[m.group(2).lower()]), text
    )
    matches = list(_ALPHA_WORD.finditer(text))
    out: list[str] = []
    pos = i = 0
    while i < len(matches):
        m = matches[i]
        word = m.group(0).lower()
        if word in _lexicon.MULTIPLIERS:
            out.append(text[pos : m.start()] + _lexicon.MULTIPLIERS[word] + "x")
            pos, i = m.end(), i + 1
            continue
        if word not in _NUMBER_VOCAB:
            i += 1
            continue
        # the words joined to this one by blanks or a hyphen only
        run = [word]
        j = i + 1
        while j < len(matches) and _RUN_GAP.fullmatch(text[matches[j - 1].end() : matches[j].start()]):
            nxt = matches[j].group(0).lower()
            if nxt not in _NUMBER_VOCAB and nxt != "and":
                break
            run.append(nxt)
            j += 1
        used, value, ordinal = number_run(run)
        before = matches[i - 1].group(0).lower() if i else ""
        digit_before = bool(re.search(r"\d\s*$", text[pos : m.start()]))
        if used == 1 and word == "one" and before in _NOT_NUMBER_ONE:
            used = 0
        if used == 1 and word == "second" and (before in _NOT_ORDINAL_SECOND or digit_before):
            used = 0
        if not used or value is None:
            i += 1
            continue
        end = matches[i + used - 1].end()
        out.append(text[pos : m.start()] + (_ordinal_text(value) if ordinal else str(value)))
        pos, i = end, i + used
    out.append(text[pos:])
    return _PERCENT_WORD.sub(r"\1%", "".join(out))
