"""Spark through Spark Connect (``pyspark``'s client): queries only, results as Arrow.

Spark has no read-only session, so the guard is the parse check (:mod:`.readonly`, sqlglot's
Spark dialect): one query over the catalogue's own tables, sent as the SQL regenerated from the
checked tree; DDL, DML, ``CACHE``, ``ADD JAR``, ``SET``, UDF registration and path reads such
as ``parquet.`/data` `` never reach the server. Each query carries a tag, so Stop and the
timeout interrupt it on the server (``interruptTag``).
"""
from __future__ import annotations

import itertools
import logging
import re
import threading
from typing import Any

import pyarrow as pa

from ..analysis.errors import QueryFailedError, QueryTimeoutError
from ..analysis.results import collect_capped
from . import _arrow
from ._watch import start_watch
from .base import Dialect, EngineError, RemoteTable
from .urls import ConnectionSpec, redact

__all__ = ["SparkEngine"]

log = logging.getLogger(__name__)

_MAX_BYTES = 256 * 2**20
_RETRIES = 4
_tags = itertools.count(1)


class SparkEngine:
    kind = "spark"
    dialect = Dialect("spark", "Spark")

    def __init__(self, spec: ConnectionSpec, *, max_bytes: int = _MAX_BYTES) -> None:
        self.spec = spec
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._session: Any = None
        self._tag: str | None = None
        self._closed = False

    def _spark(self) -> Any:
        if self._closed:
            raise EngineError(f"the connection {self.spec.name} is closed; /connect it again.")
        if self._session is not None:
            return self._session
        try:
            from pyspark.sql import SparkSession
        except ImportError:  # pragma: no cover - the spark extra installs it
            raise EngineError("Spark connections need pyspark: pip install 'shell-agent-lab[spark]'.") from None
        try:
            session = SparkSession.builder.remote(self.spec.secret_url).create()
        except Exception as exc:
            raise EngineError(f"cannot connect to {self.spec.name} ({self.spec.redacted}): {self.spec.scrub(_line(exc))}") from None
        _short_retries(session)
        self._session = session
        return session

    def close(self) -> None:
        self._closed = True
        session, self._session = self._session, None
        if session is not None:
            try:
                session.stop()
            except Exception:  # pragma: no cover
                log.debug("stopping the Spark Connect session failed", exc_info=True)

    def cancel(self) -> None:
        session, tag = self._session, self._tag
        if session is None or tag is None:
            return
        try:
            session.interruptTag(tag)
        except Exception:
            log.debug("interrupting %s failed", self.spec.name, exc_info=True)

    def _collect(self, make: Any, *, max_rows: int, timeout: float | None,
                 cancel: threading.Event | None) -> pa.Table:
        with self._lock:
            spark = self._spark()
            tag = f"shell_agent_lab_{next(_tags)}"
            done, timed_out = threading.Event(), threading.Event()
            spark.addTag(tag)
            self._tag = tag
            watcher = start_watch(self.cancel, timeout, cancel, done, timed_out, name="spark-query-watch")
            try:
                frame = make(spark)
                table = frame.limit(max_rows + 1).toArrow()
            except Exception as exc:
                if timed_out.is_set():
                    raise QueryTimeoutError(f"query stopped after {timeout:g} s on {self.spec.name}; filter, "
                                            "aggregate or sample (TABLESAMPLE) to make it faster.") from None
                if cancel is not None and cancel.is_set():
                    raise QueryFailedError("query cancelled.") from None
                if _gone(exc):
                    self._session = None
                    raise EngineError(f"the Spark Connect server of {self.spec.name} went away ({self.spec.scrub(_line(exc))}); "
                                      "the session is intact: ask again, or /connect it again.") from None
                raise QueryFailedError(f"query failed on {self.spec.name}: {self.spec.scrub(_line(exc))}") from None
            finally:
                done.set()
                self._tag = None
                try:
                    spark.removeTag(tag)
                except Exception:  # pragma: no cover
                    pass
                if watcher is not None:
                    watcher.join()
        return collect_capped(table.to_batches(), table.schema, max_rows=max_rows, max_bytes=self._max_bytes,
                              too_many_rows=f"the result has more than {max_rows:,} rows; aggregate (GROUP BY), "
                                            "filter or add LIMIT so the work stays on the cluster.")

    def query(self, sql: str, *, max_rows: int, timeout: float | None,
              cancel: threading.Event | None = None) -> pa.Table:
        """Run one statement already passed by :func:`.readonly.check_query`."""
        return self._collect(lambda spark: spark.sql(sql), max_rows=max_rows, timeout=timeout, cancel=cancel)

    def list_tables(self) -> list[RemoteTable]:
        with self._lock:
            spark = self._spark()
            try:
                out = []
                for table in spark.catalog.listTables():
                    if table.isTemporary:
                        continue
                    db = table.namespace[0] if table.namespace else (table.database or "")
                    name = table.name if db in ("", "default") else f"{db}.{table.name}"
                    qualified = f"{db}.{table.name}" if db else table.name
                    columns = [(c.name, c.dataType) for c in spark.catalog.listColumns(qualified)]
                    out.append(RemoteTable(name, columns, rows=0, rows_exact=False))
                return out
            except Exception as exc:
                if _gone(exc):
                    self._session = None
                raise EngineError(f"cannot list the tables of {self.spec.name}: {self.spec.scrub(_line(exc))}") from None

    def describe(self, table: str) -> RemoteTable:
        found = {t.name.lower(): t for t in self.list_tables()}
        info = found.get(table.lower()) or found.get(table.lower().removeprefix("default."))
        if info is None:
            raise EngineError(f"no table {table!r} on {self.spec.name}; its tables: {', '.join(sorted(found)[:20])}.")
        counted = self._collect(lambda spark: spark.table(info.name).groupBy().count(), max_rows=1, timeout=60,
                                cancel=None)
        info.rows, info.rows_exact = int(counted.column(0)[0].as_py()), True
        head = self.sample(info.name, 3)
        info.samples = {c: [_arrow.short(v) for v in head.column(c).to_pylist()] for c in head.column_names}
        return info

    def sample(self, table: str, rows: int = 5) -> pa.Table:
        known = {t.name.lower() for t in self.list_tables()}
        if table.lower() not in known:
            raise EngineError(f"no table {table!r} on {self.spec.name}.")
        return self._collect(lambda spark: spark.table(table).limit(int(rows)), max_rows=int(rows), timeout=30,
                             cancel=None)


