"""The cells behind an answer: the SQL and code a turn ran, as notebook cells that reproduce it.

Every successful query becomes a ``%%agent_sql`` cell, ``run_python`` code a Python cell, a
``statistics`` call, a chart or a loaded file a Python cell that runs the same tool again
(:func:`rerun`); an ``operation`` compiled to SQL its statement as a query cell, one computed
with SciPy a :func:`rerun` cell; a pandas program (``run_pandas``) the program itself. Tools whose
result a model makes (``analyze_data``, summaries) have no cell.
Each cell carries a comment line naming the question it answers (``# shell-agent-lab: …``;
in a query cell ``-- shell-agent-lab: …`` under the ``%%agent_sql`` line) and, in the notebook,
the metadata ``shell_agent_lab`` = ``{"source_cell": <asking cell id>, "step": n, "turn": <id>}``
(:func:`cell_metadata`): the cells of one answer are its :class:`CellSet`. With
``ShellAgent.cells = "insert"`` JupyterLab puts them under the asking cell and runs them; when the
asking cell runs again its earlier cells are replaced in place (``sync_cells``), not added again.
Without a frontend they are kept in ``r.cells`` and ``%agent /cells`` writes them as one output
(:data:`CELLS_MIME`, the set's ids in the output's metadata) that a notebook driver
(:mod:`.nbrun`) turns into cells the same way.
"""
from __future__ import annotations

import json
import logging
import threading
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable


from .cell_changes import begin_change

if TYPE_CHECKING:  # pragma: no cover
    from ..agent._types import Reply

__all__ = ["AgentCell", "CellSet", "CELLS_MIME", "CELL_TAG", "MARK", "META_KEY", "cell_metadata", "cells_for",
           "cells_bundle", "cells_in_outputs", "cell_set_in_outputs", "new_turn_id", "rerun", "sync_args",
           "table_frame"]

log = logging.getLogger(__name__)

#: the output ``%agent /cells`` writes in a headless kernel: {"cells": [{"source", "run"}]}
CELLS_MIME = "application/vnd.shell-agent-lab.cells+json"
#: the tag inserted cells carry (nbformat metadata ``tags``)
CELL_TAG = "shell-agent-lab"
#: the comment line that opens every inserted cell
MARK = "# shell-agent-lab:"
#: the cell metadata key of an inserted cell: {"source_cell", "step", "turn"} (and "run": False)
META_KEY = "shell_agent_lab"

_SQL_TOOLS = frozenset({"query_sql", "query_preview", "quick_summary"})
#: tools a cell may run again through :func:`rerun` (no model involved): analysis, charts, and
#: loading a file (later cells query the table it makes)
_RERUN_TOOLS = frozenset({"statistics", "create_chart", "load_data", "operation"})


@dataclass(frozen=True)
class AgentCell:
    """One cell to insert. ``run`` is False for code the user chose to insert instead of running."""

    kind: str            # sql | python | chart
    source: str
    tool: str = ""
    run: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "tool": self.tool, "run": self.run}


@dataclass(frozen=True)
class CellSet:
    """One answer's cells and where they belong: ``source_cell`` is the id of the cell that asked
    (None: asked from the side panel, or a driver that sends no cell ids), ``turn`` names these
    cells (a fresh id per answer), ``mark`` is the comment line they open with."""

    source_cell: str | None
    turn: str
    mark: str
    cells: tuple[AgentCell, ...] = field(default_factory=tuple)

    def metadata(self, step: int) -> dict[str, Any]:
        """``metadata.shell_agent_lab`` of cell ``step`` (1-based)."""
        return cell_metadata(self.source_cell, step, self.turn, run=self.cells[step - 1].run)

    def origin(self) -> dict[str, Any]:
        """What a ``/cells`` output carries in its metadata (:data:`CELLS_MIME`)."""
        return {"source_cell": self.source_cell, "turn": self.turn, "mark": self.mark}


def cell_metadata(source_cell: str | None, step: int, turn: str, *, run: bool = True) -> dict[str, Any]:
    """The ``shell_agent_lab`` metadata of an inserted cell."""
    meta: dict[str, Any] = {"source_cell": source_cell, "step": int(step), "turn": str(turn)}
    if not run:
        meta["run"] = False
    return meta


def new_turn_id() -> str:
    """A fresh id for one answer's cells (or one change of the notebook)."""
    return uuid.uuid4().hex[:12]


def sync_args(cell_set: CellSet, mode: str) -> dict[str, Any]:
    """The ``sync_cells`` command for ``cell_set``: ``replace`` (the asking cell ran again) or
    ``missing`` (``%agent /cells``: add only what is not in the notebook)."""
    return {"source_cell": cell_set.source_cell, "turn": cell_set.turn, "mode": mode, "mark": cell_set.mark,
            "cells": [{"code": c.source, "step": i, "run": c.run, "kind": c.kind}
                      for i, c in enumerate(cell_set.cells, start=1)]}


