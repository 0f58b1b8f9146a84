"""Global Memory and Session Memory against a real SQLite store (REFERENCE §3.2, in our words)."""
from __future__ import annotations

import sqlite3

import pytest

from shell_agent_lab.store import Caps, NotFoundError, ValidationError


def facts(entries):
    return [e.fact for e in entries]


def test_same_fact_twice_is_one_entry_touched(store):
    first = store.global_memory.add("User prefers Go", "preference", source="user_turn")
    second = store.global_memory.add("User prefers Go", "preference", source="user_turn")
    assert first.added and not second.added and second.touched == [first.entry.id]
    assert len(store.global_memory.list()) == 1
    assert second.entry.touch_count == 1


def test_near_duplicate_touches_and_keeps_original_text(store):
    gm = store.global_memory
    gm.add("User is analyzing Q1 sales data", "decision", source="user_turn")
    result = gm.add("User is analyzing Q1 sales numbers", "decision", source="user_turn")
    assert not result.added
    (entry,) = gm.list()
    assert entry.fact == "User is analyzing Q1 sales data"
    assert entry.touch_count == 1 and entry.relevance == 1.0


def test_near_miss_preferences_are_kept_apart(store):
    gm = store.global_memory
    gm.add("User wants revenue rounded to 2 decimals", "preference", source="user_turn")
    gm.add("User wants revenue rounded to 0 decimals", "preference", source="user_turn")
    gm.add("User reports EU figures in EUR", "decision", source="user_turn")
    gm.add("User reports US figures in EUR", "decision", source="user_turn")
    assert len(gm.list()) == 4


@pytest.mark.parametrize("scope", ["global", "session"])
def test_cap_evicts_oldest_touch_first(open_store, scope):
    store = open_store(Caps(global_memory=3, session_memory=3))
    if scope == "global":
        add = lambda f: store.global_memory.add(f, "decision", source="user_turn")  # noqa: E731
        listing = store.global_memory.list
    else:
        sid = store.create_session().id
        add = lambda f: store.session_memory.add(sid, f, "fact", source="user_turn")  # noqa: E731
        listing = lambda: store.session_memory.list(sid)  # noqa: E731
    for f in ("alpha apples", "bravo bananas", "charlie cherries", "delta dates"):
        add(f)
    assert sorted(facts(listing())) == ["bravo bananas", "charlie cherries", "delta dates"]


def test_eviction_prefers_archived_even_if_touched_last(open_store):
    store = open_store(Caps(global_memory=3))
    gm = store.global_memory
    old = gm.add("alpha apples", "decision", source="user_turn", turn=0).entry
    gm.add("bravo bananas", "decision", source="user_turn", turn=40)
    gm.add("charlie cherries", "decision", source="user_turn", turn=40)
    for turn in range(1, 41):
        gm.decay_all(turn)
    assert gm.get(old.id).state == "archived"
    with sqlite3.connect(store.db_path) as db:  # make the archived one the most recently touched
        db.execute("UPDATE memory SET last_touched_at = '2099-01-01T00:00:00.000000Z' WHERE id = ?", (old.id,))
    gm.add("delta dates", "decision", source="user_turn", turn=41)
    assert "alpha apples" not in facts(gm.list())
    assert len(gm.list()) == 3


def test_manual_set_coerces_invalid_category_and_updates_exact_match(store):
    gm = store.global_memory
    entry = gm.set("Always show units", "fact")
    assert entry.category == "decision" and entry.source == "manual" and entry.state == "active"
    again = gm.set("Always show units", "preference", native_fact="単位を表示")
    assert again.id == entry.id and again.category == "preference" and again.native_fact == "単位を表示"
    assert len(gm.list()) == 1


