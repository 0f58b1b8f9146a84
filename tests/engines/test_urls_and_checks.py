"""Connection URLs and secrets, and the read-only parse check, without a server (pure)."""
from __future__ import annotations

import pytest

from shell_agent_lab.engines import EngineError, parse_url, redact
from shell_agent_lab.engines.readonly import check_query, parse_one


def test_a_password_in_the_url_is_kept_for_the_driver_and_shown_redacted():
    spec = parse_url("pg", "postgresql://analyst:s3cr%40t@db.example.com:5432/sales", env={})
    assert spec.redacted == "postgresql://analyst:***@db.example.com:5432/sales"
    assert "s3cr%40t" in spec.secret_url
    assert "s3cr" not in repr(spec) and "s3cr" not in str(spec)


def test_secrets_from_the_environment():
    spec = parse_url("pg", "postgresql://analyst:${PG_PW}@db/sales", env={"PG_PW": "p@ss word"})
    assert spec.redacted == "postgresql://analyst:***@db/sales"
    assert "p%40ss%20word" in spec.secret_url
    spec = parse_url("wh", "postgresql://analyst@db/sales", env={"SHELL_AGENT_LAB_SECRET_WH": "from-env"})
    assert "from-env" in spec.secret_url and "from-env" not in spec.redacted
    spark = parse_url("spark", "sc://cluster:15002", env={"SHELL_AGENT_LAB_SECRET_SPARK": "tok"})
    assert spark.secret_url.endswith(";token=tok") and "tok" not in spark.redacted
    with pytest.raises(EngineError, match=r"\$\{MISSING\}.*not set"):
        parse_url("pg", "postgresql://a:${MISSING}@db/x", env={})


def test_a_spark_token_is_redacted_and_bad_urls_and_names_are_refused():
    assert parse_url("sp", "sc://h:15002/;token=abc;user_id=me", env={}).redacted == "sc://h:15002/;token=***;user_id=me"
    assert redact("see postgresql://u:pw@h/db and sc://x/;token=t") == "see postgresql://u:***@h/db and sc://x/;token=***"
    for name, url, message in [("pg", "mysql://h/db", "unsupported URL"), ("Pg", "postgresql://h/db", "invalid"),
                               ("main", "postgresql://h/db", "invalid"), ("pg", "postgresql:///db", "no host"),
                               ("sp", "sc://", "no host")]:
        with pytest.raises(EngineError, match=message):
            parse_url(name, url, env={})


@pytest.mark.parametrize("dialect,sql,message", [
    ("postgres", "SELECT * FROM sales; DROP TABLE sales", "exactly one"),
    ("postgres", "DELETE FROM sales", "only queries"),
    ("postgres", "WITH d AS (DELETE FROM sales RETURNING *) SELECT * FROM d", "DELETE"),
    ("postgres", "SELECT * INTO copy FROM sales", "INTO"),
    ("postgres", "SELECT * FROM sales FOR UPDATE", "LOCK"),
    ("postgres", "SELECT pg_read_file('/etc/passwd')", "pg_read_file"),
    ("postgres", "SELECT * FROM pg_catalog.pg_authid", "unknown table"),
    ("spark", "SELECT * FROM parquet.`/data`", "unknown table"),
    ("spark", "SELECT * FROM read_files('/data')", "read_files"),
    ("spark", "SELECT java_method('java.lang.System', 'exit', 0)", "java_method"),
    ("spark", "CACHE TABLE events", "only queries"),
    ("spark", "ADD JAR /tmp/x.jar", "only queries"),
])
def test_the_parse_check_refuses(dialect, sql, message):
    with pytest.raises(EngineError, match=message):
        check_query(parse_one(sql, dialect), dialect, known={"sales", "events"})


def test_what_is_sent_is_regenerated_from_the_checked_tree():
    checked = check_query(parse_one("select region , count(*) n from SALES /* a comment */ group by 1",
                                    "postgres"), "postgres", known={"sales"})
    assert checked.sql == "SELECT region, COUNT(*) AS n FROM SALES GROUP BY 1"
    series = check_query(parse_one("SELECT * FROM generate_series(1, 3)", "postgres"), "postgres", known=set())
    assert "GENERATE_SERIES" in series.sql.upper()


def test_a_comment_cannot_smuggle_a_statement():
    sql = "SELECT * FROM sales -- */ ; DROP TABLE sales; /*\n"
    assert check_query(parse_one(sql, "postgres"), "postgres", known={"sales"}).sql == "SELECT * FROM sales"


def test_a_driver_message_is_scrubbed_of_the_secret():
    spec = parse_url("pg", "postgresql://u:p%40ssw0rd@h/db", env={})
    assert spec.scrub("auth failed for p@ssw0rd at postgresql://u:p%40ssw0rd@h/db") == \
        "auth failed for *** at postgresql://u:***@h/db"
    spark = parse_url("sp", "sc://h:1/;token=t0k3n-abc", env={})
    assert spark.scrub("bad token t0k3n-abc") == "bad token ***"
