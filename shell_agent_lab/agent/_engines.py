"""The current session's analysis engine: opened on first use, closed on a session switch.

A database that cannot be opened (another kernel holds it, say) is not fatal: the engine is
None, the analysis tools are not offered, and :attr:`EngineSlot.error` says why.

:meth:`EngineSlot.suspend` closes the engine and keeps it closed (an export copies the file
meanwhile); :meth:`EngineSlot.resume` lets the next :meth:`EngineSlot.get` open a fresh one.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

__all__ = ["EngineSlot"]

log = logging.getLogger(__name__)

_SUSPENDED = "the analysis database is closed while the session is exported; try again when the export ends"


class EngineSlot:
    def __init__(self, factory: Callable[[Any], Any] | None) -> None:
        self._lock = threading.Lock()
        self._factory = factory
        self._engine: Any = None
        self._session_id: str | None = None
        self._wanted: str | None = None        # the session the agent holds now
        self._error: str | None = None
        self._suspended = False

    @property
    def error(self) -> str | None:
        with self._lock:
            return _SUSPENDED if self._suspended else self._error

    def suspend(self) -> None:
        """Close the engine and open none until :meth:`resume` (its file is being copied)."""
        with self._lock:
            old, self._engine, self._session_id = self._engine, None, None
            self._suspended = True
        _close(old)

    def resume(self) -> None:
        with self._lock:
            self._suspended = False

    def switch(self, session_id: str) -> None:
        """The agent (re)opened ``session_id``: close the engine it held, even for the same session
        (reopening a session reopens its database, e.g. after an export released the file)."""
        with self._lock:
            old, self._engine, self._session_id = self._engine, None, None
            self._wanted = session_id
        _close(old)

    def get(self, session: Any) -> Any:
        """The engine of ``session`` (the current one), opening it when needed."""
        if self._factory is None:
            return None
        with self._lock:
            if self._suspended:
                return None
            if self._session_id == session.id:
                return self._engine
        try:
            engine = self._factory(session)
        except Exception as exc:   # e.g. another kernel holds the database: chat on without data tools
            log.warning("could not open the analysis database of %s: %s", session.id, exc)
            with self._lock:
                self._error = f"{type(exc).__name__}: {exc}"
            return None
        with self._lock:
            self._error = None
            if self._suspended:         # suspended while it opened: the file must stay free
                current = None
            elif self._wanted == session.id and self._session_id != session.id:
                self._engine, self._session_id = engine, session.id
                return engine
            else:
                current = self._engine if self._session_id == session.id else None
        if engine is not current:      # another thread opened it first, or the session moved on
            _close(engine)
        return current

    def close(self) -> None:
        with self._lock:
            engine, self._engine, self._session_id = self._engine, None, None
        _close(engine)


def _close(engine: Any) -> None:
    if engine is None:
        return
    try:
        engine.close()
    except Exception:
        log.exception("closing an analysis engine failed")
