"""One DuckDB database per session, plus the notebook's live DataFrames as views.

The session connection is sealed: external access off (no files, URLs or other databases)
except the session's own staging directory (see :mod:`.staging`), extension auto-install and
auto-load off, Python replacement scans off, configuration locked. Live DataFrames are
registered on it by variable name with ``register`` (a view over the object, no copy). Small
files come in through :mod:`.loader`, which reads them with a separate, short-lived DuckDB
instance; large CSV, TSV and Parquet files are queryable at once through a view over a hard
link in the staging directory and stored in the background (:mod:`.staging`, run by
:mod:`.background_store`). Every statement
the model writes passes :class:`.SQLGate` first.

All public methods are thread-safe: one re-entrant lock serialises use of the connection
(agent tools and the side panel call from different threads). :meth:`interrupt` does not take
the lock, so it can stop a running query. Background stores use their own connections to the
same database, pause while a query runs, and take the lock only to swap a stored table in.
"""
from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import duckdb
import pyarrow as pa

from . import loader as _loader
from . import staging as _staging
from .background_store import STREAM_PREFIX, BackgroundStores, late_type_change
from .dataframes import describe_frame, find_frames, fingerprint, same_fingerprint
from .errors import (AnalysisError, LoadError, open_failure, write_failure, QueryFailedError, QueryTimeoutError, SQLRejectedError,
                     TableNameError, UnknownTableError)
from .results import INTERNAL_PREFIX as _INTERNAL
from .results import QueryResult, TableInfo, collect_capped, is_internal_name, quote_ident, validate_table_name
from .results import first_line as _first_line
from .settings import AnalysisSettings, parse_size, perfect_hash_bits
from .sql_gate import GatedSQL, SQLGate
from .sql_repair import NUM_MACRO, Column, hint as _repair_hint, preflight as _preflight, repair as _repair
from .stable_order import ORDER_SUFFIX

log = logging.getLogger(__name__)

__all__ = ["AnalysisEngine", "TableInfo", "QueryResult", "quote_ident", "validate_table_name", "MISSING_MARKERS"]

