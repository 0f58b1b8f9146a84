"""One operation's arguments compiled to DuckDB SQL, or to the SQL that reads a SciPy call's
inputs (pure: works from :class:`.TableColumns`, never touches a database).

Columns are read as they are profiled: numbers written as text through ``num()``, dates
written as text through ``TRY_CAST`` or ``try_strptime`` with the profiled format. Every
statistic a compiled operation yields is named for what it is (``std_sample(amount)``,
``q25(amount)``) and carries a definition (``ddof=1``, which quantile method), which the
result prints beside it.
"""
from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import AnalysisError
from ._spec import (CORRELATIONS, DATE_PARTS, DERIVED, FILTER_OPS, MEASURES, NUMERIC_MEASURES, OPS, SCIPY_OPS, TESTS,
                    TIME_OF_DAY)
from ._tables import ColumnInfo, TableColumns, quoted

__all__ = ["Compiled", "OperationError", "compile_operation", "MISSING_MARKERS"]

#: how a missing value is written in a text column (compared trimmed, lower-case)
MISSING_MARKERS = ("", "na", "n/a", "nan", "null", "none", "-", "--", "?", "missing", "#n/a")
_MAX_LISTED = 1000
_MAX_STRONGEST = 40


class OperationError(AnalysisError):
    """An operation that cannot be compiled or run as asked (one line for the model and user)."""


@dataclass(frozen=True)
class Compiled:
    """An operation ready to run: ``sql`` computes the result (kind ``sql``) or reads the rows
    ``function`` (kind ``scipy``) computes on."""

    op: str
    table: str
    kind: str
    sql: str
    #: what the operation computes, in one line
    title: str
    #: the SciPy call for kind ``scipy``, e.g. ``scipy.stats.ttest_ind(a, b, equal_var=False)``
    function: str = ""
    #: statistic name -> its definition
    definitions: tuple[tuple[str, str], ...] = ()
    #: result columns that name a row (group keys) rather than a statistic
    labels: tuple[str, ...] = ()
    #: what the SciPy step needs (test, method, names, levels …)
    params: Mapping[str, Any] = field(default_factory=dict)
    #: the arguments compiled (the rerun cell passes them again)
    args: Mapping[str, Any] = field(default_factory=dict)

    @property
    def cell(self) -> str:
        """The notebook cell that computes the same result: the statement as a ``%%agent_sql``
        cell, or a SciPy operation run again through ``rerun('operation', args)``."""
        if self.kind == "sql":
            return f"%%agent_sql\n{self.sql}"
        return ("from shell_agent_lab.notebook.cells import rerun\n"
                f"rerun('operation', {_python_literal(dict(self.args))})")


