"""Per-session analysis: DuckDB over loaded files and the notebook's live DataFrames.

``AnalysisEngine`` owns one session database; ``analysis_tools()`` returns the tool descriptors
whose handlers use it. The model's SQL goes through a sealed read-only gate (``sql_gate``).
"""
from .engine import AnalysisEngine
from .results import QueryResult, TableInfo
from .errors import (AnalysisError, LoadError, QueryFailedError, QueryTimeoutError, RowCapError,
                     SQLRejectedError, TableNameError, UnknownTableError)
from .settings import AnalysisSettings
from .tools import analysis_tools

__all__ = [
    "AnalysisEngine", "AnalysisSettings", "QueryResult", "TableInfo", "analysis_tools",
    "AnalysisError", "SQLRejectedError", "RowCapError", "QueryTimeoutError", "QueryFailedError",
    "UnknownTableError", "TableNameError", "LoadError",
]
