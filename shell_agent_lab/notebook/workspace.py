"""The notebook as the assistant's workspace: ``/cells``, ``/fix`` and ``/replay-check``, and
the hook that remembers which cell failed last (for ``/fix`` and ``read_notebook``).

``/cells`` writes the last answer's cells (in JupyterLab only those not in the notebook yet; one
output a notebook driver expands without a frontend). ``/fix`` sends the last failed cell and its error to the
assistant, which proposes a corrected cell; the difference is shown with *Accept* (replace the
cell) and *Insert below* (``/fix accept`` and ``/fix insert`` from the side panel). ``/replay-check [PATH]`` re-runs the notebook without a model and lists
the stated numbers no cell reproduces (:mod:`.replay_check`).
"""
from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from ..sharing import scrub_code, scrub_error
from ..agent.commands import CommandResult, register_command, unregister_command
from ..tools.read_notebook import Failure, last_failure, record_failure

__all__ = ["register", "unregister", "on_post_run_cell", "fix_message", "fixed_code", "cell_diff", "insert_fix",
           "RENDERERS"]

_TRACE_CHARS = 3000
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CODE_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL)


def _runtime() -> Any:
    from .runtime import get_runtime

    return get_runtime()


# -- the last failure -------------------------------------------------------------------------
def on_post_run_cell(result: Any) -> None:
    """IPython ``post_run_cell`` hook: remember the cell that raised (its source, error, id)."""
    error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
    info = getattr(result, "info", None)
    source = str(getattr(info, "raw_cell", "") or "")
    if error is None or source.lstrip().startswith(("%agent /fix", "%agent  /fix")):
        return
    import traceback

    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    record_failure(Failure(source, _ANSI.sub("", text)[-_TRACE_CHARS:], getattr(info, "cell_id", None),
                           getattr(result, "execution_count", None)))


# -- /fix ---------------------------------------------------------------------------------------
def fix_message(failure: Failure, sharing: str = "rows", names: frozenset[str] = frozenset()) -> str:
    """What ``/fix`` asks (the cell and the error go as data, inside a fence). Below
    ``sharing="rows"`` the error's quoted values (``KeyError: 'a customer'``) and the cell's
    literal values other than the table and column ``names`` are blanked."""
    error = failure.error.strip() if sharing == "rows" else scrub_error(failure.error.strip())
    source = failure.source.strip() if sharing == "rows" else scrub_code(failure.source.strip(), names)
    return ("This notebook cell fails. Reply with the corrected cell as one ```python code block, then one "
            "sentence on what was wrong. Do not call tools unless you need a column name.\n\n"
            f"Cell:\n```python\n{source}\n```\n\nError:\n```\n{error}\n```")


def _names(agent: Any) -> frozenset[str]:
    """The session's table and column names (a /fix below rows keeps them in the cell)."""
    try:
        engine = agent.engine()
        tables = list(engine.tables()) if engine is not None else []
    except Exception:
        return frozenset()
    return frozenset([t.name for t in tables] + [c for t in tables for c, _ in t.columns])


def fixed_code(text: str) -> str | None:
    """The corrected cell in the answer: its first code block."""
    m = _CODE_BLOCK.search(text or "")
    return m.group(1).strip("\n") if m else None


def cell_diff(old: str, new: str) -> str:
    return "\n".join(difflib.unified_diff(old.strip("\n").splitlines(), new.strip("\n").splitlines(),
                                          "failing cell", "proposed cell", lineterm=""))


_proposal: list[dict[str, Any]] = []     # the last /fix proposal, for /fix accept|insert


def insert_fix(runtime: Any, fix: dict[str, Any], *, replace: bool) -> str | None:
    """Replace the failing cell with the proposed one (or insert it below) as a change of its
    own, which Undo cells reverts; returns the change's id, or None without a frontend."""
    from .cell_changes import begin_change
    from .cells import new_turn_id

    turn = new_turn_id()

    def send() -> bool:
        return bool(runtime.insert_cell(fix["fixed"], run=False, after_cell_id=fix.get("cell_id"), replace=replace,
                                        turn=turn))

    sent = begin_change(runtime, turn, send)
    return turn if sent else None


def _apply_fix(action: str) -> CommandResult:
    if not _proposal:
        raise ValueError("there is no proposed fix yet; run /fix first")
    fix = _proposal[0]
    replace = action == "accept"
    if replace and not fix.get("cell_id"):
        raise ValueError("the failing cell is not known to the notebook (no frontend sent its id); use /fix insert")
    if not insert_fix(_runtime(), fix, replace=replace):
        raise ValueError("no notebook frontend is connected to change cells; copy the proposed cell instead")
    _proposal.clear()
    return CommandResult("fix", "Replaced the failing cell with the proposed one." if replace
                         else "Inserted the proposed cell below the failing one.", data=None, kind="fix_applied")


