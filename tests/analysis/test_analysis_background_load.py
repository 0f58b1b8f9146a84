"""Large files: queryable as soon as load returns, stored in the background, swapped in whole.

``background_load_bytes=1`` makes every CSV/TSV/Parquet file take that path. The background
store is held at a chosen point with :class:`Gate` (it patches the chunk iterator) so each
test decides what happens while a file is half stored; nothing here depends on timing.
"""
from __future__ import annotations

import datetime
import os
import threading
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings, LoadError
from shell_agent_lab.analysis import background_store
from shell_agent_lab.analysis import staging
from shell_agent_lab.analysis.errors import SQLRejectedError, UnknownTableError

ROWS = 30_000
TOTAL = "SELECT count(*), sum(id), count(DISTINCT g), min(d), max(s) FROM big"


def background(**extra) -> AnalysisSettings:
    return AnalysisSettings(threads=2, background_load_bytes=1, **extra)


def write_csv(path: Path, rows: int = ROWS, *, offset: int = 0) -> Path:
    con = duckdb.connect()
    con.execute(f"COPY (SELECT range + {offset} AS id, range % 7 AS g, 'name_' || range AS s, "
                f"DATE '2020-01-01' + (range % 365)::INTEGER AS d FROM range({rows})) TO '{path}' (HEADER)")
    con.close()
    return path


def expected(path: Path) -> list[tuple]:
    con = duckdb.connect()
    rows = con.execute(TOTAL.replace("FROM big", f"FROM read_csv('{path}')")).fetchall()
    con.close()
    return rows


