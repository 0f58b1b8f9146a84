"""The PostgreSQL escape corpus: every statement is refused, and afterwards nothing on the
server has changed and no file was read or written. The connection is a superuser's, so the
guards (our parse check, then the read-only transaction) are all that stands in the way."""
from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from shell_agent_lab.analysis.errors import AnalysisError
from shell_agent_lab.engines.postgres import PostgresEngine
from shell_agent_lab.engines.urls import parse_url

from .helpers import close, sources

pytestmark = [pytest.mark.engines, pytest.mark.timeout(120)]

SECRET = f"TOPSECRET-{uuid.uuid4().hex}"


def corpus(secret: Path, marker: Path) -> list[str]:
    return [
        "INSERT INTO pg.sales (id, region) VALUES (999999, 'x')",
        "UPDATE pg.sales SET units = 0",
        "DELETE FROM pg.sales",
        "DROP TABLE pg.sales",
        "CREATE TABLE pg.evil (a int)",
        "TRUNCATE pg.sales",
        "ALTER TABLE pg.sales ADD COLUMN x int",
        f"COPY pg.sales TO PROGRAM 'touch {marker}'",
        f"COPY (SELECT * FROM pg.sales) TO '{marker}'",
        f"COPY pg.sales FROM '{secret}'",
        f"SELECT pg_read_file('{secret}') FROM pg.sales LIMIT 1",
        f"SELECT pg_read_binary_file('{secret}') FROM pg.sales LIMIT 1",
        f"SELECT lo_import('{secret}') FROM pg.sales LIMIT 1",
        f"SELECT lo_export(1, '{marker}') FROM pg.sales LIMIT 1",
        "SELECT lo_from_bytea(0, 'x') FROM pg.sales LIMIT 1",
        "SELECT pg_ls_dir('.') FROM pg.sales LIMIT 1",
        "SELECT * FROM dblink('dbname=warehouse', 'DELETE FROM sales') AS t(a int), pg.sales LIMIT 1",
        "SELECT * INTO pg.sales_copy FROM pg.sales",
        "WITH d AS (DELETE FROM pg.sales RETURNING *) SELECT count(*) FROM d",
        "WITH u AS (UPDATE pg.sales SET units = 0 RETURNING id) SELECT * FROM u",
        "SELECT nextval('counter') FROM pg.sales LIMIT 1",
        "SELECT setval('counter', 100) FROM pg.sales LIMIT 1",
        "SELECT set_config('default_transaction_read_only', 'off', false) FROM pg.sales LIMIT 1",
        "SELECT * FROM pg.sales FOR UPDATE",
        "SELECT 1 FROM pg.sales; DROP TABLE pg.sales",
        "SELECT * FROM pg.sales; COMMIT; DELETE FROM pg.sales",
        "SELECT pg_terminate_backend(pid) FROM pg.pg_stat_activity",
        "SELECT rolpassword FROM pg.pg_catalog.pg_authid",
        "SELECT query_to_xml('DELETE FROM sales RETURNING 1', true, true, '') FROM pg.sales LIMIT 1",
        "SELECT ts_stat('DELETE FROM sales') FROM pg.sales LIMIT 1",
        "CREATE FUNCTION pg.f() RETURNS int AS 'select 1' LANGUAGE sql",
        "DO $$ BEGIN DELETE FROM pg.sales; END $$",
        "GRANT ALL ON pg.sales TO PUBLIC",
        "LOCK TABLE pg.sales",
        "VACUUM pg.sales",
        "EXPLAIN ANALYZE DELETE FROM pg.sales",
        "PREPARE p AS DELETE FROM pg.sales",
        "COMMENT ON TABLE pg.sales IS 'changed'",
        "CALL pg.cleanup()",
        "SELECT pg_reload_conf() FROM pg.sales LIMIT 1",
        "SELECT current_setting('data_directory') FROM pg.sales LIMIT 1",
        f"SELECT * FROM pg.sales WHERE region = pg_read_file('{secret}')",
    ]


