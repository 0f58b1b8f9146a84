"""Spark Connect through the engine interface against a real local server: catalogue, pushed
down queries joined locally, two sources refused, timeout and Stop interrupt the server's job."""
from __future__ import annotations

import threading
import time

import pandas as pd
import pytest

from shell_agent_lab.analysis.errors import QueryFailedError, QueryTimeoutError
from shell_agent_lab.engines import EngineError

from .helpers import close, sources

pytestmark = [pytest.mark.engines, pytest.mark.slow, pytest.mark.timeout(300)]

SLOW = "SELECT count(*) AS n FROM spark.events a CROSS JOIN spark.events b CROSS JOIN spark.events c"


@pytest.fixture
def src(tmp_path, spark_server):
    kinds = pd.DataFrame({"kind": [0, 1, 2, 3, 4], "label": ["a", "b", "c", "d", "e"]})
    s = sources(tmp_path, {"kinds": kinds}, spark=spark_server.url)
    yield s
    close(s)


def test_catalogue_describe_and_the_dialect(src):
    infos = {t.name: t for t in src.tables()}
    assert "spark.events" in infos and "kinds" in infos
    assert "Spark SQL" in infos["spark.events"].label
    info = src.describe("spark.events")
    assert info.rows == 2_000 and info.rows_exact and len(info.samples["id"]) == 3


def test_a_pushed_down_result_joins_a_local_dataframe(src):
    result = src.query("SELECT kind, count(*) AS n, sum(amount) AS total FROM spark.events GROUP BY kind "
                       "ORDER BY kind")
    assert result.row_count == 5 and sum(r[1] for r in result.rows) == 2_000
    joined = src.query("SELECT k.label, r.n FROM spark_result r JOIN kinds k USING (kind) ORDER BY k.label")
    assert joined.rows == [("a", 400), ("b", 400), ("c", 400), ("d", 400), ("e", 400)]


def test_two_sources_are_refused(src):
    with pytest.raises(EngineError, match="more than one source"):
        src.query("SELECT e.id, k.label FROM spark.events e JOIN kinds k ON e.kind = k.kind")


def test_timeout_and_stop_interrupt_the_job(src):
    started = time.monotonic()
    with pytest.raises(QueryTimeoutError, match="stopped after 2 s"):
        src.query(SLOW, timeout=2)
    assert time.monotonic() - started < 30
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    with pytest.raises(QueryFailedError, match="cancelled"):
        src.query(SLOW, timeout=0, cancel=cancel)
    assert src.query("SELECT count(*) AS n FROM spark.events").rows == [(2_000,)]


def test_a_server_that_goes_away_mid_query_leaves_the_session_intact(tmp_path):
    """A server of its own (the shared one stays up for the other tests)."""
    from .servers import SparkServer

    server = SparkServer().start()
    try:
        client = server.client()
        client.range(0, 500).selectExpr("id").write.saveAsTable("ticks")
        client.stop()
        s = sources(tmp_path, {}, spark=server.url)
        try:
            assert s.query("SELECT count(*) AS n FROM spark.ticks").rows == [(500,)]
            failure: list[BaseException] = []

            def slow() -> None:
                try:
                    s.query("SELECT count(*) FROM spark.ticks a, spark.ticks b, spark.ticks c, spark.ticks d",
                            timeout=0)
                except BaseException as exc:   # noqa: BLE001 - the test inspects it
                    failure.append(exc)

            worker = threading.Thread(target=slow)
            worker.start()
            time.sleep(2.0)
            server.proc.kill()
            started = time.monotonic()
            worker.join(60)
            assert not worker.is_alive() and time.monotonic() - started < 40
            assert failure and "went away" in str(failure[0]) and "intact" in str(failure[0]), repr(failure)
            s.local.store_arrow("still_here", __import__("pyarrow").table({"a": [1]}))
            assert s.query("SELECT count(*) FROM still_here").rows == [(1,)]     # the session answers
        finally:
            close(s)
    finally:
        server.cleanup()
