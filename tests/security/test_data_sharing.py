"""What leaves the machine, checked the way a reviewer would: plant canaries, grep every request.

A recording OpenAI-compatible server on 127.0.0.1 stands in for a remote provider (the profile's
``treat_as_remote`` test setting makes it count as one). The real Agent, AnalysisEngine (DuckDB),
store, context builder and openai SDK run scripted turns that call every tool that reads data:
list and describe, queries listing rows and aggregating them, statistics, a chart, a summary and
an analysis that ask the model themselves, read_notebook of a cell that showed the canary, and a
user tool that returns rows without saying what they are; memory extraction and titles are on.

At "schema" no canary and no row value appears in any request body; at "aggregates" no row-level
value does, while the sum over the canary column does; at "rows" they all do (so the test can
fail). The user sees every result either way.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.selection import select_backend
from shell_agent_lab.sharing import effective_sharing, leaves_machine
from shell_agent_lab.store import Store
from shell_agent_lab.tools.registry import ToolDescriptor, ToolResult
from tests.support.fake_model_servers import call
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(180)

TEXT_CANARY = "CANARY-7f3a"
NUMBER_CANARY = "987654.321"
CSV_TEXT_CANARY = "CANARY-CSV-9b2e"
CSV_NUMBER_CANARY = "123456.789"
#: other row values (names and amounts of single customers)
ROW_VALUES = ("Zorblatt Quince", "Yselda Marrow", "4321.0987", "Xanthe Pell")
#: the customers' cities, each shared by several rows (a category, not a record)
CITIES = ("Tromsoville", "Bergenholt")
AMOUNTS = [987654.321, 4321.0987, 111.25, 222.5, 333.75, 444.0]
SUM_OF_AMOUNTS = sum(AMOUNTS)           # 993_086.9197


def _customers() -> pd.DataFrame:
    return pd.DataFrame({
        "name": [TEXT_CANARY, "Zorblatt Quince", "Yselda Marrow", "Xanthe Pell", "Wim Ode", "Vera Lunt"],
        "amount": AMOUNTS,
        "city": [CITIES[0], CITIES[0], CITIES[0], CITIES[1], CITIES[1], CITIES[1]],
    })


def _write_orders(path: Path) -> Path:
    path.write_text("order_ref,total,region\n"
                    f"{CSV_TEXT_CANARY},{CSV_NUMBER_CANARY},north\n"
                    "ORD-2,10.5,north\nORD-3,20.25,south\nORD-4,30.75,south\n", encoding="utf-8")
    return path


# --- the scripted provider --------------------------------------------------------------------

def _plan(orders: Path) -> dict[str, list[dict[str, Any]]]:
    """The calls the "model" makes for each question (keyed by a word of the question)."""
    return {
        "load": [call("load_data", {"file_path": str(orders), "table_name": "orders"}, id="load-1"),
                 call("list_tables", {}, id="list-1"),
                 call("describe_data", {"table_name": "customers"}, id="describe-1"),
                 call("describe_data", {"table_name": "orders"}, id="describe-2")],
        "rows": [call("query_sql", {"sql": "SELECT * FROM customers"}, id="rows-1"),
                 call("query_sql", {"sql": "SELECT name, amount FROM customers WHERE amount > 900000"},
                      id="rows-2"),
                 call("query_sql", {"sql": "SELECT order_ref, total FROM orders"}, id="rows-3")],
        "totals": [call("query_sql", {"sql": "SELECT SUM(amount) AS total_amount, COUNT(*) AS n "
                                             "FROM customers"}, id="agg-1"),
                   call("query_sql", {"sql": "SELECT city, SUM(amount) AS spend FROM customers "
                                             "GROUP BY city ORDER BY city"}, id="agg-2"),
                   call("query_sql", {"sql": "SELECT SUM(total) AS order_total FROM orders"}, id="agg-3")],
        "statistics": [call("statistics", {"test": "describe", "table": "customers", "x": "amount"}, id="stat-1"),
                       call("statistics", {"test": "iqr_outliers", "table": "customers", "x": "amount"},
                            id="stat-2")],
        "chart": [call("create_chart", {"sql": "SELECT name, amount FROM customers", "mark": "bar",
                                        "encoding": {"x": {"field": "name", "type": "nominal"},
                                                     "y": {"field": "amount", "type": "quantitative"}}},
                       id="chart-1")],
        "summarise": [call("quick_summary", {"sql": "SELECT * FROM customers"}, id="summary-1"),
                      call("analyze_data", {"prompt": "unusual customers", "table": "customers"},
                           id="analyze-1")],
        "notebook": [call("read_notebook", {}, id="notebook-1")],
        "peek": [call("peek_customers", {}, id="peek-1")],
    }


# --- the session --------------------------------------------------------------------------------

def _peek_tool() -> ToolDescriptor:
    """A user tool that returns rows and says nothing about what its result holds."""
    def handler(ctx: Any, args: dict[str, Any]) -> ToolResult:
        return ToolResult(_customers().to_string())
    return ToolDescriptor("peek_customers", "Show some customers.", {"type": "object", "properties": {}},
                          handler, source="python")


QUESTIONS = ("Please load the orders file and look at the customers data.",
             "Show me the rows of customers and orders.",
             "What are the totals of spend?",
             "Run the statistics on amount.",
             "Draw a chart of amount per customer.",
             "Summarise the customers for me.",
             "What did my notebook show?",
             "Peek at the customers.")


def _run_session(tmp_path: Path, level: str | None) -> tuple[ScriptedProvider, list[Any], list[Any], Agent]:
    orders = _write_orders(tmp_path / "orders.csv")
    customers = _customers()
    # the kernel's history: a cell that showed the DataFrame (read_notebook reads In/Out)
    namespace: dict[str, Any] = {"customers": customers, "In": ["", "customers"], "Out": {1: customers}}
    server = ScriptedProvider(_plan(orders)).start()
    profile: dict[str, Any] = {"backend": "openai", "endpoint": server.url, "model": "fake-model",
                               "treat_as_remote": True}
    settings = ShellAgent(profiles={"remote": profile}, profile="remote", auto_extract=True,
                          auto_title=True, approval_policy="approve", tool_set="full",
                          schema_in_prompt=True, data_sharing=level)
    store = Store.open(tmp_path / "store")
    registry = default_registry()
    registry.register(_peek_tool())
    events = EventBus()
    seen: list[Any] = []
    events.subscribe(seen.append)
    agent = Agent(store=store, registry=registry, events=events, settings=settings,
                  backend_factory=lambda name: select_backend(settings, name, env={"OPENAI_API_KEY": "sk-test"}),
                  namespace=lambda: namespace,
                  engine_factory=lambda session: AnalysisEngine(store.session_dir(session.id) / "analysis.duckdb",
                                                                namespace=lambda: namespace, base_dir=tmp_path))
    agent.open_session(None, notebook_path=str(tmp_path / "analysis.ipynb"))
    replies = []
    for question in QUESTIONS:
        reply = agent.run(question)
        assert reply.error is None, reply.error
        replies.append(reply)
        assert agent.wait_idle(timeout=30)      # title and extraction have run (and were sent)
    return server, replies, seen, agent


def _sent(server: ScriptedProvider) -> str:
    """Every request body the provider received, as one text (JSON, unescaped)."""
    return "\n".join(json.dumps(r.json, ensure_ascii=False) for r in server.requests if r.json is not None)


def _user_sees(replies: list[Any]) -> str:
    parts = []
    for reply in replies:
        parts.append(reply.text or "")
        parts += [t.to_string() for t in reply.tables]
    return "\n".join(parts)


def _sum_shown(text: str) -> bool:
    return bool(re.search(r"993,?086\.9", text))


@pytest.fixture(params=["schema", "aggregates", "rows"])
def session(request, tmp_path):
    server, replies, events, agent = _run_session(tmp_path, request.param)
    yield request.param, server, replies, events, agent
    agent.abort()
    agent.wait_idle(timeout=10)
    agent.close()
    server.stop()


def test_what_each_level_lets_out(session):
    level, server, replies, events, agent = session
    sent = _sent(server)
    # every scripted question ran its tools, and titles and extraction went out too
    calls = [a.name for r in replies for a in r.tool_activity]
    assert {"load_data", "list_tables", "describe_data", "query_sql", "statistics", "create_chart",
            "quick_summary", "analyze_data", "read_notebook", "peek_customers"} <= set(calls)
    assert "Write a short title" in sent
    # the user sees every result, whatever the level
    shown = _user_sees(replies)
    for value in (TEXT_CANARY, CSV_TEXT_CANARY, "Zorblatt Quince"):
        assert value in shown, value
    assert _sum_shown(shown)
    if level == "rows":
        for value in (TEXT_CANARY, NUMBER_CANARY, CSV_TEXT_CANARY, CSV_NUMBER_CANARY, *ROW_VALUES):
            assert value in sent, f"{value} should reach the model at rows"
        return
    for value in (TEXT_CANARY, NUMBER_CANARY, CSV_TEXT_CANARY, CSV_NUMBER_CANARY, *ROW_VALUES):
        assert value not in sent, f"{value} reached the model at {level}"
    # names and types always go
    for name in ("customers", "orders", "amount", "order_ref", "DOUBLE"):
        assert name in sent
    if level == "aggregates":
        assert _sum_shown(sent), "the sum over the canary column should reach the model"
        assert all(city in sent for city in CITIES), "a group-by over a category should reach the model"
    else:
        assert not _sum_shown(sent)
        for city in CITIES:
            assert city not in sent, f"{city} reached the model at schema"
        # the answer the user reads is composed from the results
        totals = replies[QUESTIONS.index("What are the totals of spend?")]
        assert _sum_shown(totals.text)


def test_the_first_request_says_where_data_goes(session):
    level, server, replies, events, agent = session
    notices = [e for e in events if e.type == "data_sharing"]
    assert len(notices) == 1, "said once per session"
    assert notices[0].data["level"] == level and notices[0].data["destination"] == "127.0.0.1"
    status = agent.data_sharing_status()
    assert status["level"] == level and status["remote"] is True
    from shell_agent_lab.agent.commands import run_command
    out = run_command(agent, "/status")
    assert f"Data sharing: **{level}**" in out.text


def test_defaults_by_endpoint():
    settings = ShellAgent()
    local = {"backend": "openai", "endpoint": "http://127.0.0.2:8080/v1"}
    assert not leaves_machine(local) and effective_sharing(settings, local) == "rows"
    assert not leaves_machine({"backend": "openai", "endpoint": "http://[::1]:1234/v1"})
    assert not leaves_machine({"backend": "local"})
    remote = {"backend": "openai", "endpoint": "https://llm.example.com/v1"}
    assert leaves_machine(remote) and effective_sharing(settings, remote) == "aggregates"
    assert leaves_machine({"backend": "gemini"})
    assert effective_sharing(settings, {**local, "treat_as_remote": True}) == "aggregates"
    # a level set explicitly always applies, whatever the endpoint
    assert effective_sharing(ShellAgent(data_sharing="schema"), local) == "schema"
    assert effective_sharing(ShellAgent(data_sharing="rows"), remote) == "rows"
    assert effective_sharing(settings, {**remote, "data_sharing": "rows"}) == "rows"
    assert effective_sharing(settings, {"backend": "local"}, env={"SHELL_AGENT_LAB_TREAT_AS_REMOTE": "1"}) \
        == "aggregates"