class Gate:
    """Hold the background store once it has handed out ``hold_after`` chunks of 5,000 rows
    (after the last one: before it commits and swaps), until ``release`` is set."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, hold_after: int = 0) -> None:
        self.release = threading.Event()
        self.reached = threading.Event()
        self.hold_after = hold_after
        self.chunks = 0
        original = staging.chunks
        monkeypatch.setattr(staging, "BATCH_ROWS", 5_000)

        def held(reader, **kwargs):
            kwargs["rows"] = 5_000          # several chunks even for a small file
            for chunk in original(reader, **kwargs):
                self._hold()
                self.chunks += 1
                yield chunk
            self._hold()

        monkeypatch.setattr(staging, "chunks", held)

    def _hold(self) -> None:
        if self.chunks >= self.hold_after and not self.release.is_set():
            self.reached.set()
            self.release.wait(30)


def close_while_held(engine: AnalysisEngine, gate: Gate) -> None:
    """Close the engine while its store is held: release the store only once it is told to stop."""
    jobs = list(engine._jobs.values())
    closer = threading.Thread(target=engine.close)
    closer.start()
    for job in jobs:
        assert job.stop.wait(10)
    gate.release.set()
    closer.join(30)
    assert not closer.is_alive()


def held_store(make_engine, big: Path, monkeypatch: pytest.MonkeyPatch, db: Path, *,
               hold_after: int = 2) -> tuple[AnalysisEngine, Gate]:
    """An engine on ``db`` whose background store of ``big`` is held after ``hold_after`` chunks."""
    gate = Gate(monkeypatch, hold_after=hold_after)
    engine = make_engine(background(), db=db)
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    return engine, gate


@pytest.fixture
def big(workdir: Path) -> Path:
    return write_csv(workdir / "big.csv")


def stage_files(engine: AnalysisEngine) -> list[str]:
    return sorted(p.name for p in engine._stage.iterdir())


def catalog(engine: AnalysisEngine) -> tuple[list[str], list[str]]:
    """(tables, views) of the session database; half-built tables only while a store runs."""
    con = engine._conn
    tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()
              if not (engine._jobs and r[0].startswith(staging.BUILD_PREFIX))]
    views = [r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
    return tables, views


def test_a_large_file_answers_at_once_and_is_swapped_for_a_stored_table(make_engine, big, monkeypatch):
    gate = Gate(monkeypatch)
    engine = make_engine(background())
    info = engine.load(str(big), "big")
    assert info.loading and not info.rows_exact and abs(info.rows - ROWS) < ROWS * 0.05
    assert info.columns == [("id", "BIGINT"), ("g", "BIGINT"), ("s", "VARCHAR"), ("d", "DATE")]
    assert "estimated" in info.rows_text and "background" in info.rows_text
    assert gate.reached.wait(10)        # the store is held before its first chunk
    assert engine.loading() == ["big"]
    assert engine.query(TOTAL).rows == expected(big)          # answered from the file
    assert [t.name for t in engine.tables()] == ["big"] and engine.tables()[0].loading
    assert catalog(engine) == (["_sal_loads"], ["big"])
    gate.release.set()
    assert engine.wait_loaded("big", timeout=30)
    assert engine.loading() == [] and gate.chunks == ROWS // 5_000
    assert engine.query(TOTAL).rows == expected(big)          # the same answer from the stored table
    stored = engine.describe("big")
    assert (stored.rows, stored.rows_exact, stored.loading) == (ROWS, True, False)
    assert catalog(engine) == (["big"], [])
    assert stage_files(engine) == []                          # the link is gone
    # storage order is the file's order
    assert engine.preview("big", 3).rows == [(0, 0, "name_0", engine.query("SELECT DATE '2020-01-01'").rows[0][0]),
                                             (1, 1, "name_1", engine.query("SELECT DATE '2020-01-02'").rows[0][0]),
                                             (2, 2, "name_2", engine.query("SELECT DATE '2020-01-03'").rows[0][0])]


def test_small_files_and_json_are_stored_before_load_returns(make_engine, big, workdir):
    engine = make_engine(AnalysisSettings(threads=1, background_load_bytes=10 * 1024 ** 2))
    info = engine.load(str(big), "big")
    assert (info.loading, info.rows, info.rows_exact) == (False, ROWS, True)
    (workdir / "j.json").write_text('[{"a": 1}, {"a": 2}]')
    assert not make_engine(background(), db=workdir / "other.duckdb").load("j.json", "j").loading


def test_a_memory_limit_too_small_for_the_file_readers_loads_in_the_foreground(make_engine, big):
    info = make_engine(background(memory_limit="64MB")).load(str(big), "big")
    assert (info.loading, info.rows) == (False, ROWS)
    assert make_engine(background(memory_limit="1GB"), db=big.with_name("x.duckdb")).load(str(big), "big").loading


def test_a_store_running_at_exit_stops_cleanly(make_engine, big, monkeypatch, tmp_path):
    gate = Gate(monkeypatch, hold_after=1)
    db = tmp_path / "s" / "analysis.duckdb"
    engine = make_engine(background(), db=db)
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    job = engine._jobs["big"]
    exiting = threading.Thread(target=background_store._stop_background_stores)
    exiting.start()
    assert job.stop.wait(10)
    gate.release.set()
    exiting.join(30)
    assert job.done.is_set() and engine.loading() == ["big"]     # left for the next open


def test_a_query_running_at_swap_time_finishes_first(make_engine, big, monkeypatch):
    gate = Gate(monkeypatch, hold_after=ROWS // 5_000)      # after the last chunk, before the swap
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    events: list[str] = []
    swap = engine._swap

    def recorded_swap(job):
        events.append(f"swap with {engine._active} queries running")
        swap(job)
    monkeypatch.setattr(engine, "_swap", recorded_swap)
    started = threading.Event()
    result: list = []

    def slow_query():
        started.set()
        result.append(engine.query("SELECT count(*) FROM big, range(300)").rows)
        events.append("query done")
    worker = threading.Thread(target=slow_query)
    worker.start()
    started.wait()
    gate.release.set()
    worker.join(60)
    assert engine.wait_loaded(timeout=30)
    assert result == [[(ROWS * 300,)]]
    assert events[-1] == "swap with 0 queries running"
    assert engine.query(TOTAL).rows == expected(big)


def test_the_store_pauses_while_a_query_runs(make_engine, big, monkeypatch):
    gate = Gate(monkeypatch, hold_after=1)
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    paused = threading.Event()
    pause = engine._pause_for_queries

    def watched(job):
        if engine._active:
            paused.set()
        pause(job)
    monkeypatch.setattr(engine, "_pause_for_queries", watched)
    with engine._busy:            # a query is running
        engine._active += 1
    try:
        gate.release.set()
        assert paused.wait(10)
        assert engine.loading() == ["big"] and gate.chunks == 2   # nothing stored meanwhile
    finally:
        with engine._busy:
            engine._active -= 1
            engine._busy.notify_all()
    assert engine.wait_loaded(timeout=30)
    assert engine.query(TOTAL).rows == expected(big)


def test_close_in_the_middle_resumes_on_reopen(make_engine, big, monkeypatch, tmp_path):
    gate = Gate(monkeypatch, hold_after=2)
    db = tmp_path / "s" / "analysis.duckdb"
    engine = make_engine(background(), db=db)
    engine.load(str(big), "big")
    engine.set_description("big", "orders, loaded at night")
    assert gate.reached.wait(10)
    close_while_held(engine, gate)
    reopened = make_engine(background(), db=db)
    assert reopened.loading() == ["big"]
    assert reopened.query(TOTAL).rows == expected(big)       # the view works again at once
    assert reopened.wait_loaded(timeout=30)
    assert reopened.query(TOTAL).rows == expected(big)
    assert reopened.describe("big").description == "orders, loaded at night"
    assert catalog(reopened) == (["big"], []) and stage_files(reopened) == []


def test_a_copy_of_the_database_mid_store_passes_the_bundle_check(make_engine, big, monkeypatch, tmp_path):
    """The view over the file is temporary, so an exported database holds no view that reads
    files (the bundle importer refuses those); the half-done load is simply not in the copy."""
    from shell_agent_lab.bundle._duckdb_file import check_imported, snapshot

    gate = Gate(monkeypatch, hold_after=2)
    db = tmp_path / "s" / "analysis.duckdb"
    engine = make_engine(background(), db=db)
    engine.load(str(big), "big")
    (engine._stage.parent / "small.csv").write_text("x\n1\n")
    assert gate.reached.wait(10)
    close_while_held(engine, gate)             # an export closes the engine, then copies the file
    copy = tmp_path / "copy.duckdb"
    snapshot(db, copy)
    assert "big" not in check_imported(copy)
    imported = make_engine(background(), db=tmp_path / "imported" / "analysis.duckdb")
    import shutil
    shutil.copy(copy, imported.db_path.with_name("x.duckdb"))
    other = make_engine(background(), db=imported.db_path.with_name("x.duckdb"))
    assert other.tables() == [] and catalog(other) == ([], [])
    with pytest.raises(UnknownTableError, match="still being stored"):
        other.describe("big")


def test_an_export_finishes_a_store_its_kernel_left_half_done(make_engine, big, monkeypatch, tmp_path):
    """A kernel stopped mid-store (closed here; killed works the same way, see the reopen tests):
    exporting the session later finishes the store from the staged file first, so the bundle
    holds the whole table and lists none of the engine's own bookkeeping."""
    from shell_agent_lab.bundle._duckdb_file import check_imported, finish_pending_stores, snapshot
    from shell_agent_lab.cli.session_commands import _tables

    db = tmp_path / "s" / "analysis.duckdb"
    engine, gate = held_store(make_engine, big, monkeypatch, db)
    close_while_held(engine, gate)
    assert {t["name"] for t in _tables(db)} == set()             # half stored: not the user's yet
    assert finish_pending_stores(db) == ()
    assert finish_pending_stores(db) == ()                       # nothing pending: nothing opened
    copy = tmp_path / "copy.duckdb"
    snapshot(db, copy)
    assert check_imported(copy) == ["big"]
    assert [t["name"] for t in _tables(db)] == ["big"]
    reopened = make_engine(background(), db=copy)
    assert reopened.loading() == [] and reopened.query(TOTAL).rows == expected(big)


