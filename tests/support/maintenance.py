"""For the tests of the agent's maintenance hold: an engine double and a wait for a turn."""
from __future__ import annotations

from typing import Any, Callable

from shell_agent_lab.agent import AgentState


def wait_for_turn_or_waiter(agent: Any) -> str:
    """'busy' when a turn started, 'waiting' when a send waits for the maintenance hold."""
    with agent._cond:
        assert agent._cond.wait_for(
            lambda: agent._phase == AgentState.BUSY or getattr(agent, "_hold_waiters", 0) > 0, 10)
        return "busy" if agent._phase == AgentState.BUSY else "waiting"


class ProbeEngine:
    """Holds no data; ``close`` runs an injected hook first (the moment a race can strike)."""

    def __init__(self, hook: Callable[[], None] | None = None) -> None:
        self.closed = False
        self.hook = hook
        self.waited_open = False     # wait_loaded was called while the engine was open

    def close(self) -> None:
        hook, self.hook = self.hook, None
        if hook is not None:
            hook()
        self.closed = True

    def wait_loaded(self, name: str | None = None, timeout: float | None = None) -> bool:
        self.waited_open = not self.closed
        return True

    def tables(self) -> list:
        return []

    def refresh_dataframes(self) -> None:
        pass
