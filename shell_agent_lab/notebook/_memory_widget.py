"""The Memory widget: Global Memory above Session Memory, with Pin, demote, edit, bulk delete."""
from __future__ import annotations

from typing import Any

import ipywidgets as W

from ._widget_base import BulkDelete, LiveWidget, Source, badge, day, esc, md_cell

__all__ = ["MemoryWidget", "memory_markdown", "trust_of", "is_suggestion"]

_PIN_CATEGORIES = ("preference", "decision")
_STATE_COLOURS = {"fresh": "#2e7d32", "active": "#1565c0", "dormant": "#757575", "archived": "#9e9e9e"}


def trust_of(entry: Any, scope: str) -> str:
    """``user-stated`` or ``derived`` (the store's own rule)."""
    from ..store.render import trust_tag

    return trust_tag(entry.source, scope=scope).strip("[]")


def is_suggestion(entry: Any) -> bool:
    """A preference/decision kept in Session Memory until the user pins it."""
    return bool(getattr(entry, "suggested", False)) or (
        entry.session_id is not None and entry.category in _PIN_CATEGORIES)


def memory_markdown(global_entries: list, session_entries: list) -> str:
    def table(entries: list, scope: str, prefix: str) -> list[str]:
        if not entries:
            return ["_(empty)_"]
        rows = ["| id | trust | category | state | learned | fact |", "|---|---|---|---|---|---|"]
        for e in entries:
            cat = e.category + (" (suggestion)" if scope == "session" and is_suggestion(e) else "")
            rows.append(f"| {prefix}{e.id} | {trust_of(e, scope)} | {cat} | {e.state} | {day(e.created_at)} "
                        f"| {md_cell(e.fact)} |")
        return rows

    return "\n".join([f"**Global Memory** ({len(global_entries)})", "", *table(global_entries, "global", "g"), "",
                      f"**Session Memory** ({len(session_entries)})", "", *table(session_entries, "session", "s")])


class _Row(W.HBox):
    def __init__(self, entry: Any, scope: str, owner: "MemoryWidget") -> None:
        self.entry, self.scope, self._owner = entry, scope, owner
        self.select = W.Checkbox(value=False, indent=False, layout=W.Layout(width="24px"))
        trust = trust_of(entry, scope)
        tags = badge(trust, "#2e7d32" if trust == "user-stated" else "#6d4c41") + badge(entry.category, "#455a64")
        tags += badge(entry.state, _STATE_COLOURS.get(entry.state, "#757575"))
        if scope == "session" and is_suggestion(entry):
            tags += badge("suggestion", "#ad1457")
        self.label = W.HTML(f'{tags}{esc(entry.fact)} <span style="color:#757575;font-size:85%">'
                            f'(learned {esc(day(entry.created_at))})</span>', layout=W.Layout(flex="1 1 auto"))
        self.editor = W.Text(value=entry.fact, layout=W.Layout(flex="1 1 auto"))
        self.save = W.Button(description="Save", button_style="primary", layout=W.Layout(width="70px"))
        self.cancel = W.Button(description="Cancel", layout=W.Layout(width="70px"))
        self.edit = W.Button(icon="pencil", tooltip="Edit", layout=W.Layout(width="40px"))
        self.edit.on_click(lambda _b: self.start_edit())
        self.cancel.on_click(lambda _b: self.stop_edit())
        self.save.on_click(lambda _b: owner.edit(self.entry, self.scope, self.editor.value))
        actions: list[W.Widget] = [self.edit]
        if scope == "global":
            self.demote = W.Button(description="Demote", tooltip="Move to this session's memory",
                                   layout=W.Layout(width="80px"))
            self.demote.on_click(lambda _b: owner.demote(entry.id))
            actions.append(self.demote)
        elif not owner.source.private():
            default = entry.category if entry.category in _PIN_CATEGORIES else "decision"
            self.category = W.Dropdown(options=list(_PIN_CATEGORIES), value=default, layout=W.Layout(width="110px"))
            self.pin = W.Button(description="Pin", icon="thumb-tack", tooltip="Pin to Global Memory",
                                layout=W.Layout(width="70px"))
            self.pin.on_click(lambda _b: owner.pin(entry.id, self.category.value))
            actions += [self.category, self.pin]
        self._view = [self.select, self.label, *actions]
        super().__init__(self._view)

    def start_edit(self) -> None:
        self.editor.value = self.entry.fact
        self.children = [self.select, self.editor, self.save, self.cancel]

    def stop_edit(self) -> None:
        self.children = self._view


