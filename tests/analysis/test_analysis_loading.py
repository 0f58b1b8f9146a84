"""Loading files: formats, path rules, limits, late type changes, larger-than-memory."""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from shell_agent_lab.analysis import AnalysisSettings, LoadError
from shell_agent_lab.analysis.loader import detect_format, validate_file_path


def test_json_array_and_jsonl_load_with_nested_values(engine, workdir):
    (workdir / "a.json").write_text(json.dumps([{"id": 1, "tags": ["x", "y"], "meta": {"ok": True}},
                                                {"id": 2, "tags": [], "meta": {"ok": False}}]))
    (workdir / "b.jsonl").write_text('{"id": 1, "v": 1.5}\n{"id": 2, "v": null}\n{"id": 3, "v": 2.5}\n')
    (workdir / "c.ndjson").write_text('{"k": "a"}\n{"k": "b"}\n')
    a = engine.load("a.json", "a")
    assert (a.rows, dict(a.columns)["tags"], dict(a.columns)["meta"]) == (2, "VARCHAR[]", "STRUCT(ok BOOLEAN)")
    assert engine.query("SELECT id FROM a WHERE meta.ok").rows == [(1,)]
    b = engine.load("b.jsonl", "b")
    assert b.rows == 3 and engine.query("SELECT sum(v) FROM b").rows == [(4.0,)]
    assert engine.load("c.ndjson", "c").rows == 2


def test_tsv_parquet_and_gzip(engine, workdir):
    (workdir / "t.tsv").write_text("a\tb\n1\tx,y\n2\tz\n")
    assert engine.load("t.tsv", "t").columns == [("a", "BIGINT"), ("b", "VARCHAR")]
    assert engine.query("SELECT b FROM t ORDER BY a").rows == [("x,y",), ("z",)]
    pq.write_table(pa.table({"n": [1, 2, 3], "s": ["a", "b", "c"]}), workdir / "p.parquet")
    assert engine.load("p.parquet", "p").rows == 3
    with gzip.open(workdir / "g.csv.gz", "wt") as fh:
        fh.write("x\n1\n2\n")
    assert engine.load("g.csv.gz", "g").rows == 2


def test_create_or_replace_keeps_one_table(engine, workdir):
    (workdir / "v1.csv").write_text("x\n1\n")
    (workdir / "v2.csv").write_text("x,y\n1,2\n3,4\n")
    engine.load("v1.csv", "data")
    info = engine.load("v2.csv", "data")
    assert (info.rows, len(info.columns)) == (2, 2)
    assert [t.name for t in engine.tables()] == ["data"]


def test_home_expansion(engine, monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "h.csv").write_text("x\n1\n")
    monkeypatch.setenv("HOME", str(home))
    assert engine.load("~/h.csv", "h").rows == 1


def test_absolute_path(engine, tmp_path):
    other = tmp_path / "elsewhere.csv"
    other.write_text("x\n7\n")
    assert engine.load(str(other), "e").rows == 1


def test_symlinks_are_refused(engine, workdir, sales_csv):
    link = workdir / "link.csv"
    link.symlink_to(sales_csv)
    with pytest.raises(LoadError, match="symbolic link"):
        engine.load("link.csv", "linked")
    assert engine.tables() == []


@pytest.mark.parametrize(("raw", "message"), [
    ("", "empty"),
    ("   ", "empty"),
    ("sales.csv\n", "control characters"),
    ("sa\x00les.csv", "control characters"),
    ("sales\x1b.csv", "control characters"),
    ("missing.csv", "no such file"),
    (".", "is a directory"),
])
def test_bad_paths_are_refused_with_one_line(engine, sales_csv, raw, message):
    with pytest.raises(LoadError, match=message) as caught:
        engine.load(raw, "x")
    assert "\n" not in str(caught.value)
    assert engine.tables() == []


def test_a_fifo_is_not_a_regular_file(engine, workdir):
    os.mkfifo(workdir / "pipe.csv")
    with pytest.raises(LoadError, match="not a regular file"):
        engine.load("pipe.csv", "p")


def test_size_limit_names_the_sizes(make_engine, sales_csv):
    engine = make_engine(AnalysisSettings(threads=1, max_file_bytes=1024))
    with pytest.raises(LoadError, match=r"sales\.csv is .* KB, over the 1\.0 KB load limit"):
        engine.load(str(sales_csv), "sales")


def test_unknown_extension(engine, workdir):
    (workdir / "data.xlsx").write_bytes(b"PK")
    with pytest.raises(LoadError, match="supported extensions"):
        engine.load("data.xlsx", "x")


def test_unparseable_file_keeps_the_old_table(engine, workdir):
    (workdir / "ok.json").write_text('[{"a": 1}]')
    engine.load("ok.json", "j")
    (workdir / "bad.json").write_text('{"a": 1,,, nope')
    with pytest.raises(LoadError, match="cannot (read|load) bad.json as JSON"):
        engine.load("bad.json", "j")
    assert engine.query("SELECT a FROM j").rows == [(1,)]


def test_a_type_change_late_in_the_file_is_retried_with_a_full_scan(engine, workdir):
    lines = ["id,code"] + [f"{i},{i}" for i in range(30_000)] + ["30000,A17"]
    (workdir / "late.csv").write_text("\n".join(lines) + "\n")
    info = engine.load("late.csv", "late")
    assert info.rows == 30_001 and dict(info.columns)["code"] == "VARCHAR"


def test_detect_format_and_validate_are_pure(tmp_path):
    assert [detect_format(Path(n)) for n in ("a.CSV", "b.tsv", "c.json", "d.jsonl", "e.ndjson",
                                             "f.parquet", "g.csv.gz", "h.jsonl.zst")] == \
        ["csv", "tsv", "json", "jsonl", "jsonl", "parquet", "csv", "jsonl"]
    target = tmp_path / "x.csv"
    target.write_text("a\n")
    assert validate_file_path("x.csv", tmp_path, 10) == target
    assert validate_file_path("./sub/../x.csv", tmp_path, 10) == target


@pytest.mark.slow
def test_loading_a_file_larger_than_the_memory_limit(make_engine, workdir):
    """Rows stream into the database file, so the load is bounded by disk, not memory."""
    import duckdb

    path = workdir / "big.csv"
    writer = duckdb.connect()
    writer.execute(f"COPY (SELECT range AS id, md5(range::VARCHAR) AS h, range % 97 AS g "
                   f"FROM range(1500000)) TO '{path}' (HEADER)")
    writer.close()
    assert path.stat().st_size > 60 * 1024 * 1024
    engine = make_engine(AnalysisSettings(threads=1, memory_limit="40MB"))
    events = []
    info = engine.load(str(path), "big", progress=lambda *event: events.append(event))
    assert info.rows == 1_500_000
    assert engine.query("SELECT count(DISTINCT g), max(id) FROM big").rows == [(97, 1_499_999)]
    size = path.stat().st_size
    assert events[0] == (f"loading big.csv ({size / 2**20:.1f} MB)", 0, size)
    assert any(detail.startswith("read 1,") and total is None for detail, _, total in events[1:-1])
    assert events[-1] == ("loaded 1,500,000 rows into big", size, size)
