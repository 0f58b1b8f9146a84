"""Connections named in the settings or a profile, through the agent and its slash commands,
against the real PostgreSQL server; the password comes from the environment."""
from __future__ import annotations

import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.agent.commands import run_command
from shell_agent_lab.analysis.engine import AnalysisEngine
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.scripted import ScriptedBackend

pytestmark = [pytest.mark.engines, pytest.mark.timeout(120)]


@pytest.fixture
def agent(store, tmp_path, pg_server, monkeypatch):
    monkeypatch.setenv("WAREHOUSE_PW", pg_server.analyst_password)
    url = f"postgresql://analyst:${{WAREHOUSE_PW}}@127.0.0.1:{pg_server.port}/warehouse"
    settings = ShellAgent(auto_extract=False, auto_title=False, connections={"pg": url},
                          profiles={"work": {"backend": "scripted", "connections": {"wh": url}}})
    made = Agent(store=store, settings=settings, backend=ScriptedBackend(["ok"]),
                 engine_factory=lambda session: AnalysisEngine(tmp_path / f"{session.id}.duckdb"))
    made.open_session(notebook_path=str(tmp_path / "n.ipynb"))
    yield made
    made.close()


def test_configured_connections_are_there_and_disconnect_sticks(agent, pg_server):
    names = {t.name for t in agent.engine().tables()}
    assert "pg.sales" in names and "wh.sales" not in names
    listed = run_command(agent, "/connect")
    assert listed.error is None and "`pg` (postgresql, `postgresql://analyst:***@127.0.0.1" in listed.text
    assert pg_server.analyst_password not in listed.text
    assert run_command(agent, "/disconnect pg").error is None
    assert agent.engine() is agent._engines.get(agent.session)       # no connection: the plain engine
    assert "pg" not in agent.connections.names()
    assert run_command(agent, "/disconnect pg").error.startswith("/disconnect: no connection named 'pg'")


def test_a_profile_adds_its_connections(agent):
    agent.store.set_session_profile(agent.session.id, "work")
    agent.refresh_session()
    assert {"pg", "wh"} <= set(agent.connections.names()) | {n.split(".")[0] for n in
                                                             (t.name for t in agent.engine().tables())}
    assert agent.engine().query("SELECT count(*) AS n FROM wh.sales").rows == [(5_000,)]


def test_a_bad_connection_is_refused_with_one_line_and_not_kept(agent):
    result = run_command(agent, "/connect nope postgresql://analyst:pw@127.0.0.1:1/none")
    assert result.error.startswith("/connect: cannot connect to nope (postgresql://analyst:***@127.0.0.1:1/none)")
    assert "nope" not in agent.connections.names()
    assert "/connect:" in run_command(agent, "/connect x ftp://h/y").error


def test_the_panel_data_list_shows_connections_redacted_and_valid(agent, pg_server):
    from types import SimpleNamespace

    from protocol.conftest import assert_valid
    from shell_agent_lab.notebook._panel_ops import _data_list

    result = _data_list(SimpleNamespace(agent=agent), {})
    assert_valid("#/ops/data_list/result", result)
    assert result["connections"][0]["name"] == "pg" and "sales" in result["connections"][0]["tables"]
    assert "***" in result["connections"][0]["url"] and pg_server.analyst_password not in str(result)
    assert {"name": "pg.sales", "kind": "table"}.items() <= next(t for t in result["tables"]
                                                                 if t["name"] == "pg.sales").items()
