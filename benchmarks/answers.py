"""Answer accuracy of the whole pipeline: messy CSVs, analyst questions, closed-form answers.

Ten generated CSV files (``answers_data``), 91 questions with reference answers computed by
pandas and SciPy (``answers_questions``), asked in sessions: for each file, a fresh kernel and a
notebook built on the fly load the file as ``df`` and ask four to six questions in ``%%agent``
cells, in order, in that kernel (``answers_session``). Each answer must state its parts as
``@name[value]``; scoring is strict (``answers_score``). Every run records or replays a cassette
per session, so each model request's prompt tokens are known and a recorded run can be scored
again without a model.

    .venv/bin/python benchmarks/answers.py                      # the embedded model, all questions
    .venv/bin/python benchmarks/answers.py --files sales_orders,housing --questions trial-04
    .venv/bin/python benchmarks/answers.py --profile '{"backend": "openai", "model": "gpt-4o-mini"}'
    .venv/bin/python benchmarks/answers.py --replay build/answers-cassettes   # no model
    .venv/bin/python benchmarks/answers.py --refresh-test-cassette           # see tests/benchmarks/

Prints Markdown tables and writes the full results as JSON (``--out``). The data directory
(``--data-dir``, default ``build/answers-data``) is kept between runs so the embedded model is
assembled into its ``models/`` folder once; each run's sessions get new names and the sessions
of earlier runs are deleted from its store.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.answers_data import FILES, file_spec, read_reference, write_files  # noqa: E402
from benchmarks.answers_questions import QUESTIONS, Question, question, reference_answers  # noqa: E402
from benchmarks.answers_report import markdown, question_row, summarize  # noqa: E402
from benchmarks.answers_score import TurnFacts, expected_parts, score_answer  # noqa: E402
from benchmarks.answers_session import (RunSettings, SessionResult, plan_sessions, prune_earlier_runs,  # noqa: E402
                                        run_session)

__all__ = ["select_questions", "run_benchmark", "expectations", "write_recording", "read_recording", "main"]

BUILD = ROOT / "build"
TEST_CASSETTES = ROOT / "tests" / "benchmarks" / "cassettes"
EXPECTED_FILE = "expected.json"
RECORDING_FILE = "recording.json"


def select_questions(files: Sequence[str] | None = None, ids: Sequence[str] | None = None) -> list[Question]:
    """The questions of the named files and the named questions (all when neither is given),
    in the benchmark's order."""
    if not files and not ids:
        return list(QUESTIONS)
    names = {file_spec(f).name for f in files or ()}
    wanted = {question(i).id for i in ids or ()}
    return [q for q in QUESTIONS if q.file in names or q.id in wanted]


