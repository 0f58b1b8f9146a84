"""Approvals guard side effects and data leaving the machine: reads of the session's own data
run without asking while their results stay here; everything else asks as before."""
from __future__ import annotations

import types

import pytest

from shell_agent_lab.agent._destination import rows_go_to
from shell_agent_lab.llm.destination import LOOPBACK_IS_REMOTE_ENV, is_loopback_host, model_host
from shell_agent_lab.tools.approval import ApprovalDecision, ApprovalGate, destination_text, reads_session_data
from shell_agent_lab.tools.registry import ToolDescriptor

OBJ = {"type": "object", "properties": {}}


def tool(name, category="read", source="analysis", approval_default=True, dialog=None):
    return ToolDescriptor(name, name, OBJ, lambda ctx, args: "ok", category=category,
                          approval_default=approval_default, source=source, dialog=dialog)


QUERY = tool("query_sql", dialog="sql_preview")
ANALYZE = tool("analyze_data", dialog="analysis_plan")
LOAD = tool("load_data", dialog="execute")
SAVE = tool("save_query", category="write", dialog="sql_preview")
RUN_PY = tool("run_python", category="execute", source="builtin", dialog="code")
MCP = tool("mcp__files__read", source="mcp", approval_default=False)
USER_READ = tool("my_lookup", source="python")
SQL = {"sql": "SELECT smoker, avg(charges) FROM df GROUP BY 1"}


def gate(rows_go_to=None, policy="ask", connections=(), asked=None):
    g = ApprovalGate(policy=policy, approver=lambda req: (asked.append(req) if asked is not None else None)
                     or ApprovalDecision(True))
    g.rows_go_to = rows_go_to
    g.connections = frozenset(connections)
    return g


def test_reads_of_session_data_run_without_asking_when_rows_stay_here():
    asked: list = []
    g = gate(None, asked=asked)
    for d, args in ((QUERY, SQL), (ANALYZE, {"prompt": "outliers", "table": "df"})):
        assert not g.required(d, args)
        assert g.check(d, args).approved
    assert asked == []


@pytest.mark.parametrize("descriptor", [LOAD, SAVE, RUN_PY, MCP, USER_READ])
def test_files_code_writes_mcp_and_user_tools_still_ask_with_a_local_model(descriptor):
    asked: list = []
    g = gate(None, asked=asked)
    g.check(descriptor, {"sql": "SELECT 1"})
    assert [r.tool_name for r in asked] == [descriptor.name]
    assert asked[0].destination == ""


def test_a_read_asks_and_names_the_host_when_rows_go_to_a_remote_model():
    asked: list = []
    g = gate("api.openai.com", asked=asked)
    assert g.check(QUERY, SQL).approved
    assert asked[0].destination == "api.openai.com"
    assert "api.openai.com" in destination_text(asked[0]) and "off this machine" in destination_text(asked[0])


def test_a_read_that_names_a_connection_asks_even_with_a_local_model():
    g = gate(None, connections={"pg"})
    assert g.required(QUERY, {"sql": "SELECT count(*) FROM pg.sales"})
    assert g.required(QUERY, {"sql": 'SELECT count(*) FROM "pg"."sales"'})
    assert not g.required(QUERY, {"sql": "SELECT count(*) FROM pgsales"})
    assert not g.required(QUERY, {"sql": "SELECT count(*) FROM sales"})


def test_ask_all_restores_asking_for_every_read_and_overrides_still_win():
    g = gate(None, policy="ask_all")
    assert g.required(QUERY, SQL) and g.required(ANALYZE, {})
    g = gate(None)
    g.overrides = {"query_sql": True}
    assert g.required(QUERY, SQL)
    g = gate("api.openai.com")
    g.overrides = {"query_sql": False}
    assert not g.required(QUERY, SQL)


def test_until_the_agent_says_where_rows_go_reads_ask():
    assert ApprovalGate().required(QUERY, SQL)


def test_which_tools_read_session_data():
    assert reads_session_data(QUERY) and reads_session_data(ANALYZE)
    assert not any(reads_session_data(d) for d in (LOAD, SAVE, RUN_PY, MCP, USER_READ))


@pytest.mark.parametrize("host,loopback", [
    ("localhost", True), ("127.0.0.1", True), ("127.8.9.1", True), ("::1", True), ("[::1]", True),
    ("192.0.2.2", False), ("api.openai.com", False), ("localhost.example.com", False), ("", False)])
def test_loopback_hosts(host, loopback):
    assert is_loopback_host(host) is loopback


def backend(name, **attrs):
    return types.SimpleNamespace(name=name, **attrs)


def test_model_host_by_backend():
    assert model_host(backend("local"), env={}) is None
    assert model_host(backend("openai", base_url="http://127.0.0.1:1234/v1"), env={}) is None
    assert model_host(backend("openai", base_url="http://localhost:11434/v1"), env={}) is None
    assert model_host(backend("openai", base_url="https://api.openai.com/v1"), env={}) == "api.openai.com"
    assert model_host(backend("openai", base_url="http://10.0.0.5:8000/v1"), env={}) == "10.0.0.5"
    assert model_host(backend("gemini", where="the Gemini API"), env={}) == "generativelanguage.googleapis.com"
    assert model_host(backend("vertex", where="Vertex AI (p/us-central1)"), env={}) == "aiplatform.googleapis.com"
    assert model_host(backend("scripted"), env={}) == "the scripted model"     # unknown: not here
    loopback_remote = {LOOPBACK_IS_REMOTE_ENV: "1"}
    assert model_host(backend("openai", base_url="http://127.0.0.1:1234/v1"), env=loopback_remote) == "127.0.0.1"


def test_data_sharing_levels_other_than_rows_keep_rows_here(monkeypatch):
    monkeypatch.delenv(LOOPBACK_IS_REMOTE_ENV, raising=False)
    remote = backend("openai", base_url="https://api.openai.com/v1")
    assert rows_go_to(remote, types.SimpleNamespace()) == "api.openai.com"          # unset → rows
    assert rows_go_to(remote, types.SimpleNamespace(data_sharing=None)) == "api.openai.com"
    assert rows_go_to(remote, types.SimpleNamespace(data_sharing="rows")) == "api.openai.com"
    assert rows_go_to(remote, types.SimpleNamespace(data_sharing="aggregates")) is None
    assert rows_go_to(remote, types.SimpleNamespace(data_sharing="schema")) is None
    assert rows_go_to(backend("local"), types.SimpleNamespace(data_sharing="rows")) is None


def test_the_approval_widget_says_where_the_rows_go():
    from shell_agent_lab.notebook._approval_widget import ApprovalWidget

    asked: list = []
    gate("api.openai.com", asked=asked).check(QUERY, SQL)
    widget = ApprovalWidget(asked[0], lambda *a: None)
    assert "api.openai.com" in widget.header.value and "off this machine" in widget.header.value
    asked.clear()
    gate("api.openai.com", asked=asked).check(SAVE, SQL)          # a write: no rows leave by reading
    assert "off this machine" not in ApprovalWidget(asked[0], lambda *a: None).header.value
