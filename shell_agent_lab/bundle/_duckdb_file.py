"""The session's analysis database as a file: a consistent snapshot on export, a check on import."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from .errors import BundleExportError, InvalidBundleError

__all__ = ["snapshot", "check_imported", "finish_pending_stores"]

_MAGIC = b"DUCK"
_MAGIC_OFFSET = 8
#: settings for opening a database we did not write: nothing outside the file is reachable
_SEALED = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


def finish_pending_stores(db: Path) -> tuple[str, ...]:
    """Finish storing the tables a kernel was still storing when it stopped, so a copy of
    ``db`` holds them (their files are staged beside the session's database, which a bundle
    does not carry). Returns the names that could not be stored (their staged file is gone or
    changed; the user has to load them again). Nothing is opened for writing when no store is
    pending; a file that cannot be opened is left for :func:`snapshot` to report."""
    import duckdb

    from ..analysis import AnalysisEngine
    from ..analysis.staging import LOADS_TABLE

    try:
        con = duckdb.connect(str(db), read_only=True, config=dict(_SEALED))
    except duckdb.Error:
        return ()
    try:
        pending = [str(row[0]) for row in con.execute(f"SELECT name FROM {LOADS_TABLE}").fetchall()
                   if row[0] is not None]
    except duckdb.Error:   # no pending loads (or a table that is not ours: the engine drops it)
        pending = []
    finally:
        con.close()
    if not pending:
        return ()
    try:
        engine = AnalysisEngine(db)   # resumes the pending stores from their staged files
    except Exception as exc:
        raise BundleExportError(f"cannot finish storing the tables of {db} ({exc})") from exc
    try:
        engine.wait_loaded()
        stored = {info.name.lower() for info in engine.tables()}
    finally:
        engine.close()
    return tuple(dict.fromkeys(name for name in pending if name.lower() not in stored))


def snapshot(src: Path, dest: Path) -> None:
    """Checkpoint ``src`` (folding its write-ahead log in) and copy it to ``dest`` (0600).

    The caller makes sure no engine in this process is writing to ``src`` (the
    "close, copy, reopen" helper does that for the active session). Another process holding the
    file open is reported with a clear error instead of copying a torn file.
    """
    import duckdb

    try:
        con = duckdb.connect(str(src))
    except duckdb.Error as exc:
        text = str(exc).splitlines()[0]
        if "lock" in text.lower():
            raise BundleExportError(
                f"{src} is open in another kernel; close that notebook's kernel (or export from "
                "it) and try again") from exc
        raise BundleExportError(f"cannot read the analysis database {src} ({text})") from exc
    try:
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise BundleExportError(f"cannot checkpoint {src} ({str(exc).splitlines()[0]})") from exc
    finally:
        con.close()
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
        shutil.copyfileobj(inp, out, 1024 * 1024)


def check_imported(path: Path) -> list[str]:
    """Open an extracted database read-only with external access off; return its table names.

    Views and macros are refused: a view stored in a hostile file could read local files the
    moment the session queries it, behind the back of the sealed SQL gate.
    """
    import duckdb

    from ..analysis.results import is_internal_name

    with open(path, "rb") as fh:
        head = fh.read(_MAGIC_OFFSET + len(_MAGIC))
    if head[_MAGIC_OFFSET:] != _MAGIC:
        raise InvalidBundleError("bundle analysis database is not a DuckDB file")
    try:
        con = duckdb.connect(str(path), read_only=True, config=dict(_SEALED))
    except duckdb.Error as exc:
        raise InvalidBundleError(
            f"bundle analysis database cannot be opened ({str(exc).splitlines()[0]})") from exc
    try:
        views = con.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary").fetchall()
        if views:
            raise InvalidBundleError(
                f"bundle analysis database defines a view ({views[0][0]!r}); views are not imported "
                "because they could read files outside the session")
        macros = con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE NOT internal "
            "AND function_type IN ('macro', 'table_macro')").fetchall()
        if macros:
            raise InvalidBundleError(
                f"bundle analysis database defines a macro ({macros[0][0]!r}); refusing it")
        tables = [row[0] for row in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary "
            "ORDER BY table_name").fetchall() if not is_internal_name(row[0])]
    except duckdb.Error as exc:
        raise InvalidBundleError(
            f"bundle analysis database is damaged ({str(exc).splitlines()[0]})") from exc
    finally:
        con.close()
    return tables
