"""The answer benchmark's questions: enough of them, every reference answer computable and
unambiguous, and sessions of four to six questions."""
from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from benchmarks.answers import select_questions
from benchmarks.answers_data import FILES, read_reference, write_files
from benchmarks.answers_questions import CATEGORIES, QUESTIONS, Part, question, reference_answers
from benchmarks.answers_session import notebook_for, plan_sessions


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("files")
    frames = {p.name: read_reference(p) for p in write_files(folder)}
    return {q.id: reference_answers(q, frames[q.file]) for q in QUESTIONS}


def test_there_are_enough_questions_over_enough_files_and_every_category():
    assert len(QUESTIONS) >= 80
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS)
    per_file = Counter(q.file for q in QUESTIONS)
    assert set(per_file) == {s.name for s in FILES} and len(per_file) >= 8
    assert all(8 <= n <= 10 for n in per_file.values())
    assert {q.category for q in QUESTIONS} == set(CATEGORIES)


def test_sessions_ask_four_to_six_questions_of_one_file_in_order():
    plans = plan_sessions(QUESTIONS)
    assert all(4 <= len(p.questions) <= 6 for p in plans)
    assert all({q.file for q in p.questions} == {p.file} for p in plans)
    assert [q.id for p in plans for q in p.questions] == [q.id for q in QUESTIONS]
    assert len({p.name for p in plans}) == len(plans)


def test_session_sizes_split_evenly():
    nine = [q for q in QUESTIONS if q.file == "housing.csv"]
    assert [len(p.questions) for p in plan_sessions(nine)] == [5, 4]
    assert [len(p.questions) for p in plan_sessions(nine[:3])] == [3]
    assert [len(p.questions) for p in plan_sessions(nine, size=3)] == [3, 3, 3]
    assert [p.name for p in plan_sessions(nine)] == ["housing-1", "housing-2"]


def test_every_reference_answer_computes_and_is_finite(answers):
    for q in QUESTIONS:
        values = answers[q.id]
        assert set(values) == {p.name for p in q.parts}, q.id
        for part in q.parts:
            value = values[part.name]
            if part.kind == "text":
                assert isinstance(value, str) and value.strip(), q.id
            else:
                assert math.isfinite(value), q.id
                assert isinstance(value, int) == (part.kind == "int"), q.id


def test_no_reference_value_sits_on_a_rounding_boundary(answers):
    """Half a unit either way would otherwise decide between two right-looking answers."""
    for q in QUESTIONS:
        for part in q.parts:
            if part.kind == "float":
                scaled = answers[q.id][part.name] * 10 ** part.decimals
                assert abs(scaled - math.floor(scaled) - 0.5) > 1e-6, (q.id, part.name)


def test_prompts_state_the_closed_form_and_the_rounding_of_every_part():
    for q in QUESTIONS:
        for part in q.parts:
            assert f"@{part.name}[value]" in q.prompt, q.id
            if part.kind == "float":
                assert re.search(rf"@{part.name}\[value\] \([^)]*rounded to {part.decimals} decimal place", q.prompt), q.id
        assert q.prompt.count("@") == len(q.parts), q.id


def test_part_instructions_read_naturally():
    assert Part("p", "float", 4).instruction() == "@p[value] (rounded to 4 decimal places)"
    assert Part("x", "float", 1, "a percentage").instruction() == "@x[value] (a percentage, rounded to 1 decimal place)"
    assert Part("n", "int").instruction() == "@n[value] (a whole number)"
    assert Part("who", "text", note="the region's name").instruction() == "@who[value] (the region's name)"
    assert question("sales-02").prompt.endswith(
        "End your answer with @region[value] (the region's name) and @revenue[value] (rounded to 2 decimal places).")


def test_a_tie_makes_a_reference_refuse():
    import pandas as pd

    from benchmarks.answers_questions import _top

    with pytest.raises(ValueError, match="tie"):
        _top(pd.Series({"a": 3.0, "b": 3.0, "c": 1.0}))
    assert _top(pd.Series({"a": 3.0, "b": 2.0, "c": 2.0})) == [("a", 3.0)]


def test_questions_are_selected_by_file_and_id_in_benchmark_order():
    chosen = select_questions(["housing"], ["trial-04", "sales-01"])
    assert [q.id for q in chosen][:2] == ["sales-01", "trial-04"]
    assert {q.file for q in chosen[2:]} == {"housing.csv"}
    assert len(select_questions()) == len(QUESTIONS)
    with pytest.raises(KeyError):
        select_questions(None, ["nope-01"])


def test_the_session_notebook_loads_the_file_and_asks_each_question_in_a_cell():
    (plan,) = plan_sessions(select_questions(None, ["sales-01", "sales-02"]))
    nb = notebook_for(plan)
    setup = nb.cells[0].source
    assert 'df = pd.read_csv(\'sales_orders.csv\')' in setup
    assert "%load_ext shell_agent_lab" in setup and 'approval_policy = "approve"' in setup
    assert [c.source for c in nb.cells[1:]] == [f"%%agent\n{q.prompt}" for q in plan.questions]
