"""The answer benchmark's parser, scorer and failure kinds."""
from __future__ import annotations

import pytest

from benchmarks.answers_score import (Expected, TurnFacts, failure_kind, parse_number, parse_parts, part_is_right,
                                      score_answer)

REGION = Expected("region", "text", "West")
TOTAL = Expected("total", "float", 38988.004, 2)
ROWS = Expected("rows", "int", 3000)
P = Expected("p", "float", 0.046267, 4)
TOOLS = TurnFacts(tool_calls=1, last_tool_status="success")


@pytest.mark.parametrize("text, parts", [
    ("@region[West], @total[38988.00]", {"region": "West", "total": "38988.00"}),
    ("The top region is **@region[West]** with `@total[38,988.00]`.", {"region": "West", "total": "38,988.00"}),
    ("@region[**West**] and @total[`38988`]", {"region": "West", "total": "38988"}),
    ("@Region[ 'West' ]", {"region": "West"}),
    ("@region[“West”]", {"region": "West"}),
    (r"@total\[38988.00\]", {"total": "38988.00"}),
    ("first @total[1], then corrected: @total[2]", {"total": "2"}),
    ("@ total [12]", {"total": "12"}),
    ("no closed form here: total = 12", {}),
    ("@total[]", {"total": ""}),
    ("@total[12\nmore]", {}),
])
def test_parts_are_found_through_markdown_and_quotes(text, parts):
    assert parse_parts(text) == parts


@pytest.mark.parametrize("raw, number", [
    ("38988.00", 38988.0), ("38,988.00", 38988.0), ("$38,988.00", 38988.0), ("€1,234", 1234.0),
    ("12.5%", 12.5), ("12.5 %", 12.5), ("−1.995", -1.995), ("-$5.50", -5.5), ("1e-05", 1e-05),
    ("7.67E-05", 7.67e-05), ("`0.0463`", 0.0463), ("**3000**", 3000.0), ("1 234 567", 1234567.0),
    (".5", 0.5), ("+3", 3.0),
])
def test_numbers_are_read_with_separators_signs_and_percent(raw, number):
    assert parse_number(raw) == pytest.approx(number)


@pytest.mark.parametrize("raw", ["", "about 12", "1,5", "12,34", "12.3.4", "n/a", "1,2345", "twelve", "12 USD",
                                 "<0.0001", "inf", "nan", "value"])
def test_what_is_not_a_plain_number_is_not_read(raw):
    assert parse_number(raw) is None


@pytest.mark.parametrize("written, right", [
    ("38988.00", True), ("38988", True), ("38988.004", True), ("38,988.00", True), ("$38,988.00", True),
    ("38988.005", True),             # within half a unit of the reference rounded (38988.00)
    ("38988.01", False), ("38987.99", False), ("38988.1", False), ("39000", False), ("3898800", False),
])
def test_a_number_is_right_within_half_a_unit_of_the_stated_rounding(written, right):
    assert part_is_right(TOTAL, written) is right


def test_rounding_is_checked_at_the_stated_place():
    assert part_is_right(P, "0.0463") is True
    assert part_is_right(P, "0.04627") is True         # more decimals than asked, still within half a unit
    assert part_is_right(P, "0.0462") is False         # truncated instead of rounded
    assert part_is_right(P, "0.046") is False          # fewer decimals than asked
    assert part_is_right(P, "4.63%") is False          # a p-value is not a percentage


def test_whole_numbers_must_be_exact():
    assert part_is_right(ROWS, "3,000") is True
    assert part_is_right(ROWS, "3000.0") is True
    assert part_is_right(ROWS, "3000.4") is False
    assert part_is_right(ROWS, "2999") is False


def test_text_ignores_case_and_surrounding_space_only():
    assert part_is_right(REGION, " west ") is True
    assert part_is_right(REGION, "**WEST**.") is True
    assert part_is_right(REGION, "West region") is False
    assert part_is_right(REGION, "Wes") is False
    assert part_is_right(Expected("city", "text", "Zürich"), "zürich") is True
    assert part_is_right(Expected("city", "text", "Zürich"), "Zurich") is False
    assert part_is_right(REGION, "") is None
    assert part_is_right(REGION, None) is None


def test_all_parts_must_be_right():
    verdict = score_answer([REGION, TOTAL], "**@region[West]**, @total[$38,988.00]", TOOLS)
    assert verdict.correct and verdict.kind is None
    assert verdict.answer == {"region": "West", "total": "$38,988.00"}
    verdict = score_answer([REGION, TOTAL], "@region[West], @total[38,989.00]", TOOLS)
    assert not verdict.correct and verdict.kind == "wrong_number"
    assert verdict.right == {"region": True, "total": False}


def test_a_missing_or_unreadable_part_is_a_format_failure():
    verdict = score_answer([REGION, TOTAL], "@region[West], total is 38988", TOOLS)
    assert (verdict.correct, verdict.kind, verdict.missing) == (False, "format", ("total",))
    assert score_answer([TOTAL], "@total[about 39k]", TOOLS).kind == "format"
    assert score_answer([TOTAL], "", TOOLS).kind == "format"
    assert score_answer([TOTAL], "@sum[38988.00]", TOOLS).kind == "format"   # another name is no answer


def test_a_wrong_part_beats_a_missing_one_only_in_the_order_of_kinds():
    # one part wrong and one missing: the missing part makes it a format failure
    assert score_answer([REGION, TOTAL], "@region[East]", TOOLS).kind == "format"


def test_failure_kinds_follow_their_order():
    assert failure_kind(TurnFacts(timed_out=True, error="boom"), True) == "timeout"
    assert failure_kind(TurnFacts(error="boom", tool_calls=2), False) == "error"
    assert failure_kind(TurnFacts(tool_calls=0), True) == "no_tool_call"
    assert failure_kind(TurnFacts(tool_calls=2, last_tool_status="error"), True) == "tool_error"
    assert failure_kind(TurnFacts(tool_calls=2, last_tool_status="success"), True) == "format"
    assert failure_kind(TurnFacts(tool_calls=2, last_tool_status="success"), False) == "wrong_number"


def test_a_right_answer_has_no_failure_kind_whatever_the_turn_did():
    assert score_answer([ROWS], "@rows[3000]", TurnFacts(tool_calls=0)).kind is None
    assert score_answer([ROWS], "@rows[3000]", TurnFacts(tool_calls=1, last_tool_status="error")).correct


def test_an_earlier_error_in_the_turn_does_not_count_when_the_last_tool_result_was_fine():
    facts = TurnFacts(tool_calls=2, last_tool_status="success")
    assert score_answer([ROWS], "@rows[2999]", facts).kind == "wrong_number"


def test_a_question_without_parts_is_never_right():
    assert not score_answer([], "@rows[1]", TOOLS).correct
