"""Typed operations against pandas and SciPy computed directly on the same frames, through a
real DuckDB engine; each SQL operation's cell run again on a fresh engine gives the same rows."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.analysis.operations import (OperationError, compile_operation, run_compiled, run_operation,
                                                 tables_of)

rng = np.random.default_rng(11)
N = 240
REGIONS = rng.choice(["north", "south", "east", "west"], N)
STAMPS = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365 * 24 * 60, N), unit="min")
PRICE = np.round(rng.uniform(5, 3000, N), 2)
QTY = rng.integers(0, 9, N).astype(float)

#: clean: number and timestamp types
SALES = pd.DataFrame({"region": REGIONS, "amount": rng.normal(100, 25, N), "units": QTY,
                      "score": rng.normal(0, 1, N), "at": STAMPS, "flag": rng.choice(["a", "b"], N),
                      "kind": rng.choice(["p", "q", "r"], N)})
SALES.loc[::19, "amount"] = np.nan
SALES.loc[0, "amount"] = 400.0     # an outlier

#: messy: numbers and dates written as text, missing markers
MESSY = pd.DataFrame({
    "Region": REGIONS,
    "Price (USD)": [f"${v:,.2f}" for v in PRICE],
    "Qty": [str(int(q)) for q in QTY],
    "Order date": [s.strftime("%d.%m.%Y") for s in STAMPS],
    "Created": [s.strftime("%Y-%m-%d %H:%M:%S") for s in STAMPS],
    "Note": rng.choice(["ok", "n/a", "", "late"], N),
})
MESSY.loc[::23, "Price (USD)"] = "n/a"
PRICE_NUM = pd.Series(np.where(MESSY["Price (USD)"] == "n/a", np.nan, PRICE))
ORDER_DATE = pd.to_datetime(MESSY["Order date"], format="%d.%m.%Y")
CREATED = pd.to_datetime(MESSY["Created"])

DUPES = pd.DataFrame({"a": [1, 1, 2, 2, 2, 3, None, None], "b": ["x", "x", "y", "y", "z", "z", None, None]})
NS = {"sales": SALES, "messy": MESSY, "dupes": DUPES}


@pytest.fixture(scope="module")
def engine():
    engine = AnalysisEngine(None, namespace=lambda: NS)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def fresh():
    """A second engine over the same frames: what a notebook's Run All would query."""
    engine = AnalysisEngine(None, namespace=lambda: NS)
    yield engine
    engine.close()


def op(engine, fresh=None, **args):
    result = run_operation(engine, args)
    if fresh is not None and result.kind == "sql":
        assert result.cell.startswith("%%agent_sql\n")
        again = fresh.query(result.cell.split("\n", 1)[1])
        assert [tuple(r.values()) for r in result.rows] == again.rows
    return result


def test_the_profile_reads_text_numbers_and_dates(engine):
    (messy,) = tables_of(engine, ["messy"])
    assert messy.column("Price (USD)").numeric and messy.column("Qty").numeric
    assert messy.column("Order date").date_format == "%d.%m.%Y" and not messy.column("Order date").has_time
    assert messy.column("Created").has_time and not messy.column("Region").numeric


def test_aggregate_by_group_with_filters_order_and_limit(engine, fresh):
    result = op(engine, fresh, op="aggregate", table="sales",
                measures=[{"fn": "sum", "column": "amount"}, {"fn": "mean", "column": "amount"},
                          {"fn": "median", "column": "amount"}, {"fn": "std", "column": "amount"},
                          {"fn": "std", "column": "amount", "ddof": 0}, {"fn": "var", "column": "amount", "ddof": 1},
                          {"fn": "count"}, {"fn": "count", "column": "amount"},
                          {"fn": "count_distinct", "column": "kind"}, {"fn": "min", "column": "amount"},
                          {"fn": "max", "column": "at"}],
                group_by=["region"], filters=[{"column": "units", "op": ">=", "value": 2},
                                              {"column": "kind", "op": "in", "value": ["p", "q"]}],
                order="desc", limit=3)
    part = SALES[(SALES.units >= 2) & SALES.kind.isin(["p", "q"])]
    g = part.groupby("region")
    want = g.amount.sum().sort_values(ascending=False).head(3)
    rows = result.rows
    assert [r["region"] for r in rows] == list(want.index)
    for row in rows:
        grp = part[part.region == row["region"]]
        assert row["sum(amount)"] == pytest.approx(grp.amount.sum())
        assert row["mean(amount)"] == pytest.approx(grp.amount.mean())
        assert row["median(amount)"] == pytest.approx(grp.amount.median())
        assert row["std_sample(amount)"] == pytest.approx(grp.amount.std(ddof=1))
        assert row["std_population(amount)"] == pytest.approx(grp.amount.std(ddof=0))
        assert row["var_sample(amount)"] == pytest.approx(grp.amount.var(ddof=1))
        assert row["count"] == len(grp) and row["count(amount)"] == grp.amount.count()
        assert row["count_distinct(kind)"] == grp.kind.nunique() and row["min(amount)"] == pytest.approx(grp.amount.min())
        assert pd.Timestamp(row["max(at)"]) == grp["at"].max()
    assert "std_sample(amount): sample standard deviation of amount, ddof=1" in result.text
    assert "std_population(amount)" in result.text and "ddof=0" in result.text
    assert result.text.splitlines()[1].startswith(f"region = {want.index[0]}: sum(amount) = ")


