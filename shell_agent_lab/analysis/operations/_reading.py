"""Reading one table's columns in SQL: operands, group keys, filters and measures (pure).

:class:`Reader` turns the pieces of an operation — a column, a derived column, a date part, bins,
a filter, a measure — into SQL over the columns as profiled (``num()`` for numbers written as
text, ``TRY_CAST``/``try_strptime`` for dates written as text), and keeps a note of each such
reading for the result's definitions. Literals are written by code, never pasted from text.
"""
from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import AnalysisError
from ._spec import DATE_PARTS, DERIVED, FILTER_OPS, MEASURES, NUMERIC_MEASURES, TIME_OF_DAY
from ._tables import ColumnInfo, TableColumns, quoted

__all__ = ["OperationError", "Reader", "Key", "Measure", "text_literal", "number_literal", "shown", "is_number"]


class OperationError(AnalysisError):
    """An operation that cannot be compiled or run as asked (one line for the model and user)."""


# -- literals ----------------------------------------------------------------------------------

def text_literal(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def number_literal(value: Any) -> str:
    number = float(value)
    if not math.isfinite(number):
        raise OperationError(f"{value!r} is not a finite number.")
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def shown(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _date_literal(value: str) -> str:
    text = value.strip()
    try:
        return f"DATE '{_dt.date.fromisoformat(text).isoformat()}'"
    except ValueError:
        pass
    try:
        return f"TIMESTAMP '{_dt.datetime.fromisoformat(text).isoformat(sep=' ')}'"
    except ValueError:
        raise OperationError(f"{value!r} is not a date; write dates as YYYY-MM-DD (or YYYY-MM-DD HH:MM), "
                             "a month as YYYY-MM, a year as YYYY.") from None


def _dates(column: ColumnInfo, values: list[Any]) -> tuple[str, list[str]]:
    """A date column and date values, compared at the values' own precision: a year (``2024``)
    with the year, a month (``2024-03``) with the month, a day or a time with the value."""
    texts = [shown(v).strip() for v in values]
    d = column.date_sql()
    if all(re.fullmatch(r"\d{4}", t) for t in texts):
        return f"year({d})", texts
    if all(re.fullmatch(r"\d{4}-\d{2}", t) for t in texts):
        return f"strftime({d}, '%Y-%m')", [text_literal(t) for t in texts]
    if any(is_number(v) for v in values):
        raise OperationError(f"{column.name!r} holds dates; compare it with dates (YYYY-MM-DD), a month "
                             "(YYYY-MM) or a year (YYYY).")
    return d, [_date_literal(t) for t in texts]


# -- reading one table -------------------------------------------------------------------------

@dataclass(frozen=True)
class Key:
    sql: str
    label: str
    sort: str
    note: str = ""


@dataclass(frozen=True)
class Measure:
    sql: str
    name: str
    note: str


class Reader:
    def __init__(self, table: TableColumns) -> None:
        self.table = table
        self.notes: list[tuple[str, str]] = []

    def column(self, name: Any, what: str = "column") -> ColumnInfo:
        found = self.table.column(name)
        if found is None:
            listing = ", ".join(self.table.names[:40])
            raise OperationError(f"{self.table.name} has no column {name!r} ({what}); its columns: {listing}.")
        reading = found.reading()
        if reading and (found.name, reading) not in self.notes:
            self.notes.append((found.name, reading))
        return found

    def number(self, operand: Any, what: str = "column") -> tuple[str, str]:
        """(SQL, label) of a numeric operand: a column read as numbers, or a derived column."""
        if isinstance(operand, dict) and "derived" in operand:
            kind = operand.get("derived")
            if kind not in DERIVED:
                raise OperationError(f"derived must be one of {', '.join(DERIVED)}, not {kind!r}.")
            (a, la), (b, lb) = self.number(operand.get("a"), "derived a"), self.number(operand.get("b"), "derived b")
            sign = {"sum": "+", "difference": "-", "ratio": "/", "product": "*"}[kind]
            sql = f"({a} / NULLIF({b}, 0))" if kind == "ratio" else f"({a} {sign} {b})"
            label = f"{la} {sign} {lb}"
            if kind == "ratio":
                self._note(label, f"{la} divided by {lb}; NULL where {lb} is 0")
            return sql, label
        column = self.column(operand, what)
        if not column.numeric:
            raise OperationError(f"{column.name!r} is {column.type}, not numbers; use a numeric column "
                                 f"({', '.join(self.table.numeric[:20]) or 'none'}).")
        return column.number_sql(), column.name

    def _note(self, name: str, text: str) -> None:
        if (name, text) not in self.notes:
            self.notes.append((name, text))

    def key(self, spec: Any) -> Key:
        """A group key: a column as it is, a date part, bins of a number, or a derived column."""
        if isinstance(spec, str):
            column = self.column(spec, "group_by")
            name = quoted(column.name)
            return Key(name, column.name, name)
        if not isinstance(spec, dict):
            raise OperationError(f"a group key is a column name or an object, not {spec!r}.")
        if "date_part" in spec:
            return self._date_part(spec)
        if "bins" in spec:
            return self._bins(spec)
        if "derived" in spec:
            sql, label = self.number(spec)
            return Key(sql, label, sql)
        raise OperationError("a group key object needs 'date_part', 'bins' or 'derived'.")

    def _date_part(self, spec: dict[str, Any]) -> Key:
        part = spec.get("date_part")
        if part not in DATE_PARTS:
            raise OperationError(f"date_part must be one of {', '.join(DATE_PARTS)}, not {part!r}.")
        column = self.column(spec.get("column"), "date_part column")
        if not column.date_like:
            raise OperationError(f"{column.name!r} holds no dates ({column.type}); date columns: "
                                 f"{', '.join(self.table.dates) or 'none'}.")
        if part in ("hour", "time_of_day") and not column.has_time:
            raise OperationError(f"{column.name!r} holds dates without a time of day; {part} needs a timestamp.")
        d = column.date_sql()
        label = f"{part}({column.name})"
        simple = {"year": (f"year({d})", "calendar year"), "quarter": (f"quarter({d})", "quarter of the year, 1-4"),
                  "month": (f"month({d})", "month of the year, 1-12 (all years together)"),
                  "year_month": (f"strftime({d}, '%Y-%m')", "calendar month, YYYY-MM"),
                  "date": (f"CAST({d} AS DATE)", "calendar day"),
                  "hour": (f"hour({d})", "hour of the day, 0-23")}
        if part in simple:
            sql, note = simple[part]
            self._note(label, note)
            return Key(sql, label, sql)
        if part == "weekday":
            self._note(label, "day of the week by name, ordered Monday to Sunday")
            return Key(f"dayname({d})", label, f"isodow({d})")
        cases = " ".join(f"WHEN hour({d}) < {end} THEN '{name}'" for name, _, end in TIME_OF_DAY)
        order = " ".join(f"WHEN hour({d}) < {end} THEN {i}" for i, (_, _, end) in enumerate(TIME_OF_DAY))
        bounds = ", ".join(f"{name} {start:02d}:00-{end:02d}:00" for name, start, end in TIME_OF_DAY)
        self._note(label, f"time of day by hour, each from its first hour up to (not including) its last: {bounds}")
        return Key(f"CASE WHEN {d} IS NULL THEN NULL {cases} END", label, f"CASE {order} END")

    def _bins(self, spec: dict[str, Any]) -> Key:
        edges = spec.get("bins")
        if not isinstance(edges, list) or len(edges) < 2 or not all(is_number(e) for e in edges):
            raise OperationError("bins needs at least two edges, as numbers (e.g. [0, 10, 20]).")
        if any(b <= a for a, b in zip(edges, edges[1:])):
            raise OperationError("bin edges must increase (e.g. [0, 10, 20]).")
        x, label = self.number(spec.get("column"), "bins column")
        names = [f"[{shown(a)}, {shown(b)})" for a, b in zip(edges, edges[1:])]
        cases = " ".join(f"WHEN {x} >= {number_literal(a)} AND {x} < {number_literal(b)} THEN {text_literal(n)}"
                         for (a, b), n in zip(zip(edges, edges[1:]), names))
        order = " ".join(f"WHEN {x} >= {number_literal(a)} AND {x} < {number_literal(b)} THEN {i}"
                         for i, (a, b) in enumerate(zip(edges, edges[1:])))
        name = f"bins({label})"
        self._note(name, f"bins [low, high): low included, high not; values outside {shown(edges[0])} to "
                         f"{shown(edges[-1])} (and missing values) are NULL")
        return Key(f"CASE {cases} END", name, f"CASE {order} END")

    def filter(self, spec: Any) -> tuple[str, str]:
        """(SQL condition, how it reads) of one filter."""
        if not isinstance(spec, dict):
            raise OperationError(f"a filter is {{column, op, value}}, not {spec!r}.")
        column = self.column(spec.get("column"), "filter")
        op, value = spec.get("op"), spec.get("value")
        if op not in FILTER_OPS:
            raise OperationError(f"filter op must be one of {', '.join(FILTER_OPS)}, not {op!r}.")
        if op in ("is_null", "not_null"):
            return f"{column.value_sql()} IS {'NOT ' if op == 'not_null' else ''}NULL", f"{column.name} {op}"
        values = value if isinstance(value, list) else [value]
        if not values or any(v is None for v in values):
            raise OperationError(f"the filter on {column.name!r} with {op} needs a value.")
        if op == "between" and len(values) != 2:
            raise OperationError("between needs [low, high].")
        if op not in ("in", "not_in", "between") and len(values) != 1:
            raise OperationError(f"{op} takes one value; use in for a list.")
        shown = f"{column.name} {op} {value!r}"
        if op == "contains":
            return (f"contains(lower(CAST({quoted(column.name)} AS VARCHAR)), lower({text_literal(values[0])}))",
                    shown + " (case-insensitive)")
        expr, literals = self._comparable(column, values)
        if op in ("in", "not_in"):
            return f"{expr} {'NOT ' if op == 'not_in' else ''}IN ({', '.join(literals)})", shown
        if op == "between":
            return f"{expr} BETWEEN {literals[0]} AND {literals[1]}", shown + " (both ends included)"
        sign = "<>" if op == "!=" else op
        return f"{expr} {sign} {literals[0]}", shown

    def _comparable(self, column: ColumnInfo, values: list[Any]) -> tuple[str, list[str]]:
        """The column's SQL and the values' literals, read alike (numbers, dates or text)."""
        if all(isinstance(v, bool) for v in values):
            return quoted(column.name), ["TRUE" if v else "FALSE" for v in values]
        if all(is_number(v) for v in values) and column.numeric:
            return column.number_sql(), [number_literal(v) for v in values]
        if column.date_like:
            return _dates(column, values)
        if column.numeric:
            try:
                return column.number_sql(), [number_literal(str(v).replace(",", "").strip()) for v in values]
            except ValueError:
                if column.number_type:
                    raise OperationError(f"{column.name!r} holds numbers; {values!r} are not numbers.") from None
        name = quoted(column.name)
        expr = name if column.is_text else f"CAST({name} AS VARCHAR)"
        return expr, [text_literal(shown(v)) for v in values]

    def measure(self, spec: Any) -> Measure:
        if not isinstance(spec, dict):
            raise OperationError(f"a measure is {{fn, column}}, not {spec!r}.")
        fn = spec.get("fn")
        if fn not in MEASURES:
            raise OperationError(f"fn must be one of {', '.join(MEASURES)}, not {fn!r}.")
        target = spec.get("column")
        if fn == "count" and target in (None, "", "*"):
            return Measure("count(*)", "count", "rows")
        if target is None:
            raise OperationError(f"the {fn} measure needs a column.")
        if fn in NUMERIC_MEASURES:
            x, label = self.number(target, f"{fn} column")
            if fn in ("std", "var"):
                ddof = spec.get("ddof", 1)
                if ddof not in (0, 1):
                    raise OperationError("ddof is 0 (population) or 1 (sample).")
                kind = "sample" if ddof == 1 else "population"
                base = "standard deviation" if fn == "std" else "variance"
                like = {("std", 1): "like pandas .std()", ("std", 0): "like numpy.std()",
                        ("var", 1): "like pandas .var()", ("var", 0): "like numpy.var()"}[(fn, ddof)]
                sqlfn = {"std": "stddev", "var": "var"}[fn] + ("_samp" if ddof == 1 else "_pop")
                return Measure(f"{sqlfn}({x})", f"{fn}_{kind}({label})",
                                f"{kind} {base} of {label}, ddof={ddof} ({like}); missing values skipped")
            sqlfn = {"sum": "sum", "mean": "avg", "median": "median"}[fn]
            note = {"sum": f"sum of {label}", "mean": f"arithmetic mean of {label}",
                    "median": f"median of {label}, the mean of the two middle values when they are even "
                              "(like pandas .median())"}[fn]
            return Measure(f"{sqlfn}({x})", f"{fn}({label})", note + "; missing values skipped")
        if isinstance(target, dict):
            x, label = self.number(target, f"{fn} column")
        else:
            column = self.column(target, f"{fn} column")
            x, label = column.value_sql(), column.name
        if fn == "count":
            return Measure(f"count({x})", f"count({label})", f"rows where {label} has a value")
        if fn == "count_distinct":
            return Measure(f"count(DISTINCT {x})", f"count_distinct({label})",
                            f"distinct values of {label}, missing not counted")
        return Measure(f"{fn}({x})", f"{fn}({label})", f"{'smallest' if fn == 'min' else 'largest'} value of {label}")

    def where(self, args: Mapping[str, Any], *extra: str) -> tuple[str, list[str]]:
        """`` WHERE …`` for the filters and ``extra`` conditions ("" without any), and how the
        filters read."""
        specs = args.get("filters") or []
        if not isinstance(specs, list):
            raise OperationError("filters is a list of {column, op, value}.")
        pairs = [self.filter(f) for f in specs]
        conditions = [c for c, _ in pairs] + [e for e in extra if e]
        return (" WHERE " + " AND ".join(f"({c})" if " OR " in c else c for c in conditions)
                if conditions else ""), [t for _, t in pairs]
