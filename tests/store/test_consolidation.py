"""The near-miss, paraphrase and reversal tables of test_similarity, through real store adds:
Findings, Global Memory and Session Memory."""
from __future__ import annotations

import sqlite3

import pytest

from shell_agent_lab.store.similarity import supersedes

from .test_similarity import _IDS, PAIRS_APART, PARAPHRASES

FLIPS = [
    ("User wants charts with a log scale", "User wants charts without a log scale"),
    ("User wants charts without a log scale", "User wants charts with a log scale"),
    ("Always round figures to 2 decimals", "Never round figures to 2 decimals"),
    ("Round figures to 2 decimals", "Don't round figures to 2 decimals"),
    ("User enabled autosave in notebooks", "User disabled autosave in notebooks"),
    ("Show the legend on revenue charts", "Hide the legend on revenue charts"),
    ("Turn on gridlines in revenue charts", "Turn off gridlines in revenue charts"),
]


def _add(store, scope: str, sid: str, text: str):
    """Add ``text`` to ``scope``; the stored entry, or None when it merged into an existing one."""
    if scope == "findings":
        return store.findings.add(sid, text)
    if scope == "global":
        result = store.global_memory.add(text, "decision", source="user_turn")
    else:
        result = store.session_memory.add(sid, text, "fact", source="user_turn")
    return result.entry if result.added else None


def _current(store, scope: str, sid: str) -> list[str]:
    if scope == "findings":
        return [f.content for f in store.findings.list(sid)]
    if scope == "global":
        return [e.fact for e in store.global_memory.list()]
    return [e.fact for e in store.session_memory.list(sid)]


SCOPES = ["findings", "global", "session"]


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("a,b", PAIRS_APART, ids=_IDS)
def test_near_misses_are_both_kept(store, session, scope, a, b):
    assert _add(store, scope, session.id, a) is not None
    assert _add(store, scope, session.id, b) is not None, f"{b!r} was merged into {a!r}"
    # in memory a polarity flip of the same statement supersedes it instead (never in findings)
    kept = [b] if scope != "findings" and supersedes(b, a) else [a, b]
    assert sorted(_current(store, scope, session.id)) == sorted(kept)


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("a,b", PARAPHRASES)
def test_paraphrases_merge(store, session, scope, a, b):
    assert _add(store, scope, session.id, a) is not None
    assert _add(store, scope, session.id, b) is None, f"{b!r} was stored next to {a!r}"
    assert _current(store, scope, session.id) == [a]


@pytest.mark.parametrize("scope", ["global", "session"])
@pytest.mark.parametrize("old,new", FLIPS)
def test_polarity_flip_supersedes_in_memory(store, session, scope, old, new):
    if scope == "global":
        mem, args = store.global_memory, ()
        add = lambda text: mem.add(text, "preference", source="user_turn")  # noqa: E731
    else:
        mem, args = store.session_memory, (session.id,)
        add = lambda text: mem.add(session.id, text, "fact", source="user_turn")  # noqa: E731
    before = add(old).entry
    result = add(new)
    assert result.added and result.superseded == [before.id]
    assert [e.fact for e in mem.list(*args)] == [new]
    rendered = mem.render(*args)
    assert new in rendered and f"] {old} (learned" not in rendered
    history = {e.id: e for e in mem.list(*args, include_superseded=True)}
    assert history[before.id].superseded_by == result.entry.id


def test_flip_leaves_other_topics_current(store):
    gm = store.global_memory
    general = gm.add("User wants charts", "preference", source="user_turn").entry
    log = gm.add("User wants charts with a log scale", "preference", source="user_turn").entry
    result = gm.add("User wants charts without a log scale", "preference", source="user_turn")
    assert result.superseded == [log.id]
    assert general.id in {e.id for e in gm.list()}


def test_contradicting_findings_are_both_kept_not_superseded(store, session):
    fs = store.findings
    fs.add(session.id, "Revenue grew with the promotion in the EU")
    assert fs.add(session.id, "Revenue grew without the promotion in the EU") is not None
    assert len(fs.list(session.id)) == 2


def test_reopening_an_old_store_reindexes_signatures(open_store):
    """A store written before contrast classes existed (schema 4, six-field signatures) is
    re-indexed on open, so a contradicting fact no longer merges into a stored one."""
    store = open_store()
    gm = store.global_memory
    gm.add("Revenue grew sharply in Q3 for the EU region", "decision", source="user_turn")
    path = store.db_path
    store.close()
    with sqlite3.connect(path) as db:
        # what schema 4 stored: the old signature layout and the old similarity tokens
        db.execute(
            "UPDATE memory SET signature = '[[\"eu\",\"for\",\"grew\",\"in\",\"q3\",\"region\","
            "\"revenue\",\"sharply\",\"the\"],[],false,[],[\"q3\"],[\"eu\"]]'"
        )
        db.execute("DELETE FROM schema_version WHERE version >= 5")
        db.execute("PRAGMA user_version = 4")
    again = open_store()
    with sqlite3.connect(path) as db:
        (stored,) = db.execute("SELECT signature FROM memory").fetchone()
        assert db.execute("PRAGMA user_version").fetchone()[0] >= 5
    assert '"direction:up"' in stored
    result = again.global_memory.add(
        "Revenue fell sharply in Q3 for the EU region", "decision", source="user_turn"
    )
    assert result.added and len(again.global_memory.list()) == 2
