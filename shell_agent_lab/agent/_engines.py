"""The current session's analysis engine: opened on first use, closed on a session switch.

A database that cannot be opened (another kernel holds it, say) is not fatal: the engine is
None, the analysis tools are not offered, and :attr:`EngineSlot.error` says why.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

__all__ = ["EngineSlot"]

log = logging.getLogger(__name__)


class EngineSlot:
    def __init__(self, factory: Callable[[Any], Any] | None) -> None:
        self._lock = threading.Lock()
        self._factory = factory
        self._engine: Any = None
        self._session_id: str | None = None
        self._wanted: str | None = None        # the session the agent holds now
        self._error: str | None = None

    @property
    def error(self) -> str | None:
        with self._lock:
            return self._error

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
            if self._wanted == session.id and self._session_id != session.id:
                self._engine, self._session_id = engine, session.id
                return engine
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
