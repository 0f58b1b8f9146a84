"""``/fix``'s answer beside the cell: *Accept* replaces the failing cell, *Insert below* adds the
proposed cell under it (neither runs it); then *Undo* puts the failing cell back as it was."""
from __future__ import annotations

import html
from typing import Any, Callable

import ipywidgets as W

__all__ = ["FixWidget"]


class FixWidget(W.HBox):
    """``insert(fix, replace)`` makes the change and returns its id (None: no frontend took it);
    ``undo(id)`` reverts it: (done, what to tell the user)."""

    def __init__(self, fix: dict[str, Any], insert: Callable[[dict[str, Any], bool], str | None],
                 undo: Callable[[str], tuple[bool, str]] | None = None) -> None:
        self.fix = dict(fix)
        self._insert = insert
        self._undo = undo
        self._turn: str | None = None
        self.accept = W.Button(description="Accept", button_style="success", icon="check",
                               tooltip="Replace the failing cell with the proposed one")
        self.below = W.Button(description="Insert below", icon="plus",
                              tooltip="Keep the failing cell; put the proposed one below it")
        self.undo_button = W.Button(description="Undo", icon="undo", tooltip="Put the failing cell back as it was",
                             layout=W.Layout(display="none"))
        self.note = W.HTML("")
        self.accept.on_click(lambda _b: self.answer(replace=True))
        self.below.on_click(lambda _b: self.answer(replace=False))
        self.undo_button.on_click(lambda _b: self.revert())
        super().__init__([self.accept, self.below, self.undo_button, self.note])

    def answer(self, *, replace: bool) -> bool:
        cell_id = self.fix.get("cell_id")
        if replace and not cell_id:
            self.note.value = "<small>the failing cell is not known to the notebook; use Insert below</small>"
            return False
        self._turn = self._insert(self.fix, replace)
        if self._turn:
            self.accept.disabled = self.below.disabled = True
            self.note.value = "<small>replaced the failing cell</small>" if replace else "<small>inserted below</small>"
            if self._undo is not None:
                self.undo_button.layout.display = ""
                self.undo_button.disabled = False
        else:
            self.note.value = "<small>open the shell-agent-lab side panel to change cells</small>"
        return bool(self._turn)

    def revert(self) -> str:
        if not self._turn or self._undo is None:
            return ""
        done, text = self._undo(self._turn)
        if done:
            self.undo_button.disabled = True
            self.accept.disabled = self.below.disabled = False
            self._turn = None
        self.note.value = f"<small>{html.escape(text)}</small>"
        return text

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = "Proposed cell:\n" + self.fix["fixed"]
        return bundle
