"""What ``%load_ext shell_agent_lab`` does, and undoes.

* registers the ``%agent`` / ``%%agent`` and ``%agent_sql`` magics,
* installs the input transformer that keeps ``%agent …?`` from becoming a help request,
* adds the ``ShellAgent`` settings to the shell's configurables (``%config ShellAgent.…``),
* adds the notebook's slash commands to the shared table,
* registers the side panel's comm target (when running in a kernel).

Loading twice is harmless, and silent: ``%load_ext shell_agent_lab`` in a kernel that loaded it
already (the autoload config, ``make run``) prints nothing.
"""
from __future__ import annotations

import logging
from typing import Any

from . import transform
from .runtime import settings_for

__all__ = ["load", "unload", "settings_for"]

log = logging.getLogger(__name__)


def load(shell: Any) -> None:
    from . import commands, workspace
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
    workspace.register(shell)
    _quiet_reload(shell)
    if getattr(shell, "kernel", None) is not None:
        try:
            from .comm import register_comm_target
        except ImportError:  # pragma: no cover - the panel's kernel side is optional
            log.info("side-panel comm not available")
        else:
            register_comm_target()


def unload(shell: Any) -> None:
    from . import commands, workspace
    from .runtime import reset_runtime

    from .render import next_cell

    transform.uninstall(shell)
    commands.unregister()
    workspace.unregister(shell)
    if next_cell in shell.events.callbacks["pre_run_cell"]:
        shell.events.unregister("pre_run_cell", next_cell)
    for kind in ("line", "cell"):
        for name in ("agent", "agent_async", "agent_sql", "agent_program"):
            shell.magics_manager.magics[kind].pop(name, None)
    reset_runtime()


def _quiet_reload(shell: Any) -> None:
    """``%load_ext shell_agent_lab`` when it is loaded already: nothing to say (IPython prints
    "already loaded … use %reload_ext", which reads as a problem in a notebook that loads it as
    its first step). Every other use of ``%load_ext`` is IPython's own."""
    magics = shell.magics_manager.magics["line"]
    original = magics.get("load_ext")
    if original is None or getattr(original, "_shell_agent_lab_quiet", False):
        return

    def load_ext(line: str = "") -> Any:
        if line.strip() == "shell_agent_lab" and "shell_agent_lab" in shell.extension_manager.loaded:
            return None
        return original(line)

    load_ext._shell_agent_lab_quiet = True  # type: ignore[attr-defined]
    load_ext.__doc__ = original.__doc__
    magics["load_ext"] = load_ext
