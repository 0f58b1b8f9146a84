"""Fault 2: a kernel SIGKILLed during the background store of a large CSV, and again between
the store and the swap. The next process that opens the session database finishes or restarts
the store; the table is the old one or the new one, never a part of either; once it completes
no staging file or half-built table is left."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings
from shell_agent_lab.analysis import staging

pytestmark = [pytest.mark.chaos, pytest.mark.slow, pytest.mark.timeout(180)]

CHILD = Path(__file__).with_name("_table_store.py")
OLD_ROWS, NEW_ROWS = 1_000, 120_000


def _csv(path: Path, rows: int, offset: int) -> Path:
    con = duckdb.connect()
    con.execute(f"COPY (SELECT range + {offset} AS id, range % 7 AS g, 'name_' || range AS s "
                f"FROM range({rows})) TO '{path}' (HEADER)")
    con.close()
    return path


def _sum(rows: int, offset: int) -> int:
    return sum(range(offset, offset + rows))


@pytest.mark.parametrize("where, line", [("mid", "MID"), ("swap", "STORED")])
def test_a_kill_during_a_table_store_leaves_old_or_new_never_partial(tmp_path, where, line):
    files = tmp_path / "files"
    files.mkdir()
    old, new = _csv(files / "old.csv", OLD_ROWS, 0), _csv(files / "new.csv", NEW_ROWS, 10_000_000)
    db = tmp_path / "session" / "analysis.duckdb"
    db.parent.mkdir()
    child = subprocess.Popen([sys.executable, str(CHILD), str(db), str(old), str(new), where],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for out in child.stdout:
            seen.append(out.split()[0])
            if seen[-1] == line:
                break
        assert seen == ["OLD", line], child.stderr.read() if child.poll() is not None else seen
    finally:
        child.kill()
        child.wait(30)
    new.unlink()                 # the original may go: the staged hard link keeps the data
    engine = AnalysisEngine(db, settings=AnalysisSettings(threads=2, background_load_bytes=1))
    try:
        # killed mid-store: the store starts again; killed after it: swapped in at open
        assert engine.loading() == (["sales"] if where == "mid" else [])
        count, total = engine.query("SELECT count(*), sum(id) FROM sales").rows[0]
        assert (count, total) in {(OLD_ROWS, _sum(OLD_ROWS, 0)), (NEW_ROWS, _sum(NEW_ROWS, 10_000_000))}
        assert engine.wait_loaded(timeout=120)
        assert engine.query("SELECT count(*), sum(id) FROM sales").rows[0] == (NEW_ROWS, _sum(NEW_ROWS, 10_000_000))
        tables = [r[0] for r in engine._conn.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        assert tables == ["sales"] or sorted(tables) == sorted(["sales", staging.LOADS_TABLE]), tables
        assert not any(t.startswith(staging.BUILD_PREFIX) for t in tables)
    finally:
        engine.close()
    stage = staging.stage_dir_for(db)
    assert not stage.exists() or list(stage.iterdir()) == []
