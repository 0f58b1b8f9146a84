"""The answer benchmark end to end: real kernels, notebooks built on the fly, ``%%agent`` cells,
the session store and the cassettes, replayed from ``tests/benchmarks/cassettes`` (no model).

The committed cassette and ``expected.json`` were recorded with ``tests/benchmarks/record_cassette.py``
(a scripted model that answers some questions right and fails the others in each way a replay can
show); ``benchmarks/answers.py --refresh-test-cassette`` records them from the embedded model
instead. A "no recorded answer" error means the product now sends the model something else:
record the cassette again.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.answers import EXPECTED_FILE, TEST_CASSETTES, read_recording, run_benchmark, select_questions
from benchmarks.answers_report import markdown
from benchmarks.answers_session import RunSettings

pytestmark = pytest.mark.kernel

RECORD_AGAIN = ("the cassette no longer matches what the product sends the model; record it again with "
                ".venv/bin/python tests/benchmarks/record_cassette.py")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory) -> tuple[dict, dict]:
    work = tmp_path_factory.mktemp("answers")
    cassettes = work / "cassettes"
    shutil.copytree(TEST_CASSETTES, cassettes)
    expected = json.loads((TEST_CASSETTES / EXPECTED_FILE).read_text(encoding="utf-8"))
    recording = read_recording(cassettes)
    assert recording["questions"] == expected["questions"]
    settings = RunSettings(files_dir=work / "files", data_dir=work / "data", cassettes=cassettes, mode="replay",
                           source=recording["source"], timeout=120, run_id="replay",
                           config=recording.get("config") or ())
    report = run_benchmark(select_questions(None, expected["questions"]), settings,
                           session_size=recording["session_size"])
    return report, expected


def test_every_question_replays_to_its_recorded_outcome(replayed):
    report, expected = replayed
    planned_errors = {q for q, o in expected["outcomes"].items() if o["kind"] == "error"}
    misses = [r["id"] for r in report["questions"]
              if r["id"] not in planned_errors and "no recorded answer" in (r["error"] or "")]
    assert not misses, f"{misses}: {RECORD_AGAIN}"
    got = {r["id"]: {"correct": r["correct"], "kind": r["kind"]} for r in report["questions"]}
    assert got == expected["outcomes"]
    assert [r["id"] for r in report["questions"]] == expected["questions"]


def test_the_summary_counts_what_was_recorded(replayed):
    report, expected = replayed
    summary = report["summary"]
    assert summary["n"] == len(expected["questions"])
    assert summary["correct"] == expected["correct"]
    assert summary["failures"] == expected["failures"]
    assert summary["first_in_session"]["n"] == len(report["sessions"]) >= 2
    assert summary["first_in_session"]["n"] + summary["later_in_session"]["n"] == summary["n"]


def test_right_answers_show_the_expected_parts_and_failures_show_why(replayed):
    report, _ = replayed
    for row in report["questions"]:
        assert row["seconds"] > 0, row["id"]
        if row["correct"]:
            assert set(row["answer"]) == set(row["expected"]) and all(row["right"].values()), row["id"]
        if row["kind"] == "tool_error":
            assert row["last_tool_status"] == "error" and row["tool_calls"] >= 1
        if row["kind"] == "no_tool_call":
            assert row["tool_calls"] == 0
        if row["kind"] == "format":
            assert not all(row["right"].values())
        if row["kind"] == "error":
            assert row["error"]


def test_prompt_tokens_come_from_the_cassette(replayed):
    report, _ = replayed
    answered = [r for r in report["questions"] if r["kind"] != "error"]
    assert answered and all(r["prompt_tokens"] and min(r["prompt_tokens"]) > 0 for r in answered)
    tokens = report["summary"]["prompt_tokens"]
    assert tokens["requests"] == sum(len(r["prompt_tokens"]) for r in report["questions"])
    assert tokens["first_request_max"] <= tokens["max"]


def test_the_report_renders(replayed):
    report, expected = replayed
    text = markdown(report["summary"], report["questions"])
    assert f"| accuracy | {expected['correct']}/{len(expected['questions'])} (" in text
    for qid in expected["questions"]:
        assert f"| {qid} |" in text
    assert json.loads(json.dumps(report)) == report        # the results file is plain JSON


def test_the_committed_cassettes_hold_no_machine_paths():
    for path in Path(TEST_CASSETTES).glob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert "/tmp/" not in text and str(Path.home()) + "/" not in text, path.name
