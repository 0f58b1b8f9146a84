"""Fixtures for the chaos suite: real kernels that can be killed (see ``chaoshelpers``)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernel"))
from kernelhelpers import Kernel  # noqa: E402


@pytest.fixture
def start_kernel(tmp_path, _isolated_data_dir):
    """start_kernel(script=[...], notebook="a.ipynb") -> Kernel with %load_ext done
    (``chaoshelpers.kill`` ends one with SIGKILL)."""
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
