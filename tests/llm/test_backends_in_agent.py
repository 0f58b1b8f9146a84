"""Whole turns through build_agent with a profile, the real SDKs and the local fake servers."""
from __future__ import annotations

import base64

import pytest

from shell_agent_lab.agent import build_agent
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.retry import RetryPolicy
from tests.support.fake_model_servers import FakeGeminiServer, FakeOpenAIServer, GeminiReply, Reply, call


@pytest.fixture
def fast_retries(monkeypatch):
    """Short backoff for backends built from profiles (the default delays are seconds)."""
    monkeypatch.setattr(RetryPolicy, "delay", lambda self, attempt, rand=None: 0.01)


def agent_for(profile: dict):
    settings = ShellAgent(profiles={"p": profile}, profile="p", auto_extract=False, auto_title=False)
    agent = build_agent(settings)
    agent.open_session(None, notebook_path="seam.ipynb")
    return agent


def test_openai_turn_with_a_tool_round_and_a_retry(fast_retries):
    with FakeOpenAIServer() as server:
        # a server on this machine gets the compact set: the way is asked first (after a 429)
        server.enqueue(Reply(status=429), Reply(text='{"way": "resolve_date"}'),
                       Reply(tool_calls=[call("resolve_date", {"expression": "today"}, id="c1")]),
                       Reply(text="Today it is."))
        agent = agent_for({"backend": "openai", "endpoint": server.url, "model": "m"})
        retries = []
        agent.events.subscribe(lambda e: retries.append(e.data), types=["retry_backoff"])
        try:
            reply = agent.run("what day is it?")
        finally:
            agent.close()
    assert reply.error is None and reply.text == "Today it is."
    assert [(a.name, a.status) for a in reply.tool_activity] == [("resolve_date", "success")]
    assert len(retries) == 1 and retries[0]["attempt"] == 1 and "429" in retries[0]["error"]
    last = server.chat_requests[-1].json["messages"]
    assert [m["role"] for m in last][-2:] == ["assistant", "tool"]
    assert last[-1]["tool_call_id"] == "c1"


def test_openai_500_until_exhausted_keeps_the_question(fast_retries):
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(status=500, repeat=True))
        agent = agent_for({"backend": "openai", "endpoint": server.url, "model": "m"})
        try:
            reply = agent.run("are you there?")
            records = agent.store.list_records(agent.session.id)
        finally:
            agent.close()
    assert "server error 500" in reply.error and "gave up after 3 attempts" in reply.error
    assert [r.content for r in records if r.role == "user"][-1].endswith("are you there?")
    assert len(server.chat_requests) == 3


def test_gemini_turn_replays_the_call_signature(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "g-key")
    sig = base64.b64encode(b"sig").decode()
    with FakeGeminiServer() as server:
        server.enqueue(GeminiReply(parts=[{"functionCall": {"name": "resolve_date", "args": {"expression": "today"}},
                                           "thoughtSignature": sig}]),
                       GeminiReply(parts=[{"text": "Done."}]))
        agent = agent_for({"backend": "gemini", "endpoint": server.url, "model": "gm"})
        try:
            reply = agent.run("what day is it?")
        finally:
            agent.close()
    assert reply.text == "Done." and reply.error is None
    contents = server.requests[1].json["contents"]
    assert contents[1]["parts"][0]["thoughtSignature"] == sig
    assert "id" not in contents[1]["parts"][0]["functionCall"]
    assert contents[2]["parts"][0]["functionResponse"]["name"] == "resolve_date"
