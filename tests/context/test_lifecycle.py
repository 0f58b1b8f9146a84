"""Memory ageing per user turn: decay both stores, touch what the message mentions, persist."""
from __future__ import annotations

from shell_agent_lab.context import run_lifecycle
from shell_agent_lab.store import Store


def test_entries_decay_one_step_and_the_mentioned_one_is_touched(session, tmp_path, clock):
    store = session.store
    mentioned = store.global_memory.add("User prefers Go programming language", "preference",
                                        source="user_turn").entry
    other = store.session_memory.add(session.id, "The orders table has 12 regions", "fact",
                                     source="user_turn").entry
    for _ in range(5):
        session.add("user", "filler turn")
    store.global_memory.decay_all(5)
    store.session_memory.decay_all(session.id, 5)
    before = {e.id: e.relevance for e in store.global_memory.list() + store.session_memory.list(session.id)}
    session.add("user", "user prefers go")
    run_lifecycle(store, session.id, "user prefers go")

    # persisted: read back through a second connection to the same database
    with Store.open(store.data_dir) as again:
        g = {e.id: e for e in again.global_memory.list()}
        s = {e.id: e for e in again.session_memory.list(session.id)}
    assert g[mentioned.id].relevance == 1.0
    assert g[mentioned.id].touch_count == mentioned.touch_count + 1
    assert g[mentioned.id].last_touched_turn == 6
    assert s[other.id].relevance < before[other.id]


def test_an_empty_message_only_decays(session):
    store = session.store
    entry = store.global_memory.add("User prefers Go", "preference", source="user_turn").entry
    for _ in range(4):
        session.add("user", "x")
    run_lifecycle(store, session.id, "   ")
    [after] = store.global_memory.list()
    assert after.touch_count == entry.touch_count and after.relevance < 1.0
