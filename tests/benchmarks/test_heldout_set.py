"""The held-out answer set: deterministic wide files, questions that share nothing with the
development set, references that compute, and sessions of the right shape."""
from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest

from benchmarks import answers, answers_data, answers_sets, heldout_data
from benchmarks.answers_questions import QUESTIONS
from benchmarks.heldout_questions import HELDOUT, HELDOUT_CATEGORIES, heldout_question, heldout_reference


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("heldout")
    heldout_data.write_files(path)
    return path


@pytest.fixture(scope="module")
def references(folder) -> dict[str, dict]:
    frames = {s.name: heldout_data.read_reference(folder / s.name) for s in heldout_data.SHEETS}
    return {q.id: heldout_reference(q, frames[q.file]) for q in HELDOUT}


def _sentences(text: str) -> set[str]:
    return {" ".join(s.split()).casefold() for s in re.split(r"(?<=[.?!])\s+", text) if s.strip()}


def _dev_columns() -> set[str]:
    return {c.casefold() for s in answers_data.FILES for c in s.build(np.random.default_rng(s.seed))[0]}


def test_the_files_are_the_same_bytes_on_every_run(folder):
    for spec in heldout_data.SHEETS:
        assert heldout_data.render_csv(spec) == (folder / spec.name).read_text(encoding="utf-8"), spec.name
    before = {p: p.stat().st_mtime_ns for p in folder.glob("*.csv")}
    heldout_data.write_files(folder)
    assert {p: p.stat().st_mtime_ns for p in folder.glob("*.csv")} == before


def test_the_files_are_wide_messy_and_from_their_own_domains(folder):
    assert len(heldout_data.SHEETS) >= 8
    dev_domains = {s.domain for s in answers_data.FILES}
    assert not dev_domains & {s.domain for s in heldout_data.SHEETS}
    text = "".join((folder / s.name).read_text(encoding="utf-8") for s in heldout_data.SHEETS)
    for mess in ("£", " EUR", "%", " min", "#N/A", "--", "T0", "-Jan-", "TRUE", "(", "/20"):
        assert mess in text, mess
    for spec in heldout_data.SHEETS:
        frame = heldout_data.read_reference(folder / spec.name)
        assert 20 <= frame.shape[1] <= 40, spec.name
        assert len(frame) >= 1000, spec.name
    duplicated = [s.name for s in heldout_data.SHEETS
                  if heldout_data.read_reference(folder / s.name).duplicated().any()]
    assert len(duplicated) >= 3


def test_no_file_or_column_name_is_shared_with_the_development_set():
    dev_files = {s.name.casefold() for s in answers_data.FILES}
    assert not dev_files & {s.name.casefold() for s in heldout_data.SHEETS}
    dev = _dev_columns()
    shared = {c for s in heldout_data.SHEETS for c in s.build(np.random.default_rng(s.seed))[0] if c.casefold() in dev}
    assert not shared


def test_no_question_sentence_is_shared_with_the_development_set():
    dev = set().union(*(_sentences(q.prompt) for q in QUESTIONS))
    shared = {s for q in HELDOUT for s in _sentences(q.prompt) if s in dev}
    assert not shared
    assert "End your answer with" not in " ".join(q.prompt for q in HELDOUT)
    assert not {q.id for q in HELDOUT} & {q.id for q in QUESTIONS}


def test_both_styles_are_asked_about_every_file_and_every_category():
    styles = Counter(q.style for q in HELDOUT)
    assert styles["closed"] >= 40 and styles["natural"] >= 40 and len(HELDOUT) >= 80
    per_file = Counter((q.file, q.style) for q in HELDOUT)
    assert {f for f, _ in per_file} == {s.name for s in heldout_data.SHEETS}
    assert all(4 <= n <= 6 for n in per_file.values())
    assert {q.category for q in HELDOUT} == set(HELDOUT_CATEGORIES)
    assert {q.reply.kind for q in HELDOUT if q.reply} == {"yesno", "category", "number", "list"}
    assert len({q.id for q in HELDOUT}) == len(HELDOUT)


