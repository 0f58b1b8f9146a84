"""What an operation may read: each table's columns with what their values hold.

A :class:`TableColumns` lists a table's columns by their real names, each marked with how it
is read: as numbers (a number type, or numbers written as text that ``num()`` reads), as dates
(a date type, or dates written as text in a profiled format), or as they are. The schema the
model fills and the compiler both work from it, so a name the model could produce is a name
the SQL can read. :func:`tables_of` builds them from the engine (its catalogue and its
``column_profile`` hints); tests and callers may build them directly.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


__all__ = ["ColumnInfo", "TableColumns", "tables_of", "quoted"]


def quoted(name: str) -> str:
    """``name`` as an SQL identifier, always double-quoted (a bare name can be a keyword in
    some position, such as ``at``)."""
    return '"' + name.replace('"', '""') + '"'


log = logging.getLogger(__name__)

_NUMBER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                 "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "REAL", "BOOLEAN")
#: at most this many columns of one table are offered (the schema stays small)
MAX_COLUMNS = 120


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: str = "VARCHAR"
    #: a text column holding numbers written as text (read with ``num()``)
    text_numbers: bool = False
    #: a text column holding dates: "DATE" / "TIMESTAMP" (a cast) or a strptime format
    date_format: str = ""

    @property
    def is_text(self) -> bool:
        return self.type.upper().startswith(("VARCHAR", "STRING", "TEXT"))

    @property
    def number_type(self) -> bool:
        return self.type.upper().startswith(_NUMBER_TYPES)

    @property
    def numeric(self) -> bool:
        """Read as numbers: a number type, or numbers written as text."""
        return self.number_type or (self.is_text and self.text_numbers)

    @property
    def date_like(self) -> bool:
        upper = self.type.upper()
        return upper.startswith(("DATE", "TIMESTAMP")) or (self.is_text and bool(self.date_format))

    @property
    def has_time(self) -> bool:
        """Values carry a time of day (an hour can be read from them)."""
        upper = self.type.upper()
        if upper.startswith("TIMESTAMP"):
            return True
        return self.is_text and (self.date_format == "TIMESTAMP" or "%H" in self.date_format)

    def number_sql(self) -> str:
        """This column read as numbers, in SQL."""
        q = quoted(self.name)
        if self.is_text:
            return f"num({q})"
        if self.type.upper().startswith("BOOLEAN"):
            return f"CAST({q} AS INTEGER)"
        return q

    def date_sql(self) -> str:
        """This column read as a date or timestamp, in SQL (unreadable text is NULL)."""
        q = quoted(self.name)
        if not self.is_text:
            return q
        if self.date_format in ("DATE", "TIMESTAMP"):
            return f"TRY_CAST({q} AS {self.date_format})"
        fmt = self.date_format.replace("'", "''")
        return f"try_strptime({q}, '{fmt}')"

    def value_sql(self) -> str:
        """This column read as what it holds: numbers, dates, or the raw value."""
        if self.numeric and self.is_text:
            return self.number_sql()
        if self.date_like and self.is_text:
            return self.date_sql()
        return quoted(self.name)

    def reading(self) -> str:
        """How the column is read, for a result's definitions ("" when read as it is)."""
        if self.is_text and self.text_numbers:
            return f"{self.name} read as numbers with num()"
        if self.is_text and self.date_format in ("DATE", "TIMESTAMP"):
            return f"{self.name} read as {self.date_format} (TRY_CAST)"
        if self.is_text and self.date_format:
            return f"{self.name} read as dates in the format {self.date_format}"
        return ""


@dataclass(frozen=True)
class TableColumns:
    name: str
    columns: tuple[ColumnInfo, ...] = field(default_factory=tuple)

    def column(self, name: Any) -> ColumnInfo | None:
        for column in self.columns:
            if column.name == name:
                return column
        return None

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def numeric(self) -> list[str]:
        return [c.name for c in self.columns if c.numeric]

    @property
    def dates(self) -> list[str]:
        return [c.name for c in self.columns if c.date_like]

    @classmethod
    def of(cls, name: str, columns: Iterable[tuple[str, str]], profile: dict[str, dict[str, Any]] | None = None
           ) -> "TableColumns":
        """A table from ``(column, type)`` pairs and an engine ``column_profile`` (optional)."""
        hints = profile or {}
        return cls(name, tuple(ColumnInfo(c, t, text_numbers=bool(hints.get(c, {}).get("text_numbers")),
                                          date_format=str(hints.get(c, {}).get("date_format") or ""))
                               for c, t in list(columns)[:MAX_COLUMNS]))


def tables_of(engine: Any, names: Sequence[str] | None = None) -> list[TableColumns]:
    """The engine's tables and DataFrames (``names`` only, when given; an unknown name raises
    the engine's one-line error), each with its columns profiled."""
    if names is None:
        infos = list(engine.tables())
    else:
        infos = [engine.describe(n) for n in names]
    out = []
    for info in infos:
        try:
            profile = engine.column_profile(info.name)
        except Exception:   # a table without hints is still a table
            log.debug("no column profile for %s", info.name, exc_info=True)
            profile = {}
        out.append(TableColumns.of(info.name, info.columns, profile))
    return out
