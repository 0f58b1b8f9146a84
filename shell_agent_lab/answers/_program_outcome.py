"""What a program run leaves for the answer, computed where the program ran: one line for an
error (with a hint for the slips small models make), the warnings it raised, and its top-level
values as plain JSON data.

Shared by the sandbox's program process and the approved in-kernel run: numpy, pandas, the
standard library and this package's pure answer modules only, imported by their full names (the
sandbox loads the package's folders as bare namespaces, without their ``__init__``).
"""
from __future__ import annotations

import datetime
import io
import json
import math
import warnings
from collections.abc import Callable, Mapping
from decimal import Decimal
from types import TracebackType
from typing import Any

import numpy as np
import pandas as pd

from shell_agent_lab.answers._program_faults import PROGRAM_FILENAME, fault_hint, traceback_line
from shell_agent_lab.answers.values import ANSWER_VARIABLE

__all__ = ["PROGRAM_FILENAME", "Capture", "describe", "error_line", "program_line", "warning_lines", "small_values", "jsonable"]

_MAX_WARNINGS = 5
_MAX_COLUMNS_SHOWN = 40
_SMALL = 20
#: the most items the value bound to ``answer`` (or one of its parts) may have
_ANSWER_ITEMS = 500
_MAX_TEXT_VALUE = 200


class Capture(io.TextIOBase):
    """What a program prints during one run (its ``print`` or its ``sys.stdout``): kept up to
    ``limit`` characters, the rest counted."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(len(text), room)
        self.dropped += max(len(text) - max(room, 0), 0)
        return len(text)

    def text(self) -> str:
        out = "".join(self.parts)
        if self.dropped:
            out += f"\n… (output truncated: {self.dropped:,} more characters)"
        return out


def program_line(tb: TracebackType | None) -> str:
    """``"line 3: "``: where in the program an error came from ("" when not in it)."""
    line = traceback_line(tb)
    return f"line {line}: " if line else ""


def error_line(exc: BaseException) -> int | None:
    """The program's own line an error came from, as a number (None when not in it)."""
    return traceback_line(exc.__traceback__)