def question_line(message: str, limit: int = 100) -> str:
    """The comment line naming the question (one line, at most ``limit`` characters)."""
    text = " ".join(str(message or "").split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return f"{MARK} {text}" if text else MARK


def _under_magic(body: str, head: str) -> str:
    """A cell magic's cell with the question's comment under its first line (a program cell)."""
    first, _, rest = body.partition("\n")
    return f"{first}\n{head}\n{rest}" if rest else f"{first}\n{head}"


def _rerun_code(tool: str, arguments: dict[str, Any]) -> str:
    args = {k: v for k, v in arguments.items() if v is not None}
    from ..analysis.operations.compile import python_literal    # one writer of call literals

    return f"from shell_agent_lab.notebook.cells import rerun\nrerun({tool!r}, {python_literal(args)})"


def cells_for(reply: "Reply", message: str) -> list[AgentCell]:
    """The cells that reproduce ``reply``'s answer to ``message``, in the order the tools ran (pure)."""
    head = question_line(message)
    out: list[AgentCell] = []
    seen: set[str] = set()

    def add(kind: str, body: str, tool: str, run: bool = True) -> None:
        # a cell magic must open its cell, so a query's comment is SQL's own, on the line below;
        # code the user chose to insert instead of running stays exactly as it was shown
        source = (f"%%agent_sql\n--{head[1:]}\n{body.strip()}" if kind == "sql"
                  else _under_magic(body.strip(), head) if run and body.startswith("%%")
                  else f"{head}\n{body.strip()}" if run else body)
        if body.strip() and source not in seen:
            seen.add(source)
            out.append(AgentCell(kind, source, tool, run))

    for activity in reply.tool_activity:
        if activity.status != "success":
            continue
        ran = activity.ran
        args = activity.arguments if isinstance(activity.arguments, dict) else {}
        if activity.name in _SQL_TOOLS:
            for sql in ran.get("sql") or []:
                add("sql", sql, activity.name)
        elif activity.name == "create_chart":
            sqls = ran.get("sql") or [args.get("sql", "")]
            add("chart", _rerun_code("create_chart", {**args, "sql": sqls[0]}), activity.name)
        elif activity.name == "operation" and ran.get("sql"):   # compiled to SQL: the statement itself
            for sql in ran["sql"]:
                add("sql", sql, activity.name)
        elif activity.name in _RERUN_TOOLS:
            add("python", _rerun_code(activity.name, args), activity.name)
        elif activity.name in ("run_python", "run_pandas"):
            for code in ran.get("code") or []:
                add("python", code, activity.name)
    for code in reply.cells:      # chosen "insert only" at approval: not run
        add("python", code, "run_python", run=False)
    return out


def cells_bundle(cells: Iterable[AgentCell]) -> dict[str, Any]:
    """The display bundle ``%agent /cells`` writes without a frontend."""
    items = list(cells)
    blocks = "\n\n".join(f"```python\n{c.source}\n```" + ("" if c.run else "\n(insert only: not run)") for c in items)
    text = f"{len(items)} cell{'s' if len(items) != 1 else ''} for the last answer:\n\n{blocks}"
    return {CELLS_MIME: {"cells": [c.to_json() for c in items]}, "text/markdown": text, "text/plain": text}


def cells_in_outputs(outputs: Iterable[Any]) -> list[AgentCell]:
    """The cells a ``%agent /cells`` output carries (for notebook drivers)."""
    return [cell for found in _cell_sets(outputs) for cell in found.cells]


def cell_set_in_outputs(outputs: Iterable[Any]) -> CellSet | None:
    """The answer's cells a ``%agent /cells`` output carries, with the asking cell and the turn
    from the output's metadata (older outputs have none: ``source_cell`` None, an empty turn)."""
    found = _cell_sets(outputs)
    return found[-1] if found else None


def _cell_sets(outputs: Iterable[Any]) -> list[CellSet]:
    found: list[CellSet] = []
    for output in outputs or []:
        get = output.get if isinstance(output, dict) else lambda key, default=None: getattr(output, key, default)
        data = get("data") or {}
        payload = data.get(CELLS_MIME)
        if payload is None:
            continue
        if isinstance(payload, str):
            payload = json.loads(payload)
        origin = (get("metadata") or {}).get(CELLS_MIME) or {}
        cells = tuple(AgentCell(str(item.get("kind", "python")), str(item["source"]), str(item.get("tool", "")),
                                bool(item.get("run", True))) for item in (payload or {}).get("cells") or [])
        source = origin.get("source_cell")
        found.append(CellSet(str(source) if source else None, str(origin.get("turn") or ""),
                             str(origin.get("mark") or ""), cells))
    return found


def rerun(tool: str, arguments: dict[str, Any]) -> Any:
    """Run an analysis tool again in this kernel and show what it returns (what an inserted
    ``statistics``, chart or ``load_data`` cell calls): a chart is drawn, anything else printed."""
    from IPython.display import display

    from ..tools.registry import ToolContext, ToolError, ToolResult
    from .render import chart_bundle
    from .runtime import get_runtime

    if tool not in _RERUN_TOOLS:
        raise ValueError(f"rerun runs {', '.join(sorted(_RERUN_TOOLS))}, not {tool!r}")
    rt = get_runtime()
    agent = rt.agent
    engine = agent.engine()
    if engine is None:
        raise RuntimeError("no analysis engine in this session" + (f" ({agent.engine_error})" if agent.engine_error else ""))
    engine.refresh_dataframes()
    descriptor = agent.registry.get(tool)
    ctx = ToolContext(session_id=agent.session.id, store=agent.store, engine=engine,
                      namespace=getattr(rt.shell, "user_ns", None), settings=agent.settings)
    try:
        result = descriptor.handler(ctx, dict(arguments))
    except ToolError as exc:
        raise RuntimeError(f"{tool}: {exc}") from None
    if not isinstance(result, ToolResult):
        result = ToolResult(str(result))
    charts = (result.data or {}).get("charts") or []
    for spec in charts:
        display(chart_bundle(spec), raw=True)
    if not charts:
        print(result.content)
    return None


def table_frame(name: str) -> Any:
    """A session table of this notebook as a pandas DataFrame (what a program's cell over a
    loaded table reads)."""
    from .runtime import get_runtime

    agent = get_runtime().agent
    engine = agent.engine()
    if engine is None:
        raise RuntimeError("no analysis engine in this session" + (f" ({agent.engine_error})" if agent.engine_error else ""))
    return engine.frame(name)


def asking_cell_id(shell: Any) -> str | None:
    """The id of the notebook cell whose execution is running (JupyterLab sends it as
    ``metadata.cellId`` of the execute request); None without a frontend that sends it."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent("shell")
    except TypeError:  # pragma: no cover - older ipykernel
        parent = kernel.get_parent()
    except Exception:
        return None
    cell_id = ((parent or {}).get("metadata") or {}).get("cellId")
    return str(cell_id) if cell_id else None


def deliver(runtime: Any, reply: "Reply", message: str, *, live: bool, after_cell_id: str | None = None) -> str:
    """After a turn: keep the cells of ``reply`` (``r.cells``, ``%agent /cells``) and, with a live
    frontend, put them under the asking cell and run them, replacing the cells an earlier run of
    that cell put there (``sync_cells``). Returns "inserted", "kept" (no frontend took them) or
    "off" (``ShellAgent.cells`` is "off", or the turn failed: nothing done, the caller keeps
    today's behaviour)."""
    settings = getattr(getattr(runtime, "agent", None), "settings", None)
    if getattr(settings, "cells", "insert") == "off" or reply.error:
        return "off"
    cells = cells_for(reply, message)
    cell_set = CellSet(after_cell_id, new_turn_id(), question_line(message), tuple(cells))
    runtime.last_cells = cells
    runtime.last_cell_set = cell_set
    reply.cells = [c.source for c in cells]
    inserted = False
    if live and (cells or after_cell_id):     # no cells now: the asking cell's earlier ones go
        sent = begin_change(runtime, cell_set.turn, lambda: runtime.notebook_command("sync_cells",
                                                                                   sync_args(cell_set, "replace")))
        inserted = sent and bool(cells)
    if not inserted:
        for cell in cells:   # what the user chose to insert instead of running: the next input
            if not cell.run:
                runtime.shell.set_next_input(cell.source, replace=False)
    return "inserted" if inserted else "kept"


def send_turn(runtime: Any, agent: Any, message: str) -> Any:
    """The side panel's send: the turn starts in the background as before; when it finishes,
    its cells go below the panel notebook's active cell."""
    lock = threading.Lock()
    early: dict[str | None, Any] = {}
    mine: list[str] = []
    unsubscribe: list[Callable[[], Any]] = []

    def finished(event: Any) -> None:
        turn_id = (getattr(event, "data", None) or {}).get("turn_id")
        reply = getattr(agent, "last_reply", None)
        with lock:
            if not mine:
                early[turn_id] = reply
                return
            if turn_id != mine[0]:
                return
        _settle(reply)

    def _settle(reply: Any) -> None:
        while unsubscribe:
            unsubscribe.pop()()
        if reply is not None:
            try:
                deliver(runtime, reply, message, live=True)
            except Exception:
                log.exception("could not insert the answer's cells")

    unsubscribe.append(agent.events.subscribe(finished, ["turn_finished"]))
    result = agent.send(message, wait=False)
    turn_id = getattr(result, "turn_id", "") or ""
    with lock:
        done = turn_id in early
        if turn_id and not done:
            mine.append(turn_id)
    if done:
        _settle(early[turn_id])
    elif not turn_id:
        _settle(None)
    return result
