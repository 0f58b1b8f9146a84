"""The background work that follows an answered turn: the session's automatic title, then
memory extraction.

:func:`wants_title` decides whether the turn just answered should name its session (automatic
titles on, the title still the default one and not locked, the session's first message);
:func:`run_after_turn` does the work on the background thread, each step skipped once
``cancel`` is set and each failure logged rather than raised, with ``extraction_started`` and
``extraction_done`` published around the extraction. :func:`extract_memories` is the default
extraction (the latest turn's memories, read at the session's data-sharing level) and
:func:`generate_title` asks the model for the title and stores it. Releasing the agent's
background slot afterwards is the state machine's part and stays with the agent.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from ..events import EventBus
from ..llm.types import Backend
from . import _context
from ._backends import auto_title_on
from ._titles import DEFAULT_TITLE, make_title

__all__ = ["Extractor", "extract_memories", "generate_title", "run_after_turn", "wants_title"]

log = logging.getLogger(__name__)

#: memory extraction after a turn: (session, backend, cancel) -> anything (the result is unused)
Extractor = Callable[[Any, Backend, threading.Event], Any]


def wants_title(store: Any, settings: Any, profile: dict[str, Any], session: Any, backend: Backend) -> bool:
    """Whether the turn just answered in ``session`` should give it an automatic title."""
    if not auto_title_on(settings, profile, backend):
        return False
    fresh = store.get_session(session.id) or session
    if fresh.title_locked or fresh.title != DEFAULT_TITLE:
        return False
    return store.count_user_records(session.id) == 1


def run_after_turn(store: Any, session: Any, backend: Backend, cancel: threading.Event,
                   publish: Callable[[str, dict], None], *, title: bool, extract: bool,
                   extractor: Extractor) -> None:
    """The first turn's title (``title``), then memory extraction (``extract``); a failure of
    either is logged, and extraction's outcome is published as ``extraction_done``."""
    if title and not cancel.is_set():
        try:
            generate_title(store, session, backend, cancel, publish)
        except BaseException:
            log.exception("title generation failed")
    if extract and not cancel.is_set():
        publish("extraction_started", {})
        error = None
        try:
            extractor(session, backend, cancel)
        except BaseException as exc:   # recovered; the queue is still dispatched
            log.exception("memory extraction failed")
            error = f"{type(exc).__name__}: {exc}"
        publish("extraction_done", {"success": error is None, "error": error})


def extract_memories(store: Any, events: EventBus, session: Any, backend: Backend, cancel: threading.Event,
                     sharing: str) -> Any:
    """Extract memories from ``session``'s latest turn, reading its answers as the model may at
    data-sharing level ``sharing``; its events are published for ``session``."""
    sid = session.id

    def publish(type_: str, data: dict | None = None) -> None:
        events.publish(type_, data or {}, session_id=sid)

    return _context.run_extraction(store, publish, sid, backend, bool(session.private), cancel, sharing=sharing)


def generate_title(store: Any, session: Any, backend: Backend, cancel: threading.Event,
                   publish: Callable[[str, dict], None]) -> None:
    """Ask the model for a title from ``session``'s first message and store it, unless the user
    named the session meanwhile (then nothing is published)."""
    first = next((r.content for r in store.list_records(session.id) if r.role == "user"), "")
    title = make_title(backend, first, cancel)
    if title and store.set_auto_title(session.id, title):
        publish("session_renamed", {"session_id": session.id, "title": title})
