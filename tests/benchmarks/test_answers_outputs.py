"""Reading back a benchmark session (cell outputs, store records, cassette usage) and the report."""
from __future__ import annotations

from types import SimpleNamespace

from benchmarks.answers import expectations
from benchmarks.answers_outputs import answer_text, cell_error, prompt_tokens, turn_facts
from benchmarks.answers_questions import question
from benchmarks.answers_report import markdown, percentile, question_row, summarize
from benchmarks.answers_score import Expected, TurnFacts, score_answer


def _md(text: str) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": {"text/markdown": text, "text/plain": text}}


TOOL_LINE = {"output_type": "display_data", "data": {"text/plain": "✓ query_sql — done: columns n @n[99]"}}
TABLE = {"output_type": "display_data", "data": {"text/plain": "   n\n0  3", "text/html": "<table>@n[98]</table>"}}


def test_the_answer_is_the_markdown_the_cell_showed():
    outputs = [TOOL_LINE, _md("There are 3 rows. @n[3]"), TABLE, _md("SQL this turn ran: ...")]
    assert answer_text(outputs) == "There are 3 rows. @n[3]\n\nSQL this turn ran: ..."
    assert answer_text([{"output_type": "display_data", "data": {"text/markdown": ["@n", "[3]"]}}]) == "@n[3]"
    assert answer_text([]) == ""


def test_a_cell_error_is_found_in_its_outputs():
    assert cell_error([_md("@n[3]")]) is None
    assert cell_error([{"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}]) == \
        "ValueError: bad"
    assert cell_error([{"output_type": "stream", "name": "stderr",
                        "text": "UsageError: shell-agent-lab cannot start: no model\n"}]) == \
        "UsageError: shell-agent-lab cannot start: no model"
    assert cell_error([{"output_type": "stream", "name": "stderr", "text": "a warning\n"}]) is None
    assert cell_error([_md("Partial text\n\n**Error:** the server refused the request")]) == \
        "the server refused the request"


def _record(role: str, content: str = "", tool_calls=None, status=None) -> SimpleNamespace:
    return SimpleNamespace(role=role, content=content, tool_calls=tool_calls, status=status)


def test_records_split_into_turns_matched_to_the_questions_in_order():
    records = [
        _record("user", "Q one? End your answer with @a[value]."),
        _record("assistant", "", [{"name": "query_sql"}, {"name": "describe_data"}]),
        _record("tool", "| n |", status="success"), _record("tool", "Error: no such column", status="error"),
        _record("assistant", "", [{"name": "query_sql"}]), _record("tool", "| 3 |", status="success"),
        _record("assistant", "@a[3]"),
        _record("user", "[wrapped] Q two?"),
        _record("assistant", "@b[1]"),
        _record("user", "Q four?"),
    ]
    one, two, three, four = turn_facts(records, ["Q one? End your answer with  @a[value].", "Q two?", "Q three?",
                                                 "Q four?"])
    assert (one.tool_calls, one.tool_statuses, one.last_tool_status, one.final_text) == \
        (3, ["success", "error", "success"], "success", "@a[3]")
    assert (two.tool_calls, two.last_tool_status, two.final_text) == (0, None, "@b[1]")
    assert three is None                        # its cell failed before the turn began
    assert four is not None and four.final_text == ""


def test_prompt_tokens_come_from_each_question_s_requests():
    def request(user: str, tokens: int, *earlier: str) -> dict:
        messages = [{"role": "system", "content": "(system prompt)"}]
        messages += [{"role": "user", "content": e} for e in earlier]
        messages.append({"role": "user", "content": f"[Time: *]\n\n<user_data_NONCE>{user}</user_data_NONCE>"})
        return {"request": {"messages": messages}, "response": {"usage": {"input_tokens": tokens}}}

    interactions = [request("Q one?", 500), request("Q one?", 620), request("Title this", 90),
                    request("Q two?", 800, "Q one?")]
    assert prompt_tokens(interactions, ["Q one?", "Q two?", "Q three?"]) == [[500, 620], [800], []]


def _row(qid: str, *, correct: bool, kind=None, seconds=1.0, position=1, tokens=(100,), category=None):
    q = question(qid)
    verdict = score_answer([Expected("x", "int", 1)], "@x[1]" if correct else "@x[2]",
                           TurnFacts(tool_calls=1, last_tool_status="success"))
    row = question_row(question=q, session=f"{q.file}-1", position=position, expected={"x": 1}, verdict=verdict,
                       seconds=seconds, text="", timed_out=kind == "timeout", error=None, tool_calls=1,
                       last_tool_status="success", tokens=list(tokens))
    row["kind"] = kind if not correct else None
    if category:
        row["category"] = category
    return row


def test_the_summary_counts_accuracy_seconds_tokens_and_failures():
    rows = [_row("sales-01", correct=True, seconds=10, tokens=(900, 1200)),
            _row("sales-02", correct=False, kind="wrong_number", seconds=2, position=2, tokens=(1000,)),
            _row("sales-03", correct=True, seconds=4, position=3, tokens=()),
            _row("trial-01", correct=False, kind="timeout", seconds=300, tokens=(700, 800, 2000))]
    sessions = [{"start_seconds": 5.0, "peak_rss": {"kernel_tree": 300 * 2 ** 20, "model_server": 0}},
                {"start_seconds": 7.0, "peak_rss": {"kernel_tree": 200 * 2 ** 20, "model_server": 1024 * 2 ** 20}}]
    s = summarize(rows, sessions)
    assert (s["n"], s["correct"], s["accuracy"]) == (4, 2, 0.5)
    assert s["first_in_session"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert s["later_in_session"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert s["by_category"]["counts"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert s["failures"] == {"no_tool_call": 0, "tool_error": 0, "wrong_number": 1, "format": 0, "timeout": 1,
                             "error": 0}
    assert s["seconds"]["median"] == 7.0 and s["seconds"]["p95"] == 300
    assert s["seconds"]["first_in_kernel_median"] == 155.0 and s["seconds"]["later_median"] == 3.0
    assert s["prompt_tokens"] == {"requests": 6, "first_request_median": 900, "first_request_max": 1000,
                                  "median": 950.0, "max": 2000}
    assert s["kernel_start_seconds"] == {"median": 6.0, "max": 7.0}
    assert s["peak_rss_mb"] == {"kernel_tree": 300.0, "model_server": 1024.0}
    report = markdown(s, rows)
    assert "| accuracy | 2/4 (50.0%) |" in report
    assert "| wrong_number | 1 |" in report
    assert "| sales-02 | wrong | wrong_number | 2.0 | x=2 | x=1 |" in report


def test_percentiles_are_nearest_rank():
    assert percentile([], 95) is None
    assert percentile([3.0], 95) == 3.0
    assert percentile(list(range(1, 21)), 95) == 19
    assert percentile(list(range(1, 21)), 50) == 10


def test_a_timed_out_question_replays_as_an_error():
    report = {"meta": {"source": None},
              "questions": [_row("sales-01", correct=True), _row("sales-02", correct=False, kind="timeout")],
              "summary": {"failures": {"timeout": 1, "error": 0}}}
    expected = expectations(report)
    assert expected["outcomes"]["sales-02"] == {"correct": False, "kind": "error"}
    assert expected["failures"] == {"timeout": 0, "error": 1}
    assert expected["correct"] == 1 and expected["questions"] == ["sales-01", "sales-02"]
