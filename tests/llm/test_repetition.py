"""A reply that loops is stopped while it streams: the pure detector, then the OpenAI-compatible
backend against a fake server that never stops, then a whole turn through the agent."""
from __future__ import annotations

import time

import pytest

from shell_agent_lab.llm.errors import ToolArgumentsError
from shell_agent_lab.llm.openai_backend import CUT_CALL_MESSAGE, REPETITION_FINISH, OpenAIBackend
from shell_agent_lab.llm.repetition import RepetitionGuard
from shell_agent_lab.llm.types import Message, ToolSpec
from tests.support.fake_model_servers import FakeOpenAIServer, Reply, call

SQL_TOOL = ToolSpec("query_sql", "Run SQL.", {"type": "object", "properties": {"sql": {"type": "string"}},
                                              "required": ["sql"]})


def feed_in_pieces(guard: RepetitionGuard, text: str, size: int = 3) -> int | None:
    """Feed ``text`` a few characters at a time; the offset at which the guard fired."""
    for start in range(0, len(text), size):
        if guard.feed(text[start:start + size]):
            return start
    return None


# -- the detector --------------------------------------------------------------------------------

def test_a_repeated_sql_clause_is_caught_early_and_cut_to_its_first_copy():
    guard = RepetitionGuard()
    text = "SELECT Team FROM t WHERE Wins > 3" + " AND Wins IS NOT NULL" * 200
    fired = feed_in_pieces(guard, text)
    assert fired is not None and fired < 300          # 8 copies of a 5-word clause, not 200
    assert guard.cut() == "SELECT Team FROM t WHERE Wins > 3 AND Wins IS NOT NULL"


def test_a_tool_call_written_forty_times_keeps_one():
    one = '<tool_call>\n{"name": "describe_data", "arguments": {"table_name": "df"}}\n</tool_call>\n'
    guard = RepetitionGuard()
    fired = feed_in_pieces(guard, "Let me look.\n" + one * 40, size=5)
    assert fired is not None and fired < len(one) * 5
    assert guard.cut() == "Let me look.\n" + one.rstrip("\n")


def test_a_repeated_sentence_and_blank_lines_are_loops():
    guard = RepetitionGuard()
    assert feed_in_pieces(guard, "The busiest day was Friday, with 31 sales. " * 10) is not None
    assert guard.cut() == "The busiest day was Friday, with 31 sales."
    blank = RepetitionGuard()
    assert feed_in_pieces(blank, "Answer: 4.\n" + "\n" * 400, size=10) is not None
    assert blank.cut() == "Answer: 4."


@pytest.mark.parametrize("text", [
    "| region | total |\n|---|---|\n" + "".join(f"| r{i} | {i * 7} |\n" for i in range(60)),
    "".join(f"- Week {i}: {100 + i} orders, {3 * i} returns\n" for i in range(80)),
    "The mean is 4.2. The median is 4.0. The mean is above the median, so the data lean right. " * 2,
    "SELECT a, b, c, d, e, f, g, h FROM t WHERE a IS NOT NULL AND b IS NOT NULL AND c IS NOT NULL",
    "```sql\nSELECT region, sum(amount) AS total\nFROM sales\nGROUP BY region\nORDER BY total DESC\n```",
])
def test_ordinary_replies_are_left_alone(text):
    guard = RepetitionGuard()
    assert feed_in_pieces(guard, text) is None and not guard.looping
    assert guard.cut() == text


def test_words_split_across_pieces_are_one_word():
    guard = RepetitionGuard(min_unit=2, repeats=3, short_span=6)
    for piece in ["ab", "c d", "ef abc", " def a", "bc def", " "]:
        guard.feed(piece)
    assert guard.looping and guard.cut() == "abc def"


# -- the backend against a server that never stops ------------------------------------------------

def test_a_looping_stream_is_closed_at_once_and_its_tail_dropped():
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(text="The answer is 42.", loop=" The answer is 42."))
        backend = OpenAIBackend(base_url=server.url, api_key="k", model="m", timeout=20)
        assert backend.cut_repetition              # on by default for a server on this machine
        shown: list[str] = []
        started = time.monotonic()
        response = backend.stream([Message("user", "what is it?")], on_text=shown.append)
        took = time.monotonic() - started
        assert took < 5
        assert response.text == "The answer is 42." and response.finish_reason == REPETITION_FINISH
        assert response.extra["repetition_cut"] is True
        deadline = time.monotonic() + 5
        while server.loop_ended is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.loop_ended is not None        # the server saw the connection close
        assert server.loops_sent < 200


def test_a_call_whose_arguments_loop_is_one_clear_error():
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(tool_calls=[call("query_sql", '{"sql": "SELECT a FROM t WHERE a > 1', id="c1")],
                             loop=" AND a IS NOT NULL", loop_in_arguments=True))
        backend = OpenAIBackend(base_url=server.url, api_key="k", model="m", timeout=20)
        started = time.monotonic()
        with pytest.raises(ToolArgumentsError) as caught:
            backend.stream([Message("user", "q")], [SQL_TOOL], on_text=lambda piece: None)
        assert time.monotonic() - started < 5
        assert caught.value.message == CUT_CALL_MESSAGE and caught.value.tool_name == "query_sql"
        assert not caught.value.retryable


def test_a_remote_endpoint_is_not_watched_unless_asked(monkeypatch):
    backend = OpenAIBackend(base_url="https://api.example.invalid/v1", api_key="k", model="m")
    assert not backend.cut_repetition
    assert OpenAIBackend(base_url="https://api.example.invalid/v1", api_key="k", model="m",
                         cut_repetition=True).cut_repetition
