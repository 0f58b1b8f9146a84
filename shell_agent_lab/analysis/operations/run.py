"""Running a compiled operation on the session engine, and its result as ``name = value`` lines.

SQL operations run as they were compiled, through the engine's read-only query path (the same
gate, row cap and timeout as any query). SciPy operations read their rows through the same path
and compute on them. The result text names every statistic with its definition beside it
(``std_sample(amount) = 2.02   (sample standard deviation of amount, ddof=1 …)``), then the
SQL that ran, so the number can be traced and reproduced.
"""
from __future__ import annotations

import datetime as _dt
import math
import threading
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .compile import Compiled, OperationError, compile_operation
from ._tables import TableColumns, tables_of

__all__ = ["OperationResult", "run_operation", "run_compiled", "format_value"]

#: rows a result shows as lines (the rest are counted)
_SHOWN_ROWS = 50
_MAX_GROUPS = 50


@dataclass
class OperationResult:
    """What an operation computed: ``text`` for the model and the user, ``values`` (statistic
    name -> value, grouped rows as ``key = v, …: name``), the rows, and how to reproduce it."""

    op: str
    table: str
    kind: str
    text: str
    values: dict[str, Any]
    rows: list[dict[str, Any]]
    #: the statement that ran (kind sql), or the one that read the SciPy call's rows
    sql: str
    #: the SciPy call (kind scipy)
    function: str
    #: the notebook cell that reproduces the result (see :attr:`.Compiled.cell`)
    cell: str
    definitions: dict[str, str] = field(default_factory=dict)
    #: the operation's arguments (what ``rerun('operation', args)`` takes)
    args: dict[str, Any] = field(default_factory=dict)


def format_value(value: Any) -> str:
    """A value as a result line shows it: integers whole, other numbers to six significant
    digits or more (never rounded to nothing), NULL and NaN named."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if value.is_integer() and abs(value) < 1e15:
            return f"{value:.1f}"
        if value != 0 and (abs(value) < 1e-4 or abs(value) >= 1e12):
            return f"{value:.6e}"
        if abs(value) < 1:
            return f"{value:.6g}"
        return f"{value:.6f}".rstrip("0").rstrip(".") if abs(value) < 1e6 else f"{value:.4f}"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, _dt.datetime) else value.isoformat()
    return str(value)


def _noted(name: str, value: Any, notes: Mapping[str, str]) -> str:
    note = notes.get(name, "")
    return f"{name} = {format_value(value)}" + (f"   ({note})" if note else "")


def _row_lines(columns: Sequence[str], rows: Sequence[Sequence[Any]], labels: Sequence[str],
               notes: Mapping[str, str]) -> tuple[list[str], dict[str, Any]]:
    values: dict[str, Any] = {}
    if len(rows) == 1 and not labels:
        row = rows[0]
        for name, value in zip(columns, row):
            values[name] = value
        lines = [_noted(n, v, notes) for n, v in zip(columns, row)]
        return lines + [f"{name}: {note}" for name, note in notes.items() if name not in columns], values
    lines = []
    for index, row in enumerate(rows):
        keys = [(c, v) for c, v in zip(columns, row) if c in labels]
        stats = [(c, v) for c, v in zip(columns, row) if c not in labels]
        head = ", ".join(f"{c} = {format_value(v)}" for c, v in keys)
        body = ", ".join(f"{c} = {format_value(v)}" for c, v in stats)
        for c, v in stats:
            values[f"{head}: {c}" if head else f"row {index + 1}: {c}"] = v
        if index < _SHOWN_ROWS:
            lines.append(f"{head}: {body}" if head and body else head or body)
    if len(rows) > _SHOWN_ROWS:
        lines.append(f"… {len(rows) - _SHOWN_ROWS} more rows")
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    lines += [f"{name}: {note}" for name, note in notes.items()]
    return lines, values


def _text(compiled: Compiled, lines: list[str]) -> str:
    tail = f"SQL run:\n{compiled.sql}" if compiled.kind == "sql" else \
        f"computed with {compiled.function} on the rows of:\n{compiled.sql}"
    return f"{compiled.title}:\n" + "\n".join(lines) + "\n\n" + tail


# -- SciPy operations --------------------------------------------------------------------------

def _floats(values: Sequence[Any]) -> list[float]:
    out = []
    for value in values:
        if value is None:
            continue
        number = float(value)
        if not math.isnan(number):
            out.append(number)
    return out


def _correlation(compiled: Compiled, rows: list[tuple[Any, ...]]) -> list[tuple[str, Any, str]]:
    from scipy import stats

    method = compiled.params["method"]
    names = compiled.params["names"]
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    stat = {"pearson": "pearson_r", "spearman": "spearman_rho", "kendall": "kendall_tau"}[method]
    note = {"pearson": "Pearson's r", "spearman": "Spearman's rank correlation",
            "kendall": "Kendall's tau-b"}[method]

    def pair(i: int) -> tuple[float, float, int]:
        both = [(r[0], r[i]) for r in rows if r[0] is not None and r[i] is not None
                and not math.isnan(r[0]) and not math.isnan(r[i])]
        if len(both) < 3:
            return math.nan, math.nan, len(both)
        result = fn([b[0] for b in both], [b[1] for b in both])
        return float(result[0]), float(result[1]), len(both)

    if not compiled.params.get("strongest"):
        r, p, n = pair(1)
        if n < 3:
            raise OperationError(f"only {n} rows have both {names[0]} and {names[1]}; at least 3 are needed.")
        return [(f"{stat}({names[0]}, {names[1]})", r, note), ("p_value", p, "two-sided, no correlation"),
                ("n", n, "rows with both values")]
    found = [(name, *pair(i + 1)) for i, name in enumerate(names[1:])]
    found = [f for f in found if not math.isnan(f[1])]
    if not found:
        raise OperationError(f"no numeric column has 3 rows in common with {names[0]}.")
    found.sort(key=lambda f: (-abs(f[1]), f[0]))
    out: list[tuple[str, Any, str]] = [("strongest", found[0][0], f"largest |{stat}| with {names[0]}")]
    for name, r, p, n in found:
        out.append((f"{stat}({names[0]}, {name})", r, f"p_value = {format_value(p)}, n = {n}"))
    return out


def _label(value: Any) -> str:
    """A group value as ``levels`` name it: text as it is, 2024.0 as 2024."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return format_value(value)


