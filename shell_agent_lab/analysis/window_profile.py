"""A short computed profile of one window of rows, sent to the model after the rows.

A model reading a window should notice the one negative amount among a hundred rows, the
missing customer, the order listed twice, the date years after the others. Small local models
miss such things in a long JSON array (they answer with an empty list), so each window also
carries a few computed lines: one per column (range, typical span, value counts, missing), then
the rows that stand out — values far outside the rest (beyond 3 interquartile ranges of the
quartiles), negatives among positives, missing values, identical rows, a repeated id, a rare
category, an unbroken run of a rare category. The model still decides what is a finding, how
severe it is and how to word it, and may report anything else it sees in the rows.

Pure: values are what the engine returns for a window (numbers, dates, text, ``None``).
"""
from __future__ import annotations

import datetime as _dt
import decimal
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .charts import json_value

__all__ = ["window_profile", "MAX_POINTERS"]

MAX_POINTERS = 15     # "rows that stand out" lines per window
_MAX_TEXT = 40
_MAX_ROW_TEXT = 160
_MAX_COUNTS = 8       # a text column with at most this many distinct values lists its counts
_FEW_MISSING = 5      # more missing values than this in a column: counted, not listed by row
_FENCE = 3.0          # interquartile ranges beyond the quartiles that count as "far from the rest"
_MIN_FOR_SPREAD = 8   # fewer values than this: no typical span, outliers or rare values
_MIN_RUN = 3
_ID_NAME = re.compile(r"(?:^|[_\s])(?:id|key|code|number|no)$|[a-z]Id$|^id", re.I)


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and not math.isfinite(value):
        return True
    return isinstance(value, str) and not value.strip()


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, decimal.Decimal) and value.is_finite():
        return float(value)
    return None


def _moment(value: Any) -> float | None:
    """Dates and timestamps as days, so they rank and fence like numbers; None for anything else."""
    if isinstance(value, _dt.datetime):
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        return value.replace(tzinfo=None).toordinal() + seconds / 86400
    if isinstance(value, _dt.date):
        return float(value.toordinal())
    if isinstance(value, str) and 10 <= len(value) <= 32 and value[4:5] == "-" and value[7:8] == "-":
        try:
            if len(value) == 10:
                return _moment(_dt.date.fromisoformat(value))
            return _moment(_dt.datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def _show(value: Any) -> str:
    value = json_value(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        text = f"{value:.1f}"
    elif isinstance(value, float):
        text = f"{value:.6g}" if abs(value) >= 1e6 or abs(value) < 1e-3 else f"{round(value, 4):g}"
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "…"


def _stat(value: float) -> str:
    return f"{round(value, 2):g}"


def _day(moment: float) -> str:
    return _dt.date.fromordinal(int(moment)).isoformat()


def _quantile(ordered: Sequence[float], q: float) -> float:
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class _Notes:
    """Collects what stands out, per row, and names rows by their ``_row`` number (plus their id)."""

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], first_row: int) -> None:
        self.first_row = first_row
        self.key: str | None = None
        self.keys: list[Any] = []
        if len(columns) > 1 and rows:
            keys = [row[0] if row else None for row in rows]
            present = [_show(k) for k in keys if not _missing(k)]
            if present and len(set(present)) >= 0.9 * len(rows):
                self.key, self.keys = str(columns[0]), keys
        self.by_row: dict[int, list[str]] = {}
        self.groups: list[tuple[int, str]] = []   # (first row, line) for notes about several rows

    def name(self, index: int) -> str:
        label = f"row {self.first_row + index + 1}"
        if self.key is not None and not _missing(self.keys[index]):
            label += f" ({self.key} {_show(self.keys[index])})"
        return label

    def row(self, index: int, note: str) -> None:
        self.by_row.setdefault(index, []).append(note)

    def group(self, indices: Sequence[int], note: str) -> None:
        if len(indices) >= _MIN_RUN and indices[-1] - indices[0] == len(indices) - 1:
            where = f"rows {self.first_row + indices[0] + 1}-{self.first_row + indices[-1] + 1}"
        else:
            where = " and ".join(self.name(i) for i in indices[:4]) + (
                f" and {len(indices) - 4} more" if len(indices) > 4 else "")
        self.groups.append((indices[0], f"{where}: {note}"))

    def lines(self) -> list[str]:
        items = [(i, f"{self.name(i)}: " + "; ".join(notes)) for i, notes in self.by_row.items()] + self.groups
        items.sort(key=lambda t: t[0])
        shown = [f"- {text}" for _, text in items[:MAX_POINTERS]]
        if len(items) > MAX_POINTERS:
            shown.append(f"- … and {len(items) - MAX_POINTERS} more")
        return shown


