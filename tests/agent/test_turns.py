"""The tool loop, end to end with the real store, context builder and ScriptedBackend."""
from __future__ import annotations

from shell_agent_lab.agent import AgentState
from shell_agent_lab.llm.errors import BadResponseError
from shell_agent_lab.llm.scripted import ScriptedBackend, call


def test_plain_answer_is_recorded_and_returned(make_agent, store):
    backend = ScriptedBackend(["Hello there."])
    agent, rec = make_agent(backend)
    r = agent.run("hi")
    assert r.error is None and r.text == "Hello there."
    roles = [(x.role, x.content) for x in store.list_records(agent.session.id)]
    assert roles == [("user", "hi"), ("assistant", "Hello there.")]
    assert agent.state == AgentState.READY
    assert "".join(e.data["text"] for e in rec.of("stream_token")) == "Hello there."


def test_tool_round_trip_records_calls_and_results(make_agent, store):
    backend = ScriptedBackend([call("resolve_date", {"expression": "yesterday", "reference_date": "2026-03-02"},
                                    id="c1"), "It was Sunday."])
    agent, rec = make_agent(backend)
    r = agent.run("what day was yesterday?")
    assert r.text == "It was Sunday."
    records = store.list_records(agent.session.id)
    assert [x.role for x in records] == ["user", "assistant", "tool", "assistant"]
    assert records[1].tool_calls[0]["id"] == "c1" and records[1].tool_calls[0]["name"] == "resolve_date"
    assert records[2].content == "2026-03-01 (Sunday)" and records[2].status == "success"
    assert records[2].tool_call_id == "c1"
    start, end = rec.of("tool_start")[0], rec.of("tool_end")[0]
    assert start.data["tool_call_id"] == end.data["tool_call_id"] == "c1"
    assert end.data["status"] == "success"
    # the second request carried the tool result back to the model
    tool_msgs = [m for m in backend.requests[1].messages if m.role == "tool"]
    assert tool_msgs and "2026-03-01 (Sunday)" in tool_msgs[0].content
    assert [a.status for a in r.tool_activity] == ["success"]


def test_backend_error_ends_turn_and_keeps_user_message(make_agent, store):
    backend = ScriptedBackend([BadResponseError("server answered 500", hint="check the server's logs")])
    agent, rec = make_agent(backend)
    r = agent.run("summarise my data")
    assert r.error == "server answered 500 — check the server's logs"
    assert [x.content for x in store.list_records(agent.session.id)] == ["summarise my data"]
    assert agent.state == AgentState.READY
    assert rec.of("turn_finished")[-1].data["phase"] == "error"
    result = agent.send("again")   # the agent is usable afterwards
    assert result.phase == "error"  # script exhausted → clear error too
    assert "no answer for request" in result.error_message
