"""Checks on tool-call arguments before a handler sees them.

Problems come back to the model as tool errors it can fix: arguments that were not valid JSON
(backends mark them in ``ToolCall.extra``), that exceed the size cap, or that do not match the
tool's JSON schema (the subset :func:`shell_agent_lab.llm.arguments.schema_errors` checks).
"""
from __future__ import annotations

import json
from typing import Any

from ..llm.arguments import schema_errors
from ..llm.types import ToolCall

__all__ = ["argument_problem"]

#: keys a backend may set in ToolCall.extra when the model's arguments were unusable
_INVALID_KEYS = ("arguments_error", "invalid_arguments")


def argument_problem(call: ToolCall, schema: dict[str, Any], max_bytes: int) -> str | None:
    """One line describing what is wrong with ``call``'s arguments, or None when they are fine."""
    for key in _INVALID_KEYS:
        if call.extra.get(key):
            detail = call.extra[key]
            detail = detail if isinstance(detail, str) else "not a JSON object"
            return f"arguments for {call.name} were not valid JSON ({detail}); send one JSON object"
    if not isinstance(call.arguments, dict):
        return f"arguments for {call.name} must be a JSON object, got {type(call.arguments).__name__}"
    try:
        size = len(json.dumps(call.arguments, ensure_ascii=False, default=str).encode())
    except (TypeError, ValueError) as exc:
        return f"arguments for {call.name} are not JSON-serialisable ({exc})"
    if size > max_bytes:
        return f"arguments for {call.name} are too large ({size} bytes, limit {max_bytes}); send less data"
    problems = schema_errors(call.arguments, schema or {}, "arguments")
    if problems:
        return f"invalid arguments for {call.name}: {'; '.join(problems[:5])}"
    return None
