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

__all__ = [
    "AnalysisError", "SQLRejectedError", "RowCapError", "QueryTimeoutError", "QueryFailedError",
    "UnknownTableError", "TableNameError", "LoadError",
]


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
