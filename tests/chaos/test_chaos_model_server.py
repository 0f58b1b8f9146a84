"""Fault 6: the model server fails mid-answer. The embedded server (the stand-in engine, a real
process) is SIGKILLed while it streams; an OpenAI-compatible server, driven through the real
``openai`` SDK, cuts the stream, answers with invalid JSON or stalls past the timeout. Each time
the turn ends with a one-line error, the user's message is kept, Stop still ends a turn at
once, and the next question is answered (the embedded server starts again)."""
from __future__ import annotations

import os
import signal
import time

import pytest

from shell_agent_lab.agent import Agent, AgentState
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.llama_client import shutdown_servers, stop_all_servers
from shell_agent_lab.llm.llama_policy import IdlePolicy
from shell_agent_lab.llm.llama_state import pid_alive
from shell_agent_lab.llm.local import LocalBackend
from shell_agent_lab.llm.openai_backend import OpenAIBackend
from shell_agent_lab.llm.retry import RetryPolicy
from tests.support.fake_model_servers import FakeOpenAIServer, Reply

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(120)]

POLICY = IdlePolicy(idle_timeout=5, grace=0.1, poll=0.05, save_after=0.2, drain_timeout=10)


class _Finished:
    """What a ``turn_finished`` event said."""

    def __init__(self, text: str = "", error: str | None = None, **_: object) -> None:
        self.text, self.error = text, error



def _agent(store, backend) -> tuple[Agent, list, list[_Finished]]:
    # the way of a message is not asked first: the message's own (streamed) request is the one
    # these tests cut, stall and stop
    agent = Agent(store=store, backend=backend, events=EventBus(), registry=default_registry(),
                  settings=ShellAgent(auto_extract=False, auto_title=False, route_by_model=False))
    seen: list = []
    finished: list[_Finished] = []
    agent.events.subscribe(lambda e: seen.append(e.type))
    agent.events.subscribe(lambda e: finished.append(_Finished(**e.data)), ["turn_finished"])
    agent.open_session(None, notebook_path="model.ipynb")
    return agent, seen, finished


def _wait(predicate, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _turn_failed_cleanly(agent, store, message: str, reply) -> None:
    assert reply.error and "\n" not in reply.error and "Traceback" not in reply.error, reply.text
    assert agent.state == AgentState.READY
    records = store.list_records(agent.session.id)
    assert records[-1].role == "user" and records[-1].content == message     # kept, nothing half said


def _stop_mid_stream(agent, seen, message: str) -> None:
    before = seen.count("stream_token")
    assert agent.send(message, wait=False).phase == "started"
    _wait(lambda: seen.count("stream_token") > before, "the first streamed words")
    started = time.monotonic()
    agent.abort()
    assert agent.wait_idle(timeout=10)
    assert time.monotonic() - started < 5
    assert agent.state == AgentState.READY


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    return path


@pytest.fixture
def embedded(model, _isolated_data_dir):
    backend = LocalBackend(model, n_ctx=4096, engine="fake", policy=POLICY)
    yield backend
    stop_all_servers()
    assert shutdown_servers(_isolated_data_dir / "models", timeout=30)


def test_the_embedded_server_killed_mid_stream(store, embedded, tmp_path):
    agent, seen, finished = _agent(store, embedded)
    try:
        first = agent.run("hello", timeout=60)
        assert first.error is None and first.text.startswith("pid=")
        server = embedded.server.pid
        hold = tmp_path / "hold"
        hold.touch()
        message = f"hold:{hold}"
        streamed = seen.count("stream_token")
        assert agent.send(message, wait=False).phase == "started"
        _wait(lambda: seen.count("stream_token") > streamed, "the stream to start")
        os.kill(server, signal.SIGKILL)
        _wait(lambda: not pid_alive(server), "the killed server to go")
        assert agent.wait_idle(timeout=30)
        _turn_failed_cleanly(agent, store, message, finished[-1])
        # the next question starts the server again
        again = agent.run("are you back?", timeout=60)
        assert again.error is None and again.text.startswith("pid=") and embedded.server.pid != server
        # Stop ends a turn the server is still streaming
        _stop_mid_stream(agent, seen, message)
        hold.unlink()
        third = agent.run("and now?", timeout=60)
        assert third.error is None and third.text.startswith(f"pid={embedded.server.pid}")
    finally:
        hold.unlink(missing_ok=True)
        agent.close()


@pytest.mark.parametrize("fault", ["cut", "invalid_json", "stall"])
def test_an_openai_compatible_server_fails_mid_answer(store, fault):
    with FakeOpenAIServer() as server:
        backend = OpenAIBackend(base_url=server.url, api_key="test", model="fake-model", timeout=1.5,
                                retry=RetryPolicy(attempts=1, base_delay=0, jitter=0))
        agent, seen, _ = _agent(store, backend)
        try:
            bad = {"cut": Reply(text="The answer is a long sentence that never ends", cut_after=3),
                   "invalid_json": Reply(raw=b'{"choices": [ {"delta": oops'),
                   "stall": Reply(text="too late", delay=6)}[fault]
            server.enqueue(bad)
            started = time.monotonic()
            reply = agent.run("what is the total?", timeout=30)
            _turn_failed_cleanly(agent, store, "what is the total?", reply)
            if fault == "stall":
                assert time.monotonic() - started < 5 and "1.5" in reply.error
            # Stop ends a turn whose stream hangs; then the next question is answered
            server.enqueue(Reply(text="Partial answer that hangs", hang_after=2))
            _stop_mid_stream(agent, seen, "are you there?")
            server.enqueue(Reply(text="All good."))
            assert agent.run("and now?", timeout=30).text == "All good."
        finally:
            agent.close()
