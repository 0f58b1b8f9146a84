"""``statistics``: the statistics SQL lacks (tests, p-values, regression, outliers), on SciPy.

The data comes through the engine's read-only query path (the same gate, row cap and timeout as
any query), one or two columns of one table or DataFrame. Columns of numbers stored as text are
read with ``num()``, like the model is told to do in SQL; missing values are dropped (pairwise for
two columns). Every result is ``name = value`` lines, one statistic each, with the definition
written beside it (sample or population standard deviation, which t-test), so a small model
copies the right number instead of guessing which one it got.
"""
from __future__ import annotations

import math
import re
from typing import Any

from ..sharing import label
from ..tools.registry import ToolContext, ToolDescriptor, ToolError, ToolResult
from ._tooling import engine_of, guarded, has_engine, text_arg
from .sql_repair import Column, sql_name

__all__ = ["stats_tools", "TESTS"]

TESTS = ("describe", "pearson", "spearman", "kendall", "ttest", "paired_ttest", "one_sample_ttest",
         "chi_square", "shapiro", "normaltest", "linear_regression", "zscore_outliers", "iqr_outliers")
_TWO_COLUMNS = {"pearson", "spearman", "kendall", "paired_ttest", "linear_regression"}
_CATEGORICAL = {"chi_square"}


def _fmt(value: Any) -> str:
    if isinstance(value, (bool,)) or value is None:
        return str(value)
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if value != 0 and (abs(value) < 1e-4 or abs(value) >= 1e12):
        return f"{value:.6e}"
    if abs(value) < 1:               # six significant digits (a p-value of 0.00141543)
        return f"{value:.6g}"
    return f"{value:.6f}".rstrip("0").rstrip(".") if abs(value) < 1e6 else f"{value:.4f}"


def _lines(pairs: list[tuple[str, Any, str]]) -> str:
    return "\n".join((f"{name}: {value}" if isinstance(value, str) else f"{name} = {_fmt(value)}")
                     + (f"   ({note})" if note else "") for name, value, note in pairs)


class _Data:
    """Columns of one table fetched through the engine (numbers or raw values)."""

    def __init__(self, ctx: ToolContext, table: str, where: str) -> None:
        self.engine = engine_of(ctx)
        self.ctx = ctx
        info = self.engine.describe(table)
        self.table = info.name
        self.types = {c: t for c, t in info.columns}
        self.where = where

    def _column(self, name: str) -> str:
        if name in self.types:
            return name
        folded = {c.lower(): c for c in self.types}
        found = folded.get(name.strip().strip('"').lower())
        if found is None:      # another spelling of the same words ("Satisfaction (1-10)" for "(1–10)")
            squashed = {_squash(c): c for c in self.types}
            found = squashed.get(_squash(name)) if len(squashed) == len(self.types) else None
        if found is None:
            listing = ", ".join(sql_name(c) for c in list(self.types)[:30])
            raise ToolError(f"{self.table} has no column {name!r}; its columns: {listing}.")
        return found

    def has(self, name: Any) -> bool:
        try:
            return isinstance(name, str) and bool(name.strip()) and bool(self._column(name))
        except ToolError:
            return False

    def is_numbers(self, name: str) -> bool:
        """The column holds numbers (a number type, or text numbers that num() reads)."""
        column = self._column(name)
        if _is_number_type(self.types[column]):
            return True
        hints = getattr(self.engine, "column_profile", lambda _n: {})(self.table)
        return bool(hints.get(column, {}).get("text_numbers"))

    def column_holding(self, value: str) -> str | None:
        """The one text column that holds ``value`` (a model may pass a value where a column
        goes: group="L3" for "Job level" = 'L3')."""
        found = []
        for column, type_ in self.types.items():
            if _is_number_type(type_):
                continue
            sql = (f"SELECT 1 FROM {sql_name(self.table)} WHERE CAST({sql_name(column)} AS VARCHAR) = "
                   f"'{value.replace(chr(39), chr(39) * 2)}' LIMIT 1")
            if self.engine.query(sql, path="analyze").rows:
                found.append(column)
        return found[0] if len(found) == 1 else None

    def narrowed(self, condition: str) -> "_Data":
        other = object.__new__(_Data)
        other.__dict__.update(self.__dict__)
        other.where = f"({self.where}) AND {condition}" if self.where.strip() else condition
        return other

    def _expr(self, name: str, numeric: bool) -> str:
        column = self._column(name)
        quoted = sql_name(column)
        if numeric and Column(self.table, column, self.types[column]).is_text:
            return f"num({quoted})"
        if numeric and not _is_number_type(self.types[column]):
            raise ToolError(f"column {sql_name(column)} is {self.types[column]}, not numbers.")
        return f"CAST({quoted} AS DOUBLE)" if numeric else quoted

    def rows(self, columns: list[tuple[str, bool]]) -> list[tuple[Any, ...]]:
        exprs = [self._expr(name, numeric) for name, numeric in columns]
        filters = " AND ".join(f"({e}) IS NOT NULL" for e in exprs)
        if self.where.strip():
            filters = f"({self.where}) AND {filters}"
        sql = f"SELECT {', '.join(exprs)} FROM {sql_name(self.table)} WHERE {filters}"
        result = self.engine.query(sql, path="analyze", cancel=self.ctx.cancel)
        rows = [r for r in result.rows if all(not (isinstance(v, float) and math.isnan(v)) for v in r)]
        if not rows:
            texts = [name for (name, numeric), expr in zip(columns, exprs) if numeric and expr.startswith("num(")]
            if texts:
                raise ToolError(f"{', '.join(sql_name(self._column(n)) for n in texts)} holds text, not numbers. "
                                "For counts and shares of categories use query_sql (count(*), GROUP BY).")
            raise ToolError("no rows have values in " + ", ".join(n for n, _ in columns)
                            + (f" where {self.where}" if self.where.strip() else "") + ".")
        return rows