class MemoryWidget(LiveWidget):
    """Global Memory above Session Memory, updated in place when either changes."""

    refresh_on = ("global_memory_updated", "session_memory_updated", "session_changed")

    def __init__(self, source: Source, *, show_archived: bool = False) -> None:
        super().__init__(source)
        self.show_archived = W.Checkbox(value=show_archived, description="Show dormant and archived", indent=False)
        self.show_archived.observe(lambda _c: self.refresh(), "value")
        self.global_title, self.session_title = W.HTML(), W.HTML()
        self.global_box, self.session_box = W.VBox(), W.VBox()
        self.bulk = BulkDelete(lambda: len(self.selected()), self._delete_selected, "entry")
        self.children = [W.HBox([self.show_archived, self.bulk]), self.global_title, self.global_box,
                         self.session_title, self.session_box, self.status]
        self._global: list = []
        self._session: list = []
        self.refresh()

    def _visible(self, entries: list) -> list:
        if self.show_archived.value:
            return entries
        return [e for e in entries if e.state not in ("dormant", "archived")]

    def _rebuild(self) -> None:
        store = self.source.store
        self._global = store.global_memory.list()
        self._session = store.session_memory.list(self.source.session_id())
        g, s = self._visible(self._global), self._visible(self._session)
        self.global_title.value = f"<b>Global Memory</b> ({len(g)}) <small>— every notebook</small>"
        lock = " 🔒 private: nothing here reaches Global Memory" if self.source.private() else ""
        self.session_title.value = f"<b>Session Memory</b> ({len(s)}) <small>— this notebook{lock}</small>"
        self.global_box.children = [_Row(e, "global", self) for e in g]
        self.session_box.children = [_Row(e, "session", self) for e in s]

    def rows(self, scope: str) -> list[_Row]:
        return list((self.global_box if scope == "global" else self.session_box).children)

    def selected(self) -> list[_Row]:
        return [r for r in self.rows("global") + self.rows("session") if r.select.value]

    # -- actions -----------------------------------------------------------------------------
    def pin(self, entry_id: int, category: str) -> None:
        try:
            self.source.store.pin_session_memory(self.source.session_id(), entry_id, category)
        except Exception as exc:
            self.say(f"Pin failed: {exc}", error=True)
            return
        self.publish("global_memory_updated")
        self.say(f"Pinned to Global Memory as {category}.")

    def demote(self, entry_id: int) -> None:
        try:
            self.source.store.demote_global(entry_id, self.source.session_id())
        except Exception as exc:
            self.say(f"Demote failed: {exc}", error=True)
            return
        self.publish("global_memory_updated", "session_memory_updated")
        self.say("Moved to this session's memory.")

    def edit(self, entry: Any, scope: str, fact: str) -> None:
        fact = fact.strip()
        if not fact:
            self.say("A memory cannot be empty; delete it instead.", error=True)
            return
        store = self.source.store
        try:
            if scope == "global":
                store.global_memory.edit(entry.id, fact=fact)
            else:
                store.session_memory.edit(self.source.session_id(), entry.id, fact=fact)
        except Exception as exc:
            self.say(f"Edit failed: {exc}", error=True)
            return
        self.publish("global_memory_updated" if scope == "global" else "session_memory_updated")
        self.say("Saved.")

    def _delete_selected(self) -> None:
        rows = self.selected()
        store, sid = self.source.store, self.source.session_id()
        g = [r.entry.id for r in rows if r.scope == "global"]
        s = [r.entry.id for r in rows if r.scope == "session"]
        n = (store.global_memory.delete_many(g) if g else 0) + (store.session_memory.delete_many(sid, s) if s else 0)
        self.publish(*(["global_memory_updated"] if g else []), *(["session_memory_updated"] if s else []))
        self.say(f"Deleted {n} entr{'ies' if n != 1 else 'y'}.")

    def text(self) -> str:
        return memory_markdown(self._visible(self._global), self._visible(self._session))
