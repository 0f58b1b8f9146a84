"""Closing the store while other threads are mid-transaction never crashes them."""
from __future__ import annotations

import threading

import pytest

from shell_agent_lab.store import Store
from shell_agent_lab.store.errors import StoreError


def test_close_waits_for_transactions_on_other_threads(tmp_path):
    store = Store.open(tmp_path / "d")
    session = store.create_session(title="t")
    started, release = threading.Event(), threading.Event()
    outcome: list[object] = []

    def writer():
        with store._db.write() as conn:
            started.set()
            release.wait(5)
            conn.execute("SELECT count(*) FROM records").fetchone()
        outcome.append("committed")

    t = threading.Thread(target=writer)
    t.start()
    assert started.wait(5)
    closer = threading.Thread(target=store.close)
    closer.start()
    closer.join(0.3)
    assert closer.is_alive(), "close() must wait for the running transaction"
    release.set()
    t.join(5)
    closer.join(5)
    assert outcome == ["committed"] and not closer.is_alive()
    with pytest.raises(StoreError, match="closed"):
        store.list_records(session.id)


def test_many_threads_racing_close_do_not_crash(tmp_path):
    for round_ in range(5):
        store = Store.open(tmp_path / f"d{round_}")
        sid = store.create_session(title="t").id
        stop = threading.Event()
        errors: list[BaseException] = []

        def hammer():
            while not stop.is_set():
                try:
                    store.append_record(sid, "user", "hello")
                    store.list_records(sid)
                except StoreError:
                    return
                except BaseException as exc:  # noqa: BLE001
                    errors.append(exc)
                    return

        threads = [threading.Thread(target=hammer) for _ in range(4)]
        for t in threads:
            t.start()
        store.close()
        stop.set()
        for t in threads:
            t.join(5)
        assert not errors
