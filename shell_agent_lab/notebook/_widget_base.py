"""What every live widget shares: a data source, event-driven refresh, a text fallback."""
from __future__ import annotations

import html
import logging
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable

import ipywidgets as W

log = logging.getLogger(__name__)

SEVERITIES = ("critical", "high", "medium", "low", "info")
_SEVERITY_COLOURS = {"critical": "#b71c1c", "high": "#e65100", "medium": "#f9a825", "low": "#2e7d32",
                     "info": "#1565c0", "": "#616161"}


@dataclass
class Source:
    """Where widgets read from: the store, the current session, the event bus, the tables."""

    store: Any
    session_id: Callable[[], str]
    events: Any = None                                     # shell_agent_lab.events.EventBus
    tables: Callable[[], list] = lambda: []
    private: Callable[[], bool] = lambda: False


def esc(text: Any) -> str:
    return html.escape(str(text if text is not None else ""))


def day(when: Any) -> str:
    return when.strftime("%Y-%m-%d") if isinstance(when, datetime) else str(when or "")[:10]


def severity_of(tags: Iterable[str]) -> str:
    for tag in tags or ():
        if str(tag).lower() in SEVERITIES:
            return str(tag).lower()
    return ""


def badge(text: str, colour: str) -> str:
    return (f'<span style="background:{colour};color:#fff;border-radius:3px;padding:0 4px;'
            f'font-size:85%;margin-right:4px">{esc(text)}</span>')


def severity_badge(sev: str) -> str:
    return badge(sev or "—", _SEVERITY_COLOURS.get(sev, "#616161"))


def md_cell(text: Any) -> str:
    """Text safe for one Markdown table cell."""
    return " ".join(str(text or "").split()).replace("|", "\\|")


class LiveWidget(W.VBox):
    """A VBox that rebuilds itself when one of ``refresh_on`` events is published.

    Updates may come from any thread (the turn's worker, the side panel's subshell);
    a lock keeps rebuilds whole. ``text()`` is the readable form shown where no widget
    frontend exists, and as the widget's ``text/plain``.
    """

    refresh_on: tuple[str, ...] = ()

    def __init__(self, source: Source, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source = source
        self._refresh_lock = threading.RLock()
        self.status = W.HTML("")
        self._unsubscribe: Callable[[], None] | None = None
        if source.events is not None and self.refresh_on:
            self._unsubscribe = source.events.subscribe(self._on_event, self.refresh_on)

    def _on_event(self, _event: Any) -> None:
        if getattr(self, "comm", None) is None:  # closed
            return
        self.refresh()

    def refresh(self) -> None:
        with self._refresh_lock:
            try:
                self._rebuild()
            except Exception as exc:  # a broken store read shows in the widget, never raises into a turn
                log.exception("widget refresh failed")
                self.status.value = f'<span style="color:#b71c1c">Could not refresh: {esc(exc)}</span>'

    def _rebuild(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def text(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def publish(self, *types: str) -> None:
        """Tell everyone else (other widgets, the side panel) that the stores changed;
        without a bus, refresh this widget directly."""
        events = self.source.events
        if events is None:
            self.refresh()
            return
        sid = self.source.session_id()
        for t in types:
            events.publish(t, {}, session_id=sid)
        if not set(types) & set(self.refresh_on):
            self.refresh()

    def say(self, message: str, *, error: bool = False) -> None:
        colour = "#b71c1c" if error else "#2e7d32"
        self.status.value = f'<span style="color:{colour}">{esc(message)}</span>'

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = self.text()
        return bundle


class BulkDelete(W.HBox):
    """"Delete selected" with a second, explicit confirmation click."""

    def __init__(self, count: Callable[[], int], on_confirm: Callable[[], None], noun: str) -> None:
        self._count, self._on_confirm, self._noun = count, on_confirm, noun
        self.button = W.Button(description="Delete selected", icon="trash", button_style="")
        self.confirm = W.Button(description="Confirm delete", button_style="danger")
        self.cancel = W.Button(description="Cancel")
        self.button.on_click(lambda _b: self.ask())
        self.confirm.on_click(lambda _b: self._confirmed())
        self.cancel.on_click(lambda _b: self.reset())
        super().__init__([self.button])

    @property
    def armed(self) -> bool:
        return self.confirm in self.children

    def ask(self) -> None:
        n = self._count()
        if n == 0:
            return
        self.confirm.description = f"Delete {n} {self._noun}{'s' if n != 1 else ''}?"
        self.children = [self.confirm, self.cancel]

    def reset(self) -> None:
        self.children = [self.button]

    def _confirmed(self) -> None:
        self.reset()
        self._on_confirm()
