"""SQL repair from DuckDB's own errors: the pure rules, and the engine running what they fix."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.analysis.errors import QueryFailedError, SQLRejectedError
from shell_agent_lab.analysis.sql_repair import Column, hint, needs_quotes, repair, sql_name

COLUMNS = [Column("df", "Mar.2020", "VARCHAR", text_numbers=True), Column("df", "No. of cases", "BIGINT"),
           Column("df", "importance.score", "DOUBLE"), Column("df", "Price (USD)", "VARCHAR", text_numbers=True),
           Column("df", "region", "VARCHAR"), Column("df", "2019 total", "DOUBLE"),
           Column("df", "order", "BIGINT"), Column("df", "Order Date", "VARCHAR", date_format="%m/%d/%Y")]


def _error(sql: str) -> str:
    """The first line of the error DuckDB itself gives for ``sql`` over the test frame."""
    conn = duckdb.connect()
    conn.execute('CREATE TABLE df ("Mar.2020" VARCHAR, "No. of cases" BIGINT, "importance.score" DOUBLE, '
                 '"Price (USD)" VARCHAR, region VARCHAR, "2019 total" DOUBLE, "order" BIGINT, "Order Date" VARCHAR)')
    with pytest.raises(duckdb.Error) as info:
        conn.execute(sql)
    return str(info.value).splitlines()[0]


@pytest.mark.parametrize(("sql", "fixed", "change"), [
    ("SELECT avg(Mar.2020) FROM df", 'SELECT avg("Mar.2020") FROM df', 'quoted the column "Mar.2020"'),
    ("SELECT sum(No. of cases) FROM df", 'SELECT sum("No. of cases") FROM df', 'quoted the column "No. of cases"'),
    ("SELECT avg(importance.score) FROM df", 'SELECT avg("importance.score") FROM df', "quoted"),
    ("SELECT max(2019 total) FROM df", 'SELECT max("2019 total") FROM df', "quoted"),
    ("SELECT avg(importance_score) FROM df", 'SELECT avg("importance.score") FROM df',
     'used the column "importance.score" for importance_score'),
    # DuckDB names the unknown function before the unknown column: one fix at a time
    ("SELECT std(importance_score) FROM df", "SELECT stddev_samp(importance_score) FROM df",
     "used stddev_samp() for std()"),
    ("SELECT avg(x) FROM df", None, None),
])
def test_names_sql_cannot_take_bare_are_quoted_from_real_errors(sql, fixed, change):
    found = repair(sql, _error(sql), COLUMNS)
    if fixed is None:
        assert found is None
        return
    assert found is not None and found.sql == fixed and change in found.change


@pytest.mark.parametrize(("sql", "fixed"), [
    ("SELECT std(\"importance.score\") FROM df", 'SELECT stddev_samp("importance.score") FROM df'),
    ("SELECT var(\"importance.score\") FROM df", 'SELECT var_samp("importance.score") FROM df'),
    ("SELECT pstdev(\"importance.score\") FROM df", 'SELECT stddev_pop("importance.score") FROM df'),
    ("SELECT nunique(region) FROM df", "SELECT count(DISTINCT region) FROM df"),
    ("SELECT count(*) FROM df WHERE isnull(region)", "SELECT count(*) FROM df WHERE (region IS NULL)"),
])
def test_pandas_function_names_map_to_duckdb(sql, fixed):
    found = repair(sql, _error(sql), COLUMNS)
    assert found is not None and found.sql == fixed
    duckdb.connect().execute("SELECT 1")  # the fixed text is plain DuckDB


def test_text_numbers_are_read_with_num_in_aggregates():
    sql = 'SELECT region, avg("Price (USD)") FROM df GROUP BY region'
    found = repair(sql, _error(sql), COLUMNS)
    assert found.sql == 'SELECT region, avg(num("Price (USD)")) FROM df GROUP BY region'
    assert "num()" in found.change


def test_a_column_written_as_a_string_is_read_as_the_column():
    sql = "SELECT avg('importance.score') FROM df"
    found = repair(sql, _error(sql), COLUMNS)
    assert found.sql == 'SELECT avg("importance.score") FROM df'


def test_string_literals_and_quoted_names_are_never_touched():
    sql = "SELECT count(*) FROM df WHERE region = 'Mar.2020 importance.score' AND \"No. of cases\" > 1 -- Mar.2020"
    assert repair(sql, "Binder Error: something else", COLUMNS) is None


def test_hints_name_the_fix_when_nothing_can_be_repaired():
    assert "num(" in hint("Conversion Error: Could not convert string '630308[495000-801000]' to INT64", COLUMNS)
    assert "stddev_samp" in hint('Catalog Error: Scalar Function with name std does not exist!', COLUMNS)
    assert '"Mar.2020"' in hint('Binder Error: Referenced column "foo" not found in FROM clause!', COLUMNS)
    assert hint("Binder Error: something unrelated", []) == ""


def test_names_as_sql_needs_them():
    assert [sql_name(n) for n in ("region", "Mar.2020", "2019 total", "order", 'a"b')] == \
        ["region", '"Mar.2020"', '"2019 total"', '"order"', '"a""b"']
    assert not needs_quotes("Region_2") and needs_quotes("Größe")


@pytest.fixture()
def messy():
    frame = pd.DataFrame({"Mar.2020": ["1,000", "630308[495000-801000]", "$2,500.5", "n/a"],
                          "No. of cases": [1, 2, 3, 4], "importance.score": [0.1, 0.2, 0.3, 0.4],
                          "region": ["a", "b", "a", "b"]})
    engine = AnalysisEngine(None, namespace=lambda: {"df": frame})
    yield engine
    engine.close()


def test_the_engine_runs_the_repaired_statement_and_says_what_changed(messy):
    result = messy.query("SELECT avg(Mar.2020) AS m FROM df")
    assert result.rows == [((1000 + 630308 + 2500.5) / 3,)]
    assert result.sql == 'SELECT avg(num("Mar.2020")) AS m FROM df'
    assert result.repairs == ['quoted the column "Mar.2020"', 'read the text column "Mar.2020" as numbers with num()']


def test_repairs_still_pass_the_read_only_gate(messy):
    with pytest.raises(SQLRejectedError):
        messy.query("SELECT * FROM read_csv('/etc/passwd')")


def test_an_unrepairable_error_carries_the_hint_and_what_was_tried(messy):
    with pytest.raises(QueryFailedError) as info:
        messy.query("SELECT stdev(nothing_like_it) FROM df")
    message = str(info.value)
    assert "already corrected: used stddev_samp() for stdev()" in message
    assert '"Mar.2020"' in message


def test_num_reads_the_ways_exports_write_numbers(messy):
    rows = messy.query("SELECT num(x) FROM (VALUES ('$1,234.50'), ('630308[495000-801000]'), ('12.5%'), "
                       "('n/a'), ('-'), (' 7 '), ('1.2e3')) t(x)").rows
    assert [r[0] for r in rows] == [1234.5, 630308.0, 12.5, None, None, 7.0, 1200.0]


def test_the_num_macro_is_not_mistaken_for_a_macro_stored_in_the_file(tmp_path):
    engine = AnalysisEngine(tmp_path / "a.duckdb", namespace=lambda: {})
    try:
        assert engine.query("SELECT num('1,5') AS n").rows == [(15.0,)]
    finally:
        engine.close()


def test_a_bracketed_name_written_bare_is_not_a_function_call():
    columns = [Column("df", "Unit Price (USD)", "DOUBLE"), Column("df", "Units", "BIGINT")]
    sql = "SELECT sum(Units * Unit_Price(USD)) FROM df"
    error = 'Catalog Error: Scalar Function with name unit_price does not exist! Did you mean "union_extract"?'
    found = repair(sql, error, columns)
    assert found.sql == 'SELECT sum(Units * "Unit Price (USD)") FROM df'


def test_the_schema_tells_how_to_read_text_numbers_and_text_dates():
    import io

    from shell_agent_lab.analysis.prompt_schema import schema_block
    frame = pd.read_csv(io.StringIO(
        "Region,Mar.2020,Order Date,EU,ISO\n"
        "West,\"1,000\",03/15/2021,15.03.2021,2021-03-15\n"
        "East,630308[495000-801000],12/01/2021,01.12.2021,2021-12-01\n"
        "North,-,12/02/2021,02.12.2021,2021-12-02\n"))
    engine = AnalysisEngine(None, namespace=lambda: {"df": frame})
    try:
        text = schema_block(engine.tables(), engine)
    finally:
        engine.close()
    assert '- "Mar.2020" VARCHAR (numbers stored as text: use num("Mar.2020")): 1,000 | 630308[495000-801000]' \
        in text and "missing: -" in text
    assert "use strptime(\"Order Date\", '%m/%d/%Y')" in text and "strptime(EU, '%d.%m.%Y')" in text
    assert "CAST(ISO AS DATE)" in text and "- Region VARCHAR: West | East" in text


def test_only_columns_of_text_numbers_are_read_with_num():
    sql = "SELECT count(*) FROM df WHERE region = 'East' AND \"Price (USD)\" > 500"
    error = "Conversion Error: Could not convert string '$1,200.00' to INT32"
    found = repair(sql, error, COLUMNS)
    assert found.sql == "SELECT count(*) FROM df WHERE region = 'East' AND num(\"Price (USD)\") > 500"


@pytest.mark.parametrize(("sql", "fixed"), [
    ("SELECT strftime('%m', \"Order Date\") AS m FROM df",
     "SELECT strftime('%m', strptime(\"Order Date\", '%m/%d/%Y')) AS m FROM df"),
    ("SELECT month(\"Order Date\"), count(*) FROM df GROUP BY 1",
     "SELECT month(strptime(\"Order Date\", '%m/%d/%Y')), count(*) FROM df GROUP BY 1"),
])
def test_dates_stored_as_text_are_read_with_their_format(sql, fixed):
    found = repair(sql, _error(sql), COLUMNS)
    assert found is not None and found.sql == fixed
    assert "strptime" in found.change


def test_a_column_name_in_single_quotes_given_to_a_function_is_the_column(messy):
    result = messy.query("SELECT region, avg(num('Mar.2020')) AS m FROM df GROUP BY region ORDER BY region")
    assert result.sql == 'SELECT region, avg(num("Mar.2020")) AS m FROM df GROUP BY region ORDER BY region'
    assert result.rows[0][1] == pytest.approx((1000 + 2500.5) / 2)
    # a string that is only a value stays a value
    assert messy.query("SELECT 'region' AS x FROM df LIMIT 1").rows == [("region",)]


def test_a_made_up_table_name_is_the_only_table(messy):
    result = messy.query("SELECT count(*) AS n FROM listings")
    assert result.rows == [(4,)] and result.repairs == ["read listings as df, the only table"]


def test_answers_keep_the_tool_results_rounding():
    from shell_agent_lab.agent._loopguard import correct_rounding
    sources = ["slope = 187.294888\nintercept = 65354.693339", "count = 3045", "mean = 4.91263"]
    assert correct_rounding("@slope[187.30], @intercept[65354.70]", sources) == "@slope[187.29], @intercept[65354.69]"
    assert correct_rounding("@n[3045] about 4.9, @mean[4.91]", sources) == "@n[3045] about 4.9, @mean[4.91]"
    assert correct_rounding("@x[12.35] on 2021-03-15", sources) == "@x[12.35] on 2021-03-15"


@pytest.mark.parametrize("expr", ['DATE("Order Date")', 'CAST("Order Date" AS DATE)', '"Order Date"::DATE'])
def test_casts_of_dates_stored_in_another_format_use_strptime(expr):
    sql = f"SELECT dayname({expr}) AS d, count(*) FROM df GROUP BY 1"
    error = 'Conversion Error: invalid date field format: "03/15/2021", expected format is (YYYY-MM-DD)'
    found = repair(sql, error, COLUMNS)
    assert found.sql == "SELECT dayname(strptime(\"Order Date\", '%m/%d/%Y')) AS d, count(*) FROM df GROUP BY 1"


def test_float_noise_is_not_shown():
    from shell_agent_lab.analysis.render import format_value
    assert format_value(101401.16000000002, "DOUBLE") == "101401.16"
    assert format_value(1.0, "DOUBLE") == "1.0" and format_value(0.1 + 0.2, "DOUBLE") == "0.3"
    assert format_value(1e-7, "DOUBLE") == "1e-07"
