"""The bare-model baseline: the prompt, code extraction, the subprocess run, one retry with the
error, scoring, recording and replay — with a scripted model on a real generated file."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from benchmarks import answers_sets
from benchmarks.answers import attach_baseline, run_baseline
from benchmarks.answers_bare import (ask_bare, bare_backend, bare_messages, dtypes_text, extract_code, run_bare,
                                     run_code)
from benchmarks.answers_report import margin, markdown_baseline, summarize
from benchmarks.answers_session import RunSettings
from benchmarks.heldout_data import write_files
from benchmarks.heldout_questions import heldout_question
from shell_agent_lab.llm.scripted import ScriptedBackend

CLAIMS = "claims register.csv"
LAG = "print('Answer:', int((df['Report Lag Days'] > 7).sum()))"
EVENING = "n = (pd.to_datetime(df['Incident Time']).dt.hour >= 18).sum()\nprint(f'@evening_incidents[{n}]')"


def block(code: str, prose: str = "Here is the code:") -> str:
    return f"{prose}\n```python\n{code}\n```\n"


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bare")
    (path,) = write_files(folder, [CLAIMS])
    return path


@pytest.mark.parametrize("text, code", [
    ("```python\nprint(1)\n```", "print(1)"),
    ("Sure.\n```py\nx = 2\nprint(x)\n```\nThat prints 2.", "x = 2\nprint(x)"),
    ("```\nprint(3)\n```", "print(3)"),
    ("```python\nprint(4)\n```\n```python\nprint(5)\n```", "print(4)"),
    ("```python\nprint(6)\n", "print(6)"),          # cut off before the closing fence
    ("print(7)", None), ("```python\n\n```", None),
])
def test_the_first_code_block_is_extracted(text, code):
    assert extract_code(text) == code


def test_the_prompt_holds_the_dtypes_and_the_question_and_nothing_of_the_rows(claims):
    dtypes = dtypes_text(claims)
    assert dtypes == str(pd.read_csv(claims).dtypes)
    q = heldout_question("cl-07")
    system, user = bare_messages(q.prompt, dtypes)
    assert system.role == "system" and "ONE Python code block" in system.content
    assert user.role == "user" and dtypes in user.content and q.prompt in user.content
    assert "CLM/" not in user.content            # no row of the file is shown


def test_code_runs_after_reading_the_file(claims):
    ok = run_code(LAG, claims)
    assert ok.error is None and ok.stdout.strip() == "Answer: 639"
    failed = run_code("print(df['no such column'])", claims)
    assert "KeyError" in failed.error and not failed.timed_out
    assert "answers-bare-" not in failed.error        # no temporary path: the fix request replays
    slow = run_code("import time\nprint('started', flush=True)\ntime.sleep(30)", claims, timeout=3)
    assert slow.timed_out and "3 s" in slow.error and slow.stdout.strip() == "started"


def test_a_failing_block_is_sent_back_once_with_its_error_and_the_fix_is_run(claims):
    broken = "print('Answer:', int((df['Report Lag'] > 7).sum()))"
    model = ScriptedBackend([block(broken), block(LAG, "Fixed:")])
    answer = ask_bare(model, heldout_question("cl-07").prompt, claims, dtypes_text(claims))
    assert answer.text.strip() == "Answer: 639" and answer.runs == 2 and answer.error is None
    retry = model.requests[1]
    assert [m.role for m in retry.messages] == ["system", "user", "assistant", "user"]
    assert broken in retry.last_user and "KeyError" in retry.last_user
    assert all(r.options.temperature == 0.0 for r in model.requests)
    assert answer.codes == [broken, LAG]


def test_there_is_no_third_attempt(claims):
    model = ScriptedBackend([block("raise ValueError('first')"), block("raise ValueError('second')"), block(LAG)])
    answer = ask_bare(model, "q", claims, "dtypes")
    assert answer.runs == 2 and "second" in answer.error and model.pending == 1


def test_a_reply_without_code_is_asked_again(claims):
    model = ScriptedBackend(["The answer is 639.", block(LAG)])
    answer = ask_bare(model, "q", claims, "dtypes")
    assert answer.runs == 1 and answer.text.strip() == "Answer: 639"
    assert "no Python code block" in model.requests[1].last_user


def test_printed_output_is_scored_like_the_products_answer(claims):
    questions = [heldout_question("cl-07"), heldout_question("cl-03"), heldout_question("cl-06")]
    expected = answers_sets.expected_answers(questions, claims.parent)
    model = ScriptedBackend([block(LAG), block(EVENING), block("print('no idea')"), block("print('still none')")])
    rows = run_bare(questions, model, claims.parent, expected)
    assert [(r["id"], r["correct"], r["kind"]) for r in rows] == [
        ("cl-07", True, None), ("cl-03", True, None), ("cl-06", False, "format")]
    assert rows[0]["set"] == "heldout" and rows[0]["style"] == "natural" and rows[1]["style"] == "closed"
    assert all(r["seconds"] > 0 and r["code"] for r in rows)
    assert rows[1]["answer"] == {"evening_incidents": "501"}


def test_a_model_failure_is_an_error_not_a_crash(claims):
    q = heldout_question("cl-07")
    expected = answers_sets.expected_answers([q], claims.parent)
    (row,) = run_bare([q], ScriptedBackend([RuntimeError("server down")]), claims.parent, expected)
    assert not row["correct"] and row["kind"] == "error" and "server down" in row["error"]


def test_the_baseline_records_and_replays_through_the_model_layer(claims, tmp_path):
    q = heldout_question("cl-07")
    source = json.dumps({"backend": "scripted", "options": {"responses": [block(LAG)]}})
    settings = RunSettings(files_dir=claims.parent, data_dir=tmp_path / "data", cassettes=tmp_path / "cassettes",
                           mode="record", source=source)
    recorded = run_baseline([q], settings)
    assert recorded["summary"]["correct"] == 1
    assert (tmp_path / "cassettes" / "bare.json").exists()
    replay = RunSettings(files_dir=claims.parent, data_dir=tmp_path / "data", cassettes=tmp_path / "cassettes",
                         mode="replay", source=None)
    again = run_baseline([q], replay)
    assert [r["correct"] for r in again["questions"]] == [True]
    other = heldout_question("cl-06")               # never recorded: a miss, not a real model
    with bare_backend(None, tmp_path / "cassettes", "replay", tmp_path / "data") as model:
        (row,) = run_bare([other], model, claims.parent, answers_sets.expected_answers([other], claims.parent))
    assert row["kind"] == "error" and "ReplayMissError" in row["error"]
    with pytest.raises(SystemExit, match="no bare-model recording"):
        run_baseline([q], RunSettings(files_dir=claims.parent, data_dir=tmp_path / "data",
                                      cassettes=tmp_path / "nothing", mode="replay"))


def _row(qid, correct, *, set_name="heldout", style="natural", category="counts", position=1, seconds=1.0):
    return {"id": qid, "set": set_name, "style": style, "file": "f.csv", "category": category, "session": "s",
            "position": position, "first_in_session": position == 1, "correct": correct,
            "kind": None if correct else "wrong_number", "seconds": seconds, "prompt_tokens": [100],
            "answer": {}, "expected": {}}


def test_the_report_splits_by_set_style_position_and_shows_the_margin():
    product = [_row("a", True), _row("b", True, position=2, seconds=3.0), _row("c", False, style="closed", position=4),
               _row("d", True, set_name="dev", style="closed", category="filter", seconds=9.0)]
    bare = [_row("a", False), _row("b", True), _row("c", False, style="closed"),
            _row("d", False, set_name="dev", style="closed", category="filter")]
    summary = summarize(product)
    assert summary["by_set"]["heldout"]["n"] == 3 and summary["by_set"]["dev"]["correct"] == 1
    assert summary["by_set_style"]["heldout/natural"]["accuracy"] == 1.0
    assert list(summary["by_position"]) == ["1", "2", "4+"]
    assert summary["seconds"]["max"] == 9.0 and summary["seconds"]["p90"] == 9.0
    m = margin(product, bare)
    assert m["all"] == {"n": 4, "product": 3, "baseline": 1, "margin_points": 50.0}
    assert m["by_set_style"]["heldout/natural"]["margin_points"] == 50.0
    assert m["by_category"]["filter"]["baseline"] == 0
    report = attach_baseline({"questions": product}, {"name": "bare", "summary": summarize(bare), "questions": bare})
    text = markdown_baseline("bare", report["baseline"]["summary"], bare, report["baseline"]["margin"])
    assert "| all | 4 | 3 | 1 | +50.0 |" in text and "| heldout/natural | 2 | 2 | 1 | +50.0 |" in text