def test_an_export_names_a_half_stored_table_whose_file_is_gone(make_engine, big, monkeypatch, tmp_path):
    from shell_agent_lab.bundle._duckdb_file import check_imported, finish_pending_stores, snapshot

    db = tmp_path / "s" / "analysis.duckdb"
    engine, gate = held_store(make_engine, big, monkeypatch, db)
    stage = engine._stage
    close_while_held(engine, gate)
    for entry in stage.iterdir():
        entry.unlink()
    assert finish_pending_stores(db) == ("big",)
    copy = tmp_path / "copy.duckdb"
    snapshot(db, copy)
    assert check_imported(copy) == []


def test_the_engine_says_when_a_background_store_has_ended(big, monkeypatch, tmp_path):
    gate = Gate(monkeypatch, hold_after=1)
    told: list[str] = []
    engine = AnalysisEngine(tmp_path / "s" / "analysis.duckdb", settings=background(), on_stored=told.append)
    try:
        engine.load(str(big), "big")
        assert gate.reached.wait(10) and told == []
        gate.release.set()
        assert engine.wait_loaded(timeout=30)
        assert told == ["big"] and engine.describe("big").rows_exact
    finally:
        engine.close()
    # a store stopped by closing the engine has not ended: it resumes at the next open
    gate = Gate(monkeypatch, hold_after=1)
    told.clear()
    engine = AnalysisEngine(tmp_path / "t" / "analysis.duckdb", settings=background(), on_stored=told.append)
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    close_while_held(engine, gate)
    assert told == []


