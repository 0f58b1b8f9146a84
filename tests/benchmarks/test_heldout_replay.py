"""The held-out set end to end: real kernels ask a closed-form session and a natural session
(follow-ups in one kernel) of a scripted model, record their cassettes, and a replay of those
cassettes, with no model, scores the same."""
from __future__ import annotations

import json

import pytest

from benchmarks.answers import run_benchmark, select_questions
from benchmarks.answers_report import markdown
from benchmarks.answers_session import RunSettings
from benchmarks.answers_sets import expected_answers, write_files
from tests.benchmarks.scripted_source import MODEL, ScriptedAnswerServer, replies_for
from tests.support.fake_model_servers import Reply, call

pytestmark = pytest.mark.kernel

IDS = ["cl-03", "cl-06", "cl-07", "cl-09"]


#: the scripted replies are tool calls: the tool loop answers (not the program path)
TOOL_LOOP = ['answer_strategy = "tools"']


def _natural(sql: str, text: str) -> list[Reply]:
    return [Reply(tool_calls=[call("query_sql", {"sql": sql})]), Reply(text=text)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("heldout-replay")
    questions = select_questions(None, IDS, ("heldout",))
    write_files(work / "files", questions)
    expected = expected_answers(questions, work / "files")
    by_id = {q.id: q for q in questions}
    scripts = {
        by_id["cl-03"].prompt: replies_for("right", by_id["cl-03"].parts, expected["cl-03"]),
        by_id["cl-07"].prompt: _natural("SELECT 639 AS late", "639 claims were reported late.\n\n**Answer:** 639"),
        by_id["cl-06"].prompt: _natural("SELECT 1 AS same", "They differ.\nAnswer: no"),     # the reference is yes
        by_id["cl-09"].prompt: _natural("SELECT 0.01 AS r", "The correlation is weak."),     # no Answer: line
    }
    reports = {}
    with ScriptedAnswerServer(scripts) as server:
        source = json.dumps({"backend": "openai", "endpoint": server.url, "model": MODEL})
        record = RunSettings(files_dir=work / "files", data_dir=work / "data", cassettes=work / "cassettes",
                             mode="record", source=source, timeout=60, run_id="record",
                             config=TOOL_LOOP)
        reports["record"] = run_benchmark(questions, record)
    replay = RunSettings(files_dir=work / "files", data_dir=work / "data", cassettes=work / "cassettes",
                         mode="replay", source=source, timeout=60, run_id="replay",
                         config=TOOL_LOOP)
    reports["replay"] = run_benchmark(questions, replay)
    return reports


def _outcomes(report):
    return {r["id"]: (r["correct"], r["kind"]) for r in report["questions"]}


def test_closed_and_natural_answers_are_scored_by_their_own_rules(runs):
    assert _outcomes(runs["record"]) == {"cl-03": (True, None), "cl-07": (True, None),
                                         "cl-06": (False, "wrong_number"), "cl-09": (False, "format")}


def test_natural_questions_are_follow_ups_in_one_kernel(runs):
    sessions = {s["name"]: s["questions"] for s in runs["record"]["sessions"]}
    assert sessions == {"claims_register-closed-1": ["cl-03"],
                        "claims_register-natural-1": ["cl-06", "cl-07", "cl-09"]}
    positions = {r["id"]: r["position"] for r in runs["record"]["questions"]}
    assert positions == {"cl-03": 1, "cl-06": 1, "cl-07": 2, "cl-09": 3}


def test_a_replay_scores_the_same_without_a_model(runs):
    assert _outcomes(runs["replay"]) == _outcomes(runs["record"])
    summary = runs["replay"]["summary"]
    assert summary["by_set_style"]["heldout/natural"]["correct"] == 1
    assert summary["by_set_style"]["heldout/closed"]["correct"] == 1
    assert list(summary["by_position"]) == ["1", "2", "3"]
    text = markdown(summary, runs["replay"]["questions"])
    assert "| heldout/natural | 1/3 (33.3%) |" in text
