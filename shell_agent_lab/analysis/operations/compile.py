"""One operation's arguments compiled to DuckDB SQL, or to the SQL that reads a SciPy call's
inputs (pure: works from :class:`.TableColumns`, never touches a database).

Columns are read as they are profiled: numbers written as text through ``num()``, dates
written as text through ``TRY_CAST`` or ``try_strptime`` with the profiled format. Every
statistic a compiled operation yields is named for what it is (``std_sample(amount)``,
``q25(amount)``) and carries a definition (``ddof=1``, which quantile method), which the
result prints beside it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._reading import OperationError, Reader, is_number, number_literal, shown, text_literal
from ._spec import CORRELATIONS, OPS, SCIPY_OPS, TESTS
from ._tables import TableColumns, quoted

__all__ = ["Compiled", "OperationError", "compile_operation", "MISSING_MARKERS"]

#: how a missing value is written in a text column (compared trimmed, lower-case)
MISSING_MARKERS = ("", "na", "n/a", "nan", "null", "none", "-", "--", "?", "missing", "#n/a")
_MAX_STRONGEST = 40


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
                f"rerun('operation', {python_literal(dict(self.args))})")


def python_literal(value: Any) -> str:
    """``value`` (JSON data) as Python source, keys sorted so the same call reads the same (what a
    cell that runs a call again writes)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {python_literal(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    return repr(value)


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
    if not is_number(value) or int(value) < 1:
        raise OperationError("limit is a whole number from 1.")
    return min(int(value), 10000)


def _cutoff(args: Mapping[str, Any], key: str, default: float) -> float:
    value: Any = args.get(key)
    if value is None:
        return default
    if not is_number(value) or value < 0:
        raise OperationError(f"{key} is a number from 0 (default {shown(default)}).")
    return float(value)


def _filtered(title: str, filters: list[str]) -> str:
    return title + (f" where {' and '.join(filters)}" if filters else "")


# -- the operation kinds -----------------------------------------------------------------------

def _aggregate(r: Reader, args: Mapping[str, Any]) -> Compiled:
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
    if not isinstance(values, list) or not all(is_number(q) and 0 <= q <= 1 for q in values):
        raise OperationError("quantiles are numbers from 0 to 1 (e.g. [0.25, 0.5, 0.75]).")
    return list(dict.fromkeys(float(q) for q in values))[:9]


def _distribution(r: Reader, args: Mapping[str, Any]) -> Compiled:
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


def _outliers(r: Reader, args: Mapping[str, Any]) -> Compiled:
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
        outside = f"abs({x} - _op_mean) > {number_literal(cut)} * _op_std"
        rule = (f"|z| > {shown(cut)}, z = ({label} - mean) / std with std ddof={ddof}"
                + (" (like scipy.stats.zscore)" if ddof == 0 else " (sample std)"))
        extra = [("mean", "_op_mean"), (f"std_{'population' if ddof == 0 else 'sample'}", "_op_std"), ("n", "_op_n")]
        score = f"({x} - _op_mean) / _op_std"
        score_name = "z_score"
    else:
        k = _cutoff(args, "k", 1.5)
        stats = (f"SELECT quantile_cont({x}, 0.25) AS _op_q1, quantile_cont({x}, 0.75) AS _op_q3, count(*) AS _op_n "
                 f"FROM {table}{where}")
        low, high = f"_op_q1 - {number_literal(k)} * (_op_q3 - _op_q1)", f"_op_q3 + {number_literal(k)} * (_op_q3 - _op_q1)"
        outside = f"({x} < {low} OR {x} > {high})"
        rule = (f"below q1 - {shown(k)}*IQR or above q3 + {shown(k)}*IQR; q1, q3: 25th and 75th percentiles, "
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


def _regression(r: Reader, args: Mapping[str, Any]) -> Compiled:
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


def _missing(r: Reader, args: Mapping[str, Any]) -> Compiled:
    names = args.get("columns") or r.table.names
    columns = [r.column(n) for n in names]
    markers = args.get("markers", True) is not False
    where, filters = r.where(args)
    table = quoted(r.table.name)
    listed = ", ".join(text_literal(m) for m in MISSING_MARKERS)
    parts = []
    for i, column in enumerate(columns):
        name = quoted(column.name)
        test = (f"{name} IS NULL OR lower(trim({name})) IN ({listed})" if markers and column.is_text
                else f"{name} IS NULL")
        parts.append(f"SELECT {i + 1} AS position, {text_literal(column.name)} AS \"column\", "
                     f"count(*) FILTER (WHERE {test}) AS missing, count(*) AS \"rows\", "
                     f"count(*) FILTER (WHERE {test}) / count(*) AS share FROM {table}{where}")
    sql = f"SELECT \"column\", missing, share, \"rows\" FROM ({' UNION ALL '.join(parts)}) ORDER BY position"
    rule = ("NULL, or in a text column one of the markers " + ", ".join(repr(m) for m in MISSING_MARKERS)
            + " (trimmed, any case)") if markers else "NULL only"
    defs = (("missing", rule), ("share", "missing / rows"))
    return Compiled("missing", r.table.name, "sql", sql, _filtered(f"missing values per column of {r.table.name}",
                                                                   filters), definitions=defs, labels=("column",))


def _duplicates(r: Reader, args: Mapping[str, Any]) -> Compiled:
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


def _correlation(r: Reader, args: Mapping[str, Any]) -> Compiled:
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


def _test(r: Reader, args: Mapping[str, Any]) -> Compiled:
    test = args.get("test")
    if test not in TESTS:
        raise OperationError(f"test is one of {', '.join(TESTS)}.")
    table = quoted(r.table.name)
    params: dict[str, Any] = {"test": test}
    levels = args.get("levels")
    if levels is not None and not isinstance(levels, list):
        raise OperationError("levels is a list of the group values to compare.")
    params["levels"] = [shown(v) for v in levels or []]
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
                if not is_number(mu):
                    raise OperationError("the one_sample test needs 'mu': the mean to test against.")
                params["mu"] = float(mu)
            title = f"{test} test of {lx}" + (f" against a mean of {shown(params['mu'])}" if test == "one_sample" else "")
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
    compiled = _COMPILERS[op](Reader(table), args)
    if op not in SCIPY_OPS:
        compiled = Compiled(**{**compiled.__dict__, "args": dict(args)})
    return compiled
