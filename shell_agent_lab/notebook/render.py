"""Draw one turn into the cell: streamed Markdown, one line per tool, tables, charts, SQL.

The agent publishes events on its worker thread; :class:`TurnView` queues them and the
cell's own (main) thread draws them, so every output lands in the cell that asked, with the
right parent message. With a live frontend (a browser) display handles update in place;
otherwise (nbclient, nbval, consoles, plain IPython) each piece is drawn once, in its final
state, so the output is readable and deterministic.
"""
from __future__ import annotations

import copy
import itertools
import json
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from IPython.display import display as _ipy_display

__all__ = ["next_cell", "TurnView", "tool_line", "wait_line", "reply_markdown", "render_reply", "chart_bundle",
           "as_notebook_reply", "sql_of"]

_TURN_EVENTS = ("stream_token", "assistant_text", "tool_start", "tool_progress", "tool_end", "retry_backoff",
                "approval_resolved", "model_wait", "data_sharing")
_MAX_TABLES = 10


@dataclass
class _Tool:
    name: str
    state: str = "running"          # running | progress | done | error
    detail: str = ""
    handle: Any = None


def _one_line(text: Any, limit: int = 100) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _detail(detail: str) -> str:
    """A Markdown table's header line reads better as its column names."""
    d = detail.strip()
    if d.startswith("|") and d.endswith("|"):
        cols = [c.strip() for c in d.strip("|").split("|") if c.strip()]
        return "columns " + ", ".join(cols)
    return detail


def tool_line(name: str, state: str, detail: str = "") -> str:
    """One compact line: ``⏳ query_sql — running`` … ``✓ query_sql — done: columns region, total``."""
    detail = _detail(detail)
    icon = {"running": "⏳", "progress": "⏳", "done": "✓", "error": "✗"}.get(state, "•")
    word = {"running": "running", "progress": "", "done": "done", "error": "error"}.get(state, state)
    tail = ": ".join(p for p in (word, _one_line(detail)) if p)
    return f"{icon} {name} — {tail}" if tail else f"{icon} {name}"


def chart_bundle(spec: dict) -> dict:
    """A Vega-Lite display bundle with a text fallback for frontends that cannot draw it."""
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    mark = spec.get("mark")
    if isinstance(mark, dict):
        mark = mark.get("type")
    rows = len((spec.get("data") or {}).get("values") or [])
    plain = f"<Vega-Lite {mark or 'chart'}{': ' + str(title) if title else ''} ({rows} rows)>"
    return {"application/vnd.vegalite.v5+json": spec, "text/plain": plain}


def sql_of(reply: Any) -> list[str]:
    sql = getattr(reply, "sql", None) or []
    return [sql] if isinstance(sql, str) else [s for s in sql if isinstance(s, str) and s.strip()]


def _finding_text(f: Any) -> str:
    if isinstance(f, str):
        return f
    content = getattr(f, "content", None) or (f.get("content") if isinstance(f, dict) else None)
    tags = getattr(f, "tags", None) or (f.get("tags") if isinstance(f, dict) else None) or []
    badge = f"[{tags[0]}] " if tags else ""
    return badge + _one_line(content or f, 160)


def reply_markdown(reply: Any) -> str:
    """The reply as Markdown: its text, then a short note of what came with it."""
    parts = [str(getattr(reply, "text", "") or "").strip()]
    error = getattr(reply, "error", None)
    if error:
        parts.append(f"**Error:** {_one_line(error, 300)}")
    findings = list(getattr(reply, "new_findings", None) or [])
    if findings:
        parts.append("**New findings**\n\n" + "\n".join(f"- {_finding_text(f)}" for f in findings))
    extras = []
    for label, items in (("table", getattr(reply, "tables", None)), ("chart", getattr(reply, "charts", None)),
                         ("SQL query", sql_of(reply))):
        n = len(items or [])
        if n:
            extras.append(f"{n} {label}{'s' if n != 1 else ''}")
    if extras:
        parts.append("_" + ", ".join(extras) + "_")
    return "\n\n".join(p for p in parts if p)


def _markdown_bundle(text: str) -> dict:
    return {"text/markdown": text, "text/plain": text}


class _Out:
    """Thin seam over IPython's display so tests can pass their own."""

    def __init__(self, display: Callable[..., Any] = _ipy_display) -> None:
        self._display = display

    def show(self, bundle: dict, *, handle: bool = False) -> Any:
        return self._display(bundle, raw=True, display_id=True if handle else None)

    def update(self, handle: Any, bundle: dict) -> None:
        handle.update(bundle, raw=True)

    def obj(self, obj: Any) -> None:
        self._display(obj)