def _fix_cmd(agent: Any, argv: list[str]) -> CommandResult:
    if argv:
        return _apply_fix(argv[0])
    failure = last_failure()
    if failure is None:
        return CommandResult("fix", "No cell has failed in this kernel yet: run the cell first, then `%agent /fix`.",
                             data=None, kind="fix")
    status = getattr(agent, "data_sharing_status", None)
    level = status()["level"] if status is not None else "rows"
    reply = agent.run(fix_message(failure, level, _names(agent) if level != "rows" else frozenset()))
    if reply.error:
        return CommandResult("fix", error=f"/fix: {reply.error}", kind="error")
    code = fixed_code(reply.text)
    if code is None or code.strip() == failure.source.strip():
        return CommandResult("fix", f"No corrected cell was proposed.\n\n{reply.text}", data=None, kind="fix")
    diff = cell_diff(failure.source, code)
    text = f"Proposed fix for the failing cell:\n\n```diff\n{diff}\n```\n\n{reply.text.strip()}"
    data = {"cell_id": failure.cell_id, "original": failure.source, "fixed": code, "diff": diff}
    _proposal[:] = [data]
    return CommandResult("fix", text, data=data, kind="fix")


# -- /cells -------------------------------------------------------------------------------------
def _cells_cmd(agent: Any, argv: list[str]) -> CommandResult:
    cells = list(getattr(_runtime(), "last_cells", None) or [])
    if not cells:
        return CommandResult("cells", "The last answer ran no SQL or code, so there are no cells to write"
                             " (or `ShellAgent.cells` is \"off\").", data=[], kind="cells")
    blocks = "\n\n".join(f"```python\n{c.source}\n```" for c in cells)
    return CommandResult("cells", f"{len(cells)} cell{'s' if len(cells) != 1 else ''} for the last answer:\n\n{blocks}",
                         data=cells, kind="cells")


# -- /replay-check ------------------------------------------------------------------------------
def _replay_cmd(agent: Any, argv: list[str]) -> CommandResult:
    from .identity import base_dir
    from .replay_check import replay_check

    rt = _runtime()
    target = argv[0] if argv else rt.notebook_path
    if not target:
        raise ValueError("this kernel does not know its notebook's path; give it: /replay-check PATH")
    path = Path(target).expanduser()
    if not path.is_absolute():
        path = base_dir(rt.notebook_path) / path
    if not path.is_file():
        raise ValueError(f"no notebook at {path} (save it first)")
    report = replay_check(path)
    return CommandResult("replay-check", report.markdown(), data=report, kind="replay_check")


_COMMANDS = {"cells": _cells_cmd, "fix": _fix_cmd, "replay-check": _replay_cmd}


def register(shell: Any = None) -> None:
    from . import args as A

    for name, handler in _COMMANDS.items():
        spec = A.COMMANDS[name]
        register_command(name, handler, spec.summary[0].upper() + spec.summary[1:] + ".", spec.usage)
    if shell is not None and on_post_run_cell not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", on_post_run_cell)


def unregister(shell: Any = None) -> None:
    for name in _COMMANDS:
        unregister_command(name)
    record_failure(None)
    _proposal.clear()
    if shell is not None and on_post_run_cell in shell.events.callbacks["post_run_cell"]:
        shell.events.unregister("post_run_cell", on_post_run_cell)


# -- how the magic shows them -------------------------------------------------------------------
def _markdown(text: str) -> dict:
    return {"text/markdown": text, "text/plain": text}


def _render_cells(magics: Any, result: Any) -> None:
    from IPython.display import display

    from .cells import CELLS_MIME, CellSet, cells_bundle, new_turn_id, question_line, sync_args

    rt = magics.runtime
    cells = list(result.data or [])
    if not cells:
        display(_markdown(result.text), raw=True)
        return
    cell_set = rt.last_cell_set
    if not isinstance(cell_set, CellSet) or list(cell_set.cells) != cells:
        cell_set = CellSet(None, new_turn_id(), question_line(""), tuple(cells))
    n = len(cells)
    if rt.frontend().live and rt.notebook_command("sync_cells", sync_args(cell_set, "missing")):
        # the answer's cells already in the notebook stay as they are: only missing ones are added
        where = "below its question" if cell_set.source_cell else "below the active cell"
        display(_markdown(f"The last answer has {n} cell{'s' if n != 1 else ''}: any not in the notebook yet "
                          f"{'were' if n != 1 else 'was'} added {where}."), raw=True)
        return
    display(cells_bundle(cells), raw=True, metadata={CELLS_MIME: cell_set.origin()})


def _render_fix(magics: Any, result: Any) -> None:
    from IPython.display import display

    display(_markdown(result.text), raw=True)
    data = result.data
    if not data:
        return
    rt = magics.runtime
    if rt.frontend().live:
        from ._fix_widget import FixWidget

        from .cell_changes import undo

        display(FixWidget(data, lambda fix, replace: insert_fix(rt, fix, replace=replace),
                          lambda turn: undo(rt, turn)))
    else:
        rt.shell.set_next_input(data["fixed"], replace=False)


#: CommandResult.kind -> how ``%agent`` shows it
RENDERERS = {"cells": _render_cells, "fix": _render_fix}