def test_a_crash_after_storing_swaps_at_reopen_without_reading_again(make_engine, big, monkeypatch, tmp_path):
    db = tmp_path / "s" / "analysis.duckdb"
    engine = make_engine(background(), db=db)
    def crash(job):
        raise background_store._Stopped      # the thread ends as a killed kernel's would: no clean-up
    monkeypatch.setattr(engine, "_swap", crash)
    engine.load(str(big), "big")
    engine._jobs["big"].done.wait(30)
    engine.close()
    monkeypatch.undo()
    reads = []
    monkeypatch.setattr(AnalysisEngine, "_store", lambda self, job: reads.append(job.name))
    reopened = make_engine(background(), db=db)
    assert reopened.loading() == [] and reads == []
    assert reopened.query(TOTAL).rows == expected(big)
    assert catalog(reopened) == (["big"], []) and stage_files(reopened) == []


def test_a_half_written_store_is_discarded_and_redone(make_engine, big, monkeypatch, tmp_path):
    db = tmp_path / "s" / "analysis.duckdb"
    engine = make_engine(background(), db=db)
    gate = Gate(monkeypatch, hold_after=3)
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    engine._conn.execute(f"CREATE TABLE {staging.BUILD_PREFIX}{'0' * 32} (x INTEGER)")   # a stray half build
    close_while_held(engine, gate)
    reopened = make_engine(background(), db=db)
    assert reopened.wait_loaded(timeout=30)
    assert reopened.query(TOTAL).rows == expected(big)
    assert catalog(reopened) == (["big"], [])


def test_the_original_file_may_be_deleted_while_it_is_stored(make_engine, big, monkeypatch):
    truth = expected(big)
    gate = Gate(monkeypatch, hold_after=1)
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    big.unlink()
    assert engine.query(TOTAL).rows == truth
    gate.release.set()
    assert engine.wait_loaded(timeout=30)
    assert engine.query(TOTAL).rows == truth


def test_a_vanished_staged_file_drops_the_table_with_a_reason(make_engine, big, monkeypatch):
    gate = Gate(monkeypatch, hold_after=1)
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    for name in stage_files(engine):
        (engine._stage / name).unlink()
    gate.release.set()
    assert engine.wait_loaded(timeout=30)
    assert engine.tables() == [] and catalog(engine) == ([], [])
    with pytest.raises(UnknownTableError, match="could not be stored .*load the file again"):
        engine.describe("big")
    engine.load(str(big), "big")                     # loading again works
    assert engine.wait_loaded(timeout=30) and engine.query(TOTAL).rows == expected(big)


