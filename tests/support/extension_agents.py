"""Real agents with the user's tools installed (as ``build_agent`` installs them), for tests."""
from __future__ import annotations

import re
from typing import Any, Callable

from shell_agent_lab.agent import Agent
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.events import EventBus
from shell_agent_lab.tools.approval import ApprovalDecision
from shell_agent_lab.tools.extensions import install_extensions


def approve_all(request: Any) -> ApprovalDecision:
    return ApprovalDecision(approved=True)


class ExtensionAgents:
    """Builds agents on one store, each with a session for ``t.ipynb``; :meth:`close` stops them
    and closes their extensions (MCP servers, script tools)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.made: list[Agent] = []

    def __call__(self, *, settings: ShellAgent | None = None, backend: Any = None,
                 backend_factory: Callable[[str | None], Any] | None = None,
                 approver: Callable[[Any], ApprovalDecision] | None = None,
                 namespace: dict | None = None) -> Agent:
        settings = settings or ShellAgent(auto_extract=False, auto_title=False)
        registry = default_registry()
        extensions = install_extensions(registry, settings, data_dir=self.store.data_dir)
        agent = Agent(store=self.store, backend=backend, backend_factory=backend_factory, registry=registry,
                      events=EventBus(), settings=settings, approver=approver,
                      namespace=(lambda: namespace) if namespace is not None else None)
        agent.extensions = extensions
        self.made.append(agent)
        agent.open_session(None, notebook_path="t.ipynb")
        return agent

    def close(self) -> None:
        for agent in self.made:
            agent.abort()
            agent.wait_idle(timeout=10)
            agent.extensions.close()


def tool_results(request: Any) -> list[str]:
    """The tool results as the model saw them, without the time marker and guard envelope."""
    out = []
    for message in request.messages:
        if message.role == "tool":
            found = re.search(r"<(user_data_[0-9a-f]+)>(.*)</\1>", message.content, re.S)
            out.append(found.group(2) if found else message.content)
    return out