def render_reply(reply: Any, *, out: _Out | None = None, sql_widget: Callable[[list[str]], Any] | None = None,
                 text: bool = True) -> None:
    """Draw the finished parts of a reply: text (optional), tables, charts, SQL."""
    out = out or _Out()
    if text:
        out.show(_markdown_bundle(reply_markdown(reply) or "_(no reply)_"))
    for df in list(getattr(reply, "tables", None) or [])[:_MAX_TABLES]:
        out.obj(df)
    for spec in getattr(reply, "charts", None) or []:
        if isinstance(spec, dict):
            out.show(chart_bundle(spec))
    sqls = sql_of(reply)
    if sqls:
        widget = sql_widget(sqls) if sql_widget else None
        if widget is not None:
            out.obj(widget)
        else:
            body = "\n\n".join(f"```sql\n{s.strip()}\n```" for s in sqls)
            out.show(_markdown_bundle(f"SQL this turn ran (insert it as a cell with `%agent /sql`):\n\n{body}"))


class TurnView:
    """Queue events from any thread; draw them from the thread that owns the cell."""

    def __init__(self, *, live: bool, out: _Out | None = None, clock: Callable[[], float] = time.monotonic,
                 min_interval: float = 0.1) -> None:
        self.live = live
        self._out = out or _Out()
        self._clock = clock
        self._min_interval = min_interval
        self._queue: queue.Queue = queue.Queue()
        self._text: list[str] = []
        self._text_handle: Any = None
        self._text_dirty = False
        self._last_draw = 0.0
        self._tools: dict[str, _Tool] = {}
        self._notices: list[str] = []
        self._wait_handle: Any = None

    events = _TURN_EVENTS

    # -- any thread -----------------------------------------------------------------------
    def post(self, event: Any) -> None:
        """EventBus listener: only enqueues."""
        self._queue.put(("event", event))

    def call_soon(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` on the drawing thread (approval prompts need the cell's thread)."""
        self._queue.put(("call", fn))

    def wake(self) -> None:
        self._queue.put(("wake", None))

    # -- drawing thread -------------------------------------------------------------------
    def pump(self, finished: threading.Event, *, poll: float = 0.05) -> None:
        """Draw until ``finished`` is set and the queue is empty."""
        while True:
            try:
                kind, item = self._queue.get(timeout=poll)
            except queue.Empty:
                if finished.is_set():
                    break
                self._flush_text()
                continue
            self._handle(kind, item)
            while True:  # drain what is already there before drawing
                try:
                    kind, item = self._queue.get_nowait()
                except queue.Empty:
                    break
                self._handle(kind, item)
            self._flush_text()
        self._flush_text(force=True)

    async def pump_async(self, finished: threading.Event, *, poll: float = 0.05) -> None:
        """Like :meth:`pump`, but yields to the event loop between draws, so the kernel can
        handle widget clicks (comm messages) for this very cell while it waits."""
        import asyncio

        while True:
            drained = False
            while True:
                try:
                    kind, item = self._queue.get_nowait()
                except queue.Empty:
                    break
                drained = True
                self._handle(kind, item)
            self._flush_text()
            if not drained and finished.is_set():
                break
            await asyncio.sleep(poll)
        self._flush_text(force=True)

    def _handle(self, kind: str, item: Any) -> None:
        if kind == "call":
            item()
        elif kind == "event":
            self._on_event(item)

    def _on_event(self, event: Any) -> None:
        data = getattr(event, "data", {}) or {}
        t = getattr(event, "type", "")
        if t == "stream_token":
            self._text.append(str(data.get("text", "")))
            self._text_dirty = True
        elif t == "assistant_text":
            text = str(data.get("text", "")).strip()
            if text:
                sep = "\n\n" if self._text and not "".join(self._text).endswith("\n") else ""
                self._text.append(sep + text + "\n\n")
                self._text_dirty = True
        elif t == "tool_start":
            self._tool_state(data, "running", _args_hint(data.get("arguments")))
        elif t == "tool_progress":
            cur, tot = data.get("current"), data.get("total")
            detail = str(data.get("detail") or "")
            if cur is not None and tot:
                detail = f"{detail} {cur}/{tot}".strip() if detail else f"{cur}/{tot}"
            self._tool_state(data, "progress", detail)
        elif t == "tool_end":
            ok = str(data.get("status", "success")) in ("success", "ok", "done")
            self._tool_state(data, "done" if ok else "error", str(data.get("summary") or ""))
        elif t == "approval_resolved" and data.get("notice"):
            line = "⚖ " + str(data["notice"]).strip()
            if self.live:
                self._out.show({"text/plain": line})
            self._notices.append(line)
        elif t == "model_wait" and self.live:
            # one line, updated in place, while the model works; a drawn-once cell (no frontend)
            # gets none: its output stays the same from run to run
            bundle = {"text/plain": wait_line(data.get("elapsed"), data.get("tokens"))}
            if self._wait_handle is None:
                self._wait_handle = self._out.show(bundle, handle=True)
            else:
                self._out.update(self._wait_handle, bundle)
        elif t == "data_sharing" and data.get("text"):
            line = "🔒 " + str(data["text"]).strip()
            if self.live:
                self._out.show({"text/plain": line})
            self._notices.append(line)
        elif t == "retry_backoff":
            line = (f"↻ model busy, retrying in {float(data.get('delay') or 0):.0f} s "
                    f"(attempt {data.get('attempt')}/{data.get('max_attempts')})")
            if self.live:
                self._out.show({"text/plain": line})
            self._notices.append(line)

    def _tool_state(self, data: dict, state: str, detail: str) -> None:
        key = str(data.get("tool_call_id") or data.get("name") or "tool")
        tool = self._tools.get(key)
        if tool is None:
            tool = self._tools[key] = _Tool(str(data.get("name") or "tool"))
        tool.state, tool.detail = state, detail
        if not self.live:
            return
        bundle = {"text/plain": tool_line(tool.name, tool.state, tool.detail)}
        if tool.handle is None:
            tool.handle = self._out.show(bundle, handle=True)
        else:
            self._out.update(tool.handle, bundle)

    def _flush_text(self, force: bool = False) -> None:
        if not (self.live and self._text_dirty):
            return
        now = self._clock()
        if not force and now - self._last_draw < self._min_interval:
            return
        self._last_draw = now
        self._text_dirty = False
        bundle = _markdown_bundle("".join(self._text))
        if self._text_handle is None:
            self._text_handle = self._out.show(bundle, handle=True)
        else:
            self._out.update(self._text_handle, bundle)

    def activity_lines(self) -> list[str]:
        return self._notices + [tool_line(t.name, t.state, t.detail) for t in self._tools.values()]

    def finish(self, reply: Any, *, sql_widget: Callable[[list[str]], Any] | None = None) -> None:
        """Draw the final state: the cleaned reply replaces the streamed text."""
        if self._wait_handle is not None:
            self._out.update(self._wait_handle, {"text/plain": ""})
            self._wait_handle = None
        if not self.live:
            lines = self.activity_lines()
            if lines:
                self._out.show({"text/plain": "\n".join(lines)})
        final = _markdown_bundle(reply_markdown(reply) or "_(no reply)_")
        if self.live and self._text_handle is not None:
            self._out.update(self._text_handle, final)
        else:
            self._out.show(final)
        render_reply(reply, out=self._out, sql_widget=sql_widget, text=False)


def wait_line(elapsed: Any, tokens: Any = None) -> str:
    """``⏳ still working (35 s, 48 tokens so far)``: the line a long model request shows in its
    cell (the tokens when the reply is streamed)."""
    parts = []
    try:
        parts.append(f"{int(elapsed)} s")
    except (TypeError, ValueError):
        pass
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        parts.append(f"{tokens} token{'' if tokens == 1 else 's'} so far")
    return f"⏳ still working ({', '.join(parts)})" if parts else "⏳ still working"


def _args_hint(arguments: Any) -> str:
    if not isinstance(arguments, dict) or not arguments:
        return ""
    for key in ("sql", "prompt", "question", "table_name", "file_path", "expression", "content"):
        if key in arguments:
            return _one_line(arguments[key], 80)
    return _one_line(json.dumps(arguments, ensure_ascii=False, default=str), 80)


# -- the value ``r = %agent …`` returns -------------------------------------------------------

def _reply_repr(self: Any) -> str:
    text = str(getattr(self, "text", "") or "")
    short = _one_line(text, 60)
    counts = ", ".join(
        f"{name}={len(getattr(self, name, None) or [])}"
        for name in ("tables", "charts", "sql", "new_findings", "memory_changes"))
    err = getattr(self, "error", None)
    return f"Reply({short!r}, {len(text)} chars, {counts}" + (f", error={_one_line(err, 60)!r})" if err else ")")


def _reply_markdown(self: Any) -> str:
    return reply_markdown(self)


_cell = itertools.count(1)
_current_cell = [0]


def next_cell(*_args: Any) -> None:
    """IPython ``pre_run_cell`` hook: counts cells, stored in history or not (nbval does not)."""
    _current_cell[0] = next(_cell)


def _reply_display(self: Any) -> None:
    # the cell that ran the turn already drew it live: do not draw it again as its result
    if getattr(self, "_shown_in_cell", None) == _current_cell[0]:
        return
    from .widgets import sql_button  # lazy: widgets are optional at display time

    out = _Out()
    render_reply(self, out=out, sql_widget=sql_button)


_SUBCLASSES: dict[type, type] = {}


def as_notebook_reply(reply: Any, *, shown: bool = False) -> Any:
    """The same reply, as an instance that displays well (``r = %agent …``; then ``r``).

    ``shown``: it was just drawn in the running cell, so that cell's result does not draw it twice.
    """
    new = _as_notebook_reply(reply)
    if shown:
        try:
            new._shown_in_cell = _current_cell[0]
        except AttributeError:  # pragma: no cover - slotted
            pass
    return new


def _as_notebook_reply(reply: Any) -> Any:
    cls = type(reply)
    if getattr(cls, "_shell_agent_lab_notebook", False):
        return reply
    sub = _SUBCLASSES.get(cls)
    if sub is None:
        sub = type(cls.__name__, (cls,), {
            "__repr__": _reply_repr, "_repr_markdown_": _reply_markdown,
            "_ipython_display_": _reply_display, "_shell_agent_lab_notebook": True,
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        })
        _SUBCLASSES[cls] = sub
    try:
        new = copy.copy(reply)
        new.__class__ = sub
        return new
    except TypeError:  # slotted or builtin: keep the original
        return reply
