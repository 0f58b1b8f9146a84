"""Turn query results into text for the model (pure functions, no DuckDB).

Values arrive as Python objects from Arrow (``Table.to_pylist()``) together with DuckDB's type
names; each type gets one canonical, unambiguous text form:

========================  ==========================================
UUID                      ``550e8400-e29b-41d4-a716-446655440000``
BLOB                      ``base64:AP9hYg==``
DECIMAL / HUGEINT         plain digits, never exponent notation
INTERVAL                  ``1 month 2 days 03:00:00``
MAP                       ``{a=1, b=2}``
TIME                      ``12:34:56.789``
TIMESTAMP [WITH TZ]       ``2024-01-02 03:04:05`` / ``…+00:00``
DATE                      ``2024-01-02``
LIST / STRUCT             ``[1, 2]`` / ``{'x': 1, 'y': z}``
NULL                      ``NULL``
========================  ==========================================
"""
from __future__ import annotations

import base64
import datetime as _dt
import decimal
import math
import uuid
from collections.abc import Sequence
from typing import Any

__all__ = ["format_value", "render_rows", "format_interval"]

_NULL = "NULL"


def format_interval(months: int, days: int, nanoseconds: int) -> str:
    """DuckDB's canonical interval text, e.g. ``1 year 2 months 3 days 04:05:06.5``."""
    parts: list[str] = []
    years, months = divmod(months, 12) if months >= 0 else (-((-months) // 12), -((-months) % 12))
    for amount, unit in ((years, "year"), (months, "month"), (days, "day")):
        if amount:
            parts.append(f"{amount} {unit}{'' if abs(amount) == 1 else 's'}")
    if nanoseconds or not parts:
        sign = "-" if nanoseconds < 0 else ""
        micros = abs(nanoseconds) // 1000
        seconds, micros = divmod(micros, 1_000_000)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        clock = f"{sign}{hours:02d}:{minutes:02d}:{seconds:02d}"
        if micros:
            clock += f".{micros:06d}".rstrip("0")
        parts.append(clock)
    return " ".join(parts)


def _format_time(value: _dt.time) -> str:
    text = value.strftime("%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    if value.tzinfo is not None:
        offset = value.utcoffset()
        if offset is not None:
            text += _format_offset(offset)
    return text


def _format_offset(offset: _dt.timedelta) -> str:
    total = int(offset.total_seconds())
    sign = "+" if total >= 0 else "-"
    hours, rest = divmod(abs(total), 3600)
    return f"{sign}{hours:02d}:{rest // 60:02d}"


def _format_datetime(value: _dt.datetime) -> str:
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    offset = value.utcoffset()
    if offset is not None:
        text += _format_offset(offset)
    return text


def _format_decimal(value: decimal.Decimal) -> str:
    if not value.is_finite():
        return str(value)
    return format(value, "f")


def _format_float(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    text = repr(value)
    if len(text) > 17 and "e" not in text:    # 101401.16000000002: the sum's binary noise, not data
        text = f"{value:.15g}"
    return text


def _is_map_type(type_name: str) -> bool:
    return type_name.upper().startswith("MAP(")


def _nested(value: Any, type_name: str = "") -> str:
    return format_value(value, type_name, nested=True)


def format_value(value: Any, type_name: str = "", *, nested: bool = False) -> str:
    """Render one value; ``type_name`` is DuckDB's type (e.g. ``"MAP(VARCHAR, INTEGER)"``)."""
    if value is None:
        return _NULL
    upper = type_name.upper()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "base64:" + base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return _format_decimal(value)
    if isinstance(value, float):
        return _format_float(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, _dt.datetime):
        return _format_datetime(value)
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, _dt.time):
        return _format_time(value)
    if isinstance(value, _dt.timedelta):
        return format_interval(0, value.days, (value.seconds * 1_000_000 + value.microseconds) * 1000)
    if type(value).__name__ == "MonthDayNano" or upper == "INTERVAL" and isinstance(value, tuple):
        months, days, nanos = value  # pyarrow.MonthDayNano is a named tuple
        return format_interval(int(months), int(days), int(nanos))
    if isinstance(value, dict):
        if _is_map_type(type_name):
            return "{" + ", ".join(f"{_nested(k)}={_nested(v)}" for k, v in value.items()) + "}"
        return "{" + ", ".join(f"'{k}': {_nested(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        if _is_map_type(type_name) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
            return "{" + ", ".join(f"{_nested(k)}={_nested(v)}" for k, v in value) + "}"
        return "[" + ", ".join(_nested(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_nested(v) for v in value) + ")"
    text = str(value)
    return text


def _cell(value: Any, type_name: str, max_cell: int) -> str:
    text = format_value(value, type_name)
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t").replace("|", "\\|")
    if len(text) > max_cell:
        text = text[: max_cell - 1] + "…"
    return text


def render_rows(columns: Sequence[str], types: Sequence[str], rows: Sequence[Sequence[Any]], *,
                total_rows: int | None = None, max_rows: int = 200, max_chars: int = 30_000,
                max_cell: int = 200) -> str:
    """A Markdown table of ``rows`` with a footer saying what was left out.

    ``total_rows`` is the full result size when ``rows`` is a prefix of it.
    """
    total = len(rows) if total_rows is None else total_rows
    if not columns:
        return "(no columns)"
    header = "| " + " | ".join(_cell(c, "", max_cell) for c in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    lines = [header, rule]
    size = len(header) + len(rule) + 2
    shown = 0
    for row in rows[:max_rows]:
        line = "| " + " | ".join(_cell(v, types[i] if i < len(types) else "", max_cell)
                                 for i, v in enumerate(row)) + " |"
        if size + len(line) + 1 > max_chars and shown:
            break
        lines.append(line)
        size += len(line) + 1
        shown += 1
    if total == 0:
        lines.append("(0 rows)")
    elif shown < total:
        lines.append(f"({total:,} rows; first {shown:,} shown)")
    else:
        lines.append(f"({total:,} row{'s' if total != 1 else ''})")
    return "\n".join(lines)
