"""Month, year and week buckets run in their faster form and return exactly what DuckDB's
``date_trunc`` returns."""
from __future__ import annotations

import datetime as dt

import duckdb
import pandas as pd
import pytest

from shell_agent_lab.analysis import AnalysisSettings, SQLRejectedError
from shell_agent_lab.analysis.date_buckets import faster_date_buckets
from shell_agent_lab.analysis.sql_gate import SQLGate
from tests.support.sql_trees import statement_tree

_tree = statement_tree


def _fast(sql: str) -> str | None:
    return faster_date_buckets(_tree(sql), sql)


@pytest.mark.parametrize("sql", [
    "SELECT date_trunc('month', d) AS m FROM t",
    "SELECT DATE_TRUNC('MONTH', d) AS m FROM t",
    "SELECT datetrunc('year', t.d) AS y FROM t",
    "SELECT date_trunc('weeks', \"Order Date\") AS w FROM t",
    "SELECT count(*) AS n FROM t GROUP BY date_trunc('month', d)",
    "SELECT 'é ü' AS s, date_trunc('month', d) AS m FROM t GROUP BY ALL",   # byte offsets after UTF-8
])
def test_bucket_calls_on_a_column_are_rewritten(sql):
    fast = _fast(sql)
    assert fast is not None and "isfinite(" in fast and fast.count("CASE WHEN") == 1
    head = sql[:sql.lower().index("date")]
    assert fast.startswith(head + "(CASE")


@pytest.mark.parametrize("sql", [
    "SELECT date_trunc('month', d) FROM t",                       # named after its own text
    "SELECT strftime(date_trunc('month', d), '%Y-%m') FROM t",
    "SELECT date_trunc('month', d) AS m, count(*) FROM t GROUP BY date_trunc('month', d) "
    "UNION ALL SELECT date_trunc('month', d), 1 FROM t",           # all or nothing
    "DESCRIBE SELECT date_trunc('month', d), sum(x) FROM t GROUP BY ALL",
    "SELECT to_json(q) FROM (SELECT date_trunc('month', d) FROM t) q",
])
def test_calls_whose_text_names_a_column_leave_the_query_alone(sql):
    assert _fast(sql) is None


@pytest.mark.parametrize("sql", [
    "SELECT date_trunc('day', d) FROM t",              # already fast in DuckDB
    "SELECT date_trunc('quarter', d) FROM t",
    "SELECT date_trunc('month', d + 1) FROM t",        # an expression would be evaluated twice
    "SELECT date_trunc('month', random_date()) FROM t",
    "SELECT date_trunc(part, d) FROM t",               # part not a constant
    "SELECT date_trunc('month', d, 'x') FROM t",
    "SELECT other.date_trunc('month', d) FROM t",
    "SELECT d FROM t",
])
def test_other_calls_are_left_alone(sql):
    try:
        tree = _tree(sql)
    except duckdb.Error:
        return
    assert faster_date_buckets(tree, sql) is None


def test_the_faster_form_must_pass_the_gate_like_the_original():
    gate = SQLGate()
    try:
        gated = gate.check("SELECT date_trunc('month', d) AS m, count(*) AS n FROM t GROUP BY m", ["t"])
        assert gated.fast_sql is not None and gated.sql.startswith("SELECT date_trunc(")
        with pytest.raises(SQLRejectedError):
            gate.check("SELECT date_trunc('month', d) FROM '/etc/passwd'", ["t"])
    finally:
        gate.close()


_SWEEP = ["2024-02-29", "2023-12-31", "2024-01-01", "1969-12-31", "1900-03-01", "0044-03-15",
          "2024-03-10", "2024-03-11", "2021-01-03", "9999-12-31"]


@pytest.fixture
def dates_table(make_engine, namespace):
    engine = make_engine(AnalysisSettings(threads=2))
    namespace["dates"] = pd.DataFrame({"k": range(len(_SWEEP) + 1)})
    rows = ", ".join(f"({i}, DATE '{d}', TIMESTAMP '{d} 13:45:07.123456')" for i, d in enumerate(_SWEEP))
    engine.create_table_from_query(
        "days", f"SELECT * FROM (VALUES {rows}, ({len(_SWEEP)}, NULL, NULL)) v(k, d, ts)")
    engine.create_table_from_query(
        "edges", "SELECT * FROM (VALUES (1, 'infinity'::DATE, '-infinity'::TIMESTAMP), "
                 "(2, '-infinity'::DATE, 'infinity'::TIMESTAMP)) v(k, d, ts)")
    return engine


@pytest.mark.parametrize("part", ["month", "year", "week", "MONTHS", "Years", "weeks"])
@pytest.mark.parametrize("column", ["d", "ts"])
@pytest.mark.parametrize("table", ["days", "edges"])
def test_the_faster_form_returns_what_date_trunc_returns(dates_table, part, column, table):
    sql = f"SELECT k, date_trunc('{part}', {column}) AS b FROM {table} ORDER BY k"
    gated = dates_table.check_sql(sql)
    assert gated.fast_sql is not None
    result = dates_table.query(sql)
    assert result.columns == ["k", "b"]
    assert result.types == ["INTEGER", "TIMESTAMP"]
    assert result.sql == sql
    # as text, so infinite timestamps compare too; DuckDB's own date_trunc is the reference
    text = f"SELECT k, CAST(date_trunc('{part}', {column}) AS VARCHAR) AS b FROM {table} ORDER BY k"
    assert dates_table.check_sql(text).fast_sql is not None
    assert dates_table.query(text).rows == dates_table._conn.execute(text).fetchall()


