"""A started kernel and what its cells showed (a module of its own: `conftest` names clash)."""
from __future__ import annotations

import json
import queue
import time
from typing import Any

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
