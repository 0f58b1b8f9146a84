"""Answer accuracy of the whole pipeline: messy CSVs, analyst questions, closed-form answers.

Two question sets (``answers_sets``). The development set (``--set dev``, the default): ten
generated CSV files (``answers_data``), 91 questions with reference answers computed by pandas and
SciPy (``answers_questions``). The held-out set (``--set heldout``): eight more files and 80
questions from a second, independent generator (``heldout_data``, ``heldout_questions``), half
closed-form, half natural questions answered on a final ``Answer:`` line (``heldout_score``);
it is for measuring, not for tuning. The external set (``--set external``; ``external_set``): 75
questions over sixteen third-party tables, written apart from the product (``benchmarks/external``),
scored by the set's own ``score.py``; each natural question is asked once per answer-format
wording (``--wordings``: ids of ``benchmarks/external/wordings.json``, or ``all``; default
``plain``), each table is loaded under its questions' variable name, and the report adds the
accuracy per wording and the spread between the best and the worst. Its per-question lines never
show what was answered or expected (the JSON does), and ``--list`` shows no question text: the set
stays unread until it is recorded. Questions are asked in sessions: for each file, a fresh
kernel and a notebook built on the fly load the file as ``df`` and ask the questions in
``%%agent`` cells, in order, in that kernel (``answers_session``). Closed-form answers must state
their parts as ``@name[value]``; scoring is strict (``answers_score``). Every run records or
replays a cassette per session, so each model request's prompt tokens are known and a recorded
run can be scored again without a model.

``--baseline bare`` also asks every question of the run the bare model's way (``answers_bare``:
the same model, no product, one code block run in a subprocess) and reports the product's margin
over it; ``--baseline-only`` skips the product.

    .venv/bin/python benchmarks/answers.py                      # the embedded model, all dev questions
    .venv/bin/python benchmarks/answers.py --files sales_orders,housing --questions trial-04
    .venv/bin/python benchmarks/answers.py --set heldout --baseline bare
    .venv/bin/python benchmarks/answers.py --set external --wordings all --baseline bare \
        --record build/external-cassettes --out build/external-results.json
    .venv/bin/python benchmarks/answers.py --replay build/external-cassettes --baseline bare \
        --out build/external-replay.json
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
import dataclasses
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

from benchmarks import answers_sets, external_set  # noqa: E402
from benchmarks.answers_data import write_files  # noqa: E402
from benchmarks.answers_report import margin, markdown, markdown_baseline, question_row, summarize  # noqa: E402
from benchmarks.answers_score import TurnFacts  # noqa: E402
from benchmarks.answers_session import RunSettings, SessionResult, prune_earlier_runs, run_session  # noqa: E402

__all__ = ["select_questions", "run_benchmark", "run_baseline", "expectations", "write_recording", "read_recording",
           "main"]

BUILD = ROOT / "build"
TEST_CASSETTES = ROOT / "tests" / "benchmarks" / "cassettes"
EXPECTED_FILE = "expected.json"
RECORDING_FILE = "recording.json"


def select_questions(files: Sequence[str] | None = None, ids: Sequence[str] | None = None,
                     sets: Sequence[str] = ("dev",),
                     wordings: Sequence[str] = external_set.DEFAULT_WORDINGS) -> list[Any]:
    """The questions of ``sets`` in the named files and with the named ids (all of the sets'
    questions when neither is given), in the benchmark's order; the external set's natural
    questions once per wording of ``wordings``."""
    return answers_sets.select(sets, files, ids, wordings)


def _evaluate(result: SessionResult, expected: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    cells = {c.question: c for c in result.cells}
    for position, (q, turn, tokens) in enumerate(zip(result.plan.questions, result.turns, result.tokens), 1):
        cell = cells[q.id]
        error = cell.error or (None if turn is not None else "the turn never started")
        facts = TurnFacts(tool_calls=turn.tool_calls if turn else 0,
                          last_tool_status=turn.last_tool_status if turn else None,
                          error=error, timed_out=cell.timed_out)
        verdict = answers_sets.score_question(q, expected[q.id], cell.text, facts)
        rows.append(question_row(question=q, session=result.plan.name, position=position,
                                 expected=expected[q.id], verdict=verdict, seconds=cell.seconds, text=cell.text,
                                 timed_out=cell.timed_out, error=error, tool_calls=facts.tool_calls,
                                 last_tool_status=facts.last_tool_status, tokens=tokens,
                                 set_name=answers_sets.set_of(q), style=answers_sets.style_of(q),
                                 wording=answers_sets.wording_of(q)))
    return rows


def _session_entry(result: SessionResult) -> dict[str, Any]:
    return {"name": result.plan.name, "file": result.plan.file, "frame": result.plan.frame,
            "questions": [q.id for q in result.plan.questions],
            "start_seconds": round(result.start_seconds, 3), "peak_rss": result.peak_rss, "error": result.error}


def run_benchmark(questions: Sequence[Any], settings: RunSettings, *, jobs: int = 1, session_size: int = 5,
                  progress: Any = None) -> dict[str, Any]:
    """Generate the files, ask the questions in sessions, score them; the full report as a dict."""
    answers_sets.write_files(settings.files_dir, questions)
    expected = answers_sets.expected_answers(questions, settings.files_dir)
    plans = answers_sets.plan(questions, session_size)
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
                     "sets": sorted({answers_sets.set_of(q) for q in questions}),
                     "external_folder": external_set.folder(),
                     "wordings": _wordings_of(questions),
                     "per_question_timeout": settings.timeout, "wall_seconds": round(time.perf_counter() - started, 1)},
            "summary": summarize(rows, sessions), "questions": rows, "sessions": sessions}


def _wordings_of(questions: Sequence[Any]) -> list[str]:
    return [w for w in dict.fromkeys(answers_sets.wording_of(q) for q in questions) if w]


def run_baseline(questions: Sequence[Any], settings: RunSettings, *, backend: Any = None,
                 progress: Any = None) -> dict[str, Any]:
    """Ask ``questions`` the bare model's way (``answers_bare``) and score them: the baseline's
    ``name``, ``summary`` and ``questions`` rows. ``backend`` defaults to ``settings.source``
    (the embedded model) recorded to or replayed from ``settings.cassettes``."""
    from benchmarks.answers_bare import bare_backend, run_bare

    answers_sets.write_files(settings.files_dir, questions)
    expected = answers_sets.expected_answers(questions, settings.files_dir)
    started = time.perf_counter()
    if backend is not None:
        rows = run_bare(questions, backend, settings.files_dir, expected, progress=progress,
                        score=answers_sets.score_question)
    else:
        settings.cassettes.mkdir(parents=True, exist_ok=True)
        with bare_backend(settings.source, settings.cassettes, settings.mode, settings.data_dir) as model:
            rows = run_bare(questions, model, settings.files_dir, expected, progress=progress,
                            score=answers_sets.score_question)
    return {"name": "bare", "wall_seconds": round(time.perf_counter() - started, 1),
            "summary": summarize(rows), "questions": rows}


def attach_baseline(report: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """``report`` with the baseline and the product's margin over it on the same questions."""
    report["baseline"] = {**baseline, "margin": margin(report["questions"], baseline["questions"])}
    return report


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


