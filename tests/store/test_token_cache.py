"""The in-process token cache stays in step with the database: other writers, deletes,
edits, supersession and rolled-back transactions."""
from __future__ import annotations

import sqlite3

import pytest

from shell_agent_lab.store import Caps


@pytest.fixture
def two(open_store):
    return open_store(Caps(global_memory=None)), open_store(Caps(global_memory=None))


def test_another_writer_entries_are_seen(two):
    a, b = two
    b.global_memory.add("warm the cache with something unrelated", "decision", source="user_turn")
    a.global_memory.add("User is analyzing Q1 sales data", "decision", source="user_turn")
    result = b.global_memory.add("User is analyzing Q1 sales numbers", "decision", source="user_turn")
    assert result.touched and len(b.global_memory.list()) == 2


def test_deleted_and_edited_entries_stop_matching(two):
    a, b = two
    entry = a.global_memory.add("User is analyzing Q1 sales data", "decision", source="user_turn").entry
    b.global_memory.add("unrelated warm-up fact", "decision", source="user_turn")
    a.global_memory.delete(entry.id)
    assert b.global_memory.add("User is analyzing Q1 sales numbers", "decision", source="user_turn").added
    other = a.global_memory.add("Team tracks weekly churn cohorts", "decision", source="user_turn").entry
    b.global_memory.add("another warm-up fact", "decision", source="user_turn")
    a.global_memory.edit(other.id, fact="Team tracks monthly revenue targets")
    assert b.global_memory.add("Team tracks weekly churn cohort", "decision", source="user_turn").added
    assert b.global_memory.add("Team tracks monthly revenue target", "decision", source="user_turn").touched


def test_rolled_back_entries_leave_no_phantom(store):
    gm = store.global_memory
    gm.add("unrelated warm-up fact", "decision", source="user_turn")
    with pytest.raises(RuntimeError):
        with store.transaction():
            gm.add("User is analyzing Q1 sales data", "decision", source="user_turn")
            assert gm.add("User is analyzing Q1 sales numbers", "decision", source="user_turn").touched
            raise RuntimeError("abort")
    assert gm.add("User is analyzing Q1 sales numbers", "decision", source="user_turn").added
    assert [e.fact for e in gm.list()] == ["User is analyzing Q1 sales numbers", "unrelated warm-up fact"]


def test_pruned_change_log_forces_a_reload(open_store):
    store = open_store(Caps(global_memory=None))
    gm = store.global_memory
    gm.add("User is analyzing Q1 sales data", "decision", source="user_turn")
    with sqlite3.connect(store.db_path) as db:  # simulate a log pruned past our last visit
        db.execute("INSERT INTO memory (scope, fact, norm, category, last_touched_at, created_at, "
                   "sim_tokens, signature, token_count) SELECT scope, 'Team tracks weekly churn cohorts', "
                   "'team tracks weekly churn cohorts', category, last_touched_at, created_at, "
                   "'churn cohort team track weekly', "
                   "'[[\"churn\",\"cohorts\",\"team\",\"tracks\",\"weekly\"],[],false,[],[],[]]', 5 "
                   "FROM memory LIMIT 1")
        db.execute("INSERT INTO memory_changes (seq, scope, entry_id) VALUES (1000000, 'x', 0)")
        db.execute("DELETE FROM memory_changes WHERE seq < 1000000")
    assert gm.add("Team tracks weekly churn cohort", "decision", source="user_turn").touched


def test_render_cache_follows_changes_from_another_store(two):
    a, b = two
    a.global_memory.add("User prefers Go", "preference", source="user_turn")
    first = b.global_memory.render()
    assert "User prefers Go" in first and b.global_memory.render() is first  # cached
    a.global_memory.add("Team chose DuckDB", "decision", source="user_turn")
    assert "Team chose DuckDB" in b.global_memory.render()
    entry = a.global_memory.list()[0]
    a.global_memory.edit(entry.id, category="preference")
    assert "[preference] Team chose DuckDB" in b.global_memory.render()
    for turn in range(1, 40):
        a.global_memory.decay_all(turn)
    assert b.global_memory.render() == ""
