"""``/fix``'s answer beside the cell: *Accept* replaces the failing cell, *Insert below* adds the
proposed cell under it (neither runs it)."""
from __future__ import annotations

from typing import Any, Callable

import ipywidgets as W

__all__ = ["FixWidget"]


class FixWidget(W.HBox):
    def __init__(self, fix: dict[str, Any], insert: Callable[..., bool]) -> None:
        self.fix = dict(fix)
        self._insert = insert
        self.accept = W.Button(description="Accept", button_style="success", icon="check",
                               tooltip="Replace the failing cell with the proposed one")
        self.below = W.Button(description="Insert below", icon="plus",
                              tooltip="Keep the failing cell; put the proposed one below it")
        self.note = W.HTML("")
        self.accept.on_click(lambda _b: self.answer(replace=True))
        self.below.on_click(lambda _b: self.answer(replace=False))
        super().__init__([self.accept, self.below, self.note])

    def answer(self, *, replace: bool) -> bool:
        cell_id = self.fix.get("cell_id")
        if replace and not cell_id:
            self.note.value = "<small>the failing cell is not known to the notebook; use Insert below</small>"
            return False
        ok = self._insert(self.fix["fixed"], run=False, after_cell_id=cell_id, replace=replace)
        if ok:
            self.accept.disabled = self.below.disabled = True
            self.note.value = "<small>replaced the failing cell</small>" if replace else "<small>inserted below</small>"
        else:
            self.note.value = "<small>open the shell-agent-lab side panel to change cells</small>"
        return bool(ok)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = "Proposed cell:\n" + self.fix["fixed"]
        return bundle
