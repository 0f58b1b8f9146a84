"""The panel's export and settings ops, and the magic's /export, take the agent's maintenance
hold: a turn that starts at the worst moment waits for them instead of losing its engine or its
backend. The interleavings are forced with an injected engine whose close starts a turn."""
from __future__ import annotations

import base64
import io
import threading
import zipfile
from typing import Any

import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.notebook.comm import Dispatcher
from shell_agent_lab.store import Store
from shell_agent_lab.tools.registry import ToolDescriptor, ToolRegistry
from tests.support.maintenance import ProbeEngine, wait_for_turn_or_waiter


class Race:
    """A real agent whose first engine, when an export closes it, lets a turn try to start."""

    def __init__(self, tmp_path) -> None:
        self.store = Store.open(tmp_path / "store")
        self.started, self.release = threading.Event(), threading.Event()
        self.engines: list[ProbeEngine] = []
        self.box: dict[str, Any] = {}
        registry = ToolRegistry([ToolDescriptor("probe", "engine state", {"type": "object", "properties": {}},
                                                lambda ctx, args: f"closed={ctx.engine.closed}")])
        self.agent = Agent(store=self.store, registry=registry, events=EventBus(),
                           settings=ShellAgent(auto_extract=False, auto_title=False),
                           backend=ScriptedBackend([self._held, call("probe", {}), "finished"]),
                           engine_factory=self._engine)
        self.agent.open_session(None, notebook_path="race.ipynb")
        agent = self.agent

        class Runtime:
            panel_connected = True

            def __init__(self) -> None:
                self.agent = agent

        self.dispatcher = Dispatcher(lambda: Runtime())

    def _held(self, messages, tools):
        self.started.set()
        assert self.release.wait(10), "test never released the model"
        return "done"

    def _engine(self, session):
        engine = ProbeEngine(hook=self._start_turn if not self.engines else None)
        self.engines.append(engine)
        return engine

    def _start_turn(self) -> None:
        t = threading.Thread(target=lambda: self.box.setdefault("reply", self.agent.run("go")), daemon=True)
        self.box["thread"] = t
        t.start()
        if wait_for_turn_or_waiter(self.agent) == "busy":     # it slipped in: it holds the engine now
            assert self.started.wait(10)

    def finish(self) -> Any:
        self.release.set()
        self.box["thread"].join(10)
        assert self.agent.wait_idle(timeout=10)
        return self.box["reply"]

    def probes(self) -> list[str]:
        return [r.content for r in self.store.list_records(self.agent.session.id) if r.role == "tool"]

    def close(self) -> None:
        self.release.set()
        self.agent.close()
        self.store.close()


@pytest.fixture
def race(tmp_path):
    r = Race(tmp_path)
    yield r
    r.close()


def test_panel_export_of_the_open_session_keeps_a_starting_turn_out(race):
    agent = race.agent
    response = race.dispatcher.handle({"v": 1, "id": "e", "op": "sessions_export",
                                       "args": {"session_id": agent.session.id}})
    assert response["ok"] is True, response
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(response["result"]["data_base64"]))) as zf:
        assert "manifest.json" in zf.namelist()
    reply = race.finish()
    assert reply.error is None and reply.text == "done"
    assert race.engines[0].closed and agent.engine() is race.engines[-1] and not race.engines[-1].closed
    assert agent.run("again").text == "finished"
    assert race.probes() == ["closed=False"]


def test_magic_export_keeps_a_starting_turn_out(race, tmp_path):
    from shell_agent_lab.agent.commands import run_command
    from shell_agent_lab.notebook import commands as notebook_commands

    notebook_commands.register()
    try:
        result = run_command(race.agent, f"/export {tmp_path / 'out.shellagent'}")
    finally:
        notebook_commands.unregister()
    assert result.error is None, result.error
    assert (tmp_path / "out.shellagent").is_file()
    assert race.finish().text == "done"
    assert race.agent.run("again").text == "finished"
    assert race.probes() == ["closed=False"]


def test_panel_model_change_while_extraction_runs_waits_then_switches(tmp_path):
    store = Store.open(tmp_path / "store")
    settings = ShellAgent(auto_extract=True, auto_title=False)
    started, release = threading.Event(), threading.Event()

    def extractor(session, backend, cancel):
        started.set()
        assert release.wait(10)

    agent = Agent(store=store, events=EventBus(), settings=settings, extractor=extractor,
                  backend_factory=lambda profile: ScriptedBackend(["hi"], model=settings.model or "m"))
    agent.open_session(None, notebook_path="m.ipynb")

    class Runtime:
        panel_connected = True

        def __init__(self) -> None:
            self.agent = agent
    dispatcher = Dispatcher(lambda: Runtime())
    try:
        agent.run("hello")
        assert started.wait(10)
        out: dict[str, Any] = {}
        t = threading.Thread(target=lambda: out.setdefault("r", dispatcher.handle(
            {"v": 1, "id": "m", "op": "settings_set", "args": {"model": "next"}})))
        t.start()
        release.set()
        t.join(10)
        assert out["r"]["ok"] is True, out["r"]
        assert out["r"]["result"]["model"] == "next" and agent.backend.model == "next"
    finally:
        release.set()
        agent.close()
        store.close()


def test_a_session_switch_during_a_turn_is_refused_before_creating_anything(shell, backend):
    from shell_agent_lab.agent import AgentBusyError
    from shell_agent_lab.notebook.runtime import get_runtime

    started, release = threading.Event(), threading.Event()

    def held(messages, tools):
        started.set()
        assert release.wait(10)
        return "done"

    backend.enqueue(held)
    rt = get_runtime()
    agent = rt.agent
    before = len(agent.store.list_sessions())
    t = threading.Thread(target=lambda: agent.run("long"))
    t.start()
    try:
        assert started.wait(10)
        with pytest.raises(AgentBusyError, match="^cannot start a new session while a turn runs"):
            rt.new_session(private=True)
        with pytest.raises(AgentBusyError, match="^cannot switch sessions while a turn runs"):
            rt.switch_session("elsewhere")
        assert len(agent.store.list_sessions()) == before
    finally:
        release.set()
        t.join(10)
    assert agent.wait_idle(timeout=10)
    assert rt.new_session(private=True).private
