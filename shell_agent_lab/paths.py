"""Where shell-agent-lab keeps its state.

Everything lives under one data directory:

* ``$SHELL_AGENT_LAB_DATA_DIR`` when set (tests and power users),
* else the value configured as ``ShellAgent.data_dir``,
* else ``jupyter_core.paths.jupyter_data_dir()/shell_agent_lab``.

Directories are created 0700; files written by the package are 0600.
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["data_dir", "ensure_private_dir", "ENV_DATA_DIR"]

ENV_DATA_DIR = "SHELL_AGENT_LAB_DATA_DIR"


def data_dir(configured: str | os.PathLike[str] | None = None, *, create: bool = True) -> Path:
    """Return the data directory, creating it (0700) unless ``create`` is false."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        path = Path(env).expanduser()
    elif configured:
        path = Path(configured).expanduser()
    else:
        from jupyter_core.paths import jupyter_data_dir

        path = Path(jupyter_data_dir()) / "shell_agent_lab"
    if create:
        ensure_private_dir(path)
    return path


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make the leaf directory 0700."""
    path.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(path, 0o700)
    except OSError:  # pragma: no cover - e.g. a directory owned by someone else
        pass
    return path
