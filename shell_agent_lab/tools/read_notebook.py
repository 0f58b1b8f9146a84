"""``read_notebook``: the notebook's cells as context, on request.

The model reads cell sources, text outputs and errors (truncated; the agent guard-wraps every
tool result, so the text is data, never instructions). A frontend registers a reader
(:func:`set_reader`: the side panel reads the open notebook); without one the kernel's history
is read: ``In``, ``Out`` and the last failure the notebook recorded (:func:`record_failure`).
Offered in the compact tool set only when the message asks about the notebook, a cell, the
chart or output above, or an error (see ``agent/_tool_sets.py``).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from ..sharing import label, scrub_code, scrub_error
from .registry import ToolContext, ToolDescriptor, ToolError, ToolResult

__all__ = ["Failure", "NotebookCell", "read_notebook_tool", "record_failure", "last_failure", "set_reader",
           "notebook_text", "history_cells"]

_SOURCE_CHARS = 1500
_OUTPUT_CHARS = 800
_TOTAL_CHARS = 12_000


@dataclass(frozen=True)
class NotebookCell:
    index: int                  # 1-based position (or execution count for history)
    source: str
    output: str = ""
    error: str = ""
    kind: str = "code"
    cell_id: str | None = None


@dataclass(frozen=True)
class Failure:
    source: str
    error: str
    cell_id: str | None = None
    execution_count: int | None = None


_lock = threading.Lock()
_reader: list[Callable[[], "list[NotebookCell] | None"]] = []
_failure: list[Failure] = []


def set_reader(reader: Callable[[], "list[NotebookCell] | None"] | None) -> None:
    """Register (None: remove) the frontend's reader of the open notebook (it returns None when
    it has nothing current; the kernel's history is read then)."""
    with _lock:
        _reader[:] = [reader] if reader is not None else []


def record_failure(failure: Failure | None) -> None:
    """The notebook's hook tells which cell failed last (None forgets it)."""
    with _lock:
        _failure[:] = [failure] if failure is not None else []


def last_failure() -> Failure | None:
    with _lock:
        return _failure[0] if _failure else None


def _cut(text: str, limit: int) -> str:
    text = str(text or "")
    return text if len(text) <= limit else text[: limit - 20] + f"\n… ({len(text) - limit + 20} more characters)"


def history_cells(namespace: dict[str, Any] | None) -> list[NotebookCell]:
    """The kernel's history as cells: ``In[n]`` with ``Out[n]`` (and the last failure's error)."""
    ns = namespace or {}
    inputs = ns.get("In") or ns.get("_ih") or []
    outputs = ns.get("Out") or ns.get("_oh") or {}
    failure = last_failure()
    cells = []
    for n, source in enumerate(inputs):
        if not n or not str(source).strip():
            continue
        out = outputs.get(n) if isinstance(outputs, dict) else None
        error = failure.error if failure is not None and failure.execution_count == n else ""
        cells.append(NotebookCell(n, str(source), "" if out is None else repr(out), error))
    return cells


def notebook_text(cells: list[NotebookCell], *, last: int | None = None, cell: int | None = None,
                  outputs: bool = True, names: frozenset[str] = frozenset()) -> str:
    """The cells as the model reads them, newest last, within a character budget (pure).
    ``outputs=False``: what a data-sharing level below "rows" lets the model read — sources with
    their literal values blanked (except the table and column ``names``), each output named but
    not shown, errors with their quoted values blanked."""
    chosen = [c for c in cells if c.index == cell] if cell is not None else list(cells)
    if cell is not None and not chosen:
        raise ToolError(f"there is no cell {cell}; the notebook has cells {cells[0].index}–{cells[-1].index}"
                        if cells else "the notebook has no cells yet")
    if last:
        chosen = chosen[-last:]
    blocks: list[str] = []
    total = 0
    for c in reversed(chosen):
        source = c.source if outputs else scrub_code(c.source, names)
        block = f"[cell {c.index}{' ' + c.kind if c.kind != 'code' else ''}]\n{_cut(source, _SOURCE_CHARS)}"
        if c.output:
            block += (f"\n[output]\n{_cut(c.output, _OUTPUT_CHARS)}" if outputs
                      else "\n[output shown to the user, not sent to the model]")
        if c.error:
            block += f"\n[error]\n{_cut(c.error if outputs else scrub_error(c.error), _OUTPUT_CHARS)}"
        if total + len(block) > _TOTAL_CHARS:
            blocks.append(f"(… {len(chosen) - len(blocks)} earlier cells left out)")
            break
        blocks.append(block)
        total += len(block)
    return "\n\n".join(reversed(blocks)) or "(the notebook has no cells yet)"


def _handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    with _lock:
        reader = _reader[0] if _reader else None
    cells = reader() if reader is not None else None      # None: the frontend has nothing current
    if cells is None:
        reader, cells = None, history_cells(ctx.namespace)
    try:
        last = int(args["last"]) if args.get("last") not in (None, "") else None
        cell = int(args["cell"]) if args.get("cell") not in (None, "") else None
    except (TypeError, ValueError):
        raise ToolError("'cell' and 'last' are whole numbers") from None
    failure = last_failure()
    text = notebook_text(cells, last=last if cell is None else None, cell=cell)
    names = _names(ctx.engine)
    sources = notebook_text(cells, last=last if cell is None else None, cell=cell, outputs=False, names=names)
    if failure is not None and reader is not None and failure.error and failure.error not in text:
        text += f"\n\n[the last error]\n{_cut(failure.source, _SOURCE_CHARS)}\n{_cut(failure.error, _OUTPUT_CHARS)}"
        sources += (f"\n\n[the last error]\n{_cut(scrub_code(failure.source, names), _SOURCE_CHARS)}\n"
                    f"{_cut(scrub_error(failure.error), _OUTPUT_CHARS)}")
    # outputs hold the data: below "rows" the model reads the sources only
    return ToolResult(text, data={"sharing": label("records", views={"aggregates": sources, "schema": sources})})


def _names(engine: Any) -> frozenset[str]:
    """The session's table and column names (kept when code is scrubbed)."""
    try:
        tables = list(engine.tables()) if engine is not None else []
    except Exception:
        return frozenset()
    return frozenset([t.name for t in tables] + [c for t in tables for c, _ in t.columns])


def read_notebook_tool() -> ToolDescriptor:
    return ToolDescriptor(
        name="read_notebook",
        description="Read the notebook's cells: source, text output and error of each (truncated). "
                    "Use it for questions about the notebook itself: a cell, the chart or table above, "
                    "an error, continuing from the last cell.",
        parameters={"type": "object", "properties": {
            "cell": {"type": "integer", "description": "Only this cell (its number as shown)."},
            "last": {"type": "integer", "description": "Only the last N cells."}}, "required": []},
        handler=_handler,
        available=lambda ctx: ctx.namespace is not None or bool(_reader),
        source="builtin",
    )
