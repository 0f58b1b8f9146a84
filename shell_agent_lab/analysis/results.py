"""What the engine returns, and the naming rules it enforces (no DuckDB connection here)."""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any, Literal

import pyarrow as pa

from .dataframes import IDENTIFIER
from .errors import RowCapError, TableNameError
from .render import format_value, render_rows

__all__ = ["TableInfo", "QueryResult", "quote_ident", "validate_table_name", "first_line",
           "INTERNAL_PREFIX", "is_internal_name", "MAX_NAME", "collect_capped"]

MAX_NAME = 128
#: names the engine uses for itself (load streams, background stores); refused as table names
INTERNAL_PREFIX = "_sal_"


def is_internal_name(name: str) -> bool:
    """A table the engine keeps for itself (pending-load records, half-stored tables), not the user's."""
    return str(name).lower().startswith(INTERNAL_PREFIX)


def quote_ident(name: str) -> str:
    """A DuckDB identifier literal: ``"na""me"``."""
    return '"' + name.replace('"', '""') + '"'


@dataclass
class TableInfo:
    name: str
    kind: Literal["table", "dataframe", "remote"]
    rows: int
    columns: list[tuple[str, str]]
    description: str = ""
    #: "duckdb" for loaded tables, else the DataFrame's library (pandas / polars / pyarrow)
    library: str = "duckdb"
    #: a few values per column, as text
    samples: dict[str, list[str]] = field(default_factory=dict)
    #: a large file still being stored in the background (queries already read it)
    loading: bool = False
    #: False when ``rows`` is an estimate (a text file still being stored)
    rows_exact: bool = True

    @property
    def rows_text(self) -> str:
        """``"1,234 rows"``, or an estimate marked as one while the file is being stored."""
        if self.rows_exact:
            text = f"{self.rows:,} rows"
        else:
            text = f"about {self.rows:,} rows (estimated)"
        if self.loading:
            text += "; queryable now, being stored in the session database in the background"
        return text


@dataclass
class QueryResult:
    sql: str
    columns: list[str]
    types: list[str]
    table: pa.Table
    elapsed: float = 0.0
    path: str = "chat"
    #: corrections made to the statement before it ran (see :mod:`.sql_repair`), one line each
    repairs: list[str] = field(default_factory=list)
    #: where a result pushed down to a connection is kept, for the model (empty for local queries)
    note: str = ""

    @property
    def row_count(self) -> int:
        return self.table.num_rows

    @property
    def rows(self) -> list[tuple[Any, ...]]:
        columns = [self.table.column(i).to_pylist() for i in range(self.table.num_columns)]
        return list(zip(*columns)) if columns else []

    def to_pandas(self) -> Any:
        """The result as a pandas DataFrame (Python objects for types pandas has no dtype for)."""
        try:
            frame = self.table.to_pandas()
        except (pa.ArrowException, NotImplementedError, ValueError):
            import pandas as pd
            frame = pd.DataFrame.from_records(self.rows, columns=range(len(self.columns)))
        frame.columns = list(self.columns)
        return frame

    def to_text(self, *, max_rows: int = 200, max_chars: int = 30_000) -> str:
        """A one-row result as ``column = value`` lines (a small model reads them without
        mixing up columns); any other as a Markdown table with no row index."""
        if self.row_count == 1 and 0 < len(self.columns) <= 30:
            row = self.rows[0]
            lines = [f"{c} = {_one_line(format_value(v, self.types[i] if i < len(self.types) else ''))}"
                     for i, (c, v) in enumerate(zip(self.columns, row))]
            text = "\n".join(lines) + "\n(1 row)"
            if len(text) <= max_chars:
                return text
        head = self.table.slice(0, max_rows)
        columns = [head.column(i).to_pylist() for i in range(head.num_columns)]
        rows = list(zip(*columns)) if columns else []
        return render_rows(self.columns, self.types, rows, total_rows=self.row_count,
                           max_rows=max_rows, max_chars=max_chars)


def _one_line(text: str, limit: int = 2_000) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def validate_table_name(name: Any) -> str:
    """Return ``name`` if it is a plain identifier we allow as a table name."""
    if not isinstance(name, str) or not IDENTIFIER.match(name):
        raise TableNameError(
            f"invalid table name {name!r}: use letters, digits and underscores, starting with a "
            "letter or underscore (e.g. sales_2024).")
    if len(name) > MAX_NAME:
        raise TableNameError(f"table name is longer than {MAX_NAME} characters.")
    if is_internal_name(name):
        raise TableNameError(f"table names starting with {INTERNAL_PREFIX!r} are reserved.")
    return name


def collect_capped(batches: Iterable[pa.RecordBatch], schema: pa.Schema, *, max_rows: int, max_bytes: int,
                   too_many_rows: str) -> pa.Table:
    """Concatenate ``batches`` into a table, raising :class:`RowCapError` as soon as they pass
    ``max_rows`` (with ``too_many_rows`` as the message) or ``max_bytes``."""
    kept: list[pa.RecordBatch] = []
    rows = size = 0
    for batch in batches:
        rows += batch.num_rows
        size += batch.nbytes
        if rows > max_rows:
            raise RowCapError(too_many_rows)
        if size > max_bytes:
            raise RowCapError(f"the result is larger than {max_bytes / 2**20:,.0f} MiB; select fewer or shorter "
                              "columns, or aggregate.")
        kept.append(batch)
    return pa.Table.from_batches(kept, schema=schema)


def first_line(exc: BaseException) -> str:
    """The first line of a DuckDB error, plus its "Did you mean" hint when there is one."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    if not lines:
        return type(exc).__name__
    hint = next((ln for ln in lines[1:] if ln.lower().startswith(("did you mean", "candidate"))), "")
    return f"{lines[0]} {hint}".strip()
