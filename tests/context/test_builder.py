"""Context building (the non-destructive model): windows, summaries, anchors, dead topics."""
from __future__ import annotations

from datetime import timedelta

from shell_agent_lab.context import Budget, ContextBuilder
from shell_agent_lab.llm.types import ToolCall

from .fakes import T0

SID = "s1"


def _conversation(store, n: int, *, sid: str = SID, size: int = 40) -> None:
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        store.append_record(sid, role, f"message {i} " + "lorem ipsum " * size)


def test_empty_session_has_only_the_system_message(store):
    built = ContextBuilder(store).build(SID, budget=Budget(), summarizer=None)
    assert [m.role for m in built.messages] == ["system"]
    assert built.messages[0].content == built.system_prompt
    assert built.stats["raw_records"] == 0 and built.stats["summarized_records"] == 0


def test_unlimited_budget_sends_every_record_wrapped_with_user_time(store):
    store.append_record(SID, "user", "how many rows?")
    store.append_record(SID, "assistant", "There are 12 rows.")
    builder = ContextBuilder(store)
    built = builder.build(SID, budget=Budget(), summarizer=None)
    user, assistant = built.messages[1:]
    tag = builder.guard_tag(SID)
    assert user.content == f"[Time: 2026-04-27 Monday 08:30:00 UTC]\n\n<{tag}>how many rows?</{tag}>"
    assert assistant.content == "There are 12 rows."  # assistant text is never wrapped


def test_two_builds_are_byte_identical(store, summarizer):
    _conversation(store, 30)
    builder = ContextBuilder(store)
    budget = Budget(max_context_tokens=1500)
    first = builder.build(SID, budget=budget, summarizer=summarizer)
    second = ContextBuilder(store).build(SID, budget=budget, summarizer=summarizer)
    # a second builder has its own tag: compare after normalising the tag
    again = builder.build(SID, budget=budget, summarizer=summarizer)
    assert [(m.role, m.content) for m in first.messages] == [(m.role, m.content) for m in again.messages]
    assert len(second.messages) == len(first.messages)


def test_newest_record_is_always_included_even_when_huge(store):
    store.append_record(SID, "user", "load it")
    store.append_record(SID, "assistant", "", tool_calls=[{"id": "c1", "name": "load_data",
                                                             "arguments": {"path": "x.csv"}}])
    store.append_record(SID, "tool", "x" * 200_000, tool_name="load_data", tool_call_id="c1")
    built = ContextBuilder(store).build(
        SID, budget=Budget(max_context_tokens=100, max_tool_result_tokens=50_000), summarizer=None)
    last = built.messages[-1]
    assert "xxxx" in last.content
    assert built.stats["raw_records"] >= 1


def test_older_records_are_summarised_with_headers_covering_both_ends(store, summarizer):
    for i in range(20):
        store.append_record(SID, "user" if i % 2 == 0 else "assistant", f"turn {i} " + "data " * 30,
                            at=T0 + timedelta(minutes=3 * i))
    built = ContextBuilder(store).build(SID, budget=Budget(max_context_tokens=400),
                                        summarizer=summarizer)
    summary = built.messages[1]
    assert summary.role == "system"
    assert "[tier=far] [Summary of" in summary.content and "[tier=near] [Summary of" in summary.content
    assert "from 2026-04-27 08:30 UTC" in summary.content
    assert built.stats["summarized_records"] > 0
    assert summarizer.requests, "the summarizer must be asked"
    # the summarizer input is guard-wrapped
    assert "<user_data_" in summarizer.requests[0][1].content


def test_summaries_hit_the_cache_when_a_newer_turn_is_added(store, summarizer):
    _conversation(store, 40)
    builder = ContextBuilder(store)
    budget = Budget(max_context_tokens=3000)
    first = builder.build(SID, budget=budget, summarizer=summarizer)
    calls = len(summarizer.requests)
    assert calls == 2
    store.append_record(SID, "user", "one more short question")
    second = builder.build(SID, budget=budget, summarizer=summarizer)
    assert len(summarizer.requests) == calls, "a newer turn must not force re-summarisation"
    assert second.stats["used_cache"] is True
    prev = [(m.role, m.content) for m in first.messages]
    assert [(m.role, m.content) for m in second.messages][:len(prev)] == prev


def test_summary_cache_is_persisted_and_keyed_without_timestamps(store, summarizer):
    _conversation(store, 40)
    budget = Budget(max_context_tokens=3000)
    ContextBuilder(store).build(SID, budget=budget, summarizer=summarizer)
    assert len(store.summaries) == 2
    # same content, different times, in another session: same keys, no new summarizer calls
    for record in store.list_records(SID):
        store.append_record("s2", record.role, record.content, at=record.created_at + timedelta(days=3))
    for (sid, key), entry in list(store.summaries.items()):
        store.summaries[("s2", key)] = entry
    calls = len(summarizer.requests)
    built = ContextBuilder(store).build("s2", budget=budget, summarizer=summarizer)
    assert len(summarizer.requests) == calls
    assert built.stats["summary_cache_hits"] == 2


def test_without_summarizer_older_records_are_reported_elided(store):
    _conversation(store, 40)
    built = ContextBuilder(store).build(SID, budget=Budget(max_context_tokens=3000), summarizer=None)
    assert "[summary unavailable —" in built.messages[1].content


