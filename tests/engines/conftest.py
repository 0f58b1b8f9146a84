"""Session-scoped real servers: one PostgreSQL cluster and one Spark Connect server per run."""
from __future__ import annotations

import os

import pytest

from .servers import PostgresServer, SparkServer, postgres_bin

SALES_ROWS = 5_000


def _missing(what: str) -> None:
    # CI must run these: a missing server there is a failure, not a skip
    if os.environ.get("CI"):
        pytest.fail(f"{what} (make system-deps installs it)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def pg_server():
    if postgres_bin() is None:
        _missing("PostgreSQL's server binaries are not installed")
    pytest.importorskip("psycopg")
    server = PostgresServer().start()
    try:
        with server.admin("postgres") as conn:
            conn.execute("CREATE DATABASE warehouse")
            conn.execute(f"CREATE ROLE analyst LOGIN PASSWORD '{server.analyst_password}'")
        with server.admin() as conn:
            conn.execute("CREATE TABLE sales (id bigint PRIMARY KEY, region text, product text, units int, "
                         "price numeric(10,2), sold_on date)")
            conn.execute(f"INSERT INTO sales SELECT g, (ARRAY['north','south','east','west'])[1 + g % 4], "
                         f"'p' || (g % 10), 1 + g % 7, (g % 100) + 0.5, DATE '2024-01-01' + (g % 365) "
                         f"FROM generate_series(1, {SALES_ROWS}) g")
            conn.execute("CREATE SCHEMA crm")
            conn.execute("CREATE TABLE crm.customers (id int, name text)")
            conn.execute("INSERT INTO crm.customers VALUES (1, 'Ada'), (2, 'Bo')")
            conn.execute("CREATE SEQUENCE counter")
            conn.execute("ANALYZE")
            conn.execute("GRANT USAGE ON SCHEMA crm TO analyst")
            conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public, crm TO analyst")
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def spark_server():
    pytest.importorskip("pyspark")
    import shutil
    if shutil.which("java") is None:
        _missing("Java 17 is not installed")
    server = SparkServer().start()
    try:
        client = server.client()
        client.range(0, 2_000).selectExpr("id", "CAST(id % 5 AS INT) AS kind", "id * 1.5 AS amount") \
            .write.mode("overwrite").saveAsTable("events")
        client.stop()
        yield server
    finally:
        server.cleanup()