Path_ = Literal["chat", "analyze"]
_BATCH = 8_192
#: corrections tried on one statement before its error goes back to the model
_MAX_REPAIRS = 3
#: how exports write a missing value in a text column (compared lower-case, trimmed)
MISSING_MARKERS = ("", "na", "n/a", "nan", "null", "none", "-", "--", "?", "missing", "#n/a")
#: dates written as text, and how DuckDB reads each ("" = a plain CAST)
_DATE_TEXTS = ((r"\d{4}-\d{2}-\d{2}", "DATE"), (r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?", "TIMESTAMP"),
               (r"\d{1,2}/\d{1,2}/\d{4}", "%m/%d/%Y"), (r"\d{1,2}\.\d{1,2}\.\d{4}", "%d.%m.%Y"),
               (r"\d{4}/\d{2}/\d{2}", "%Y/%m/%d"), (r"\d{4}\.\d{2}\.\d{2}", "%Y.%m.%d"),
               (r"\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}", "%m/%d/%Y %H:%M"),
               (r"\d{1,2} [A-Z][a-z]{2} \d{4}", "%d %b %Y"), (r"[A-Z][a-z]{2} \d{1,2}, \d{4}", "%b %d, %Y"))
#: currency codes an export may write before or after an amount (``EUR 12.50``, ``12.50 EUR``)
_CURRENCY_CODES = ("USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|INR|SEK|NOK|DKK|PLN|CZK|HUF|BRL|MXN|ZAR|SGD|HKD|"
                   "KRW|TRY")
#: a unit written after a number (``14.8 min``, ``3.2kg``, ``12 km/h``)
_UNIT = r"[A-Za-zµ°][A-Za-z/²³µ°]{0,5}"
#: a number written as text: currency (sign or code), sign, separators, decimals, exponent, %,
#: footnote mark, an accounting negative's brackets, a unit
_TEXT_NUMBER = (rf"(({_CURRENCY_CODES})\s*)?[$€£¥+\-−(]*\s*[$€£¥]?\s*\d[\d,\s]*(\.\d+)?([eE][+-]?\d+)?\s*%?\s*"
                rf"(\[[^\]]*\]|\*+|†)?\s*\)?\s*({_UNIT})?")
#: the words around a text number (a unit or a currency code): a column whose numbers carry two
#: different ones (``5 min`` and ``2 h``, ``12 EUR`` and ``9 USD``, ``05 Jan``) is not read as numbers
_NUMBER_WORDS = r"^\s*([A-Z]{3})?[^A-Za-zµ°]*(?:[eE][+-]?\d+[^A-Za-zµ°]*)?((?:" + _UNIT + r")?)\s*$"


class AnalysisEngine(BackgroundStores):
    """The analysis database of one session."""

    def __init__(self, db_path: Path | None, *, namespace: Callable[[], Mapping[str, Any]] | None = None,
                 base_dir: Path | None = None, settings: AnalysisSettings | None = None,
                 on_stored: Callable[[str], None] | None = None) -> None:
        """``on_stored(name)`` is called from the store's thread when a table loaded in the
        background has been stored (or has failed to; the table is then gone), so a view of
        the session's tables can refresh its row counts."""
        self.settings = settings or AnalysisSettings()
        self._on_stored = on_stored
        self.db_path = Path(db_path) if db_path is not None else None
        self.base_dir = Path(base_dir) if base_dir is not None else None
        self._namespace = namespace
        self._lock = threading.RLock()
        self._frames: dict[str, Any] = {}          # registered name -> the object registered
        self._prints: dict[str, tuple[Any, ...]] = {}
        self._gate = SQLGate()
        self._closed = False
        self._reserved: frozenset[str] | None = None
        self._macros: list[str] | None = None
        self._stage = _staging.stage_dir_for(self.db_path) if self.db_path is not None else None
        self._init_stores()
        self._first_opener = False
        fresh = self.db_path is None or not self.db_path.exists()
        self._conn = self._connect()
        if fresh:   # a database this engine creates holds no macros (see _stored_functions)
            self._macros = []
        try:
            if self._first_opener:   # pending loads belong to the engine that opened the file first
                self._resume_loads()
        except Exception:
            self._conn.close()
            self._gate.close()
            raise

    # ---- lifecycle -------------------------------------------------------------------------

    @classmethod
    def open_if_exists(cls, db_path: Path, **kwargs: Any) -> "AnalysisEngine | None":
        """Reopen a session database that exists on disk; ``None`` (and no file) otherwise."""
        return cls(db_path, **kwargs) if Path(db_path).is_file() else None

    def _temp_dir(self) -> Path:
        if self.db_path is not None:
            return self.db_path.with_name(self.db_path.name + ".tmp")
        import tempfile
        return Path(tempfile.gettempdir()) / f"shell_agent_lab_duckdb_{os.getpid()}"

    def _data_dir(self) -> Path | str:
        """Where this engine writes (named when it runs out of room)."""
        return self.db_path.parent if self.db_path is not None else self._temp_dir()

    def _connect(self) -> duckdb.DuckDBPyConnection:
        # external access is switched off right after opening: the staging directory must be
        # allowed first, and DuckDB accepts that only on a running database
        config: dict[str, Any] = {
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "python_enable_replacements": False,
            "threads": self.settings.query_threads(),
            "temp_directory": str(self._temp_dir()),
        }
        if self.settings.memory_limit:
            config["memory_limit"] = self.settings.memory_limit
        target = ":memory:"
        if self.db_path is not None:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            target = str(self.db_path)
        try:
            conn = duckdb.connect(target, config=config)
        except duckdb.Error as exc:
            raise AnalysisError(open_failure(target, exc)) from exc
        try:
            self._seal(conn)
            conn.execute(NUM_MACRO)      # per connection: never stored in the file
        except BaseException:
            conn.close()
            raise
        if self.db_path is not None:
            try:
                os.chmod(self.db_path, 0o600)
            except OSError:  # pragma: no cover
                pass
        return conn

    def _seal(self, conn: duckdb.DuckDBPyConnection) -> None:
        """Allow the staging directory only, switch external access off, lock the configuration.

        A second engine on the same file shares DuckDB's database instance, already sealed; it
        does not see the first one's files still being stored (their views are temporary, per
        connection) and leaves their stores alone.
        """
        if not conn.execute("SELECT current_setting('lock_configuration')").fetchall()[0][0]:
            self._first_opener = True
            if self._stage is not None:
                try:
                    self._stage.mkdir(mode=0o700, exist_ok=True)
                    conn.execute(f"SET allowed_directories = [{_staging.sql_literal(str(self._stage) + os.sep)}]")
                except (OSError, duckdb.Error):   # no staging: every load is stored before it returns
                    log.warning("the staging directory %s is unavailable", self._stage, exc_info=True)
                    self._stage = None
            limit = conn.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
            bits = perfect_hash_bits(parse_size(limit), self.settings.query_threads())
            conn.execute(f"SET perfect_ht_threshold = {int(bits)}")
            conn.execute("SET enable_external_access = false")
            conn.execute("SET lock_configuration = true")
        sealed = conn.execute("SELECT current_setting('enable_external_access'), "
                              "current_setting('lock_configuration')").fetchall()[0]
        if sealed != (False, True):
            raise AnalysisError("the analysis database could not be sealed against file access; "
                                "close other connections to it and reopen the session.")
        if self._stage is not None:
            allowed = conn.execute("SELECT current_setting('allowed_directories')").fetchall()[0][0] or []
            if str(self._stage) + os.sep not in [str(a) for a in allowed] or not self._stage.is_dir():
                self._stage = None

    def close(self) -> None:
        """Stop background stores (they resume when the session reopens), checkpoint, close.

        Idempotent.
        """
        self._stop_jobs(list(self._jobs.values()))
        self.interrupt()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._conn.close()
            finally:
                self._gate.close()
                self._frames.clear()
                self._prints.clear()

    def __enter__(self) -> "AnalysisEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def interrupt(self) -> None:
        """Stop the running query, if any (safe from any thread)."""
        try:
            self._conn.interrupt()
        except (duckdb.Error, AttributeError):
            pass

    def _check_open(self) -> None:
        if self._closed:
            raise AnalysisError("the analysis engine is closed; reopen the session.")

    # ---- DataFrames ------------------------------------------------------------------------

    def _persisted(self) -> dict[str, str]:
        """Loaded tables (stored, or still being stored in the background), lowercase name -> name."""
        rows = self._conn.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND NOT temporary ORDER BY table_name").fetchall()
        found = {r[0].lower(): r[0] for r in rows if not is_internal_name(r[0])}
        for key, job in list(self._jobs.items()):
            found.setdefault(key, job.name)
        return dict(sorted(found.items()))

    def refresh_dataframes(self) -> bool:
        """Sync the registered views with the namespace; return whether anything changed.

        A view is (re)registered when its variable is new, rebound to another object, or the
        object changed shape, columns or (pandas) column arrays; it is dropped when the
        variable is deleted or a loaded table takes its name. Names that differ only in case
        are one name in SQL: the one registered first wins, else the lowercase spelling.
        """
        return self._sync_frames()[0]

    def _sync_frames(self) -> tuple[bool, dict[str, str]]:
        """:meth:`refresh_dataframes`, also returning the loaded tables it read (see
        :meth:`_persisted`; each read of the catalogue costs about a millisecond)."""
        with self._lock:
            self._check_open()
            try:
                live = find_frames(self._namespace()) if self._namespace is not None else {}
            except Exception:  # a namespace that cannot be read shows no DataFrames
                log.warning("reading the notebook namespace failed", exc_info=True)
                live = {}
            persisted = self._persisted()
            taken: set[str] = set(persisted)
            wanted: dict[str, Any] = {}
            # a name already registered keeps its place; otherwise lowercase spellings first
            order = sorted(live, key=lambda n: (n not in self._frames, n.lower(), not n.islower(), n))
            for name in order:
                obj = live[name]
                if name.lower() in taken:
                    continue
                taken.add(name.lower())
                wanted[name] = obj
            changed = False
            for name in list(self._frames):
                obj = wanted.get(name)
                if obj is None or obj is not self._frames[name] or \
                        not same_fingerprint(self._prints[name], fingerprint(obj)):
                    self._conn.unregister(name)
                    del self._frames[name]
                    del self._prints[name]
                    changed = True
            for name, obj in wanted.items():
                if name in self._frames:
                    continue
                try:
                    self._conn.register(name, obj)
                except Exception:  # a frame DuckDB cannot scan (e.g. exotic dtypes) stays unlisted
                    log.info("DataFrame %s cannot be registered", name, exc_info=True)
                    continue
                self._frames[name] = obj
                self._prints[name] = fingerprint(obj)
                changed = True
            return changed, persisted

    def dataframe_names(self) -> list[str]:
        with self._lock:
            self.refresh_dataframes()
            return sorted(self._frames)

    def _known(self) -> set[str]:
        """Names the model's SQL may read: loaded tables and registered DataFrames."""
        _, persisted = self._sync_frames()
        return set(persisted.values()) | set(self._frames)

    # ---- catalogue -------------------------------------------------------------------------

    def _columns(self, name: str) -> list[tuple[str, str]]:
        relation = self._conn.sql(f"SELECT * FROM {quote_ident(name)}")
        return [(c, str(t)) for c, t in zip(relation.columns, relation.types)]

    def _comment(self, name: str) -> str:
        job = self._jobs.get(name.lower())
        if job is not None:   # kept with the load record until the table is stored
            return job.description
        rows = self._conn.execute(
            "SELECT comment FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND table_name = ?", [name]).fetchall()
        return (rows[0][0] or "") if rows else ""

    def _table_info(self, name: str, *, samples: bool = False) -> TableInfo:
        job = self._jobs.get(name.lower())
        if job is not None:   # a file still being stored: its row count would mean a full scan
            info = TableInfo(name=name, kind="table", rows=job.estimated_rows, columns=self._columns(name),
                             description=self._comment(name), loading=True, rows_exact=job.rows_exact)
            if samples:
                if job.samples is None:
                    job.samples = self._samples(name, info.columns)
                info.samples = job.samples
            return info
        rows = self._conn.execute(f"SELECT count(*) FROM {quote_ident(name)}").fetchall()[0][0]
        info = TableInfo(name=name, kind="table", rows=int(rows), columns=self._columns(name),
                         description=self._comment(name))
        if samples:
            info.samples = self._samples(name, info.columns)
        return info

    def _samples(self, name: str, columns: list[tuple[str, str]]) -> dict[str, list[str]]:
        head = self._conn.sql(f"SELECT * FROM {quote_ident(name)} LIMIT 3").to_arrow_table()
        return {c: [_short(v) for v in head.column(i).to_pylist()] for i, (c, t) in enumerate(columns[:100])}

    def _frame_info(self, name: str) -> TableInfo:
        obj = self._frames[name]
        described = describe_frame(name, obj)
        return TableInfo(name=name, kind="dataframe", rows=described.rows, columns=self._columns(name),
                         library=described.library, samples=described.samples)

    def tables(self) -> list[TableInfo]:
        """Loaded tables, then live DataFrames, each sorted by name."""
        with self._lock:
            self.refresh_dataframes()
            infos = [self._table_info(n, samples=True) for n in self._persisted().values()]
            infos += [self._frame_info(n) for n in sorted(self._frames)]
            return infos

    def has_data(self) -> bool:
        with self._lock:
            self.refresh_dataframes()
            return bool(self._frames) or bool(self._persisted())

    def _resolve(self, name: Any) -> tuple[str, str]:
        """(kind, canonical name) of a table or DataFrame; UnknownTableError otherwise."""
        if not isinstance(name, str) or not name:
            raise UnknownTableError("a table name is required; list_tables shows what is loaded.")
        persisted = self._persisted()
        if name.lower() in persisted:
            return "table", persisted[name.lower()]
        for frame in self._frames:
            if frame.lower() == name.lower():
                return "dataframe", frame
        if name.lower() in self._lost:
            raise UnknownTableError(self._lost[name.lower()])
        known = sorted(set(persisted.values()) | set(self._frames))
        listing = ", ".join(known[:20]) if known else "none loaded yet; use load_data or create a DataFrame"
        raise UnknownTableError(f"unknown table {name!r}; available: {listing}.")

    def describe(self, name: str) -> TableInfo:
        """Schema, row count, description and sample values of a table or DataFrame."""
        with self._lock:
            self.refresh_dataframes()
            kind, canonical = self._resolve(name)
            if kind == "table":
                return self._table_info(canonical, samples=True)
            return self._frame_info(canonical)

    def frame(self, name: str, *, max_rows: int = 2_000_000) -> Any:
        """A loaded table read into a pandas DataFrame (a live DataFrame is returned as it is);
        refused with AnalysisError when it has more than ``max_rows`` rows."""
        with self._lock:
            self.refresh_dataframes()
            kind, canonical = self._resolve(name)
            if kind == "dataframe":
                return self._frames[canonical]
            self._check_open()
            quoted = quote_ident(canonical)
            counted = self._conn.execute(f"SELECT count(*) FROM {quoted}").fetchone()
            rows = int(counted[0]) if counted else 0
            if rows > max_rows:
                raise AnalysisError(f"{canonical!r} has {rows:,} rows, more than the {max_rows:,} a "
                                    "DataFrame is made of here; query it with SQL instead.")
            return self._conn.execute(f"SELECT * FROM {quoted}").df()

    def column_stats(self, name: str, *, timeout: float | None = None) -> dict[str, tuple[int, int]]:
        """Per column: (non-null values, approximate distinct values), in one scan."""
        with self._lock:
            self.refresh_dataframes()
            _, canonical = self._resolve(name)
            columns = [c for c, _ in self._columns(canonical)][:200]
            if not columns:
                return {}
            parts = []
            for column in columns:
                quoted = quote_ident(column)
                parts.append(f"count({quoted})")
                parts.append(f"approx_count_distinct({quoted})")
            result = self._run(f"SELECT {', '.join(parts)} FROM {quote_ident(canonical)}", cap=1,
                               path="chat", timeout=timeout)
            values = result.rows[0]
            return {c: (int(values[2 * i]), int(values[2 * i + 1])) for i, c in enumerate(columns)}

    def column_profile(self, name: str, *, rows: int = 5_000) -> dict[str, dict[str, Any]]:
        """What the first ``rows`` rows of each text column hold, for prompts:
        ``{"text_numbers": bool, "missing": [markers], "examples": [messy values]}``.

        A text column whose present values are (nearly) all numbers written as text — currency
        signs, thousands separators, percent signs, footnote marks — has ``text_numbers``; the
        model is told to read it with ``num()``."""
        with self._lock:
            self.refresh_dataframes()
            _, canonical = self._resolve(name)
            text = [c for c, t in self._columns(canonical) if t.upper().startswith("VARCHAR")][:60]
            if not text:
                return {}
            markers = ", ".join(_staging.sql_literal(m) for m in MISSING_MARKERS)
            parts = []
            for i, column in enumerate(text):
                c = f"trim({quote_ident(column)})"
                parts.append(
                    f"count(*) FILTER (WHERE {c} IS NULL) AS z{i}, "
                    f"count(*) FILTER (WHERE {c} IS NOT NULL AND lower({c}) NOT IN ({markers})) AS p{i}, "
                    f"count(*) FILTER (WHERE regexp_full_match({c}, {_staging.sql_literal(_TEXT_NUMBER)})) AS n{i}, "
                    f"list(DISTINCT {c} ORDER BY {c}) FILTER (WHERE lower({c}) IN ({markers})) AS m{i}, "
                    f"list(DISTINCT {c} ORDER BY {c}) FILTER (WHERE regexp_full_match({c}, "
                    f"{_staging.sql_literal(_TEXT_NUMBER)}) AND regexp_matches({c}, '[^0-9.-]')) AS x{i}, "
                    f"count(DISTINCT regexp_replace(regexp_replace({c}, '\\[[^\\]]*\\]|\\*+|†', '', 'g'), "
                    f"{_staging.sql_literal(_NUMBER_WORDS)}, '\\1 \\2')) "
                    f"FILTER (WHERE regexp_full_match({c}, {_staging.sql_literal(_TEXT_NUMBER)}) "
                    f"AND regexp_matches({c}, '[A-Za-zµ°]')) AS u{i}, "
                    + ", ".join(f"count(*) FILTER (WHERE regexp_full_match({c}, {_staging.sql_literal(rx)})) AS d{i}_{k}"
                                for k, (rx, _) in enumerate(_DATE_TEXTS))
                    + f", max(TRY_CAST(split_part({c}, '/', 1) AS INTEGER)) AS f{i}")
            sql = f"SELECT {', '.join(parts)} FROM (SELECT * FROM {quote_ident(canonical)} LIMIT {int(rows)})"
            try:
                row = self._conn.execute(sql).fetchall()[0]
            except duckdb.Error:
                log.debug("column profile of %s failed", name, exc_info=True)
                return {}
        out: dict[str, dict[str, Any]] = {}
        width = 7 + len(_DATE_TEXTS)
        for i, column in enumerate(text):
            nulls, present, numeric, missing, messy, words, *dates, first = row[width * i: width * (i + 1)]
            missing = (["NULL"] if nulls else []) + list(missing or [])
            date_format = ""
            for (_, fmt), count in zip(_DATE_TEXTS, dates):
                if present and count >= 0.9 * present:
                    date_format = fmt.replace("%m/%d", "%d/%m") if fmt.startswith("%m/%d/%Y") and (first or 0) > 12 else fmt
            numbers = bool(present) and numeric >= 0.9 * present and not date_format and words <= 1
            out[column] = {"text_numbers": numbers, "missing": list(missing or [])[:4],
                           "examples": list(messy or [])[:2], "date_format": date_format}
        return out

    def set_description(self, name: str, description: str) -> None:
        """Store a description with a loaded table (``COMMENT ON TABLE``)."""
        if not isinstance(description, str):
            raise AnalysisError("description must be text.")
        with self._lock:
            self.refresh_dataframes()
            kind, canonical = self._resolve(name)
            if kind != "table":
                raise AnalysisError(f"{canonical!r} is a live DataFrame; descriptions are kept for loaded tables only.")
            job = self._jobs.get(canonical.lower())
            if job is not None:   # still being stored: the swap puts it on the table
                self._conn.execute(f"UPDATE {_staging.LOADS_TABLE} SET description = ? WHERE token = ?",
                                   [description[:4000], job.token])
                job.description = description[:4000]
                return
            literal = "'" + description[:4000].replace("'", "''") + "'"
            self._conn.execute(f"COMMENT ON TABLE {quote_ident(canonical)} IS {literal}")

    # ---- queries ---------------------------------------------------------------------------

    def check_sql(self, sql: str) -> GatedSQL:
        """Run the read-only gate without executing."""
        with self._lock:
            self._check_open()
            return self._gate.check(sql, self._known(), self._stored_functions())

    def _stored_functions(self) -> list[str]:
        """Macros defined in the database file itself (a foreign file could carry any).

        Read once, and not at all from a database this engine created: listing DuckDB's
        functions takes 10–20 ms of the first query, and nothing this engine runs can define
        one (the gate passes SELECTs only; loads create tables and views)."""
        if self._macros is None:
            rows = self._conn.execute("SELECT function_name FROM duckdb_functions() WHERE NOT internal "
                                      "AND database_name <> 'temp'").fetchall()
            self._macros = [r[0] for r in rows]
        return self._macros

    def query(self, sql: str, *, path: Path_ = "chat", timeout: float | None = None,
              cancel: threading.Event | None = None) -> QueryResult:
        """Run one validated read-only SELECT and return its rows, within the path's row cap.

        ``timeout`` (seconds; default from settings, 0 for none) and ``cancel`` interrupt it.
        """
        if path not in ("chat", "analyze"):
            raise AnalysisError(f"unknown query path {path!r}; use 'chat' or 'analyze'.")
        cap = self.settings.max_query_rows if path == "chat" else self.settings.max_analyze_rows
        with self._lock:
            repairs: list[str] = []
            current = sql
            if "'" in sql:
                early = _preflight(sql, self._columns_in_scope(profile=False))
                if early is not None:
                    repairs.append(early.change)
                    current = early.sql
            while True:
                try:
                    gated = self.check_sql(current)
                    result = self._run(gated.sql, cap=cap, path=path, timeout=timeout, cancel=cancel,
                                       sorted_sql=gated.sql + ORDER_SUFFIX if gated.unstable_order else None,
                                       fast_sql=gated.fast_sql)
                except (SQLRejectedError, QueryFailedError) as exc:
                    message = str(exc)
                    if isinstance(exc, SQLRejectedError) and not (message.startswith("SQL syntax error")
                                                                  or self._made_up_table(message)):
                        raise
                    columns = self._columns_in_scope()
                    fixed = _repair(current, message, columns) if len(repairs) < _MAX_REPAIRS else None
                    if fixed is None:
                        advice = _repair_hint(message, columns)
                        if not advice and not repairs:
                            raise
                        done = f" (already corrected: {'; '.join(repairs)})" if repairs else ""
                        raise type(exc)(f"{message}{done} {advice}".strip()) from exc
                    repairs.append(fixed.change)
                    current = fixed.sql
                    continue
                result.repairs = repairs
                return result

    def _made_up_table(self, message: str) -> bool:
        """The gate refused a table name that names nothing in the database (a guess, which a
        repair may replace); a name the file does hold (a view, say) stays refused."""
        match = re.search(r"unknown table '([^']+)'", message)
        if not match:
            return False
        rows = self._conn.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE lower(table_name) = lower(?) UNION ALL "
            "SELECT count(*) FROM duckdb_views() WHERE lower(view_name) = lower(?)",
            [match.group(1), match.group(1)]).fetchall()
        return not any(r[0] for r in rows)

    def _columns_in_scope(self, *, profile: bool = True) -> list[Column]:
        """Every column of the tables and DataFrames SQL may read (for repairs); ``profile``
        adds what the text columns hold (numbers, dates)."""
        out: list[Column] = []
        for name in sorted(self._known()):
            try:
                columns = self._columns(name)
            except duckdb.Error:
                continue
            hints = self.column_profile(name) if profile else {}
            out.extend(Column(name, c, t, text_numbers=bool(hints.get(c, {}).get("text_numbers")),
                              date_format=hints.get(c, {}).get("date_format") or "") for c, t in columns)
        return out

    def preview(self, name: str, limit: int = 10) -> QueryResult:
        """The first ``limit`` rows (clamped to 1–1,000) of a table or DataFrame."""
        try:
            limit = int(limit)
        except (TypeError, ValueError):
            limit = 10
        limit = max(1, min(1000, limit))
        with self._lock:
            self.refresh_dataframes()
            _, canonical = self._resolve(name)
            return self._run(f"SELECT * FROM {quote_ident(canonical)} LIMIT {limit}", cap=limit,
                             path="chat", timeout=None)

    def rows_window(self, name: str, offset: int, limit: int) -> QueryResult:
        """Rows ``offset .. offset+limit`` of a table or DataFrame, in storage order.

        A table still being stored is waited for (each window would re-read the file)."""
        self.wait_loaded(name)
        with self._lock:
            self.refresh_dataframes()
            _, canonical = self._resolve(name)
            sql = f"SELECT * FROM {quote_ident(canonical)} LIMIT {int(limit)} OFFSET {int(offset)}"
            return self._run(sql, cap=max(1, int(limit)), path="analyze", timeout=None)

    def row_count(self, name: str) -> int:
        """Exact rows of a table or DataFrame (a table still being stored is waited for)."""
        self.wait_loaded(name)
        with self._lock:
            self.refresh_dataframes()
            _, canonical = self._resolve(name)
            return int(self._conn.execute(f"SELECT count(*) FROM {quote_ident(canonical)}").fetchall()[0][0])

    def _watch(self, limit: float | None, cancel: threading.Event | None,
               done: threading.Event, timed_out: threading.Event) -> threading.Thread | None:
        """Interrupt the running query at the deadline or when ``cancel`` is set."""
        if not (limit and limit > 0) and cancel is None:
            return None
        deadline = time.monotonic() + limit if limit and limit > 0 else None

        def watch() -> None:
            while not done.is_set():
                if cancel is not None and cancel.is_set():
                    self.interrupt()
                    return
                if deadline is not None and time.monotonic() >= deadline:
                    timed_out.set()
                    self.interrupt()
                    return
                remaining = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
                done.wait(remaining)

        watcher = threading.Thread(target=watch, name="analysis-query-watch", daemon=True)
        watcher.start()
        return watcher

    def _bind_faster(self, fast_sql: str, sql: str, sort: bool) -> tuple[Any, list[str]] | None:
        """``fast_sql`` (sorted like the original would be) bound, with the original's column
        names, when it yields exactly the original's column types; else None."""
        try:
            fast = self._conn.sql(fast_sql + ORDER_SUFFIX if sort else fast_sql)
            reference = self._conn.sql(sql)
        except duckdb.InterruptException:
            raise
        except duckdb.Error:
            return None
        if len(fast.columns) != len(reference.columns) or \
                [str(t) for t in fast.types] != [str(t) for t in reference.types]:
            return None
        return fast, list(reference.columns)

    def _run(self, sql: str, *, cap: int, path: str, timeout: float | None,
             cancel: threading.Event | None = None, sorted_sql: str | None = None,
             fast_sql: str | None = None) -> QueryResult:
        """Run ``sql`` and collect it within ``cap`` rows.

        What runs is chosen by :meth:`_bind`; the timeout and ``cancel`` interrupt it through
        :meth:`_watch`, and background stores pause until it is done."""
        self._check_open()
        limit = self.settings.query_timeout if timeout is None else timeout
        done, timed_out = threading.Event(), threading.Event()
        started = time.perf_counter()
        watcher = self._watch(limit, cancel, done, timed_out)
        try:
            with self._queries_first():
                relation, names = self._bind(sql, sorted_sql, fast_sql)
                columns = names if names is not None else list(relation.columns)
                types = [str(t) for t in relation.types]
                table = self._collect(relation, cap=cap, path=path)
                if names is not None and table.column_names != names:
                    table = table.rename_columns(names)
        except duckdb.InterruptException as exc:
            raise _interrupted(limit, timed_out.is_set()) from exc
        except duckdb.Error as exc:
            raise QueryFailedError(f"query failed: {_first_line(exc)}") from exc
        finally:
            done.set()
            if watcher is not None:
                watcher.join()
        return QueryResult(sql=sql, columns=columns, types=types, table=table,
                           elapsed=time.perf_counter() - started, path=path)

    def _bind(self, sql: str, sorted_sql: str | None,
              fast_sql: str | None) -> tuple[duckdb.DuckDBPyRelation, list[str] | None]:
        """The relation to run, and the original's column names when they differ from its own.

        That is ``fast_sql`` (the faster form) when it binds to the same column types, else
        ``sorted_sql`` (the stably ordered form) when it binds (a column type DuckDB cannot
        sort falls back to the original), else ``sql`` itself."""
        if fast_sql is not None:
            bound = self._bind_faster(fast_sql, sql, sorted_sql is not None)
            if bound is not None:
                return bound
        relation = None
        if sorted_sql is not None:
            try:
                relation = self._conn.sql(sorted_sql)
            except duckdb.InterruptException:
                raise
            except duckdb.Error:
                relation = None
        if relation is None:
            relation = self._conn.sql(sql)
        return relation, None

    def _collect(self, relation: duckdb.DuckDBPyRelation, *, cap: int, path: str) -> pa.Table:
        """Run ``relation`` and gather its rows as Arrow, refusing more than ``cap`` rows or
        ``settings.max_result_bytes`` as soon as a batch passes either."""
        reader = relation.to_arrow_reader(_BATCH)
        try:
            return collect_capped(reader, reader.schema, max_rows=cap, max_bytes=self.settings.max_result_bytes,
                                  too_many_rows=_cap_message(cap, path))
        finally:
            try:
                reader.close()
            except Exception:  # pragma: no cover - closing never matters more than the error
                pass

    # ---- writes (tool code only, never model SQL) ------------------------------------------

    def _reserved_words(self) -> frozenset[str]:
        if self._reserved is None:
            rows = self._conn.execute(
                "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category = 'reserved'").fetchall()
            self._reserved = frozenset(r[0].lower() for r in rows)
        return self._reserved

    def _check_new_name(self, name: Any) -> str:
        name = validate_table_name(name)
        if name.lower() in self._reserved_words():
            raise TableNameError(f"{name!r} is an SQL keyword; choose another table name (e.g. {name}_data).")
        if name.lower() in {f.lower() for f in self._frames}:
            raise TableNameError(f"{name!r} is the name of a live DataFrame in the notebook; choose another table name.")
        return name

    def load(self, file_path: str, table_name: str, *, progress: _loader.Progress | None = None,
             cancel: threading.Event | None = None) -> TableInfo:
        """Load a CSV / TSV / JSON / JSONL / Parquet file as a table (``CREATE OR REPLACE``).

        A large CSV, TSV or Parquet file (``settings.background_load_bytes``) is queryable when
        this returns and is stored in the background (:mod:`.staging`); the returned info then
        has ``loading`` set and, for text files, an estimated row count. ``cancel`` stops the
        load while this call runs; once it has returned, the table is the engine's to finish.
        """
        with self._lock:
            self._check_open()
            self.refresh_dataframes()
            name = self._check_new_name(table_name)
            path = _loader.validate_file_path(file_path, self.base_dir, self.settings.max_file_bytes)
            kind = _loader.detect_format(path)
            size = path.stat().st_size
            if progress is not None:
                progress(f"loading {path.name} ({_loader.human_bytes(size)})", 0, size)
            if self._stageable(path, kind, size):
                staged = self._load_staged(path, kind, name, progress=progress, cancel=cancel)
                if staged is not None:
                    return staged
            try:
                self._ingest(path, kind, name, progress=progress, cancel=cancel, full_sample=False)
            except LoadError as first:
                text = str(first).lower()
                if kind not in ("csv", "tsv", "json", "jsonl") or not late_type_change(text):
                    raise
                if progress is not None:
                    progress("types changed late in the file; re-reading with a full-file type scan", None, None)
                self._ingest(path, kind, name, progress=progress, cancel=cancel, full_sample=True)
            info = self._table_info(name)
            if progress is not None:
                progress(f"loaded {info.rows:,} rows into {name}", size, size)
            return info

    def _ingest(self, path: Path, kind: str, name: str, *, progress: _loader.Progress | None,
                cancel: threading.Event | None, full_sample: bool) -> None:
        source = _loader.open_reader(path, kind, threads=self.settings.resolved_threads(),
                                     memory_limit=self.settings.memory_limit,
                                     temp_dir=self._temp_dir(), full_sample=full_sample)
        view = f"{_INTERNAL}load_{os.getpid()}_{threading.get_ident()}"
        replaced = self._jobs.get(name.lower())
        if replaced is not None:   # a file still being stored under this name: stop that first
            self._stop_jobs([replaced])
        try:
            self._conn.register(view, _loader.counted(source.reader, progress=progress, cancel=cancel))
            try:
                self._conn.execute("BEGIN")
                try:
                    self._drop_name(self._conn, name)
                    self._conn.execute(f"CREATE TABLE {quote_ident(name)} AS SELECT * FROM {quote_ident(view)}")
                    self._conn.execute("COMMIT")
                except BaseException:
                    _rollback(self._conn)      # a failed write may have ended it already
                    raise
            finally:
                self._conn.unregister(view)
        except BaseException as exc:
            if replaced is not None:   # the old table stays: so does its store
                self._resume_job(replaced)
            if isinstance(exc, duckdb.Error):
                full = write_failure(self._data_dir(), exc)
                if full is not None:
                    raise LoadError(f"cannot load {path.name}: {full}") from exc
                reason = STREAM_PREFIX.sub("", _first_line(exc))
                raise LoadError(f"cannot load {path.name} as {kind.upper()}: {reason}") from exc
            raise
        finally:
            source.close()
        if replaced is not None:
            self._forget_job(replaced)

    def create_table_from_query(self, name: str, sql: str, *, description: str | None = None) -> TableInfo:
        """``CREATE TABLE name AS <validated SELECT>``; refuses an existing name with suggestions."""
        with self._lock:
            self._check_open()
            known = self._known()   # after syncing the DataFrames, which the name must not shadow
            name = self._check_new_name(name)
            taken = {k.lower() for k in known}
            if name.lower() in taken:
                suggestions = [s for s in (f"{name}_v2", f"{name}_filtered", f"{name}_derived")
                               if s.lower() not in taken]
                raise TableNameError(f"a table named {name!r} already exists; choose another name, "
                                     f"e.g. {', '.join(suggestions)}.")
            gated = self._gate.check(sql, known, self._stored_functions())
            try:
                self._conn.execute(f"CREATE TABLE {quote_ident(name)} AS \n{gated.sql}\n")
            except duckdb.Error as exc:
                raise QueryFailedError(f"could not create {name!r}: {_first_line(exc)}") from exc
            if description:
                self.set_description(name, description)
            return self._table_info(name)

    def store_arrow(self, name: str, table: pa.Table, *, description: str | None = None) -> TableInfo:
        """Store an Arrow table (a result fetched from another engine) as table ``name``,
        replacing a loaded table of that name; a live DataFrame's name is refused."""
        with self._lock:
            self._check_open()
            self._known()
            name = self._check_new_name(name)
            if name.lower() in {k.lower() for k in self._jobs}:
                raise TableNameError(f"{name!r} is still being loaded; choose another name.")
            staged = f"{_INTERNAL}arrow_{threading.get_ident()}"
            self._conn.register(staged, table)
            try:
                self._conn.execute(f"CREATE OR REPLACE TABLE {quote_ident(name)} AS SELECT * FROM {quote_ident(staged)}")
            except duckdb.Error as exc:
                raise QueryFailedError(f"could not store {name!r}: {_first_line(exc)}") from exc
            finally:
                self._conn.unregister(staged)
            if description:
                self.set_description(name, description)
            return self._table_info(name)

    def drop_all(self) -> list[str]:
        """Drop every loaded table (live DataFrames are untouched); return the dropped names."""
        with self._lock:
            self._check_open()
            names = list(self._persisted().values())
            jobs = list(self._jobs.values())
            self._stop_jobs(jobs)
            self._conn.execute("BEGIN")
            try:
                for name in names:
                    self._drop_name(self._conn, name)
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            for job in jobs:
                self._forget_job(job)
            self._lost.clear()
            self.refresh_dataframes()  # DataFrames hidden by a same-named table come back
            return names


def _interrupted(limit: float, timed_out: bool) -> AnalysisError:
    """The error for a query that was interrupted: by its timeout, or cancelled."""
    if timed_out:
        return QueryTimeoutError(f"query stopped after {limit:g} s; filter with WHERE, aggregate, or sample "
                                 "(USING SAMPLE 10%) to make it faster.")
    return QueryFailedError("query cancelled.")


def _cap_message(cap: int, path: str) -> str:
    if path == "chat":
        return (f"the result has more than {cap:,} rows; add LIMIT, a WHERE filter or an "
                f"aggregation so it returns at most {cap:,} rows.")
    return (f"the analysis input has more than {cap:,} rows; pre-aggregate it (GROUP BY) or filter "
            f"it into a smaller table with save_query first.")


def _short(value: Any) -> str:
    from .render import format_value
    text = format_value(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _rollback(conn: duckdb.DuckDBPyConnection) -> None:
    """Roll back if a transaction is still open (a write that failed for want of space ends it)."""
    try:
        conn.execute("ROLLBACK")
    except duckdb.Error:
        log.debug("nothing to roll back", exc_info=True)
