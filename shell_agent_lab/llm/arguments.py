"""Tool-call arguments: size cap, JSON parsing and a small JSON-schema check (pure)."""
from __future__ import annotations

import json
from typing import Any, Mapping

from .errors import ToolArgumentsError

__all__ = ["MAX_TOOL_ARGS_BYTES", "parse_tool_arguments", "schema_errors"]

#: reference app: ``MaxToolCallArgsBytesDefault``
MAX_TOOL_ARGS_BYTES = 1024 * 1024


def parse_tool_arguments(raw: str | Mapping[str, Any] | None, *, tool_name: str = "",
                         tool_call_id: str = "", limit: int = MAX_TOOL_ARGS_BYTES) -> dict[str, Any]:
    """Turn the model's argument string into a dict.

    Empty means no arguments. More than ``limit`` bytes, text that is not JSON, or JSON that
    is not an object raise :class:`ToolArgumentsError`.
    """
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        encoded = json.dumps(raw, ensure_ascii=False, default=str)
        if len(encoded.encode("utf-8")) > limit:
            raise _too_big(tool_name, tool_call_id, len(encoded.encode("utf-8")), limit)
        return dict(raw)
    size = len(raw.encode("utf-8"))
    if size > limit:
        raise _too_big(tool_name, tool_call_id, size, limit)
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ToolArgumentsError(
            f"arguments for tool {tool_name!r} are not valid JSON ({exc.msg} at position {exc.pos})",
            tool_name=tool_name, tool_call_id=tool_call_id) from exc
    if not isinstance(value, dict):
        raise ToolArgumentsError(
            f"arguments for tool {tool_name!r} must be a JSON object, got {type(value).__name__}",
            tool_name=tool_name, tool_call_id=tool_call_id)
    return value


def _too_big(name: str, call_id: str, size: int, limit: int) -> ToolArgumentsError:
    return ToolArgumentsError(f"arguments for tool {name!r} are {size} bytes, over the {limit}-byte cap",
                              tool_name=name, tool_call_id=call_id)


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "object": (dict,), "array": (list,), "null": (type(None),),
}


def _matches(value: Any, type_name: str) -> bool:
    kinds = _TYPES.get(type_name)
    if kinds is None:
        return True  # unknown type keyword: do not reject
    if type_name in ("integer", "number") and isinstance(value, bool):
        return False
    if type_name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, kinds)


def schema_errors(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Check ``value`` against the subset of JSON Schema tool definitions use.

    Covers ``type`` (one or several), ``required``, ``properties``, ``additionalProperties:
    false``, ``enum``, ``items``. Returns human-readable problems; empty means valid.
    """
    problems: list[str] = []
    declared = schema.get("type")
    if declared is not None:
        names = declared if isinstance(declared, list) else [declared]
        if not any(_matches(value, n) for n in names):
            return [f"{path}: expected {' or '.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{path}: {value!r} is not one of {schema['enum']!r}")
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for key in schema.get("required") or ():
            if key not in value:
                problems.append(f"{path}: missing required {key!r}")
        for key, item in value.items():
            if key in props:
                problems.extend(schema_errors(item, props[key], f"{path}.{key}"))
            elif schema.get("additionalProperties") is False:
                problems.append(f"{path}: unexpected {key!r}")
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            problems.extend(schema_errors(item, schema["items"], f"{path}[{index}]"))
    return problems
