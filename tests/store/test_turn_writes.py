"""The store's writes on a turn's path: memory ageing and a Finding add decide in a read what
they will change, take the write lock only when something changes, and re-check inside it what
another process changed meanwhile (real stores on one file, real child processes)."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from shell_agent_lab.store import Caps, Store, _db

FINDING_WRITER = Path(__file__).with_name("_finding_writer.py")


@contextmanager
def write_lock_held_elsewhere(store: Store, monkeypatch):
    """Another connection holds the file's write lock; a write here gives up after 0.5 s."""
    monkeypatch.setattr(_db, "BUSY_TIMEOUT_S", 0.5)
    other = sqlite3.connect(store.db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def _counting_writes(store: Store) -> list[int]:
    """Counts the outermost write transactions ``store`` opens from here on."""
    count = [0]
    write = store._db.write

    @contextmanager
    def counted():
        count[0] += 1
        with write() as conn:
            yield conn
    store._db.write = counted
    return count


def _age(store: Store, sid: str, text: str, turn: int) -> None:
    store.age_memory(sid, text, turn, 0.3)


def test_ageing_that_changes_nothing_takes_no_write_lock(store, session, monkeypatch):
    store.global_memory.add("User prefers Go programming language", "preference", source="user_turn", turn=5)
    store.session_memory.add(session.id, "The orders table has 12 regions", "fact", source="user_turn", turn=5)
    with write_lock_held_elsewhere(store, monkeypatch):
        # both entries are in their fresh window and the message mentions neither
        _age(store, session.id, "weather in Lisbon", 6)
        assert store.global_memory.decay_all(6) == 0
        assert store.global_memory.touch_matching("weather in Lisbon", 6) == 0
        # something to change: the write waits for the lock and gives up
        with pytest.raises(Exception, match="locked"):
            _age(store, session.id, "user prefers go", 6)
    [entry] = store.global_memory.list()
    assert entry.touch_count == 0


def test_a_duplicate_finding_is_refused_without_the_write_lock(store, session, monkeypatch):
    store.findings.add(session.id, "Revenue grew 12% in Q3")
    with write_lock_held_elsewhere(store, monkeypatch):
        assert store.findings.add(session.id, "Revenue grew 12% in Q3") is None
        assert store.findings.add(session.id, "revenue grew 12 % in Q3.") is None
        with pytest.raises(Exception, match="locked"):
            store.findings.add(session.id, "Revenue fell 3% in Q4")
    assert [f.content for f in store.findings.list(session.id)] == ["Revenue grew 12% in Q3"]


def _memory_state(store: Store, sid: str) -> list[tuple]:
    return [(e.fact, e.relevance, e.state, e.touch_count, e.last_touched_turn)
            for e in store.global_memory.list() + store.session_memory.list(sid)]


def test_one_ageing_transaction_does_what_decay_then_touch_did(tmp_path, clock):
    stores = [Store.open(tmp_path / name, clock=clock) for name in ("steps", "one")]
    try:
        sids = []
        for s in stores:
            sid = s.create_session().id
            sids.append(sid)
            s.global_memory.add("User prefers Go programming language", "preference", source="user_turn")
            s.global_memory.add("Reports use ISO dates", "preference", source="user_turn", turn=2)
            s.session_memory.add(sid, "The orders table has 12 regions", "fact", source="user_turn", turn=1)
            s.session_memory.add(sid, "Churn is measured monthly", "fact", source="user_turn", turn=9)
        steps, one = stores
        writes = _counting_writes(one)
        turns = [(4, "orders table regions"), (5, "")] + [(t, "") for t in range(6, 22)] + [
            (22, "user prefers go"), (23, "weather in Lisbon")]
        for turn, text in turns:
            steps.global_memory.decay_all(turn)
            steps.session_memory.decay_all(sids[0], turn)
            if text:
                steps.global_memory.touch_matching(text, turn, threshold=0.3)
                steps.session_memory.touch_matching(sids[0], text, turn, threshold=0.3)
            before = writes[0]
            _age(one, sids[1], text, turn)
            assert writes[0] == before + 1
            assert _memory_state(one, sids[1]) == _memory_state(steps, sids[0])
        assert {e.state for e in one.global_memory.list()} == {"active", "dormant"}
    finally:
        for s in stores:
            s.close()


def test_ageing_rechecks_what_changed_between_its_read_and_its_write(open_store, monkeypatch):
    store, other = open_store(), open_store()
    sid = store.create_session().id
    old = store.global_memory.add("Lisbon sales peak in summer", "preference", source="user_turn", turn=4).entry
    write = store._db.write
    added: list = []

    @contextmanager
    def after_another_process():
        # between the read and the write another process adds an entry the message mentions
        # and one old enough to decay (the read saw only a fresh entry to touch)
        added.append(other.global_memory.add("Porto and Lisbon sales rose", "decision",
                                             source="user_turn", turn=4).entry)
        added.append(other.global_memory.add("Reports use ISO dates", "decision", source="user_turn").entry)
        with write() as conn:
            yield conn
    monkeypatch.setattr(store._db, "write", after_another_process)
    _age(store, sid, "Lisbon sales", 5)
    after = {e.fact: (e.touch_count, e.relevance) for e in store.global_memory.list()}
    assert after == {old.fact: (1, 1.0), added[0].fact: (1, 1.0), added[1].fact: (0, pytest.approx(0.93))}


@pytest.mark.parametrize("meanwhile", ["Revenue grew 12% in Q3", "revenue grew 12 % in Q3."])
def test_a_finding_recorded_meanwhile_by_another_process_is_not_doubled(open_store, monkeypatch, meanwhile):
    store, other = open_store(), open_store()
    sid = store.create_session().id
    store.findings.add(sid, "Churn is flat")
    seen = store.findings._seen

    def read_then_another_process_adds(session_id):
        snapshot = seen(session_id)
        assert other.findings.add(session_id, meanwhile) is not None
        return snapshot
    monkeypatch.setattr(store.findings, "_seen", read_then_another_process_adds)
    assert store.findings.add(sid, "Revenue grew 12% in Q3") is None
    assert [f.content for f in store.findings.list(sid)] == ["Churn is flat", meanwhile]


def test_a_different_finding_recorded_meanwhile_does_not_block_this_one(open_store, monkeypatch):
    store, other = open_store(), open_store()
    sid = store.create_session().id
    seen = store.findings._seen

    def read_then_another_process_adds(session_id):
        snapshot = seen(session_id)
        other.findings.add(session_id, "Churn is flat")
        return snapshot
    monkeypatch.setattr(store.findings, "_seen", read_then_another_process_adds)
    assert store.findings.add(sid, "Revenue grew 12% in Q3") is not None
    assert sorted(f.content for f in store.findings.list(sid)) == ["Churn is flat", "Revenue grew 12% in Q3"]


@pytest.mark.slow
def test_processes_adding_the_same_findings_at_once_store_each_once(_isolated_data_dir):
    with Store.open(_isolated_data_dir, caps=Caps(findings=None)) as store:
        sid = store.create_session().id
    procs = [subprocess.Popen([sys.executable, str(FINDING_WRITER), str(_isolated_data_dir), sid, str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(4)]
    outputs = [p.communicate(timeout=240) for p in procs]
    for p, (_out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    added = [line for out, _ in outputs for line in out.split()]
    with Store.open(_isolated_data_dir, caps=Caps(findings=None)) as store:
        contents = [f.content for f in store.findings.list(sid)]
    assert sorted(contents) == sorted(f"Region r{i} leads sales in week {i}" for i in range(25))
    assert len(added) == 25          # each one acknowledged by exactly one process