def write_recording(cassettes: Path, *, source: str | None, questions: Sequence[str], session_size: int,
                    config: Sequence[str] = ()) -> None:
    """Note beside the cassettes what they were recorded from, for which questions and with
    which ShellAgent settings (a replay uses the same)."""
    cassettes.mkdir(parents=True, exist_ok=True)
    body: dict[str, Any] = {"source": source, "questions": list(questions), "session_size": session_size}
    if config:
        body["config"] = list(config)
    (cassettes / RECORDING_FILE).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def read_recording(cassettes: Path) -> dict[str, Any]:
    """What :func:`write_recording` noted: the source to replay with (a profile recorded by name
    lives in the recording machine's configuration, so only JSON is kept), the questions asked
    and the session size; empty values when nothing was noted."""
    path = cassettes / RECORDING_FILE
    body = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    source = body.get("source")
    return {"source": source if isinstance(source, str) and source.lstrip().startswith("{") else None,
            "questions": list(body.get("questions") or []), "session_size": int(body.get("session_size") or 5),
            "config": [str(c) for c in body.get("config") or []]}


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="question_set", choices=("dev", "heldout", "both", "external"), default="dev",
                        help="the question set: the development set (default), the held-out set, both, or the "
                             "external set (third-party tables, benchmarks/external)")
    parser.add_argument("--external", choices=external_set.FOLDERS, default=external_set.FOLDERS[0],
                        help="with --set external: which external set (a folder of benchmarks/)")
    parser.add_argument("--wordings", help="external set: the answer-format wordings natural questions are asked "
                                           "with, comma-separated ids of benchmarks/external/wordings.json or 'all' "
                                           f"(default: {','.join(external_set.DEFAULT_WORDINGS)})")
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
    parser.add_argument("--baseline", choices=("bare",), help="also ask the questions the bare model's way "
                                                               "(same model, no product) and report the margin")
    parser.add_argument("--baseline-only", action="store_true", help="with --baseline: skip the product run")
    parser.add_argument("--out", type=Path, default=BUILD / "answers-results.json", help="results JSON")
    parser.add_argument("--per-question-timeout", type=float, default=300.0, metavar="SECONDS")
    parser.add_argument("--jobs", type=int, default=1, help="sessions run at once")
    parser.add_argument("--session-size", type=int, help="questions per session at most (default 5, or as recorded)")
    parser.add_argument("--data-dir", type=Path, default=BUILD / "answers-data",
                        help="the data directory the kernels share (kept: holds the assembled model)")
    parser.add_argument("--data-dir-per-kernel", action="store_true",
                        help="a fresh data directory per kernel (its models/ links to --data-dir's)")
    parser.add_argument("--files-dir", type=Path, default=BUILD / "answers-files", help="where the CSVs go")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                        help="a ShellAgent setting for every kernel, e.g. --config 'answer_strategy=\"tools\"'")
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
                       config=[c.replace("=", " = ", 1) for c in ns.config],
                       env={"SHELL_AGENT_LAB_DATA_SHARING": ns.data_sharing, "SHELL_AGENT_LAB_TREAT_AS_REMOTE": "1"}
                       if ns.data_sharing else {})


