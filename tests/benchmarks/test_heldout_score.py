"""The natural questions' scorer: the last Answer: line, read as the kind the question asks."""
from __future__ import annotations

import pytest

from benchmarks.answers_score import TurnFacts
from benchmarks.heldout_questions import Reply
from benchmarks.heldout_score import answer_line, score_natural, score_question

TOOLS = TurnFacts(tool_calls=1, last_tool_status="success")


@pytest.mark.parametrize("text, line", [
    ("The mean is 4.2.\nAnswer: 4.2", "4.2"),
    ("Answer: 3\nOn second thought...\nAnswer: 4", "4"),
    ("**Answer:** yes", "yes"),
    ("**Answer: `West`**", "West"),
    ("> answer: no.", "no"),
    ("Final answer: 12", None),       # the line must start with Answer:
    ("no final line here", None),
])
def test_the_last_answer_line_is_taken(text, line):
    assert answer_line(text) == line


@pytest.mark.parametrize("written, expected, right", [
    ("yes", True, True), ("Yes.", True, True), ("TRUE", True, True), ("no", False, True),
    ("false", False, True), ("No, they do not differ", False, True), ("yes", False, False),
])
def test_yes_and_no(written, expected, right):
    verdict = score_natural(Reply("yesno"), expected, f"Answer: {written}", TOOLS)
    assert verdict.correct is right
    assert verdict.kind == (None if right else "wrong_number")


def test_an_unreadable_yes_no_is_a_format_failure():
    verdict = score_natural(Reply("yesno"), True, "Answer: maybe", TOOLS)
    assert not verdict.correct and verdict.kind == "format" and verdict.missing == ("answer",)


@pytest.mark.parametrize("written, expected, decimals, right", [
    ("65.6", 65.61514, 1, True), ("65.61", 65.61514, 1, True), ("65.7", 65.61514, 1, False),
    ("65.5", 65.61514, 1, False), ("1,280.25", 1280.25, 2, True), ("$190.02", 190.02, 2, True),
    ("27.6%", 27.6, 1, True), ("about 639 claims", 639, 0, True), ("639.0", 639, 0, True), ("640", 639, 0, False),
    ("0.3016", 0.30160623, 4, True), ("0.3017", 0.30160623, 4, False),
])
def test_numbers_are_compared_at_the_asked_precision(written, expected, decimals, right):
    assert score_natural(Reply("number", decimals), expected, f"Answer: {written}", TOOLS).correct is right


def test_a_stated_tolerance_replaces_the_precision():
    reply = Reply("number", tolerance=0.05)
    assert score_natural(reply, 2.0, "Answer: 2.04", TOOLS).correct
    assert not score_natural(reply, 2.0, "Answer: 2.06", TOOLS).correct


def test_a_line_with_two_numbers_is_not_guessed():
    verdict = score_natural(Reply("number", 0), 639, "Answer: 639 of 2100", TOOLS)
    assert not verdict.correct and verdict.kind == "format"


@pytest.mark.parametrize("written, right", [("SystolicBP", True), ("systolicbp", True), ("`SystolicBP`.", True),
                                            ("DiastolicBP", False)])
def test_categories_ignore_case_and_wrapping(written, right):
    assert score_natural(Reply("category"), "SystolicBP", f"Answer: {written}", TOOLS).correct is right


@pytest.mark.parametrize("written, ordered, right", [
    ("IND-C, COM-E, COM-W", True, True), ("ind-c, com-e, com-w", True, True), ("COM-E, IND-C, COM-W", True, False),
    ("COM-E, IND-C, COM-W", False, True), ("COM-E; IND-C and COM-W", False, False), ("COM-E; IND-C, and COM-W", False, True),
    ("IND-C, COM-E", False, False), ("IND-C, COM-E, COM-W, RES-N", False, False), ("IND-C, IND-C, COM-E, COM-W", False, False),
])
def test_lists_are_sets_unless_the_order_is_asked(written, ordered, right):
    reply = Reply("list", ordered=ordered)
    assert score_natural(reply, ["IND-C", "COM-E", "COM-W"], f"Answer: {written}", TOOLS).correct is right


def test_failure_kinds_follow_the_turn():
    assert score_natural(Reply("yesno"), True, "", TurnFacts(timed_out=True)).kind == "timeout"
    assert score_natural(Reply("yesno"), True, "Answer: no", TurnFacts(error="boom")).kind == "error"
    assert score_natural(Reply("yesno"), True, "Answer: no", TurnFacts()).kind == "no_tool_call"
    assert score_natural(Reply("yesno"), True, "Answer: no",
                         TurnFacts(tool_calls=2, last_tool_status="error")).kind == "tool_error"
    assert score_natural(Reply("yesno"), True, "It is yes", TOOLS).kind == "format"


def test_one_scorer_for_both_styles():
    from benchmarks.answers_questions import question
    from benchmarks.heldout_questions import heldout_question

    closed = heldout_question("cl-03")
    assert score_question(closed, {"evening_incidents": 501}, "There were @evening_incidents[501].", TOOLS).correct
    assert not score_question(closed, {"evening_incidents": 501}, "Answer: 501", TOOLS).correct
    natural = heldout_question("cl-07")
    assert score_question(natural, {"answer": 639}, "Counted them.\nAnswer: 639", TOOLS).correct
    dev = question("sales-01")
    assert score_question(dev, {"returned": 181}, "@returned[181]", TOOLS).correct
