"""What a turn's tool calls changed in the stores: the Findings and the two memories are taken
stock of before and after each batch of calls; a store that changed is announced (the panel's
widgets refresh), and new Findings and facts are put on the reply.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

from ._turn_state import TurnStore
from ._types import Reply

__all__ = ["StoreWatch"]

log = logging.getLogger(__name__)

_EVENTS = {"findings": "findings_updated", "global": "global_memory_updated",
           "session": "session_memory_updated"}


class StoreWatch:
    """Watches ``store`` for one session; ``publish(event, data)`` announces a change."""

    def __init__(self, store: TurnStore, sid: str, publish: Callable[[str, dict[str, Any]], None],
                 reply: Reply) -> None:
        self.store = store
        self.sid = sid
        self.publish = publish
        self.reply = reply
        self._before = self._stock()

    def _stock(self) -> dict[str, tuple[Any, ...]]:
        store, sid = self.store, self.sid
        out: dict[str, tuple[Any, ...]] = {}
        listings: tuple[tuple[str, Callable[[], Any]], ...] = (
            ("findings", lambda: store.findings.list(sid)),
            ("global", lambda: store.global_memory.list()),
            ("session", lambda: store.session_memory.list(sid)))
        for key, listing in listings:
            try:
                out[key] = tuple((e.id, getattr(e, "touch_count", 0), getattr(e, "fact", None) or
                                  getattr(e, "content", None), getattr(e, "state", None)) for e in listing())
            except Exception:
                out[key] = ()
        return out

    def publish_changes(self) -> None:
        """After a batch of tool calls: tell listeners which stores changed, and note what is new."""
        before, after = self._before, self._stock()
        self._before = after
        for key, event in _EVENTS.items():
            if before.get(key) != after.get(key):
                self.publish(event, {})
        old_findings = {f[0] for f in before.get("findings", ())}
        new_ids = [f[0] for f in after.get("findings", ()) if f[0] not in old_findings]
        if new_ids:
            try:
                by_id = {f.id: f for f in self.store.findings.list(self.sid)}
                self.reply.new_findings.extend(by_id[i] for i in new_ids if i in by_id)
            except Exception:
                log.exception("could not list new findings")
        for scope in ("global", "session"):
            old = {e[0] for e in before.get(scope, ())}
            for entry in after.get(scope, ()):
                if entry[0] not in old:
                    self.reply.memory_changes.append({"scope": scope, "id": entry[0], "fact": entry[2],
                                                      "action": "added"})
