"""The Approval widget, and the "Insert SQL as cell" button."""
from __future__ import annotations

import threading
from typing import Any, Callable

import ipywidgets as W

from ..tools.approval import destination_text
from ._widget_base import badge, esc

__all__ = ["ApprovalWidget", "SqlButton"]

_TITLES = {"sql_preview": "SQL to run", "analysis_plan": "Analysis plan", "code": "Code to run"}


class ApprovalWidget(W.VBox):
    """Tool name, arguments (SQL preview / analysis plan), Approve / Reject with feedback.

    ``on_answer(approved, feedback, action)`` is called once, on whatever thread the click arrives
    (a subshell thread in JupyterLab 4.6 while the cell still runs).
    """

    def __init__(self, request: Any, on_answer: Callable[..., Any]) -> None:
        self.request = request
        self._on_answer = on_answer
        self._lock = threading.Lock()
        self.answered: bool | None = None
        title = _TITLES.get(request.dialog or "", "Arguments")
        head = (f"{badge('approval', '#6a1b9a')}<b>{esc(request.tool_name)}</b> "
                f"<small>({esc(request.category)})</small> wants to run. <b>{title}:</b>")
        leaves = destination_text(request) if hasattr(request, "destination") else ""
        if leaves:
            head += f"<br><small class='sal-approval-destination'>{esc(leaves)}</small>"
        self.header = W.HTML(head)
        self.preview = W.HTML(f"<pre style='max-height:16em;overflow:auto;margin:0'>{esc(request.preview)}</pre>")
        self.feedback = W.Text(placeholder="optional feedback for the model (sent with Reject)",
                               layout=W.Layout(width="60%"))
        self.approve = W.Button(description="Approve", button_style="success", icon="check")
        self.reject = W.Button(description="Reject", button_style="danger", icon="times")
        self.result = W.HTML("")
        self.approve.on_click(lambda _b: self.answer(True))
        self.reject.on_click(lambda _b: self.answer(False))
        buttons = [self.approve, self.reject, self.feedback]
        self.insert = None
        if request.dialog == "code":
            # code may instead become a new cell the user reads and runs themselves
            self.insert = W.Button(description="Insert only", icon="plus",
                                   tooltip="Do not run it now; put it in a new cell below")
            self.insert.on_click(lambda _b: self.answer(True, action="insert_cell"))
            buttons.insert(1, self.insert)
        self.buttons = W.HBox(buttons)
        super().__init__([self.header, self.preview, self.buttons, self.result])

    def answer(self, approved: bool, action: str | None = None) -> None:
        with self._lock:
            if self.answered is not None:
                return
            self.answered = approved
        feedback = "" if approved else self.feedback.value.strip()
        self._disable()
        if action is None:
            self._on_answer(approved, feedback)
        else:
            self._on_answer(approved, feedback, action)
        self.mark(approved, feedback)
        if action == "insert_cell":
            self.result.value = "<b>↓ inserted as a new cell (not run)</b>"

    def _disable(self) -> None:
        self.approve.disabled = self.reject.disabled = self.feedback.disabled = True
        if self.insert is not None:
            self.insert.disabled = True

    def mark(self, approved: bool, feedback: str = "") -> None:
        """Show the outcome (also used when the side panel answered first)."""
        self.answered = approved
        self._disable()
        text = "✓ approved" if approved else "✗ rejected" + (f": {esc(feedback)}" if feedback else "")
        self.result.value = f"<b>{text}</b>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = f"Approval needed: {self.request.tool_name}\n{self.request.preview}"
        return bundle


class SqlButton(W.HBox):
    """"Insert SQL as cell": hands the turn's SQL to the frontend as the next code cell."""

    def __init__(self, sqls: list[str], insert: Callable[[str], bool]) -> None:
        self.sqls = list(sqls)
        self._insert = insert
        self.button = W.Button(description="Insert SQL as cell", icon="plus",
                               tooltip="Insert the SQL this turn ran as the next code cell",
                               layout=W.Layout(width="180px"))
        self.note = W.HTML("")
        self.button.on_click(lambda _b: self.click())
        super().__init__([self.button, self.note])

    def code(self) -> str:
        return cell_code(self.sqls)

    def click(self) -> None:
        if self._insert(self.code()):
            self.note.value = "<small>inserted below</small>"
        else:
            self.note.value = ("<small>open the shell-agent-lab side panel to insert cells, "
                               "or run <code>%agent /sql</code></small>")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = "SQL this turn ran (insert with %agent /sql):\n" + "\n\n".join(self.sqls)
        return bundle


def cell_code(sqls: list[str]) -> str:
    """A code cell that runs the SQL through DuckDB against the session's data."""
    blocks = [s.strip().rstrip(";") for s in sqls if s.strip()]
    if len(blocks) == 1:
        return f'%%agent_sql\n{blocks[0]}\n'
    return "\n".join(f"%agent_sql {' '.join(b.split())}" for b in blocks) + "\n"
