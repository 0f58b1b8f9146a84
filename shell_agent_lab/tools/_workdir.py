"""The session's work directory: created on first use, private to the user (0700)."""
from __future__ import annotations

import os
from pathlib import Path

from .registry import ToolError

__all__ = ["ensure_work_dir"]


def ensure_work_dir(path: Path | str) -> Path:
    """Create ``path`` (and its parents) when missing, the directory itself mode 0700.

    An existing directory is left as it is. Raises :class:`ToolError` with one line when it
    cannot be created.
    """
    work = Path(path)
    if work.is_dir():
        return work
    try:
        work.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(work, 0o700)          # the mode given to mkdir is narrowed by the umask only
    except OSError as exc:
        raise ToolError(f"cannot create the session's work directory {work}: {exc.strerror or exc}") from exc
    return work