def describe(exc: BaseException, frames: Mapping[str, Any], source: str = "",
             scope: Mapping[str, Any] | None = None) -> str:
    """One line for the model: where, what, and a hint read from the exception's type and
    attributes, the failing line and the objects it names (:mod:`._program_faults`); for a
    missing name with no better hint, the columns it could use."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    message = f"{program_line(exc.__traceback__)}{type(exc).__name__}"
    if text:
        message += f": {text[:300]}"
    hint = fault_hint(exc, frames, source, scope)
    if hint:
        message += " — " + hint
    elif isinstance(exc, (KeyError, AttributeError)):
        message += " — " + _columns_hint(frames)
    return message


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


def warning_lines(recorded: list[warnings.WarningMessage]) -> list[str]:
    lines: list[str] = []
    for item in recorded:
        line = f"{item.category.__name__}: {str(item.message).splitlines()[0][:200]}"
        if line not in lines:
            lines.append(line)
    return lines[:_MAX_WARNINGS]


def small_values(scope: Mapping[str, Any], given: set[str]) -> dict[str, Any]:
    """The program's top-level results worth handing to the answer: JSON-able scalars and
    small lists, dicts and Series (NaN becomes ``None``). ``answer``, the values the program
    binds for the question, is never dropped for its form: a value of a type JSON has no
    place for (a ``Period``, a ``Decimal``, a frame) comes back as its text, and each of its
    parts is kept or written out on its own."""
    kept: dict[str, Any] = {}
    picked = _rows_picked([f for n, f in scope.items() if n in given and isinstance(f, pd.DataFrame)])
    for name, value in scope.items():
        if name.startswith("_") or name in given:
            continue
        small = jsonable(value, depth=0, picked=picked) if name != ANSWER_VARIABLE else _answer_value(value, picked)
        if small is not _SKIP:
            kept[name] = small
    return kept


_SKIP = object()


def _answer_value(value: Any, picked: Callable[[pd.Series], bool] | None = None) -> Any:
    """``answer`` as plain data: a dict part by part, each part as :func:`jsonable` gives it or,
    failing that, as its text; anything else likewise. A list, array or Series the answer is
    made of may hold up to :data:`_ANSWER_ITEMS` items (the names a question asks for can be
    many); other variables are kept only when small."""
    if isinstance(value, dict):
        return {str(k): _as_text_if_needed(v, picked, _ANSWER_ITEMS) for k, v in list(value.items())[:_SMALL * 5]}
    return _as_text_if_needed(value, picked, _ANSWER_ITEMS)


def _rows_picked(frames: list[pd.DataFrame]) -> Callable[[pd.Series], bool]:
    """Whether a Series is rows picked from a column of one of ``frames``
    (``frame.head(3)['country']``): named after that column, indexed by labels of the frame's
    own integer index. Its labels are no part of the result; a Series indexed by what its values
    are of (a group, ``value_counts``, a dict's keys) is not such a Series."""
    def picked(series: pd.Series) -> bool:
        index = series.index
        if index.nlevels != 1 or not pd.api.types.is_integer_dtype(index.dtype):
            return False
        for frame in frames:
            try:
                if (series.name in frame.columns and index.name == frame.index.name
                        and pd.api.types.is_integer_dtype(frame.index.dtype) and bool(index.isin(frame.index).all())):
                    return True
            except TypeError:          # a name pandas cannot look up (a list, a dict)
                continue
        return False
    return picked


def _as_text_if_needed(value: Any, picked: Callable[[pd.Series], bool] | None = None, limit: int = 0) -> Any:
    if isinstance(value, pd.DataFrame) and value.shape[1] == 1:
        value = value.iloc[:, 0]           # a frame of one column is that column's values
    small = jsonable(value, depth=0, picked=picked, limit=limit or _SMALL)
    if small is not _SKIP:
        return small
    truths = _truths(value, limit or _SMALL)
    if truths is not None:
        return truths
    text = str(value)
    return text if len(text) <= _MAX_TEXT_VALUE * 10 else text[: _MAX_TEXT_VALUE * 10] + " …"


def _truths(value: Any, limit: int) -> list[bool] | None:
    """The first ``limit`` values of a long one-dimensional run of True/False (a row mask over
    more rows than an answer holds), as a list: still a mask to the answer's check, which
    sends it back to be reduced; None for anything else. A missing value of a nullable mask
    (``<NA>`` of pandas' ``boolean``) selects no row, as ``.sum()`` and ``.any()`` count it."""
    if isinstance(value, (pd.Series, np.ndarray)) and value.ndim == 1 and len(value) > limit \
            and pd.api.types.is_bool_dtype(value.dtype):
        return [False if pd.isna(v) else bool(v) for v in np.asarray(value, dtype=object)[:limit]]
    return None


def jsonable(value: Any, depth: int, picked: Callable[[pd.Series], bool] | None = None, limit: int = 0) -> Any:
    """``value`` as JSON data, or ``_SKIP``. ``picked``: whether a Series is rows picked from a
    frame's column (it comes back as its values); ``limit``: the most items a list, array,
    Series or dict may have (:data:`_SMALL` by default)."""
    small = limit or _SMALL
    if value is pd.NaT or value is pd.NA:
        return None
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return None if math.isnan(number) or math.isinf(number) else number
    if isinstance(value, Decimal):
        return jsonable(float(value), depth)
    if isinstance(value, str):
        return value if len(value) <= _MAX_TEXT_VALUE else _SKIP
    if isinstance(value, (pd.Timestamp, pd.Timedelta, np.datetime64, np.timedelta64)):
        return None if pd.isna(value) else str(value)
    if isinstance(value, (pd.Period, pd.Interval, datetime.date, datetime.time, datetime.timedelta)):
        return str(value)
    if depth > 0:
        return _SKIP
    if isinstance(value, (np.ndarray, pd.Index)) and getattr(value, "ndim", 1) == 1 and len(value) <= small:
        value = list(value)
    elif isinstance(value, (set, frozenset)) and len(value) <= small:
        value = sorted(value, key=str)
    if isinstance(value, pd.Series) and len(value) <= small and picked is not None and picked(value):
        value = list(value)         # rows picked from a column: the values are the result
    if isinstance(value, pd.Series) and len(value) <= small:
        items = {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    elif isinstance(value, dict) and len(value) <= small:
        items = {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    elif isinstance(value, (list, tuple)) and len(value) <= small:
        listed = [jsonable(v, depth + 1) for v in value]
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
