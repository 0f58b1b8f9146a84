"""Fault 3: the disk fills up. In a child process a memory add, a Finding, a record append and a
table load each fail with one line naming the data directory; everything acknowledged before
is still there; once there is room again the next write of each kind works.

Two ways to run out of room: ``RLIMIT_FSIZE`` (any machine), and a small tmpfs data directory
filled with a ballast file (a real ENOSPC; needs root to mount, skipped otherwise)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chaoshelpers import integrity

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.store import Store

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(180)]

CHILD = Path(__file__).with_name("_disk_full.py")


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "files" / "sales.csv"
    path.parent.mkdir()
    path.write_text("region,amount\n" + "".join(f"r{i % 7},{i}\n" for i in range(20_000)))
    return path


@pytest.fixture
def tmpfs_dir(tmp_path):
    target = tmp_path / "small"
    target.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(target)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield target
    subprocess.run(["umount", "-l", str(target)], check=False)


def _run(data_dir: Path, csv: Path, mode: str) -> dict:
    done = subprocess.run([sys.executable, str(CHILD), str(data_dir), str(csv), mode],
                          capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _check(result: dict, data_dir: Path) -> None:
    for kind, failure in result["full"].items():
        assert failure is not None, f"{kind} was acknowledged with no room to write it"
        name, message = failure
        assert name in ("StoreError", "LoadError"), failure
        assert str(data_dir) in message and "\n" not in message, failure
        assert "free some space" in message, failure
    assert result["again"] == {"memory": None, "finding": None, "record": None, "table": None}
    acked, sid = result["acked"], result["session"]
    with Store.open(data_dir) as store:
        facts = [e.fact for e in store.global_memory.list()]
        assert "User prefers plotly for charts" in facts and len(facts) == 2
        findings = [f.id for f in store.findings.list(sid)]
        assert acked["finding"] in findings and len(findings) == 2
        records = store.list_records(sid)
        assert [r.content[:14] for r in records] == ["first question", "question 2 — d"]
    engine = AnalysisEngine(data_dir / "sessions" / sid / "analysis.duckdb")
    try:
        assert {t.name: t.rows for t in engine.tables()} == {"first": acked["table"], "second_2": acked["table"]}
    finally:
        engine.close()
    assert integrity(data_dir) == "ok"


def test_a_file_size_limit_fails_each_write_clearly_and_loses_nothing(_isolated_data_dir, csv_file):
    _check(_run(_isolated_data_dir, csv_file, "fsize"), _isolated_data_dir)


@pytest.mark.slow
def test_a_full_tmpfs_fails_each_write_clearly_and_loses_nothing(tmpfs_dir, csv_file):
    _check(_run(tmpfs_dir, csv_file, "tmpfs"), tmpfs_dir)
