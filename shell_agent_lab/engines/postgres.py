"""PostgreSQL through psycopg 3: every statement in a read-only transaction with a timeout.

The session is opened with ``default_transaction_read_only=on``; each query runs as ``BEGIN
READ ONLY`` + ``SET LOCAL statement_timeout`` + the statement (under ``LIMIT cap + 1`` through a
plain cursor when the cap is small, so PostgreSQL may run it in parallel; through a server-side
cursor fetched in batches otherwise) + ``ROLLBACK``. What runs has passed :mod:`.readonly` first.
:meth:`cancel` sends PostgreSQL's cancel request from any thread. A server that goes away
drops the connection; the next call opens a new one.
"""
from __future__ import annotations

import itertools
import logging
import threading
from typing import Any

import pyarrow as pa

from ..analysis.errors import QueryFailedError, QueryTimeoutError
from ..analysis.results import collect_capped
from . import _arrow
from ._watch import start_watch
from .base import Dialect, EngineError, RemoteTable
from .urls import ConnectionSpec, redact

__all__ = ["PostgresEngine"]

log = logging.getLogger(__name__)

_BATCH = 5_000
_TOO_MANY_ROWS = ("the result has more than {:,} rows; aggregate (GROUP BY), filter or add LIMIT so the "
                  "work stays on the server.")
#: results capped at this many rows are read through a plain cursor (see :meth:`PostgresEngine._run`)
_CLIENT_SIDE_ROWS = 100_000
_MAX_BYTES = 256 * 2**20
_SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
_names = itertools.count(1)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the postgres extra installs it
        raise EngineError("PostgreSQL connections need psycopg: pip install 'shell-agent-lab[postgres]'.") from None
    return psycopg