def _short_retries(session: Any) -> None:
    """Give up on an unreachable server after a few seconds (the client's default waits ten minutes)."""
    try:
        from pyspark.sql.connect.client.retries import DefaultPolicy
        session.client.set_retry_policies([DefaultPolicy(max_retries=_RETRIES, max_backoff=2_000)])
    except Exception:  # pragma: no cover - an older client keeps its own policy
        log.debug("could not shorten the Spark Connect retries", exc_info=True)


def _gone(exc: BaseException) -> bool:
    text = f"{type(exc).__name__} {exc}"
    log.debug("Spark Connect error: %s", text[:2000])
    return any(k in text for k in ("UNAVAILABLE", "CANCELLED", "RST_STREAM", "Broken pipe", "Connection refused", "failed to connect", "Socket closed",
                                   "RetriesExceeded", "Connection reset", "stopped SparkContext",
                                   "SparkContext was shut down", "SparkContext has been shutdown"))


def _line(exc: BaseException) -> str:
    """One line of a Spark or gRPC error (a gRPC error's ``details``, not its first line)."""
    raw = redact(str(exc))
    details = re.search(r'details = "([^"]*)"', raw)
    status = re.search(r"status = (StatusCode\.\w+)", raw)
    if details:
        return f"{status.group(1) + ': ' if status else ''}{details.group(1)}"[:300]
    text = [line for line in raw.strip().splitlines() if line.strip()]
    return text[0][:300] if text else type(exc).__name__
