"""The agent's event bus: one publisher side, many listeners (widgets, the comm, tests).

Listeners are called synchronously on the publishing thread, so they must be quick and
thread-safe; a listener that raises is logged and never breaks the publisher.

Event types and their payloads (``data``) are declared once, in the side-panel protocol schema
(``shell_agent_lab/notebook/protocol.json``); ``shell_agent_lab/protocol_types.py`` is generated
from it (``EVENT_NAMES``, ``EVENT_FIELDS`` and one ``TypedDict`` per payload).
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

__all__ = ["Event", "EventBus"]

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class Event:
    type: str
    data: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    seq: int = 0
    at: float = 0.0


Listener = Callable[[Event], None]


class EventBus:
    """Thread-safe publish/subscribe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[tuple[Listener, frozenset[str] | None]] = []
        self._seq = itertools.count(1)

    def subscribe(self, listener: Listener, types: Iterable[str] | None = None) -> Callable[[], None]:
        """Register ``listener`` (for all events, or only ``types``); returns an unsubscribe function."""
        entry = (listener, frozenset(types) if types is not None else None)
        with self._lock:
            self._listeners.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                try:
                    self._listeners.remove(entry)
                except ValueError:
                    pass

        return unsubscribe

    def publish(self, type: str, data: dict[str, Any] | None = None, *, session_id: str | None = None) -> Event:
        event = Event(type=type, data=dict(data or {}), session_id=session_id, seq=next(self._seq), at=time.time())
        with self._lock:
            listeners = list(self._listeners)
        for listener, types in listeners:
            if types is not None and type not in types:
                continue
            try:
                listener(event)
            except Exception:  # a broken listener must never break a turn
                log.exception("event listener failed for %s", type)
        return event
