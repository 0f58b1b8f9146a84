"""Fixtures for the agent tests: the real store, real context builder and ScriptedBackend."""
from __future__ import annotations

import threading
from typing import Any, Callable

import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.events import Event, EventBus
from shell_agent_lab.llm.scripted import ScriptedBackend


@pytest.fixture
def settings():
    # the tool loop: these tests script its calls (the program path has tests of its own), and
    # the way a message goes is not asked of the model (test_route and the routing tests do)
    return ShellAgent(auto_extract=False, auto_title=False, answer_strategy="tools", route_by_model=False)


class Recorder:
    """Collects events; ``wait_for`` blocks until one matching arrives (no sleeps)."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[Event] = []
        self._cond = threading.Condition()
        bus.subscribe(self._on)

    def _on(self, event: Event) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def types(self) -> list[str]:
        with self._cond:
            return [e.type for e in self.events]

    def of(self, type_: str) -> list[Event]:
        with self._cond:
            return [e for e in self.events if e.type == type_]

    def wait_for(self, type_: str, pred: Callable[[Event], bool] = lambda e: True, timeout: float = 10) -> Event:
        with self._cond:
            found: list[Event] = []

            def ready() -> bool:
                found[:] = [e for e in self.events if e.type == type_ and pred(e)]
                return bool(found)
            if not self._cond.wait_for(ready, timeout):
                raise AssertionError(f"no {type_} event within {timeout}s; saw {[e.type for e in self.events]}")
            return found[0]


@pytest.fixture
def make_agent(store, settings):
    agents: list[Agent] = []

    def make(backend: Any = "scripted", *, notebook: str = "test.ipynb", **kw: Any) -> tuple[Agent, Recorder]:
        kw.setdefault("registry", default_registry())
        kw.setdefault("settings", settings)
        if backend == "scripted":
            backend = ScriptedBackend()
        agent = Agent(store=store, backend=backend, events=EventBus(), **kw)
        recorder = Recorder(agent.events)
        agent.open_session(None, notebook_path=notebook)
        agents.append(agent)
        return agent, recorder

    yield make
    for agent in agents:
        agent.abort()
        assert agent.wait_idle(timeout=10), "agent did not drain"
