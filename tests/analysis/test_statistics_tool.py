"""The statistics tool against SciPy and pandas computed directly on the same data."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.analysis.tools_stats import _statistics
from shell_agent_lab.tools.registry import ToolContext, ToolError

rng = np.random.default_rng(7)
N = 300
FRAME = pd.DataFrame({
    "a": rng.normal(10, 3, N), "b": rng.normal(0, 1, N),
    "Price (USD)": [f"${v:,.2f}" for v in rng.uniform(5, 3000, N)],
    "g": rng.choice(["x", "y"], N), "h": rng.choice(["p", "q", "r"], N)})
FRAME.loc[::17, "a"] = np.nan
PRICE = FRAME["Price (USD)"].str.replace(r"[$,]", "", regex=True).astype(float)


@pytest.fixture(scope="module")
def ctx():
    engine = AnalysisEngine(None, namespace=lambda: {"df": FRAME})
    yield ToolContext(session_id="s", store=None, engine=engine)
    engine.close()


def values(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r"^(\w+) = (\S+)", text, re.M) if v not in ("NaN",)}


def run(ctx, **args) -> dict[str, float]:
    return values(_statistics(ctx, {"table": "df", **args}).content)


def test_describe_matches_pandas_including_text_numbers(ctx):
    got = run(ctx, test="describe", x="Price (USD)")
    assert got["std_sample"] == pytest.approx(PRICE.std(), rel=1e-6)
    assert got["std_population"] == pytest.approx(PRICE.std(ddof=0), rel=1e-6)
    assert got["skewness"] == pytest.approx(PRICE.skew(), rel=1e-5)
    assert got["kurtosis"] == pytest.approx(PRICE.kurt(), rel=1e-5)
    assert got["median"] == pytest.approx(PRICE.median(), rel=1e-6) and got["count"] == N


def test_correlations_regression_and_tests_match_scipy(ctx):
    both = FRAME[["a", "b"]].dropna()
    assert run(ctx, test="pearson", x="a", y="b")["pearson_r"] == pytest.approx(stats.pearsonr(both.a, both.b)[0], abs=1e-6)
    assert run(ctx, test="spearman", x="a", y="b")["spearman_rho"] == pytest.approx(
        stats.spearmanr(both.a, both.b)[0], abs=1e-6)
    fit = stats.linregress(both.a, both.b)
    got = run(ctx, test="linear_regression", x="a", y="b")
    assert got["slope"] == pytest.approx(fit.slope, rel=1e-5) and got["r_squared"] == pytest.approx(fit.rvalue ** 2, rel=1e-4)
    a = FRAME.dropna(subset=["a"])
    t = stats.ttest_ind(a[a.g == "x"].a, a[a.g == "y"].a)
    got = run(ctx, test="ttest", x="a", group="g")
    assert got["p_value"] == pytest.approx(t.pvalue, rel=1e-4)
    chi = stats.chi2_contingency(pd.crosstab(FRAME.g, FRAME.h).values)
    assert run(ctx, test="chi_square", x="g", y="h")["p_value"] == pytest.approx(chi[1], rel=1e-4)


def test_outliers_by_zscore_and_iqr(ctx):
    s = FRAME["a"].dropna().to_numpy()
    z = np.abs((s - s.mean()) / s.std())
    got = run(ctx, test="zscore_outliers", x="a", threshold=2)
    assert got["outliers"] == int((z > 2).sum())
    q1, q3 = np.percentile(s, [25, 75])
    iqr = run(ctx, test="iqr_outliers", x="a")
    assert iqr["outliers"] == int(((s < q1 - 1.5 * (q3 - q1)) | (s > q3 + 1.5 * (q3 - q1))).sum())


def test_describe_by_group_and_where(ctx):
    text = _statistics(ctx, {"table": "df", "test": "describe", "x": "Price (USD)", "group": "h"}).content
    line = next(l for l in text.splitlines() if l.startswith("h=q:"))
    assert f"median = {PRICE[FRAME.h == 'q'].median():.6f}".rstrip("0") in line
    got = run(ctx, test="describe", x="Price (USD)", where="h = 'p'")
    assert got["mean"] == pytest.approx(PRICE[FRAME.h == "p"].mean(), rel=1e-6)


def test_clear_errors(ctx):
    with pytest.raises(ToolError, match="holds text, not numbers"):
        _statistics(ctx, {"table": "df", "test": "pearson", "x": "h", "y": "a"})
    with pytest.raises(ToolError, match="the rows selected have 3 .p, q, r.. h holds: p, q, r. Pick two"):
        _statistics(ctx, {"table": "df", "test": "ttest", "x": "a", "group": "h"})
    with pytest.raises(ToolError, match="no column"):
        _statistics(ctx, {"table": "df", "test": "describe", "x": "nope"})
    with pytest.raises(ToolError, match="unknown test"):
        _statistics(ctx, {"table": "df", "test": "anova", "x": "a"})


def test_describe_reads_what_a_small_model_meant(ctx):
    # a text column alone: each value's rows and share
    text = _statistics(ctx, {"table": "df", "test": "describe", "x": "g", "where": "h = 'p'"}).content
    share = (FRAME[FRAME.h == "p"].g == "x").mean() * 100
    assert f"g=x: count = {int((FRAME[FRAME.h == 'p'].g == 'x').sum())}, percent = " in text
    assert float(re.search(r"g=x: count = \d+, percent = (\S+)", text).group(1)) == pytest.approx(share, rel=1e-6)
    # a value where a column goes picks the rows holding it; a text x with numbers in y describes y by x
    text = _statistics(ctx, {"table": "df", "test": "describe", "x": "h", "y": "Price (USD)", "group": "q"}).content
    assert text.count("h=") == 1 and f"median = {PRICE[FRAME.h == 'q'].median():.6f}".rstrip("0") in text
    # another spelling of a column's words
    assert run(ctx, test="describe", x="price usd")["count"] == N
