"""Which notebook this kernel serves, and what the surface around it can do.

Pure functions over a namespace and an environment mapping, so tests pass their own.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

__all__ = ["notebook_path", "base_dir", "Frontend", "detect_frontend"]


def notebook_path(user_ns: Mapping[str, Any] | None, environ: Mapping[str, str]) -> str | None:
    """The absolute path of the notebook the kernel was started for, if the server said.

    jupyter_server puts it in ``JPY_SESSION_NAME`` and ipykernel copies it into the
    namespace as ``__session__``. Anything that is not an absolute ``.ipynb`` path (a console's
    session name, an empty string) is not a notebook.
    """
    ns = user_ns or {}
    # VS Code's notebook kernel names the file in __vsc_ipynb_file__
    for value in (ns.get("__session__"), environ.get("JPY_SESSION_NAME"), ns.get("__vsc_ipynb_file__")):
        if isinstance(value, str) and value.strip():
            path = value.strip()
            if os.path.isabs(path) and path.endswith(".ipynb"):
                return os.path.normpath(path)
    return None


def base_dir(path: str | None, cwd: Path | None = None) -> Path:
    """Relative file paths in questions resolve against the notebook's directory."""
    if path:
        return Path(path).parent
    return cwd or Path.cwd()


FrontendKind = Literal["widgets", "stdin", "headless", "terminal"]


@dataclass(frozen=True)
class Frontend:
    """What is on the other side of the kernel for the running cell.

    * ``widgets`` — JupyterLab / Notebook in a browser: live updates, widgets answer approvals.
    * ``stdin`` — a console frontend that can answer ``input()`` but draws no widgets.
    * ``headless`` — nbclient, nbval, papermill, CI: nobody can answer; the policy decides.
    * ``terminal`` — plain IPython in a terminal: ``input()`` and text.
    """

    kind: FrontendKind

    @property
    def live(self) -> bool:
        """Whether display handles update in place (only a browser redraws them)."""
        return self.kind == "widgets"

    @property
    def human(self) -> bool:
        return self.kind != "headless"


def detect_frontend(shell: Any, environ: Mapping[str, str], *, forced: str = "",
                    panel_connected: bool = False, stdin_is_tty: bool | None = None) -> Frontend:
    """Decide for the cell now running. ``forced`` (config) wins when it names a kind."""
    if forced in ("widgets", "stdin", "headless", "terminal"):
        return Frontend(forced)  # type: ignore[arg-type]
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        tty = stdin_is_tty if stdin_is_tty is not None else _stdin_is_tty()
        return Frontend("terminal" if tty else "headless")
    if not getattr(kernel, "_allow_stdin", False):
        return Frontend("headless")
    if panel_connected or notebook_path(getattr(shell, "user_ns", None), environ):
        return Frontend("widgets")
    return Frontend("stdin")


def _stdin_is_tty() -> bool:
    import sys

    try:
        return bool(sys.stdin and sys.stdin.isatty())
    except (ValueError, OSError):
        return False
