"""What the assistant last changed in the notebook, and Undo cells.

Each change the assistant makes to the notebook has an id (an answer's cells: their ``turn``;
an accepted ``/fix``: one of its own). The kernel starts the change (:func:`begin_change`) when it
sends the command; the side panel applies it and reports what it did (``cells_changed``: the ids
of the cells it inserted, the cells it replaced or removed as they were before). The runtime keeps
that one record per notebook. :func:`undo` sends it back as the ``undo_cells`` command, which the
panel applies in reverse, and forgets it: one level of undo, for the last change only.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["begin_change", "record_change", "undo"]

_lock = threading.Lock()


def _empty(turn: str) -> dict[str, Any]:
    return {"turn": turn, "inserted": [], "replaced": [], "removed": []}


def begin_change(runtime: Any, turn: str, send: Callable[[], bool]) -> bool:
    """Make the change ``turn`` with ``send`` (which sends its command; False: no frontend took
    it). Once sent it is the last change (nothing to undo until the panel reports what it did);
    otherwise the last change stays what it was."""
    with _lock:
        previous, runtime.cell_change = runtime.cell_change, _empty(turn)
    sent = bool(send())
    if not sent:
        with _lock:
            if runtime.cell_change is not None and runtime.cell_change["turn"] == turn:
                runtime.cell_change = previous
    return sent


def record_change(runtime: Any, change: dict[str, Any]) -> bool:
    """What the panel did for ``change["turn"]``; added to the last change when it is the same
    turn (``/cells`` adding a missing cell), else it becomes the last change. False when it
    changed nothing."""
    if not (change.get("inserted") or change.get("replaced") or change.get("removed")):
        return False
    with _lock:
        last = runtime.cell_change
        if last is None or last.get("turn") != change["turn"]:
            last = runtime.cell_change = _empty(str(change["turn"]))
        replaced = {r["id"] for r in last["replaced"]}
        last["inserted"].extend(i for i in change.get("inserted", []) if i not in last["inserted"])
        # a cell replaced twice in one change goes back to how it was before the first time
        last["replaced"].extend(r for r in change.get("replaced", []) if r["id"] not in replaced)
        last["removed"].extend(change.get("removed", []))
    return True


def _size(change: dict[str, Any]) -> int:
    return len(change["inserted"]) + len(change["replaced"]) + len(change["removed"])


def undo(runtime: Any, turn: str | None = None) -> tuple[bool, str]:
    """Revert the last change (with ``turn``: only when the last change is that one) through the
    panel. Returns (done, a one-line message for the user)."""
    with _lock:
        change = runtime.cell_change
        if change is None or not _size(change):
            return False, ("Nothing to undo: the assistant has not changed this notebook's cells since the "
                           "kernel started.")
        if turn and change["turn"] != turn:
            return False, "Only the assistant's last change can be undone; this one was followed by another."
        runtime.cell_change = None
    if not runtime.notebook_command("undo_cells", change):
        with _lock:
            if runtime.cell_change is None:
                runtime.cell_change = change
        return False, "Open the shell-agent-lab side panel to change cells, then undo again."
    parts = []
    for n, what in ((len(change["inserted"]), "removed"), (len(change["replaced"]), "restored"),
                    (len(change["removed"]), "put back")):
        if n:
            parts.append(f"{what} {n} cell{'s' if n != 1 else ''}")
    return True, "Undone: " + ", ".join(parts) + "."
