"""The engine: persistence, live DataFrames, loading, caps, timeouts, names."""
from __future__ import annotations

import os
import threading

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from shell_agent_lab.analysis import (AnalysisEngine, AnalysisSettings, QueryFailedError, QueryTimeoutError,
                                      RowCapError, SQLRejectedError, TableNameError,
                                      UnknownTableError)


def test_loaded_tables_survive_reopen(make_engine, sales_csv, tmp_path):
    db = tmp_path / "s" / "analysis.duckdb"
    first = make_engine(db=db)
    first.load(str(sales_csv), "sales")
    first.close()
    assert oct(os.stat(db).st_mode & 0o777) == "0o600"
    again = AnalysisEngine.open_if_exists(db)
    assert again is not None
    try:
        assert [(t.name, t.rows) for t in again.tables()] == [("sales", 200)]
    finally:
        again.close()


def test_open_if_exists_creates_nothing(tmp_path):
    db = tmp_path / "none" / "analysis.duckdb"
    assert AnalysisEngine.open_if_exists(db) is None
    assert not db.exists()


def test_dataframes_of_three_libraries_are_queryable_by_name(make_engine, namespace):
    namespace.update(
        pdf=pd.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3]}),
        plf=pl.DataFrame({"k": ["a", "b"], "v": [10, 20]}),
        arr=pa.table({"k": ["b"], "v": [100]}),
        _hidden=pd.DataFrame({"x": [1]}),
        not_a_frame=[1, 2, 3],
    )
    engine = make_engine()
    listed = {t.name: t for t in engine.tables()}
    assert set(listed) == {"pdf", "plf", "arr"}
    assert listed["pdf"].kind == "dataframe" and listed["pdf"].library == "pandas"
    assert listed["plf"].library == "polars" and listed["arr"].library == "pyarrow"
    assert listed["pdf"].rows == 3 and listed["pdf"].samples["k"] == ["a", "b", "a"]
    sql = ("SELECT k, sum(v) AS s FROM (SELECT * FROM pdf UNION ALL SELECT * FROM plf "
           "UNION ALL SELECT * FROM arr) GROUP BY k ORDER BY k")
    assert engine.query(sql).rows == [("a", 14), ("b", 122)]


def test_rebinding_and_deleting_a_dataframe_is_followed(make_engine, namespace):
    namespace["df"] = pd.DataFrame({"v": [1, 2]})
    engine = make_engine()
    assert engine.query("SELECT sum(v) FROM df").rows == [(3,)]
    namespace["df"] = pd.DataFrame({"v": [10, 20, 30]})
    assert engine.query("SELECT sum(v) FROM df").rows == [(60,)]
    del namespace["df"]
    with pytest.raises(SQLRejectedError, match="unknown table 'df'"):
        engine.query("SELECT * FROM df")
    assert engine.tables() == []


def test_a_loaded_table_cannot_take_a_dataframe_name(make_engine, namespace, sales_csv):
    namespace["sales"] = pd.DataFrame({"v": [1]})
    engine = make_engine()
    with pytest.raises(TableNameError, match="live DataFrame"):
        engine.load(str(sales_csv), "sales")


def test_chat_path_caps_rows_and_suggests_limit(make_engine):
    engine = make_engine(AnalysisSettings(threads=1, max_query_rows=100, max_analyze_rows=1000))
    assert engine.query("SELECT * FROM range(100)").row_count == 100
    with pytest.raises(RowCapError, match="LIMIT"):
        engine.query("SELECT * FROM range(101)")
    assert engine.query("SELECT * FROM range(500)", path="analyze").row_count == 500
    with pytest.raises(RowCapError) as caught:
        engine.query("SELECT * FROM range(1001)", path="analyze")
    assert "LIMIT" not in str(caught.value) and "pre-aggregate" in str(caught.value)


