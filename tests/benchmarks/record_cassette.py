"""Record the answer benchmark's test cassette from the scripted model (no real model needed).

    .venv/bin/python tests/benchmarks/record_cassette.py

Runs the questions of :data:`PLAN` through real kernels in record mode against
:class:`~scripted_source.ScriptedAnswerServer`, checks that the benchmark reports exactly the
outcome each question's intent stands for, and replaces ``tests/benchmarks/cassettes/`` (one
cassette per session, ``recording.json`` and ``expected.json``, what the replay test compares
with). Run it again when a product change alters what the model is sent (the replay test then
fails with "no recorded answer"). To record the same questions from the embedded model instead,
run ``benchmarks/answers.py --refresh-test-cassette``, which keeps the question list and
rewrites the expected outcomes from that run.
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.answers import (EXPECTED_FILE, TEST_CASSETTES, expectations, run_benchmark,  # noqa: E402
                               select_questions, write_recording)
from benchmarks.answers_data import read_reference, write_files  # noqa: E402
from benchmarks.answers_questions import reference_answers  # noqa: E402
from benchmarks.answers_session import RunSettings  # noqa: E402
from tests.benchmarks.scripted_source import MODEL, OUTCOMES, ScriptedAnswerServer, replies_for  # noqa: E402

#: question -> intent: three sessions, every failure kind a replay can show, right answers with
#: and without a tool call, decorated values (bold, backticks, thousands separators)
PLAN: dict[str, str] = {
    "sales-01": "right", "sales-02": "right", "sales-04": "wrong_number", "sales-08": "no_tool_call",
    "trial-04": "right", "trial-06": "format", "trial-08": "tool_error",
    "housing-01": "error", "housing-06": "right_without_tools", "housing-07": "right",
}
#: the profile the cassette stands in for: an OpenAI-compatible server on this machine (its
#: port changes from run to run and does not matter for a replay)
SOURCE = json.dumps({"backend": "openai", "endpoint": "http://127.0.0.1/v1", "model": MODEL})
#: the scripted replies are tool calls: the cassette measures the tool loop (a local server would
#: otherwise be asked for a pandas program first)
CONFIG = ['answer_strategy = "tools"']


def record(target: Path = TEST_CASSETTES) -> dict:
    questions = select_questions(None, list(PLAN))
    with tempfile.TemporaryDirectory(prefix="answers-record-") as tmp:
        work = Path(tmp)
        files = work / "files"
        write_files(files, {q.file for q in questions})
        scripts = {q.prompt: replies_for(PLAN[q.id], q.parts, reference_answers(q, read_reference(files / q.file)))
                   for q in questions}
        with ScriptedAnswerServer(scripts) as server:
            source = json.dumps({"backend": "openai", "endpoint": server.url, "model": MODEL})
            settings = RunSettings(files_dir=files, data_dir=work / "data", cassettes=work / "cassettes",
                                   mode="record", source=source, timeout=60, run_id="record", config=CONFIG)
            report = run_benchmark(questions, settings, progress=print)
        report["meta"]["source"] = SOURCE
        expected = expectations(report)
        wrong = {q: (o["correct"], o["kind"]) for q, o in expected["outcomes"].items()
                 if (o["correct"], o["kind"]) != OUTCOMES[PLAN[q]]}
        if wrong:
            raise SystemExit(f"the benchmark did not report the planned outcomes: {wrong}")
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for cassette in sorted((work / "cassettes").glob("*.json")):
            shutil.copy2(cassette, target / cassette.name)
    write_recording(target, source=SOURCE, questions=expected["questions"], session_size=5, config=CONFIG)
    (target / EXPECTED_FILE).write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return expected


if __name__ == "__main__":
    result = record()
    print(f"recorded {len(result['questions'])} questions: {result['correct']} right, failures {result['failures']}")
