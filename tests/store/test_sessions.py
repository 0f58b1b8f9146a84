"""Sessions, append-only records, the summary cache, Pin/demote and session deletion."""
from __future__ import annotations

import sqlite3

import pytest

from shell_agent_lab.store import (
    Caps,
    NotFoundError,
    PrivateSessionError,
    SummaryEntry,
    ValidationError,
)


def test_create_get_list_newest_updated_first(store):
    a = store.create_session(title="A", notebook_path="/nb/a.ipynb", profile="local")
    b = store.create_session(title="B", private=True, key="nb-key-1")
    assert store.get_session(a.id) == a and a.profile == "local" and not a.private
    assert b.private and b.title == "B"
    assert [s.id for s in store.list_sessions()] == [b.id, a.id]
    store.append_record(a.id, "user", "hello")
    assert [s.id for s in store.list_sessions()] == [a.id, b.id]
    assert store.get_session("sess-nope") is None


def test_find_session_by_key_then_notebook_path(store):
    a = store.create_session(notebook_path="/nb/a.ipynb")
    b = store.create_session(notebook_path="/nb/other.ipynb", key="k-1")
    assert store.find_session("/nb/a.ipynb") == a
    assert store.find_session("/nb/a.ipynb", key="k-1").id == b.id
    assert store.find_session(key="unknown") is None
    store.set_session_key(a.id, "k-2")
    assert store.find_session(key="k-2").id == a.id


def test_sessions_named_by_id_then_id_prefix_then_title(store):
    a = store.create_session(title="Sales")
    b = store.create_session(title="Sales")
    c = store.create_session(title=a.id[:-2])      # a title that is also a prefix of a's id
    assert store.sessions_named(a.id) == [a]
    assert store.sessions_named(b.id[:-2]) == [b]
    assert store.sessions_named(a.id[:-2]) == [a] and c.title == a.id[:-2]   # the id wins
    assert {s.id for s in store.sessions_named("Sales")} == {a.id, b.id}      # ambiguous: both
    assert store.sessions_named("no such session") == []


def test_rename_locks_the_title_against_auto_titles(store):
    s = store.create_session()
    assert store.set_auto_title(s.id, "Auto one") is True
    assert store.get_session(s.id).title == "Auto one"
    renamed = store.rename_session(s.id, "My title")
    assert renamed.title_locked
    assert store.set_auto_title(s.id, "Auto two") is False
    assert store.get_session(s.id).title == "My title"
    with pytest.raises(ValidationError):
        store.rename_session(s.id, " \n ")
    with pytest.raises(NotFoundError):
        store.rename_session("sess-none", "x")


def test_profile_update(store):
    s = store.create_session()
    store.set_session_profile(s.id, "gemini")
    assert store.get_session(s.id).profile == "gemini"


def test_records_are_append_only_and_ordered(store, session):
    store.append_record(session.id, "user", "Show revenue")
    store.append_record(session.id, "assistant", "", tool_calls=[{"id": "c1", "name": "query", "arguments": {}}])
    store.append_record(session.id, "tool", "3 rows", tool_name="query", tool_call_id="c1",
                        status="ok", meta={"rows": 3})
    records = store.list_records(session.id)
    assert [r.seq for r in records] == [1, 2, 3]
    assert [r.role for r in records] == ["user", "assistant", "tool"]
    assert records[1].tool_calls[0]["name"] == "query"
    assert records[2].meta == {"rows": 3} and records[2].status == "ok"
    assert store.count_user_records(session.id) == 1
    assert [r.seq for r in store.list_records(session.id, after_seq=1)] == [2, 3]
    assert store.list_records(session.id, after_seq=3) == []
    with sqlite3.connect(store.db_path) as db, pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE records SET content = 'rewritten'")


def test_record_can_keep_an_original_timestamp(store, session):
    from datetime import datetime, timezone

    when = datetime(2025, 5, 1, 12, 30, tzinfo=timezone.utc)
    assert store.append_record(session.id, "user", "old", created_at=when).created_at == when


def test_record_bad_input(store, session):
    with pytest.raises(NotFoundError):
        store.append_record("sess-missing", "user", "x")
    with pytest.raises(ValidationError):
        store.append_record(session.id, "user", None)
    with pytest.raises(ValidationError, match="JSON"):
        store.append_record(session.id, "tool", "x", meta={"bad": object()})
    assert store.list_records(session.id) == []


def test_summary_cache_put_get_and_fifo(open_store, clock):
    store = open_store(Caps(summaries=3))
    sid = store.create_session().id
    for i in range(4):
        store.put_summary(sid, SummaryEntry(f"k{i}", "content_v2", "far", "m", None, None, i, f"s{i}"))
    assert store.get_summary(sid, "k0") is None
    assert store.get_summary(sid, "k3").summary == "s3"
    assert [e.key for e in store.list_summaries(sid)] == ["k1", "k2", "k3"]
    store.put_summary(sid, SummaryEntry("k1", "content_v2", "near", "m", None, None, 9, "replaced"))
    assert store.get_summary(sid, "k1").summary == "replaced"


