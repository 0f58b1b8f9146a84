"""Where shell-agent-lab keeps its state.

Everything lives under one data directory, resolved the same way by kernels, the command line,
the launcher and the embedded model:

1. ``$SHELL_AGENT_LAB_DATA_DIR`` when set (tests and power users),
2. else ``ShellAgent.data_dir`` as configured — the running IPython shell's settings inside a
   kernel, else the default IPython profile's ``ipython_config.py``,
3. else ``jupyter_core.paths.jupyter_data_dir()/shell_agent_lab``.

:func:`data_dir` is that resolution. Callers that already hold the settings pass
``settings.data_dir`` (``None`` meaning "not configured"); the others call ``data_dir()`` and the
configuration is looked up. Directories are created 0700; files written by the package are 0600.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Final

__all__ = ["data_dir", "configured_data_dir", "ensure_private_dir", "ENV_DATA_DIR"]

ENV_DATA_DIR = "SHELL_AGENT_LAB_DATA_DIR"


class _LookUp:
    def __repr__(self) -> str:
        return "<look up ShellAgent.data_dir>"


_LOOK_UP: Final = _LookUp()


def data_dir(configured: str | os.PathLike[str] | None | _LookUp = _LOOK_UP, *,
             create: bool = True) -> Path:
    """Return the data directory, creating it (0700) unless ``create`` is false.

    ``configured`` is the value of ``ShellAgent.data_dir`` when the caller has the settings;
    left out, it is looked up with :func:`configured_data_dir` (which raises
    ``ConfigFileError`` when the configuration file cannot be read).
    """
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        path = Path(env).expanduser()
    else:
        if isinstance(configured, _LookUp):
            configured = configured_data_dir()
        if configured:
            path = Path(configured).expanduser()
        else:
            from jupyter_core.paths import jupyter_data_dir

            path = Path(jupyter_data_dir()) / "shell_agent_lab"
    if create:
        ensure_private_dir(path)
    return path


def configured_data_dir() -> str | None:
    """``ShellAgent.data_dir`` as configured: the running IPython shell's settings when there is
    one, else the default IPython profile's configuration file; ``None`` when not set."""
    from ._config_file import configured_data_dir as from_config, load_config

    shell = _running_shell()
    if shell is not None:
        from .config import ShellAgent

        for configurable in getattr(shell, "configurables", ()):
            if isinstance(configurable, ShellAgent):  # the kernel's live settings (%config included)
                return configurable.data_dir
        return from_config(shell.config, None)
    return from_config(*load_config())


def _running_shell() -> Any:
    ipython = sys.modules.get("IPython")  # never import IPython just to find out
    get = getattr(ipython, "get_ipython", None)
    return get() if get is not None else None


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make the leaf directory 0700 (one this user cannot use is
    left as it is: the store then says so, rather than change permissions someone set)."""
    path.mkdir(parents=True, exist_ok=True)
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        return path
    try:
        os.chmod(path, 0o700)
    except OSError:  # pragma: no cover - e.g. a directory owned by someone else
        pass
    return path