def snapshot(server) -> dict:
    with server.admin() as conn:
        return {
            "tables": conn.execute("SELECT table_schema, table_name FROM information_schema.tables "
                                   "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') "
                                   "ORDER BY 1, 2").fetchall(),
            "sales": conn.execute("SELECT count(*), sum(units), sum(price) FROM sales").fetchone(),
            "counter": conn.execute("SELECT last_value, is_called FROM counter").fetchone(),
            "large_objects": conn.execute("SELECT count(*) FROM pg_largeobject_metadata").fetchone(),
            "functions": conn.execute("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                                      "WHERE n.nspname = 'public'").fetchone(),
            "grants": conn.execute("SELECT count(*) FROM information_schema.role_table_grants "
                                   "WHERE grantee = 'PUBLIC' AND table_name = 'sales'").fetchone(),
            "comment": conn.execute("SELECT obj_description('sales'::regclass)").fetchone(),
            "columns": conn.execute("SELECT count(*) FROM information_schema.columns "
                                    "WHERE table_name = 'sales'").fetchone(),
        }


def test_the_escape_corpus_changes_nothing_and_reads_no_file(tmp_path, pg_server):
    secret = pg_server.root / "secret.txt"
    secret.write_text(SECRET + "\n")
    secret.chmod(0o644)
    marker = pg_server.root / "marker.txt"
    statements = corpus(secret, marker)
    assert len(statements) >= 30
    before = snapshot(pg_server)
    src = sources(tmp_path, pg=pg_server.url("postgres", password=pg_server.super_password))
    refusals = []
    try:
        for sql in statements:
            with pytest.raises(AnalysisError) as err:
                src.query(sql)
            refusals.append(str(err.value))
            assert SECRET not in str(err.value), sql
        assert src.query("SELECT count(*) AS n FROM pg.sales").rows == [(5_000,)]   # still usable
    finally:
        close(src)
    assert snapshot(pg_server) == before
    assert not marker.exists()
    assert all(SECRET not in r for r in refusals)


@pytest.mark.parametrize("sql", [
    "SELECT nextval('counter')",
    "WITH d AS (DELETE FROM sales RETURNING *) SELECT count(*) FROM d",
    "SELECT * FROM sales FOR UPDATE",
    "SELECT set_config('default_transaction_read_only', 'off', false), nextval('counter')",
])
@pytest.mark.parametrize("cap", [10, 1_000_000], ids=["capped", "server-cursor"])
def test_the_read_only_transaction_refuses_writes_the_parse_check_never_saw(pg_server, sql, cap):
    before = snapshot(pg_server)
    spec = parse_url("pg", pg_server.url("postgres", password=pg_server.super_password))
    engine = PostgresEngine(spec)
    try:
        # a small cap wraps the statement in SELECT … LIMIT, where a data-modifying WITH is refused
        # before it could run (it must be at the top level); either way nothing is written
        with pytest.raises(AnalysisError,
                           match="read-only transaction|must not contain data-modifying|must be at the top level"):
            engine.query(sql, max_rows=cap, timeout=10)    # straight to the server, no parse check
        assert engine.query("SELECT count(*) FROM sales", max_rows=1, timeout=10).column(0).to_pylist() == [5_000]
    finally:
        engine.close()
    assert snapshot(pg_server) == before


def test_whatever_a_query_did_is_rolled_back(pg_server):
    """PostgreSQL lets lo_from_bytea() run in a read-only transaction; every query ends in ROLLBACK."""
    before = snapshot(pg_server)
    engine = PostgresEngine(parse_url("pg", pg_server.url("postgres", password=pg_server.super_password)))
    try:
        created = engine.query("SELECT lo_from_bytea(0, 'x') AS oid", max_rows=1, timeout=10)
        assert created.num_rows == 1
    finally:
        engine.close()
    assert snapshot(pg_server) == before
