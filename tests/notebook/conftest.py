"""A real InteractiveShell with the extension loaded and an agent on a scripted model."""
from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from shell_agent_lab.llm.scripted import ScriptedBackend
from shell_agent_lab.notebook import runtime as runtime_mod


@pytest.fixture
def backend():
    return ScriptedBackend()


@pytest.fixture
def shell(backend, tmp_path, monkeypatch):
    """InteractiveShell + %load_ext shell_agent_lab; the agent answers from ``backend``."""
    from shell_agent_lab.agent.factory import build_agent
    from shell_agent_lab.notebook.extension import settings_for

    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "headless")
    ip = InteractiveShell.instance()
    ip.user_ns.pop("__session__", None)
    ip.config.pop("ShellAgent", None)          # %config from an earlier test must not leak

    def build(*, shell, base, approver):
        return build_agent(settings_for(shell), namespace=lambda: shell.user_ns, base_dir=tmp_path,
                           approver=approver, backend=backend)

    runtime_mod.reset_runtime()
    runtime_mod.get_runtime(ip, build=build)
    ip.run_line_magic("load_ext", "shell_agent_lab")
    yield ip
    ip.run_line_magic("unload_ext", "shell_agent_lab")
    runtime_mod.reset_runtime()
    ip.config.pop("ShellAgent", None)
    for c in list(ip.configurables):
        if type(c).__name__ == "ShellAgent":
            ip.configurables.remove(c)