def test_prompts_ask_for_their_form(references):
    for q in HELDOUT:
        if q.style == "closed":
            assert q.prompt.count("@") == len(q.parts) and all(f"@{s.name}[value]" in q.prompt for s in q.parts), q.id
            assert "Answer:" not in q.prompt, q.id
        else:
            assert "`Answer:" in q.prompt and "@" not in q.prompt, q.id
            if q.reply.kind == "number" and q.reply.decimals:
                assert f"to {q.reply.decimals} decimals" in q.prompt, q.id
            if q.reply.kind == "list":
                assert ("in that order" if q.reply.ordered else "in any order") in q.prompt, q.id


def test_every_reference_computes_and_is_unambiguous(references):
    for q in HELDOUT:
        values = references[q.id]
        if q.style == "closed":
            assert set(values) == {s.name for s in q.parts}, q.id
            checks = [(s.kind, s.decimals, values[s.name]) for s in q.parts]
        else:
            value = values["answer"]
            kind = {"yesno": "bool", "category": "text", "list": "list"}.get(q.reply.kind)
            kind = kind or ("int" if q.reply.decimals == 0 else "float")
            checks = [(kind, q.reply.decimals or 0, value)]
        for kind, decimals, value in checks:
            if kind == "float":
                assert math.isfinite(value), q.id
                scaled = value * 10 ** decimals
                assert abs(scaled - math.floor(scaled) - 0.5) > 1e-6, (q.id, "on a rounding boundary")
            elif kind == "int":
                assert isinstance(value, int) and not isinstance(value, bool), q.id
            elif kind == "bool":
                assert isinstance(value, bool), q.id
            elif kind == "list":
                assert value and len(set(value)) == len(value), q.id
            else:
                assert isinstance(value, str) and value.strip(), q.id


def test_yes_no_answers_are_not_all_the_same(references):
    answers_given = {references[q.id]["answer"] for q in HELDOUT if q.reply and q.reply.kind == "yesno"}
    assert answers_given == {True, False}


def test_sessions_keep_styles_apart_and_ask_natural_questions_three_at_a_time():
    plans = answers_sets.plan(HELDOUT)
    assert len({p.name for p in plans}) == len(plans)
    for p in plans:
        styles = {q.style for q in p.questions}
        assert len(styles) == 1 and {q.file for q in p.questions} == {p.file}
        assert len(p.questions) <= (3 if styles == {"natural"} else 5)
        assert re.fullmatch(r"[a-z0-9_]+-(closed|natural)-\d", p.name), p.name
    assert sorted(q.id for p in plans for q in p.questions) == sorted(q.id for q in HELDOUT)
    dev_plans = answers_sets.plan(QUESTIONS)
    assert [p.name for p in dev_plans][:2] == ["sales_orders-1", "sales_orders-2"]


def test_questions_are_selected_by_set_file_and_id():
    assert answers.select_questions() == list(QUESTIONS)
    assert answers.select_questions(sets=("heldout",)) == list(HELDOUT)
    both = answers.select_questions(sets=answers_sets.SETS)
    assert len(both) == len(QUESTIONS) + len(HELDOUT)
    chosen = answers.select_questions(["rides", "housing"], ["cv-06"], sets=answers_sets.SETS)
    assert {q.file for q in chosen} == {"housing.csv", "rides.march-april.csv", "ClinicVisits.csv"}
    assert heldout_question("cv-06") in chosen
    with pytest.raises(KeyError):
        answers.select_questions(None, ["cv-06"])          # not in the dev set
    with pytest.raises(KeyError):
        answers.select_questions(["no_such_file"], sets=("heldout",))


def test_the_command_lists_the_heldout_set(capsys):
    assert answers.main(["--set", "heldout", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(HELDOUT)
    assert Counter(line.split("\t")[2] for line in lines) == Counter(q.style for q in HELDOUT)
    assert all(line.split("\t")[1] == "heldout" for line in lines)
    assert answers.main(["--list"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == len(QUESTIONS)


def test_the_command_writes_the_heldout_files(tmp_path, capsys):
    assert answers.main(["--set", "heldout", "--write-files", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.csv")) == sorted(s.name for s in heldout_data.SHEETS)