def test_grouping_by_month_gives_the_same_groups_and_keeps_the_text(dates_table):
    sql = ("SELECT date_trunc('month', d) AS month, count(*) AS n FROM days "
           "GROUP BY date_trunc('month', d)")
    result = dates_table.query(sql)
    assert result.rows == dates_table._conn.execute(sql + " ORDER BY ALL").fetchall()
    assert result.sql == sql and result.columns == ["month", "n"]


def test_a_time_zone_column_gets_date_trunc_s_type_and_values(dates_table):
    # buckets of TIMESTAMP WITH TIME ZONE follow the session's zone; the faster form must give
    # date_trunc's type and values, also when the bucket is wrapped in an expression that
    # hides its type
    dates_table.create_table_from_query("zoned", "SELECT k, ts::TIMESTAMPTZ AS tz FROM days")
    for sql in ["SELECT k, date_trunc('month', tz) AS m FROM zoned ORDER BY k",
                "SELECT k, CAST(date_trunc('month', tz) AS VARCHAR) AS m FROM zoned ORDER BY k",
                "SELECT k, epoch(date_trunc('year', tz)) AS m FROM zoned ORDER BY k"]:
        assert dates_table.check_sql(sql).fast_sql is not None
        result = dates_table.query(sql)
        assert result.types[1] == dates_table._conn.sql(sql).types[1]
        text = f"SELECT k, CAST(m AS VARCHAR) FROM ({sql})"
        assert [r[1] for r in dates_table.query(text).rows] == \
            [r[1] for r in dates_table._conn.execute(text).fetchall()]


def test_the_type_test_is_decided_when_binding():
    con = duckdb.connect()
    plan = con.execute("EXPLAIN SELECT CASE WHEN typeof(d) IN ('DATE', 'TIMESTAMP') THEN 1 ELSE 2 END "
                       "FROM (SELECT DATE '2024-01-01' + i::INTEGER AS d FROM range(10) t(i))").fetchall()
    assert "typeof" not in "".join(row[1] for row in plan)


def test_a_text_column_keeps_date_trunc_or_is_read_as_dates(dates_table):
    dates_table.create_table_from_query("texts", "SELECT k, CAST(d AS VARCHAR) AS s FROM days WHERE k = 0")
    sql = "SELECT date_trunc('month', s) AS m FROM texts"
    try:
        expected = dates_table._conn.execute(sql).fetchall()
    except duckdb.Error:
        # DuckDB refuses a text argument; the engine reads the ISO text as dates first (a repair
        # it reports), so the values are date_trunc's over those dates
        result = dates_table.query(sql)
        assert result.repairs == ["read the dates stored as text with CAST(s AS DATE)"]
        assert result.rows == dates_table._conn.execute(
            "SELECT date_trunc('month', CAST(s AS DATE)) AS m FROM texts").fetchall()
    else:
        assert dates_table.query(sql).rows == expected


def test_bucket_values_are_the_first_day_at_midnight(dates_table):
    rows = dict(dates_table.query("SELECT k, date_trunc('week', ts) AS w FROM days WHERE k < 3 ORDER BY k").rows)
    assert rows[0] == dt.datetime(2024, 2, 26)       # Thursday 29 Feb 2024 -> Monday 26 Feb
    assert rows[1] == dt.datetime(2023, 12, 25)
    assert rows[2] == dt.datetime(2024, 1, 1)


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata", "UTC"])
def test_buckets_of_zoned_timestamps_follow_the_session_zone(zone):
    con = duckdb.connect()
    con.execute(f"SET TimeZone = '{zone}'")
    con.execute("CREATE TABLE z AS SELECT TIMESTAMPTZ '2024-03-01 02:30:00+00' + INTERVAL (i * 7) HOUR AS tz, "
                "TIMESTAMP_NS '2024-03-01 02:30:00' + INTERVAL (i * 7) HOUR AS ns FROM range(400) t(i)")
    for sql in ["SELECT epoch(date_trunc('month', tz)) AS m FROM z",
                "SELECT CAST(date_trunc('week', tz) AS VARCHAR) AS m FROM z",
                "SELECT epoch(date_trunc('year', ns)) AS m FROM z"]:
        fast = faster_date_buckets(_tree(sql), sql)
        assert fast is not None
        assert con.execute(fast).fetchall() == con.execute(sql).fetchall()


def test_names_stay_what_the_query_says_wherever_they_surface(dates_table):
    for sql in ["DESCRIBE SELECT date_trunc('month', d), count(*) AS n FROM days GROUP BY ALL",
                "SELECT to_json(q) AS j FROM (SELECT k, date_trunc('month', d) FROM days) q ORDER BY j",
                "UNPIVOT (SELECT k, date_trunc('month', d)::VARCHAR FROM days WHERE k < 2) "
                "ON COLUMNS(* EXCLUDE k) INTO NAME n VALUE v"]:
        assert dates_table.check_sql(sql).fast_sql is None
        assert dates_table.query(sql).rows == dates_table._conn.execute(
            sql + ("" if "ORDER BY" in sql else "\nORDER BY ALL")).fetchall()
