"""Who has a session open, and turns cut off by a killed process, across real processes."""
from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from shell_agent_lab.store import SessionInUseError, Store

HOLDER = r"""
import sys, time
from shell_agent_lab.store import Store
store = Store.open(sys.argv[1])
store.hold_session(sys.argv[2])
if sys.argv[3] == "turn":
    store.begin_turn(sys.argv[2], int(sys.argv[4]))
print("ready", flush=True)
time.sleep(600)
"""


def _holder(data_dir, sid, *args: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(data_dir), sid, *args],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _end(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait(30)


def test_a_session_held_by_another_process_is_not_deleted_until_it_ends(store, _isolated_data_dir):
    sid = store.create_session(title="held").id
    mine = store.hold_session(sid)          # this process's own hold does not block it
    proc = _holder(_isolated_data_dir, sid, "open")
    try:
        with pytest.raises(SessionInUseError, match="open in another kernel"):
            store.delete_session(sid)
    finally:
        _end(proc)
    mine.release()
    store.delete_session(sid)
    assert store.get_session(sid) is None


def test_a_killed_turn_is_recorded_once_even_when_two_processes_look_at_once(store, _isolated_data_dir):
    sid = store.create_session(title="cut").id
    seq = store.append_record(sid, "user", "a question").seq
    proc = _holder(_isolated_data_dir, sid, "turn", str(seq))
    assert store.record_interrupted_turns(sid) == []        # its turn still runs
    _end(proc)
    others = [Store.open(_isolated_data_dir) for _ in range(3)]
    found: list = []
    threads = [threading.Thread(target=lambda s=s: found.extend(s.record_interrupted_turns(sid)))
               for s in [store, *others]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for s in others:
        s.close()
    records = store.list_records(sid)
    assert [(r.role, r.status) for r in records] == [("user", None), ("system", "interrupted")]
    assert len(found) == 1 and records[-1].meta == {"user_seq": seq}
    assert store.record_interrupted_turns(sid) == []
    assert not list((_isolated_data_dir / "sessions" / sid / "turns").iterdir())


def test_a_turn_that_ended_leaves_nothing_to_record(store):
    sid = store.create_session(title="done").id
    seq = store.append_record(sid, "user", "a question").seq
    store.begin_turn(sid, seq).end()
    assert store.record_interrupted_turns(sid) == []
