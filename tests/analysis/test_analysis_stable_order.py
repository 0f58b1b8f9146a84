"""Query results come back in the same order on every run."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from shell_agent_lab.analysis import AnalysisSettings
from shell_agent_lab.analysis.stable_order import needs_stable_order
from tests.support.sql_trees import statement_tree

_tree = statement_tree


@pytest.mark.parametrize("sql", [
    "SELECT product, sum(revenue) FROM sales GROUP BY product",
    "SELECT DISTINCT region FROM sales",
    "SELECT a.x, b.y FROM a JOIN b USING (id)",
    "SELECT x, row_number() OVER (PARTITION BY g) FROM t",
    "SELECT x FROM t QUALIFY row_number() OVER (PARTITION BY g ORDER BY x) = 1",
    "SELECT x FROM a UNION SELECT x FROM b",
    "WITH s AS (SELECT g, count(*) n FROM t GROUP BY g) SELECT * FROM s",
    "SELECT * FROM (SELECT g, count(*) n FROM t GROUP BY g) q WHERE n > 1",
    "SELECT * FROM t GROUP BY ALL",
])
def test_unordered_aggregates_joins_and_windows_get_sorted(sql):
    assert needs_stable_order(_tree(sql))


@pytest.mark.parametrize("sql", [
    "SELECT * FROM sales",
    "SELECT product, revenue * 2 FROM sales WHERE revenue > 10",
    "SELECT product, sum(revenue) FROM sales GROUP BY product ORDER BY 2 DESC",
    "SELECT product, sum(revenue) FROM sales GROUP BY product LIMIT 3",
    "SELECT * FROM (SELECT g, count(*) n FROM t GROUP BY g ORDER BY n) q",
    "WITH s AS (SELECT * FROM t WHERE x > 1) SELECT * FROM s",
    "SELECT x FROM a UNION ALL SELECT x FROM b",
    "SELECT 1",
    "SELECT count(*) FROM sales",    # one row without GROUP BY
    "DESCRIBE sales",
])
def test_ordered_limited_and_plain_scans_are_left_alone(sql):
    assert not needs_stable_order(_tree(sql))


def test_a_cte_that_names_itself_does_not_loop():
    # a CTE that reads a stored table of the same name: the name resolves to the table inside it
    assert not needs_stable_order(_tree("WITH t AS (SELECT * FROM t WHERE x > 0) SELECT * FROM t"))


@pytest.fixture
def many_groups():
    n = 400_000
    return pd.DataFrame({"k": [f"k{(i * 7919) % 5003:05d}" for i in range(n)],
                         "v": [float(i % 97) for i in range(n)]})


def test_group_by_without_order_returns_sorted_rows_and_the_original_sql(make_engine, many_groups):
    engine = make_engine(AnalysisSettings(threads=2), ns={"frame": many_groups})
    sql = "SELECT k, sum(v) AS total FROM frame GROUP BY k"
    result = engine.query(sql)
    keys = result.table.column("k").to_pylist()
    assert len(keys) == 5003
    assert keys == sorted(keys)
    assert result.sql == sql            # what the user sees and can insert as a cell
    again = engine.query(sql)
    assert again.table.equals(result.table)


def test_a_plain_scan_keeps_storage_order(make_engine):
    frame = pd.DataFrame({"x": list(range(1000, 0, -1))})
    engine = make_engine(ns={"frame": frame})
    result = engine.query("SELECT x FROM frame WHERE x % 2 = 0")
    assert result.table.column("x").to_pylist() == list(range(1000, 0, -2))


def test_the_models_own_order_wins(make_engine, many_groups):
    engine = make_engine(ns={"frame": many_groups})
    result = engine.query("SELECT k, count(*) AS n FROM frame GROUP BY k ORDER BY k DESC")
    keys = result.table.column("k").to_pylist()
    assert keys == sorted(keys, reverse=True)


def test_a_column_that_cannot_be_sorted_falls_back_to_the_original(make_engine, monkeypatch):
    engine = make_engine(ns={"frame": pd.DataFrame({"g": ["b", "a", "b"]})})
    real = engine._conn.sql
    seen = []

    def refuse_sorted(text, *args, **kwargs):
        seen.append(text)
        if text.endswith("ORDER BY ALL"):
            raise duckdb.BinderException("cannot sort")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(engine, "_conn", _Proxy(engine._conn, sql=refuse_sorted))
    result = engine.query("SELECT g, count(*) AS n FROM frame GROUP BY g")
    assert sorted(result.table.column("g").to_pylist()) == ["a", "b"]
    assert [s.endswith("ORDER BY ALL") for s in seen[-2:]] == [True, False]


class _Proxy:
    def __init__(self, inner, **overrides):
        self._inner, self._overrides = inner, overrides

    def __getattr__(self, name):
        return self._overrides.get(name) or getattr(self._inner, name)
