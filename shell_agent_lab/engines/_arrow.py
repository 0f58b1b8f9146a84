"""Rows from a driver into Arrow record batches with a fixed schema, within a cap (pure)."""
from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

__all__ = ["arrow_type", "to_batch", "short"]

_TYPES = {
    "int2": pa.int16(), "int4": pa.int32(), "int8": pa.int64(), "oid": pa.int64(),
    "float4": pa.float32(), "float8": pa.float64(), "numeric": pa.float64(), "money": pa.string(),
    "bool": pa.bool_(), "date": pa.date32(), "timestamp": pa.timestamp("us"),
    "timestamptz": pa.timestamp("us", tz="UTC"), "text": pa.string(), "varchar": pa.string(),
    "bpchar": pa.string(), "name": pa.string(), "char": pa.string(),
}


def arrow_type(pg_type: str | None) -> pa.DataType:
    """The Arrow type for a PostgreSQL type name (text for anything without a plain mapping)."""
    return _TYPES.get((pg_type or "").lower(), pa.string())


def _convert(value: Any, type_: pa.DataType) -> Any:
    if value is None:
        return None
    if pa.types.is_floating(type_) and isinstance(value, decimal.Decimal):
        return float(value)
    if pa.types.is_string(type_) and not isinstance(value, str):
        return str(value)
    if pa.types.is_timestamp(type_) and isinstance(value, _dt.datetime) and type_.tz and value.tzinfo is None:
        return value.replace(tzinfo=_dt.timezone.utc)
    return value


def to_batch(rows: Sequence[Sequence[Any]], schema: pa.Schema) -> pa.RecordBatch:
    columns = list(zip(*rows)) if rows else [()] * len(schema)
    arrays = [pa.array([_convert(v, f.type) for v in col], type=f.type) for col, f in zip(columns, schema)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def short(value: Any, limit: int = 40) -> str:
    text = "NULL" if value is None else str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