def _squash(name: str) -> str:
    import re
    return re.sub(r"[^0-9a-z]+", "", name.lower())


def _is_number_type(type_: str) -> bool:
    upper = type_.upper()
    return upper.startswith(("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                             "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "REAL", "BOOLEAN"))


def _need(args: dict[str, Any], key: str, test: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"the {test} test needs {key!r} (a column name).")
    return value


def _describe(values: list[float]) -> list[tuple[str, Any, str]]:
    import numpy as np
    import pandas as pd
    series = pd.Series(values, dtype="float64")
    q1, q3 = np.percentile(values, [25, 75]) if values else (math.nan, math.nan)
    return [("count", len(values), "missing values dropped"), ("mean", series.mean(), ""),
            ("median", series.median(), ""), ("std_sample", series.std(ddof=1), "ddof=1, like pandas .std()"),
            ("std_population", series.std(ddof=0), "ddof=0, like numpy.std()"),
            ("variance_sample", series.var(ddof=1), ""), ("variance_population", series.var(ddof=0), ""),
            ("min", series.min(), ""), ("max", series.max(), ""), ("q1", q1, "25th percentile, linear"),
            ("q3", q3, "75th percentile, linear"),
            ("skewness", series.skew(), "bias-corrected, like pandas .skew()"),
            ("kurtosis", series.kurt(), "excess, bias-corrected, like pandas .kurt()")]


_MAX_GROUPS = 30


