"""Full turns through the real analysis engine and tools, and the real memory extractor."""
from __future__ import annotations

import threading

import pandas as pd

from shell_agent_lab.agent import Agent, AgentState
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.scripted import ScriptedBackend, call


def test_load_query_and_promote_through_real_tools(tmp_path, store, settings):
    csv = tmp_path / "sales.csv"
    csv.write_text("region,amount\nnorth,10\nsouth,250\nnorth,12\n")
    settings.approval_policy = "approve"
    namespace = {"targets": pd.DataFrame({"region": ["north", "south"], "target": [20, 30]})}
    backend = ScriptedBackend([
        call("load_data", {"file_path": str(csv), "table_name": "sales"}, id="load"),
        call("query_sql", {"sql": "SELECT region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY region"},
             id="q"),
        call("promote_finding", {"content": "South sales (250) dwarf north (22)", "tags": ["high", "sales"]},
             id="f"),
        "South leads with 250."])
    agent = Agent(store=store, registry=default_registry(), events=EventBus(), settings=settings, backend=backend,
                  namespace=lambda: namespace,
                  engine_factory=lambda s: AnalysisEngine(store.session_dir(s.id) / "analysis.duckdb",
                                                          namespace=lambda: namespace, base_dir=tmp_path))
    types: list[str] = []
    agent.events.subscribe(lambda e: types.append(e.type))
    agent.open_session(None, notebook_path="sales.ipynb")
    try:
        r = agent.run("which region sells most?")
        assert r.error is None and r.text == "South leads with 250."
        assert [a.status for a in r.tool_activity] == ["success", "success", "success"]
        assert any("Approved `load_data` by policy" in a.notice for a in r.tool_activity)
        assert r.sql and "GROUP BY region" in r.sql[0]
        assert r.tables and r.tables[0]["total"].tolist() == [22, 250]
        assert [f.content for f in r.new_findings] == ["South sales (250) dwarf north (22)"]
        assert "data_updated" in types and "findings_updated" in types
        names = {t.name for t in agent.engine().tables()}
        assert {"sales", "targets"} <= names
        assert "targets" in agent.run("/data").text
    finally:
        agent.close()


def test_real_extraction_runs_before_the_queued_turn(make_agent, settings, store):
    """The point of the queue: turn N+1 sees the facts extracted from turn N."""
    settings.auto_extract = True
    started, release = threading.Event(), threading.Event()

    def extraction(messages, tools):
        started.set()
        assert release.wait(10)
        return "fact|turn-1|The sales data covers the first quarter of 2025|"

    backend = ScriptedBackend(["Noted.", extraction, "Q1 2025 it is.", "NONE"])
    agent, rec = make_agent(backend, extractor=None)
    assert agent.run("Our sales data covers the first quarter of 2025").text == "Noted."
    assert started.wait(10)
    assert agent.state == AgentState.EXTRACTING
    assert agent.send("which period is it?").phase == "queued"
    release.set()
    assert agent.wait_idle(timeout=10)
    facts = [e.fact for e in store.session_memory.list(agent.session.id)]
    assert facts == ["The sales data covers the first quarter of 2025"]
    third = backend.requests[2]
    assert "which period is it?" in third.last_user
    assert "The sales data covers the first quarter of 2025" in third.system
    assert rec.of("session_memory_updated")
    assert [e.data["success"] for e in rec.of("extraction_done")] == [True, True]


def test_schema_in_prompt_for_local_models(tmp_path, store, settings):
    namespace = {"orders": pd.DataFrame({"id": [1, 2], "city": ["Oslo", "Rome"]})}
    backend = ScriptedBackend(["a", "b"])
    agent = Agent(store=store, registry=default_registry(), events=EventBus(), settings=settings, backend=backend,
                  engine_factory=lambda s: AnalysisEngine(store.session_dir(s.id) / "analysis.duckdb",
                                                          namespace=lambda: namespace, base_dir=tmp_path))
    agent.open_session(None, notebook_path="orders.ipynb")
    try:
        agent.run("hi")
        assert "orders" not in backend.requests[0].system          # remote default: no schema
        settings.schema_in_prompt = True
        agent.run("hi again")
        system = backend.requests[1].system
        assert "orders (pandas DataFrame, 2 rows); columns:\n- id BIGINT: 1 | 2\n- city VARCHAR: Oslo | Rome" in system
    finally:
        agent.close()


def test_a_finished_background_store_refreshes_the_data_views(store, tmp_path):
    from shell_agent_lab.agent.factory import _engine_factory
    from shell_agent_lab.config import ShellAgent
    from shell_agent_lab.events import EventBus

    bus = EventBus()
    seen: list = []
    bus.subscribe(seen.append, ["data_updated"])
    session = store.create_session(title="s")
    engine = _engine_factory(store, ShellAgent(), None, tmp_path, bus)(session)
    try:
        engine._on_stored("orders")      # what the store thread calls once a table is stored
    finally:
        engine.close()
    assert [(e.type, e.session_id) for e in seen] == [("data_updated", session.id)]
