"""The session's DuckDB behind the engine interface (its public methods only)."""
from __future__ import annotations

import threading
from typing import Any

import pyarrow as pa

from ..analysis.errors import RowCapError
from .base import Dialect, RemoteTable

__all__ = ["LocalEngine"]


class LocalEngine:
    """:class:`~shell_agent_lab.analysis.engine.AnalysisEngine` as an :class:`.Engine`: its gate,
    repairs, timeout and interrupt are the ones every local query has."""

    kind = "duckdb"
    dialect = Dialect("duckdb", "DuckDB")

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def list_tables(self) -> list[RemoteTable]:
        return [_as_remote(t) for t in self.engine.tables()]

    def describe(self, table: str) -> RemoteTable:
        return _as_remote(self.engine.describe(table))

    def sample(self, table: str, rows: int = 5) -> pa.Table:
        return self.engine.preview(table, rows).table

    def query(self, sql: str, *, max_rows: int, timeout: float | None,
              cancel: threading.Event | None = None) -> pa.Table:
        result = self.engine.query(sql, path="analyze", timeout=timeout, cancel=cancel)
        if result.row_count > max_rows:
            raise RowCapError(f"the result has more than {max_rows:,} rows; aggregate (GROUP BY), filter or add LIMIT.")
        return result.table

    def cancel(self) -> None:
        self.engine.interrupt()

    def close(self) -> None:
        """The session owns its database; closing this view of it leaves it open."""


def _as_remote(t: Any) -> RemoteTable:
    """A session table (:class:`~shell_agent_lab.analysis.results.TableInfo`) in the interface's terms."""
    return RemoteTable(t.name, list(t.columns), rows=t.rows, rows_exact=t.rows_exact, samples=dict(t.samples))
