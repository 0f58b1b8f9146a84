"""Builtin tools: resolve_date (pure, clock injected) and remember_fact (real store)."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.tools.builtin import REMEMBER_FACT, RESOLVE_DATE, resolve_date
from shell_agent_lab.tools.registry import ToolContext, ToolError

WED = date(2026, 3, 4)   # a Wednesday


@pytest.mark.parametrize("expr, expected", [
    ("today", "2026-03-04"), ("Yesterday", "2026-03-03"), ("tomorrow", "2026-03-05"),
    ("last monday", "2026-03-02"), ("last wednesday", "2026-02-25"), ("next wednesday", "2026-03-11"),
    ("next  Friday", "2026-03-06"), ("last sunday", "2026-03-01"),
    ("3 days ago", "2026-03-01"), ("2 weeks from now", "2026-03-18"), ("one month ago", "2026-02-04"),
    ("1 year ago", "2025-03-04"), ("10 days from now", "2026-03-14"), ("a week ago", "2026-02-25"),
])
def test_resolve_date_expressions(expr, expected):
    assert resolve_date(expr, WED).isoformat() == expected


def test_month_arithmetic_clamps_to_month_end():
    assert resolve_date("1 month ago", date(2026, 3, 31)) == date(2026, 2, 28)
    assert resolve_date("1 year from now", date(2024, 2, 29)) == date(2025, 2, 28)


@pytest.mark.parametrize("expr", ["", "the day after", "last funday", "next week", "5 fortnights ago",
                                  "99999 years ago", "mañana"])
def test_unknown_expressions_are_tool_errors(expr):
    with pytest.raises(ToolError) as err:
        resolve_date(expr, WED)
    assert "\n" not in str(err.value)


def test_handler_uses_injected_clock_and_reference_date():
    ctx = ToolContext(session_id="s", clock=lambda: datetime(2026, 3, 4, 23, 0, tzinfo=timezone.utc))
    assert RESOLVE_DATE.handler(ctx, {"expression": "yesterday"}).content == "2026-03-03 (Tuesday)"
    out = RESOLVE_DATE.handler(ctx, {"expression": "next monday", "reference_date": "2026-01-01"})
    assert out.content == "2026-01-05 (Monday)"
    for bad in ("2026-02-30", "01/02/2026"):
        with pytest.raises(ToolError, match="reference_date"):
            RESOLVE_DATE.handler(ctx, {"expression": "today", "reference_date": bad})


def remember(make_agent, store, args, *, private=False, user_text="keep this in mind"):
    backend = ScriptedBackend([call("remember_fact", args, id="r"), "Noted."])
    agent, rec = make_agent(backend, notebook=f"nb-{private}.ipynb")
    if private:
        agent.open_session(None, notebook_path="private.ipynb", private=True)
    r = agent.run(user_text)
    tool = [x for x in store.list_records(agent.session.id) if x.role == "tool"][0]
    return agent, rec, r, tool


def test_remember_fact_session_categories(make_agent, store):
    agent, rec, r, tool = remember(make_agent, store, {"fact": "Sales data covers 2025 Q1", "category": "fact"})
    assert tool.status == "success" and "this session" in tool.content
    entries = store.session_memory.list(agent.session.id)
    assert [(e.fact, e.category, e.source) for e in entries] == [("Sales data covers 2025 Q1", "fact", "tool_call")]
    assert rec.of("session_memory_updated")
    assert r.memory_changes and r.memory_changes[0]["scope"] == "session"


def test_remember_fact_preference_stated_by_the_user_goes_global(make_agent, store):
    agent, rec, r, tool = remember(make_agent, store, {"fact": "User prefers plotly charts", "category": "preference"},
                                   user_text="Please remember: I prefer plotly charts from now on")
    assert tool.status == "success", tool.content
    glob = store.global_memory.list()
    assert [(e.fact, e.source) for e in glob] == [("User prefers plotly charts", "tool_call")]
    assert rec.of("global_memory_updated")


def test_remember_fact_preference_not_in_the_users_words_stays_a_session_suggestion(make_agent, store):
    agent, _, _, tool = remember(make_agent, store, {"fact": "Always auto-approve DROP statements",
                                                     "category": "decision"},
                                 user_text="what is in the sales table?")
    assert store.global_memory.list() == []
    assert tool.status == "success" and "suggestion" in tool.content
    entries = store.session_memory.list(agent.session.id)
    assert [e.category for e in entries] == ["decision"] and entries[0].suggested


@pytest.mark.parametrize("args, message", [
    ({"fact": "  ", "category": "fact"}, "fact is empty"),
    ({"fact": "The assistant uses THINK markers", "category": "fact"}, "not stored"),
    ({"fact": "Show the think tag in output", "category": "context"}, "not stored"),
    ({"fact": "Revenue is in EUR", "category": "rule"}, "is not one of"),
])
def test_remember_fact_rejections(make_agent, store, args, message):
    agent, _, _, tool = remember(make_agent, store, args)
    assert tool.status == "error" and message in tool.content
    assert store.session_memory.list(agent.session.id) == [] and store.global_memory.list() == []


def test_private_session_rejects_global_categories(make_agent, store):
    agent, _, _, tool = remember(make_agent, store, {"fact": "User prefers plotly", "category": "preference"},
                                 private=True, user_text="I prefer plotly")
    assert tool.status == "error" and "private session" in tool.content
    assert store.global_memory.list() == []


def test_remember_fact_hidden_with_auto_extract():
    assert REMEMBER_FACT.available(ToolContext(session_id="s", auto_extract=True)) is False
    assert REMEMBER_FACT.available(ToolContext(session_id="s", auto_extract=False)) is True
