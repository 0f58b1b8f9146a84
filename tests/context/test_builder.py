"""Context building (the non-destructive model): windows, summaries, anchors, dead topics."""
from __future__ import annotations

from datetime import timedelta

from shell_agent_lab.context import Budget, ContextBuilder
from shell_agent_lab.llm.types import ToolCall

from .conftest import T0


def test_empty_session_has_only_the_system_message(session):
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    assert [m.role for m in built.messages] == ["system"]
    assert built.messages[0].content == built.system_prompt
    assert built.stats["raw_records"] == 0 and built.stats["summarized_records"] == 0


def test_unlimited_budget_sends_every_record_wrapped_with_user_time(session):
    session.add("user", "how many rows?")
    session.add("assistant", "There are 12 rows.")
    builder = ContextBuilder(session.store)
    built = builder.build(session.id, budget=Budget(), summarizer=None)
    user, assistant = built.messages[1:]
    tag = builder.guard_tag(session.id)
    assert user.content == f"[Time: 2026-04-27 Monday 08:30:00 UTC]\n\n<{tag}>how many rows?</{tag}>"
    assert assistant.content == "There are 12 rows."  # assistant text is never wrapped


def test_two_builds_are_byte_identical(session, summarizer):
    session.conversation(30)
    builder = ContextBuilder(session.store)
    budget = Budget(max_context_tokens=1500)
    first = builder.build(session.id, budget=budget, summarizer=summarizer)
    second = ContextBuilder(session.store).build(session.id, budget=budget, summarizer=summarizer)
    # a second builder has its own tag: compare after normalising the tag
    again = builder.build(session.id, budget=budget, summarizer=summarizer)
    assert [(m.role, m.content) for m in first.messages] == [(m.role, m.content) for m in again.messages]
    assert len(second.messages) == len(first.messages)


def test_newest_record_is_always_included_even_when_huge(session):
    session.add("user", "load it")
    session.add("assistant", "", tool_calls=[{"id": "c1", "name": "load_data",
                                                             "arguments": {"path": "x.csv"}}])
    session.add("tool", "x" * 200_000, tool_name="load_data", tool_call_id="c1")
    built = ContextBuilder(session.store).build(
        session.id, budget=Budget(max_context_tokens=100, max_tool_result_tokens=50_000), summarizer=None)
    last = built.messages[-1]
    assert "xxxx" in last.content
    assert built.stats["raw_records"] >= 1


def test_older_records_are_summarised_with_headers_covering_both_ends(session, summarizer):
    for i in range(20):
        session.add("user" if i % 2 == 0 else "assistant", f"turn {i} " + "data " * 30,
                            at=T0 + timedelta(minutes=3 * i))
    built = ContextBuilder(session.store).build(session.id, budget=Budget(max_context_tokens=400),
                                        summarizer=summarizer)
    summary = built.messages[1]
    assert summary.role == "system"
    assert "[tier=far] [Summary of" in summary.content and "[tier=near] [Summary of" in summary.content
    assert "from 2026-04-27 08:30 UTC" in summary.content
    assert built.stats["summarized_records"] > 0
    assert summarizer.requests, "the summarizer must be asked"
    # the summarizer input is guard-wrapped
    assert "<user_data_" in summarizer.requests[0][1].content


def test_summaries_hit_the_cache_when_a_newer_turn_is_added(session, summarizer):
    session.conversation(40)
    builder = ContextBuilder(session.store)
    budget = Budget(max_context_tokens=3000)
    first = builder.build(session.id, budget=budget, summarizer=summarizer)
    calls = len(summarizer.requests)
    assert calls == 2
    session.add("user", "one more short question")
    second = builder.build(session.id, budget=budget, summarizer=summarizer)
    assert len(summarizer.requests) == calls, "a newer turn must not force re-summarisation"
    assert second.stats["used_cache"] is True
    prev = [(m.role, m.content) for m in first.messages]
    assert [(m.role, m.content) for m in second.messages][:len(prev)] == prev


