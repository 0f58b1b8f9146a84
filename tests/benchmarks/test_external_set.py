"""The external evaluation set in the answer benchmark, without any model: prompts with every
wording, sessions per table under each table's variable name, scoring through the set's own
``score.py`` for the product and the bare baseline, and a report per wording.

The set must stay unread: checks compare texts as booleans first, so that a failure names an
item id and never prints a question or a reference answer.
"""
from __future__ import annotations

import json
from collections import Counter

import pytest

from benchmarks import answers, answers_sets, external_set
from benchmarks.answers_bare import run_bare, system_prompt
from benchmarks.answers_report import margin, markdown, markdown_baseline, summarize
from benchmarks.answers_score import TurnFacts
from benchmarks.answers_session import notebook_for
from benchmarks.external import score as external_score
from shell_agent_lab.llm.scripted import ScriptedBackend

ALL = tuple(external_set.wording_ids())


def _right_reply(item: external_set.ExternalItem) -> str:
    """A reply stating the item's reference answer in the form its question asks for."""
    answer = item.spec["answer"]
    if item.style == "closed":
        return " ".join(f"@{name}[{part['value']}]" for name, part in answer["parts"].items())
    value = answer["value"]
    if answer["kind"] == "list":
        value = ", ".join(str(v) for v in value)
    return f"Computed with pandas.\nAnswer: {value}"


def test_every_wording_is_known_and_plain_is_the_default():
    assert external_set.DEFAULT_WORDINGS == ("plain",)
    assert external_set.parse_wordings(None) == ("plain",)
    assert external_set.parse_wordings("all") == ALL and {"plain", "kinds", "none"} <= set(ALL)
    assert external_set.parse_wordings("plain, none,plain") == ("plain", "none")
    with pytest.raises(KeyError):
        external_set.parse_wordings("plain,no-such-wording")


def test_natural_questions_are_asked_once_per_wording_and_closed_ones_as_they_are():
    questions = external_set.questions()
    items = external_set.items(ALL)
    styles = Counter(q["style"] for q in questions)
    assert len(items) == styles["closed"] + styles["natural"] * len(ALL)
    assert len({i.id for i in items}) == len(items)
    templates = {w["id"]: w["template"] for w in external_score.load_wordings()}
    for item in items:
        expected = external_score.prompt_for(dict(item.spec), {"id": item.wording, "template": templates[item.wording]}
                                             if item.wording else None)
        same = item.prompt == expected
        assert same, item.id
        alone = item.prompt == item.spec["question"].strip()
        if item.style == "closed":
            assert item.wording is None and item.id == item.question_id and alone, item.id
        elif item.wording == "none":
            assert alone and item.id == f"{item.question_id}@none", item.id
        else:
            ends = item.prompt.endswith(templates[item.wording].replace("{frame}", item.frame).strip())
            assert ends and not alone and item.id == f"{item.question_id}@{item.wording}", item.id
        assert item.file == item.spec["table"] and item.frame == item.spec["frame"], item.id


def test_items_are_selected_by_question_id_item_id_and_table():
    chosen = answers.select_questions(None, ["ext-60", "ext-61"], ("external",), ("plain", "none"))
    assert {i.question_id for i in chosen} == {"ext-60", "ext-61"}
    natural = [i for i in chosen if i.style == "natural"]
    assert sorted(i.wording for i in natural) == ["none", "plain"]
    one = answers.select_questions(None, [natural[0].id], ("external",))
    assert [i.id for i in one] == [natural[0].id]
    by_table = answers.select_questions(["quakes"], None, ("external",))
    assert {i.file for i in by_table} == {"quakes.csv"} and by_table
    assert answers.select_questions(sets=("external",)) == external_set.items()
    with pytest.raises(KeyError):
        answers.select_questions(None, ["ext-60"])                      # not in the dev set
    with pytest.raises(KeyError):
        answers.select_questions(None, ["ext-999"], ("external",))
    # a recording's item ids are found again whatever the wordings asked for now
    replayed = answers_sets.select(answers_sets.ALL_SETS, None, [i.id for i in chosen])
    assert [i.id for i in replayed] == [i.id for i in chosen]


def test_sessions_are_per_table_with_natural_follow_ups_per_wording_in_one_kernel():
    items = external_set.items(ALL)
    plans = answers_sets.plan(items, session_size=5)
    assert len({p.name for p in plans}) == len(plans)
    assert sorted(i.id for p in plans for i in p.questions) == sorted(i.id for i in items)
    natural_sessions = Counter()
    for p in plans:
        assert {i.file for i in p.questions} == {p.file}
        assert {i.frame for i in p.questions} == {p.frame}
        styles = {i.style for i in p.questions}
        assert len(styles) == 1
        if styles == {"closed"}:
            assert len(p.questions) <= 5 and "-closed-" in p.name
        else:
            (wording,) = {i.wording for i in p.questions}
            assert p.name.endswith(f"-natural-{wording}")
            natural_sessions[(p.file, wording)] += 1
    assert set(natural_sessions.values()) == {1}
    per_table = Counter(i.file for i in items if i.style == "natural")
    assert len(natural_sessions) == len(per_table) * len(ALL)
    assert any(p.frame != "df" for p in plans) and any(p.frame == "df" for p in plans)


def test_the_notebook_loads_each_table_under_its_frame_name():
    plans = answers_sets.plan(external_set.items(), session_size=5)
    for p in plans:
        nb = notebook_for(p)
        setup = nb.cells[0].source
        assert f"{p.frame} = pd.read_csv({p.file!r})" in setup, p.name
        assert (p.frame == "df") == ("\ndf = pd.read_csv" in setup), p.name
        asked = [c.source for c in nb.cells[1:]] == [f"%%agent\n{i.prompt}" for i in p.questions]
        assert asked, p.name