def test_a_file_gone_before_reopen_is_reported_not_listed(make_engine, big, monkeypatch, tmp_path):
    db = tmp_path / "s" / "analysis.duckdb"
    gate = Gate(monkeypatch)
    engine = make_engine(background(), db=db)
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    close_while_held(engine, gate)
    for name in os.listdir(staging.stage_dir_for(db)):
        os.unlink(staging.stage_dir_for(db) / name)
    reopened = make_engine(background(), db=db)
    assert reopened.tables() == [] and catalog(reopened) == ([], [])
    with pytest.raises(UnknownTableError, match="still being stored when the session closed"):
        reopened.preview("big")


def test_a_file_changed_in_place_is_read_again(make_engine, big, monkeypatch):
    gate = Gate(monkeypatch, hold_after=2)
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    replacement = write_csv(big.with_name("new.csv"), ROWS // 2, offset=1000)
    with open(big, "r+b") as fh:                      # same inode: the link sees the new bytes
        fh.truncate(0)
        fh.write(replacement.read_bytes())
    gate.release.set()
    assert engine.wait_loaded(timeout=30)
    assert engine.query(TOTAL).rows == expected(replacement)


def test_types_that_change_late_in_the_file_are_widened(make_engine, workdir):
    lines = ["id,code"] + [f"{i},{i}" for i in range(30_000)] + ["30000,A17"]
    (workdir / "late.csv").write_text("\n".join(lines) + "\n")
    engine = make_engine(background())
    engine.load("late.csv", "late")
    assert engine.wait_loaded(timeout=60)
    info = engine.describe("late")
    assert info.rows == 30_001 and dict(info.columns)["code"] == "VARCHAR"
    assert engine.query("SELECT code FROM late WHERE id = 30000").rows == [("A17",)]


@pytest.mark.parametrize("dates, late, fmt", [
    (lambda i: f"2020-01-{1 + i % 28:02d}", "2020-02-03 12:34:56", None),
    (lambda i: f"{1 + i % 12}/{1 + i % 28}/2021", "12/31/2021", "%m/%d/%Y"),
], ids=["iso", "us"])
def test_dates_read_from_the_file_as_a_foreground_load_reads_them(make_engine, workdir, dates, late, fmt):
    """ISO dates go through DuckDB's own ISO reader, as in a file loaded before ``load`` returns
    (a late value with a time of day is read as its date in both); other formats keep theirs."""
    lines = ["id,d"] + [f"{i},{dates(i)}" for i in range(30_000)] + [f"30000,{late}"]
    (workdir / "dates.csv").write_text("\n".join(lines) + "\n")
    staged = make_engine(background())
    staged.load("dates.csv", "dates")
    assert staged.loading() == ["dates"]
    select = staged._jobs["dates"].select
    assert "'d': 'DATE'" in select and ("dateformat" not in select if fmt is None else f"dateformat = '{fmt}'" in select)
    query = "SELECT id, d FROM dates WHERE id IN (0, 29999, 30000) ORDER BY id"
    from_file = staged.query(query).rows
    foreground = make_engine(background(), memory=True)   # no staging directory: stored at once
    foreground.load("dates.csv", "dates")
    assert foreground.loading() == []
    assert from_file == foreground.query(query).rows
    assert [type(row[1]) for row in from_file] == [datetime.date] * 3
    assert staged.wait_loaded(timeout=60) and staged.query(query).rows == from_file


def test_cancel_before_load_returns_keeps_the_old_table(make_engine, big, workdir):
    engine = make_engine(background())
    (workdir / "old.csv").write_text("x\n1\n")
    engine.load("old.csv", "big")
    assert engine.wait_loaded(timeout=30)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LoadError, match="load cancelled"):
        engine.load(str(big), "big", cancel=cancel)
    assert engine.query("SELECT * FROM big").rows == [(1,)]
    assert stage_files(engine) == [] and engine.loading() == []


def test_reloading_or_resetting_stops_the_store(make_engine, big, workdir, monkeypatch):
    gate = Gate(monkeypatch, hold_after=1)
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    small = write_csv(workdir / "small.csv", 100)
    gate.release.set()
    engine.load(str(small), "big")                       # same name: the first store stops
    assert engine.wait_loaded(timeout=30)
    assert engine.query(TOTAL).rows == expected(small)
    assert catalog(engine) == (["big"], []) and stage_files(engine) == []
    gate2 = Gate(monkeypatch, hold_after=1)
    engine.load(str(big), "other")
    assert gate2.reached.wait(10)
    gate2.release.set()
    assert sorted(engine.drop_all()) == ["big", "other"]
    assert engine.tables() == [] and engine.loading() == []
    assert catalog(engine) == ([], []) and stage_files(engine) == []