def test_aggregate_over_text_numbers_and_text_dates(engine, fresh):
    result = op(engine, fresh, op="aggregate", table="messy",
                measures=[{"fn": "mean", "column": "Price (USD)"}, {"fn": "sum", "column": "Qty"}],
                group_by=[{"date_part": "year_month", "column": "Order date"}],
                filters=[{"column": "Order date", "op": "between", "value": ["2024-03-01", "2024-05-31"]}])
    frame = pd.DataFrame({"p": PRICE_NUM, "q": QTY, "d": ORDER_DATE})
    frame = frame[(frame.d >= "2024-03-01") & (frame.d <= "2024-05-31")]
    want = frame.groupby(frame.d.dt.strftime("%Y-%m")).agg(p=("p", "mean"), q=("q", "sum"))
    got = {r["year_month(Order date)"]: (r["mean(Price (USD))"], r["sum(Qty)"]) for r in result.rows}
    assert list(got) == list(want.index)
    for month, (p, q) in got.items():
        assert p == pytest.approx(want.loc[month, "p"]) and q == pytest.approx(want.loc[month, "q"])
    assert 'num("Price (USD)")' in result.sql and "try_strptime(\"Order date\", '%d.%m.%Y')" in result.sql
    assert "Price (USD) read as numbers with num()" in result.text


@pytest.mark.parametrize("part, reference", [
    ("weekday", lambda s: s.dt.day_name()), ("month", lambda s: s.dt.month), ("year", lambda s: s.dt.year),
    ("quarter", lambda s: s.dt.quarter), ("hour", lambda s: s.dt.hour),
    ("time_of_day", lambda s: pd.cut(s.dt.hour, [0, 6, 12, 18, 24], right=False,
                                     labels=["night", "morning", "afternoon", "evening"]).astype(str)),
])
def test_date_parts_group_like_pandas(engine, fresh, part, reference):
    result = op(engine, fresh, op="aggregate", table="messy", measures=[{"fn": "count"}],
                group_by=[{"date_part": part, "column": "Created"}])
    want = reference(CREATED).value_counts()
    got = {r[f"{part}({'Created'})"]: r["count"] for r in result.rows}
    assert got == {k: v for k, v in want.items()}
    if part == "weekday":
        assert list(got)[:2] == [d for d in ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                                              "Sunday"] if d in got][:2]
    if part == "time_of_day":
        assert "night 00:00-06:00" in result.text and "evening 18:00-24:00" in result.text


def test_hour_of_a_date_without_time_is_refused(engine):
    with pytest.raises(OperationError, match="without a time"):
        run_operation(engine, {"op": "aggregate", "table": "messy", "group_by": [{"date_part": "hour",
                                                                                  "column": "Order date"}]})