def test_remembering_an_archived_fact_again_brings_it_back(store):
    """A fact the user states again (``/remember``) is as relevant as a new one: an entry that
    had decayed to archived is active again, not left hidden under the same words."""
    gm = store.global_memory
    entry = gm.set("Report revenue in euros", "preference")
    for turn in range(1, 80):
        gm.decay_all(turn)
    assert gm.get(entry.id).state == "archived"
    again = gm.set("Report revenue in euros", "preference")
    assert again.id == entry.id and again.state == "active" and again.relevance == 1.0
    assert again.touch_count == entry.touch_count + 1


def test_add_refuses_bad_category_source_and_empty_text(store):
    gm = store.global_memory
    with pytest.raises(ValidationError, match="category 'fact'"):
        gm.add("x y z", "fact", source="user_turn")
    with pytest.raises(ValidationError, match="source"):
        gm.add("x y z", "decision", source="somewhere")
    with pytest.raises(ValidationError, match="empty"):
        gm.add(" \x00\x07 ", "decision", source="user_turn")
    assert gm.list() == []


def test_oversized_fact_is_refused_and_nothing_is_lost(store):
    gm = store.global_memory
    gm.add("User prefers Go", "preference", source="user_turn")
    with pytest.raises(ValidationError, match=r"1,048,576 characters; the limit is 2,000"):
        gm.add("x" * (1024 * 1024), "preference", source="user_turn")
    assert facts(gm.list()) == ["User prefers Go"]


def test_control_characters_are_removed_before_storing(store):
    entry = store.global_memory.add("User\x00 prefers\x1b Go\x7f", "preference", source="user_turn").entry
    assert entry.fact == "User prefers Go"
    assert "\x00" not in store.global_memory.render()


def test_delete_one_many_and_by_facts(store):
    gm = store.global_memory
    ids = [gm.add(f, "decision", source="user_turn").entry.id for f in ("alpha apples", "bravo bananas", "charlie cherries", "delta dates")]
    assert gm.delete(ids[0]) is True and gm.delete(ids[0]) is False
    assert gm.delete_many([ids[1], 99999]) == 1
    assert gm.delete_by_facts(["charlie cherries", "unknown fact"]) == 1
    assert gm.delete_many([]) == 0 and gm.delete_by_facts(None) == 0
    assert facts(gm.list()) == ["delta dates"]


def test_edit_changes_text_and_reindexes_it(store):
    gm = store.global_memory
    entry = gm.add("User prefers seaborn", "preference", source="user_turn").entry
    edited = gm.edit(entry.id, fact="User prefers altair for charts", category="decision")
    assert edited.fact == "User prefers altair for charts" and edited.category == "decision"
    # the new text is what dedup now sees
    assert not gm.add("User prefers altair for charts", "decision", source="user_turn").added
    assert gm.add("User prefers seaborn", "preference", source="user_turn").added
    with pytest.raises(NotFoundError):
        gm.edit(424242, fact="x")
    with pytest.raises(ValidationError):
        gm.edit(entry.id, category="fact")


def test_render_trust_tags_and_lifecycle_filter(store):
    gm = store.global_memory
    gm.add("User prefers Go", "preference", source="user_turn", native_fact="ユーザーはGoを好む")
    gm.add("Team chose DuckDB", "decision", source="assistant_turn")
    gm.add("Use ISO dates", "decision", source="")
    out = gm.render()
    assert "- [user-stated] [preference] User prefers Go (ユーザーはGoを好む) (learned 2026-02-16)\n" in out
    assert "- [derived] [decision] Team chose DuckDB" in out
    assert "- [derived] [decision] Use ISO dates" in out
    assert out.index("Use ISO dates") < out.index("Team chose DuckDB") < out.index("User prefers Go")


