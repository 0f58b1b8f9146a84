"""Exporting the session an engine has open: close the engine, copy, reopen."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ._export import ExportResult, export_session

__all__ = ["export_active_session"]


def export_active_session(store: Any, session_id: str, dest: Path | str | None = None, *,
                          close_engine: Callable[[], None], reopen_engine: Callable[[], Any],
                          **options: Any) -> ExportResult:
    """Export the session whose analysis database is open in this process.

    ``close_engine`` releases the DuckDB file (the engine's ``close``); ``reopen_engine`` opens
    it again and runs whether the export succeeded or not, so the notebook keeps working.
    The caller keeps turns out until it returns (``Agent.export_session`` does so under the
    agent's maintenance hold).
    """
    close_engine()
    try:
        return export_session(store, session_id, dest, **options)
    finally:
        reopen_engine()
