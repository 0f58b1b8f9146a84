"""Vega-Lite v5 specs with the query result inlined (pure: rows in, a JSON-ready dict out).

JupyterLab renders ``application/vnd.vegalite.v5+json`` natively, so a chart needs no plotting
dependency. The model supplies a mark and an encoding; field names are checked against the
result's columns, and values are converted to JSON-safe forms (dates as ISO text, decimals as
numbers, blobs as base64).
"""
from __future__ import annotations

import base64
import datetime as _dt
import decimal
import math
import uuid
from collections.abc import Sequence
from typing import Any

from .errors import AnalysisError

__all__ = ["build_spec", "json_value", "MARKS", "CHANNELS", "VEGA_LITE_SCHEMA", "MIME_TYPE"]

VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
MIME_TYPE = "application/vnd.vegalite.v5+json"
MARKS = frozenset({"bar", "line", "point", "area", "tick", "rect", "arc", "boxplot", "circle",
                   "square", "rule", "text", "trail"})
CHANNELS = frozenset({"x", "y", "x2", "y2", "color", "size", "shape", "opacity", "theta", "radius",
                      "row", "column", "facet", "detail", "tooltip", "text", "order", "xOffset",
                      "yOffset", "strokeDash"})
_TYPES = frozenset({"quantitative", "temporal", "ordinal", "nominal"})
_MARK_KEYS = frozenset({"type", "tooltip", "point", "interpolate", "opacity", "color", "filled",
                        "size", "strokeWidth", "innerRadius", "outerRadius", "orient", "line"})
_ENCODING_KEYS = frozenset({"field", "type", "aggregate", "timeUnit", "bin", "title", "sort",
                            "stack", "scale", "axis", "legend", "format", "value"})


def json_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        return float(value) if value.is_finite() else None
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return str(value)


def _check_channel(name: str, spec: Any, columns: Sequence[str]) -> dict[str, Any]:
    if name not in CHANNELS:
        raise AnalysisError(f"unknown encoding channel {name!r}; use one of x, y, color, size, "
                            "theta, tooltip, row, column, …")
    items = spec if isinstance(spec, list) else [spec]
    for item in items:
        if not isinstance(item, dict):
            raise AnalysisError(f"encoding.{name} must be an object like {{\"field\": \"col\", \"type\": \"nominal\"}}.")
        unknown = set(item) - _ENCODING_KEYS
        if unknown:
            raise AnalysisError(f"encoding.{name} has unsupported keys: {', '.join(sorted(unknown))}.")
        field = item.get("field")
        if field is not None and field not in columns:
            raise AnalysisError(f"encoding.{name}.field {field!r} is not a column of the query result "
                                f"({', '.join(columns)}).")
        kind = item.get("type")
        if kind is not None and kind not in _TYPES:
            raise AnalysisError(f"encoding.{name}.type must be quantitative, temporal, ordinal or nominal.")
    return spec


def build_spec(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, mark: Any,
               encoding: Any, title: str = "", max_rows: int = 5_000) -> dict[str, Any]:
    """A Vega-Lite v5 spec; raises :class:`AnalysisError` on a bad mark, encoding or row count."""
    mark_type = mark.get("type") if isinstance(mark, dict) else mark
    if mark_type not in MARKS:
        raise AnalysisError(f"mark must be one of {', '.join(sorted(MARKS))}.")
    if isinstance(mark, dict) and set(mark) - _MARK_KEYS:
        raise AnalysisError(f"mark has unsupported keys: {', '.join(sorted(set(mark) - _MARK_KEYS))}.")
    if not isinstance(encoding, dict) or not encoding:
        raise AnalysisError("encoding must be an object mapping channels (x, y, color, …) to fields.")
    if len(rows) > max_rows:
        raise AnalysisError(f"the chart query returned {len(rows):,} rows; aggregate it to at most "
                            f"{max_rows:,} rows (GROUP BY, date_trunc) before charting.")
    checked = {name: _check_channel(name, spec, columns) for name, spec in encoding.items()}
    values = [{str(c): json_value(v) for c, v in zip(columns, row)} for row in rows]
    spec: dict[str, Any] = {
        "$schema": VEGA_LITE_SCHEMA,
        "data": {"values": values},
        "mark": mark if isinstance(mark, dict) else {"type": mark_type, "tooltip": True},
        "encoding": checked,
        "width": "container",
    }
    if title:
        spec["title"] = title[:200]
    return spec