def test_dormant_and_archived_are_kept_but_not_rendered(store):
    gm = store.global_memory
    for i, fact in enumerate(["alpha apples", "bravo bananas", "charlie cherries", "delta dates"]):
        gm.add(fact, "decision", source="user_turn", turn=0)
    with sqlite3.connect(store.db_path) as db:
        db.execute("UPDATE memory SET relevance = 0.2 WHERE fact = 'charlie cherries'")
        db.execute("UPDATE memory SET relevance = 0.05 WHERE fact = 'delta dates'")
    gm.decay_all(10)
    states = {e.fact: e.state for e in gm.list()}
    assert states == {"alpha apples": "active", "bravo bananas": "active",
                      "charlie cherries": "dormant", "delta dates": "archived"}
    out = gm.render()
    assert "alpha apples" in out and "bravo bananas" in out
    assert "charlie" not in out and "delta" not in out


def test_lifecycle_moves_fresh_active_dormant_archived(store):
    gm = store.global_memory
    entry = gm.add("alpha apples", "decision", source="user_turn", turn=1).entry
    assert entry.state == "fresh"
    seen = []
    for turn in range(2, 60):
        gm.decay_all(turn)
        seen.append(gm.get(entry.id).state)
    assert seen[0] == "fresh" and seen[-1] == "archived"
    order = [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s]
    assert order == ["fresh", "active", "dormant", "archived"]


def test_decay_all_counts_state_flips(store):
    gm = store.global_memory
    gm.add("alpha apples", "decision", source="user_turn", turn=0)
    gm.add("bravo bananas", "decision", source="user_turn", turn=5)
    assert gm.decay_all(3) == 1      # alpha leaves its fresh window
    assert gm.decay_all(4) == 0


def test_touch_matching_refreshes_the_related_entry(store):
    gm = store.global_memory
    entry = gm.add("user prefers Go", "preference", source="user_turn", turn=0).entry
    other = gm.add("Team chose DuckDB", "decision", source="user_turn", turn=0).entry
    for turn in range(1, 10):
        gm.decay_all(turn)
    assert gm.touch_matching("User prefers Go programming language", 10) == 1
    touched = gm.get(entry.id)
    assert touched.relevance == 1.0 and touched.state == "active"
    assert touched.touch_count == 1 and touched.last_touched_turn == 10
    assert gm.get(other.id).relevance < 1.0
    assert gm.touch_matching("", 11) == 0
    assert gm.touch_matching("user prefers Go", 11, threshold=0) == 0


def test_reversal_supersedes_the_old_preference(store):
    gm = store.global_memory
    old = gm.add("User prefers seaborn", "preference", source="user_turn").entry
    keep = gm.add("User prefers matplotlib for maps", "preference", source="user_turn").entry
    result = gm.add("User no longer prefers seaborn; use plotly", "preference", source="user_turn")
    assert result.added and result.superseded == [old.id]
    assert facts(gm.list()) == ["User no longer prefers seaborn; use plotly", "User prefers matplotlib for maps"]
    history = {e.id: e for e in gm.list(include_superseded=True)}
    assert history[old.id].superseded_by == result.entry.id
    assert history[keep.id].superseded_by is None
    out = gm.render()
    assert "User prefers seaborn" not in out and "no longer prefers seaborn" in out
    # the old preference re-stated is not merged into the reversal
    assert gm.add("User prefers seaborn", "preference", source="user_turn").added


def test_session_memory_is_scoped_to_its_session(store):
    a = store.create_session(title="A").id
    b = store.create_session(title="B").id
    sm = store.session_memory
    sm.add(a, "Dataset is sales.csv", "fact", source="user_turn")
    sm.add(b, "Dataset is sales.csv", "fact", source="assistant_turn")
    sm.add(a, "Focus on EU", "context", source="tool_call")
    assert len(sm.list(a)) == 2 and len(sm.list(b)) == 1
    out = sm.render(a)
    assert "- [user-stated] [fact] Dataset is sales.csv" in out
    assert "- [derived] [context] Focus on EU" in out
    assert "[derived] [fact] Dataset is sales.csv" in sm.render(b)
    assert store.global_memory.list() == []
    with pytest.raises(ValidationError):
        sm.add(a, "x y", "preference", source="user_turn")
    with pytest.raises(NotFoundError):
        sm.add("sess-missing", "x y", "fact", source="user_turn")


