"""Run Python code in a child process that file permissions really apply to, even as root.

Root reads a mode-000 file through two capabilities (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH);
the child drops both from its bounding set before it starts, so an unreadable file is unreadable
to it. For a non-root user the child simply runs as that user.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys

__all__ = ["run_honouring_permissions"]

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE = 1
_CAP_DAC_READ_SEARCH = 2


def _drop_file_capabilities() -> None:  # runs in the child, between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def run_honouring_permissions(code: str, *, env: dict[str, str] | None = None,
                              timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -c code`` in a child that cannot bypass file permissions."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})},
                          preexec_fn=_drop_file_capabilities if os.geteuid() == 0 else None)
