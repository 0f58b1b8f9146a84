"""Tool calls written as JSON in the reply text, as weak local models often do (pure).

Recognised forms, in this order of preference:

* tagged: ``<tool_call>{...}</tool_call>``, ``<tools>...</tools>``, ``<function_call>...``
  (an unclosed tag at the end of the reply counts too),
* fenced: a Markdown code block (```` ```json ... ``` ```` or plain ```` ``` ````),
* bare: a JSON object (or list of objects) anywhere in the text.

An object is a call when it names one of the offered tools — ``{"name", "arguments"}``,
with ``parameters`` / ``args`` / ``input`` accepted for ``arguments``, or OpenAI's
``{"function": {"name", "arguments"}}`` — and its arguments pass the tool's JSON schema.
Accepted calls are removed from the text; anything else is left alone and explained in
:attr:`LenientResult.rejected`.
"""
from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from .arguments import schema_errors
from .types import ToolCall, ToolSpec

__all__ = ["LenientResult", "extract_tool_calls"]

_TAGGED = re.compile(r"<(tool_call|tools|function_call)>\s*(.*?)\s*(?:</\1>|\Z)", re.S | re.I)
_FENCED = re.compile(r"```[ \t]*([A-Za-z_]*)[ \t]*\n?(.*?)```", re.S)
_ARG_KEYS = ("arguments", "parameters", "args", "input")
_decoder = json.JSONDecoder()


@dataclass
class LenientResult:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    #: why JSON-looking candidates were not taken as calls (for logs and diagnostics)
    rejected: list[str] = field(default_factory=list)


def _new_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def extract_tool_calls(text: str, tools: Sequence[ToolSpec], *,
                       new_id: Callable[[], str] = _new_id) -> LenientResult:
    """Find tool calls in ``text``; return the text without them and the calls found."""
    if not text or not tools:
        return LenientResult(text=text)
    by_name = {t.name: t for t in tools}
    result = LenientResult(text=text)
    spans: list[tuple[int, int]] = []

    def taken(start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in spans)

    def consider(start: int, end: int, body: str) -> None:
        values = list(_json_values(body))
        if not values:
            return
        calls: list[ToolCall] = []
        for value in values:
            for candidate in (value if isinstance(value, list) else [value]):
                call = _as_call(candidate, by_name, new_id, result.rejected)
                if call is None:
                    return
                calls.append(call)
        result.tool_calls.extend(calls)
        spans.append((start, end))

    for match in _TAGGED.finditer(text):
        consider(match.start(), match.end(), match.group(2))
    for match in _FENCED.finditer(text):
        if not taken(match.start(), match.end()):
            consider(match.start(), match.end(), match.group(2))
    index = 0
    while index < len(text):
        brace = _next_brace(text, index)
        if brace < 0:
            break
        if taken(brace, brace + 1):
            index = brace + 1
            continue
        try:
            value, end = _decoder.raw_decode(text, brace)
        except ValueError:
            index = brace + 1
            continue
        if isinstance(value, (dict, list)) and not taken(brace, end):
            before = len(result.tool_calls)
            consider(brace, end, text[brace:end])
            if len(result.tool_calls) > before:
                index = end
                continue
        index = brace + 1
    if spans:
        result.text = _strip_spans(text, spans)
    return result


def _next_brace(text: str, start: int) -> int:
    positions = [p for p in (text.find("{", start), text.find("[", start)) if p >= 0]
    return min(positions) if positions else -1


def _json_values(body: str) -> Iterator[Any]:
    """Every top-level JSON value in ``body`` (one or several, whitespace separated)."""
    body = body.strip()
    index = 0
    while index < len(body):
        try:
            value, index = _decoder.raw_decode(body, index)
        except ValueError:
            return
        yield value
        while index < len(body) and body[index] in " \t\r\n,;":
            index += 1


def _as_call(value: Any, by_name: dict[str, ToolSpec], new_id: Callable[[], str],
             rejected: list[str]) -> ToolCall | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):
        value = value["function"]
    name = value.get("name") or value.get("tool") or value.get("tool_name")
    if not isinstance(name, str):
        return None
    name = name.strip().replace("-", "_")
    spec = by_name.get(name)
    if spec is None:
        rejected.append(f"unknown tool {name!r}")
        return None
    arguments: Any = {}
    for key in _ARG_KEYS:
        if key in value:
            arguments = value[key]
            break
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            rejected.append(f"{name}: arguments are not JSON")
            return None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        rejected.append(f"{name}: arguments must be an object")
        return None
    problems = schema_errors(arguments, spec.parameters or {})
    if problems:
        rejected.append(f"{name}: " + "; ".join(problems))
        return None
    call_id = value.get("id") if isinstance(value.get("id"), str) and value.get("id") else new_id()
    return ToolCall(id=call_id, name=name, arguments=arguments)


def _strip_spans(text: str, spans: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if start < cursor:
            continue
        pieces.append(text[cursor:start])
        cursor = end
    pieces.append(text[cursor:])
    joined = "".join(pieces)
    return re.sub(r"\n{3,}", "\n\n", joined).strip()
