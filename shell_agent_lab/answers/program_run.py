"""Run a checked pandas program the model wrote: behind the operating system's boundary when it
is there, in the kernel only after a person approved it.

:func:`run_program` refuses a program :func:`~.program_check.check_program` finds problems in
(a fast first pass that tells the model what to write instead; it is not the boundary), then
hands it to the sandbox (:mod:`shell_agent_lab.sandbox`): a process of its own under
bubblewrap's namespaces, a seccomp filter and resource limits, with the frames it names mapped
read-only. What comes back is plain data: printed text, an error line, warnings and the
top-level values as JSON. No exception leaves it; when the sandbox itself fails the run says so
in one line.

:func:`run_program_in_kernel` is the guarded in-process runner for a program a person approved
(where no sandbox can be set up, see ``docs/security.md``): the frames as Copy-on-Write shallow
copies, an allowlist of builtins and guarded attribute access, a trace-function time limit.
Those guards narrow what a slip can do; they are not a security boundary, and that is why an
in-kernel run needs an approval.
"""
from __future__ import annotations

import ast
import copy
import importlib
import logging
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import pandas as pd

from ._program_guards import Blocked, Capture, guard_names, make_builtins, rewrite
from ._program_outcome import PROGRAM_FILENAME, describe, error_line, program_line, small_values, warning_lines
from ._program_rules import module_allowed
from .program_check import check_program