def test_a_failed_reload_keeps_the_table_and_its_store(make_engine, big, workdir, monkeypatch):
    gate = Gate(monkeypatch, hold_after=1)
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert gate.reached.wait(10)
    good = "\n".join(f'{{"a": {i}}}' for i in range(50_000))
    (workdir / "bad.jsonl").write_text(good + '\n{"a": 1,,, nope\n')   # fails after it started
    resumed = []
    resume = engine._resume_job
    monkeypatch.setattr(engine, "_resume_job", lambda job: (resumed.append(job.name), resume(job)))
    gate.release.set()
    with pytest.raises(LoadError, match="cannot load bad.jsonl as JSONL"):
        engine.load("bad.jsonl", "big")
    assert resumed == ["big"]
    assert engine.wait_loaded(timeout=30) and engine.loading() == []
    assert engine.query(TOTAL).rows == expected(big) and catalog(engine) == (["big"], [])


def test_parquet_rows_are_exact_at_once(make_engine, workdir):
    pq.write_table(pa.table({"n": list(range(5000)), "s": [f"v{i}" for i in range(5000)]}), workdir / "p.parquet")
    engine = make_engine(background())
    info = engine.load("p.parquet", "p")
    assert (info.rows, info.rows_exact) == (5000, True)
    assert engine.wait_loaded(timeout=30)
    assert engine.query("SELECT sum(n), count(DISTINCT s) FROM p").rows == [(12_497_500, 5000)]


def test_tsv_and_awkward_headers_are_quoted(make_engine, workdir):
    header = "a'b\tc\"d\te'); DROP TABLE x; --"
    (workdir / "t.tsv").write_text(header + "\n" + "\n".join(f"{i}\tv{i}\t{i % 3}" for i in range(500)) + "\n")
    engine = make_engine(background())
    info = engine.load("t.tsv", "t")
    assert [c for c, _ in info.columns] == ["a'b", 'c"d', "e'); DROP TABLE x; --"]
    assert engine.query('SELECT sum("a\'b") FROM t').rows == [(124_750,)]
    assert engine.wait_loaded(timeout=30)
    assert engine.query('SELECT count(DISTINCT "e\'); DROP TABLE x; --") FROM t').rows == [(3,)]


def test_the_sealed_connection_reads_only_the_staging_directory(make_engine, big, workdir):
    engine = make_engine(background())
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        engine._conn.execute(f"SELECT * FROM read_csv('{big}')")
    with pytest.raises(duckdb.Error, match="locked"):
        engine._conn.execute("SET allowed_directories = ['/']")
    secret = workdir / "secret.csv"
    secret.write_text("token\nhunter2\n")
    (engine._stage / "link.csv").symlink_to(secret)          # DuckDB resolves links: refused
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        engine._conn.execute(f"SELECT * FROM read_csv('{engine._stage / 'link.csv'}')")
    engine.load(str(big), "big")
    with pytest.raises(SQLRejectedError):
        engine.query(f"SELECT * FROM read_csv('{engine._stage}/*.csv')")


