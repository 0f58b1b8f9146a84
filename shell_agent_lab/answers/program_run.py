"""Run a checked pandas program against the user's live frames, without approval.

:func:`run_program` refuses a program :func:`~.program_check.check_program` finds problems in,
then runs it in the calling thread (the kernel's) and returns a :class:`ProgramRun`; no
exception leaves it. How a run is contained:

* **The frames.** Each frame is handed over as a shallow copy with its own index, column
  labels and ``attrs``, under pandas Copy-on-Write (always on from pandas 3; under pandas 2 the
  option is switched on for the run and restored): no data is copied, and any write the
  program makes to its copy copies the touched block first, so the user's frame cannot change.
* **The namespace.** The program sees an allowlist of builtins; ``print`` writes to this run's
  buffer (never ``sys.stdout``, which other threads share), ``range``, ``pow`` and ``*`` refuse
  values too large to build, ``type`` takes one argument, and ``import`` goes through a
  guarded ``__import__`` that returns only the allowed modules. Attribute reads and the objects
  of attribute and item writes pass through guards (see :mod:`._program_guards`) that block
  modules outside the allowlist, interpreter internals, writers and shared settings even when
  the static check cannot see them.
* **Time.** A trace function, installed for this thread only (``sys.settrace``) and only
  following the program's own frames, ends the run at the first line or call of program code
  after the deadline: pure-Python loops, comprehensions and lambdas called by pandas all stop.
  A single long call inside C (a huge merge, a pathological regular expression) is not
  interrupted; the run stops when it returns, and the seconds say so. The caller's own trace
  function (a debugger, coverage) is restored afterwards.
* **Warnings** raised while the program runs are recorded into :attr:`ProgramRun.warnings`
  rather than shown in the notebook. ``warnings.catch_warnings`` is process-wide: a warning
  another thread raises during a run is recorded there too.
* **Memory is not capped.** Constant sizes are refused before the run and the guards refuse
  huge Python values, but a program that computes a large size from the data can still ask
  for a large array; the kernel's memory is the limit.
"""
from __future__ import annotations

import ast
import copy
import importlib
import json
import math
import re
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType, TracebackType
from typing import Any

import numpy as np
import pandas as pd

from ._program_guards import Blocked, Capture, guard_names, make_builtins, rewrite
from ._program_rules import module_allowed
from .program_check import check_program

__all__ = ["ProgramRun", "run_program", "warm_up", "PROGRAM_FILENAME"]

#: the file name the program's code carries (its frames are the ones the time limit follows)
PROGRAM_FILENAME = "<program>"
_MAX_WARNINGS = 5
_MAX_COLUMNS_SHOWN = 40
_SMALL = 20
_MAX_TEXT_VALUE = 200


@dataclass(frozen=True)
class ProgramRun:
    """The outcome of one program run.

    ``ok`` is true when the program ran to its end. ``refused`` holds the check's problems when
    it did not run at all; ``error`` is one line the model can act on (with the line number and,
    for a missing column, the frame's columns). ``values`` holds the program's top-level
    variables that are JSON-able scalars or small lists, dicts and Series.
    """

    ok: bool
    stdout: str = ""
    error: str | None = None
    refused: list[str] = field(default_factory=list)
    seconds: float = 0.0
    values: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    timed_out: bool = False


class _Stopped(BaseException):
    """The time limit, raised into the program's frames by the trace function.

    A ``BaseException`` on purpose: neither the program's ``except Exception`` nor pandas'
    fallbacks around a user function may swallow it. It never leaves :func:`run_program`.
    """


def run_program(source: str, frames: Mapping[str, pd.DataFrame], *, timeout: float = 20.0,
                max_output_chars: int = 20000) -> ProgramRun:
    """Check ``source`` and, when it passes, run it with ``frames`` bound to their names.

    The user's frames are never changed. Returns a :class:`ProgramRun`; never raises.
    """
    try:
        return _run(source, frames, timeout, max_output_chars)
    except Exception as exc:  # a fault of the runner itself: reported, never raised
        return ProgramRun(ok=False, error=f"the program could not be run: "
                          f"{type(exc).__name__}: {exc}")


