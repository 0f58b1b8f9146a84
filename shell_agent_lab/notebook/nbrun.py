"""Run a notebook top to bottom in a fresh kernel (nbclient), as JupyterLab would with the
assistant's cells: when a cell writes cells (``%agent /cells``), they are inserted below it and
run next. Used to record the example notebooks and by the reproducibility check.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from .cells import CELL_TAG, cells_in_outputs

__all__ = ["execute", "new_agent_cell", "temporary_environ"]


def new_agent_cell(source: str, *, run: bool = True) -> Any:
    """A code cell holding one of the assistant's cells (tagged ``shell-agent-lab``)."""
    import nbformat

    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = [CELL_TAG]
    if not run:
        cell.metadata["shell_agent_lab"] = {"run": False}
    return cell


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


def execute(nb: Any, *, cwd: str | Path, timeout: int = 600, expand: bool = True,
            skip: Callable[[Any], bool] | None = None, allow_errors: bool = False,
            kernel_name: str = "python3") -> Any:
    """Execute ``nb`` in place, cell by cell; returns it.

    ``expand``: cells written by ``%agent /cells`` are inserted below their cell and run in
    turn (an "insert only" cell is inserted, not run). ``skip(cell)``: code cells not to run
    (their outputs are cleared). Errors in cells tagged ``raises-exception`` are expected;
    others raise unless ``allow_errors``.
    """
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, allow_errors=allow_errors,
                            resources={"metadata": {"path": str(cwd)}})
    with client.setup_kernel():
        index = 0
        while index < len(nb.cells):
            cell = nb.cells[index]
            if cell.cell_type == "code":
                if (skip is not None and skip(cell)) or cell.metadata.get("shell_agent_lab", {}).get("run") is False:
                    cell.outputs, cell.execution_count = [], None
                else:
                    client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                    if expand:
                        for offset, item in enumerate(cells_in_outputs(cell.outputs), start=1):
                            nb.cells.insert(index + offset, new_agent_cell(item.source, run=item.run))
            index += 1
        client.set_widgets_metadata()
    return nb