def _groups(rows: list[tuple[Any, ...]], levels: Sequence[str]) -> dict[str, list[float]]:
    by: dict[str, list[float]] = {}
    for value, group in rows:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        by.setdefault(_label(group), []).append(float(value))
    if levels:
        missing = [lv for lv in levels if lv not in by]
        if missing:
            raise OperationError(f"no rows have the group value {', '.join(map(repr, missing))}; "
                                 f"values: {', '.join(sorted(by)[:20])}.")
        return {lv: by[lv] for lv in levels}
    return dict(sorted(by.items()))


def _test(compiled: Compiled, rows: list[tuple[Any, ...]]) -> list[tuple[str, Any, str]]:
    import numpy as np
    from scipy import stats

    p = compiled.params
    test, names = p["test"], p["names"]
    if test == "chi_square":
        import pandas as pd
        a = pd.Series([_label(r[0]) for r in rows], dtype=object)
        b = pd.Series([_label(r[1]) for r in rows], dtype=object)
        if p["levels"]:
            keep = b.isin(p["levels"])
            a, b = a[keep], b[keep]
        table = pd.crosstab(a, b)
        if table.shape[0] < 2 or table.shape[1] < 2:
            raise OperationError(f"chi_square needs at least two values in each of {names[0]} and {names[1]}.")
        chi2, pv, dof, _ = stats.chi2_contingency(table.values, correction=p["yates"])
        applied = p["yates"] and dof == 1
        return [("chi2", chi2, "Pearson chi-square, with Yates' continuity correction" if applied else
                 "Pearson chi-square, no continuity correction" + (" (Yates applies to 2x2 tables only)"
                                                                    if p["yates"] else "")),
                ("p_value", pv, ""), ("dof", int(dof), f"({table.shape[0]}-1) x ({table.shape[1]}-1)"),
                ("n", int(table.values.sum()), "rows with both values"),
                ("table", f"{table.shape[0]} x {table.shape[1]}", f"{names[0]} x {names[1]}")]
    shape = p["shape"]
    if shape == "groups":
        groups = _groups(rows, p["levels"])
        if test == "anova":
            if len(groups) < 2:
                raise OperationError(f"anova needs at least two groups of {names[1]}; found {len(groups)}.")
            if len(groups) > _MAX_GROUPS:
                raise OperationError(f"{names[1]} has {len(groups)} groups; pick at most {_MAX_GROUPS} with levels.")
            f, pv = stats.f_oneway(*groups.values())
            out = [("f_statistic", f, f"one-way ANOVA of {names[0]} across {len(groups)} groups of {names[1]}"),
                   ("p_value", pv, ""), ("df_between", len(groups) - 1, ""),
                   ("df_within", sum(len(g) for g in groups.values()) - len(groups), "")]
            out += [(f"mean({names[1]} = {k})", float(np.mean(v)), f"n = {len(v)}") for k, v in groups.items()]
            return out
        if len(groups) != 2:
            listing = ", ".join(list(groups)[:12])
            raise OperationError(f"a t-test compares two groups; {names[1]} has {len(groups)} ({listing}). "
                                 "Name the two to compare in levels, e.g. levels: [first, second].")
        (la, a), (lb, b) = groups.items()
        labels = (f"{names[1]} = {la}", f"{names[1]} = {lb}")
    elif shape == "columns":
        if test == "paired":
            both = [(x, y) for x, y in rows if x is not None and y is not None]
            a, b = [x for x, _ in both], [y for _, y in both]
        else:
            a, b = _floats([r[0] for r in rows]), _floats([r[1] for r in rows])
        labels = (names[0], names[1])
    else:
        a = _floats([r[0] for r in rows])
        if len(a) < 3:
            raise OperationError(f"{names[0]} has {len(a)} values; at least 3 are needed.")
        if test == "one_sample":
            t, pv = stats.ttest_1samp(a, p["mu"])
            return [("t_statistic", t, f"one-sample t-test, mean of {names[0]} against {format_value(p['mu'])}"),
                    ("p_value", pv, "two-sided"), ("df", len(a) - 1, "n - 1"), ("mean", float(np.mean(a)), ""),
                    ("n", len(a), "")]
        if test == "shapiro":
            w, pv = stats.shapiro(a)
            return [("W", w, "Shapiro-Wilk"), ("p_value", pv, "small: not normal"), ("n", len(a), "")]
        if test == "normaltest":
            k2, pv = stats.normaltest(a)
            return [("statistic", k2, "D'Agostino-Pearson K²"), ("p_value", pv, "small: not normal"), ("n", len(a), "")]
        raise OperationError(f"the {test} test does not take one column alone.")
    if min(len(a), len(b)) < 2:
        raise OperationError(f"each side needs at least 2 values; {labels[0]} has {len(a)}, {labels[1]} has {len(b)}.")
    if test == "paired":
        result = stats.ttest_rel(a, b)
        return [("t_statistic", result.statistic, f"paired t-test, {labels[0]} minus {labels[1]}"),
                ("p_value", result.pvalue, "two-sided"), ("df", len(a) - 1, "pairs - 1"),
                ("mean_difference", float(np.mean(np.array(a) - np.array(b))), ""), ("n", len(a), "pairs")]
    welch = test == "welch"
    result = stats.ttest_ind(a, b, equal_var=not welch)
    df = getattr(result, "df", None)
    return [("t_statistic", result.statistic, ("Welch's t-test, unequal variances" if welch else
                                                "Student's t-test, equal variances") + f", {labels[0]} vs {labels[1]}"),
            ("p_value", result.pvalue, "two-sided"),
            ("df", float(df) if df is not None else math.nan, "Welch-Satterthwaite" if welch else "n_1 + n_2 - 2"),
            ("mean_1", float(np.mean(a)), labels[0]), ("mean_2", float(np.mean(b)), labels[1]),
            ("n_1", len(a), ""), ("n_2", len(b), "")]


