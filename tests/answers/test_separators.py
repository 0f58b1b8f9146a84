"""A list's separator and a precision said in words: read once into the spec, applied by the writer."""
from __future__ import annotations

import pytest

from shell_agent_lab.answers.precision import read_precision
from shell_agent_lab.answers.separators import read_separator
from shell_agent_lab.answers.spec import read_spec
from shell_agent_lab.answers.values import take_values
from shell_agent_lab.answers.write import write_answer


@pytest.mark.parametrize("text, separator", [
    ("the names separated by semicolons, largest first", "; "),
    ("the codes, separated by a colon and a space", ": "),
    ("three towns joined with a slash", "/"),
    ("two ids joined by an underscore, smaller first", "_"),
    ("the tags, pipe-delimited", "|"),
    ("the months, tab separated", "\t"),
    ("the weekdays split by ` | `", " | "),
    ("the regions divided by '; '", "; "),
    ("both species separated by “ + ”", " + "),
    ("list them separated by commas with no spaces", ","),
    ("the colours separated by semicolons without a space", ";"),
    ("years separated by a space", " "),
    ("the winners, one after another separated by an ampersand", "&"),
    ("comma-separated", ", "),
    # no separator said
    ("the names, most frequent first", ""),
    ("spelled exactly as in the column, with spaces", ""),
    ("a number with a comma for thousands", ""),
    ("", ""),
])
def test_the_separator_is_read_from_the_words(text, separator):
    assert read_separator(text) == separator


@pytest.mark.parametrize("text, digits", [
    ("give it with three places after the point", 3),
    ("two digits past the decimal comma", 2),
    ("rounded to the second decimal place", 2),
    ("to the fourth decimal", 4),
    ("4 figures to the right of the decimal point", 4),
])
def test_a_precision_said_in_words_is_read(text, digits):
    p = read_precision(text)
    assert p is not None and (p.kind, p.digits) == ("decimals", digits)


@pytest.mark.parametrize("text", ["the first value", "the second row of the table", "the third place winner"])
def test_an_ordinal_that_is_no_precision_is_not_read_as_one(text):
    assert read_precision(text) is None


def test_a_list_part_is_written_with_the_separator_it_asks():
    spec = read_spec("Which three boroughs have the most permits, and how many permits are there?\n"
                     "Give @top_boroughs[three borough names, most permits first, separated by a semicolon and "
                     "a space] and @permits[a whole number].")
    names = ["Queens", "Brooklyn", "Bronx"]
    out = write_answer(spec, take_values(spec, {"answer": {"top_boroughs": names, "permits": 812}}))
    assert out.text.splitlines() == ["@top_boroughs[Queens; Brooklyn; Bronx]", "@permits[812]"]


def test_a_pair_joined_by_a_mark_and_a_precision_in_words():
    spec = read_spec("Which two stations are closest, and how far apart are they?\n"
                     "@pair[the two station codes joined by a hyphen] @km[kilometres, two places after the point]")
    out = write_answer(spec, take_values(spec, {"answer": {"pair": ("S04", "S11"), "km": 3.14159}}))
    assert out.text.split() == ["@pair[S04-S11]", "@km[3.14]"]


def test_an_answer_line_writes_several_values_with_the_asked_separator():
    spec = read_spec("Which days had rain? End with `Answer: <days>`, the days separated by \" / \".")
    out = write_answer(spec, take_values(spec, {"answer": ["Mon", "Thu"]}))
    assert out.text.endswith("Answer: Mon / Thu")