__all__ = ["ProgramRun", "run_program", "run_program_in_kernel", "warm_up", "PROGRAM_FILENAME"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProgramRun:
    """The outcome of one program run.

    ``ok`` is true when the program ran to its end. ``refused`` holds the check's problems when
    it did not run at all; ``error`` is one line the model can act on (with the line number and,
    for a missing column, the frame's columns). ``values`` holds the program's top-level
    variables that are JSON-able scalars or small lists, dicts and Series (of a program that
    failed, those it bound before the failing line). ``isolated`` says it
    ran behind the sandbox; ``unavailable`` that it did not run because no sandbox could be
    set up (the caller may ask a person to run it in the kernel instead).
    """

    ok: bool
    stdout: str = ""
    error: str | None = None
    refused: list[str] = field(default_factory=list)
    seconds: float = 0.0
    values: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    timed_out: bool = False
    isolated: bool = False
    unavailable: bool = False
    #: the program's line the error came from (its own numbering), when it names one
    line: int | None = None


class _Stopped(BaseException):
    """The time limit, raised into the program's frames by the trace function.

    A ``BaseException`` on purpose: neither the program's ``except Exception`` nor pandas'
    fallbacks around a user function may swallow it. It never leaves :func:`run_program_in_kernel`.
    """


def _refusal(source: str, frames: Mapping[str, Any], started: float) -> ProgramRun | None:
    bad_names = [n for n in frames if not n.isidentifier() or n.startswith("_")]
    if bad_names:
        return ProgramRun(ok=False, error=f"frame names must be identifiers not starting with "
                          f"`_`: {', '.join(map(repr, bad_names))}")
    problems = check_program(source, given=frames.keys())
    if problems:
        return ProgramRun(ok=False, refused=problems, error=f"the program was refused: {problems[0]}",
                          seconds=time.monotonic() - started)
    return None


def run_program(source: str, frames: Mapping[str, Any], *, timeout: float = 20.0,
                max_output_chars: int = 20000, sandbox: Any = None, memory_mb: int = 4096,
                checked: bool = True) -> ProgramRun:
    """Check ``source`` and, when it passes, run it in the sandbox with ``frames`` (DataFrames,
    Series and the least-squares stand-ins) bound to their names. ``checked=False`` skips the
    check (a program cell the user runs: the check teaches the model, the sandbox protects).

    The kernel's objects are never handed over, only the frames' data. Returns a
    :class:`ProgramRun` (``unavailable`` when no sandbox can be set up here); never raises.
    """
    started = time.monotonic()
    try:
        refused = _refusal(source, frames, started) if checked else None
        if refused is not None:
            return refused
        from .. import sandbox as isolation

        if sandbox is None:
            found = isolation.status()
            if not found:
                return ProgramRun(ok=False, unavailable=True,
                                  error=f"programs cannot be isolated here ({found.reason}); running one needs approval")
            sandbox = isolation.shared()
        data, helpers = _split(frames)
        reply = sandbox.run(source, data, helpers=helpers, timeout=timeout, max_output=max_output_chars,
                            memory_mb=memory_mb)
    except Exception as exc:  # the sandbox failed (not the program): said in one line
        log.warning("the program could not be run in the sandbox", exc_info=True)
        return ProgramRun(ok=False, error=f"the program could not be run: {exc}",
                          seconds=round(time.monotonic() - started, 3))
    return _from_reply(reply)


def _split(frames: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The data to ship, and the stand-ins by name (a class or function is never shipped)."""
    from . import least_squares

    offered = {obj: name for name, obj in least_squares.STAND_INS_BY_NAME.items()}
    data: dict[str, Any] = {}
    helpers: dict[str, str] = {}
    for name, value in frames.items():
        if isinstance(value, (pd.DataFrame, pd.Series)):
            data[name] = value
        elif value in offered if _hashable(value) else False:
            helpers[name] = offered[value]
        else:
            raise TypeError(f"{name!r} is a {type(value).__name__}, which a program cannot be handed")
    return data, helpers


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _from_reply(reply: Mapping[str, Any]) -> ProgramRun:
    """The sandbox's plain-data reply as a :class:`ProgramRun`, every field checked for type."""
    def text(key: str, limit: int = 200_000) -> str:
        value = reply.get(key)
        return value[:limit] if isinstance(value, str) else ""

    values = reply.get("values")
    found = reply.get("warnings")
    seconds = reply.get("seconds")
    error = reply.get("error")
    line = reply.get("line")
    return ProgramRun(ok=reply.get("ok") is True and error is None, stdout=text("stdout"),
                      line=line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else None,
                      error=error[:2000] if isinstance(error, str) else None,
                      seconds=float(seconds) if isinstance(seconds, (int, float)) else 0.0,
                      values=values if isinstance(values, dict) else {},
                      warnings=[w[:300] for w in found if isinstance(w, str)][:5] if isinstance(found, list) else [],
                      timed_out=reply.get("timed_out") is True, isolated=True)


def run_program_in_kernel(source: str, frames: Mapping[str, Any], *, timeout: float = 20.0,
                          max_output_chars: int = 20000) -> ProgramRun:
    """Check ``source`` and run it in this process with the guards described above: only for
    a program a person approved. Returns a :class:`ProgramRun`; never raises."""
    try:
        return _run(source, frames, timeout, max_output_chars)
    except Exception as exc:  # a fault of the runner itself: reported, never raised
        return ProgramRun(ok=False, error=f"the program could not be run: "
                          f"{type(exc).__name__}: {exc}")


def _run(source: str, frames: Mapping[str, Any], timeout: float,
         max_output_chars: int) -> ProgramRun:
    started = time.monotonic()
    refused = _refusal(source, frames, started)
    if refused is not None:
        return refused
    capture = Capture(max_output_chars)
    try:
        tree = ast.parse(source)
        _load_modules(tree)
        code = compile(rewrite(tree), PROGRAM_FILENAME, "exec")
        guards = guard_names()
        started = time.monotonic()  # loading scipy the first time is not the program's time
    except (SyntaxError, ValueError, RecursionError) as exc:
        return ProgramRun(ok=False, error=f"the program could not be compiled: {exc}",
                          seconds=time.monotonic() - started)
    error: str | None = None
    line: int | None = None
    timed_out = False
    recorded: list[warnings.WarningMessage] = []
    with _copy_on_write():
        try:
            namespace = {name: _protected_copy(frame) for name, frame in frames.items()}
        except Exception as exc:  # an unusual frame subclass whose copy fails
            return ProgramRun(ok=False, error=f"the frames could not be prepared: "
                              f"{type(exc).__name__}: {exc}")
        scope: dict[str, Any] = {"__builtins__": make_builtins(capture),
                                 "__name__": "__program__", **guards, **namespace}
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("default")
            try:
                _run_with_deadline(code, scope, started + timeout)
            except _Stopped:
                timed_out = True
                error = (f"stopped after {timeout:g} s (time limit): compute less, or use "
                         "vectorised pandas operations instead of Python loops")
            except Blocked as exc:
                error = f"{program_line(exc.__traceback__)}refused while running: {exc}"
                line = error_line(exc)
            except BaseException as exc:  # the program's own error, reported, never raised
                error = describe(exc, frames, source, scope)
                line = error_line(exc)
    seconds = time.monotonic() - started
    return ProgramRun(ok=error is None, stdout=capture.text(), error=error,
                      seconds=round(seconds, 3),
                      values=small_values(scope, set(frames)),
                      warnings=warning_lines(recorded), timed_out=timed_out, line=line)


def _run_with_deadline(code: Any, scope: dict[str, Any], deadline: float) -> None:
    clock = time.monotonic

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if clock() > deadline:
            raise _Stopped
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != PROGRAM_FILENAME:
            return None  # library code runs untraced: only the program's own lines are timed
        if clock() > deadline:
            raise _Stopped
        return local

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        exec(code, scope)  # noqa: S102 - the checked, rewritten program; see the module doc
    finally:
        sys.settrace(previous)


def warm_up() -> None:
    """Start the sandbox (it loads numpy, pandas and scipy.stats once) so the first program
    does not wait for it; where there is none, load what an approved in-kernel run uses (call
    it from a thread while the model writes the program)."""
    from .. import sandbox as isolation

    if isolation.status():
        isolation.shared().warm()
        return
    for name in ("numpy", "pandas", "scipy", "scipy.stats", "statistics", "math"):
        try:
            importlib.import_module(name)
        except Exception:
            pass
    guard_names()


def _load_modules(tree: ast.Module) -> None:
    """Import the modules the (checked) program names before its clock starts: a first
    ``import scipy.stats`` can take seconds, which is not the program's doing. Lazily loaded
    subpackages reached by attribute (``scipy.stats`` after ``import scipy``) count too."""
    aliases: dict[str, str] = {}
    wanted: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                wanted.append(alias.name)
                aliases[alias.asname or alias.name.split(".")[0]] = \
                    alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            wanted.append(node.module)
            wanted += [f"{node.module}.{a.name}" for a in node.names]
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases:
            wanted.append(f"{aliases[node.value.id]}.{node.attr}")
    for name in dict.fromkeys(wanted):
        if module_allowed(name) and name.split(".")[0] in {"scipy", "numpy", "pandas"}:
            try:
                importlib.import_module(name)
            except Exception:  # not a module (a function name) or missing: the program's
                pass           # own import reports it, on its line


_COW_LOCK = threading.Lock()
_cow_runs = 0
_cow_before: Any = None


@contextmanager
def _copy_on_write() -> Iterator[None]:
    """Copy-on-Write for the run: always on in pandas 3; under pandas 2 switched on by the
    first of the runs in progress (in any thread) and restored by the last."""
    global _cow_runs, _cow_before
    if int(pd.__version__.split(".")[0]) >= 3:
        yield
        return
    with _COW_LOCK:
        if _cow_runs == 0:
            _cow_before = pd.get_option("mode.copy_on_write")
            pd.set_option("mode.copy_on_write", True)
        _cow_runs += 1
    try:
        yield
    finally:
        with _COW_LOCK:
            _cow_runs -= 1
            if _cow_runs == 0:
                pd.set_option("mode.copy_on_write", _cow_before)


def _protected_copy(frame: Any) -> Any:
    """A shallow copy that shares the data (copy-on-write) but owns its labels and attrs."""
    if not isinstance(frame, (pd.DataFrame, pd.Series)):
        return copy.deepcopy(frame)
    twin = frame.copy(deep=False)
    twin.index = frame.index.copy()
    if isinstance(frame, pd.DataFrame):
        twin.columns = frame.columns.copy()
    twin.attrs = copy.deepcopy(frame.attrs)
    return twin