def _scipy_lines(compiled: Compiled, rows: list[tuple[Any, ...]]) -> tuple[list[str], dict[str, Any]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        triples = _correlation(compiled, rows) if compiled.op == "correlation" else _test(compiled, rows)
    notes = dict(compiled.definitions)
    lines = [f"{name} = {format_value(value)}" + (f"   ({note})" if note else "") for name, value, note in triples]
    lines += [f"{name}: {note}" for name, note in notes.items()]
    values = {name: (float(v) if hasattr(v, "dtype") else v) for name, v, _ in triples}
    return lines, values


def run_compiled(engine: Any, compiled: Compiled, *, cancel: threading.Event | None = None) -> OperationResult:
    """Run ``compiled`` on ``engine`` (its ``query``); raises the engine's errors or
    :class:`OperationError`."""
    path = "chat" if compiled.kind == "sql" else "analyze"
    result = engine.query(compiled.sql, path=path, cancel=cancel)
    columns, rows = list(result.columns), [tuple(r) for r in result.rows]
    values: dict[str, Any]
    if compiled.kind == "sql":
        if not rows:
            lines, values = ["(no rows)"], {}
        else:
            lines, values = _row_lines(columns, rows, compiled.labels, dict(compiled.definitions))
    else:
        if not rows:
            raise OperationError("no rows have values for this operation" +
                                 (" with these filters." if compiled.args.get("filters") else "."))
        lines, values = _scipy_lines(compiled, rows)
    records = [dict(zip(columns, r)) for r in rows] if compiled.kind == "sql" else []
    return OperationResult(compiled.op, compiled.table, compiled.kind, _text(compiled, lines), values, records,
                           compiled.sql, compiled.function, compiled.cell, dict(compiled.definitions),
                           dict(compiled.args))


def run_operation(engine: Any, args: Mapping[str, Any], *, tables: Sequence[TableColumns] | None = None,
                  cancel: threading.Event | None = None) -> OperationResult:
    """Compile ``args`` against the engine's tables (``tables`` when already read) and run it."""
    if tables is None:
        name = args.get("table") if isinstance(args, Mapping) else None
        tables = tables_of(engine, [name]) if isinstance(name, str) and name else tables_of(engine)
    return run_compiled(engine, compile_operation(args, tables), cancel=cancel)
