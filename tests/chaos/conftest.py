"""Fixtures for the chaos suite: real kernels that can be killed, and a look at the store on disk."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernel"))
from kernelhelpers import Kernel  # noqa: E402

DB = "shell_agent_lab.sqlite3"
RUNTIME = "__import__('shell_agent_lab.notebook.runtime', fromlist=['x'])"


@pytest.fixture
def start_kernel(tmp_path, _isolated_data_dir):
    """start_kernel(script=[...], notebook="a.ipynb") -> Kernel with %load_ext done; ``kill(k)``
    ends one with SIGKILL."""
    started: list[Kernel] = []

    def start(script: list | None = None, notebook: str | None = None, extra_env: dict | None = None) -> Kernel:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "SHELL_AGENT_LAB_"))}
        env["SHELL_AGENT_LAB_DATA_DIR"] = str(_isolated_data_dir)
        env["PYTHONUNBUFFERED"] = "1"
        path = tmp_path / f"script-{len(started)}.json"
        path.write_text(json.dumps(script or []))
        env["SHELL_AGENT_LAB_SCRIPT"] = str(path)
        if notebook is not None:
            nb = tmp_path / notebook
            if not nb.exists():
                nb.write_text("{}")
            env["JPY_SESSION_NAME"] = str(nb)
        env.update(extra_env or {})
        km = KernelManager(kernel_name="python3")
        km.start_kernel(env=env, cwd=str(tmp_path))
        k = Kernel(km)
        started.append(k)
        k.run("%load_ext shell_agent_lab")
        return k

    yield start
    for k in started:
        try:
            k.shutdown()
        except Exception:       # killed kernels are already gone
            pass


def kill(kernel: Kernel) -> None:
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
