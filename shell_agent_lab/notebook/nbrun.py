"""Run a notebook top to bottom in a fresh kernel (nbclient), as JupyterLab would with the
assistant's cells: when a cell writes cells (``%agent /cells``), they go below it and run next —
or, when the notebook already holds that answer's cells (a notebook run before), they replace
those in place, as JupyterLab does when the asking cell runs again. Used to record the example
notebooks and by the reproducibility check.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from .cells import CELL_TAG, META_KEY, CellSet, cell_set_in_outputs

__all__ = ["execute", "new_agent_cell", "place_cells", "temporary_environ"]


def new_agent_cell(source: str, *, run: bool = True, meta: Mapping[str, Any] | None = None) -> Any:
    """A code cell holding one of the assistant's cells (tagged ``shell-agent-lab``; ``meta``:
    its ``shell_agent_lab`` metadata, :func:`.cells.cell_metadata`)."""
    import nbformat

    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = [CELL_TAG]
    info = dict(meta or {})
    if not run:
        info["run"] = False
    if info:
        cell.metadata[META_KEY] = info
    return cell


def _meta(cell: Any) -> dict[str, Any]:
    value = cell.get("metadata", {}).get(META_KEY)
    return value if isinstance(value, dict) else {}


def _legacy(cell: Any, mark: str) -> bool:
    """A cell written before cells had metadata, opening with this answer's comment line."""
    if cell.get("cell_type") != "code" or _meta(cell).get("source_cell") or not mark.startswith("#"):
        return False
    head = str(cell.get("source", "")).split("\n", 2)[:2]
    return mark in head or "--" + mark[1:] in head


def place_cells(cells: list[Any], below: int, cell_set: CellSet) -> list[Any]:
    """Put ``cell_set`` into the notebook's ``cells`` (in place) and return the new cells.

    The cells already there for ``cell_set.source_cell`` (by their metadata; cells without
    metadata that open with the answer's comment line count too) are replaced in place, step by
    step, keeping their ids; extra ones are removed; missing steps go after the previous step
    (the first below ``cells[below]``, the cell that wrote them).
    """
    source = cell_set.source_cell
    members = [c for c in cells if (source and _meta(c).get("source_cell") == source) or _legacy(c, cell_set.mark)]
    by_step: dict[int, Any] = {}
    loose = []
    for cell in members:
        step = _meta(cell).get("step")
        if isinstance(step, int) and step not in by_step:
            by_step[step] = cell
        else:
            loose.append(cell)
    for cell in loose:                     # cells without a step (older notebooks) fill the gaps in order
        free = next((s for s in range(1, len(cell_set.cells) + 1) if s not in by_step), None)
        if free is not None and not _meta(cell).get("step"):
            by_step[free] = cell
    keep = [c for c in members if any(c is by_step.get(s) for s in range(1, len(cell_set.cells) + 1))]
    placed: list[Any] = []
    for step, item in enumerate(cell_set.cells, start=1):
        new = new_agent_cell(item.source, run=item.run, meta=cell_set.metadata(step))
        old = by_step.get(step)
        if old is not None:
            new.id = old.get("id", new.get("id"))
            cells[_index(cells, old)] = new
        else:       # after the previous step; the first before the earlier cells kept, else below the writer
            at = (_index(cells, placed[-1]) + 1 if placed else _index(cells, keep[0]) if keep else below + 1)
            cells.insert(at, new)
        placed.append(new)
    for cell in members:
        if not any(cell is k for k in keep):
            cells.pop(_index(cells, cell))
    return placed


def _index(cells: list[Any], cell: Any) -> int:
    return next(i for i, c in enumerate(cells) if c is cell)


def _recorded(cell_set: CellSet, writer: Any) -> CellSet:
    """Without the asking cell's id (a kernel that got none), the cells belong to their writer."""
    if cell_set.source_cell or not writer.get("id"):
        return cell_set
    return CellSet(str(writer["id"]), cell_set.turn or f"cells-{writer['id']}", cell_set.mark, cell_set.cells)


@contextmanager
def temporary_environ(env: Mapping[str, str | None]) -> Iterator[None]:
    """Set (``None``: remove) environment variables for the kernels started meanwhile."""
    saved = {k: os.environ.get(k) for k in env}
    try:
        for k, v in env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _send_cell_ids(client: Any, current: list[str | None]) -> None:
    """Send each cell's id with its execute request (``metadata.cellId``), as JupyterLab does, so
    the kernel knows which cell asked; nbclient itself sends none."""
    kc = client.kc

    def execute(code: str, silent: bool = False, store_history: bool = True, user_expressions: Any = None,
                allow_stdin: bool | None = None, stop_on_error: bool = True) -> str:
        content = {"code": code, "silent": silent, "store_history": store_history,
                   "user_expressions": user_expressions or {},
                   "allow_stdin": kc.allow_stdin if allow_stdin is None else allow_stdin,
                   "stop_on_error": stop_on_error}
        metadata = {"cellId": current[0]} if current[0] else {}
        msg = kc.session.msg("execute_request", content, metadata=metadata)
        kc.shell_channel.send(msg)
        return str(msg["header"]["msg_id"])

    kc.execute = execute


def execute(nb: Any, *, cwd: str | Path, timeout: int = 600, expand: bool = True,
            skip: Callable[[Any], bool] | None = None, allow_errors: bool = False,
            kernel_name: str = "python3") -> Any:
    """Execute ``nb`` in place, cell by cell; returns it.

    ``expand``: cells written by ``%agent /cells`` go below their cell (or replace that answer's
    cells already in the notebook, :func:`place_cells`) and run in turn (an "insert only" cell is
    inserted, not run). ``skip(cell)``: code cells not to run (their outputs are cleared). Errors
    in cells tagged ``raises-exception`` are expected; others raise unless ``allow_errors``.
    """
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, allow_errors=allow_errors,
                            resources={"metadata": {"path": str(cwd)}})
    current: list[str | None] = [None]
    with client.setup_kernel():
        _send_cell_ids(client, current)
        index = 0
        while index < len(nb.cells):
            cell = nb.cells[index]
            if cell.cell_type == "code":
                if (skip is not None and skip(cell)) or _meta(cell).get("run") is False:
                    cell.outputs, cell.execution_count = [], None
                else:
                    current[0] = cell.get("id")
                    client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                    found = cell_set_in_outputs(cell.outputs) if expand else None
                    if found is not None and found.cells:
                        for placed in place_cells(nb.cells, index, _recorded(found, cell)):
                            at = _index(nb.cells, placed)
                            if at < index and _meta(placed).get("run") is not False:   # above: run it now
                                current[0] = placed.get("id")
                                client.execute_cell(placed, at, execution_count=client.code_cells_executed + 1)
                        index = _index(nb.cells, cell)
            index += 1
        client.set_widgets_metadata()
    return nb

