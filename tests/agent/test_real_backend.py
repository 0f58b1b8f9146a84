"""Turns through the real openai SDK against a local chat-completions server on 127.0.0.1."""
from __future__ import annotations

import pytest

from shell_agent_lab.llm.openai_backend import OpenAIBackend
from shell_agent_lab.llm.retry import RetryPolicy
from tests.support.fake_model_servers import FakeOpenAIServer, Reply, call

FAST = RetryPolicy(attempts=3, base_delay=0.01, jitter=0.0)


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def backend(server):
    b = OpenAIBackend(base_url=server.url, api_key="sk-test", model="fake-model", retry=FAST, timeout=5.0)
    yield b
    b.close()


def test_500_until_exhausted_is_a_clear_error_and_the_message_stays(server, backend, make_agent, store):
    server.enqueue(Reply(status=500), Reply(status=500), Reply(status=500))
    agent, rec = make_agent(backend)
    r = agent.run("summarise the sales table")
    assert r.error and "500" in r.error and "\n" not in r.error
    assert [x.content for x in store.list_records(agent.session.id)] == ["summarise the sales table"]
    assert [e.data["attempt"] for e in rec.of("retry_backoff")] == [1, 2]
    assert len(server.chat_requests) == 3
    assert agent.state.value == "READY"


def test_429_then_success_streams_the_answer(server, backend, make_agent):
    server.enqueue(Reply(status=429), Reply(text="All good now.", chunk_size=4))
    agent, rec = make_agent(backend)
    r = agent.run("hello")
    assert r.text == "All good now." and r.error is None
    assert len(rec.of("retry_backoff")) == 1
    assert "".join(e.data["text"] for e in rec.of("stream_token")) == "All good now."


def test_tool_round_trip_and_malformed_arguments(server, backend, make_agent, store):
    server.enqueue(Reply(tool_calls=[call("resolve_date", "{not json", id="bad")]),
                   Reply(tool_calls=[call("resolve_date", {"expression": "yesterday",
                                                           "reference_date": "2026-03-04"}, id="good")]),
                   Reply(text="It was Tuesday."))
    agent, _ = make_agent(backend)
    r = agent.run("what day was yesterday?")
    assert r.text == "It was Tuesday."
    tools = {x.tool_call_id: x for x in store.list_records(agent.session.id) if x.role == "tool"}
    assert tools["bad"].status == "error" and "not valid JSON" in tools["bad"].content
    assert tools["good"].content == "2026-03-03 (Tuesday)"
    third = server.chat_requests[2].json["messages"]
    sent_tools = [m for m in third if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in sent_tools] == ["bad", "good"]
    names = [t["function"]["name"] for t in server.chat_requests[0].json["tools"]]
    assert "resolve_date" in names and names == sorted(names)