def _python_literal(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_python_literal(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_python_literal(v) for v in value) + "]"
    return repr(value)


# -- literals ----------------------------------------------------------------------------------

def _text(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _number(value: Any) -> str:
    number = float(value)
    if not math.isfinite(number):
        raise OperationError(f"{value!r} is not a finite number.")
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def _shown(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _is_number(value: Any) -> bool:
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
    texts = [_shown(v).strip() for v in values]
    d = column.date_sql()
    if all(re.fullmatch(r"\d{4}", t) for t in texts):
        return f"year({d})", texts
    if all(re.fullmatch(r"\d{4}-\d{2}", t) for t in texts):
        return f"strftime({d}, '%Y-%m')", [_text(t) for t in texts]
    if any(_is_number(v) for v in values):
        raise OperationError(f"{column.name!r} holds dates; compare it with dates (YYYY-MM-DD), a month "
                             "(YYYY-MM) or a year (YYYY).")
    return d, [_date_literal(t) for t in texts]


# -- reading one table -------------------------------------------------------------------------

@dataclass(frozen=True)
class _Key:
    sql: str
    label: str
    sort: str
    note: str = ""


@dataclass(frozen=True)
class _Measure:
    sql: str
    name: str
    note: str


class _Reader:
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

    def key(self, spec: Any) -> _Key:
        """A group key: a column as it is, a date part, bins of a number, or a derived column."""
        if isinstance(spec, str):
            column = self.column(spec, "group_by")
            name = quoted(column.name)
            return _Key(name, column.name, name)
        if not isinstance(spec, dict):
            raise OperationError(f"a group key is a column name or an object, not {spec!r}.")
        if "date_part" in spec:
            return self._date_part(spec)
        if "bins" in spec:
            return self._bins(spec)
        if "derived" in spec:
            sql, label = self.number(spec)
            return _Key(sql, label, sql)
        raise OperationError("a group key object needs 'date_part', 'bins' or 'derived'.")

    def _date_part(self, spec: dict[str, Any]) -> _Key:
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
            return _Key(sql, label, sql)
        if part == "weekday":
            self._note(label, "day of the week by name, ordered Monday to Sunday")
            return _Key(f"dayname({d})", label, f"isodow({d})")
        cases = " ".join(f"WHEN hour({d}) < {end} THEN '{name}'" for name, _, end in TIME_OF_DAY)
        order = " ".join(f"WHEN hour({d}) < {end} THEN {i}" for i, (_, _, end) in enumerate(TIME_OF_DAY))
        bounds = ", ".join(f"{name} {start:02d}:00-{end:02d}:00" for name, start, end in TIME_OF_DAY)
        self._note(label, f"time of day by hour, each from its first hour up to (not including) its last: {bounds}")
        return _Key(f"CASE WHEN {d} IS NULL THEN NULL {cases} END", label, f"CASE {order} END")

    def _bins(self, spec: dict[str, Any]) -> _Key:
        edges = spec.get("bins")
        if not isinstance(edges, list) or len(edges) < 2 or not all(_is_number(e) for e in edges):
            raise OperationError("bins needs at least two edges, as numbers (e.g. [0, 10, 20]).")
        if any(b <= a for a, b in zip(edges, edges[1:])):
            raise OperationError("bin edges must increase (e.g. [0, 10, 20]).")
        x, label = self.number(spec.get("column"), "bins column")
        names = [f"[{_shown(a)}, {_shown(b)})" for a, b in zip(edges, edges[1:])]
        cases = " ".join(f"WHEN {x} >= {_number(a)} AND {x} < {_number(b)} THEN {_text(n)}"
                         for (a, b), n in zip(zip(edges, edges[1:]), names))
        order = " ".join(f"WHEN {x} >= {_number(a)} AND {x} < {_number(b)} THEN {i}"
                         for i, (a, b) in enumerate(zip(edges, edges[1:])))
        name = f"bins({label})"
        self._note(name, f"bins [low, high): low included, high not; values outside {_shown(edges[0])} to "
                         f"{_shown(edges[-1])} (and missing values) are NULL")
        return _Key(f"CASE {cases} END", name, f"CASE {order} END")

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
            return (f"contains(lower(CAST({quoted(column.name)} AS VARCHAR)), lower({_text(values[0])}))",
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
        if all(_is_number(v) for v in values) and column.numeric:
            return column.number_sql(), [_number(v) for v in values]
        if column.date_like:
            return _dates(column, values)
        if column.numeric:
            try:
                return column.number_sql(), [_number(str(v).replace(",", "").strip()) for v in values]
            except ValueError:
                if column.number_type:
                    raise OperationError(f"{column.name!r} holds numbers; {values!r} are not numbers.") from None
        name = quoted(column.name)
        expr = name if column.is_text else f"CAST({name} AS VARCHAR)"
        return expr, [_text(_shown(v)) for v in values]

    def measure(self, spec: Any) -> _Measure:
        if not isinstance(spec, dict):
            raise OperationError(f"a measure is {{fn, column}}, not {spec!r}.")
        fn = spec.get("fn")
        if fn not in MEASURES:
            raise OperationError(f"fn must be one of {', '.join(MEASURES)}, not {fn!r}.")
        target = spec.get("column")
        if fn == "count" and target in (None, "", "*"):
            return _Measure("count(*)", "count", "rows")
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
                return _Measure(f"{sqlfn}({x})", f"{fn}_{kind}({label})",
                                f"{kind} {base} of {label}, ddof={ddof} ({like}); missing values skipped")
            sqlfn = {"sum": "sum", "mean": "avg", "median": "median"}[fn]
            note = {"sum": f"sum of {label}", "mean": f"arithmetic mean of {label}",
                    "median": f"median of {label}, the mean of the two middle values when they are even "
                              "(like pandas .median())"}[fn]
            return _Measure(f"{sqlfn}({x})", f"{fn}({label})", note + "; missing values skipped")
        if isinstance(target, dict):
            x, label = self.number(target, f"{fn} column")
        else:
            column = self.column(target, f"{fn} column")
            x, label = column.value_sql(), column.name
        if fn == "count":
            return _Measure(f"count({x})", f"count({label})", f"rows where {label} has a value")
        if fn == "count_distinct":
            return _Measure(f"count(DISTINCT {x})", f"count_distinct({label})",
                            f"distinct values of {label}, missing not counted")
        return _Measure(f"{fn}({x})", f"{fn}({label})", f"{'smallest' if fn == 'min' else 'largest'} value of {label}")

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


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        count = seen.get(name.lower(), 0)
        seen[name.lower()] = count + 1
        out.append(name if not count else f"{name}_{count + 1}")
    return out


def _limit(args: Mapping[str, Any], default: int | None) -> int | None:
    value = args.get("limit", default)
    if value is None:
        return None
    if not _is_number(value) or int(value) < 1:
        raise OperationError("limit is a whole number from 1.")
    return min(int(value), 10000)


def _cutoff(args: Mapping[str, Any], key: str, default: float) -> float:
    value: Any = args.get(key)
    if value is None:
        return default
    if not _is_number(value) or value < 0:
        raise OperationError(f"{key} is a number from 0 (default {_shown(default)}).")
    return float(value)


def _filtered(title: str, filters: list[str]) -> str:
    return title + (f" where {' and '.join(filters)}" if filters else "")


# -- the operation kinds -----------------------------------------------------------------------

def _aggregate(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    table = quoted(r.table.name)
    keys = [r.key(k) for k in (args.get("group_by") or [])]
    if len(keys) > 3:
        raise OperationError("group_by takes at most 3 keys.")
    distinct = bool(args.get("distinct"))
    if distinct and not keys:
        raise OperationError("distinct lists the values of group_by; name at least one group_by column.")
    specs = [] if distinct else (args.get("measures") or [{"fn": "count"}])
    measures = [r.measure(m) for m in specs]
    names = _unique([k.label for k in keys] + [m.name for m in measures])
    key_names, measure_names = names[:len(keys)], names[len(keys):]
    where, filters = r.where(args)
    items = [f"{k.sql} AS {quoted(n)}" for k, n in zip(keys, key_names)]
    items += [f"{m.sql} AS {quoted(n)}" for m, n in zip(measures, measure_names)]
    sql = f"SELECT {', '.join(items)} FROM {table}{where}"
    order_by: list[str] = []
    if keys:
        sql += " GROUP BY " + ", ".join(str(i + 1) for i in range(len(keys)))
        order = args.get("order")
        if order in ("asc", "desc") and measures:
            order_by.append(f"{quoted(measure_names[0])} {order.upper()} NULLS LAST")
        elif order not in (None, "asc", "desc"):
            raise OperationError("order is 'desc' or 'asc' (by the first measure).")
        order_by += [f"min({k.sort}) NULLS LAST" for k in keys]
        sql += " ORDER BY " + ", ".join(order_by)
    limit = _limit(args, None)
    if limit is not None and keys:
        sql += f" LIMIT {limit}"
    what = ", ".join(measure_names) if measures else "distinct values"
    title = _filtered(f"aggregate {what} of {r.table.name}" + (f" by {', '.join(key_names)}" if keys else ""), filters)
    if order_by and args.get("order") in ("asc", "desc") and measures:
        title += f", ordered by {measure_names[0]} {args['order']}"
    if limit is not None and keys:
        title += f", first {limit}"
    defs = tuple((n, m.note) for n, m in zip(measure_names, measures)) + tuple(r.notes)
    return Compiled("aggregate", r.table.name, "sql", sql, title, definitions=defs, labels=tuple(key_names))


def _quantiles(args: Mapping[str, Any]) -> list[float]:
    values = args.get("quantiles") or [0.25, 0.5, 0.75]
    if not isinstance(values, list) or not all(_is_number(q) and 0 <= q <= 1 for q in values):
        raise OperationError("quantiles are numbers from 0 to 1 (e.g. [0.25, 0.5, 0.75]).")
    return list(dict.fromkeys(float(q) for q in values))[:9]


def _distribution(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    x, label = r.number(args.get("column"))
    key = r.key(args["group_by"]) if args.get("group_by") is not None else None
    where, filters = r.where(args)
    stats = [("n", f"count({x})", f"values of {label} present (missing skipped everywhere below)"),
             ("mean", f"avg({x})", "arithmetic mean"),
             ("median", f"median({x})", "middle value, the mean of the two middle values when they are even"),
             ("std_sample", f"stddev_samp({x})", "ddof=1, sample standard deviation (like pandas .std())"),
             ("std_population", f"stddev_pop({x})", "ddof=0, population standard deviation (like numpy.std())"),
             ("var_sample", f"var_samp({x})", "ddof=1"), ("var_population", f"var_pop({x})", "ddof=0"),
             ("skewness", f"skewness({x})", "sample skewness, bias-corrected (like pandas .skew())"),
             ("kurtosis", f"kurtosis({x})", "excess kurtosis, bias-corrected (like pandas .kurt())"),
             ("min", f"min({x})", ""), ("max", f"max({x})", "")]
    for q in _quantiles(args):
        stats.append((f"q{q * 100:g}", f"quantile_cont({x}, {q!r})",
                      f"{q * 100:g}th percentile, linear interpolation (like pandas .quantile({q!r}))"))
    items = ([f"{key.sql} AS {quoted(key.label)}"] if key else []) + [f"{s} AS {quoted(n)}" for n, s, _ in stats]
    sql = f"SELECT {', '.join(items)} FROM {quoted(r.table.name)}{where}"
    if key:
        sql += f" GROUP BY 1 ORDER BY min({key.sort}) NULLS LAST"
    title = _filtered(f"distribution of {label} in {r.table.name}" + (f" by {key.label}" if key else ""), filters)
    defs = tuple((n, d) for n, _, d in stats if d) + tuple(r.notes)
    return Compiled("distribution", r.table.name, "sql", sql, title, definitions=defs,
                    labels=(key.label,) if key else ())


def _outliers(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    x, label = r.number(args.get("column"))
    method = args.get("method") or "zscore"
    output = args.get("output") or "count"
    if method not in ("zscore", "iqr") or output not in ("count", "list"):
        raise OperationError("outliers: method is zscore or iqr; output is count or list.")
    where, filters = r.where(args, f"{x} IS NOT NULL")
    table = quoted(r.table.name)
    if method == "zscore":
        cut = _cutoff(args, "threshold", 3.0)
        ddof = args.get("ddof", 0)
        if ddof not in (0, 1):
            raise OperationError("ddof is 0 (population, like scipy.stats.zscore) or 1 (sample).")
        std = "stddev_pop" if ddof == 0 else "stddev_samp"
        stats = f"SELECT avg({x}) AS _op_mean, {std}({x}) AS _op_std, count(*) AS _op_n FROM {table}{where}"
        outside = f"abs({x} - _op_mean) > {_number(cut)} * _op_std"
        rule = (f"|z| > {_shown(cut)}, z = ({label} - mean) / std with std ddof={ddof}"
                + (" (like scipy.stats.zscore)" if ddof == 0 else " (sample std)"))
        extra = [("mean", "_op_mean"), (f"std_{'population' if ddof == 0 else 'sample'}", "_op_std"), ("n", "_op_n")]
        score = f"({x} - _op_mean) / _op_std"
        score_name = "z_score"
    else:
        k = _cutoff(args, "k", 1.5)
        stats = (f"SELECT quantile_cont({x}, 0.25) AS _op_q1, quantile_cont({x}, 0.75) AS _op_q3, count(*) AS _op_n "
                 f"FROM {table}{where}")
        low, high = f"_op_q1 - {_number(k)} * (_op_q3 - _op_q1)", f"_op_q3 + {_number(k)} * (_op_q3 - _op_q1)"
        outside = f"({x} < {low} OR {x} > {high})"
        rule = (f"below q1 - {_shown(k)}*IQR or above q3 + {_shown(k)}*IQR; q1, q3: 25th and 75th percentiles, "
                "linear interpolation (like numpy.percentile)")
        extra = [("q1", "_op_q1"), ("q3", "_op_q3"), ("iqr", "_op_q3 - _op_q1"), ("lower_fence", low),
                 ("upper_fence", high), ("n", "_op_n")]
        score = f"{x}"
        score_name = "value"
    if output == "count":
        parts = [f"count(*) FILTER (WHERE {outside}) AS outliers"]
        if method == "iqr":
            parts += [f"count(*) FILTER (WHERE {x} < {low}) AS below", f"count(*) FILTER (WHERE {x} > {high}) AS above"]
        parts += [f"any_value({e}) AS {n}" for n, e in extra]
        sql = f"WITH _op_stats AS ({stats}) SELECT {', '.join(parts)} FROM {table}, _op_stats{where}"
        labels: tuple[str, ...] = ()
    else:
        limit = _limit(args, 100)
        cond = where + (" AND " if where else " WHERE ") + outside
        order = f"abs({score}) DESC" if method == "zscore" else f"abs({x} - (_op_q1 + _op_q3) / 2) DESC"
        sql = (f"WITH _op_stats AS ({stats}) SELECT {table}.*, {score} AS {score_name} FROM {table}, _op_stats"
               f"{cond} ORDER BY {order} LIMIT {limit}")
        labels = tuple(r.table.names)
    title = _filtered(f"outliers of {label} in {r.table.name} by {method}", filters)
    defs = (("outliers", rule),) + tuple(r.notes)
    return Compiled("outliers", r.table.name, "sql", sql, title, definitions=defs, labels=labels,
                    params={"output": output})


def _regression(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    (x, lx), (y, ly) = r.number(args.get("x"), "x"), r.number(args.get("y"), "y")
    where, filters = r.where(args)
    sql = (f"SELECT regr_slope({y}, {x}) AS slope, regr_intercept({y}, {x}) AS intercept, "
           f"regr_r2({y}, {x}) AS r_squared, corr({y}, {x}) AS r, regr_count({y}, {x}) AS n "
           f"FROM {quoted(r.table.name)}{where}")
    defs = (("slope", f"least-squares line {ly} = slope * {lx} + intercept (like scipy.stats.linregress)"),
            ("r_squared", "share of the variance of y the line explains"), ("r", "Pearson correlation"),
            ("n", f"rows with both {lx} and {ly}")) + tuple(r.notes)
    return Compiled("regression", r.table.name, "sql", sql, _filtered(f"linear regression of {ly} on {lx}", filters),
                    definitions=defs)


def _missing(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    names = args.get("columns") or r.table.names
    columns = [r.column(n) for n in names]
    markers = args.get("markers", True) is not False
    where, filters = r.where(args)
    table = quoted(r.table.name)
    listed = ", ".join(_text(m) for m in MISSING_MARKERS)
    parts = []
    for i, column in enumerate(columns):
        name = quoted(column.name)
        test = (f"{name} IS NULL OR lower(trim({name})) IN ({listed})" if markers and column.is_text
                else f"{name} IS NULL")
        parts.append(f"SELECT {i + 1} AS position, {_text(column.name)} AS \"column\", "
                     f"count(*) FILTER (WHERE {test}) AS missing, count(*) AS \"rows\", "
                     f"count(*) FILTER (WHERE {test}) / count(*) AS share FROM {table}{where}")
    sql = f"SELECT \"column\", missing, share, \"rows\" FROM ({' UNION ALL '.join(parts)}) ORDER BY position"
    rule = ("NULL, or in a text column one of the markers " + ", ".join(repr(m) for m in MISSING_MARKERS)
            + " (trimmed, any case)") if markers else "NULL only"
    defs = (("missing", rule), ("share", "missing / rows"))
    return Compiled("missing", r.table.name, "sql", sql, _filtered(f"missing values per column of {r.table.name}",
                                                                   filters), definitions=defs, labels=("column",))


def _duplicates(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    names = args.get("columns") or r.table.names
    columns = [r.column(n) for n in names]
    output = args.get("output") or "count"
    if output not in ("count", "list"):
        raise OperationError("duplicates: output is count or list.")
    where, filters = r.where(args)
    table = quoted(r.table.name)
    keys = ", ".join(quoted(c.name) for c in columns)
    subset = "all columns" if not args.get("columns") else ", ".join(c.name for c in columns)
    if output == "count":
        sql = (f"SELECT CAST(coalesce(sum(_op_copies - 1), 0) AS BIGINT) AS duplicate_rows, count(*) AS "
               f"duplicated_groups, CAST(coalesce(sum(_op_copies), 0) AS BIGINT) AS rows_in_groups FROM (SELECT count(*) AS _op_copies FROM {table}"
               f"{where} GROUP BY {keys} HAVING count(*) > 1)")
        labels: tuple[str, ...] = ()
    else:
        limit = _limit(args, 100)
        sql = (f"SELECT {keys}, count(*) AS copies FROM {table}{where} GROUP BY {keys} HAVING count(*) > 1 "
               f"ORDER BY copies DESC, {keys} LIMIT {limit}")
        labels = tuple(c.name for c in columns)
    defs = ((("duplicate_rows", f"rows equal on {subset} to an earlier row (like pandas .duplicated().sum())"),
             ("duplicated_groups", "distinct value combinations that occur more than once"),
             ("rows_in_groups", "rows in those groups, first occurrences included")) if output == "count"
            else (("copies", f"rows with these values of {subset}; only values that occur more than once"),))
    return Compiled("duplicates", r.table.name, "sql", sql, _filtered(f"duplicate rows of {r.table.name} on {subset}",
                                                                      filters), definitions=defs, labels=labels)


def _correlation(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    method = args.get("method") or "pearson"
    if method not in CORRELATIONS:
        raise OperationError(f"method is one of {', '.join(CORRELATIONS)}.")
    x, lx = r.number(args.get("x"), "x")
    function = {"pearson": "scipy.stats.pearsonr", "spearman": "scipy.stats.spearmanr",
                "kendall": "scipy.stats.kendalltau"}[method]
    where, filters = r.where(args)
    if args.get("y") is not None:
        y, ly = r.number(args.get("y"), "y")
        sql = (f"SELECT CAST({x} AS DOUBLE) AS x, CAST({y} AS DOUBLE) AS y FROM {quoted(r.table.name)}"
               + (where + " AND " if where else " WHERE ") + f"{x} IS NOT NULL AND {y} IS NOT NULL")
        return Compiled("correlation", r.table.name, "scipy", sql,
                        _filtered(f"{method} correlation of {lx} and {ly} in {r.table.name}", filters),
                        function=f"{function}(x, y)", definitions=tuple(r.notes),
                        params={"method": method, "names": [lx, ly]}, args=dict(args))
    others = [c for c in r.table.numeric if c != lx][:_MAX_STRONGEST]
    if not others:
        raise OperationError(f"{r.table.name} has no other numeric column to correlate {lx} with.")
    items = [f"CAST({x} AS DOUBLE) AS {quoted(lx)}"] + [f"CAST({r.number(c)[0]} AS DOUBLE) AS {quoted(c)}"
                                                          for c in others]
    sql = f"SELECT {', '.join(items)} FROM {quoted(r.table.name)}" + (where + " AND " if where else " WHERE ") + \
        f"{x} IS NOT NULL"
    return Compiled("correlation", r.table.name, "scipy", sql,
                    _filtered(f"{method} correlation of {lx} with each numeric column of {r.table.name}", filters),
                    function=f"{function}(x, column) for each column, rows with both values",
                    definitions=tuple(r.notes), params={"method": method, "names": [lx, *others], "strongest": True},
                    args=dict(args))


_TEST_FUNCTIONS = {"welch": "scipy.stats.ttest_ind(a, b, equal_var=False)",
                   "student": "scipy.stats.ttest_ind(a, b, equal_var=True)",
                   "paired": "scipy.stats.ttest_rel(a, b)", "one_sample": "scipy.stats.ttest_1samp(a, mu)",
                   "chi_square": "scipy.stats.chi2_contingency(table, correction=yates)",
                   "anova": "scipy.stats.f_oneway(*groups)", "shapiro": "scipy.stats.shapiro(a)",
                   "normaltest": "scipy.stats.normaltest(a)"}


def _test(r: _Reader, args: Mapping[str, Any]) -> Compiled:
    test = args.get("test")
    if test not in TESTS:
        raise OperationError(f"test is one of {', '.join(TESTS)}.")
    table = quoted(r.table.name)
    params: dict[str, Any] = {"test": test}
    levels = args.get("levels")
    if levels is not None and not isinstance(levels, list):
        raise OperationError("levels is a list of the group values to compare.")
    params["levels"] = [_shown(v) for v in levels or []]
    if test == "chi_square":
        column = r.column(args.get("column"))
        if args.get("by") is None:
            raise OperationError("chi_square needs 'by': the second categorical column.")
        key = r.key(args["by"])
        a = column.value_sql()
        where, filters = r.where(args, f"{a} IS NOT NULL", f"{key.sql} IS NOT NULL")
        sql = f"SELECT {a} AS a, {key.sql} AS b FROM {table}{where}"
        params.update(yates=args.get("yates", True) is not False, names=[column.name, key.label])
        title = f"chi-square test of independence of {column.name} and {key.label}"
    else:
        x, lx = r.number(args.get("column"))
        if test in ("welch", "student", "anova") and args.get("by") is not None:
            key = r.key(args["by"])
            where, filters = r.where(args, f"{x} IS NOT NULL", f"{key.sql} IS NOT NULL")
            sql = f"SELECT CAST({x} AS DOUBLE) AS a, {key.sql} AS g FROM {table}{where}"
            params.update(names=[lx, key.label], shape="groups")
            title = f"{test} test of {lx} between groups of {key.label}"
        elif test in ("welch", "student", "paired") and args.get("other") is not None:
            y, ly = r.number(args.get("other"), "other")
            both = test == "paired"
            where, filters = r.where(args, *((f"{x} IS NOT NULL", f"{y} IS NOT NULL") if both else ()))
            sql = f"SELECT CAST({x} AS DOUBLE) AS a, CAST({y} AS DOUBLE) AS b FROM {table}{where}"
            params.update(names=[lx, ly], shape="columns")
            title = f"{test} test of {lx} against {ly}"
        elif test in ("welch", "student", "anova"):
            raise OperationError(f"the {test} test needs 'by' (the column that splits the groups)"
                                 + (" or 'other' (a second numeric column)." if test != "anova" else "."))
        elif test == "paired":
            raise OperationError("the paired test needs 'other': the second numeric column of each pair.")
        else:
            where, filters = r.where(args, f"{x} IS NOT NULL")
            sql = f"SELECT CAST({x} AS DOUBLE) AS a FROM {table}{where}"
            params.update(names=[lx], shape="one")
            if test == "one_sample":
                mu: Any = args.get("mu")
                if not _is_number(mu):
                    raise OperationError("the one_sample test needs 'mu': the mean to test against.")
                params["mu"] = float(mu)
            title = f"{test} test of {lx}" + (f" against a mean of {_shown(params['mu'])}" if test == "one_sample" else "")
    return Compiled("test", r.table.name, "scipy", sql, _filtered(title + f" in {r.table.name}", filters),
                    function=_TEST_FUNCTIONS[test], definitions=tuple(r.notes), params=params, args=dict(args))


_COMPILERS = {"aggregate": _aggregate, "distribution": _distribution, "correlation": _correlation, "test": _test,
              "outliers": _outliers, "regression": _regression, "missing": _missing, "duplicates": _duplicates}


def compile_operation(args: Mapping[str, Any], tables: Sequence[TableColumns] | TableColumns) -> Compiled:
    """``args`` (one value of :func:`.operation_schema`) compiled against ``tables``; raises
    :class:`OperationError` with a one-line reason when it cannot be."""
    if not isinstance(args, Mapping):
        raise OperationError("an operation is a JSON object with 'op' and 'table'.")
    op = args.get("op")
    if op not in OPS:
        raise OperationError(f"op is one of {', '.join(OPS)}, not {op!r}.")
    listed = [tables] if isinstance(tables, TableColumns) else list(tables)
    name = args.get("table")
    table = next((t for t in listed if t.name == name), None) or \
        next((t for t in listed if isinstance(name, str) and t.name.lower() == name.lower()), None)
    if table is None:
        raise OperationError(f"unknown table {name!r}; tables: {', '.join(t.name for t in listed) or 'none'}.")
    compiled = _COMPILERS[op](_Reader(table), args)
    if op not in SCIPY_OPS:
        compiled = Compiled(**{**compiled.__dict__, "args": dict(args)})
    return compiled
