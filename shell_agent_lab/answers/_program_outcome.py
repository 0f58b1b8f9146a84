"""What a program run leaves for the answer, computed where the program ran: one line for an
error (with a hint for the slips small models make), the warnings it raised, and its top-level
values as plain JSON data.

Shared by the sandbox's program process and the approved in-kernel run: numpy, pandas and the
standard library only, and no relative import (the sandbox loads it without the package).
"""
from __future__ import annotations

import io
import json
import math
import re
import warnings
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["PROGRAM_FILENAME", "Capture", "describe", "program_line", "warning_lines", "small_values", "jsonable"]

#: the file name the program's code carries (the lines an error names are the program's own)
PROGRAM_FILENAME = "<program>"
_MAX_WARNINGS = 5
_MAX_COLUMNS_SHOWN = 40
_SMALL = 20
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
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"line {line}: " if line else ""


def describe(exc: BaseException, frames: Mapping[str, Any]) -> str:
    """One line for the model: where, what, and for a missing name the columns it could use."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    message = f"{program_line(exc.__traceback__)}{type(exc).__name__}"
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


def warning_lines(recorded: list[warnings.WarningMessage]) -> list[str]:
    lines: list[str] = []
    for item in recorded:
        line = f"{item.category.__name__}: {str(item.message).splitlines()[0][:200]}"
        if line not in lines:
            lines.append(line)
    return lines[:_MAX_WARNINGS]


def small_values(scope: Mapping[str, Any], given: set[str]) -> dict[str, Any]:
    """The program's top-level results worth handing to the answer: JSON-able scalars and
    small lists, dicts and Series (NaN becomes ``None``)."""
    kept: dict[str, Any] = {}
    for name, value in scope.items():
        if name.startswith("_") or name in given:
            continue
        small = jsonable(value, depth=0)
        if small is not _SKIP:
            kept[name] = small
    return kept


_SKIP = object()


def jsonable(value: Any, depth: int) -> Any:
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
        items = {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    elif isinstance(value, dict) and len(value) <= _SMALL:
        items = {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    elif isinstance(value, (list, tuple)) and len(value) <= _SMALL:
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
