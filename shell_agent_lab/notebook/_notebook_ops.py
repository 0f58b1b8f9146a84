"""The ``notebook_cells`` op: the side panel sends its notebook's cells (after edits and runs), and
``read_notebook`` reads them while the panel is connected; otherwise it reads the kernel's history."""
from __future__ import annotations

from typing import Any

from ..tools.read_notebook import NotebookCell, set_reader
from ._panel_ops import OPS
from ._panel_types import PanelHost

__all__ = ["notebook_cells"]


def notebook_cells(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    cells = [NotebookCell(int(c["index"]), str(c["source"]), str(c.get("output") or ""), str(c.get("error") or ""),
                          str(c.get("kind") or "code"), c.get("id")) for c in args["cells"]]
    runtime = d.runtime

    def read() -> list[NotebookCell] | None:
        return cells if runtime.panel_connected else None

    set_reader(read)
    return {"cells": len(cells)}


OPS["notebook_cells"] = notebook_cells
