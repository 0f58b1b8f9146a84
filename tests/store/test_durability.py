"""On-disk guarantees: WAL, permissions, migrations, corrupt files, concurrent and killed writers."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from shell_agent_lab.store import Caps, Store, StoreCorruptError, StoreError
from tests.support.file_permissions import run_honouring_permissions

WRITER = Path(__file__).with_name("_writer.py")


def test_database_is_wal_versioned_and_private(store, session):
    store.global_memory.add("User prefers Go", "preference", source="user_turn")
    path = store.db_path
    assert path == store.data_dir / "shell_agent_lab.sqlite3"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        version = db.execute("PRAGMA user_version").fetchone()[0]
        names = [r[0] for r in db.execute("SELECT name FROM schema_version ORDER BY version")]
    assert version == len(names) and names[:2] == ["m001_initial", "m002_memory_suggestions"]
    assert (store.data_dir.stat().st_mode & 0o777) == 0o700
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        assert p.exists(), p
        assert (p.stat().st_mode & 0o777) == 0o600, p


def test_reopening_keeps_data_and_does_not_remigrate(open_store):
    store = open_store()
    sid = store.create_session(title="persisted").id
    store.close()
    again = open_store()
    assert again.get_session(sid).title == "persisted"


def test_garbage_file_is_reported_and_left_untouched(_isolated_data_dir):
    _isolated_data_dir.mkdir(parents=True)
    path = _isolated_data_dir / "shell_agent_lab.sqlite3"
    garbage = b"this is not sqlite at all\x00\x01" * 200
    path.write_bytes(garbage)
    with pytest.raises(StoreCorruptError) as info:
        Store.open(_isolated_data_dir)
    message = str(info.value)
    assert str(path) in message and "move it aside" in message and "\n" not in message
    assert path.read_bytes() == garbage


def test_damaged_pages_are_reported_and_left_untouched(open_store, _isolated_data_dir):
    store = open_store(Caps(global_memory=None))
    for i in range(300):
        store.global_memory.add(f"fact {i} about subject_{i} " + "padding " * 20, "decision", source="user_turn")
    store.close()
    path = _isolated_data_dir / "shell_agent_lab.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(2 * page, len(data), 3 * page):  # scribble over many b-tree pages
        data[offset : offset + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    damaged = path.read_bytes()
    with pytest.raises(StoreCorruptError, match="cannot be read as a shell-agent-lab database"):
        reopened = Store.open(_isolated_data_dir, caps=Caps(global_memory=None))
        try:
            reopened.global_memory.list()
            reopened.global_memory.render()
        finally:
            reopened.close()
    assert path.read_bytes() == damaged


def test_newer_schema_is_refused(open_store, _isolated_data_dir):
    open_store().close()
    with sqlite3.connect(_isolated_data_dir / "shell_agent_lab.sqlite3") as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer than this shell-agent-lab"):
        Store.open(_isolated_data_dir)


def test_unreadable_file_gives_a_clear_error(_isolated_data_dir):
    _isolated_data_dir.mkdir(parents=True)
    path = _isolated_data_dir / "shell_agent_lab.sqlite3"
    path.write_bytes(b"")
    path.chmod(0)
    # in a child that file permissions apply to (as root too: it drops the bypass capabilities)
    result = run_honouring_permissions(
        "import sys\n"
        "from shell_agent_lab.store import Store, StoreError\n"
        "try:\n"
        f"    Store.open({str(_isolated_data_dir)!r})\n"
        "except StoreError as exc:\n"
        "    print(exc)\n"
        "    sys.exit(3)\n")
    assert result.returncode == 3, result.stderr
    assert "permissions" in result.stdout
    assert path.stat().st_size == 0          # nothing was written


def _spawn(data_dir: Path, tag: str, count: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(data_dir), tag, str(count)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.slow
def test_eight_processes_writing_at_once_lose_nothing(_isolated_data_dir):
    Store.open(_isolated_data_dir).close()  # create the schema once
    procs = [_spawn(_isolated_data_dir, f"p{n}", 100) for n in range(8)]
    outputs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    store = Store.open(_isolated_data_dir, caps=Caps(global_memory=None))
    try:
        entries = store.global_memory.list()
    finally:
        store.close()
    facts = [e.fact for e in entries]
    assert len(facts) == 800 and len(set(facts)) == 800
    ids = [int(line) for out, _ in outputs for line in out.split()]
    assert sorted(ids) == sorted(e.id for e in entries)
    with sqlite3.connect(_isolated_data_dir / "shell_agent_lab.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow
def test_processes_racing_to_create_a_fresh_store(_isolated_data_dir):
    procs = [_spawn(_isolated_data_dir, f"r{n}", 5) for n in range(6)]
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    with sqlite3.connect(_isolated_data_dir / "shell_agent_lab.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM memory").fetchone()[0] == 30
        versions = [r[0] for r in db.execute("SELECT version FROM schema_version")]
    assert versions == sorted(set(versions))  # each migration applied exactly once


def test_opening_a_fresh_file_waits_while_another_process_writes_it(_isolated_data_dir):
    """Switching a fresh file to WAL needs it to itself, and SQLite refuses at once (no busy wait)
    while another process writes it: the store waits for the write to end instead of failing."""
    import threading
    _isolated_data_dir.mkdir(parents=True, exist_ok=True)
    path = _isolated_data_dir / "shell_agent_lab.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE scratch (a)")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO scratch VALUES (1)")
    with pytest.raises(sqlite3.OperationalError, match="locked"):   # what SQLite alone does
        sqlite3.connect(path, timeout=30, isolation_level=None).execute("PRAGMA journal_mode = WAL")
    done = threading.Timer(0.5, lambda: (other.execute("COMMIT"), other.close()))
    done.start()
    try:
        store = Store.open(_isolated_data_dir, caps=Caps(global_memory=None))
    finally:
        done.join()
    try:
        assert store.global_memory.add("Fresh files wait for the writer", "decision", source="user_turn").entry.id
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.slow
def test_writer_killed_mid_loop_keeps_every_returned_add(_isolated_data_dir):
    Store.open(_isolated_data_dir).close()
    proc = _spawn(_isolated_data_dir, "crash", 100000)
    confirmed: list[int] = []
    for line in proc.stdout:
        confirmed.append(int(line))
        if len(confirmed) >= 150:
            break
    os.kill(proc.pid, signal.SIGKILL)
    rest, _ = proc.communicate(timeout=30)
    confirmed += [int(x) for x in rest.split()]
    assert proc.returncode == -signal.SIGKILL
    with sqlite3.connect(_isolated_data_dir / "shell_agent_lab.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store = Store.open(_isolated_data_dir, caps=Caps(global_memory=None))
    try:
        stored = {e.id for e in store.global_memory.list()}
        store.global_memory.add("User prefers Go", "preference", source="user_turn")  # still writable
    finally:
        store.close()
    assert set(confirmed) <= stored


def test_database_path_that_cannot_be_opened_is_a_clear_error(_isolated_data_dir):
    (_isolated_data_dir / "shell_agent_lab.sqlite3").mkdir(parents=True)  # a directory, not a file
    with pytest.raises(StoreError) as info:
        Store.open(_isolated_data_dir)
    assert "shell_agent_lab.sqlite3" in str(info.value) and "\n" not in str(info.value)
    assert (_isolated_data_dir / "shell_agent_lab.sqlite3").is_dir()
