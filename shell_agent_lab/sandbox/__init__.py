"""The operating system's boundary around the programs the model writes.

A program runs in a process of its own inside bubblewrap (user, PID, network and mount
namespaces; read-only access to Python and its libraries only), under a seccomp filter (no
process, no socket, no file opened for writing) and resource limits (address space, CPU time,
file size), with a wall-clock kill. It sees the frames it names, shipped once through shared
memory and mapped read-only, and hands back printed text and plain JSON values. See
``docs/security.md`` for which layer holds each promise.

Where the boundary cannot be set up (no bubblewrap, no user namespaces, no seccomp), programs
are not run without asking: :func:`status` says why, and the answer path asks for approval.
"""
from __future__ import annotations

import sys
import threading

from ._client import ProgramSandbox, SandboxError

__all__ = ["ProgramSandbox", "SandboxError", "Status", "status", "shared", "reset"]

_LOCK = threading.Lock()
_SHARED: ProgramSandbox | None = None
_STATUS: "Status | None" = None


class Status:
    """Whether programs can run behind the boundary here, and if not, why (one line)."""

    def __init__(self, available: bool, reason: str = "") -> None:
        self.available, self.reason = available, reason

    def __bool__(self) -> bool:
        return self.available

    def __repr__(self) -> str:
        return f"Status(available={self.available!r}, reason={self.reason!r})"


def shared() -> ProgramSandbox:
    """The kernel's sandbox (one per process, started on first use)."""
    global _SHARED
    with _LOCK:
        if _SHARED is None:
            import atexit

            _SHARED = ProgramSandbox()
            atexit.register(_SHARED.close)
        return _SHARED


def status() -> Status:
    """Whether the sandbox starts and refuses what it must; tried once per process."""
    with _STATUS_LOCK:
        return _status()


_STATUS_LOCK = threading.Lock()


def _status() -> Status:
    global _STATUS
    if _STATUS is not None:
        return _STATUS
    if not sys.platform.startswith("linux"):
        found = Status(False, "programs are isolated with Linux namespaces and seccomp, which this system lacks")
    else:
        from . import _launch, _seccomp

        if not _launch.bwrap_path():
            found = Status(False, "bubblewrap is not installed (apt-get install bubblewrap)")
        elif not _seccomp.available():
            found = Status(False, "libseccomp is not installed (apt-get install libseccomp2)")
        else:
            try:
                shared()._ensure_started()
                found = Status(True)
            except SandboxError as exc:
                found = Status(False, str(exc))
    _STATUS = found
    return found


def reset() -> None:
    """Forget the sandbox and what :func:`status` found (tests; a changed environment)."""
    global _SHARED, _STATUS
    with _LOCK:
        if _SHARED is not None:
            _SHARED.close()
        _SHARED, _STATUS = None, None
