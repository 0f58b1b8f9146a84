"""What ``%load_ext shell_agent_lab`` does, and undoes.

* registers the ``%agent`` / ``%%agent`` and ``%agent_sql`` magics,
* installs the input transformer that keeps ``%agent …?`` from becoming a help request,
* adds the ``ShellAgent`` settings to the shell's configurables (``%config ShellAgent.…``),
* adds the notebook's slash commands to the shared table,
* registers the side panel's comm target (when running in a kernel).

Loading twice is harmless.
"""
from __future__ import annotations

import logging
from typing import Any

from . import transform
from .runtime import settings_for

__all__ = ["load", "unload", "settings_for"]

log = logging.getLogger(__name__)


def load(shell: Any) -> None:
    from . import commands
    from .magics import AgentMagics
    from .runtime import use_approval_widget
    from .widgets import ApprovalWidget

    from .render import next_cell

    settings_for(shell)
    use_approval_widget(ApprovalWidget)
    shell.register_magics(AgentMagics(shell))
    if next_cell not in shell.events.callbacks["pre_run_cell"]:
        shell.events.register("pre_run_cell", next_cell)
    transform.install(shell)
    commands.register()
    if getattr(shell, "kernel", None) is not None:
        try:
            from .comm import register_comm_target
        except ImportError:  # pragma: no cover - the panel's kernel side is optional
            log.info("side-panel comm not available")
        else:
            register_comm_target()


def unload(shell: Any) -> None:
    from . import commands
    from .runtime import reset_runtime

    from .render import next_cell

    transform.uninstall(shell)
    commands.unregister()
    if next_cell in shell.events.callbacks["pre_run_cell"]:
        shell.events.unregister("pre_run_cell", next_cell)
    for kind in ("line", "cell"):
        for name in ("agent", "agent_async", "agent_sql"):
            shell.magics_manager.magics[kind].pop(name, None)
    reset_runtime()