def test_transaction_rolls_back_every_write_inside(store, session):
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.append_record(session.id, "user", "one")
            store.findings.add(session.id, "alpha apples")
            store.global_memory.add("User prefers Go", "preference", source="user_turn")
            raise RuntimeError("abort")
    assert store.list_records(session.id) == []
    assert store.findings.list(session.id) == []
    assert store.global_memory.list() == []
    with store.transaction():
        store.append_record(session.id, "user", "kept")
    assert [r.content for r in store.list_records(session.id)] == ["kept"]


def test_pin_from_session_memory_and_finding(store, session):
    sm_entry = store.session_memory.add(session.id, "Fiscal year starts in April", "fact",
                                        source="assistant_turn", native_fact="会計年度は4月開始").entry
    pinned = store.pin_session_memory(session.id, sm_entry.id, "decision")
    assert pinned.source == "promoted_from_session_memory" and pinned.category == "decision"
    assert pinned.native_fact == "会計年度は4月開始"
    assert store.session_memory.get(session.id, sm_entry.id) is not None  # the original stays
    finding = store.findings.add(session.id, "Refunds cluster on Mondays")
    g = store.pin_finding(session.id, finding.id, "preference")
    assert g.fact == g.native_fact == "Refunds cluster on Mondays"
    assert g.source == "promoted_from_finding"
    assert store.findings.get(session.id, finding.id) is not None
    assert "[user-stated] [preference] Refunds cluster on Mondays" in store.global_memory.render()
    with pytest.raises(ValidationError):
        store.pin_finding(session.id, finding.id, "fact")
    with pytest.raises(NotFoundError):
        store.pin_finding(session.id, "f-20000101-001", "decision")


def test_private_sessions_refuse_pin(store):
    private = store.create_session(private=True)
    entry = store.session_memory.add(private.id, "Secret project codename", "fact", source="user_turn").entry
    finding = store.findings.add(private.id, "Salaries skew high")
    with pytest.raises(PrivateSessionError):
        store.pin_session_memory(private.id, entry.id, "decision")
    with pytest.raises(PrivateSessionError):
        store.pin_finding(private.id, finding.id, "decision")
    assert store.global_memory.list() == []


def test_demote_moves_a_global_entry_into_the_session(store, session):
    g = store.global_memory.add("Use the staging warehouse", "decision", source="manual").entry
    moved = store.demote_global(g.id, session.id)
    assert moved.session_id == session.id and moved.category == "context"
    assert moved.source == "user_turn"
    assert store.global_memory.list() == []
    assert [e.fact for e in store.session_memory.list(session.id)] == ["Use the staging warehouse"]
    with pytest.raises(NotFoundError):
        store.demote_global(g.id, session.id)


def test_delete_session_removes_everything_it_owns(store):
    keep = store.create_session(title="keep")
    gone = store.create_session(title="gone")
    for sid in (keep.id, gone.id):
        store.append_record(sid, "user", "hi")
        store.session_memory.add(sid, "Dataset is sales.csv", "fact", source="user_turn")
        store.findings.add(sid, "Revenue grew 12% in Q3")
        store.put_summary(sid, SummaryEntry("k", "content_v2", "far", "m", None, None, 1, "s"))
        store.objects.put(sid, b"# report", type="report", mime_type="text/markdown")
        (store.session_dir(sid) / "work").mkdir()
    store.global_memory.add("User prefers Go", "preference", source="user_turn")
    blob = store.objects.list(gone.id)[0]
    blob_path = store.objects.path(blob.id)
    assert blob_path.exists()

    store.delete_session(gone.id)

    assert store.get_session(gone.id) is None
    assert store.list_records(gone.id) == [] and store.session_memory.list(gone.id) == []
    assert store.findings.list(gone.id) == [] and store.list_summaries(gone.id) == []
    assert store.objects.list(gone.id) == [] and not blob_path.exists()
    assert not (store.data_dir / "sessions" / gone.id).exists()
    with sqlite3.connect(store.db_path) as db:
        for table in ("records", "memory", "findings", "summaries", "objects", "finding_counters"):
            assert db.execute(f"SELECT COUNT(*) FROM {table} WHERE session_id = ?", (gone.id,)).fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM memory WHERE scope = ?", (f"s:{gone.id}",)).fetchone()[0] == 0
    # the other session and Global Memory are untouched
    assert len(store.list_records(keep.id)) == 1 and len(store.findings.list(keep.id)) == 1
    assert len(store.objects.list(keep.id)) == 1 and (store.session_dir(keep.id) / "work").exists()
    assert len(store.global_memory.list()) == 1
    with pytest.raises(NotFoundError):
        store.delete_session(gone.id)


def test_session_dir_is_private_and_refuses_path_tricks(store, session):
    path = store.session_dir(session.id)
    assert path == store.data_dir / "sessions" / session.id
    assert (path.stat().st_mode & 0o777) == 0o700
    for bad in ("../etc", "a/b", "", ".."):
        with pytest.raises(NotFoundError):
            store.session_dir(bad)
