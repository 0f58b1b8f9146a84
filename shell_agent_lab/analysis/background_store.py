"""The background stores of :class:`.engine.AnalysisEngine`: large files queryable at once,
copied into the session database by a thread of their own.

``AnalysisEngine.load`` hands a large CSV, TSV or Parquet file to :meth:`BackgroundStores._load_staged`:
the file is hard-linked into the staging directory, its name becomes a temporary view over the
link, and a job (:class:`.staging.Job`) streams it into a hidden table in chunks and swaps that in
for the view (:mod:`.staging` explains the scheme). This module holds the jobs' life cycle
(start, pause while a query runs: :meth:`BackgroundStores._queries_first`, stop, fail, resume
at the next open) and the catalogue records that make a restart safe.

:class:`BackgroundStores` is mixed into the engine: it works on the engine's connection under
the engine's lock, and the engine's public ``wait_loaded`` and ``loading`` come from here.
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb

from . import loader as _loader
from . import staging as _staging
from .errors import LoadError
from .results import INTERNAL_PREFIX as _INTERNAL
from .results import TableInfo, quote_ident
from .results import first_line as _first_line
from .settings import AnalysisSettings

log = logging.getLogger(__name__)

__all__ = ["BackgroundStores", "STREAM_PREFIX", "late_type_change"]

#: engines of this process, so background stores stop before the interpreter goes away
_OPEN: "weakref.WeakSet[BackgroundStores]" = weakref.WeakSet()

#: the date format ``sniff_csv`` reports for ISO dates. ``read_csv`` with detection (the small-file
#: path, and DuckDB itself) then parses them with its own ISO reader, not this format: a view that
#: names it would read dates differently (stricter) from a file loaded in the foreground, and
#: slower (4–7% of a first query's CPU on the benchmark's 1 GB file)
_ISO_DATE = "%Y-%m-%d"
#: what DuckDB puts before the reason when a stream it reads (a file reader) fails
STREAM_PREFIX = re.compile(r"^.*?reading the stream registered as '[^']*' failed: (IOError: )?")


class BackgroundStores:
    """Background stores of one engine's large files (mixed into :class:`.engine.AnalysisEngine`).

    Thread-safety follows the engine's: catalogue changes happen under the engine lock; a store
    takes the lock only to open its connection and to swap its table in, and never blocks a
    thread that stops it while holding the lock."""

    # what the engine provides
    settings: AnalysisSettings
    _lock: threading.RLock
    _conn: duckdb.DuckDBPyConnection
    _closed: bool
    _stage: Path | None
    _on_stored: Callable[[str], None] | None

    def _temp_dir(self) -> Path:   # pragma: no cover - the engine's
        raise NotImplementedError

    def _table_info(self, name: str, *, samples: bool = False) -> TableInfo:   # pragma: no cover - the engine's
        raise NotImplementedError

    def _init_stores(self) -> None:
        """No store yet (the engine calls this before it opens its database); stores stop at exit."""
        _OPEN.add(self)
        self._jobs: dict[str, _staging.Job] = {}      # lowercase name -> its background store
        self._lost: dict[str, str] = {}               # lowercase name -> why its load did not finish
        self._busy = threading.Condition()            # queries running (background stores wait)
        self._active = 0
        self._build_slot = threading.Lock()           # one background store at a time

    @contextlib.contextmanager
    def _queries_first(self) -> Iterator[None]:
        """While the block runs (a query), background stores pause between chunks."""
        with self._busy:
            self._active += 1
        try:
            yield
        finally:
            with self._busy:
                self._active -= 1
                self._busy.notify_all()

    def _stageable(self, path: Path, kind: str, size: int) -> bool:
        """Whether ``path`` is queried in place while it is stored in the background.

        Not under a memory limit too small for DuckDB's file readers (a query over the file
        runs inside the session's limit; a load in the foreground reads with its own)."""
        threshold = self.settings.background_load_bytes
        memory = _loader.memory_bytes(self.settings.memory_limit)
        return (self._stage is not None and threshold > 0 and size >= threshold
                and (memory is None or memory >= _loader.READER_FLOOR)
                and kind in _staging.SUFFIXES and path.name.lower().endswith(_staging.SUFFIXES[kind]))

    def _staged_select(self, conn: duckdb.DuckDBPyConnection, link: Path, kind: str, *,
                       full_sample: bool = False) -> str:
        """The SELECT over a linked file, with the column types fixed (no sniffing per query).

        Built from ``sniff_csv``'s fields with every name and type quoted here (its ready-made
        ``Prompt`` does not escape quotes in column names)."""
        literal = _staging.sql_literal(str(link))
        if kind == "parquet":
            return f"SELECT * FROM read_parquet({literal})"
        args = ", delim = '\t'" if kind == "tsv" else ""
        if full_sample:
            args += ", sample_size = -1"
        cursor = conn.execute(
            "SELECT Delimiter, Quote, Escape, NewLineDelimiter, Comment, SkipRows, HasHeader, Columns, "
            f"DateFormat, TimestampFormat FROM sniff_csv({literal}{args})")
        delim, quote, escape, newline, comment, skip, header, columns, date_format, ts_format = cursor.fetchall()[0]

        def text(value: Any) -> str:
            return "" if value in (None, "(empty)") else str(value)

        options = ["auto_detect = false", f"delim = {_staging.sql_literal(text(delim))}",
                   f"quote = {_staging.sql_literal(text(quote))}", f"escape = {_staging.sql_literal(text(escape))}",
                   f"new_line = {_staging.sql_literal(text(newline))}", f"skip = {int(skip or 0)}",
                   f"header = {'true' if header else 'false'}"]
        if text(comment):
            options.append(f"comment = {_staging.sql_literal(text(comment))}")
        if date_format and str(date_format) != _ISO_DATE:
            options.append(f"dateformat = {_staging.sql_literal(str(date_format))}")
        if ts_format:
            options.append(f"timestampformat = {_staging.sql_literal(str(ts_format))}")
        spec = ", ".join(f"{_staging.sql_literal(str(c['name']))}: {_staging.sql_literal(str(c['type']))}"
                         for c in columns)
        options.append(f"columns = {{{spec}}}")
        return f"SELECT * FROM read_csv({literal}, {', '.join(options)})"

    def _staged_rows(self, link: Path, kind: str, size: int) -> tuple[int, bool]:
        if kind == "parquet":   # the footer has the exact count
            literal = _staging.sql_literal(str(link))
            return int(self._conn.execute(f"SELECT count(*) FROM read_parquet({literal})").fetchall()[0][0]), True
        return _staging.estimate_rows(link, size), False

    def _load_staged(self, path: Path, kind: str, name: str, *, progress: _loader.Progress | None,
                     cancel: threading.Event | None) -> TableInfo | None:
        """Make ``path`` queryable as ``name`` now and store it in the background.

        ``None`` when the file cannot be hard-linked into the staging directory (another file
        system, say): the caller then stores it before returning, as for small files.
        """
        assert self._stage is not None
        token = _staging.new_token()
        link = _staging.link_path(self._stage, token, kind)
        try:
            os.link(path, link, follow_symlinks=False)
        except OSError as exc:
            log.info("cannot link %s into %s (%s); loading it in the foreground", path, self._stage, exc)
            return None
        replaced = self._jobs.get(name.lower())
        try:
            stat = os.stat(link)
            try:
                select = self._staged_select(self._conn, link, kind)
                self._conn.sql(select).columns   # the file parses with these types (cheap: no sniffing)
                rows, exact = self._staged_rows(link, kind, stat.st_size)
            except duckdb.Error as exc:
                raise LoadError(f"cannot read {path.name} as {kind.upper()}: {_first_line(exc)}") from exc
            if cancel is not None and cancel.is_set():
                raise LoadError("load cancelled")
            if replaced is not None:
                self._stop_jobs([replaced])
            job = _staging.Job(name=name, token=token, kind=kind, link=link, size=stat.st_size,
                               mtime_ns=stat.st_mtime_ns, estimated_rows=rows, rows_exact=exact, select=select)
            self._conn.execute("BEGIN")
            try:
                self._drop_name(self._conn, name)
                self._ensure_loads_table(self._conn)
                self._conn.execute(f"CREATE TEMPORARY VIEW {quote_ident(name)} AS {select}")
                self._conn.execute(f"INSERT INTO {_staging.LOADS_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                   [name, token, kind, stat.st_size, stat.st_mtime_ns, rows, exact, False, False, ""])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                if replaced is not None:
                    self._resume_job(replaced)
                raise
        except BaseException:
            link.unlink(missing_ok=True)
            raise
        if replaced is not None:
            self._forget_job(replaced)
        self._lost.pop(name.lower(), None)
        self._jobs[name.lower()] = job
        self._start_job(job)
        info = self._table_info(name)
        if progress is not None:
            progress(f"{name} is ready to query ({info.rows_text})", stat.st_size, stat.st_size)
        return info

    def _ensure_loads_table(self, conn: duckdb.DuckDBPyConnection) -> None:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {_staging.LOADS_TABLE} (name VARCHAR, token VARCHAR, "
                     "kind VARCHAR, size BIGINT, mtime_ns BIGINT, estimated_rows BIGINT, rows_exact BOOLEAN, "
                     "full_sample BOOLEAN, stored BOOLEAN, description VARCHAR)")

    def _catalog_kind(self, conn: duckdb.DuckDBPyConnection, name: str) -> tuple[str, str] | None:
        """("table" | "view", exact name) of an object in the main schema, by case-insensitive name."""
        rows = conn.execute(
            "SELECT 'table', table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND NOT temporary AND lower(table_name) = lower($1) UNION ALL "
            "SELECT 'view', view_name FROM duckdb_views() WHERE (database_name = current_database() "
            "OR temporary) AND schema_name = 'main' AND NOT internal AND lower(view_name) = lower($1)",
            [name]).fetchall()
        return (rows[0][0], rows[0][1]) if rows else None

    def _drop_name(self, conn: duckdb.DuckDBPyConnection, name: str) -> None:
        """Drop what ``name`` is now (a table, or the view of a file still being stored, with
        its record and half-built table)."""
        for _ in range(3):
            found = self._catalog_kind(conn, name)
            if found is None:
                break
            conn.execute(f"DROP {'TABLE' if found[0] == 'table' else 'VIEW'} {quote_ident(found[1])}")
        job = self._jobs.get(name.lower())
        if job is not None:
            conn.execute(f"DROP TABLE IF EXISTS {quote_ident(_staging.BUILD_PREFIX + job.token)}")
        if self._catalog_kind(conn, _staging.LOADS_TABLE) is not None:
            conn.execute(f"DELETE FROM {_staging.LOADS_TABLE} WHERE lower(name) = lower(?)", [name])
            self._tidy_loads(conn)

    def _tidy_loads(self, conn: duckdb.DuckDBPyConnection) -> None:
        """Drop the record table once no load is pending (a stored session keeps only its tables)."""
        if conn.execute(f"SELECT count(*) FROM {_staging.LOADS_TABLE}").fetchall()[0][0] == 0:
            conn.execute(f"DROP TABLE {_staging.LOADS_TABLE}")

    def _forget_job(self, job: _staging.Job) -> None:
        """After the catalogue no longer refers to ``job``: drop it from memory and unlink its file."""
        if self._jobs.get(job.key) is job:
            del self._jobs[job.key]
        job.link.unlink(missing_ok=True)

    def _resume_job(self, job: _staging.Job) -> None:
        """Start a stopped store again (what replaced its table failed, so the table is its)."""
        if self._jobs.get(job.key) is not job or self._closed:
            return
        fresh = _staging.Job(name=job.name, token=job.token, kind=job.kind, link=job.link, size=job.size,
                             mtime_ns=job.mtime_ns, estimated_rows=job.estimated_rows, rows_exact=job.rows_exact,
                             select=job.select, full_sample=job.full_sample, samples=job.samples,
                             description=job.description)
        self._jobs[job.key] = fresh
        self._start_job(fresh)

    def _start_job(self, job: _staging.Job) -> None:
        job.thread = threading.Thread(target=self._run_job, args=(job,), daemon=True,
                                      name=f"analysis-store-{job.name}")
        job.thread.start()

    def _stop_jobs(self, jobs: list[_staging.Job]) -> None:
        """Stop background stores and wait for their threads (safe with the engine lock held)."""
        for job in jobs:
            job.stop.set()
            for cursor in (job.cursor, job.reader):
                if cursor is not None:
                    try:
                        cursor.interrupt()
                    except (duckdb.Error, AttributeError):
                        pass
        with self._busy:
            self._busy.notify_all()
        for job in jobs:
            if job.thread is not None and job.thread is not threading.current_thread():
                job.thread.join()

    def wait_loaded(self, name: str | None = None, timeout: float | None = None) -> bool:
        """Wait until no background store of ``name`` (or of any table) is running; False if
        ``timeout`` seconds passed first. A store that failed or was stopped counts as ended."""
        deadline = None if timeout is None else time.monotonic() + timeout
        key = None if name is None else str(name).lower()
        while True:   # a reload may start another store of the same name meanwhile
            running = [j for j in list(self._jobs.values())
                       if (key is None or j.key == key) and not j.done.is_set()]
            if not running:
                return True
            for job in running:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not job.done.wait(left):
                    return False

    def loading(self) -> list[str]:
        """Names of the tables still being stored in the background."""
        return sorted(job.name for job in list(self._jobs.values()))

    def _lock_or_stop(self, job: _staging.Job) -> bool:
        """Take the engine lock for a background store; False (not taken) once it is stopped."""
        while not self._lock.acquire(timeout=0.05):
            if job.stop.is_set():
                return False
        if job.stop.is_set():
            self._lock.release()
            return False
        return True

    def _cursor(self, job: _staging.Job) -> duckdb.DuckDBPyConnection:
        """A new connection to the session database for a background store (never blocks a
        thread that stops the store while holding the engine lock)."""
        if not self._lock_or_stop(job):
            raise _Stopped
        try:
            return self._conn.cursor()
        finally:
            self._lock.release()

    def _pause_for_queries(self, job: _staging.Job) -> None:
        """Queries go first: wait while one runs. Raises :class:`_Stopped` once stopped."""
        with self._busy:
            while self._active > 0 and not job.stop.is_set():
                self._busy.wait(0.1)
        if job.stop.is_set():
            raise _Stopped

    def _run_job(self, job: _staging.Job) -> None:
        ended = False
        try:
            with self._build_slot:   # one store at a time: the machine's cores go to queries
                if job.stop.is_set():
                    return
                self._store(job)
            ended = True
        except _Stopped:
            log.info("storing %s stopped; it resumes when the session is reopened", job.name)
        except Exception as exc:   # the file became unreadable, the disk is full …
            log.warning("storing %s failed", job.name, exc_info=True)
            self._fail_job(job, STREAM_PREFIX.sub("", _first_line(exc)))
            ended = True
        finally:
            job.done.set()
        if ended and self._on_stored is not None and not self._closed:
            try:
                self._on_stored(job.name)
            except Exception:   # a listener's failure is not the store's
                log.warning("the stored-table callback failed for %s", job.name, exc_info=True)

    def _store(self, job: _staging.Job) -> None:
        for attempt in range(3):
            try:
                self._store_once(job)
                return
            except _Stopped:
                raise
            except Exception as exc:
                if job.stop.is_set():
                    raise _Stopped from None
                if attempt < 2 and not job.unchanged():
                    self._resniff(job, keep_sample=True)   # changed in place while read: again
                elif not isinstance(exc, (_Changed, LoadError)) and not job.full_sample \
                        and job.kind != "parquet" and late_type_change(_first_line(exc).lower()):
                    self._resniff(job)   # a value late in the file needs a wider type than sniffed
                elif isinstance(exc, _Changed):
                    raise LoadError("the file kept changing while it was being stored") from None
                else:
                    raise

    def _resniff(self, job: _staging.Job, *, keep_sample: bool = False) -> None:
        """Types changed late in the file (or the file changed): re-read its types, update the view."""
        try:
            stat = os.stat(job.link)
        except OSError:
            raise LoadError("its file disappeared from the session's staging directory") from None
        full = job.full_sample if keep_sample else True
        sniffer = self._cursor(job)
        job.reader = sniffer
        try:
            select = self._staged_select(sniffer, job.link, job.kind, full_sample=full)
        finally:
            job.reader = None
            sniffer.close()
        if not self._lock_or_stop(job):
            raise _Stopped
        try:
            self._conn.execute("BEGIN")
            try:
                self._replace_view(self._conn, job.name, select)
                self._conn.execute(f"UPDATE {_staging.LOADS_TABLE} SET size = ?, mtime_ns = ?, full_sample = ? "
                                   "WHERE token = ?", [stat.st_size, stat.st_mtime_ns, full, job.token])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            job.select, job.full_sample = select, full
            job.size, job.mtime_ns = stat.st_size, stat.st_mtime_ns
            job.samples = None
        finally:
            self._lock.release()

    def _store_once(self, job: _staging.Job) -> None:
        """Copy the file into a hidden table chunk by chunk, then swap it in for the view."""
        target = quote_ident(_staging.BUILD_PREFIX + job.token)
        chunk_name = f"{_INTERNAL}chunk_{job.token}"
        writer = self._cursor(job)
        job.cursor = writer
        source = stream = None
        try:
            self._pause_for_queries(job)
            writer.execute(f"DROP TABLE IF EXISTS {target}")
            writer.execute(f"CREATE TABLE {target} AS SELECT * FROM ({job.select}) LIMIT 0")
            # a private reader instance parses the file: its threads are its own, and it
            # stops parsing (its stream is pulled) whenever the store pauses for a query
            source = _loader.open_reader(job.link, job.kind, threads=self.settings.resolved_threads(),
                                         memory_limit=self.settings.memory_limit, temp_dir=self._temp_dir(),
                                         sql=job.select, batch_rows=_staging.BATCH_ROWS)
            job.reader = source
            stream = source.reader
            # each chunk commits on its own: one transaction over the whole file keeps its rows
            # in memory until the end (1.8 GB for a 1 GB CSV, past any memory limit). The table
            # counts as stored only once the record says so (a restart drops a half-built one).
            for chunk in _staging.chunks(stream, before_batch=lambda: self._pause_for_queries(job)):
                self._pause_for_queries(job)
                writer.register(chunk_name, chunk)
                try:
                    writer.execute(f"INSERT INTO {target} SELECT * FROM {quote_ident(chunk_name)}")
                finally:
                    writer.unregister(chunk_name)
            if not job.unchanged():
                writer.execute(f"DROP TABLE {target}")
                raise _Changed
            writer.execute(f"UPDATE {_staging.LOADS_TABLE} SET stored = true WHERE token = ?", [job.token])
            if not self._lock_or_stop(job):
                raise _Stopped
            try:
                self._swap(job)
            finally:
                self._lock.release()
        finally:
            job.reader = job.cursor = None
            if source is not None:
                try:
                    source.close()
                except Exception:  # pragma: no cover
                    pass
            try:
                writer.close()
            except duckdb.Error:  # pragma: no cover
                pass
        self._forget_job(job)

    def _replace_view(self, conn: duckdb.DuckDBPyConnection, name: str, select: str) -> None:
        """(Re)define the view of a file being stored (temporary: it is never in the file, so a
        copy of the database, e.g. in an exported bundle, holds no view that reads a file)."""
        conn.execute(f"CREATE OR REPLACE TEMPORARY VIEW {quote_ident(name)} AS {select}")

    def _swap(self, job: _staging.Job) -> None:
        """Replace the view by the stored table in one transaction (the engine lock is held)."""
        conn = self._conn
        conn.execute("BEGIN")
        try:
            conn.execute(f"DROP VIEW IF EXISTS temp.main.{quote_ident(job.name)}")
            conn.execute(f"ALTER TABLE {quote_ident(_staging.BUILD_PREFIX + job.token)} "
                         f"RENAME TO {quote_ident(job.name)}")
            if job.description:
                conn.execute(f"COMMENT ON TABLE {quote_ident(job.name)} IS {_staging.sql_literal(job.description)}")
            conn.execute(f"DELETE FROM {_staging.LOADS_TABLE} WHERE token = ?", [job.token])
            self._tidy_loads(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if self._jobs.get(job.key) is job:
            del self._jobs[job.key]

    def _fail_job(self, job: _staging.Job, reason: str) -> None:
        """A store that cannot finish: drop the view and say why the next time the name is used."""
        if not self._lock_or_stop(job):
            return
        try:
            if self._jobs.get(job.key) is job and not self._closed:
                try:
                    self._conn.execute("BEGIN")
                    self._drop_name(self._conn, job.name)
                    self._conn.execute("COMMIT")
                except duckdb.Error:
                    self._conn.execute("ROLLBACK")
                    log.warning("could not drop the view of %s", job.name, exc_info=True)
                self._lost[job.key] = (f"table {job.name!r} could not be stored ({reason}); "
                                       "load the file again.")
                self._forget_job(job)
        finally:
            self._lock.release()

    def _resume_loads(self) -> None:
        """At open: finish what a closed or crashed kernel left half done.

        A record whose file is still staged and unchanged gets its view back and its store
        restarted (or, if it was stored but not yet swapped in, swapped in now). Any other
        record (its file is gone, or it came in a database file from elsewhere) is dropped and
        its name reported as not loaded."""
        if self._catalog_kind(self._conn, _staging.LOADS_TABLE) is None:
            self._drop_stray_builds(set())
            return
        try:
            records = self._conn.execute(
                f"SELECT name, token, kind, size, mtime_ns, estimated_rows, rows_exact, full_sample, stored, "
                f"description FROM {_staging.LOADS_TABLE}").fetchall()
        except duckdb.Error:   # not a record table this engine wrote
            log.warning("ignoring an unreadable %s table", _staging.LOADS_TABLE, exc_info=True)
            self._conn.execute(f"DROP TABLE {_staging.LOADS_TABLE}")
            records = []
        kept: set[str] = set()
        for name, token, kind, size, mtime_ns, rows, exact, full_sample, stored, description in records:
            job = None
            if (self._stage is not None and isinstance(name, str) and _staging.valid_token(token)
                    and kind in _staging.SUFFIXES):
                link = _staging.link_path(self._stage, token, kind)
                job = _staging.Job(name=name, token=token, kind=kind, link=link, size=int(size or 0),
                                   mtime_ns=int(mtime_ns or 0), estimated_rows=int(rows or 0),
                                   rows_exact=bool(exact), full_sample=bool(full_sample),
                                   description=str(description or ""))
                if not (link.is_file() and not link.is_symlink() and job.unchanged()):
                    job = None
            try:
                if job is not None and stored and \
                        self._catalog_kind(self._conn, _staging.BUILD_PREFIX + token) is not None:
                    self._swap(job)                  # stored and checked, not yet swapped in
                    job.link.unlink(missing_ok=True)
                    continue
                if job is not None:
                    job.select = self._staged_select(self._conn, job.link, kind, full_sample=job.full_sample)
                    self._replace_view(self._conn, name, job.select)
                    kept.add(token)
                    self._jobs[job.key] = job
                    continue
            except duckdb.Error:
                log.warning("could not resume storing %s", name, exc_info=True)
                self._jobs.pop(str(name).lower(), None)
            self._conn.execute(f"DELETE FROM {_staging.LOADS_TABLE} WHERE token IS NOT DISTINCT FROM ?", [token])
            self._lost[str(name).lower()] = (
                f"table {name!r} was still being stored when the session closed and its file is no "
                "longer available; load it again.")
        if self._catalog_kind(self._conn, _staging.LOADS_TABLE) is not None:
            self._tidy_loads(self._conn)
        self._drop_stray_builds(kept)
        for job in list(self._jobs.values()):
            self._start_job(job)

    def _drop_stray_builds(self, keep: set[str]) -> None:
        """Hidden half-built tables and linked files that no pending load refers to."""
        rows = self._conn.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND starts_with(table_name, ?)", [_staging.BUILD_PREFIX]).fetchall()
        for (table,) in rows:
            if table[len(_staging.BUILD_PREFIX):] not in keep:
                self._conn.execute(f"DROP TABLE {quote_ident(table)}")
        if self._stage is not None:
            try:
                entries = list(self._stage.iterdir())
            except OSError:
                entries = []
            for entry in entries:
                if entry.name.split(".", 1)[0] not in keep:
                    try:
                        entry.unlink()
                    except OSError:
                        pass


@atexit.register
def _stop_background_stores() -> None:
    """A store still running at exit stops between chunks (it resumes when the session reopens)."""
    for engine in list(_OPEN):
        try:
            engine._stop_jobs(list(engine._jobs.values()))
        except Exception:  # pragma: no cover - exiting anyway
            pass


class _Stopped(Exception):
    """A background store was stopped (close, reload, reset); it resumes at the next open."""


class _Changed(Exception):
    """The file changed while it was being stored."""


def late_type_change(text: str) -> bool:
    """A CSV/JSON error that a full-file type scan fixes (a value the sniffed type cannot hold)."""
    return any(word in text for word in ("sample", "convert", "conversion"))
