"""Errors raised by the analysis engine.

    AnalysisError               every failure; ``str()`` is one actionable line
     ├── SQLRejectedError       the read-only gate refused a statement
     ├── RowCapError            a result has more rows than the path allows
     ├── QueryTimeoutError      a query ran past its time limit and was interrupted
     ├── QueryFailedError       DuckDB refused or failed the statement (message passed through)
     ├── UnknownTableError      no table or DataFrame of that name
     ├── TableNameError         a name is not a valid identifier, or is taken
     └── LoadError              a file cannot be loaded (path, size, format)

Tool handlers turn these into ``ToolError`` so the model sees the line and can react.
"""
from __future__ import annotations

import re as _re

__all__ = [
    "AnalysisError", "SQLRejectedError", "RowCapError", "QueryTimeoutError", "QueryFailedError",
    "UnknownTableError", "TableNameError", "LoadError", "open_failure", "write_failure",
]

_LOCK_HOLDER = _re.compile(r"Conflicting lock is held in .*?\(PID (\d+)\)")
_NO_SPACE = ("no space left", "file too large", "disk is full", "disk full", "could not write",
             "could not truncate", "could not extend")


def open_failure(path: object, exc: BaseException) -> str:
    """One line on why the analysis database at ``path`` could not be opened, and what to do."""
    text = " ".join(str(exc).split())
    held = _LOCK_HOLDER.search(text)
    if "Could not set lock" in text:
        who = f" (PID {held.group(1)})" if held else ""
        return (f"the analysis database {path} is open in another kernel{who}: its tables are used from there; "
                "chat, memory and Findings work here — shut that kernel down and run this again to use them here")
    if "not a valid DuckDB database" in text or "Could not read enough bytes" in text or "orrupt" in text:
        return (f"the analysis database {path} is damaged ({text[:160]}); it was left untouched — move it aside "
                "(rename it to analysis.duckdb.broken) to start this session's tables afresh, or restore the "
                "session from an exported bundle")
    return f"cannot open the analysis database {path}: {text[:200]}"


def write_failure(directory: object, exc: BaseException) -> str | None:
    """One line for a write that failed for want of space under ``directory`` (None: another failure)."""
    text = " ".join(str(exc).split())
    if not any(marker in text.lower() for marker in _NO_SPACE):
        return None
    return (f"could not write to the data directory {directory}: the disk is full or a file size limit was "
            "reached; free some space and load it again (nothing stored before was lost)")


class AnalysisError(Exception):
    """Base class of analysis failures."""


class SQLRejectedError(AnalysisError):
    """The statement is not a single read-only SELECT over known tables."""


class RowCapError(AnalysisError):
    """The result is larger than the row cap of the path it ran on."""


class QueryTimeoutError(AnalysisError):
    """The query was interrupted after its time limit."""


class QueryFailedError(AnalysisError):
    """DuckDB could not run the statement (syntax, binder, type or runtime error)."""


class UnknownTableError(AnalysisError):
    """No loaded table or live DataFrame has that name."""


class TableNameError(AnalysisError):
    """A table name is invalid or already in use."""


class LoadError(AnalysisError):
    """A file could not be loaded."""
