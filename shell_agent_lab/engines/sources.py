"""The session's DuckDB and its connections behind the analysis engine's methods.

Tools call :class:`Sources` exactly as they call the local engine. A name or statement that
qualifies a table with a connection's name (``pg.sales``, ``spark.events``) goes to that
connection: checked by :mod:`.readonly`, run there, and only its (capped) result comes back, as
Arrow, stored as the session table ``<connection>_result`` so the next statement can join it
with local tables and DataFrames. A statement naming tables of two sources is refused with how
to stage one side. Everything else is the local engine's own method.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..analysis.errors import AnalysisError, TableNameError
from ..analysis.results import QueryResult, TableInfo
from .base import EngineError, RemoteTable
from .connections import Connections
from .readonly import check_query, parse_one, table_refs

__all__ = ["Sources", "RemoteTableInfo", "RemoteResult", "split_name"]

log = logging.getLogger(__name__)

#: tables listed per connection in the prompt and list_tables (describe_data reaches the others)
_MAX_LISTED = 40
_DEFAULT_SCHEMA = {"postgres": "public", "spark": "default"}


@dataclass
class RemoteTableInfo(TableInfo):
    """A table of a connection, named as SQL names it here (``pg.sales``)."""

    connection: str = ""

    @property
    def rows_text(self) -> str:
        if self.rows_exact:
            return f"{self.rows:,} rows"
        return f"about {self.rows:,} rows (server estimate)" if self.rows > 0 else "row count not read"

    @property
    def label(self) -> str:
        return (f"{self.library} table on connection {self.connection}: write {self.library} SQL, "
                "runs on the server")


@dataclass
class RemoteResult(QueryResult):
    """A pushed-down result; ``note`` tells the model where it was stored."""

    note: str = ""


def split_name(name: str, connections: list[str]) -> tuple[str, str] | None:
    """(connection, table) for ``conn.table`` / ``conn.schema.table``; None for a local name."""
    head, dot, rest = name.partition(".")
    if dot and head.lower() in connections and rest:
        return head.lower(), rest
    return None


class Sources:
    def __init__(self, local: Any, connections: Connections, *,
                 on_use: Callable[[str], None] | None = None) -> None:
        self.local = local
        self.connections = connections
        self._on_use = on_use

    def __getattr__(self, name: str) -> Any:      # everything not routed is the local engine's
        return getattr(self.local, name)

    # ---- catalogue -------------------------------------------------------------------------
    def _info(self, conn: str, table: RemoteTable) -> RemoteTableInfo:
        engine = self.connections.engine(conn)
        return RemoteTableInfo(name=f"{conn}.{table.name}", kind="remote", rows=table.rows,
                               columns=list(table.columns), library=engine.dialect.label,
                               samples=dict(table.samples), rows_exact=table.rows_exact, connection=conn)

    def remote_tables(self) -> list[RemoteTableInfo]:
        out: list[RemoteTableInfo] = []
        for conn in self.connections.names():
            try:
                tables = self.connections.catalog(conn)
            except AnalysisError as exc:
                log.info("listing the tables of %s failed: %s", conn, exc)
                continue
            out += [self._info(conn, t) for t in tables[:_MAX_LISTED]]
        return out

    def tables(self) -> list[TableInfo]:
        return list(self.local.tables()) + self.remote_tables()

    def has_data(self) -> bool:
        return bool(self.connections) or self.local.has_data()

    def _remote_name(self, name: Any) -> tuple[str, str] | None:
        return split_name(name, self.connections.names()) if isinstance(name, str) else None

    def describe(self, name: str) -> TableInfo:
        remote = self._remote_name(name)
        if remote is None:
            return self.local.describe(name)
        conn, table = remote
        engine = self.connections.engine(conn)
        self._used(conn)
        return self._info(conn, engine.describe(table))

    def column_stats(self, name: str, **kwargs: Any) -> dict[str, tuple[int, int]]:
        return {} if self._remote_name(name) else self.local.column_stats(name, **kwargs)

    def column_profile(self, name: str, **kwargs: Any) -> dict[str, dict[str, Any]]:
        return {} if self._remote_name(name) else self.local.column_profile(name, **kwargs)

    def set_description(self, name: str, description: str) -> None:
        if self._remote_name(name):
            raise AnalysisError(f"{name} is a table on a connection, which is read-only; descriptions are kept "
                                "for the session's own tables.")
        self.local.set_description(name, description)

    def preview(self, name: str, limit: int = 10) -> QueryResult:
        remote = self._remote_name(name)
        if remote is None:
            return self.local.preview(name, limit)
        conn, table = remote
        started = time.perf_counter()
        data = self.connections.engine(conn).sample(table, max(1, min(1000, int(limit))))
        return _result(f"SELECT * FROM {name} LIMIT {int(limit)}", data, started, "chat")

    def row_count(self, name: str) -> int:
        if self._remote_name(name) is None:
            return self.local.row_count(name)
        routed = self.route(f"SELECT count(*) AS n FROM {name}")
        assert routed is not None          # the name is a connection's
        conn, sql = routed
        self._used(conn)
        # counted on the server and not kept: the session table <conn>_result stays the user's last result
        data = self.connections.engine(conn).query(sql, max_rows=1, timeout=self.local.settings.query_timeout)
        return int(data.column(0)[0].as_py())

    def rows_window(self, name: str, offset: int, limit: int) -> QueryResult:
        remote = self._remote_name(name)
        if remote is None:
            return self.local.rows_window(name, offset, limit)
        raise AnalysisError(f"{name} is on a connection, and reading it row by row would pull it whole; stage "
                            f"the rows to read first with save_query (e.g. SELECT … FROM {name} WHERE … LIMIT …, "
                            "saved as a new table) and analyse that table.")

    def interrupt(self) -> None:
        self.local.interrupt()
        self.connections.cancel_all()

    # ---- queries ---------------------------------------------------------------------------
    def route(self, sql: str) -> tuple[str, str] | None:
        """(connection, SQL to send) when ``sql`` reads a connection's tables; None when it is local.

        Raises EngineError when it reads tables of two sources, or fails the read-only check."""
        names = self.connections.names()
        if not names or not isinstance(sql, str):
            return None
        mentioned = [n for n in names if re.search(rf"(?<![\w$]){re.escape(n)}\s*\.", sql, re.IGNORECASE)]
        if not mentioned:
            return None
        dialects = {self.connections.engine(n).dialect.sqlglot for n in mentioned}
        tree, dialect, error = None, "", None
        for dialect in sorted(dialects):
            try:
                tree = parse_one(sql, dialect)
                break
            except EngineError as exc:
                error = exc
        if tree is None:
            assert error is not None
            if not any(re.search(rf"\b(FROM|JOIN)\s+{re.escape(n)}\s*\.", sql, re.IGNORECASE) for n in mentioned):
                return None      # the name was in a string or a column (a local query in DuckDB's SQL)
            raise error
        sources: dict[str, list[str]] = {}
        for table in table_refs(tree):
            parts = [p for p in (table.catalog, table.db) if p]
            head = parts[0].lower() if parts else ""
            source = head if head in names else "local"
            sources.setdefault(source, []).append(".".join(p for p in (table.catalog, table.db, table.name) if p))
        remote = [s for s in sources if s != "local"]
        if not remote:
            return None
        if len(sources) > 1:
            raise EngineError(_two_sources(sources))
        conn = remote[0]
        engine = self.connections.engine(conn)
        if engine.dialect.sqlglot != dialect:
            tree = parse_one(sql, engine.dialect.sqlglot)
        known = self._known(conn, engine.dialect.sqlglot)

        def strip(table: Any) -> None:
            if table.args.get("catalog") is not None:
                table.set("catalog", None)
            elif table.args.get("db") is not None:
                table.set("db", None)

        checked = check_query(tree, engine.dialect.sqlglot, known=known, rename=strip)
        return conn, checked.sql

    def _known(self, conn: str, dialect: str) -> set[str]:
        names = {t.name for t in self.connections.catalog(conn)}
        default = _DEFAULT_SCHEMA.get(dialect, "")
        out = set(names)
        out |= {f"{default}.{n}" for n in names if "." not in n}
        return out

    def query(self, sql: str, *, path: str = "chat", timeout: float | None = None,
              cancel: threading.Event | None = None) -> QueryResult:
        routed = self.route(sql)
        if routed is None:
            return self.local.query(sql, path=path, timeout=timeout, cancel=cancel)
        conn, remote_sql = routed
        settings = self.local.settings
        cap = settings.max_query_rows if path == "chat" else settings.max_analyze_rows
        limit = settings.query_timeout if timeout is None else timeout
        started = time.perf_counter()
        self._used(conn)
        data = self.connections.engine(conn).query(remote_sql, max_rows=cap, timeout=limit, cancel=cancel)
        result = _result(remote_sql, data, started, path)
        stored = f"{conn}_result"
        try:
            self.local.store_arrow(stored, data, description=f"result of a query on {conn}")
            result.note = (f"(Ran on {conn}; the result is also the session table {stored}, which the next "
                           "statement can join with local tables and DataFrames.)")
        except AnalysisError as exc:
            log.info("could not keep the result of %s as %s: %s", conn, stored, exc)
        return result

    def create_table_from_query(self, name: str, sql: str, *, description: str | None = None) -> TableInfo:
        routed = self.route(sql)
        if routed is None:
            return self.local.create_table_from_query(name, sql, description=description)
        conn, remote_sql = routed
        taken = {t.name.lower() for t in self.local.tables()}
        if isinstance(name, str) and name.lower() in taken:
            raise TableNameError(f"a table named {name!r} already exists; choose another name, e.g. {name}_v2.")
        settings = self.local.settings
        self._used(conn)
        data = self.connections.engine(conn).query(remote_sql, max_rows=settings.max_analyze_rows,
                                                   timeout=settings.query_timeout)
        return self.local.store_arrow(name, data, description=description or f"staged from {conn}")

    def _used(self, conn: str) -> None:
        if self._on_use is not None:
            try:
                self._on_use(conn)
            except Exception:  # pragma: no cover - recording the name never stops a query
                log.debug("recording the use of %s failed", conn, exc_info=True)


def _result(sql: str, data: pa.Table, started: float, path: str) -> RemoteResult:
    return RemoteResult(sql=sql, columns=list(data.column_names), types=[str(f.type) for f in data.schema],
                        table=data, elapsed=time.perf_counter() - started, path=path)


def _two_sources(sources: dict[str, list[str]]) -> str:
    shown = "; ".join(f"{s}: {', '.join(sorted(set(t))[:4])}" for s, t in sorted(sources.items()))
    remote = next(s for s in sorted(sources) if s != "local")
    example = sorted(set(sources[remote]))[0]
    return (f"this statement reads tables of more than one source ({shown}), and a whole remote table is never "
            f"copied to join it. Stage one side first: materialize a filtered or aggregated result with "
            f"save_query (e.g. SELECT … FROM {example} WHERE … GROUP BY …, saved as a new table), or run it with "
            f"query_sql and use the session table {remote}_result; then join that table locally.")