def _spread(name: str, values: list[tuple[int, Any]], keyed: list[tuple[int, float]], notes: _Notes,
            *, numeric: bool) -> list[str]:
    raw = dict(values)
    low_i = min(keyed, key=lambda t: t[1])[0]
    high_i = max(keyed, key=lambda t: t[1])[0]
    parts = [f"{_show(raw[low_i])} to {_show(raw[high_i])}"]
    if len(keyed) < _MIN_FOR_SPREAD:
        return parts
    ordered = sorted(v for _, v in keyed)
    q1, q3 = _quantile(ordered, 0.25), _quantile(ordered, 0.75)
    p10, p90 = _quantile(ordered, 0.1), _quantile(ordered, 0.9)
    if numeric:
        typical = f"typical {_stat(p10)} to {_stat(p90)}"
        parts.append(f"{typical}, median {_stat(statistics.median(ordered))}")
    else:
        typical = f"typical {_day(p10)} to {_day(p90)}"
        parts.append(typical)
    iqr = q3 - q1
    if iqr > 0:
        above = {i for i, v in keyed if v > q3 + _FENCE * iqr}
        below = {i for i, v in keyed if v < q1 - _FENCE * iqr}
    else:  # nearly constant: only the rare values that differ
        odd = [(i, v) for i, v in keyed if v != q1]
        rare = len(odd) <= max(1, len(keyed) // 20)
        above = {i for i, v in odd if v > q1} if rare else set()
        below = {i for i, v in odd if v < q1} if rare else set()
    high, low = ("far above", "far below") if numeric else ("far later than", "far earlier than")
    for i in sorted(above):
        notes.row(i, f"{name} {_show(raw[i])} is {high} the {typical}")
    for i in sorted(below):
        notes.row(i, f"{name} {_show(raw[i])} is {low} the {typical}")
    if numeric:
        negative = [i for i, v in keyed if v < 0 and i not in below]
        if negative and len([v for _, v in keyed if v < 0]) <= len(keyed) // 4:
            for i in negative:
                notes.row(i, f"{name} {_show(raw[i])} is negative ({typical})")
    return parts


def _categories(name: str, values: list[tuple[int, Any]], notes: _Notes) -> list[str]:
    counts = Counter(_show(v) for _, v in values)
    if len(counts) > _MAX_COUNTS:
        return [f"{len(counts)} distinct values"]
    if len(values) >= _MIN_FOR_SPREAD:
        for text, n in counts.items():
            where = [i for i, v in values if _show(v) == text]
            unbroken = where[-1] - where[0] == len(where) - 1
            if n >= _MIN_RUN and unbroken and n <= len(values) // 4:
                notes.group(where, f"{name} is {text} in every row of this run ({n} rows) and nowhere else")
            elif n <= max(1, len(values) // 20):
                for i in where:
                    notes.row(i, f"{name} {text} is rare ({n} of {len(values)})")
    return [", ".join(f"{text} {n}" for text, n in counts.most_common())]


def _repeats(name: str, values: list[tuple[int, Any]], notes: _Notes, twins: set[int]) -> None:
    """Ids seen more than once (rows that are identical in full are reported as such)."""
    shown = [(i, _show(v)) for i, v in values]
    counts = Counter(s for _, s in shown)
    if len(values) < 2 or len(counts) < 0.9 * len(values):
        return
    for text, n in counts.items():
        where = [i for i, s in shown if s == text]
        if n > 1 and not set(where) <= twins:
            notes.group(where, f"{name} {text} appears {n} times")


def _column(name: str, index: int, table: Sequence[Sequence[Any]], notes: _Notes, twins: set[int]) -> str:
    cells = [(i, row[index] if index < len(row) else None) for i, row in enumerate(table)]
    missing = [i for i, v in cells if _missing(v)]
    values = [(i, v) for i, v in cells if not _missing(v)]
    numbers = [(i, n) for i, v in values if (n := _number(v)) is not None]
    moments = [(i, m) for i, v in values if (m := _moment(v)) is not None]
    if values and len(numbers) == len(values):
        kind, parts = "number", _spread(name, values, numbers, notes, numeric=True)
    elif values and len(moments) == len(values):
        kind, parts = "date", _spread(name, values, moments, notes, numeric=False)
    elif values:
        kind, parts = "text", _categories(name, values, notes)
    else:
        kind, parts = "empty", []
    if missing and values:
        parts.append(f"{len(missing)} missing")
        if len(missing) <= _FEW_MISSING:
            for i in missing:
                notes.row(i, f"{name} is missing")
    if values and kind != "date" and ((index == 0 and notes.key is not None) or _ID_NAME.search(name)):
        _repeats(name, values, notes, twins)
    return f"- {name} ({kind}): " + ", ".join(parts)


def window_profile(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, first_row: int = 0) -> str:
    """Column lines, then "rows that stand out", for ``rows`` (one window; rows numbered from
    ``first_row + 1`` as ``_row``). Empty for no rows."""
    if not rows or not columns:
        return ""
    notes = _Notes(columns, rows, first_row)
    seen: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        seen.setdefault(json.dumps([json_value(v) for v in row], default=str), []).append(i)
    twins: set[int] = set()
    for group in seen.values():
        if len(group) > 1:
            values = ", ".join(_show(v) for v in rows[group[0]])
            values = values if len(values) <= _MAX_ROW_TEXT else values[:_MAX_ROW_TEXT] + "…"
            for i in group[1:]:
                notes.row(i, f"identical to {notes.name(group[0])}: {values}")
            twins.update(group)
    lines = ["Columns:"] + [_column(str(c), j, rows, notes, twins) for j, c in enumerate(columns)]
    standing_out = notes.lines()
    lines += ["Rows that stand out:"] + (standing_out or ["- none"])
    return "\n".join(lines)