def main(argv: Sequence[str] | None = None) -> int:
    ns = _parse_args(argv)
    external_set.use(ns.external)
    try:
        wordings = external_set.parse_wordings(ns.wordings)
    except KeyError as exc:
        raise SystemExit(f"answers.py: {exc.args[0]}") from None
    if ns.write_files:
        if ns.question_set == "external":
            for path in external_set.write_files(ns.write_files, external_set.items(wordings)):
                print(path)
            return 0
        if ns.question_set in ("dev", "both"):
            for path in write_files(ns.write_files):
                print(path)
        if ns.question_set in ("heldout", "both"):
            from benchmarks.heldout_data import write_files as write_heldout

            for path in write_heldout(ns.write_files):
                print(path)
        return 0
    sets = answers_sets.SETS if ns.question_set == "both" else (ns.question_set,)
    cassettes = ns.replay or (TEST_CASSETTES if ns.refresh_test_cassette else ns.record) or BUILD / "answers-cassettes"
    recorded = read_recording(cassettes) if ns.replay else {}
    if ns.refresh_test_cassette:
        ids = json.loads((TEST_CASSETTES / EXPECTED_FILE).read_text(encoding="utf-8"))["questions"]
        questions = select_questions(None, ids)
    elif ns.files or ns.questions:
        try:
            questions = select_questions(ns.files.split(",") if ns.files else None,
                                         ns.questions.split(",") if ns.questions else None, sets, wordings)
        except KeyError as exc:
            raise SystemExit(f"answers.py: {exc.args[0]}") from None
    else:
        recorded_ids = recorded.get("questions") or None
        questions = select_questions(None, recorded_ids, answers_sets.ALL_SETS if recorded_ids else sets, wordings)
    session_size = ns.session_size or recorded.get("session_size") or 5
    if ns.list:
        for q in questions:
            if answers_sets.set_of(q) == external_set.SET_NAME:        # the set stays unread: no text
                print(f"{q.id}\t{external_set.SET_NAME}\t{q.style}\t{q.category}\t{q.file}\t{q.frame}\t{q.wording or ''}")
                continue
            print(f"{q.id}\t{answers_sets.set_of(q)}\t{answers_sets.style_of(q)}\t{q.category}\t{q.file}\t{q.prompt}")
        return 0
    if ns.baseline_only and not ns.baseline:
        raise SystemExit("answers.py: --baseline-only needs --baseline bare")
    if ns.profile and ns.profile.lstrip().startswith("{"):
        json.loads(ns.profile)              # a typo fails here, not in twenty kernels
    settings = _settings(ns, cassettes, recorded.get("source") if ns.replay else ns.profile)
    if ns.replay and not ns.config and recorded.get("config"):
        settings = dataclasses.replace(settings, config=recorded["config"])    # replayed as recorded
    if settings.mode == "record":
        write_recording(settings.cassettes, source=ns.profile, questions=[q.id for q in questions],
                        session_size=session_size, config=settings.config)
    progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if ns.baseline_only:
        baseline = run_baseline(questions, settings, progress=progress)
        report = {"meta": {"mode": settings.mode, "source": settings.source, "cassettes": str(settings.cassettes),
                           "sets": sorted({answers_sets.set_of(q) for q in questions}),
                     "external_folder": external_set.folder(),
                           "wordings": _wordings_of(questions), "product": False},
                  "summary": baseline["summary"], "questions": [], "sessions": [],
                  "baseline": {**baseline, "margin": margin([], baseline["questions"])}}
        print(markdown_baseline("bare", baseline["summary"], baseline["questions"], report["baseline"]["margin"]))
    else:
        report = run_benchmark(questions, settings, jobs=ns.jobs, session_size=session_size, progress=progress)
        if ns.baseline:
            attach_baseline(report, run_baseline(questions, settings, progress=progress))
        print(markdown(report["summary"], report["questions"]))
        if ns.baseline:
            b = report["baseline"]
            print(markdown_baseline("bare", b["summary"], b["questions"], b["margin"]))
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
