"""Numbers in an answer's prose are written as a person would; code, answer slots, dates and
the precision a question asks for are respected."""
from __future__ import annotations

import pytest

from shell_agent_lab.answers.numbers import asked_precision, humane_numbers
from shell_agent_lab.llm.scripted import ScriptedBackend


@pytest.mark.parametrize("raw,shown", [
    ("The average charge for smokers is 32050.23183153285.", "The average charge for smokers is 32,050.23."),
    ("Mean BMI 30.66339686098655 vs 30.6513.", "Mean BMI 30.66 vs 30.6513."),
    ("A correlation of 0.29830821224402.", "A correlation of 0.298."),
    ("p = 0.000012345678 here", "p = 0.0000123 here"),
    ("It fell by -1234.567891 units (−2.3456789%).", "It fell by -1,234.57 units (−2.35%)."),
    ("Already 32,050.2318315 written.", "Already 32,050.23 written."),
    ("Short tails stay: 12.5, 3.1416 and 1,204.", "Short tails stay: 12.5, 3.1416 and 1,204."),
    ("Scientific 1.234567e-05 stays.", "Scientific 1.234567e-05 stays."),
    ("At 2024-03-01 12:30:15.123456 it peaked.", "At 2024-03-01 12:30:15.123456 it peaked."),
    ("Version 1.2.345678 is not a number.", "Version 1.2.345678 is not a number."),
])
def test_long_tails_are_written_at_a_sensible_precision(raw, shown):
    assert humane_numbers(raw) == shown


def test_code_blocks_inline_code_and_answer_slots_are_left_alone():
    answer = ("The mean is 32050.23183153285.\n\n```sql\nSELECT 32050.23183153285 AS x\n```\n"
              "Inline `avg = 4.123456789` too. @mean_charge[32050.23183153285]\n"
              "~~~python\ny = 0.123456789\n~~~\nEnd 0.123456789")
    assert humane_numbers(answer) == (
        "The mean is 32,050.23.\n\n```sql\nSELECT 32050.23183153285 AS x\n```\n"
        "Inline `avg = 4.123456789` too. @mean_charge[32050.23183153285]\n"
        "~~~python\ny = 0.123456789\n~~~\nEnd 0.123")


@pytest.mark.parametrize("question,precision", [
    ("What is the mean, rounded to 4 decimal places?", ("decimals", 4)),
    ("Give it to three decimals.", ("decimals", 3)),
    ("round to 1 dp", ("decimals", 1)),
    ("@mean[…] rounded to 2 decimal places, @r[…] rounded to 4 decimal places", ("decimals", 4)),
    ("to the nearest integer", ("decimals", 0)),
    ("with 3 significant figures", ("significant", 3)),
    ("What is the mean charge?", None),
    ("Answer as @mean[value] with `round(x, 4)`", None),
])
def test_the_precision_a_question_asks_for(question, precision):
    assert asked_precision(question) == precision


def test_a_precision_the_question_asks_for_wins():
    q = "What is the average charge for smokers, rounded to 4 decimal places?"
    assert humane_numbers("It is 32050.23183153285.", q) == "It is 32050.2318."
    assert humane_numbers("It is 32050.2318 and 1.5.", q) == "It is 32050.2318 and 1.5."
    assert humane_numbers("About 12.34567 people.", "to the nearest whole number") == "About 12 people."
    assert humane_numbers("r = 0.298308212", "3 significant figures") == "r = 0.298"


def test_the_recorded_final_answer_is_rewritten(make_agent, store):
    backend = ScriptedBackend(["The average charge for smokers is 32050.23183153285 (n = 274)."])
    agent, _ = make_agent(backend)
    reply = agent.run("What is the average charge for smokers?")
    assert reply.text == "The average charge for smokers is 32,050.23 (n = 274)."
    last = [r for r in store.list_records(agent.session.id) if r.role == "assistant"][-1]
    assert last.content == reply.text
