"""Numbers written as words, read as digits: one row per rule of ``store/number_words.py``."""
from __future__ import annotations

import pytest

from shell_agent_lab.store.number_words import number_run, spell_numbers

SPELLED = [
    # (text, as the similarity rules read it)
    ("twelve percent", "12%"),                                   # a unit, then "percent" as %
    ("twelve pct", "12%"),
    ("12 percent", "12%"),                                       # digits keep their percent word
    ("forty-two", "42"),                                         # tens and unit joined by a hyphen
    ("twenty one", "21"),                                        # … or by a blank
    ("one hundred and five", "105"),                             # "and" after a scale continues it
    ("two thousand and twenty-four", "2024"),
    ("one million two hundred thousand", "1200000"),             # falling scales add up
    ("a hundred", "100"),                                        # "a"/"an" before a scale is one
    ("a dozen eggs", "12 eggs"),
    ("3.5 million rows", "3500000 rows"),                        # digits times a scale word
    ("0.25 million", "250000"),
    ("Revenue grew twenty-first", "Revenue grew 21st"),          # ordinals keep their suffix
    ("thirty-first of March", "31st of March"),
    ("hundredth", "100th"),
    ("three thousandth", "3000th"),
    ("the second quarter", "the 2nd quarter"),
    ("sales doubled", "sales 2x"),                               # multipliers
    ("triple", "3x"),
    ("half", "0.5x"),
    ("zero", "0"),
    ("one zero", "1 0"),                                         # zero never continues a number
    ("nineteen ninety", "19 90"),                                # a unit then tens: two numbers
    ("two and three", "2 and 3"),                                # "and" only continues after a scale
    ("ninety nine and", "99 and"),
    ("the one we used", "the one we used"),                      # "one" as a pronoun
    ("no one else", "no one else"),
    ("per second", "per second"),                                # "second" as a unit of time
    ("5 second delay", "5 second delay"),
    ("nothing to see", "nothing to see"),                        # no number word: unchanged
]


@pytest.mark.parametrize(("text", "expected"), SPELLED, ids=[t for t, _ in SPELLED])
def test_spelled_numbers_read_as_digits(text, expected):
    assert spell_numbers(text) == expected


RUNS = [
    # (words, (words used, value, ordinal))
    (["one", "hundred", "and", "five"], (4, 105, False)),
    (["twenty", "one"], (2, 21, False)),
    (["twenty", "first"], (2, 21, True)),
    (["hundred", "thousand"], (2, 100000, False)),
    (["one", "one"], (1, 1, False)),                             # two units are two numbers
    (["thousand", "thousand"], (1, 1000, False)),                # a scale does not repeat
    (["one", "first"], (1, 1, False)),
    (["and"], (0, None, False)),                                 # nothing to read
]


@pytest.mark.parametrize(("words", "expected"), RUNS, ids=[" ".join(w) for w, _ in RUNS])
def test_the_longest_number_phrase_at_the_start(words, expected):
    assert number_run(words) == expected
