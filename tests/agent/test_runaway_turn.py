"""A turn whose model loops forever (a fake OpenAI-compatible server that never finishes its
stream) ends in seconds: the repetition is cut while it streams, a cut-off call is one clear error
for the model, and the next reply's repeated tail is dropped."""
from __future__ import annotations

import time

from shell_agent_lab.llm.openai_backend import CUT_CALL_MESSAGE, OpenAIBackend
from tests.support.fake_model_servers import FakeOpenAIServer, Reply, call


def test_a_turn_whose_model_loops_forever_ends_quickly(make_agent, store):
    with FakeOpenAIServer() as server:
        server.enqueue(
            Reply(tool_calls=[call("resolve_date", '{"expression": "today', id="c1")],
                  loop=" and today", loop_in_arguments=True),
            Reply(text="Today is the day you asked about.", loop=" Today is the day you asked about."))
        backend = OpenAIBackend(base_url=server.url, api_key="k", model="m", timeout=20)
        agent, _ = make_agent(backend)
        started = time.monotonic()
        r = agent.run("what day is it?")
        assert time.monotonic() - started < 10
        assert r.error is None and r.text == "Today is the day you asked about."
        tool_results = [x for x in store.list_records(agent.session.id) if x.role == "tool"]
        assert len(tool_results) == 1 and CUT_CALL_MESSAGE in tool_results[0].content
        assert len(server.chat_requests) == 2
