"""``run_python``: code the model proposes, run in the notebook's namespace after approval.

The tool is in the execute category and asks for approval by default; the approval prompt
may also answer "insert as a cell" (``ApprovalDecision.action == "insert_cell"``), in which
case nothing runs and the code is handed to the notebook as a new cell for the user to read
and run. Output (stdout, stderr, the value of a trailing expression) is captured and capped.

How it runs:

* **Its own thread.** Approved code runs on a dedicated thread while the calling thread (the
  agent's turn) waits for it, watching the turn's cancel event (Stop) and the time limit
  (``ShellAgent.run_python_timeout``).
* **Per-thread output capture.** ``sys.stdout`` and ``sys.stderr`` are wrapped once by a
  :class:`ThreadRoutedStream`: writes from the thread running agent code go to that run's
  capture, writes from every other thread (a cell on the main thread, the kernel's own
  threads) go to the wrapped stream unchanged. Nothing is swapped in and out per run, so a
  cell running at the same time neither loses its output to the agent nor receives the
  agent's; attribute access (``fileno``, ``set_parent``, ``encoding``…) passes through to the
  wrapped stream (ipykernel's ``OutStream``). Output written straight to a file descriptor
  (subprocesses, C libraries) is not captured, and a cell that itself replaces ``sys.stdout``
  while agent code runs (``%%capture``) receives the agent's writes for that time.
* **Interruption.** At the time limit, or when the turn is cancelled, ``KeyboardInterrupt`` is
  raised in the running thread (``PyThreadState_SetAsyncExc``). Python only delivers it
  between bytecodes: a long call inside a C extension or a blocking wait (``time.sleep``, a
  socket read, a big NumPy operation) is interrupted only when it returns to Python. Code that
  has not stopped :data:`STOP_GRACE` seconds after the interrupt is left running in the
  background (its output discarded) and the tool reports that; until it ends, further
  ``run_python`` calls are refused.
* **The namespace.** ``WORK_DIR`` is set to the current session's work directory (created,
  mode 0700, on first use) before every run; IPython's ``_`` is left alone.
"""
from __future__ import annotations

import ast
import ctypes
import io
import linecache
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._convert import cap_text, to_text
from ._workdir import ensure_work_dir
from .registry import ToolContext, ToolDescriptor, ToolError, ToolResult

__all__ = ["run_python_tool", "execute_code", "run_code", "RunOutcome", "ThreadRoutedStream",
           "running", "MAX_OUTPUT_CHARS", "DEFAULT_TIMEOUT", "STOP_GRACE"]

MAX_OUTPUT_CHARS = 20_000
#: seconds approved code may run when ``ShellAgent.run_python_timeout`` is not set
DEFAULT_TIMEOUT = 120.0
#: seconds interrupted code gets to unwind before it is left running in the background
STOP_GRACE = 3.0
_POLL = 0.05

_DESCRIPTION = (
    "Run Python code in the user's notebook kernel, with access to its variables (DataFrames "
    "and modules already imported). Use it for transformations SQL cannot express. The user "
    "reviews the code first and may run it or insert it as a new cell instead. Files you write "
    "belong in the session's work directory, given as the variable WORK_DIR."
)