def test_a_forged_load_record_cannot_point_at_another_file(make_engine, workdir, tmp_path):
    secret = workdir / "secret.csv"
    secret.write_text("token\nhunter2\n")
    db = tmp_path / "foreign" / "analysis.duckdb"
    db.parent.mkdir()
    con = duckdb.connect(str(db))
    con.execute(f"CREATE TABLE {staging.LOADS_TABLE} (name VARCHAR, token VARCHAR, kind VARCHAR, size BIGINT, "
                "mtime_ns BIGINT, estimated_rows BIGINT, rows_exact BOOLEAN, full_sample BOOLEAN, stored BOOLEAN, "
                "description VARCHAR)")
    con.execute(f"INSERT INTO {staging.LOADS_TABLE} VALUES ('leak', '../../notebooks/secret', 'csv', 0, 0, 1, "
                "true, false, false, ''), ('leak2', ?, 'csv', 0, 0, 1, true, false, false, '')", ["a" * 32])
    con.execute(f"CREATE VIEW leak AS SELECT * FROM read_csv('{secret}')")
    con.execute(f"CREATE VIEW leak2 AS SELECT * FROM read_csv('{secret}')")
    con.close()
    engine = make_engine(background(), db=db)
    assert engine.tables() == [] and engine.loading() == []
    assert catalog(engine) == ([], ["leak", "leak2"])     # the file's own views: never listed …
    with pytest.raises(UnknownTableError):
        engine.preview("leak")
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        engine._conn.execute("SELECT * FROM leak2")         # … and they cannot read the file


def test_a_record_table_of_another_shape_is_ignored(make_engine, tmp_path):
    db = tmp_path / "foreign" / "analysis.duckdb"
    db.parent.mkdir()
    con = duckdb.connect(str(db))
    con.execute(f"CREATE TABLE {staging.LOADS_TABLE} (name VARCHAR)")
    con.execute(f"INSERT INTO {staging.LOADS_TABLE} VALUES ('x')")
    con.execute("CREATE TABLE kept AS SELECT 1 AS one")
    con.close()
    engine = make_engine(background(), db=db)
    assert [t.name for t in engine.tables()] == ["kept"] and catalog(engine) == (["kept"], [])


def test_the_row_estimate_of_a_text_file(tmp_path):
    path = write_csv(tmp_path / "e.csv", 200_000)
    estimate = staging.estimate_rows(path, path.stat().st_size, sample_bytes=64 * 1024)
    assert abs(estimate - 200_000) < 200_000 * 0.05
    tiny = tmp_path / "t.csv"
    tiny.write_text("a\n1\n2")
    assert staging.estimate_rows(tiny, tiny.stat().st_size) == 2


def test_a_store_of_several_row_groups_keeps_every_row(make_engine, workdir):
    """Checked by content, not count(*): in DuckDB 2.0.0 rows appended in the same transaction
    as a zero-row CREATE TABLE … AS are counted but not scanned."""
    engine = make_engine(background())
    path = write_csv(workdir / "big.csv", 300_000)
    engine.load(str(path), "big")
    assert engine.wait_loaded(timeout=60)
    assert engine.query("SELECT sum(id) FROM big").rows == [(sum(range(300_000)),)]


def test_row_count_and_windows_wait_for_the_store(make_engine, big):
    engine = make_engine(background())
    engine.load(str(big), "big")
    assert engine.row_count("big") == ROWS and engine.loading() == []
    assert engine.rows_window("big", 10, 2).rows[0][0] == 10


def test_load_data_says_the_table_is_ready_and_still_being_stored(tools, store, session_id, make_engine, big):
    from shell_agent_lab.tools.registry import ToolContext

    engine = make_engine(background())
    ctx = ToolContext(session_id=session_id, store=store, engine=engine,
                      publish=lambda *a: None, tool_call_id="c", turn_id="t")
    result = tools["load_data"].handler(ctx, {"file_path": str(big), "table_name": "big"})
    text = getattr(result, "content", result)
    assert text.startswith("Table big is ready to query: about ") and "estimated" in text
    listing = tools["list_tables"].handler(ctx, {})
    assert "being stored in the session database in the background" in getattr(listing, "content", listing)


def test_a_second_engine_on_the_same_file_leaves_pending_stores_alone(make_engine, big, monkeypatch, tmp_path):
    gate = Gate(monkeypatch, hold_after=1)
    db = tmp_path / "s" / "analysis.duckdb"
    first = make_engine(background(), db=db)
    first.load(str(big), "big")
    assert gate.reached.wait(10)
    second = make_engine(background(), db=db)          # shares the database instance
    assert second.loading() == [] and len(stage_files(first)) == 1
    gate.release.set()
    assert first.wait_loaded(timeout=30)
    assert second.query(TOTAL).rows == expected(big)   # stored: visible to both
