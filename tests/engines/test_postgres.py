"""PostgreSQL through the engine interface against a real server: catalogue, pushed-down
queries, results joined locally, two sources refused, timeouts, Stop, a server that goes away."""
from __future__ import annotations

import threading
import time

import pandas as pd
import pytest

from shell_agent_lab.analysis.errors import AnalysisError, QueryFailedError, QueryTimeoutError, RowCapError
from shell_agent_lab.engines import EngineError

from .helpers import close, sources

pytestmark = [pytest.mark.engines, pytest.mark.timeout(120)]


@pytest.fixture
def src(tmp_path, pg_server):
    targets = pd.DataFrame({"region": ["north", "south", "east", "west"], "target": [100, 200, 300, 400]})
    s = sources(tmp_path, {"targets": targets}, pg=pg_server.url(password=pg_server.analyst_password))
    yield s
    close(s)


def test_tables_are_listed_with_qualified_names_and_their_dialect(src):
    infos = {t.name: t for t in src.tables()}
    assert {"targets", "pg.sales", "pg.crm.customers"} <= set(infos)
    sales = infos["pg.sales"]
    assert sales.kind == "remote" and ("region", "text") in sales.columns
    assert "PostgreSQL SQL" in sales.label
    from shell_agent_lab.analysis.prompt_schema import schema_block
    block = schema_block(src.tables(), src)
    assert "pg.sales (PostgreSQL table on connection pg: write PostgreSQL SQL" in block


def test_describe_reads_samples_from_the_server(src):
    info = src.describe("pg.sales")
    assert info.name == "pg.sales" and len(info.samples["region"]) == 3
    assert src.column_stats("pg.sales") == {}


def test_a_query_runs_on_the_server_and_its_result_joins_a_local_dataframe(src):
    result = src.query("SELECT region, sum(units)::bigint AS units, count(*) AS n FROM pg.sales "
                       "GROUP BY region ORDER BY region")
    assert result.columns == ["region", "units", "n"] and result.row_count == 4
    assert sum(r[2] for r in result.rows) == 5_000
    assert "pg_result" in result.note
    joined = src.query("SELECT r.region, r.units, t.target FROM pg_result r JOIN targets t USING (region) "
                       "ORDER BY r.region")
    assert [r[0] for r in joined.rows] == ["east", "north", "south", "west"]
    assert joined.rows[1][2] == 100


def test_three_part_names_and_a_schema_of_their_own(src):
    assert src.query("SELECT count(*) AS n FROM pg.public.sales").rows == [(5_000,)]
    assert src.query("SELECT name FROM pg.crm.customers ORDER BY id").rows == [("Ada",), ("Bo",)]


def test_a_query_over_two_sources_is_refused_with_how_to_stage(src):
    with pytest.raises(EngineError) as err:
        src.query("SELECT s.region, t.target FROM pg.sales s JOIN targets t USING (region)")
    message = str(err.value)
    assert "more than one source" in message and "save_query" in message and "pg_result" in message


def test_save_query_stages_a_remote_result_as_a_session_table(src):
    info = src.create_table_from_query("north_sales", "SELECT id, units FROM pg.sales WHERE region = 'north'")
    assert info.rows == 1_250
    assert src.query("SELECT count(*) FROM north_sales").rows == [(1_250,)]
    with pytest.raises(AnalysisError, match="already exists"):
        src.create_table_from_query("north_sales", "SELECT id FROM pg.sales")


def test_rows_past_the_cap_are_refused_not_truncated(tmp_path, pg_server):
    from shell_agent_lab.analysis.settings import AnalysisSettings
    s = sources(tmp_path, settings=AnalysisSettings(max_query_rows=100),
                pg=pg_server.url(password=pg_server.analyst_password))
    try:
        with pytest.raises(RowCapError, match="more than 100 rows"):
            s.query("SELECT * FROM pg.sales")
        assert s.query("SELECT * FROM pg.sales LIMIT 100").row_count == 100
    finally:
        close(s)


def test_the_statement_timeout_stops_a_slow_query(src):
    started = time.monotonic()
    with pytest.raises(QueryTimeoutError, match="stopped after 1 s"):
        src.query("SELECT count(*) FROM pg.sales a, pg.sales b, pg.sales c", timeout=1)
    assert time.monotonic() - started < 10
    assert src.query("SELECT count(*) AS n FROM pg.sales").rows == [(5_000,)]    # the connection still works


def test_stop_cancels_a_running_query(src):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(QueryFailedError, match="cancelled"):
        src.query("SELECT count(*) FROM pg.sales a, pg.sales b, pg.sales c", timeout=0, cancel=cancel)
    assert time.monotonic() - started < 10


def test_a_server_that_goes_away_mid_query_leaves_the_session_intact(src, pg_server):
    src.query("SELECT 1 AS one FROM pg.sales LIMIT 1")
    failure: list[BaseException] = []

    def slow() -> None:
        try:
            src.query("SELECT count(*) FROM pg.sales a, pg.sales b, pg.sales c", timeout=0)
        except BaseException as exc:   # noqa: BLE001 - the test inspects it
            failure.append(exc)

    worker = threading.Thread(target=slow)
    worker.start()
    time.sleep(1.0)
    pg_server.stop("immediate")
    try:
        worker.join(30)
        assert failure and isinstance(failure[0], AnalysisError)
        assert "went away" in str(failure[0]) and "intact" in str(failure[0])
        assert src.query("SELECT count(*) FROM targets").rows == [(4,)]      # local tables still answer
    finally:
        pg_server.restart()
    assert src.query("SELECT count(*) AS n FROM pg.sales").rows == [(5_000,)]   # and the connection reopens


def test_analyze_data_counts_on_the_server_but_never_reads_a_remote_table_row_by_row(src):
    assert src.query("SELECT region FROM pg.sales GROUP BY region").row_count == 4
    assert src.row_count("pg.sales") == 5_000
    # counting is not a result of the user's: the last one stays the session table pg_result
    assert src.query("SELECT count(*) AS n FROM pg_result").rows == [(4,)]
    with pytest.raises(AnalysisError, match="stage the rows to read first with save_query"):
        src.rows_window("pg.sales", 0, 100)


def test_a_local_query_that_only_mentions_the_name_stays_local(src):
    result = src.query("SELECT region FROM targets WHERE region NOT LIKE '%pg.x%' GROUP BY ALL ORDER BY ALL")
    assert [r[0] for r in result.rows] == ["east", "north", "south", "west"]
    with pytest.raises(EngineError, match="PostgreSQL"):
        src.query("SELECT region FROM pg.sales GROUP BY ALL QUALIFY 1 = 1 ~~ !!")


def test_the_password_can_come_from_a_pgpass_file(tmp_path, pg_server, monkeypatch):
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{pg_server.port}:warehouse:analyst:{pg_server.analyst_password}\n")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    s = sources(tmp_path, pg=pg_server.url())          # no password in the URL
    try:
        assert s.query("SELECT count(*) AS n FROM pg.sales").rows == [(5_000,)]
    finally:
        close(s)
