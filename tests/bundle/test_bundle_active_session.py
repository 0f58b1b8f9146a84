"""Exporting the session a real agent has open: its engine is closed, the file copied, the engine
reopened — and what the engine loaded is in the bundle."""
from __future__ import annotations

from shell_agent_lab.agent.factory import build_agent
from shell_agent_lab.bundle import export_active_session, import_session
from shell_agent_lab.llm.scripted import ScriptedBackend


def test_active_session_export_with_a_real_agent_and_engine(store, fresh_store, tmp_path):
    csv = tmp_path / "sales.csv"
    csv.write_text("region,week,revenue\n" + "".join(f"R{i % 5},{i % 52},{i * 1.5}\n" for i in range(2000)))
    agent = build_agent(store=store, backend=ScriptedBackend(), base_dir=tmp_path)
    try:
        session = agent.open_session(notebook_path=str(tmp_path / "sales.ipynb"))
        engine = agent.engine()
        engine.load(str(csv), "sales")
        assert engine.query("SELECT count(*) FROM sales").rows == [(2000,)]

        agent.wait_idle()
        result = export_active_session(store, session.id, tmp_path,
                                       close_engine=engine.close,
                                       reopen_engine=lambda: agent.open_session(session.id))
        assert result.has_analysis_db
        # the notebook keeps working on a fresh engine
        again = agent.engine()
        assert again is not engine
        assert again.query("SELECT sum(revenue) FROM sales").rows[0][0] == sum(i * 1.5 for i in range(2000))
    finally:
        agent.close()

    imported = import_session(fresh_store, result.path)
    assert imported.tables == ["sales"]
    from shell_agent_lab.analysis import AnalysisEngine

    copy = AnalysisEngine(fresh_store.session_dir(imported.session.id) / "analysis.duckdb")
    try:
        assert copy.query("SELECT count(*), count(DISTINCT region) FROM sales").rows == [(2000, 5)]
    finally:
        copy.close()