def _run(source: str, frames: Mapping[str, Any], timeout: float,
         max_output_chars: int) -> ProgramRun:
    started = time.monotonic()
    bad_names = [n for n in frames if not n.isidentifier() or n.startswith("_")]
    if bad_names:
        return ProgramRun(ok=False, error=f"frame names must be identifiers not starting with "
                          f"`_`: {', '.join(map(repr, bad_names))}")
    problems = check_program(source, given=frames.keys())
    if problems:
        return ProgramRun(ok=False, refused=problems,
                          error=f"the program was refused: {problems[0]}",
                          seconds=time.monotonic() - started)
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
                error = f"{_program_line(exc.__traceback__)}refused while running: {exc}"
            except BaseException as exc:  # the program's own error, reported, never raised
                error = _describe(exc, frames)
    seconds = time.monotonic() - started
    return ProgramRun(ok=error is None, stdout=capture.text(), error=error,
                      seconds=round(seconds, 3),
                      values=_small_values(scope, set(frames)) if error is None else {},
                      warnings=_warning_lines(recorded), timed_out=timed_out)


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
    """Load what most programs use (scipy.stats takes seconds the first time) and take stock of
    the modules' objects, so the first run does not wait for it (call it from a thread while
    the model writes the program)."""
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


def _program_line(tb: TracebackType | None) -> str:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"line {line}: " if line else ""


