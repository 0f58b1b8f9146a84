"""Turning whatever a user tool returns into bounded text for the model."""
from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["to_text", "cap_text", "MAX_RESULT_CHARS"]

MAX_RESULT_CHARS = 30_000


def cap_text(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """Cut ``text`` to ``limit`` characters, saying how much was dropped."""
    if len(text) <= limit:
        return text
    dropped = len(text) - limit
    return f"{text[:limit]}\n... [output truncated: {dropped} more characters, {len(text)} in all]"


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return value.tolist()
    return repr(value)


def _clean_floats(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {str(k): _clean_floats(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_floats(v) for v in value]
    return value


def to_text(value: Any, limit: int = MAX_RESULT_CHARS) -> str:
    """Render a return value for the model: strings verbatim, data as JSON, frames as text tables."""
    if value is None:
        text = "(no result)"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, bytes):
        text = f"<{len(value)} bytes of binary data>"
    elif _is_dataframe(value):
        text = _frame_text(value)
    else:
        try:
            text = json.dumps(_clean_floats(value), default=_json_default, ensure_ascii=False, indent=1)
        except (TypeError, ValueError):
            text = repr(value)
    return cap_text(text, limit)


def _is_dataframe(value: Any) -> bool:
    module = type(value).__module__ or ""
    return type(value).__name__ == "DataFrame" and module.split(".")[0] in ("pandas", "polars")


def _frame_text(frame: Any, rows: int = 50) -> str:
    shape = frame.shape
    head = frame.head(rows)
    if type(frame).__module__.startswith("polars"):
        head = head.to_pandas()
    body = head.to_string(max_colwidth=80)
    more = f"\n({shape[0] - rows} more rows)" if shape[0] > rows else ""
    return f"DataFrame {shape[0]} rows x {shape[1]} columns\n{body}{more}"