def test_summary_cache_is_persisted_and_keyed_without_timestamps(session, summarizer, clock):
    session.conversation(40)
    budget = Budget(max_context_tokens=3000)
    ContextBuilder(session.store).build(session.id, budget=budget, summarizer=summarizer)
    entries = session.store.list_summaries(session.id)
    assert len(entries) == 2 and {e.tier for e in entries} == {"far", "near"}
    # the same content three days later in another session: same keys, no summarizer call
    other = type(session)(session.store, clock)
    clock.now += timedelta(days=3)
    for record in session.store.list_records(session.id):
        other.add(record.role, record.content)
    for entry in entries:
        session.store.put_summary(other.id, entry)
    calls = len(summarizer.requests)
    built = ContextBuilder(session.store).build(other.id, budget=budget, summarizer=summarizer)
    assert len(summarizer.requests) == calls
    assert built.stats["summary_cache_hits"] == 2


def test_without_summarizer_older_records_are_reported_elided(session):
    session.conversation(40)
    built = ContextBuilder(session.store).build(session.id, budget=Budget(max_context_tokens=3000), summarizer=None)
    assert "[summary unavailable —" in built.messages[1].content


def test_placeholders_never_reach_the_model(session):
    session.add("user", "hi")
    session.add("assistant", "[Calling: query_sql]")
    session.add("assistant", "hello")
    session.add("user", "bye")
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    assert all("[Calling:" not in m.content for m in built.messages)
    assert len(built.messages) == 4


