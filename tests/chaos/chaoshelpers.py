"""Helpers of the chaos suite: kill a kernel, read the store from outside, wait for a condition
(a module of its own: ``conftest`` names clash between test folders)."""
from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

DB = "shell_agent_lab.sqlite3"
RUNTIME = "__import__('shell_agent_lab.notebook.runtime', fromlist=['x'])"


def kill(kernel) -> None:
    """SIGKILL the kernel process (no clean-up runs) and wait until it is gone."""
    pid = kernel.km.provisioner.pid
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return
        except (ChildProcessError, ProcessLookupError):
            return
        time.sleep(0.05)
    raise AssertionError(f"kernel {pid} still alive after SIGKILL")


def rows(data_dir: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Read the store from this process, as a separate reader would."""
    with sqlite3.connect(data_dir / DB, timeout=30) as db:
        return db.execute(sql, params).fetchall()


def integrity(data_dir: Path) -> str:
    return rows(data_dir, "PRAGMA integrity_check")[0][0]


def wait_for(predicate, timeout: float = 30, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except sqlite3.OperationalError:     # the database is not created yet
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