def test_placeholders_never_reach_the_model(store):
    store.append_record(SID, "user", "hi")
    store.append_record(SID, "assistant", "[Calling: query_sql]")
    store.append_record(SID, "assistant", "hello")
    store.append_record(SID, "user", "bye")
    built = ContextBuilder(store).build(SID, budget=Budget(), summarizer=None)
    assert all("[Calling:" not in m.content for m in built.messages)
    assert len(built.messages) == 4


def test_tool_calls_round_trip_as_native_messages(store):
    store.append_record(SID, "user", "count rows")
    store.append_record(SID, "assistant", "Let me check.", tool_calls=[
        {"id": "call_1", "name": "query_sql", "arguments": {"sql": "select count(*) from t"}}])
    store.append_record(SID, "tool", "42", tool_name="query_sql", tool_call_id="call_1",
                        status="success")
    store.append_record(SID, "assistant", "There are 42 rows.")
    built = ContextBuilder(store).build(SID, budget=Budget(), summarizer=None)
    roles = [m.role for m in built.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    call = built.messages[2].tool_calls[0]
    assert call == ToolCall(id="call_1", name="query_sql", arguments={"sql": "select count(*) from t"})
    tool = built.messages[3]
    assert tool.tool_call_id == "call_1" and tool.name == "query_sql"
    assert tool.content.startswith("[2026-04-27 08:32 UTC]\n<user_data_")


def test_tool_results_are_truncated_with_the_byte_count(store):
    store.append_record(SID, "user", "dump")
    store.append_record(SID, "tool", "y" * 10_000, tool_name="query_sql")
    built = ContextBuilder(store).build(SID, budget=Budget(max_tool_result_tokens=100), summarizer=None)
    content = built.messages[-1].content
    assert "\n... [truncated, 10000 bytes total]</user_data_" in content
    assert content.count("y") < 500


def test_time_markers_only_after_a_long_pause_and_never_first(store):
    store.append_record(SID, "user", "a", at=T0)
    store.append_record(SID, "assistant", "b", at=T0 + timedelta(minutes=10))
    store.append_record(SID, "assistant", "c", at=T0 + timedelta(minutes=50))
    built = ContextBuilder(store).build(SID, budget=Budget(), summarizer=None)
    first, second, third = built.messages[1:]
    assert first.content.startswith("[Time: ")            # own time prefix, no marker
    assert second.content == "b"
    assert third.content == "[2026-04-27 09:20 UTC]\nc"


def test_anchors_stay_verbatim_outside_summaries(store, summarizer):
    store.global_memory.add_fact("chose DuckDB over SQLite for sales analysis", "decision")
    store.append_record(SID, "user", "we chose DuckDB over SQLite for the sales analysis")
    _conversation(store, 40)
    built = ContextBuilder(store).build(
        SID, budget=Budget(max_context_tokens=3000, anchor_threshold=0.3), summarizer=summarizer)
    assert built.stats["anchored_records"] == 1
    verbatim = [m for m in built.messages[2:] if "chose DuckDB over SQLite" in m.content]
    assert verbatim and verbatim[0].role == "user"
    assert all("chose DuckDB" not in r[1].content for r in summarizer.requests)


def test_dead_topics_are_dropped_and_counted(store, summarizer):
    store.session_memory.add_fact(SID, "Weather Tokyo rainy", state="archived")
    store.append_record(SID, "user", "weather in tokyo is rainy")
    _conversation(store, 40)
    builder = ContextBuilder(store)
    budget = Budget(max_context_tokens=3000, dead_topic_threshold=0.3)
    built = builder.build(SID, budget=budget, summarizer=summarizer)
    assert built.stats["dropped_dead_topics"] == 1
    assert "[1 dead-topic turns suppressed]" in built.messages[1].content
    assert all("tokyo" not in r[1].content.lower() for r in summarizer.requests)


def test_a_new_dead_topic_forces_resummarisation(store, summarizer):
    store.append_record(SID, "user", "weather in tokyo is rainy")
    _conversation(store, 40)
    builder = ContextBuilder(store)
    budget = Budget(max_context_tokens=3000, dead_topic_threshold=0.3)
    builder.build(SID, budget=budget, summarizer=summarizer)
    calls = len(summarizer.requests)
    store.session_memory.add_fact(SID, "Weather Tokyo rainy", state="dormant")
    builder.build(SID, budget=budget, summarizer=summarizer)
    assert len(summarizer.requests) > calls


def test_budget_keeps_total_within_twice_the_limit(store, summarizer):
    _conversation(store, 60)
    built = ContextBuilder(store, base_prompt="base").build(
        SID, budget=Budget(max_context_tokens=500), summarizer=summarizer)
    assert built.stats["total_tokens"] <= 1000


def test_notes_are_appended_last_and_not_persisted(store):
    store.append_record(SID, "user", "hi")
    builder = ContextBuilder(store)
    built = builder.build(SID, budget=Budget(), summarizer=None, notes=["System note: be brief."])
    assert built.messages[-1].role == "system" and built.messages[-1].content == "System note: be brief."
    again = builder.build(SID, budget=Budget(), summarizer=None)
    assert all("be brief" not in m.content for m in again.messages)
