"""The store's side of the agent's sessions: which session a switch lands on, holding it open
in this process, and exporting it while its analysis database is in use.

:func:`find_or_create_session` finds the session asked for (by id, notebook path or key) or
creates it; :func:`create_next_session` starts a fresh one for the same notebook.
:class:`SessionPresence` holds the current session open in this process (the store's hold) and
records as interrupted the turns a killed kernel left half done in it.
:func:`export_open_session` writes the session to a bundle with its engine closed for the copy
and open again afterwards. The agent calls them under its maintenance hold; none of them
touches its state.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from ._engines import EngineSlot

__all__ = ["SessionPresence", "create_next_session", "export_open_session", "find_or_create_session"]

log = logging.getLogger(__name__)


def find_or_create_session(store: Any, settings: Any, session_id: str | None, *, notebook_path: str | None,
                           key: str | None, private: bool) -> Any:
    """The session with ``session_id`` (KeyError when there is none), else the one of
    ``notebook_path`` or ``key`` (private when ``private`` asks), else a new one on the
    settings' profile."""
    session = None
    if session_id is not None:
        session = store.get_session(session_id)
        if session is None:
            raise KeyError(f"no session with id {session_id!r}; /sessions lists them")
    elif notebook_path is not None or key is not None:
        session = store.find_session(notebook_path, key=key)
        if session is not None and private and not session.private:
            session = None          # a private session for this notebook was asked for
    if session is None:
        session = store.create_session(notebook_path=notebook_path, private=private,
                                       profile=settings.profile, key=key)
    return session


def create_next_session(store: Any, old: Any, *, private: bool | None, title: str) -> Any:
    """A new session for ``old``'s notebook and profile (as private as ``old`` unless ``private`` says)."""
    return store.create_session(title=title, notebook_path=old.notebook_path,
                                private=bool(old.private if private is None else private), profile=old.profile)


class SessionPresence:
    """The store's hold on the session open in this process (at most one)."""

    def __init__(self, store: Any, publish: Callable[[str, dict], None]) -> None:
        self._store = store
        self._publish = publish
        self._held: Any = None

    def move_to(self, session: Any) -> None:
        """Hold ``session`` open in this process (None: hold nothing), and record as interrupted
        the turns a killed kernel left half done in it."""
        old, self._held = self._held, None
        if old is not None:
            old.release()
        if session is None or not hasattr(self._store, "hold_session"):
            return
        try:
            self._held = self._store.hold_session(session.id)
            if self._store.record_interrupted_turns(session.id):
                self._publish("records_updated", {})
        except Exception:
            log.warning("could not mark session %s as open here", session.id, exc_info=True)


def export_open_session(store: Any, engines: EngineSlot, session: Any, dest: Path | str | None,
                        **options: Any) -> Any:
    """Export ``session`` to a ``.shellagent`` bundle: tables still being stored finish first,
    then its engine is closed for the copy and open again after it (also when it fails)."""
    from ..bundle import export_active_session

    def reopen() -> None:
        engines.resume()
        engines.get(session)   # a failure is kept in engine_error; the next use retries

    engine = engines.get(session)
    if engine is not None:   # a table still being stored from its file goes in whole
        engine.wait_loaded()
    try:
        return export_active_session(store, session.id, dest, close_engine=engines.suspend,
                                     reopen_engine=reopen, **options)
    finally:
        engines.resume()
