"""Real ipykernels through jupyter_client, with the extension loaded and a scripted model."""
from __future__ import annotations

import json
import os
import queue
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager


class Kernel:
    """A started kernel and a small API to run cells and read what they showed."""

    def __init__(self, km: KernelManager) -> None:
        self.km = km
        self.kc = km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def send(self, code: str, *, allow_stdin: bool = False) -> str:
        return self.kc.execute(code, allow_stdin=allow_stdin, store_history=True)

    def collect(self, msg_id: str, *, timeout: float = 60, on_msg=None) -> dict[str, Any]:
        """Outputs of one execution until the kernel is idle again."""
        outputs, deadline = [], time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no idle after {timeout} s; outputs so far: {outputs}")
            try:
                msg = self.kc.get_iopub_msg(timeout=remaining)
            except queue.Empty:
                continue
            if on_msg is not None:
                on_msg(msg)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            t = msg["msg_type"]
            if t == "status" and msg["content"]["execution_state"] == "idle":
                break
            if t in ("stream", "display_data", "execute_result", "error", "update_display_data"):
                outputs.append({"type": t, **msg["content"]})
        reply = self.kc.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=timeout)
        return {"outputs": outputs, "reply": reply["content"]}

    def run(self, code: str, **kw: Any) -> dict[str, Any]:
        result = self.collect(self.send(code), **kw)
        if result["reply"]["status"] != "ok":
            raise AssertionError(f"cell failed: {result['reply'].get('evalue')}\n{result['outputs']}")
        return result

    def value(self, expression: str) -> Any:
        """Evaluate in the kernel; JSON round trip."""
        result = self.run(f"import json as _j; print(_j.dumps({expression}))")
        text = "".join(o.get("text", "") for o in result["outputs"] if o["type"] == "stream")
        return json.loads(text.strip().splitlines()[-1])

    def shutdown(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def text_of(outputs: list[dict]) -> str:
    parts = []
    for o in outputs:
        if o["type"] == "stream":
            parts.append(o["text"])
        elif "data" in o:
            parts.append(o["data"].get("text/markdown") or o["data"].get("text/plain") or "")
    return "\n".join(parts)


@pytest.fixture
def start_kernel(tmp_path, _isolated_data_dir):
    """start_kernel(script=[...], notebook="a.ipynb") -> Kernel with %load_ext done."""
    started: list[Kernel] = []

    def start(script: list | None = None, notebook: str | None = None, extra_env: dict | None = None) -> Kernel:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "SHELL_AGENT_LAB_"))}
        env["SHELL_AGENT_LAB_DATA_DIR"] = str(_isolated_data_dir)
        env["PYTHONUNBUFFERED"] = "1"
        if script is not None:
            path = tmp_path / f"script-{len(started)}.json"
            path.write_text(json.dumps(script))
            env["SHELL_AGENT_LAB_SCRIPT"] = str(path)
        if notebook is not None:
            nb = tmp_path / notebook
            nb.write_text("{}")
            env["JPY_SESSION_NAME"] = str(nb)
        env.update(extra_env or {})
        km = KernelManager(kernel_name="python3")
        km.kernel_cmd = None
        km.start_kernel(env=env, cwd=str(tmp_path), extra_arguments=[], )
        k = Kernel(km)
        started.append(k)
        k.run("%load_ext shell_agent_lab")
        return k

    yield start
    for k in started:
        k.shutdown()
