"""The engine interface is one contract: the session DuckDB, PostgreSQL and Spark answer the same
calls (list, describe, sample, a capped query, cancel) the same way."""
from __future__ import annotations

import threading

import pandas as pd
import pytest

from shell_agent_lab.analysis.engine import AnalysisEngine
from shell_agent_lab.analysis.errors import AnalysisError, RowCapError
from shell_agent_lab.engines.connections import open_engine
from shell_agent_lab.engines.local import LocalEngine
from shell_agent_lab.engines.urls import parse_url

pytestmark = [pytest.mark.engines, pytest.mark.timeout(300)]


@pytest.fixture(params=["duckdb", "postgresql", pytest.param("spark", marks=pytest.mark.slow)])
def engine(request, tmp_path):
    if request.param == "duckdb":
        frame = pd.DataFrame({"id": range(5_000), "region": ["north", "south", "east", "west"] * 1_250})
        local = AnalysisEngine(tmp_path / "a.duckdb", namespace=lambda: {"sales": frame})
        yield LocalEngine(local), "sales", "SELECT region, count(*) AS n FROM sales GROUP BY region ORDER BY region"
        local.close()
        return
    if request.param == "postgresql":
        server = request.getfixturevalue("pg_server")
        made = open_engine(parse_url("pg", server.url(password=server.analyst_password)))
        sql = "SELECT region, count(*) AS n FROM sales GROUP BY region ORDER BY region"
        yield made, "sales", sql
    else:
        server = request.getfixturevalue("spark_server")
        made = open_engine(parse_url("spark", server.url))
        sql = "SELECT CAST(kind AS STRING) AS region, count(*) AS n FROM events GROUP BY kind ORDER BY region"
        yield made, "events", sql
    made.close()


def test_the_same_calls_answer_on_every_engine(engine):
    made, table, grouped = engine
    listed = {t.name: t for t in made.list_tables()}
    assert table in listed and listed[table].columns
    described = made.describe(table)
    assert described.name == table and described.rows > 0 and all(len(v) == 3 for v in described.samples.values())
    assert made.sample(table, 4).num_rows == 4
    result = made.query(grouped, max_rows=10, timeout=30)
    assert result.column_names == ["region", "n"] and result.num_rows >= 4
    with pytest.raises(RowCapError):
        made.query(f"SELECT * FROM {table}", max_rows=10, timeout=30)
    with pytest.raises(AnalysisError):
        made.query(f"SELECT count(*) FROM {table} a, {table} b, {table} c", max_rows=1, timeout=None,
                   cancel=_set_soon())
    made.cancel()                                    # nothing running: harmless


def _set_soon() -> threading.Event:
    event = threading.Event()
    threading.Timer(0.5, event.set).start()
    return event