def test_derived_measure_and_bins_key(engine, fresh):
    result = op(engine, fresh, op="aggregate", table="messy",
                measures=[{"fn": "mean", "column": {"derived": "ratio", "a": "Price (USD)", "b": "Qty"}},
                          {"fn": "sum", "column": {"derived": "product", "a": "Price (USD)", "b": "Qty"}}],
                group_by=[{"bins": [0, 500, 1500, 3000], "column": "Price (USD)"}])
    frame = pd.DataFrame({"p": PRICE_NUM, "q": QTY})
    frame["ratio"] = frame.p / frame.q.replace(0, np.nan)
    frame["bin"] = pd.cut(frame.p, [0, 500, 1500, 3000], right=False)
    want = frame.groupby("bin", observed=True).agg(r=("ratio", "mean"), s=("p", lambda s: (s * frame.q[s.index]).sum()))
    rows = [r for r in result.rows if r["bins(Price (USD))"] is not None]
    assert [r["bins(Price (USD))"] for r in rows] == ["[0, 500)", "[500, 1500)", "[1500, 3000)"]
    for row, (_, ref) in zip(rows, want.iterrows()):
        assert row["mean(Price (USD) / Qty)"] == pytest.approx(ref.r) and row["sum(Price (USD) * Qty)"] == pytest.approx(ref.s)
    assert "NULL where Qty is 0" in result.text


def test_distinct_values(engine, fresh):
    result = op(engine, fresh, op="aggregate", table="sales", group_by=["kind"], distinct=True)
    assert [r["kind"] for r in result.rows] == sorted(SALES.kind.unique())


def test_distribution_matches_pandas(engine, fresh):
    result = op(engine, fresh, op="distribution", table="messy", column="Price (USD)", quantiles=[0.1, 0.5, 0.9])
    p = PRICE_NUM.dropna()
    v = result.values
    assert v["n"] == len(p) and v["mean"] == pytest.approx(p.mean()) and v["median"] == pytest.approx(p.median())
    assert v["std_sample"] == pytest.approx(p.std()) and v["std_population"] == pytest.approx(p.std(ddof=0))
    assert v["skewness"] == pytest.approx(p.skew()) and v["kurtosis"] == pytest.approx(p.kurt())
    assert v["q10"] == pytest.approx(p.quantile(0.1)) and v["q90"] == pytest.approx(p.quantile(0.9))
    assert "std_sample = " in result.text and "(ddof=1, sample standard deviation" in result.text
    grouped = op(engine, fresh, op="distribution", table="sales", column="amount", group_by="region")
    for row in grouped.rows:
        a = SALES[SALES.region == row["region"]].amount
        assert row["std_sample"] == pytest.approx(a.std()) and row["q75"] == pytest.approx(a.quantile(0.75))


@pytest.mark.parametrize("method, fn", [("pearson", stats.pearsonr), ("spearman", stats.spearmanr),
                                        ("kendall", stats.kendalltau)])
def test_correlation_matches_scipy(engine, method, fn):
    result = op(engine, op="correlation", table="sales", x="amount", y="score", method=method)
    both = SALES[["amount", "score"]].dropna()
    want = fn(both.amount, both.score)
    name = {"pearson": "pearson_r", "spearman": "spearman_rho", "kendall": "kendall_tau"}[method]
    assert result.values[f"{name}(amount, score)"] == pytest.approx(want[0])
    assert result.values["p_value"] == pytest.approx(want[1]) and result.values["n"] == len(both)
    assert result.kind == "scipy" and result.cell.startswith("from shell_agent_lab.notebook.cells import rerun")


def test_the_column_most_correlated(engine):
    result = op(engine, op="correlation", table="sales", x="amount")
    frame = SALES[["amount", "units", "score"]]
    rs = {c: frame[["amount", c]].dropna().corr().iloc[0, 1] for c in ("units", "score")}
    assert result.values["strongest"] == max(rs, key=lambda c: abs(rs[c]))
    assert result.values["pearson_r(amount, units)"] == pytest.approx(rs["units"])


def test_t_tests_match_scipy(engine):
    part = SALES.dropna(subset=["amount"])
    a, b = part[part.flag == "a"].amount, part[part.flag == "b"].amount
    welch = op(engine, op="test", table="sales", test="welch", column="amount", by="flag").values
    assert welch["t_statistic"] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).statistic)
    assert welch["p_value"] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    student = op(engine, op="test", table="sales", test="student", column="amount", by="flag").values
    assert student["p_value"] == pytest.approx(stats.ttest_ind(a, b).pvalue) and student["df"] == len(a) + len(b) - 2
    n, s = part[part.region == "north"].amount, part[part.region == "south"].amount
    picked = op(engine, op="test", table="sales", test="welch", column="amount", by="region", levels=["south", "north"])
    assert picked.values["t_statistic"] == pytest.approx(stats.ttest_ind(s, n, equal_var=False).statistic)
    pair = SALES[["amount", "score"]].dropna()
    paired = op(engine, op="test", table="sales", test="paired", column="amount", other="score").values
    assert paired["t_statistic"] == pytest.approx(stats.ttest_rel(pair.amount, pair.score).statistic)
    one = op(engine, op="test", table="sales", test="one_sample", column="amount", mu=98).values
    assert one["p_value"] == pytest.approx(stats.ttest_1samp(part.amount, 98).pvalue)


