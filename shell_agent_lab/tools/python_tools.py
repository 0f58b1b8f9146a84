"""Python functions as tools: ``@shell_agent_lab.tool``.

The JSON schema comes from the signature and type hints, the description and the
per-parameter help from the docstring (Google ``Args:``, NumPy ``Parameters`` or Sphinx
``:param x:`` styles). Decorated functions land in :data:`USER_TOOLS`, which every agent
in the kernel offers next to the built-in tools::

    import shell_agent_lab as sal

    @sal.tool(category="read")
    def fx_rate(currency: str, day: str | None = None) -> float:
        '''Euro exchange rate for a currency.

        Args:
            currency: ISO code such as "USD".
            day: YYYY-MM-DD; today when omitted.
        '''
"""
from __future__ import annotations

import collections.abc as cabc
import dataclasses
import enum
import inspect
import re
import threading
import types
import typing
import weakref
from typing import Any, Callable, Literal

from ._convert import to_text
from .registry import Category, ToolContext, ToolDescriptor, ToolError, ToolRegistry, ToolResult

__all__ = ["tool", "USER_TOOLS", "describe_function", "schema_for_annotation", "attach_user_tools"]

#: tools registered with ``@tool`` in this process (one kernel)
USER_TOOLS = ToolRegistry()
_mirrors: "weakref.WeakSet[ToolRegistry]" = weakref.WeakSet()
_mirror_lock = threading.Lock()


def attach_user_tools(registry: ToolRegistry) -> None:
    """Offer every ``@tool`` function — those defined so far and those defined later — in ``registry``."""
    with _mirror_lock:
        _mirrors.add(registry)
        current = USER_TOOLS.all()
    for descriptor in current:
        registry.register(descriptor)

_NONE = type(None)
_SEQUENCE_ORIGINS = (list, tuple, set, frozenset, cabc.Sequence, cabc.Iterable, cabc.Set)


def schema_for_annotation(annotation: Any) -> dict[str, Any]:
    """JSON schema for a Python type hint (best effort; unknown types become free-form)."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not _NONE]
        if len(options) == 1:
            return schema_for_annotation(options[0])
        return {"anyOf": [schema_for_annotation(a) for a in options]}
    if origin is Literal:
        values = list(args)
        schema: dict[str, Any] = {"enum": values}
        kinds = {type(v) for v in values}
        if len(kinds) == 1:
            schema.update(schema_for_annotation(kinds.pop()))
        return schema
    if origin is typing.Annotated:
        return schema_for_annotation(args[0])
    if annotation is str:
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if inspect.isclass(annotation) and issubclass(annotation, enum.Enum):
        return {"enum": [m.value for m in annotation]}
    if annotation in (list, tuple, set, frozenset) or origin in _SEQUENCE_ORIGINS:
        item = None
        if args:
            if origin is tuple:
                if (len(args) == 2 and args[1] is Ellipsis) or len(set(args)) == 1:
                    item = args[0]
            else:
                item = args[0]
        schema = {"type": "array"}
        if item is not None:
            schema["items"] = schema_for_annotation(item)
        return schema
    if annotation is dict or origin is dict:
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = schema_for_annotation(args[1])
        return schema
    if dataclasses.is_dataclass(annotation):
        hints = typing.get_type_hints(annotation)
        props = {f.name: schema_for_annotation(hints.get(f.name, Any)) for f in dataclasses.fields(annotation)}
        required = [f.name for f in dataclasses.fields(annotation)
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        return {"type": "object", "properties": props, "required": required}
    return {}


_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns?|Raises|Yields|Examples?|Notes?)\s*:?\s*$")
_GOOGLE_PARAM = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[\w\[\], |]+\s+)?(\w+)\s*:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Return (description, {param: help}) from a docstring in any common style."""
    doc = inspect.cleandoc(doc or "")
    if not doc:
        return "", {}
    lines = doc.splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section = None
    current: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m_section = _SECTION.match(line)
        if m_section:
            # NumPy style underlines the header with dashes
            if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
                i += 1
            section = m_section.group(1).lower()
            current = None
            i += 1
            continue
        sphinx = _SPHINX_PARAM.match(line)
        if sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            section = "sphinx"
        elif section in ("args", "arguments", "parameters", "params"):
            stripped = line.strip()
            google = _GOOGLE_PARAM.match(line)
            indent = len(line) - len(line.lstrip())
            numpy_style = re.match(r"^\s*\w+\s+:", line) is not None   # "name : type"
            if google and indent <= 4 and google.group(1).lstrip("*"):
                current = google.group(1).lstrip("*")
                params[current] = "" if numpy_style else google.group(3).strip()
            elif stripped and current and indent > 0:
                params[current] = (params[current] + " " + stripped).strip()
            elif stripped and indent == 0:
                # NumPy: "name : type" then indented help
                current = stripped.split(":")[0].strip()
                params[current] = ""
        elif section is None:
            description.append(line)
        elif section == "sphinx" and current and line.startswith((" ", "\t")):
            params[current] = (params[current] + " " + line.strip()).strip()
        i += 1
    text = "\n".join(description).strip()
    return text, {k: v for k, v in params.items()}


