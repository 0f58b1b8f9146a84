"""The sealed SQL gate: an escape corpus that must be refused, and analytical SQL that must run."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from shell_agent_lab.analysis import SQLRejectedError
from shell_agent_lab.analysis.sql_gate import SQLGate, check_tree

SECRET = "TOP-SECRET-7d1f"

# {secret} is a readable CSV outside the session, {dir} its folder
ESCAPES = [
    # read a file through every table function
    "SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM read_csv_auto('{secret}')",
    "SELECT * FROM READ_CSV(['{secret}'])",
    'SELECT * FROM "read_csv"(\'{secret}\')',
    "SELECT * FROM read_text('{secret}')",
    "SELECT * FROM read_blob('{secret}')",
    "SELECT * FROM read_parquet('{secret}')",
    "SELECT * FROM parquet_scan('{secret}')",
    "SELECT * FROM read_json('{secret}')",
    "SELECT * FROM read_json_auto('{secret}')",
    "SELECT * FROM read_ndjson_objects('{secret}')",
    "SELECT * FROM sniff_csv('{secret}')",
    "SELECT * FROM sqlite_scan('{dir}/x.db', 't')",
    "SELECT * FROM query('SELECT * FROM read_csv(''{secret}'')')",
    "SELECT * FROM query_table('{secret}')",
    "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
    # a file used as a table
    "SELECT * FROM '{secret}'",
    "SELECT * FROM '/etc/passwd'",
    'SELECT * FROM "/etc/passwd"',
    "FROM '{secret}'",
    "SELECT * FROM (SELECT * FROM '{secret}') AS s",
    "DESCRIBE '{secret}'",
    "SUMMARIZE SELECT * FROM read_csv('{secret}')",
    # hidden inside an otherwise fine query
    "SELECT * FROM sales WHERE region IN (SELECT column0 FROM read_csv('{secret}'))",
    "WITH x AS (SELECT * FROM read_text('{secret}')) SELECT * FROM x",
    "WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT content FROM read_text('{secret}')) SELECT * FROM r",
    "SELECT (SELECT content FROM read_text('{secret}')) AS c",
    "SELECT * FROM sales UNION ALL SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM sales, read_csv('{secret}')",
    "SeLeCt * FrOm ReAd_TeXt('{secret}')",
    # a file read hidden in every clause that can hold a subquery
    "SELECT * FROM sales ORDER BY (SELECT count(*) FROM read_text('{secret}'))",
    "SELECT * FROM sales LIMIT (SELECT count(*) FROM read_text('{secret}'))",
    "SELECT region FROM sales GROUP BY region HAVING count(*) > (SELECT count(*) FROM read_text('{secret}'))",
    "SELECT sum(amount) OVER w FROM sales WINDOW w AS (ORDER BY (SELECT count(*) FROM read_text('{secret}')))",
    "SELECT list_transform([1, 2], x -> x + (SELECT count(*) FROM read_text('{secret}')))",
    "SELECT count(*) FILTER (WHERE amount > (SELECT count(*) FROM read_text('{secret}'))) FROM sales",
    "SELECT * FROM sales PIVOT (sum(amount) FOR region IN ((SELECT content FROM read_text('{secret}'))))",
    "SELECT * FROM sales POSITIONAL JOIN read_text('{secret}')",
    "SELECT * FROM sales UNION BY NAME SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM unnest((SELECT list(content) FROM read_text('{secret}')))",
    "SELECT * FROM range((SELECT count(*) FROM read_text('{secret}')))",
    "SELECT COLUMNS(c -> c = (SELECT content FROM read_text('{secret}'))) FROM sales",
    # list a directory
    "SELECT * FROM glob('{dir}/*')",
    "SELECT file FROM glob('/etc/*')",
    # other databases and catalog objects
    "ATTACH '{dir}/other.db' AS other",
    "DETACH other",
    "SELECT * FROM other.main.t",
    "SELECT * FROM information_schema.tables",
    "SELECT * FROM duckdb_settings()",
    "SELECT * FROM duckdb_tables()",
    "SELECT * FROM pragma_table_info('sales')",
    "SHOW TABLES",
    # writes and exports
    "COPY sales TO '{dir}/out.csv'",
    "COPY (SELECT * FROM sales) TO '{dir}/out.parquet' (FORMAT parquet)",
    "EXPORT DATABASE '{dir}/exported'",
    "IMPORT DATABASE '{dir}/exported'",
    "INSERT INTO sales SELECT * FROM sales",
    "UPDATE sales SET amount = 0",
    "DELETE FROM sales",
    "DROP TABLE sales",
    "CREATE TABLE stolen AS SELECT 1",
    "CREATE MACRO m() AS 1",
    "CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')",
    "CHECKPOINT",
    "VACUUM",
    "BEGIN TRANSACTION",
    # extensions and settings
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "RESET lock_configuration",
    "PRAGMA enable_profiling",
    "CALL duckdb_settings()",
    "EXPLAIN ANALYZE SELECT * FROM sales",
    "SELECT getenv('HOME')",
    "SELECT current_setting('temp_directory')",
    "SELECT nextval('s')",
    # a second statement hidden after a comment or a string
    "SELECT 1; DROP TABLE sales",
    "SELECT 1 /* harmless */; COPY sales TO '{dir}/out.csv'",
    "SELECT 'a;b' AS x; DELETE FROM sales",
    "SELECT 1 -- comment\n; DROP TABLE sales",
    "SELECT 1;;ATTACH '{dir}/other.db'",
    # a WITH name defined in a subquery does not cover the same name outside it
    "SELECT name, setting FROM (WITH pg_settings AS (SELECT 1) SELECT 1) a, pg_settings",
    "SELECT * FROM (WITH duckdb_databases AS (SELECT 1) SELECT 1) a, duckdb_databases",
    "SELECT * FROM (WITH sqlite_master AS (SELECT 1) SELECT 1) a, sqlite_master",
    'SELECT * FROM (WITH "{secret}" AS (SELECT 1) SELECT 1) a, \'{secret}\'',
    "SELECT * FROM sales WHERE region IN (WITH duckdb_tables AS (SELECT 1) SELECT 1) "
    "OR region IN (SELECT table_name FROM duckdb_tables)",
    # not SQL at all
    "",
    "   ",
    "rm -rf /",
    "SELECT * FROM sales WHERE",
]

LEGIT = [
    ("SELECT region, amount, rank() OVER (PARTITION BY region ORDER BY amount DESC) AS r FROM sales", 200),
    ("WITH t AS (SELECT region, sum(amount) AS s FROM sales GROUP BY region) SELECT * FROM t ORDER BY s DESC", 4),
    ("SELECT * FROM sales QUALIFY row_number() OVER (PARTITION BY region ORDER BY amount DESC) = 1", 4),
    ("PIVOT sales ON region IN ('north', 'south') USING sum(amount) GROUP BY product", 7),
    ("SELECT * FROM (PIVOT sales ON region IN ('east', 'west') USING count(*) GROUP BY product) ORDER BY product", 7),
    ("UNPIVOT (SELECT region, amount, amount * 2 AS doubled FROM sales) ON amount, doubled INTO NAME k VALUE v", 400),
    ("SELECT regexp_extract(product, 'p(\\d)', 1) AS n, count(*) FROM sales GROUP BY ALL", 7),
    ("SELECT date_trunc('week', day) AS w, datediff('day', min(day), max(day)) AS span, "
     "max(day) + INTERVAL 3 DAY AS later, strftime(min(day), '%Y-%m') AS ym FROM sales GROUP BY 1", None),
    ("SELECT s.region, sum(s.amount) AS total, any_value(t.target) AS target FROM sales AS s "
     "JOIN targets AS t USING (region) GROUP BY s.region", 4),
    ("SELECT * FROM sales s WHERE EXISTS (SELECT 1 FROM targets t WHERE t.region = s.region AND t.target > 1000)", None),
    ("SELECT region FROM sales EXCEPT SELECT 'north'", 3),
    ("SELECT region, product, sum(amount) FROM sales GROUP BY ROLLUP (region, product)", None),
    ("SELECT quantile_cont(amount, 0.9), string_agg(DISTINCT region, ',' ORDER BY region) FROM sales", 1),
    ("SELECT * FROM range(5) r(i) CROSS JOIN generate_series(1, 2) g(j)", 10),
    ("SELECT unnest([1, 2, 3]) AS x", 3),
    ("SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, y)", 2),
    ("select count(*) from sales;", 1),
    ("-- a leading comment\nSELECT 'read_csv(''/etc/passwd'')' AS looks_like_an_escape", 1),
    ("FROM sales SELECT region LIMIT 1", 1),
    ("SELECT * FROM (WITH t AS (SELECT DISTINCT region FROM sales) SELECT * FROM t) x ORDER BY 1", 4),
    ("WITH a AS (SELECT region, amount FROM sales), b AS (SELECT region, sum(amount) AS s FROM a GROUP BY 1) "
     "SELECT * FROM b WHERE region IN (SELECT region FROM a)", 4),
    ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT sum(i) FROM n", 1),
    ("SUMMARIZE sales", 4),
    ("DESCRIBE sales", 4),
    ("SELECT COLUMNS('amo.*') FROM sales LIMIT 2", 2),
    ("SELECT {'a': 1, 'b': [1, 2]} AS s, map {'k': 1} AS m", 1),
    ("SELECT region, list(amount ORDER BY amount)[1] AS smallest FROM sales GROUP BY region", 4),
    ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT * FROM n", 5),
]


@pytest.fixture(scope="module")
def secret_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.csv").write_text(f"k,v\n{SECRET},1\n")
    return folder


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """One engine for the whole module: every escape attempt runs against the same database,
    so a single successful write or read anywhere in the corpus would show up in later checks."""
    from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings

    folder = tmp_path_factory.mktemp("gate")
    csv = folder / "sales.csv"
    lines = ["region,day,amount,product"]
    for i in range(200):
        lines.append(f"{['north', 'south', 'east', 'west'][i % 4]},2024-01-{i % 28 + 1:02d},{(i * 37) % 101 + 0.5},p{i % 7}")
    csv.write_text("\n".join(lines) + "\n")
    namespace = {"targets": pd.DataFrame({"region": ["north", "south", "east", "west"],
                                          "target": [900.0, 1100.0, 1000.0, 1200.0]})}
    engine = AnalysisEngine(folder / "analysis.duckdb", namespace=lambda: namespace, base_dir=folder,
                            settings=AnalysisSettings(threads=1))
    engine.load(str(csv), "sales")
    yield engine
    engine.close()


def test_the_corpus_is_large_enough():
    assert len(ESCAPES) >= 30 and len(LEGIT) >= 20


@pytest.mark.parametrize("template", ESCAPES)
def test_escape_is_rejected_and_nothing_is_read_or_changed(loaded, secret_dir, template):
    sql = template.format(secret=secret_dir / "secret.csv", dir=secret_dir)
    before = sorted(p.name for p in secret_dir.iterdir())
    with pytest.raises(SQLRejectedError) as caught:
        loaded.query(sql)
    message = str(caught.value)
    assert message.startswith(("SQL rejected", "SQL syntax error")), message
    assert "\n" not in message and SECRET not in message
    assert sorted(p.name for p in secret_dir.iterdir()) == before
    assert [(t.name, t.rows) for t in loaded.tables()] == [("sales", 200), ("targets", 4)]
    assert loaded.query("SELECT sum(amount) FROM sales").rows[0][0] == pytest.approx(sum(
        (i * 37) % 101 + 0.5 for i in range(200)))


@pytest.mark.parametrize(("sql", "rows"), LEGIT)
def test_analytical_select_is_allowed(loaded, sql, rows):
    result = loaded.query(sql)
    if rows is not None:
        assert result.row_count == rows


def test_pivot_without_a_value_list_gets_a_hint(loaded):
    with pytest.raises(SQLRejectedError, match=r"IN \('a', 'b'\)"):
        loaded.query("PIVOT sales ON region USING sum(amount)")


def test_error_messages_say_what_to_do(loaded, secret_dir):
    with pytest.raises(SQLRejectedError, match="load_data first"):
        loaded.query(f"SELECT * FROM '{secret_dir / 'secret.csv'}'")
    with pytest.raises(SQLRejectedError, match="only range"):
        loaded.query("SELECT * FROM read_csv('x.csv')")
    with pytest.raises(SQLRejectedError, match="found 2"):
        loaded.query("SELECT 1; SELECT 2")
    with pytest.raises(SQLRejectedError, match=r"this statement is COPY"):
        loaded.query("COPY sales TO 'x.csv'")
    with pytest.raises(SQLRejectedError, match="unknown table 'nope'"):
        loaded.query("SELECT * FROM nope")


def test_defence_in_depth_the_connection_itself_cannot_read_files_or_unlock(loaded, secret_dir):
    """Even SQL that slipped past the gate meets a connection without file access."""
    import duckdb

    conn = loaded._conn
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        conn.execute(f"SELECT * FROM read_csv('{secret_dir / 'secret.csv'}')").fetchall()
    with pytest.raises(duckdb.Error, match="locked"):
        conn.execute("SET enable_external_access = true")
    with pytest.raises(duckdb.Error):
        conn.execute(f"ATTACH '{secret_dir / 'other.db'}'")
    assert not (secret_dir / "other.db").exists()
    # and DataFrame views still work on that sealed connection
    assert loaded.query("SELECT count(*) FROM targets").rows == [(4,)]


def test_python_variables_are_not_reachable_by_name(loaded):
    hidden_frame = pd.DataFrame({"x": [1]})  # noqa: F841 - a local a replacement scan could find
    with pytest.raises(SQLRejectedError, match="unknown table"):
        loaded.query("SELECT * FROM hidden_frame")
    with pytest.raises(Exception, match="hidden_frame"):
        loaded._conn.execute("SELECT * FROM hidden_frame").fetchall()


def test_cte_names_are_tables_but_schemas_are_not(loaded):
    assert loaded.query("WITH passwd AS (SELECT 1 AS x) SELECT * FROM passwd").rows == [(1,)]
    with pytest.raises(SQLRejectedError):
        loaded.query("SELECT * FROM main.sales JOIN system.main.duckdb_settings() ON true")


def test_check_tree_is_pure():
    tree = {"node": {"type": "SELECT_NODE", "from_table": {
        "type": "TABLE_FUNCTION", "alias": "", "sample": None,
        "function": {"class": "FUNCTION", "type": "FUNCTION", "function_name": "read_text",
                     "schema": "", "catalog": "", "arguments": []}}}}
    with pytest.raises(SQLRejectedError, match="read_text"):
        check_tree(tree, ["sales"])
    ok = {"node": {"type": "SELECT_NODE", "from_table": {
        "type": "BASE_TABLE", "alias": "", "sample": None, "table_name": "Sales",
        "schema_name": "", "catalog_name": ""}}}
    assert check_tree(ok, ["sales"]) == ("Sales",)


def test_gate_reports_the_tables_a_query_reads():
    gate = SQLGate()
    try:
        checked = gate.check("SELECT * FROM a JOIN b USING (k) WHERE k IN (SELECT k FROM a)", ["a", "b"])
        assert checked.tables == ("a", "b")
        assert gate.check("SELECT 1;", []).sql == "SELECT 1"
    finally:
        gate.close()


def test_views_and_macros_in_a_foreign_database_file_are_not_reachable(tmp_path):
    """A database file from elsewhere (e.g. an imported bundle) may define views and macros."""
    import duckdb

    from shell_agent_lab.analysis import AnalysisEngine

    db = tmp_path / "foreign.duckdb"
    writer = duckdb.connect(str(db))
    writer.execute("CREATE TABLE t AS SELECT 1 AS a")
    writer.execute("CREATE VIEW v AS SELECT * FROM read_text('/etc/passwd')")
    writer.execute("CREATE MACRO leak() AS (SELECT count(*) FROM read_text('/etc/passwd'))")
    writer.execute("CREATE MACRO rows_of() AS TABLE SELECT * FROM read_text('/etc/passwd')")
    writer.close()
    engine = AnalysisEngine(db)
    try:
        assert [t.name for t in engine.tables()] == ["t"]
        for sql, message in [("SELECT * FROM v", "unknown table 'v'"),
                             ("SELECT leak()", "macro stored in the database file"),
                             ("SELECT * FROM rows_of()", "rows_of"),
                             ("SELECT a, leak() FROM t", "macro")]:
            with pytest.raises(SQLRejectedError, match=message):
                engine.query(sql)
    finally:
        engine.close()