def _describe_any(data: "_Data", x: str, args: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """``describe``, reading what a small model meant: a value passed as ``group`` picks rows
    (group="L3" → "Job level" = 'L3'); a text x with numbers in y describes y by x; a text x
    alone is counted (each value's rows and share)."""
    group, y = args.get("group"), args.get("y")
    if isinstance(group, str) and group.strip() and not data.has(group):
        column = data.column_holding(group.strip())
        if column is None:
            raise ToolError(f"{data.table} has no column {group!r}, and no text column holds that value.")
        data = data.narrowed(f"{sql_name(column)} = '{group.strip().replace(chr(39), chr(39) * 2)}'")
        group = None
    if not data.is_numbers(x):
        if data.has(y) and data.is_numbers(y):
            return _describe_groups(data.rows([(y, True), (x, False)]), x)
        return _frequencies(data.rows([(x, False)]), data._column(x))
    if isinstance(group, str) and group.strip():
        return _describe_groups(data.rows([(x, True), (group, False)]), group)
    return _describe([r[0] for r in data.rows([(x, True)])])


def _frequencies(rows: list[tuple[Any, ...]], column: str) -> list[tuple[str, Any, str]]:
    """Rows per value of a text column, with each value's share of the rows."""
    counts: dict[Any, int] = {}
    for (value,) in rows:
        counts[value] = counts.get(value, 0) + 1
    total = sum(counts.values())
    if len(counts) > _MAX_GROUPS:
        raise ToolError(f"{column} has {len(counts)} different values; count them with query_sql (GROUP BY).")
    out: list[tuple[str, Any, str]] = [("rows", total, f"with a value in {column}")]
    for value in sorted(counts, key=lambda v: (-counts[v], str(v))):
        out.append((f"{column}={value}", f"count = {counts[value]}, percent = {_fmt(100 * counts[value] / total)}", ""))
    return out


def _two_groups_needed(data: "_Data", group: str, levels: list[Any]) -> str:
    """Why a t-test by ``group`` cannot run, with a ``where`` that picks two of its values."""
    column = sql_name(data._column(group))
    everything = data.engine.query(f"SELECT DISTINCT {column} FROM {sql_name(data.table)} WHERE {column} IS NOT NULL "
                                   "ORDER BY 1 LIMIT 12", path="analyze").rows
    values = [r[0] for r in everything]
    pick = [v for v in levels if v in values][:2] or values[:2]
    pick += [v for v in values if v not in pick][:2 - len(pick)]
    quoted = ", ".join("'" + str(v).replace("'", "''") + "'" for v in pick)
    found = ", ".join(map(str, levels[:8])) or "none"
    return (f"a t-test compares two groups of {group}; the rows selected have {len(levels)} ({found}). "
            f"{group} holds: {', '.join(map(str, values))}. Pick two with where, e.g. "
            f"where: \"{column} IN ({quoted})\" (and no other condition on {group}).")


def _describe_groups(rows: list[tuple[Any, ...]], group: str) -> list[tuple[str, Any, str]]:
    """``describe`` per value of ``group``: one line per group (count, mean, median, std …)."""
    by: dict[Any, list[float]] = {}
    for value, key in rows:
        by.setdefault(key, []).append(value)
    if len(by) > _MAX_GROUPS:
        raise ToolError(f"{group} has {len(by)} groups; describe by group takes at most {_MAX_GROUPS}. "
                        "Narrow it with 'where', or use query_sql with GROUP BY.")
    out: list[tuple[str, Any, str]] = []
    keep = ("count", "mean", "median", "std_sample", "std_population", "min", "max")
    for key in sorted(by, key=str):
        stats = {name: value for name, value, _ in _describe(by[key]) if name in keep}
        line = ", ".join(f"{name} = {_fmt(stats[name])}" for name in keep)
        out.append((f"{group}={key}", line, ""))
    return out


def _run_test(test: str, data: _Data, args: dict[str, Any]) -> list[tuple[str, Any, str]]:
    import numpy as np
    from scipy import stats

    x = _need(args, "x", test)
    if test == "describe":
        return _describe_any(data, x, args)
    if test in _TWO_COLUMNS:
        y = _need(args, "y", test)
        rows = data.rows([(x, True), (y, True)])
        if len(rows) < 3:
            raise ToolError(f"only {len(rows)} rows have both {x} and {y}; at least 3 are needed.")
        a, b = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
        if test == "pearson":
            r, p = stats.pearsonr(a, b)
            return [("pearson_r", r, f"{x} vs {y}"), ("p_value", p, "two-sided"), ("n", len(rows), "rows with both")]
        if test == "spearman":
            r, p = stats.spearmanr(a, b)
            return [("spearman_rho", r, f"{x} vs {y}"), ("p_value", p, "two-sided"), ("n", len(rows), "")]
        if test == "kendall":
            r, p = stats.kendalltau(a, b)
            return [("kendall_tau", r, f"{x} vs {y}"), ("p_value", p, "two-sided"), ("n", len(rows), "")]
        if test == "paired_ttest":
            t, p = stats.ttest_rel(a, b)
            return [("t_statistic", t, f"paired, {x} minus {y}"), ("p_value", p, "two-sided"), ("n", len(rows), "pairs")]
        fit = stats.linregress(a, b)
        return [("slope", fit.slope, f"{y} = slope * {x} + intercept"), ("intercept", fit.intercept, ""),
                ("r_squared", fit.rvalue ** 2, ""), ("r", fit.rvalue, ""), ("p_value", fit.pvalue, "slope ≠ 0"),
                ("stderr", fit.stderr, "of the slope"), ("n", len(rows), "")]
    if test in _CATEGORICAL:
        y = _need(args, "y", test)
        import pandas as pd
        rows = data.rows([(x, False), (y, False)])
        table = pd.crosstab(pd.Series([r[0] for r in rows]), pd.Series([r[1] for r in rows]))
        chi2, p, dof, _ = stats.chi2_contingency(table.values)
        out = [("chi2", chi2, "Yates-corrected for a 2x2 table, like scipy's default" if table.shape == (2, 2) else ""),
               ("p_value", p, ""), ("dof", int(dof), ""), ("n", len(rows), "")]
        if table.shape == (2, 2):
            chi2_raw, p_raw, _, _ = stats.chi2_contingency(table.values, correction=False)
            out += [("chi2_uncorrected", chi2_raw, "no Yates correction"), ("p_value_uncorrected", p_raw, "")]
        return out
    if test in ("ttest", "one_sample_ttest") and test == "one_sample_ttest":
        value = args.get("value")
        try:
            mu = float(value)
        except (TypeError, ValueError):
            raise ToolError("one_sample_ttest needs 'value': the mean to test against.") from None
        values = np.array([r[0] for r in data.rows([(x, True)])])
        t, p = stats.ttest_1samp(values, mu)
        return [("t_statistic", t, f"mean of {x} vs {mu:g}"), ("p_value", p, "two-sided"), ("n", len(values), "")]
    if test == "ttest":
        group, y = args.get("group"), args.get("y")
        if not data.is_numbers(x) and data.has(y) and data.is_numbers(y):
            x, group, y = y, x, None     # the groups were named as x and the numbers as y
        if isinstance(group, str) and group.strip():
            rows = data.rows([(x, True), (group, False)])
            levels = sorted({r[1] for r in rows}, key=str)
            if len(levels) != 2:
                raise ToolError(_two_groups_needed(data, group, levels))
            a = np.array([r[0] for r in rows if r[1] == levels[0]])
            b = np.array([r[0] for r in rows if r[1] == levels[1]])
            labels = f"{group}={levels[0]} vs {group}={levels[1]}"
        elif isinstance(y, str) and y.strip():
            a = np.array([r[0] for r in data.rows([(x, True)])])
            b = np.array([r[0] for r in data.rows([(y, True)])])
            labels = f"{x} vs {y}"
        else:
            raise ToolError("ttest needs 'group' (a column with two groups) or 'y' (a second column).")
        t, p = stats.ttest_ind(a, b)
        tw, pw = stats.ttest_ind(a, b, equal_var=False)
        return [("t_statistic", t, f"Student, equal variances, {labels}"), ("p_value", p, "two-sided"),
                ("welch_t_statistic", tw, "Welch, unequal variances"), ("welch_p_value", pw, ""),
                ("mean_1", a.mean(), ""), ("mean_2", b.mean(), ""), ("n_1", len(a), ""), ("n_2", len(b), "")]
    values = np.array([r[0] for r in data.rows([(x, True)])])
    if len(values) < 3:
        raise ToolError(f"{x} has {len(values)} values; at least 3 are needed.")
    if test == "shapiro":
        w, p = stats.shapiro(values)
        return [("W", w, "Shapiro-Wilk"), ("p_value", p, "small p: not normal"), ("n", len(values), "")]
    if test == "normaltest":
        k2, p = stats.normaltest(values)
        return [("statistic", k2, "D'Agostino-Pearson"), ("p_value", p, ""), ("n", len(values), "")]
    if test == "zscore_outliers":
        try:
            cut = float(args.get("threshold") or 3)
        except (TypeError, ValueError):
            raise ToolError("'threshold' must be a number (default 3).") from None
        mean, pop, sample = values.mean(), values.std(ddof=0), values.std(ddof=1)
        pop_count = int((np.abs(values - mean) > cut * pop).sum()) if pop else 0
        sample_count = int((np.abs(values - mean) > cut * sample).sum()) if sample else 0
        return [("outliers", pop_count, f"|z| > {cut:g}, z from the population std (ddof=0, like scipy.stats.zscore)"),
                ("outliers_sample_std", sample_count, f"|z| > {cut:g}, z from the sample std (ddof=1)"),
                ("mean", mean, ""), ("std_population", pop, ""), ("std_sample", sample, ""), ("n", len(values), "")]
    if test == "iqr_outliers":
        q1, q3 = np.percentile(values, [25, 75])
        iqr = q3 - q1
        low, high = q1 - 1.5 * iqr, q3 + 1.5 * iqr
        below, above = int((values < low).sum()), int((values > high).sum())
        return [("outliers", below + above, "below q1-1.5*IQR or above q3+1.5*IQR"), ("below", below, ""),
                ("above", above, ""), ("q1", q1, "linear, like pandas"), ("q3", q3, ""), ("iqr", iqr, ""),
                ("lower_fence", low, ""), ("upper_fence", high, ""), ("n", len(values), "")]
    raise ToolError(f"unknown test {test!r}; use one of: {', '.join(TESTS)}.")


@guarded
def _statistics(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    test = text_arg(args, "test", max_chars=40).strip().lower().replace("-", "_").replace(" ", "_")
    test = {"correlation": "pearson", "corr": "pearson", "t_test": "ttest", "chi2": "chi_square",
            "chisquare": "chi_square", "regression": "linear_regression", "linregress": "linear_regression",
            "shapiro_wilk": "shapiro", "zscore": "zscore_outliers", "iqr": "iqr_outliers",
            "outliers": "iqr_outliers", "summary": "describe"}.get(test, test)
    if test not in TESTS:
        raise ToolError(f"unknown test {test!r}; use one of: {', '.join(TESTS)}.")
    where = text_arg(args, "where", required=False, max_chars=2000)
    data = _Data(ctx, text_arg(args, "table", max_chars=200), where)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = _run_test(test, data, args)
    head = f"{test} on {data.table}" + (f" where {where}" if where else "") + ":\n"
    # outliers are individual rows; every other test is a statistic over the rows, less the
    # extremes (min and max are one row's value each)
    kind = "records" if test.endswith("_outliers") else "aggregate"
    views = {}
    without = _without_extremes(pairs)
    if kind == "aggregate" and without != pairs:
        views["aggregates"] = head + _lines(without)
    return ToolResult(head + _lines(pairs),
                      data={"sharing": label(kind, columns=["statistic", "value"], views=views)})


_EXTREME = re.compile(r"(?:^|,\s*)(?:min|max) = [^,]*")


def _without_extremes(pairs: list[tuple[str, Any, str]]) -> list[tuple[str, Any, str]]:
    """The statistics without min and max (alone, or inside a per-group line)."""
    out = []
    for name, value, note in pairs:
        if name in ("min", "max"):
            continue
        if isinstance(value, str) and _EXTREME.search(value):
            value = _EXTREME.sub("", value).lstrip(", ")
        out.append((name, value, note))
    return out


def stats_tools() -> list[ToolDescriptor]:
    column = {"type": "string", "description": "Column name as listed."}
    return [ToolDescriptor(
        "statistics", "Exact statistics (SciPy) on columns x and y of a table: describe gives mean, "
        "median, sample/population std, skewness, kurtosis; also correlations, t-tests, chi-square of "
        "two categorical columns, normality, linear regression of y on x, outlier counts.",
        {"type": "object", "properties": {
            "test": {"type": "string", "enum": list(TESTS)},
            "table": {"type": "string", "description": "Table or DataFrame name."},
            "x": column, "y": column,
            "group": {"type": "string", "description": "ttest: column with the two groups; describe: one line per group."},
            "where": {"type": "string", "description": "Optional SQL condition on rows."},
            "value": {"type": "number", "description": "one_sample_ttest: mean to test against."},
            "threshold": {"type": "number", "description": "zscore_outliers: |z| cut-off (default 3)."}},
         "required": ["test", "table", "x"]},
        _statistics, available=has_engine, source="analysis")]
