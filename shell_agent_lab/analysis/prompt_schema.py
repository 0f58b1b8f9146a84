"""The data schema as the model's prompt shows it: names exactly as SQL needs them (pure).

One line per column: its SQL name (double-quoted where it has dots, spaces, brackets or a
leading digit), its type, a few values, and what the values hide — numbers stored as text (read
them with ``num()``), the ways a missing value is written. A small model copies names from here,
so what it copies must run. The text is a pure function of the engine's answers, so it stays
byte-identical across turns while the data is unchanged (prompt caches keep hitting).
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from .sql_repair import sql_name

__all__ = ["schema_block", "schema_text"]

log = logging.getLogger(__name__)

_MAX_COLUMNS = 60
#: how a missing value reads in samples (never shown as an example)
_NOT_VALUES = frozenset({"", "NULL", "NaN", "None", "nan", "NaT", "<NA>"})


def _profile(engine: Any, name: str) -> dict[str, dict[str, Any]]:
    profile = getattr(engine, "column_profile", None)
    if profile is None:
        return {}
    try:
        return profile(name)
    except Exception:          # a prompt without hints beats no prompt
        log.debug("no column profile for %s", name, exc_info=True)
        return {}


def _kind(info: Any) -> str:
    if info.kind == "remote":      # a connection's table says its SQL dialect
        return info.label
    return "table" if info.kind == "table" else f"{info.library} DataFrame"


def _column_line(column: str, type_: str, samples: Sequence[str], hints: dict[str, Any]) -> str:
    shown = list(dict.fromkeys(s for s in samples if s not in _NOT_VALUES))[:2]
    for extra in hints.get("examples") or ():
        if extra not in shown and len(shown) < 3:
            shown.append(extra)
    name = sql_name(column)
    line = f"- {name} {type_}"
    date_format = hints.get("date_format") or ""
    if hints.get("text_numbers"):
        line += f" (numbers stored as text: use num({name}))"
    elif date_format in ("DATE", "TIMESTAMP"):
        line += f" (dates stored as text: use CAST({name} AS {date_format}))"
    elif date_format:
        line += f" (dates stored as text: use strptime({name}, '{date_format}'))"
    if shown:
        line += ": " + " | ".join(_clip(s) for s in shown)
    missing = [m if m else "''" for m in hints.get("missing") or ()]
    if missing:
        line += "; missing: " + " | ".join(_clip(m) for m in missing)
    return line


def _clip(text: str, limit: int = 28) -> str:
    text = str(text).replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def schema_block(tables: Sequence[Any], engine: Any = None, *, max_chars: int = 8000,
                 sharing: str = "rows") -> str:
    """The schema section of the prompt for ``tables`` (``TableInfo``s); ``engine`` (optional)
    adds per-column hints through its ``column_profile``. ``sharing`` (see
    :mod:`shell_agent_lab.sharing`): below "rows" no sample value is shown, at "schema" no row
    count either."""
    lines: list[str] = []
    for info in tables:
        size = "" if sharing == "schema" else f", {info.rows_text}"
        lines.append(f"{info.name} ({_kind(info)}{size}); columns:")
        hints = _profile(engine, info.name) if engine is not None else {}
        for column, type_ in info.columns[:_MAX_COLUMNS]:
            samples = (info.samples or {}).get(column, []) if sharing == "rows" else []
            hint = hints.get(column, {})
            if sharing != "rows":
                hint = {k: v for k, v in hint.items() if k != "examples"}
            lines.append(_column_line(column, type_, samples, hint))
        if len(info.columns) > _MAX_COLUMNS:
            lines.append(f"- … {len(info.columns) - _MAX_COLUMNS} more columns (describe_data lists them)")
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[:max_chars] + "\n…"


def schema_text(engine: Any, *, tables: Sequence[Any] | None = None, max_chars: int = 8000,
                sharing: str = "rows") -> str:
    """The schema section for the engine's tables and DataFrames, "" when there are none: the
    one schema text every prompt uses (the agent's system prompt, the tools that ask the model).
    ``tables``: the engine's ``tables()`` when already listed."""
    listed = list(engine.tables()) if tables is None else list(tables)
    return schema_block(listed, engine, max_chars=max_chars, sharing=sharing) if listed else ""
