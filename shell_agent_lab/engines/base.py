"""The engine interface: list tables, describe, sample, query (row cap, timeout), cancel."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

import pyarrow as pa

from ..analysis.errors import AnalysisError

__all__ = ["Engine", "EngineError", "RemoteTable", "Dialect"]


class EngineError(AnalysisError):
    """A remote source refused or failed a request; the message is one line for the notebook."""


@dataclass(frozen=True)
class Dialect:
    """How the model is told to write SQL for a source (``sqlglot`` name and a human label)."""

    sqlglot: str
    label: str


@dataclass
class RemoteTable:
    """One table of a remote source, as the source names it (``schema.table`` or ``table``)."""

    name: str
    columns: list[tuple[str, str]]
    rows: int = 0
    #: False when ``rows`` is the server's estimate (PostgreSQL's statistics) or unknown
    rows_exact: bool = False
    samples: dict[str, list[str]] = field(default_factory=dict)


class Engine(Protocol):
    """What every source implements. ``query`` runs one read-only statement where the data is
    and returns at most ``max_rows`` rows as Arrow (more raise a row-cap error, never truncate
    silently); ``timeout`` is in seconds; ``cancel`` stops it from any thread."""

    kind: str
    dialect: Dialect

    def list_tables(self) -> list[RemoteTable]: ...

    def describe(self, table: str) -> RemoteTable: ...

    def sample(self, table: str, rows: int = 5) -> pa.Table: ...

    def query(self, sql: str, *, max_rows: int, timeout: float | None,
              cancel: threading.Event | None = None) -> pa.Table: ...

    def cancel(self) -> None: ...

    def close(self) -> None: ...