def test_default_caps_are_the_reference_values():
    settings = AnalysisSettings()
    assert (settings.max_query_rows, settings.max_analyze_rows) == (10_000, 1_000_000)
    zero = AnalysisSettings(max_query_rows=0, max_analyze_rows=-1)
    assert (zero.max_query_rows, zero.max_analyze_rows) == (10_000, 1_000_000)


def test_timeout_interrupts_a_long_query(make_engine):
    engine = make_engine()
    with pytest.raises(QueryTimeoutError, match="stopped after 0.3 s"):
        engine.query("SELECT count(*) FROM range(100000000000) a", timeout=0.3)
    assert engine.query("SELECT 42").rows == [(42,)]


def test_preview_clamps_and_names_unknown_tables(engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    assert engine.preview("sales", 0).row_count == 1
    assert engine.preview("sales", 5000).row_count == 200
    assert engine.preview("SALES", 3).row_count == 3
    with pytest.raises(UnknownTableError, match="available: sales"):
        engine.preview("nope")


def test_writes_through_query_are_rejected_and_change_nothing(engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    for sql in ["DELETE FROM sales", "DROP TABLE sales", "INSERT INTO sales SELECT * FROM sales",
                "UPDATE sales SET amount = 0", "CREATE TABLE x AS SELECT 1"]:
        for path in ("chat", "analyze"):
            with pytest.raises(SQLRejectedError):
                engine.query(sql, path=path)
    assert engine.query("SELECT count(*), sum(amount) FROM sales").rows[0][0] == 200
    assert [t.name for t in engine.tables()] == ["sales"]


def test_description_is_stored_with_adversarial_text(engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    engine.set_description("sales", "it's \"quoted\"; DROP TABLE sales; --")
    assert engine.describe("sales").description == "it's \"quoted\"; DROP TABLE sales; --"
    assert engine.row_count("sales") == 200


@pytest.mark.parametrize("name", ["1abc", "a-b", "a b", "x;DROP TABLE t", "", "naïve", "a\"b",
                                  "select", "_sal_x", "t" * 129, None, 5])
def test_adversarial_table_names_are_refused(engine, sales_csv, name):
    with pytest.raises(TableNameError):
        engine.load(str(sales_csv), name)
    assert engine.tables() == []


def test_save_query_collision_suggests_names(engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    info = engine.create_table_from_query("north", "SELECT * FROM sales WHERE region = 'north'",
                                          description="north only")
    assert (info.rows, info.description) == (50, "north only")
    with pytest.raises(TableNameError, match="north_v2, north_filtered, north_derived"):
        engine.create_table_from_query("north", "SELECT 1")
    with pytest.raises(SQLRejectedError):
        engine.create_table_from_query("evil", "SELECT * FROM read_csv('/etc/passwd')")
    with pytest.raises(SQLRejectedError, match="SELECT"):
        engine.create_table_from_query("evil", "DELETE FROM sales")
    with pytest.raises(TableNameError):
        engine.create_table_from_query("bad name", "SELECT 1")
    with pytest.raises(QueryFailedError, match='Referenced column "nope" not found'):
        engine.create_table_from_query("broken", "SELECT nope FROM sales")
    quoted = engine.create_table_from_query("renamed", 'SELECT "region" AS "Region Name", \'it\'\'s\' AS "q""x" FROM sales')
    assert quoted.columns == [("Region Name", "VARCHAR"), ('q"x', "VARCHAR")]
    assert sorted(t.name for t in engine.tables()) == ["north", "renamed", "sales"]


def test_drop_all_keeps_dataframes(make_engine, namespace, sales_csv):
    namespace["df"] = pd.DataFrame({"v": [1]})
    engine = make_engine()
    engine.load(str(sales_csv), "sales")
    assert engine.drop_all() == ["sales"]
    assert [t.name for t in engine.tables()] == ["df"]


def test_concurrent_queries_from_two_threads(engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                assert engine.query("SELECT count(*) FROM sales").rows == [(200,)]
                engine.tables()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_in_place_changes_to_a_pandas_frame_are_seen(make_engine, namespace):
    frame = pd.DataFrame({"a": [1, 2]})
    namespace["df"] = frame
    engine = make_engine()
    assert engine.query("SELECT * FROM df").rows == [(1,), (2,)]
    frame["b"] = [3, 4]
    assert engine.query("SELECT * FROM df").rows == [(1, 3), (2, 4)]
    frame.loc[0, "a"] = 100
    assert engine.query("SELECT a FROM df").rows == [(100,), (2,)]
    frame.iloc[1, 0] = 7
    assert engine.query("SELECT a FROM df").rows == [(100,), (7,)]


def test_odd_frames_are_listed_or_skipped_without_breaking(make_engine, namespace):
    namespace.update(
        ints=pd.DataFrame({0: [1], 1: [2]}),
        dups=pd.DataFrame([[1, 2]], columns=["x", "x"]),
        empty=pd.DataFrame(),
        nested=pd.DataFrame({"o": [{"k": 1}, None]}),
    )
    engine = make_engine()
    listed = {t.name: t.columns for t in engine.tables()}
    assert listed["ints"] == [("0", "BIGINT"), ("1", "BIGINT")]
    assert listed["dups"] == [("x", "BIGINT"), ("x_1", "BIGINT")]
    assert listed["nested"] == [("o", "STRUCT(k INTEGER)")]
    assert engine.query("SELECT x_1 FROM dups").rows == [(2,)]


def test_names_differing_in_case_keep_the_lowercase_one(make_engine, namespace):
    namespace.update(DF=pd.DataFrame({"v": ["upper"]}), df=pd.DataFrame({"v": ["lower"]}))
    engine = make_engine()
    assert [t.name for t in engine.tables()] == ["df"]
    assert engine.query("SELECT v FROM DF").rows == [("lower",)]


def test_a_namespace_that_raises_shows_no_frames(make_engine):
    def broken():
        raise RuntimeError("kernel namespace unavailable")

    engine = AnalysisEngine(None, namespace=broken)
    try:
        assert engine.tables() == []
        assert engine.query("SELECT 1").rows == [(1,)]
    finally:
        engine.close()


def test_closed_engine_says_so(make_engine):
    engine = make_engine()
    engine.close()
    engine.close()
    with pytest.raises(Exception, match="closed"):
        engine.query("SELECT 1")


def test_cancel_interrupts_a_running_query(make_engine):
    engine = make_engine()
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    with pytest.raises(Exception, match="cancelled"):
        engine.query("SELECT count(*) FROM range(100000000000) a", timeout=0, cancel=cancel)
    assert engine.query("SELECT 1").rows == [(1,)]


def test_a_huge_result_is_refused_before_it_fills_the_kernel(make_engine):
    engine = make_engine(AnalysisSettings(threads=1, max_result_bytes=1024 ** 2))
    with pytest.raises(RowCapError, match="larger than 1 MiB"):
        engine.query("SELECT repeat('x', 4000000) AS big")
    assert engine.query("SELECT length(repeat('x', 4000000))").rows == [(4_000_000,)]


def test_column_stats_count_nulls_and_distinct_values(engine, workdir):
    (workdir / "n.csv").write_text("a,b\n1,x\n,x\n3,\n3,y\n")
    engine.load("n.csv", "n")
    assert engine.column_stats("n") == {"a": (3, 2), "b": (3, 2)}


def test_close_from_another_thread_stops_a_running_query(make_engine):
    engine = make_engine()
    outcome: list[BaseException] = []

    def long_query() -> None:
        try:
            engine.query("SELECT count(*) FROM range(100000000000) a", timeout=0)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=long_query)
    worker.start()
    import time
    time.sleep(0.3)
    engine.close()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert outcome and "cancelled" in str(outcome[0])


def test_the_session_database_runs_one_thread_more_than_the_cpus(make_engine):
    default = AnalysisSettings()
    assert default.query_threads() == default.resolved_threads() + 1
    assert AnalysisSettings(threads=3).query_threads() == 3
    engine = make_engine(AnalysisSettings(max_query_rows=10))
    assert engine._conn.execute("SELECT current_setting('threads')").fetchall()[0][0] == default.query_threads()


def test_perfect_hash_width_follows_the_memory_limit_and_threads():
    from shell_agent_lab.analysis.settings import parse_size, perfect_hash_bits
    assert parse_size("18.8 GiB") == int(18.8 * 2 ** 30)
    assert parse_size("325.0 MiB") == 325 * 2 ** 20
    assert parse_size("4GB") == 4 * 10 ** 9
    assert parse_size("lots") is None and parse_size("80%") is None
    assert perfect_hash_bits(18 * 2 ** 30, 3) == 18            # capped
    assert perfect_hash_bits(3 * 2 ** 30, 3) == 18
    assert perfect_hash_bits(325 * 2 ** 20, 3) == 15
    assert perfect_hash_bits(325 * 2 ** 20, 1) == 17
    assert perfect_hash_bits(20 * 2 ** 20, 3) == 12            # never below DuckDB's default
    assert perfect_hash_bits(None, 3) == 12


def test_grouping_by_a_wide_integer_key_uses_a_perfect_hash_table(make_engine, namespace):
    engine = make_engine(AnalysisSettings(threads=2, memory_limit="1GiB"))
    bits = engine._conn.execute("SELECT current_setting('perfect_ht_threshold')").fetchall()[0][0]
    assert int(bits) == 18
    namespace["orders"] = pd.DataFrame({"customer": [i * 7919 % 200_000 for i in range(300_000)],
                                        "amount": [float(i % 97) for i in range(300_000)]})
    engine.create_table_from_query("stored", "SELECT * FROM orders")
    plan = engine._conn.execute("EXPLAIN SELECT customer, sum(amount) FROM stored GROUP BY customer").fetchall()
    assert "Perfect Hash Group By" in "".join(row[1] for row in plan)   # 200,000 ids need 18 bits
    result = engine.query("SELECT customer, sum(amount) AS total, count(DISTINCT amount) AS kinds "
                          "FROM stored GROUP BY customer ORDER BY customer", path="analyze").to_pandas()
    frame = namespace["orders"]
    expected = frame.groupby("customer").agg(total=("amount", "sum"), kinds=("amount", "nunique")).reset_index()
    pd.testing.assert_frame_equal(result, expected, check_dtype=False)


@pytest.mark.parametrize("written, fmt, first", [
    (["2023/01/03", "2023/11/24", "2024/02/29"], "%Y/%m/%d", "2023-01-03"),
    (["2023.01.03", "2023.11.24", "2024.02.29"], "%Y.%m.%d", "2023-01-03"),
    (["03 Jan 2023", "24 Nov 2023", "29 Feb 2024"], "%d %b %Y", "2023-01-03"),
    (["Jan 03, 2023", "Nov 24, 2023", "Feb 29, 2024"], "%b %d, %Y", "2023-01-03"),
    (["1/3/2023 08:15", "11/24/2023 17:40", "2/29/2024 00:05"], "%m/%d/%Y %H:%M", "2023-01-03 08:15:00"),
    (["13/1/2023 08:15", "24/11/2023 17:40", "29/2/2024 00:05"], "%d/%m/%Y %H:%M", "2023-01-13 08:15:00"),
])
def test_dates_written_as_text_are_profiled_with_their_format(make_engine, namespace, written, fmt, first):
    """The format the profile names reads the column in pandas (the program's preamble) and in
    DuckDB (the SQL tools) alike."""
    namespace["t"] = pd.DataFrame({"when": written, "note": ["a", "b", "c"]})
    engine = make_engine()
    profile = engine.column_profile("t")
    assert profile["when"]["date_format"] == fmt and not profile["when"]["text_numbers"]
    assert profile["note"]["date_format"] == ""
    assert pd.to_datetime(namespace["t"]["when"], format=fmt).iloc[0] == pd.Timestamp(first)
    assert pd.Timestamp(engine.query(f"SELECT strptime(\"when\", '{fmt}') FROM t LIMIT 1").rows[0][0]) == \
        pd.Timestamp(first)


@pytest.mark.parametrize("written, numbers", [
    (["14.8 min", "3.0 min", "103.1 min", "N/A"], [14.8, 3.0, 103.1, None]),
    (["3.2kg", "12kg", "0.5kg", "7kg"], [3.2, 12.0, 0.5, 7.0]),
    (["1,204.50 EUR", "88.00 EUR", "12,000.00 EUR", ""], [1204.5, 88.0, 12000.0, None]),
    (["EUR 1,204.50", "EUR 88.00", "EUR 12,000.00", "EUR 3.10"], [1204.5, 88.0, 12000.0, 3.1]),
    (["£1,204.50", "(12.40)", "£3.00", "(£7.25)"], [1204.5, -12.4, 3.0, -7.25]),
    (["1.5e3", "2e-2", "7", "12[a]"], [1500.0, 0.02, 7.0, 12.0]),
    (["−5", "-£4.50", "- 3", "£2"], [-5.0, -4.5, -3.0, 2.0]),
    (["£−5.00", "£−12.00", "(1.5e3)", "£2"], [-5.0, -12.0, -1500.0, 2.0]),
    (["EUR −12", "EUR 3", "EUR 4.50", "EUR 1,000"], [-12.0, 3.0, 4.5, 1000.0]),
])
def test_numbers_written_with_units_codes_or_brackets_are_read_as_numbers(make_engine, namespace, written,
                                                                          numbers):
    """The profile, the ``num()`` of the SQL tools and the program's preamble read a text number
    with a unit, a currency code or an accounting negative's brackets the same way."""
    from shell_agent_lab.answers.program_prompt import FrameView, preamble
    namespace["t"] = pd.DataFrame({"v": written})
    engine = make_engine()
    hints = engine.column_profile("t")["v"]
    assert hints["text_numbers"]
    got = [r[0] for r in engine.query("SELECT num(v) FROM t").rows]
    assert [None if g is None else round(g, 6) for g in got] == numbers
    scope = {"t": namespace["t"], "pd": pd, "np": __import__("numpy")}
    exec(preamble([FrameView("t", 4, [("v", "str")], hints={"v": hints})]), scope)
    read = [None if pd.isna(x) else round(float(x), 6) for x in scope["t"]["v"]]
    assert read == numbers
    assert namespace["t"]["v"].tolist() == written          # the user's frame is unchanged


def test_num_reads_a_bracketed_amount_with_its_code_as_negative_and_drops_notes(make_engine, namespace):
    namespace["t"] = pd.DataFrame({"v": ["(12.40 EUR)", "5 (est.)", "(approx)", "7 (2020)"]})
    got = [r[0] for r in make_engine().query("SELECT num(v) FROM t").rows]
    assert got[:3] == [-12.4, 5.0, None]


@pytest.mark.parametrize("written", [
    ["5 min", "2 h", "7 min", "1 h"],          # two units: adding them up would be wrong
    ["12 EUR", "9 USD", "3 EUR", "4 USD"],      # two currencies
    ["05 Jan", "17 Feb", "03 Mar", "28 Apr"],   # day and month
    ["10 am", "3 pm", "11 am", "1 pm"],
    ["LN 700000", "LN 700001", "LN 700002", "LN 700003"],   # an id with a prefix
])
def test_text_with_mixed_words_is_not_read_as_numbers(make_engine, namespace, written):
    namespace["t"] = pd.DataFrame({"v": written})
    assert not make_engine().column_profile("t")["v"]["text_numbers"]
