"""Who answers an approval in the notebook: the Approval widget, ``input()``, or nobody.

The agent's approval gate calls :class:`NotebookApprover` on the turn's worker thread. While a
``%agent`` cell waits, the prompt is handed to the cell's own thread (through its
:class:`~.render.TurnView`) and the approver returns ``PENDING``; the answer then arrives
through ``resolve(request_id, …)`` — from the widget's button (a comm message, which
JupyterLab 4.6 delivers on a subshell thread while the cell still runs), from the side panel,
or from the ``input()`` prompt. With no human at all it returns ``None`` and the gate declines
with a notice saying how to allow the call.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from .identity import Frontend

__all__ = ["NotebookApprover", "parse_answer"]

log = logging.getLogger(__name__)

try:  # the gate's sentinel; a stand-in keeps this module importable alone
    from ..tools.approval import PENDING
except ImportError:  # pragma: no cover
    PENDING = object()

#: (request id, approved, feedback, action) -> whether a waiting request was answered
Resolve = Callable[[str, bool, str, "str | None"], Any]


def parse_answer(text: str) -> tuple[bool, str]:
    """``y``/``yes`` approves; ``n``/``no``/empty rejects; anything else rejects with it as feedback.

    ``n: use the 2023 table`` rejects with the feedback after the colon.
    """
    s = (text or "").strip()
    low = s.lower()
    if low in ("y", "yes", "approve", "ok"):
        return True, ""
    if low in ("", "n", "no", "reject", "decline"):
        return False, ""
    for prefix in ("n:", "no:", "reject:"):
        if low.startswith(prefix):
            return False, s[len(prefix):].strip()
    return False, s


class NotebookApprover:
    """The agent's approver for a kernel. Thread-safe; one per runtime."""

    def __init__(self, resolve: Resolve, *, make_widget: Callable[..., Any] | None = None,
                 input_fn: Callable[[str], str] = input) -> None:
        self._resolve = resolve
        self._make_widget = make_widget
        self._input = input_fn
        self._lock = threading.Lock()
        self._view: Any = None
        self._frontend: Frontend | None = None
        self._widgets: dict[str, Any] = {}

    @property
    def make_widget(self) -> Callable[..., Any] | None:
        """Makes the approval widget shown in a cell (None: the prompt asks through ``input``)."""
        return self._make_widget

    @make_widget.setter
    def make_widget(self, factory: Callable[..., Any] | None) -> None:
        self._make_widget = factory

    def attach(self, view: Any, frontend: Frontend) -> None:
        """A cell starts waiting on a turn: route prompts to it."""
        with self._lock:
            self._view, self._frontend = view, frontend

    def detach(self) -> None:
        with self._lock:
            self._view, self._frontend = None, None

    def __call__(self, request: Any) -> Any:
        with self._lock:
            view, frontend = self._view, self._frontend
        if view is None or frontend is None:
            # a turn from the side panel: it shows the request and answers through resolve()
            return PENDING
        if not frontend.human:
            return None
        if frontend.kind == "widgets" and self._make_widget is not None:
            view.call_soon(lambda: self._show_widget(request))
        else:
            view.call_soon(lambda: self._ask_input(request))
        return PENDING

    # -- on the cell's thread ----------------------------------------------------------------
    def _show_widget(self, request: Any) -> None:
        from IPython.display import display

        make = self._make_widget
        if make is None:                # the factory was taken away since the request came
            self._ask_input(request)
            return
        widget = make(
            request, on_answer=lambda ok, fb, action=None: self._resolve(request.id, ok, fb, action))
        with self._lock:
            self._widgets[request.id] = widget
        display(widget)

    def on_resolved(self, event: Any) -> None:
        """Event-bus listener: a request answered elsewhere (the side panel) greys out its widget."""
        data = getattr(event, "data", {}) or {}
        with self._lock:
            widget = self._widgets.pop(str(data.get("request_id")), None)
        if widget is not None and getattr(widget, "answered", None) is None:
            widget.mark(bool(data.get("approved")), str(data.get("feedback") or ""))

    def _ask_input(self, request: Any) -> None:
        print(f"Approval needed: {request.tool_name} ({request.category})")
        if getattr(request, "destination", ""):
            print(f"Its result rows go to the model at {request.destination}, off this machine.")
        print(request.preview)
        code = getattr(request, "dialog", None) == "code"
        prompt = ("Run it? [y/N, i = insert as a new cell instead, or feedback for the model] " if code
                  else "Approve? [y/N, or feedback for the model] ")
        action = None
        try:
            answer = self._input(prompt)
        except (EOFError, KeyboardInterrupt, Exception) as exc:  # StdinNotImplementedError included
            log.info("approval prompt failed: %s", exc)
            ok, feedback = False, ""
        else:
            if code and (answer or "").strip().lower() in ("i", "insert"):
                ok, feedback, action = True, "", "insert_cell"
            else:
                ok, feedback = parse_answer(answer)
        self._resolve(request.id, ok, feedback, action)