def test_tool_calls_round_trip_as_native_messages(session):
    session.add("user", "count rows")
    session.add("assistant", "Let me check.", tool_calls=[
        {"id": "call_1", "name": "query_sql", "arguments": {"sql": "select count(*) from t"}}])
    session.add("tool", "42", tool_name="query_sql", tool_call_id="call_1",
                        status="success")
    session.add("assistant", "There are 42 rows.")
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    roles = [m.role for m in built.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    call = built.messages[2].tool_calls[0]
    assert call == ToolCall(id="call_1", name="query_sql", arguments={"sql": "select count(*) from t"})
    tool = built.messages[3]
    assert tool.tool_call_id == "call_1" and tool.name == "query_sql"
    assert tool.content.startswith("[2026-04-27 08:32 UTC]\n<user_data_")


def test_tool_results_are_truncated_with_the_byte_count(session):
    session.add("user", "dump")
    session.add("tool", "y" * 10_000, tool_name="query_sql")
    built = ContextBuilder(session.store).build(session.id, budget=Budget(max_tool_result_tokens=100), summarizer=None)
    content = built.messages[-1].content
    assert "\n... [truncated, 10000 bytes total]</user_data_" in content
    assert content.count("y") < 500


def test_time_markers_only_after_a_long_pause_and_never_first(session):
    session.add("user", "a", at=T0)
    session.add("assistant", "b", at=T0 + timedelta(minutes=10))
    session.add("assistant", "c", at=T0 + timedelta(minutes=50))
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    first, second, third = built.messages[1:]
    assert first.content.startswith("[Time: ")            # own time prefix, no marker
    assert second.content == "b"
    assert third.content == "[2026-04-27 09:20 UTC]\nc"


def test_anchors_stay_verbatim_outside_summaries(session, summarizer):
    session.store.global_memory.set("chose DuckDB over SQLite for sales analysis", "decision")
    session.add("user", "we chose DuckDB over SQLite for the sales analysis")
    session.conversation(40)
    built = ContextBuilder(session.store).build(
        session.id, budget=Budget(max_context_tokens=3000, anchor_threshold=0.3), summarizer=summarizer)
    assert built.stats["anchored_records"] == 1
    verbatim = [m for m in built.messages[2:] if "chose DuckDB over SQLite" in m.content]
    assert verbatim and verbatim[0].role == "user"
    assert all("chose DuckDB" not in r[1].content for r in summarizer.requests)


def test_dead_topics_are_dropped_and_counted(session, summarizer):
    session.store.session_memory.add(session.id, "Weather Tokyo rainy", "fact", source="user_turn")
    session.age_session_fact()
    session.add("user", "weather in tokyo is rainy")
    session.conversation(40)
    builder = ContextBuilder(session.store)
    budget = Budget(max_context_tokens=3000, dead_topic_threshold=0.3)
    built = builder.build(session.id, budget=budget, summarizer=summarizer)
    assert built.stats["dropped_dead_topics"] == 1
    assert "[1 dead-topic turns suppressed]" in built.messages[1].content
    assert all("tokyo" not in r[1].content.lower() for r in summarizer.requests)


def test_a_new_dead_topic_forces_resummarisation(session, summarizer):
    session.add("user", "weather in tokyo is rainy")
    session.conversation(40)
    builder = ContextBuilder(session.store)
    budget = Budget(max_context_tokens=3000, dead_topic_threshold=0.3)
    builder.build(session.id, budget=budget, summarizer=summarizer)
    calls = len(summarizer.requests)
    session.store.session_memory.add(session.id, "Weather Tokyo rainy", "fact", source="user_turn")
    session.age_session_fact()
    builder.build(session.id, budget=budget, summarizer=summarizer)
    assert len(summarizer.requests) > calls


def test_budget_keeps_total_within_twice_the_limit(session, summarizer):
    session.conversation(60)
    built = ContextBuilder(session.store, base_prompt="base").build(
        session.id, budget=Budget(max_context_tokens=500), summarizer=summarizer)
    assert built.stats["total_tokens"] <= 1000


def test_notes_are_appended_last_and_not_persisted(session):
    session.add("user", "hi")
    builder = ContextBuilder(session.store)
    built = builder.build(session.id, budget=Budget(), summarizer=None, notes=["System note: be brief."])
    assert built.messages[-1].role == "system" and built.messages[-1].content == "System note: be brief."
    again = builder.build(session.id, budget=Budget(), summarizer=None)
    assert all("be brief" not in m.content for m in again.messages)


def test_assembly_order_system_summaries_anchors_window(session, summarizer):
    session.store.global_memory.set("chose DuckDB over SQLite for sales analysis", "decision")
    session.add("user", "we chose DuckDB over SQLite for the sales analysis")
    session.conversation(40)
    session.add("user", "latest question")
    built = ContextBuilder(session.store).build(
        session.id, budget=Budget(max_context_tokens=3000, anchor_threshold=0.3),
        summarizer=summarizer)
    kinds = []
    for m in built.messages:
        if m.role == "system" and (m is built.messages[0] or m is built.messages[1]):
            kinds.append("system")        # the fixed part, then the memory part
        elif m.role == "system":
            kinds.append("summaries")
        elif "chose DuckDB" in m.content:
            kinds.append("anchor")
        else:
            kinds.append("raw")
    assert kinds[:5] == ["system", "system", "summaries", "anchor", "raw"]
    assert set(kinds[5:]) == {"raw"} and "latest question" in built.messages[-1].content


def test_legacy_summary_records_render_as_a_summary_block(session):
    session.add("summary", "- earlier: the user loaded sales.csv")
    session.add("user", "and now?")
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    assert built.messages[1].role == "system"
    assert built.messages[1].content.startswith("[Summary of earlier conversation")
    assert "the user loaded sales.csv" in built.messages[1].content
    assert built.messages[-1].role == "user"


def test_window_start_moves_in_steps_so_requests_extend_each_other(session, summarizer):
    session.conversation(60, size=10)
    builder = ContextBuilder(session.store, base_prompt="base")
    budget = Budget(max_context_tokens=1200)
    starts, misses, previous = [], 0, None
    for i in range(30):
        session.add("user", f"short follow-up {i}")
        built = builder.build(session.id, budget=budget, summarizer=summarizer)
        starts.append(built.stats["window_start"])
        contents = [(m.role, m.content) for m in built.messages]
        if previous is not None and contents[:len(previous)] != previous:
            misses += 1
        previous = contents
    moves = sum(1 for a, b in zip(starts, starts[1:]) if a != b)
    assert starts == sorted(starts) and 0 < moves < 10
    assert misses == moves                     # the prefix only breaks when the window moves
    same_step = Budget(max_context_tokens=1200, window_step=0)
    fresh = ContextBuilder(session.store, base_prompt="base")
    a = fresh.build(session.id, budget=same_step, summarizer=summarizer).stats["window_start"]
    session.add("user", "one more")
    b = fresh.build(session.id, budget=same_step, summarizer=summarizer).stats["window_start"]
    assert b > a                               # without the grid the window moves every record


def test_a_window_never_opens_with_an_orphan_tool_result(session):
    for i in range(6):
        session.add("user", f"question {i} " + "words " * 30)
        session.add("assistant", "", tool_calls=[{"id": f"c{i}", "name": "query_sql",
                                                    "arguments": {"sql": "select 1"}}])
        session.add("tool", "result " * 60, tool_name="query_sql", tool_call_id=f"c{i}")
        session.add("assistant", f"answer {i}")
    built = ContextBuilder(session.store, base_prompt="b").build(
        session.id, budget=Budget(max_context_tokens=400, far_share=0, near_share=0, window_step=0),
        summarizer=None)
    window = [m for m in built.messages if m.role != "system"]
    assert window[0].role != "tool"
    called = set()
    for m in window:
        called.update(c.id for c in m.tool_calls)
        if m.role == "tool":
            assert m.tool_call_id in called


def test_unanswered_calls_are_dropped_from_the_request(session):
    session.add("user", "count")
    session.add("assistant", "Checking.", tool_calls=[
        {"id": "a", "name": "query_sql", "arguments": {"sql": "select 1"}},
        {"id": "b", "name": "query_sql", "arguments": {"sql": "select 2"}}])
    session.add("tool", "1", tool_name="query_sql", tool_call_id="a")
    session.add("assistant", "", tool_calls=[{"id": "z", "name": "list_tables", "arguments": {}}])
    session.add("user", "stop")
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    calls = [c.id for m in built.messages for c in m.tool_calls]
    assert calls == ["a"]
    assert [m.role for m in built.messages] == ["system", "user", "assistant", "tool", "user"]


def test_provider_extras_are_replayed(session):
    session.add("user", "go")
    session.add("assistant", "", meta={"extra": {"thought_signature": "abc"}}, tool_calls=[
        {"id": "c", "name": "list_tables", "arguments": {}, "extra": {"sig": "xyz"}}])
    session.add("tool", "[]", tool_name="list_tables", tool_call_id="c")
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    assistant = built.messages[2]
    assert assistant.extra == {"thought_signature": "abc"}
    assert assistant.tool_calls[0].extra == {"sig": "xyz"}


def test_a_failing_summarizer_degrades_to_an_elided_block(session):
    from shell_agent_lab.llm.errors import UnreachableError
    from shell_agent_lab.llm.scripted import ScriptedBackend

    session.conversation(40)
    backend = ScriptedBackend([UnreachableError("down"), UnreachableError("down")])
    built = ContextBuilder(session.store).build(
        session.id, budget=Budget(max_context_tokens=3000), summarizer=backend)
    assert "[summary unavailable —" in built.messages[1].content
    assert built.stats["summary_errors"] == ["down", "down"]
    assert session.store.list_summaries(session.id) == []


def test_an_unknown_session_builds_only_the_system_prompt(store):
    built = ContextBuilder(store).build("no-such-session", budget=Budget(), summarizer=None)
    assert [m.role for m in built.messages] == ["system"]


def test_summarizer_input_is_bounded_keeping_the_newest_records(session, summarizer):
    session.add("tool", "z" * 50_000, tool_name="read_file")
    session.conversation(60)
    budget = Budget(max_context_tokens=3000, summary_input_tokens=800)
    ContextBuilder(session.store).build(session.id, budget=budget, summarizer=summarizer)
    from shell_agent_lab.context import estimate_tokens

    for request in summarizer.requests:
        body = request[1].content
        assert estimate_tokens(body) <= 800 + 60
        assert "earlier records omitted to fit the summarizer" in body
    assert "z" * 1000 not in summarizer.requests[0][1].content


def test_caches_of_many_sessions_are_bounded_and_rebuilt_identically(store, clock):
    from .conftest import Session

    builder = ContextBuilder(store)
    sessions = [Session(store, clock) for _ in range(ContextBuilder.max_cached_sessions + 3)]
    first = []
    for s in sessions:
        s.add("user", "question")
        first.append([m.content for m in builder.build(s.id, budget=Budget(), summarizer=None).messages])
    assert len(builder._sessions) == ContextBuilder.max_cached_sessions
    again = [[m.content for m in builder.build(s.id, budget=Budget(), summarizer=None).messages]
             for s in sessions]
    assert again == first            # same guard tag, same bytes after the cache was dropped