def _evaluate(result: SessionResult, expected: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    cells = {c.question: c for c in result.cells}
    for position, (q, turn, tokens) in enumerate(zip(result.plan.questions, result.turns, result.tokens), 1):
        cell = cells[q.id]
        error = cell.error or (None if turn is not None else "the turn never started")
        facts = TurnFacts(tool_calls=turn.tool_calls if turn else 0,
                          last_tool_status=turn.last_tool_status if turn else None,
                          error=error, timed_out=cell.timed_out)
        verdict = score_answer(expected_parts(q.parts, expected[q.id]), cell.text, facts)
        rows.append(question_row(question=q, session=result.plan.name, position=position,
                                 expected=expected[q.id], verdict=verdict, seconds=cell.seconds, text=cell.text,
                                 timed_out=cell.timed_out, error=error, tool_calls=facts.tool_calls,
                                 last_tool_status=facts.last_tool_status, tokens=tokens))
    return rows


def _session_entry(result: SessionResult) -> dict[str, Any]:
    return {"name": result.plan.name, "file": result.plan.file, "questions": [q.id for q in result.plan.questions],
            "start_seconds": round(result.start_seconds, 3), "peak_rss": result.peak_rss, "error": result.error}


def run_benchmark(questions: Sequence[Question], settings: RunSettings, *, jobs: int = 1, session_size: int = 5,
                  progress: Any = None) -> dict[str, Any]:
    """Generate the files, ask the questions in sessions, score them; the full report as a dict."""
    files = sorted({q.file for q in questions}, key=[s.name for s in FILES].index)
    write_files(settings.files_dir, files)
    frames = {f: read_reference(settings.files_dir / f) for f in files}
    expected = {q.id: reference_answers(q, frames[q.file]) for q in questions}
    plans = plan_sessions(questions, session_size)
    settings.cassettes.mkdir(parents=True, exist_ok=True)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    prune_earlier_runs(settings.data_dir, settings.files_dir)
    started = time.perf_counter()
    done: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}

    def one(plan: Any) -> None:
        result = run_session(plan, settings)
        rows = _evaluate(result, expected)
        done[plan.name] = (rows, _session_entry(result))
        if progress:
            right = sum(r["correct"] for r in rows)
            progress(f"[{len(done)}/{len(plans)}] {plan.name}: {right}/{len(rows)} right, "
                     f"{sum(r['seconds'] for r in rows):.0f} s" + (f" ({result.error})" if result.error else ""))

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, plans))
    rows = [r for p in plans for r in done[p.name][0]]
    sessions = [done[p.name][1] for p in plans]
    return {"meta": {"mode": settings.mode, "source": settings.source, "cassettes": str(settings.cassettes),
                     "data_dir": str(settings.data_dir), "run_id": settings.run_id, "jobs": jobs,
                     "per_question_timeout": settings.timeout, "wall_seconds": round(time.perf_counter() - started, 1)},
            "summary": summarize(rows, sessions), "questions": rows, "sessions": sessions}


def expectations(report: dict[str, Any]) -> dict[str, Any]:
    """What a replay of ``report``'s cassettes must reproduce: each question's verdict and kind.

    A turn that timed out was cut off in the middle of a request that was never recorded, so
    its replay ends with a missing recording: an ``error``."""
    rows = report["questions"]
    outcomes = {r["id"]: {"correct": r["correct"], "kind": "error" if r["kind"] == "timeout" else r["kind"]}
                for r in rows}
    failures = {kind: sum(1 for o in outcomes.values() if o["kind"] == kind) for kind in report["summary"]["failures"]}
    return {"questions": [r["id"] for r in rows], "source": report["meta"]["source"], "outcomes": outcomes,
            "correct": sum(r["correct"] for r in rows), "failures": failures}


def write_recording(cassettes: Path, *, source: str | None, questions: Sequence[str], session_size: int) -> None:
    """Note beside the cassettes what they were recorded from and for which questions."""
    cassettes.mkdir(parents=True, exist_ok=True)
    body = {"source": source, "questions": list(questions), "session_size": session_size}
    (cassettes / RECORDING_FILE).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def read_recording(cassettes: Path) -> dict[str, Any]:
    """What :func:`write_recording` noted: the source to replay with (a profile recorded by name
    lives in the recording machine's configuration, so only JSON is kept), the questions asked
    and the session size; empty values when nothing was noted."""
    path = cassettes / RECORDING_FILE
    body = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    source = body.get("source")
    return {"source": source if isinstance(source, str) and source.lstrip().startswith("{") else None,
            "questions": list(body.get("questions") or []), "session_size": int(body.get("session_size") or 5)}


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", help="comma-separated file names or stems (default: all, or with --replay "
                                        "the recorded questions)")
    parser.add_argument("--questions", help="comma-separated question ids (added to --files)")
    parser.add_argument("--profile", help="the profile to record from, as JSON or a configured name "
                                          "(default: the embedded model)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--record", type=Path, metavar="DIR", help="record the cassettes into DIR "
                                                                  "(default: build/answers-cassettes)")
    mode.add_argument("--replay", type=Path, metavar="DIR", help="replay the cassettes in DIR; no model is asked")
    mode.add_argument("--refresh-test-cassette", action="store_true",
                      help="re-record tests/benchmarks/cassettes (its questions) from --profile and rewrite "
                           "the outcomes the replay test expects")
    parser.add_argument("--out", type=Path, default=BUILD / "answers-results.json", help="results JSON")
    parser.add_argument("--per-question-timeout", type=float, default=300.0, metavar="SECONDS")
    parser.add_argument("--jobs", type=int, default=1, help="sessions run at once")
    parser.add_argument("--session-size", type=int, help="questions per session at most (default 5, or as recorded)")
    parser.add_argument("--data-dir", type=Path, default=BUILD / "answers-data",
                        help="the data directory the kernels share (kept: holds the assembled model)")
    parser.add_argument("--data-dir-per-kernel", action="store_true",
                        help="a fresh data directory per kernel (its models/ links to --data-dir's)")
    parser.add_argument("--files-dir", type=Path, default=BUILD / "answers-files", help="where the CSVs go")
    parser.add_argument("--memory", action="store_true", help="sample the peak RSS of kernels and model servers")
    parser.add_argument("--list", action="store_true", help="list the selected questions and exit")
    parser.add_argument("--write-files", type=Path, metavar="DIR", help="only write the CSV files into DIR")
    parser.add_argument("--data-sharing", choices=("rows", "aggregates", "schema"),
                        help="what the model may read of the data, with the model counted as remote "
                             "(measures the cost of each level; see docs/security.md)")
    return parser.parse_args(argv)