def test_a_t_test_over_more_than_two_groups_asks_for_levels(engine):
    with pytest.raises(OperationError, match="levels"):
        run_operation(engine, {"op": "test", "table": "sales", "test": "welch", "column": "amount", "by": "region"})


def test_chi_square_with_and_without_yates_anova_and_normality(engine):
    table = pd.crosstab(SALES.flag, SALES.region.isin(["north", "south"]))
    with_yates = op(engine, op="test", table="sales", test="chi_square", column="flag", by="flag").values
    assert with_yates["dof"] == 1
    two = SALES.assign(ns=np.where(SALES.region.isin(["north", "south"]), "ns", "ew"))
    NS["two"] = two
    try:
        yes = op(engine, op="test", table="two", test="chi_square", column="flag", by="ns").values
        no = op(engine, op="test", table="two", test="chi_square", column="flag", by="ns", yates=False).values
    finally:
        del NS["two"]
    assert yes["chi2"] == pytest.approx(stats.chi2_contingency(table.values)[0])
    assert no["chi2"] == pytest.approx(stats.chi2_contingency(table.values, correction=False)[0])
    assert yes["chi2"] < no["chi2"]
    big = pd.crosstab(SALES.kind, SALES.region)
    chi = op(engine, op="test", table="sales", test="chi_square", column="kind", by="region").values
    assert chi["p_value"] == pytest.approx(stats.chi2_contingency(big.values)[1]) and chi["dof"] == 6
    part = SALES.dropna(subset=["amount"])
    anova = op(engine, op="test", table="sales", test="anova", column="amount", by="region").values
    assert anova["f_statistic"] == pytest.approx(stats.f_oneway(*[g.amount for _, g in part.groupby("region")]).statistic)
    shapiro = op(engine, op="test", table="sales", test="shapiro", column="score").values
    assert shapiro["W"] == pytest.approx(stats.shapiro(SALES.score).statistic)
    normal = op(engine, op="test", table="messy", test="normaltest", column="Price (USD)").values
    assert normal["p_value"] == pytest.approx(stats.normaltest(PRICE_NUM.dropna()).pvalue)


def test_outliers_by_zscore_and_iqr(engine, fresh):
    s = SALES.amount.dropna().to_numpy()
    z = (s - s.mean()) / s.std()
    count = op(engine, fresh, op="outliers", table="sales", column="amount", method="zscore", threshold=2.5).values
    assert count["outliers"] == int((np.abs(z) > 2.5).sum()) and count["std_population"] == pytest.approx(s.std())
    sample = op(engine, fresh, op="outliers", table="sales", column="amount", method="zscore", ddof=1).values
    assert sample["outliers"] == int((np.abs((s - s.mean()) / s.std(ddof=1)) > 3).sum())
    listed = op(engine, fresh, op="outliers", table="sales", column="amount", method="zscore", output="list", limit=5)
    assert listed.rows[0]["amount"] == 400.0 and listed.rows[0]["z_score"] == pytest.approx(z.max())
    q1, q3 = np.percentile(s, [25, 75])
    for k in (1.5, 3):
        iqr = op(engine, fresh, op="outliers", table="sales", column="amount", method="iqr", k=k).values
        low, high = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
        assert iqr["outliers"] == int(((s < low) | (s > high)).sum()) and iqr["upper_fence"] == pytest.approx(high)
    rows = op(engine, fresh, op="outliers", table="sales", column="amount", method="iqr", output="list").rows
    fences = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    assert sorted(r["amount"] for r in rows) == sorted(v for v in s if v < fences[0] or v > fences[1])
    assert rows[0]["amount"] == 400.0       # the farthest from the middle first


def test_regression_matches_linregress(engine, fresh):
    result = op(engine, fresh, op="regression", table="messy", x="Qty", y="Price (USD)")
    frame = pd.DataFrame({"q": QTY, "p": PRICE_NUM}).dropna()
    fit = stats.linregress(frame.q, frame.p)
    v = result.values
    assert v["slope"] == pytest.approx(fit.slope) and v["intercept"] == pytest.approx(fit.intercept)
    assert v["r_squared"] == pytest.approx(fit.rvalue ** 2) and v["n"] == len(frame)


