from __future__ import annotations

import threading

import pytest

from shell_agent_lab.llm.errors import CancelledError, RateLimitedError
from shell_agent_lab.llm.scripted import ScriptedBackend, ScriptExhaustedError, call, reply
from shell_agent_lab.llm.types import ChatOptions, Message, Response, ToolCall, ToolSpec

TOOLS = [ToolSpec("run_sql", "Run SQL", {"type": "object", "properties": {"sql": {"type": "string"}}})]


def test_queue_answers_in_order_and_records_requests():
    backend = ScriptedBackend(["first", call("run_sql", {"sql": "select 1"}, id="c1")])
    msgs = [Message("system", "sys"), Message("user", "hello")]
    assert backend.chat(msgs, TOOLS).text == "first"
    second = backend.chat(msgs, TOOLS)
    assert second.tool_calls == [ToolCall("c1", "run_sql", {"sql": "select 1"})]
    assert second.finish_reason == "tool_calls"
    assert len(backend.requests) == 2
    assert backend.last_request.system == "sys"
    assert backend.last_request.last_user == "hello"
    assert backend.last_request.tool_names == ["run_sql"]
    assert backend.pending == 0


def test_recorded_messages_are_copies():
    backend = ScriptedBackend(["ok"])
    msgs = [Message("user", "before")]
    backend.chat(msgs)
    msgs[0].content = "after"
    assert backend.requests[0].messages[0].content == "before"


def test_function_answers_after_queue():
    backend = ScriptedBackend(["queued"], fn=lambda messages, tools: f"echo {messages[-1].content}")
    assert backend.chat([Message("user", "a")]).text == "queued"
    assert backend.chat([Message("user", "b")]).text == "echo b"
    assert backend.chat([Message("user", "c")]).text == "echo c"


def test_exhausted_script_names_the_request():
    backend = ScriptedBackend()
    with pytest.raises(ScriptExhaustedError, match=r"request #1 .*'what is up'"):
        backend.chat([Message("user", "what is up")])


def test_queued_exception_is_raised():
    backend = ScriptedBackend([RateLimitedError("slow down"), "fine"])
    with pytest.raises(RateLimitedError):
        backend.chat([Message("user", "x")])
    assert backend.chat([Message("user", "x")]).text == "fine"


def test_stream_reports_chunks_and_returns_full_response():
    backend = ScriptedBackend([reply("abcdefghij")], chunk_size=3)
    pieces: list[str] = []
    response = backend.stream([Message("user", "x")], on_text=pieces.append)
    assert pieces == ["abc", "def", "ghi", "j"]
    assert response.text == "abcdefghij"
    assert backend.requests[0].streamed


def test_stream_cancelled_between_chunks():
    cancel = threading.Event()
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        cancel.set()

    backend = ScriptedBackend(["a long answer"], chunk_size=2)
    with pytest.raises(CancelledError):
        backend.stream([Message("user", "x")], on_text=on_text, options=ChatOptions(cancel=cancel))
    assert pieces == ["a "]


def test_queued_response_is_not_shared():
    shared = Response(text="t", tool_calls=[ToolCall("i", "n", {"k": 1})])
    backend = ScriptedBackend([shared])
    out = backend.chat([Message("user", "x")])
    out.tool_calls[0].arguments["k"] = 2
    assert shared.tool_calls[0].arguments == {"k": 1}
    assert backend.identity == "scripted/scripted"