def test_replies_are_scored_by_the_set_s_own_scorer(monkeypatch):
    items = external_set.items(ALL)
    expected = answers_sets.expected_answers(items, None)
    facts = TurnFacts(tool_calls=1)
    for item in items:
        right = answers_sets.score_question(item, expected[item.id], _right_reply(item), facts)
        assert right.correct and right.kind is None and right.why, item.id
        empty = answers_sets.score_question(item, expected[item.id], "I could not tell.", facts)
        assert not empty.correct and empty.kind in ("format", "wrong_number"), item.id
    item = items[0]
    assert answers_sets.score_question(item, expected[item.id], "", TurnFacts()).kind == "no_tool_call"
    calls = []

    def fake(q, reply):
        calls.append((q["id"], reply))
        return {"correct": True, "found": None, "why": "scripted"}

    monkeypatch.setattr(external_score, "score", fake)
    verdict = answers_sets.score_question(item, expected[item.id], "some reply", facts)
    assert verdict.correct and verdict.why == "scripted" and calls == [(item.question_id, "some reply")]


def test_the_bare_baseline_uses_the_frame_name_and_the_set_s_scorer(tmp_path):
    chosen = [i for i in external_set.items(("plain", "none")) if i.file == "quakes.csv"]
    natural = [i for i in chosen if i.style == "natural"]
    assert {i.frame for i in chosen} == {"quakes"} and len({i.wording for i in natural}) == 2
    external_set.write_files(tmp_path, chosen)
    expected = answers_sets.expected_answers(chosen, tmp_path)

    def reply(item):               # right with the plain wording, silent with none
        text = "" if item.wording == "none" else _right_reply(item)
        code = f"assert isinstance(quakes, pd.DataFrame) and len(quakes) > 0\nprint({text!r})"
        return f"```python\n{code}\n```"

    model = ScriptedBackend([reply(i) for i in chosen])
    rows = run_bare(chosen, model, tmp_path, expected, score=answers_sets.score_question)
    system = [r.messages[0].content for r in model.requests]
    assert all(s == system_prompt("quakes") and "quakes" in s for s in system)
    assert all("quakes.dtypes:" in r.messages[1].content for r in model.requests)
    by_id = {r["id"]: r for r in rows}
    for item in chosen:
        row = by_id[item.id]
        assert row["set"] == "external" and row["wording"] == item.wording and row["question"] == item.question_id
        assert row["correct"] == (item.wording != "none"), item.id
        assert row["why"], item.id
    summary = summarize(rows)
    assert summary["by_wording"]["plain"]["accuracy"] == 1.0 and summary["by_wording"]["none"]["accuracy"] == 0.0
    assert summary["wording_spread"] == {"best": "plain", "worst": "none", "points": 100.0}
    assert "external/closed" in summary["by_set_style"] and "external/natural" in summary["by_set_style"]
    product = [{**r, "correct": True} for r in rows]
    m = margin(product, rows)
    assert m["by_wording"]["none"]["margin_points"] == 100.0 and m["by_wording"]["plain"]["margin_points"] == 0.0
    for text in (markdown(summary, rows), markdown_baseline("bare", summary, rows, m)):
        assert "Spread between wordings: 100.0 points (best plain, worst none)" in text
        shown = any(i.prompt in text or _right_reply(i) in text for i in chosen)
        assert not shown                                       # the set stays unread
        assert json.dumps(rows)                                 # the rows serialize whole


def test_the_command_lists_and_writes_the_set_without_its_texts(tmp_path, capsys):
    assert answers.main(["--set", "external", "--list", "--wordings", "plain,none"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    items = external_set.items(("plain", "none"))
    assert [line.split("\t")[0] for line in lines] == [i.id for i in items]
    shown = any(i.spec["question"].strip() in "\n".join(lines) for i in items)
    assert not shown
    assert answers.main(["--set", "external", "--write-files", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.csv")) == sorted(external_set.tables())
    with pytest.raises(SystemExit, match="no wording"):
        answers.main(["--set", "external", "--list", "--wordings", "nope"])


def test_the_second_external_set_is_asked_with_its_own_tables_and_scorer(tmp_path, capsys):
    try:
        assert answers.main(["--set", "external", "--external", "external2", "--list"]) == 0
        lines = capsys.readouterr().out.strip().splitlines()
        assert external_set.folder() == "external2"
        items = external_set.items(("plain",))
        assert [line.split("\t")[0] for line in lines] == [i.id for i in items]
        assert all(i.question_id.startswith("x2-") for i in items) and len({i.question_id for i in items}) >= 60
        first = {q["table"] for q in external_score.load_questions()}
        assert not first & set(external_set.tables())          # other tables than the first set's
        assert not any(i.spec["question"].strip() in "\n".join(lines) for i in items)
        for item in items[:12]:                                 # the set's reference answers score right
            assert external_set.score_item(item, item.spec["answer"], _right_reply(item), TurnFacts(tool_calls=1)).correct, \
                item.id
        assert answers.main(["--set", "external", "--external", "external2", "--write-files", str(tmp_path)]) == 0
        assert sorted(p.name for p in tmp_path.glob("*.csv")) == sorted(external_set.tables())
        with pytest.raises(KeyError, match="no external set"):
            external_set.use("external99")
    finally:
        external_set.use("external")
    assert external_set.items(("plain",))[0].question_id.startswith("ext-")