def test_session_suggestions_render_marked_and_pin_clears_them(store, session):
    sm = store.session_memory
    entry = sm.add(session.id, "User prefers plotly", "preference", source="assistant_turn", suggested=True).entry
    assert entry.suggested
    assert "[preference] [suggested] User prefers plotly" in sm.render(session.id)
    pinned = store.pin_session_memory(session.id, entry.id, "preference")
    assert pinned.source == "promoted_from_session_memory"
    assert not sm.get(session.id, entry.id).suggested
    with pytest.raises(ValidationError):
        sm.add(session.id, "a b c", "fact", source="user_turn", suggested=True)


def test_global_render_budget_with_exact_elision_count(open_store):
    store = open_store(Caps(global_memory=None))
    gm = store.global_memory
    for i in range(100):
        gm.add(f"entry {i:03d} unique{i} " + f"word{i} " * 40, "decision", source="user_turn")
    out = gm.render()
    assert len(out.encode()) <= 16 * 1024 + 200
    first = out.splitlines()[0]
    assert first.endswith("earlier facts elided to fit budget)")
    shown = out.count("\n- ")
    assert first == f"({100 - shown} earlier facts elided to fit budget)"
    assert "entry 099" in out and "entry 000" not in out


def test_session_render_marker(open_store):
    store = open_store(Caps(session_memory=None))
    sid = store.create_session().id
    for i in range(80):
        store.session_memory.add(sid, f"note {i} token{i} " + f"w{i}x " * 60, "fact", source="user_turn")
    assert "earlier session-memory entries elided to fit budget)" in store.session_memory.render(sid)


def test_lexical_touch_reference_case(store):
    gm = store.global_memory
    entry = gm.add("User wants to analyse Q1 sales data", "decision", source="user_turn").entry
    assert gm.touch_matching("Q1 sales data analysis", 5) == 1
    assert gm.get(entry.id).touch_count == 1
    assert gm.touch_matching("weather in Lisbon", 6) == 0


def test_one_store_shared_by_threads(open_store):
    import threading

    store = open_store(Caps(global_memory=None))
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(25):
                store.global_memory.add(f"Thread {n} notes metric_{n}_{i}", "decision", source="user_turn")
                store.global_memory.render()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    facts_seen = [e.fact for e in store.global_memory.list()]
    assert len(facts_seen) == 200 and len(set(facts_seen)) == 200


def test_closed_store_refuses_use(open_store):
    from shell_agent_lab.store import StoreError

    store = open_store()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.global_memory.list()


def test_data_dir_that_is_a_file_is_a_clear_error(tmp_path):
    from shell_agent_lab.store import Store, StoreError

    target = tmp_path / "not-a-dir"
    target.write_text("x")
    with pytest.raises(StoreError, match="cannot create the data directory"):
        Store.open(target)
    assert target.read_text() == "x"


def test_superseded_history_goes_first_under_the_cap(open_store):
    store = open_store(Caps(global_memory=3))
    gm = store.global_memory
    old = gm.add("User prefers seaborn", "preference", source="user_turn").entry
    gm.add("User works in the EU timezone", "decision", source="user_turn")
    gm.add("User no longer prefers seaborn; use plotly", "preference", source="user_turn")
    gm.add("Team chose DuckDB for analysis", "decision", source="user_turn")
    remaining = gm.list(include_superseded=True)
    assert old.id not in {e.id for e in remaining} and len(remaining) == 3


def test_session_memory_reversal_supersedes_too(store, session):
    sm = store.session_memory
    old = sm.add(session.id, "Analysis uses the orders_2023 table", "fact", source="user_turn").entry
    new = sm.add(session.id, "Analysis no longer uses the orders_2023 table; use orders_2024", "fact",
                 source="user_turn")
    assert new.superseded == [old.id]
    assert "orders_2023 table (learned" not in sm.render(session.id)