class PostgresEngine:
    kind = "postgresql"
    dialect = Dialect("postgres", "PostgreSQL")

    def __init__(self, spec: ConnectionSpec, *, connect_timeout: float = 10.0, max_bytes: int = _MAX_BYTES) -> None:
        self.spec = spec
        self._connect_timeout = connect_timeout
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._conn: Any = None
        self._closed = False

    # ---- connection --------------------------------------------------------------------------
    def _connection(self) -> Any:
        if self._closed:
            raise EngineError(f"the connection {self.spec.name} is closed; /connect it again.")
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            return self._conn
        psycopg = _psycopg()
        try:
            self._conn = psycopg.connect(self.spec.secret_url, autocommit=True,
                                         connect_timeout=max(1, int(self._connect_timeout)),
                                         options="-c default_transaction_read_only=on",
                                         application_name="shell-agent-lab")
        except psycopg.Error as exc:
            raise EngineError(f"cannot connect to {self.spec.name} ({self.spec.redacted}): {self.spec.scrub(_line(exc))}") from None
        return self._conn

    def close(self) -> None:
        self._closed = True
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # pragma: no cover
                pass

    def cancel(self) -> None:
        conn = self._conn
        if conn is None:
            return
        try:
            conn.cancel_safe(timeout=5)
        except Exception:
            log.debug("cancel request to %s failed", self.spec.name, exc_info=True)

    # ---- running -----------------------------------------------------------------------------
    def _run(self, sql: str, params: tuple = (), *, max_rows: int, timeout: float | None,
             cancel: threading.Event | None = None) -> pa.Table:
        psycopg = _psycopg()
        with self._lock:
            conn = self._connection()
            done, timed_out = threading.Event(), threading.Event()
            watcher = start_watch(self.cancel, timeout, cancel, done, timed_out, grace=2.0, name="postgres-query-watch")
            try:
                conn.execute("BEGIN TRANSACTION READ ONLY")
                try:
                    ms = int(timeout * 1000) if timeout and timeout > 0 else 0
                    conn.execute(f"SET LOCAL statement_timeout = {ms}")
                    small = max_rows <= _CLIENT_SIDE_ROWS
                    # a capped result comes through a plain cursor so the server may plan the query in
                    # parallel (it never does under DECLARE CURSOR); LIMIT keeps what it sends to the cap
                    with (conn.cursor() if small else conn.cursor(name=f"sal_{next(_names)}")) as cur:
                        if small:
                            cur.execute(f"SELECT * FROM ({sql}) AS _sal_capped LIMIT {int(max_rows) + 1}",
                                        params or None)
                        else:
                            cur.itersize = _BATCH
                            cur.execute(sql, params or None)
                        schema = pa.schema([(d.name, _arrow.arrow_type(_type_name(conn, d.type_code)))
                                            for d in cur.description or []])

                        def batches() -> Any:
                            while True:
                                rows = cur.fetchmany(_BATCH)
                                if not rows:
                                    return
                                yield _arrow.to_batch(rows, schema)
                        table = collect_capped(batches(), schema, max_rows=max_rows, max_bytes=self._max_bytes,
                                               too_many_rows=_TOO_MANY_ROWS.format(max_rows))
                finally:
                    if not conn.broken and not conn.closed:
                        conn.execute("ROLLBACK")
                return table
            except psycopg.errors.QueryCanceled:
                if timed_out.is_set() or not (cancel is not None and cancel.is_set()):
                    raise QueryTimeoutError(f"query stopped after {timeout:g} s on {self.spec.name}; filter, "
                                            "aggregate or sample (TABLESAMPLE) to make it faster.") from None
                raise QueryFailedError("query cancelled.") from None
            except psycopg.OperationalError as exc:
                if conn.broken or conn.closed:
                    self._conn = None
                    raise EngineError(f"the PostgreSQL server of {self.spec.name} went away ({self.spec.scrub(_line(exc))}); the "
                                      "session is intact: ask again, or /connect it again.") from None
                raise QueryFailedError(f"query failed on {self.spec.name}: {self.spec.scrub(_line(exc))}") from None
            except psycopg.Error as exc:
                raise QueryFailedError(f"query failed on {self.spec.name}: {self.spec.scrub(_line(exc))}") from None
            finally:
                done.set()
                if watcher is not None:
                    watcher.join()

    def query(self, sql: str, *, max_rows: int, timeout: float | None,
              cancel: threading.Event | None = None) -> pa.Table:
        """Run one statement already passed by :func:`.readonly.check_query`."""
        return self._run(sql, max_rows=max_rows, timeout=timeout, cancel=cancel)

    # ---- catalogue ---------------------------------------------------------------------------
    def list_tables(self) -> list[RemoteTable]:
        table = self._run(
            "SELECT c.table_schema, c.table_name, c.column_name, c.data_type, "
            "coalesce(greatest(cl.reltuples, 0), 0)::bigint AS estimate "
            "FROM information_schema.columns c "
            "JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
            "LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = c.table_schema "
            "LEFT JOIN pg_catalog.pg_class cl ON cl.relnamespace = n.oid AND cl.relname = c.table_name "
            "WHERE c.table_schema <> ALL(%s) AND c.table_schema NOT LIKE 'pg_temp%%' "
            "AND t.table_type IN ('BASE TABLE', 'VIEW', 'FOREIGN') "
            "ORDER BY c.table_schema, c.table_name, c.ordinal_position",
            (list(_SYSTEM_SCHEMAS),), max_rows=200_000, timeout=30)
        out: dict[str, RemoteTable] = {}
        for schema, name, column, type_, estimate in zip(*(table.column(i).to_pylist() for i in range(5))):
            full = name if schema == "public" else f"{schema}.{name}"
            entry = out.setdefault(full, RemoteTable(full, [], rows=int(estimate or 0), rows_exact=False))
            entry.columns.append((column, type_))
        return list(out.values())

    def describe(self, table: str) -> RemoteTable:
        found = {t.name.lower(): t for t in self.list_tables()}
        info = found.get(table.lower()) or found.get(table.lower().removeprefix("public."))
        if info is None:
            raise EngineError(f"no table {table!r} on {self.spec.name}; its tables: {', '.join(sorted(found)[:20])}.")
        head = self.sample(info.name, 3)
        info.samples = {c: [_arrow.short(v) for v in head.column(c).to_pylist()] for c in head.column_names}
        return info

    def sample(self, table: str, rows: int = 5) -> pa.Table:
        from .readonly import check_query, parse_one
        known = {t.name for t in self.list_tables()}
        checked = check_query(parse_one(f"SELECT * FROM {table} LIMIT {int(rows)}", "postgres"), "postgres",
                              known=known | {f"public.{k}" for k in known})
        return self.query(checked.sql, max_rows=int(rows), timeout=30)


def _type_name(conn: Any, oid: int) -> str:
    info = conn.adapters.types.get(oid)
    return info.name if info is not None else ""


def _line(exc: BaseException) -> str:
    text = redact(str(exc)).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
