"""Result rendering for the model: one canonical text per DuckDB type."""
from __future__ import annotations

import datetime as dt
import decimal
import uuid

import pytest

from shell_agent_lab.analysis.render import format_interval, format_value, render_rows

SWEEP = """
SELECT uuid '550e8400-e29b-41d4-a716-446655440000' AS u,
       '\\x00\\xFFab'::BLOB AS b,
       12.340::DECIMAL(10, 3) AS d,
       170141183460469231731687303715884105727::HUGEINT AS h,
       INTERVAL '1 year 2 months 3 days 04:05:06.5' AS i,
       MAP {'a': 1, 'b': 2} AS m,
       TIME '12:34:56.789' AS t,
       TIMESTAMP '2024-01-02 03:04:05' AS ts,
       TIMESTAMPTZ '2024-01-02 03:04:05+00' AS tz,
       DATE '2024-01-02' AS dd,
       [1, NULL, 3] AS l,
       {'x': 1, 'y': 'z'} AS s,
       NULL AS n,
       'NaN'::DOUBLE AS nan,
       true AS yes,
       'a|b\nc' AS text
"""

EXPECTED = {
    "u": "550e8400-e29b-41d4-a716-446655440000",
    "b": "base64:AP9hYg==",
    "d": "12.340",
    "h": "170141183460469231731687303715884105727",
    "i": "1 year 2 months 3 days 04:05:06.5",
    "m": "{a=1, b=2}",
    "t": "12:34:56.789",
    "ts": "2024-01-02 03:04:05",
    "tz": "2024-01-02 03:04:05+00:00",
    "dd": "2024-01-02",
    "l": "[1, NULL, 3]",
    "s": "{'x': 1, 'y': z}",
    "n": "NULL",
    "nan": "NaN",
    "yes": "true",
    "text": "a|b\nc",
}


def test_type_sweep_through_duckdb(make_engine):
    engine = make_engine(memory=True)
    result = engine.query(SWEEP)
    rendered = {c: format_value(v, t) for c, t, v in zip(result.columns, result.types, result.rows[0])}
    assert rendered == EXPECTED
    table = result.to_text()
    # one row reads as "column = value" lines, control characters escaped
    assert " = a|b\\nc\n" in table and table.endswith("(1 row)")
    assert table.count("\n") == len(result.columns)
    many = engine.query("SELECT * FROM (VALUES ('a|b'), ('c')) t(x)").to_text()
    assert "| a\\|b |" in many and many.endswith("(2 rows)")


@pytest.mark.parametrize(("value", "type_name", "text"), [
    (uuid.UUID(int=1), "UUID", "00000000-0000-0000-0000-000000000001"),
    (b"", "BLOB", "base64:"),
    (decimal.Decimal("1E+3"), "DECIMAL(10,0)", "1000"),
    (decimal.Decimal("-0.000001"), "DECIMAL(10,6)", "-0.000001"),
    (dt.time(0, 0), "TIME", "00:00:00"),
    (dt.datetime(2024, 1, 1, 0, 0, 0, 500), "TIMESTAMP", "2024-01-01 00:00:00.0005"),
    (dt.timedelta(days=-1, hours=2), "INTERVAL", "-1 day 02:00:00"),
    (float("inf"), "DOUBLE", "Infinity"),
    (1.0, "DOUBLE", "1.0"),
    ([("k", None)], "MAP(VARCHAR, INTEGER)", "{k=NULL}"),
])
def test_format_value_table(value, type_name, text):
    assert format_value(value, type_name) == text


@pytest.mark.parametrize(("parts", "text"), [
    ((0, 0, 0), "00:00:00"),
    ((12, 0, 0), "1 year"),
    ((1, 1, 0), "1 month 1 day"),
    ((0, 0, -3_600_000_000_000), "-01:00:00"),
    ((25, 0, 1_000), "2 years 1 month 00:00:00.000001"),
])
def test_intervals(parts, text):
    assert format_interval(*parts) == text


@pytest.mark.parametrize("literal", ["-1 day 2 hours", "12 months", "1 month 1 day", "-1 hour",
                                     "25 months 1 microsecond", "-13 months", "0 seconds",
                                     "1 year 2 months 3 days 04:05:06.5", "-2 days -3 minutes"])
def test_intervals_match_duckdbs_own_text(make_engine, literal):
    engine = make_engine(memory=True)
    result = engine.query(f"SELECT INTERVAL '{literal}' AS i, (INTERVAL '{literal}')::VARCHAR AS text")
    value, text = result.rows[0]
    assert format_value(value, "INTERVAL") == text


def test_render_rows_caps_rows_and_characters():
    rows = [(i, "x" * 50) for i in range(1000)]
    text = render_rows(["i", "s"], ["INTEGER", "VARCHAR"], rows, max_rows=10)
    assert text.splitlines()[-1] == "(1,000 rows; first 10 shown)"
    small = render_rows(["i", "s"], ["INTEGER", "VARCHAR"], rows, max_chars=500)
    assert len(small) < 700 and "first" in small.splitlines()[-1]
    assert render_rows(["a"], ["INTEGER"], []).endswith("(0 rows)")
    long_cell = render_rows(["s"], ["VARCHAR"], [("y" * 500,)], max_cell=20)
    assert "y" * 19 + "…" in long_cell and "y" * 21 not in long_cell
