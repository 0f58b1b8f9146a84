"""Small helpers shared by the analysis tool handlers."""
from __future__ import annotations

import re
from typing import Any, Callable

from ..llm.errors import LLMError
from ..llm.types import Message
from ..store.errors import StoreError
from ..tools.registry import ToolContext, ToolError
from .errors import AnalysisError

__all__ = ["engine_of", "store_of", "text_arg", "int_arg", "ask_model", "wrap", "guarded",
           "extract_sql", "schema_text", "has_engine", "has_store", "MAX_MODEL_INPUT_CHARS"]

MAX_MODEL_INPUT_CHARS = 30_000


def has_engine(ctx: ToolContext) -> bool:
    return ctx.engine is not None


def has_store(ctx: ToolContext) -> bool:
    return ctx.store is not None


def engine_of(ctx: ToolContext) -> Any:
    if ctx.engine is None:
        raise ToolError("no analysis database is open for this session.")
    return ctx.engine


def store_of(ctx: ToolContext) -> Any:
    if ctx.store is None:
        raise ToolError("no store is open for this session.")
    return ctx.store


def text_arg(args: dict[str, Any], key: str, *, required: bool = True, default: str = "",
             max_chars: int = 200_000) -> str:
    value = args.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise ToolError(f"{key!r} is required.")
        return default
    if not isinstance(value, str):
        raise ToolError(f"{key!r} must be a string, not {type(value).__name__}.")
    if len(value) > max_chars:
        raise ToolError(f"{key!r} is longer than {max_chars:,} characters.")
    return value


def int_arg(args: dict[str, Any], key: str, default: int, *, low: int, high: int) -> int:
    value = args.get(key, default)
    if value is None:
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ToolError(f"{key!r} must be an integer.") from None
    return max(low, min(high, number))


def wrap(ctx: ToolContext, text: str) -> str:
    """Guard-wrap untrusted text with the session's wrapper (identity when none is set)."""
    wrapper: Callable[[str], str] | None = getattr(ctx, "wrap", None)
    return wrapper(text) if wrapper is not None else text


def ask_model(ctx: ToolContext, system: str, user: str, *, response_format: dict[str, Any] | None = None,
              temperature: float | None = None) -> str:
    """One model call without tools; returns the reply text (``response_format``: a JSON schema
    the reply must match, where the backend supports structured output)."""
    if ctx.backend is None:
        raise ToolError("this tool needs a model, and none is configured for the session.")
    from ..llm.types import ChatOptions
    response = ctx.backend.chat([Message("system", system), Message("user", user)],
                                options=ChatOptions(cancel=ctx.cancel, response_format=response_format,
                                                    temperature=temperature))
    return (response.text or "").strip()


def guarded(fn: Callable[[ToolContext, dict[str, Any]], Any]) -> Callable[[ToolContext, dict[str, Any]], Any]:
    """Turn analysis and store errors into :class:`ToolError` so the model sees one clear line."""
    def handler(ctx: ToolContext, args: dict[str, Any]) -> Any:
        try:
            return fn(ctx, args or {})
        except (AnalysisError, StoreError) as exc:
            raise ToolError(str(exc)) from exc
        except LLMError as exc:
            raise ToolError(f"the model call inside this tool failed: {exc}") from exc
    handler.__name__ = fn.__name__
    handler.__doc__ = fn.__doc__
    return handler


_FENCE = re.compile(r"```(?:sql|duckdb)?\s*\n?(.*?)```", re.S | re.I)


def extract_sql(reply: str) -> str:
    """The SQL in a model reply: the first fenced block, else the text from the first SELECT/WITH."""
    match = _FENCE.search(reply)
    if match:
        return match.group(1).strip()
    start = re.search(r"\b(WITH|SELECT|FROM|PIVOT|UNPIVOT|VALUES)\b", reply, re.I)
    return reply[start.start():].strip() if start else reply.strip()


def schema_text(engine: Any, *, max_chars: int = 8_000) -> str:
    """Tables and DataFrames with their columns, one line each, for prompts."""
    lines = []
    for info in engine.tables():
        cols = ", ".join(f"{c} {t}" for c, t in info.columns)
        label = getattr(info, "label", "table" if info.kind == "table" else f"{info.library} DataFrame")
        lines.append(f"- {info.name} ({label}, {info.rows_text}): {cols}")
    text = "\n".join(lines) or "(no tables or DataFrames)"
    return text if len(text) <= max_chars else text[:max_chars] + "\n…"