class _Capture(io.TextIOBase):
    """A text sink that keeps at most ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.size = 0
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            if self.kept < self.limit:
                part = text[: self.limit - self.kept]
                self.parts.append(part)
                self.kept += len(part)
            self.size += len(text)
        return len(text)

    def text(self) -> str:
        with self._lock:
            out = "".join(self.parts)
            if self.size > self.limit:
                out += f"\n... [output truncated: {self.size} characters in all]"
        return out


# ---- per-thread output routing ---------------------------------------------------------------

_routes: dict[int, _Capture] = {}          # thread ident -> the capture of the run on that thread
_install_lock = threading.Lock()


class _Discard:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


class ThreadRoutedStream:
    """Stands in for ``sys.stdout``/``sys.stderr``: a thread that runs agent code writes into
    its run's capture; every other thread writes to the wrapped stream as before.

    IPython patches ``write`` on the stream object for the duration of each cell (it records
    stream output in the history). Such a patch is kept here, on the wrapper, and applies only
    to threads that do not run agent code — it never reaches the wrapped stream, which would
    route the write back through this wrapper forever. Other attributes are read from, and
    set on, the wrapped stream.
    """

    _OWN = frozenset({"_stream", "_write_hook", "writelines", "flush"})

    def __init__(self, stream: Any) -> None:
        object.__setattr__(self, "_stream", stream if stream is not None else _Discard())
        object.__setattr__(self, "_write_hook", None)

    @property
    def wrapped(self) -> Any:
        return self._stream

    @property
    def write(self) -> Any:
        capture = _routes.get(threading.get_ident())
        if capture is not None:
            return capture.write
        return self._write_hook or self._stream.write

    @write.setter
    def write(self, fn: Any) -> None:
        if threading.get_ident() in _routes:
            return          # agent code patching the stream must not redirect everyone else's output
        object.__setattr__(self, "_write_hook", None if fn == self._stream.write else fn)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        capture = _routes.get(threading.get_ident())
        target = capture if capture is not None else self._stream
        flush = getattr(target, "flush", None)
        if flush is not None:
            flush()

    def __getattr__(self, name: str) -> Any:
        if name in ("_stream", "_write_hook"):      # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self._stream, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "write":
            object.__setattr__(self, name, value)   # the property's setter
        elif name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self._stream, name, value)

    def __repr__(self) -> str:
        return f"<ThreadRoutedStream around {self._stream!r}>"


def _install_routing() -> None:
    """Wrap sys.stdout/sys.stderr (again, when something replaced the wrapper since)."""
    with _install_lock:
        for name in ("stdout", "stderr"):
            current = getattr(sys, name)
            if not isinstance(current, ThreadRoutedStream):
                setattr(sys, name, ThreadRoutedStream(current))


# ---- interrupting a thread -------------------------------------------------------------------

def _set_async_exc(thread_id: int, exc: type[BaseException]) -> int:
    """Raise ``exc`` in the thread when it next checks for pending work (a call, a loop).

    Never called with None to take back an interrupt: CPython 3.11 then still flags an
    asynchronous exception for the whole interpreter, which no thread ever clears, so every
    thread goes through its pending-work check on every call from then on, and a traced frame
    (a debugger, a coverage tool, the in-kernel program runner) loops forever at its first
    instruction. An interrupt sent too late lands in :meth:`_Run._settle` instead."""
    return ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc))


def _landing() -> None:
    """A Python call: its entry checks for pending work, where a pending interrupt is raised."""


@dataclass
class RunOutcome:
    output: str
    ok: bool
    #: why the code was interrupted: "timeout", "stopped", or None
    interrupted: str | None = None
    #: the code did not stop after the interrupt and still runs in the background
    abandoned: bool = False


class _Run:
    """One execution on its own thread."""

    def __init__(self, code: Any, trailing: Any, namespace: dict[str, Any], limit: int) -> None:
        self.code, self.trailing, self.namespace, self.limit = code, trailing, namespace, limit
        self.out = _Capture(limit)
        self.ok = True
        self.interrupted: str | None = None      # why an interrupt was sent
        self.stopped_by: str | None = None       # why the code actually ended with one
        self.abandoned = False
        self.done = threading.Event()
        self._guard = threading.Lock()     # interrupts are sent only while the user's code runs
        self._in_code = False
        self.thread = threading.Thread(target=self._main, name="run-python", daemon=True)

    def _main(self) -> None:
        ident = threading.get_ident()
        _routes[ident] = self.out
        try:
            try:
                self._execute()
            except BaseException:   # noqa: BLE001 - an interrupt that landed just as the code ended
                self.ok = False
                self.stopped_by = self.interrupted
        finally:
            self._settle()
            _routes.pop(ident, None)
            _finished(self)
            self.done.set()

    def _leave_code(self) -> None:
        """No interrupt is sent from now on (one already sent may still be pending)."""
        with self._guard:
            self._in_code = False

    def _settle(self) -> None:
        """Leave the code and let an interrupt sent but not yet raised land here, harmlessly:
        after ``_in_code`` is cleared none is sent, so at most one more can land."""
        for _ in range(3):
            try:
                self._leave_code()
                _landing()
                return
            except BaseException:   # noqa: BLE001 - the late interrupt: the code had ended, it changes nothing
                continue

    def _execute(self) -> None:
        value = None
        try:
            with self._guard:
                self._in_code = True
            exec(self.code, self.namespace)  # noqa: S102 - approved by the user
            if self.trailing is not None:
                value = eval(self.trailing, self.namespace)  # noqa: S307
            self._leave_code()
        except BaseException as exc:  # noqa: BLE001 - reported to the model, including SystemExit
            self.ok = False
            self._leave_code()
            if isinstance(exc, KeyboardInterrupt) and self.interrupted:
                self.stopped_by = self.interrupted
            self.out.write(_format_error(exc) + "\n")
            return
        if value is not None:
            self.out.write(to_text(value, self.limit) + "\n")

    def interrupt(self, why: str) -> bool:
        with self._guard:
            if not self._in_code or self.thread.ident is None:
                return False
            self.interrupted = self.interrupted or why
            return _set_async_exc(self.thread.ident, KeyboardInterrupt) == 1


def _format_error(exc: BaseException) -> str:
    """The exception with the last frames of its traceback, starting at the agent's code."""
    tb = exc.__traceback__
    first = tb
    while first is not None and first.tb_frame.f_code.co_filename != "<agent-code>":
        first = first.tb_next
    return "".join(traceback.format_exception(type(exc), exc, first or tb, limit=-3)).rstrip()


_active_lock = threading.Lock()
_active: _Run | None = None


def _finished(run: _Run) -> None:
    global _active
    with _active_lock:
        if _active is run:
            _active = None


def running() -> bool:
    """Whether approved code is running (or left running after an interrupt) in this process."""
    with _active_lock:
        return _active is not None