def _describe(exc: BaseException, frames: Mapping[str, Any]) -> str:
    """One line for the model: where, what, and for a missing name the columns it could use."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    message = f"{_program_line(exc.__traceback__)}{type(exc).__name__}"
    if text:
        message += f": {text[:300]}"
    hint = _slip_hint(exc, text)
    if hint:
        message += " — " + hint
    elif isinstance(exc, (KeyError, AttributeError)) or "not in index" in text:
        message += " — " + _columns_hint(frames)
    return message


_SCALAR_ATTRIBUTE = re.compile(r"^'(?:int|float|numpy\.\w+|str|bool)' object has no attribute")
_NO_MODULE_ATTRIBUTE = re.compile(r"^module '([\w.]+)' has no attribute '(\w+)'")
_TEXT_ARITHMETIC = re.compile(r"\bstr\b|ufunc|does not support operation|string dtype|could not convert string|can only concatenate|object of type 'str'", re.I)
_UNPACK = re.compile(r"^(?:too many|not enough) values to unpack")
_NO_SERIES_ATTRIBUTE = re.compile(r"^'(Series|DataFrame)' object has no attribute '(\w+)'")
#: what to write for a method a Series or DataFrame does not have
_SERIES_INSTEAD = {"zscore": "use stats.zscore(values) or (values - values.mean()) / values.std()",
                   "corrwith": "for two columns use frame['a'].corr(frame['b'])",
                   "ttest": "use stats.ttest_ind(a, b)",
                   "percentile": "use .quantile(q), q the fraction asked (0.9 for the 90th percentile)",
                   "iqr": "use .quantile(0.75) - .quantile(0.25)", "mode_value": "use .mode().iloc[0]"}
_REGRESSION = {"ols", "OLS", "linear_regression", "regress", "regression", "linregress", "lstsq", "LinearRegression"}


def _slip_hint(exc: BaseException, text: str) -> str | None:
    """A hint for the slips small models make most in pandas, or None."""
    if isinstance(exc, ValueError) and _UNPACK.match(text):
        return ("scipy.stats results unpack as: linregress -> slope, intercept, rvalue, pvalue, stderr; "
                "ttest_ind, ttest_rel, pearsonr, spearmanr, kendalltau, f_oneway, shapiro -> statistic, pvalue; "
                "chi2_contingency -> chi2, p, dof, expected (or read result.slope, result.pvalue …)")
    if isinstance(exc, TypeError) and "unexpected keyword argument 'interpolation'" in text:
        return "numpy 2 calls it method=: np.nanquantile(values, 0.25, method='linear')"
    if isinstance(exc, TypeError) and _TEXT_ARITHMETIC.search(text):
        return ("a text column (a flag such as 'Yes'/'No', a label) cannot be summed, averaged or divided: "
                "compare it with a value first, e.g. (frame['column'] == 'Yes').sum() or .mean()")
    if not isinstance(exc, AttributeError):
        return None
    if text.startswith("Can only use .dt accessor"):
        return ("that column holds text, not dates: read it with pd.to_datetime(frame['column'], errors='coerce') "
                "first (with format= when the question says how dates are written)")
    if _SCALAR_ATTRIBUTE.match(text):
        return ("idxmax()/idxmin() give a row's index label, not a value of another column: read that column "
                "at it with frame.loc[label, 'column']")
    m = _NO_SERIES_ATTRIBUTE.match(text)
    if m and m.group(2) in _SERIES_INSTEAD:
        return f"a {m.group(1)} has no {m.group(2)}: {_SERIES_INSTEAD[m.group(2)]}"
    m = _NO_MODULE_ATTRIBUTE.match(text)
    if m and m.group(2) == "iqr":
        return ("for the interquartile range use stats.iqr(values) (Q3 - Q1); for the quartiles themselves "
                "values.quantile([0.25, 0.75])")
    if m and m.group(1) == "pandas" and m.group(2) == "time":
        return ("pandas has no time: compare the hour of a datetime column instead, frame['column'].dt.hour "
                "(and .dt.minute)")
    if m and m.group(2) in _REGRESSION:
        return ("for a least-squares line use stats.linregress(x, y): its slope, intercept and rvalue "
                "(R squared is rvalue ** 2)")
    if m:
        return f"{m.group(1)} has no {m.group(2)}: use a function it has"
    return None


def _columns_hint(frames: Mapping[str, Any]) -> str:
    def listing(frame: Any) -> str:
        columns = [str(c) for c in getattr(frame, "columns", [])]
        shown = ", ".join(columns[:_MAX_COLUMNS_SHOWN])
        more = len(columns) - _MAX_COLUMNS_SHOWN
        return shown + (f", … ({more} more)" if more > 0 else "")

    tables = {name: f for name, f in frames.items() if isinstance(f, pd.DataFrame)}
    if len(tables) == 1:
        return f"columns are: {listing(next(iter(tables.values())))}"
    return "columns: " + "; ".join(f"{name}: {listing(f)}" for name, f in tables.items())


def _warning_lines(recorded: list[warnings.WarningMessage]) -> list[str]:
    lines: list[str] = []
    for item in recorded:
        line = f"{item.category.__name__}: {str(item.message).splitlines()[0][:200]}"
        if line not in lines:
            lines.append(line)
    return lines[:_MAX_WARNINGS]


def _small_values(scope: Mapping[str, Any], given: set[str]) -> dict[str, Any]:
    """The program's top-level results worth handing to the answer: JSON-able scalars and
    small lists, dicts and Series (NaN becomes ``None``)."""
    kept: dict[str, Any] = {}
    for name, value in scope.items():
        if name.startswith("_") or name in given:
            continue
        small = _jsonable(value, depth=0)
        if small is not _SKIP:
            kept[name] = small
    return kept


_SKIP = object()


def _jsonable(value: Any, depth: int) -> Any:
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return None if math.isnan(number) or math.isinf(number) else number
    if isinstance(value, str):
        return value if len(value) <= _MAX_TEXT_VALUE else _SKIP
    if isinstance(value, (pd.Timestamp, pd.Timedelta, np.datetime64)):
        return None if pd.isna(value) else str(value)
    if depth > 0:
        return _SKIP
    if isinstance(value, pd.Series) and len(value) <= _SMALL:
        items = {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    elif isinstance(value, dict) and len(value) <= _SMALL:
        items = {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    elif isinstance(value, (list, tuple)) and len(value) <= _SMALL:
        listed = [_jsonable(v, depth + 1) for v in value]
        if any(v is _SKIP for v in listed):
            return _SKIP
        return listed
    else:
        return _SKIP
    if any(v is _SKIP for v in items.values()):
        return _SKIP
    try:
        json.dumps(items, allow_nan=False)
    except (TypeError, ValueError):
        return _SKIP
    return items
