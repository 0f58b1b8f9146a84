"""Comm handlers run one at a time on one thread: they must never wait for a running turn,
or an approval (or Stop) sent over the same comm could never reach it."""
from __future__ import annotations

import threading

import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.notebook.comm import Dispatcher
from shell_agent_lab.store import Store
from shell_agent_lab.tools.approval import PENDING
from shell_agent_lab.tools.registry import ToolDescriptor, ToolRegistry


@pytest.fixture
def waiting_turn(tmp_path):
    """An agent whose turn is waiting for an approval the panel has not answered yet."""
    store = Store.open(tmp_path / "s")
    registry = ToolRegistry([ToolDescriptor("danger", "d", {"type": "object", "properties": {}},
                                            lambda ctx, a: "ran", approval_default=True)])
    agent = Agent(store=store, registry=registry, backend=ScriptedBackend([call("danger", {}), "done"]),
                  events=EventBus(), settings=ShellAgent(auto_extract=False, auto_title=False),
                  approver=lambda request: PENDING)
    agent.open_session(None, notebook_path="t.ipynb")
    asked = threading.Event()
    agent.events.subscribe(lambda e: asked.set(), ["approval_request"])
    agent.send("go", wait=False)
    assert asked.wait(10)

    class Runtime:
        panel_connected = True

        def __init__(self):
            self.agent = agent

        def resolve_approval(self, *args):
            return agent.resolve_approval(*args)

    yield agent, Dispatcher(lambda: Runtime())
    agent.abort()
    agent.wait_idle(timeout=10)
    store.close()


def _handle_with_deadline(dispatcher, message, seconds=5.0):
    out: dict = {}
    t = threading.Thread(target=lambda: out.setdefault("r", dispatcher.handle(message)), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{message['op']} blocked the comm thread on a running turn"
    return out["r"]


def test_exporting_the_open_session_during_a_turn_is_refused_not_awaited(waiting_turn):
    agent, dispatcher = waiting_turn
    reply = _handle_with_deadline(dispatcher, {"v": 1, "id": "x", "op": "sessions_export",
                                               "args": {"session_id": agent.session.id}})
    assert reply["ok"] is False and reply["error"]["code"] == "busy"
    assert "press Stop" in reply["error"]["message"]


def test_switching_the_model_during_a_turn_is_refused_not_awaited(waiting_turn):
    agent, dispatcher = waiting_turn
    reply = _handle_with_deadline(dispatcher, {"v": 1, "id": "y", "op": "settings_set",
                                               "args": {"model": "other"}})
    assert reply["ok"] is False and reply["error"]["code"] == "busy"
