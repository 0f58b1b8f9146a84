"""Sources beyond the session's DuckDB: PostgreSQL and Spark Connect, read-only and pushed down.

:class:`Connections` holds a session's named connections (secrets in memory only);
:class:`Sources` puts them beside the session's DuckDB behind the analysis engine's methods,
so every analysis tool reads ``pg.sales`` or ``spark.events`` the way it reads a local table.
"""
from __future__ import annotations

from .base import Engine, EngineError, RemoteTable
from .connections import Connections
from .local import LocalEngine
from .sources import Sources
from .urls import ConnectionSpec, parse_url, redact

__all__ = ["Engine", "EngineError", "RemoteTable", "Connections", "LocalEngine", "Sources", "ConnectionSpec",
           "parse_url", "redact"]
