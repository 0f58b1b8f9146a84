"""The Spark escape corpus: every statement is refused before it reaches the server, and
afterwards the catalogue, the data, the warehouse folder and the settings are as they were;
no file outside the catalogue is read."""
from __future__ import annotations

import uuid

import pytest

from shell_agent_lab.analysis.errors import AnalysisError

from .helpers import close, sources

pytestmark = [pytest.mark.engines, pytest.mark.slow, pytest.mark.timeout(300)]

SECRET = f"TOPSECRET-{uuid.uuid4().hex}"


def corpus(secret: str, folder: str, marker: str) -> list[str]:
    return [
        "INSERT INTO spark.events VALUES (1, 1, 1.0)",
        "INSERT OVERWRITE TABLE spark.events SELECT * FROM spark.events WHERE id < 0",
        f"INSERT OVERWRITE DIRECTORY '{marker}' SELECT * FROM spark.events",
        "UPDATE spark.events SET amount = 0",
        "DELETE FROM spark.events",
        "MERGE INTO spark.events t USING spark.events s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "DROP TABLE spark.events",
        "TRUNCATE TABLE spark.events",
        "ALTER TABLE spark.events ADD COLUMNS (x INT)",
        "ALTER TABLE spark.events RENAME TO spark.gone",
        "CREATE TABLE spark.copy AS SELECT * FROM spark.events",
        "CREATE VIEW spark.v AS SELECT * FROM spark.events",
        "CREATE TEMPORARY VIEW v AS SELECT * FROM spark.events",
        "CACHE TABLE spark.events",
        "CACHE TABLE c AS SELECT * FROM spark.events",
        "UNCACHE TABLE spark.events",
        "ADD JAR /tmp/evil.jar",
        f"ADD FILE {secret}",
        "CREATE FUNCTION spark.f AS 'com.example.Evil' USING JAR '/tmp/evil.jar'",
        "CREATE TEMPORARY FUNCTION f AS 'org.apache.hadoop.hive.ql.udf.UDFReflect'",
        "SET spark.sql.shuffle.partitions = 1",
        "SET spark.sql.warehouse.dir = /tmp",
        "RESET spark.sql.shuffle.partitions",
        f"SELECT * FROM csv.`{secret}`, spark.events",
        f"SELECT * FROM text.`{secret}` UNION ALL SELECT CAST(id AS STRING) FROM spark.events",
        f"SELECT * FROM parquet.`{folder}` JOIN spark.events",
        f"SELECT * FROM json.`{secret}` WHERE EXISTS (SELECT 1 FROM spark.events)",
        f"SELECT * FROM binaryFile.`{secret}`, spark.events",
        f"SELECT * FROM read_files('{secret}'), spark.events",
        "SELECT reflect('java.lang.Runtime', 'getRuntime') FROM spark.events LIMIT 1",
        "SELECT java_method('java.lang.System', 'exit', 0) FROM spark.events LIMIT 1",
        f"SELECT java_method('java.nio.file.Files', 'readString', '{secret}') FROM spark.events LIMIT 1",
        f"SELECT xpath('<!DOCTYPE a [<!ENTITY e SYSTEM \"file://{secret}\">]><a>&e;</a>', 'a/text()') "
        "FROM spark.events LIMIT 1",
        "SELECT input_file_name() FROM spark.events LIMIT 1",
        "LOAD DATA LOCAL INPATH '/etc/passwd' INTO TABLE spark.events",
        "REFRESH TABLE spark.events",
        "MSCK REPAIR TABLE spark.events",
        "ANALYZE TABLE spark.events COMPUTE STATISTICS",
        "USE spark.other",
        "SELECT * FROM spark.events; DROP TABLE spark.events",
        "SELECT * FROM spark.events WHERE id IN (SELECT id FROM spark.events) ; CREATE TABLE spark.x (a INT)",
        "BEGIN DROP TABLE spark.events; END",
        f"SELECT * FROM spark.`{folder}`",
    ]


def snapshot(server) -> dict:
    client = server.client()
    try:
        return {
            "tables": sorted((t.name, t.database) for t in client.catalog.listTables()),
            "events": client.sql("SELECT count(*), sum(amount) FROM events").collect()[0].asDict(),
            "columns": [c.name for c in client.catalog.listColumns("events")],
            "partitions": client.conf.get("spark.sql.shuffle.partitions"),
            "functions": sorted(f.name for f in client.catalog.listFunctions() if not f.isTemporary
                                and f.namespace and f.namespace != ["builtin"]),
            "warehouse": sorted(str(p.relative_to(server.warehouse)) for p in server.warehouse.rglob("*")
                                if "_temporary" not in str(p)),
        }
    finally:
        client.stop()


def test_the_escape_corpus_never_reaches_the_server(tmp_path, spark_server):
    secret = spark_server.root / "secret.csv"
    secret.write_text(f"value\n{SECRET}\n")
    folder = tmp_path / "lake"
    folder.mkdir()
    marker = spark_server.root / "marker"
    statements = corpus(str(secret), str(folder), str(marker))
    assert len(statements) >= 30
    before = snapshot(spark_server)
    src = sources(tmp_path, spark=spark_server.url)
    try:
        for sql in statements:
            with pytest.raises(AnalysisError) as err:
                src.query(sql)
            assert SECRET not in str(err.value), sql
        assert src.query("SELECT count(*) AS n FROM spark.events").rows == [(2_000,)]
    finally:
        close(src)
    assert snapshot(spark_server) == before
    assert not marker.exists()
