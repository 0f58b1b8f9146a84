"""*Undo cells* beside an answer whose cells went into the notebook: reverts what that answer
changed (its inserted cells go, the cells it replaced get their earlier source back)."""
from __future__ import annotations

import html
from typing import Any, Callable

import ipywidgets as W

__all__ = ["UndoCellsButton"]


class UndoCellsButton(W.HBox):
    """``undo(turn)`` asks the kernel to revert the change ``turn``: (done, what to tell the user)."""

    def __init__(self, turn: str, undo: Callable[[str], tuple[bool, str]]) -> None:
        self.turn = turn
        self._undo = undo
        self.button = W.Button(description="Undo cells", icon="undo",
                               tooltip="Remove the cells this answer inserted and restore the cells it replaced")
        self.note = W.HTML("")
        self.button.on_click(lambda _b: self.click())
        super().__init__([self.button, self.note])
        self.add_class("sal-undo-cells")

    def click(self) -> str:
        done, text = self._undo(self.turn)
        if done:
            self.button.disabled = True
        self.note.value = f"<small>{html.escape(text)}</small>"
        return text

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = "Undo cells"
        return bundle