def _settings(ns: argparse.Namespace, cassettes: Path, source: str | None) -> RunSettings:
    return RunSettings(files_dir=ns.files_dir.resolve(), data_dir=ns.data_dir.resolve(), cassettes=cassettes.resolve(),
                       mode="replay" if ns.replay else "record", source=source, timeout=ns.per_question_timeout,
                       run_id=f"{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}",
                       per_kernel_data=ns.data_dir_per_kernel, memory=ns.memory,
                       env={"SHELL_AGENT_LAB_DATA_SHARING": ns.data_sharing, "SHELL_AGENT_LAB_TREAT_AS_REMOTE": "1"}
                       if ns.data_sharing else {})


def main(argv: Sequence[str] | None = None) -> int:
    ns = _parse_args(argv)
    if ns.write_files:
        for path in write_files(ns.write_files):
            print(path)
        return 0
    cassettes = ns.replay or (TEST_CASSETTES if ns.refresh_test_cassette else ns.record) or BUILD / "answers-cassettes"
    recorded = read_recording(cassettes) if ns.replay else {}
    if ns.refresh_test_cassette:
        ids = json.loads((TEST_CASSETTES / EXPECTED_FILE).read_text(encoding="utf-8"))["questions"]
        questions = select_questions(None, ids)
    elif ns.files or ns.questions:
        try:
            questions = select_questions(ns.files.split(",") if ns.files else None,
                                         ns.questions.split(",") if ns.questions else None)
        except KeyError as exc:
            raise SystemExit(f"answers.py: {exc.args[0]}") from None
    else:
        questions = select_questions(None, recorded.get("questions") or None)
    session_size = ns.session_size or recorded.get("session_size") or 5
    if ns.list:
        for q in questions:
            print(f"{q.id}\t{q.category}\t{q.file}\t{q.prompt}")
        return 0
    if ns.profile and ns.profile.lstrip().startswith("{"):
        json.loads(ns.profile)              # a typo fails here, not in twenty kernels
    settings = _settings(ns, cassettes, recorded.get("source") if ns.replay else ns.profile)
    if settings.mode == "record":
        write_recording(settings.cassettes, source=ns.profile, questions=[q.id for q in questions],
                        session_size=session_size)
    report = run_benchmark(questions, settings, jobs=ns.jobs, session_size=session_size,
                           progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(markdown(report["summary"], report["questions"]))
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    ns.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"results: {ns.out}", file=sys.stderr)
    if ns.refresh_test_cassette:
        planned = {s["name"] for s in report["sessions"]}
        for stale in settings.cassettes.glob("*.json"):
            if stale.stem not in planned and stale.name not in (EXPECTED_FILE, RECORDING_FILE):
                stale.unlink()
        (TEST_CASSETTES / EXPECTED_FILE).write_text(
            json.dumps(expectations(report), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
