"""A scripted model from a JSON file, for demos and kernel tests (``SHELL_AGENT_LAB_SCRIPT``).

The file holds a list; each item answers one request, in order:

* ``"text"`` — a plain reply;
* ``{"text": "...", "tool_calls": [{"name": "query_sql", "arguments": {"sql": "SELECT 1"}}]}``.

A request past the end fails with a clear error naming the request.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..llm.errors import ConfigurationError
from ..llm.scripted import ScriptedBackend, reply
from ..llm.types import ToolCall

__all__ = ["ENV_SCRIPT", "load_script"]

ENV_SCRIPT = "SHELL_AGENT_LAB_SCRIPT"


def _item(raw: Any, index: int) -> Any:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict) and set(raw) <= {"text", "tool_calls"}:
        calls = []
        for n, c in enumerate(raw.get("tool_calls") or [], 1):
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                raise ConfigurationError(f"script item {index}: tool call {n} needs a name")
            calls.append(ToolCall(id=f"script_{index}_{n}", name=c["name"], arguments=dict(c.get("arguments") or {})))
        return reply(str(raw.get("text") or ""), *calls)
    raise ConfigurationError(f"script item {index} must be a string or {{'text', 'tool_calls'}}, got {raw!r:.80}")


def load_script(path: str | Path) -> ScriptedBackend:
    p = Path(path).expanduser()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read the model script {p}: {exc}",
                                 hint=f"point {ENV_SCRIPT} at a JSON list of replies") from None
    if not isinstance(data, list):
        raise ConfigurationError(f"the model script {p} must hold a JSON list of replies")
    return ScriptedBackend([_item(x, i) for i, x in enumerate(data, 1)])