def describe_function(fn: Callable[..., Any]) -> tuple[str, dict[str, Any]]:
    """(description, JSON-schema parameters) for ``fn``."""
    description, param_help = _parse_docstring(fn.__doc__ or "")
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # unresolvable forward references: fall back to raw annotations
        hints = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if name in ("ctx", "context") and hints.get(name, param.annotation) in (ToolContext, "ToolContext"):
            continue
        schema = dict(schema_for_annotation(hints.get(name, param.annotation)))
        if name in param_help and param_help[name]:
            schema["description"] = param_help[name]
        if param.default is inspect.Parameter.empty:
            required.append(name)
        elif param.default is not None and isinstance(param.default, (str, int, float, bool)):
            schema["default"] = param.default
        properties[name] = schema
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return description or f"Call the Python function {fn.__name__}.", parameters


def _wants_context(fn: Callable[..., Any]) -> str | None:
    for name, param in inspect.signature(fn).parameters.items():
        if name in ("ctx", "context") and param.annotation in (ToolContext, "ToolContext"):
            return name
    return None


def _make_handler(fn: Callable[..., Any], parameters: dict[str, Any]) -> Callable[[ToolContext, dict], ToolResult]:
    allowed = set(parameters.get("properties", {}))
    required = set(parameters.get("required", []))
    ctx_name = _wants_context(fn)

    def handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        unknown = sorted(set(args) - allowed)
        if unknown:
            raise ToolError(f"unknown argument(s) {', '.join(unknown)}; expected: {', '.join(sorted(allowed)) or 'none'}")
        missing = sorted(required - set(args))
        if missing:
            raise ToolError(f"missing required argument(s): {', '.join(missing)}")
        kwargs = dict(args)
        if ctx_name:
            kwargs[ctx_name] = ctx
        try:
            value = fn(**kwargs)
        except ToolError:
            raise
        except Exception as exc:  # the model sees the failure and can adapt
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc
        if isinstance(value, ToolResult):
            return value
        data: dict[str, Any] = {}
        if _is_frame(value):
            data["tables"] = [value]
        return ToolResult(to_text(value), data=data)

    return handler


def _is_frame(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and (type(value).__module__ or "").startswith("pandas")


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None,
         category: Category = "read", approval: bool | None = None,
         registry: ToolRegistry | None = None) -> Any:
    """Register a function as a tool the agent may call.

    ``category`` is read, write or execute; ``approval`` defaults to on for write and
    execute tools. Works bare (``@tool``) or with options (``@tool(category="write")``).
    The decorated function is returned unchanged, so it stays callable from cells.
    """
    target = registry if registry is not None else USER_TOOLS

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        tool_name = (name or func.__name__).replace("-", "_").lower()
        desc, parameters = describe_function(func)
        descriptor = ToolDescriptor(
            name=tool_name,
            description=description or desc,
            parameters=parameters,
            handler=_make_handler(func, parameters),
            category=category,
            approval_default=approval if approval is not None else category in ("write", "execute"),
            dialog="execute" if category == "execute" else None,
            source="python",
        )
        target.register(descriptor)
        if target is USER_TOOLS:
            with _mirror_lock:
                mirrors = list(_mirrors)
            for mirror in mirrors:
                mirror.register(descriptor)
        func.__shell_agent_tool__ = descriptor  # type: ignore[attr-defined]
        return func

    return register(fn) if fn is not None else register
