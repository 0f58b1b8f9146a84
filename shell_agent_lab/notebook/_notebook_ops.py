"""The side panel's notebook ops: ``notebook_cells`` (the panel sends its notebook's cells after
edits and runs, and ``read_notebook`` reads them while the panel is connected; otherwise it reads
the kernel's history), ``cells_changed`` (what the panel did for the assistant, kept for Undo
cells) and ``undo_cells``."""
from __future__ import annotations

from typing import Any

from ..tools.read_notebook import NotebookCell, set_reader
from ._panel_ops import OPS
from ._panel_types import PanelHost
from .cell_changes import record_change, undo

__all__ = ["notebook_cells", "cells_changed", "undo_cells"]


def notebook_cells(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    cells = [NotebookCell(int(c["index"]), str(c["source"]), str(c.get("output") or ""), str(c.get("error") or ""),
                          str(c.get("kind") or "code"), c.get("id")) for c in args["cells"]]
    runtime = d.runtime

    def read() -> list[NotebookCell] | None:
        return cells if runtime.panel_connected else None

    set_reader(read)
    return {"cells": len(cells)}


def cells_changed(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    return {"kept": record_change(d.runtime, args)}


def undo_cells(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    done, text = undo(d.runtime, args.get("turn") or None)
    return {"undone": done, "text": text}


OPS["notebook_cells"] = notebook_cells
OPS["cells_changed"] = cells_changed
OPS["undo_cells"] = undo_cells