def run_code(code: str, namespace: dict[str, Any], *, limit: int = MAX_OUTPUT_CHARS,
             timeout: float | None = None, cancel: threading.Event | None = None,
             grace: float | None = None) -> RunOutcome:
    """Run ``code`` in ``namespace`` on its own thread and wait for it.

    ``timeout`` (seconds, None or 0 for no limit) and ``cancel`` interrupt it; see the module
    docstring for what can and cannot be interrupted.
    """
    global _active
    try:
        tree = ast.parse(code, mode="exec")
    except SyntaxError as exc:
        return RunOutcome(f"SyntaxError: {exc.msg} (line {exc.lineno})", False)
    trailing = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        trailing = compile(ast.Expression(tree.body.pop().value), "<agent-code>", "eval")
    run = _Run(compile(tree, "<agent-code>", "exec"), trailing, namespace, limit)
    # tracebacks quote the lines of the code (the latest run's: its error is formatted at once)
    linecache.cache["<agent-code>"] = (len(code), None, code.splitlines(True), "<agent-code>")
    with _active_lock:
        busy = _active
        if busy is None:
            _active = run
    if busy is not None:
        what = ("code from an earlier run_python call did not stop when interrupted and is still running"
                if busy.abandoned else "another run_python call is still running in this kernel")
        return RunOutcome(f"Not run: {what}; wait for it to end (or restart the kernel), then try again.",
                          False)
    _install_routing()
    run.thread.start()
    grace = STOP_GRACE if grace is None else grace
    deadline = time.monotonic() + timeout if timeout else None
    why = None
    while not run.done.wait(_POLL):
        if cancel is not None and cancel.is_set():
            why = "stopped"
        elif deadline is not None and time.monotonic() >= deadline:
            why = "timeout"
        if why is not None:
            break
    if why is not None and not run.done.is_set():
        run.interrupt(why)
        end = time.monotonic() + grace
        again = time.monotonic() + grace / 2
        while not run.done.wait(_POLL) and time.monotonic() < end:
            if again is not None and time.monotonic() >= again:
                run.interrupt(why)          # once more: the first may have been caught
                again = None
        if not run.done.is_set():
            run.abandoned = True
    if run.abandoned:
        text = run.out.text()
        return RunOutcome(cap_text(text, limit), False, run.interrupted or why, abandoned=True)
    return RunOutcome(cap_text(run.out.text().rstrip("\n"), limit), run.ok, run.stopped_by)


def execute_code(code: str, namespace: dict[str, Any], *, limit: int = MAX_OUTPUT_CHARS,
                 timeout: float | None = None, cancel: threading.Event | None = None) -> tuple[str, bool]:
    """Run ``code`` in ``namespace``; return (captured output, ok)."""
    outcome = run_code(code, namespace, limit=limit, timeout=timeout, cancel=cancel)
    return outcome.output, outcome.ok


def _timeout_of(settings: Any) -> float | None:
    value = getattr(settings, "run_python_timeout", DEFAULT_TIMEOUT) if settings is not None else DEFAULT_TIMEOUT
    return float(value) if value else None


def _handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    code = args.get("code")
    if not isinstance(code, str) or not code.strip():
        raise ToolError("'code' must be a non-empty string of Python")
    decision = getattr(ctx, "decision", None)
    if decision is not None and getattr(decision, "action", None) == "insert_cell":
        return ToolResult(
            "The user chose to insert this code as a new notebook cell instead of running it now. "
            "It has not been executed; do not assume its results.",
            data={"insert_cell": code},
        )
    if ctx.namespace is None:
        raise ToolError("there is no notebook namespace to run code in (run_python needs a kernel)")
    if ctx.work_dir is not None:
        # every run: the session may have changed since the last one (/reset, /session)
        ctx.namespace["WORK_DIR"] = str(ensure_work_dir(Path(ctx.work_dir)))
    timeout = _timeout_of(ctx.settings)
    outcome = run_code(code, ctx.namespace, timeout=timeout, cancel=ctx.cancel)
    output = outcome.output
    if outcome.interrupted is not None:
        reason = ("the user stopped it" if outcome.interrupted == "stopped"
                  else f"it ran past its {timeout:g} s limit (ShellAgent.run_python_timeout)")
        if outcome.abandoned:
            head = (f"The code was interrupted because {reason}, but it did not stop (it is probably inside "
                    "a long call in a C extension or a blocking wait); it keeps running in the kernel and "
                    "further run_python calls are refused until it ends.")
        else:
            head = f"The code was interrupted because {reason}."
        raise ToolError(head + (f" Output so far:\n{output}" if output.strip() else ""))
    if not outcome.ok:
        raise ToolError(output or "the code raised an exception")
    return ToolResult(output or "(ran without output)", data={"code": [code]})


def run_python_tool() -> ToolDescriptor:
    return ToolDescriptor(
        name="run_python",
        description=_DESCRIPTION,
        parameters={"type": "object", "properties": {
            "code": {"type": "string", "description": "Python source to run in the notebook kernel"}},
            "required": ["code"]},
        handler=_handler,
        category="execute",
        approval_default=True,
        dialog="code",
        source="builtin",
    )