def test_missing_values_with_and_without_markers(engine, fresh):
    result = op(engine, fresh, op="missing", table="messy")
    got = {r["column"]: (r["missing"], r["share"]) for r in result.rows}
    notes = MESSY.Note.str.strip().str.lower().isin(["n/a", ""]).sum()
    assert got["Note"] == (notes, pytest.approx(notes / N))
    assert got["Price (USD)"][0] == PRICE_NUM.isna().sum() and got["Region"][0] == 0
    plain = op(engine, fresh, op="missing", table="sales", markers=False)
    assert {r["column"]: r["missing"] for r in plain.rows} == SALES.isna().sum().to_dict()


def test_duplicates_full_rows_and_a_subset(engine, fresh):
    full = op(engine, fresh, op="duplicates", table="dupes").values
    assert full["duplicate_rows"] == DUPES.duplicated().sum() == 3 and full["duplicated_groups"] == 3
    subset = op(engine, fresh, op="duplicates", table="dupes", columns=["a"]).values
    assert subset["duplicate_rows"] == DUPES.duplicated(subset=["a"]).sum()
    listed = op(engine, fresh, op="duplicates", table="dupes", output="list")
    assert listed.rows == [{"a": 1.0, "b": "x", "copies": 2}, {"a": 2.0, "b": "y", "copies": 2},
                           {"a": None, "b": None, "copies": 2}]


def test_compile_refuses_what_the_table_lacks(engine):
    tables = tables_of(engine, ["sales"])
    with pytest.raises(OperationError, match="no column 'revenue'"):
        compile_operation({"op": "aggregate", "table": "sales", "measures": [{"fn": "sum", "column": "revenue"}]}, tables)
    with pytest.raises(OperationError, match="not numbers"):
        compile_operation({"op": "aggregate", "table": "sales", "measures": [{"fn": "mean", "column": "region"}]}, tables)
    with pytest.raises(OperationError, match="unknown table"):
        compile_operation({"op": "missing", "table": "orders"}, tables)


def test_a_compiled_operation_runs_again_from_its_sql(engine, fresh):
    compiled = compile_operation({"op": "aggregate", "table": "messy", "measures": [{"fn": "sum", "column": "Qty"}]},
                                 tables_of(engine, ["messy"]))
    first = run_compiled(engine, compiled)
    assert fresh.query(compiled.sql).rows == [(pytest.approx(QTY.sum()),)]
    assert first.values["sum(Qty)"] == pytest.approx(QTY.sum()) and not math.isnan(first.values["sum(Qty)"])


@pytest.mark.parametrize("flt, mask", [
    ({"op": "=", "value": "2024-03"}, ORDER_DATE.dt.strftime("%Y-%m") == "2024-03"),
    ({"op": "between", "value": ["2024-02", "2024-04"]}, ORDER_DATE.dt.month.between(2, 4)),
    ({"op": "<", "value": "2024-02-10"}, ORDER_DATE < "2024-02-10"),
    ({"op": "=", "value": 2024}, ORDER_DATE.dt.year == 2024),
    ({"op": "in", "value": [f"{d:%Y-%m-%d}" for d in ORDER_DATE[:2]]}, ORDER_DATE.isin(ORDER_DATE[:2])),
])
def test_date_filters_compare_at_the_values_precision(engine, fresh, flt, mask):
    result = op(engine, fresh, op="aggregate", table="messy", measures=[{"fn": "count"}],
                filters=[{"column": "Order date", **flt}])
    assert result.values["count"] == int(mask.sum())


def test_a_date_filter_with_something_else_is_refused(engine):
    with pytest.raises(OperationError, match="not a date"):
        run_operation(engine, {"op": "aggregate", "table": "messy",
                               "filters": [{"column": "Order date", "op": "=", "value": "March"}]})


def test_levels_name_number_groups_as_written(engine):
    """Groups of a number column (units 1.0, 2.0 …) are picked as levels [1, 2] or ["1", "2"]."""
    part = SALES.dropna(subset=["amount"])
    want = stats.ttest_ind(part[part.units == 1].amount, part[part.units == 2].amount)
    for levels in ([1, 2], ["1", "2"]):
        got = op(engine, op="test", table="sales", test="student", column="amount", by="units", levels=levels)
        assert got.values["t_statistic"] == pytest.approx(want.statistic)
