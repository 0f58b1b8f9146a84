"""Every tool that takes a table works on every kind of table: a live pandas DataFrame in the
notebook's namespace, a live polars DataFrame, and a CSV file loaded as a session table.

Real DuckDB, the real store and the tools through their descriptors; the tools that ask the
model (query_preview, quick_summary, analyze_data) get a scripted one.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pandas as pd
import pytest

from shell_agent_lab.agent._ask import tool_ask
from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings, analysis_tools
from shell_agent_lab.llm.scripted import ScriptedBackend
from shell_agent_lab.tools.registry import ToolContext, ToolResult

ROWS = [("north", 10.0, 3), ("south", 20.0, 5), ("east", 30.0, 7), ("west", 40.0, 11),
        ("north", 50.0, 13), ("south", 60.0, 17), ("east", 70.0, 19), ("west", 80.0, 23)]
KINDS = ["pandas", "polars", "loaded"]


def _frame(kind: str):
    data = {"region": [r[0] for r in ROWS], "amount": [r[1] for r in ROWS], "units": [r[2] for r in ROWS]}
    if kind == "polars":
        polars = pytest.importorskip("polars")
        return polars.DataFrame(data)
    return pd.DataFrame(data)


@pytest.fixture(params=KINDS)
def table(request, tmp_path: Path, store):
    """(kind, tools, make_ctx, engine): a table named ``sales`` of that kind."""
    kind = request.param
    namespace: dict = {}
    workdir = tmp_path / "nb"
    workdir.mkdir()
    engine = AnalysisEngine(tmp_path / "session" / "analysis.duckdb", namespace=lambda: namespace,
                            base_dir=workdir, settings=AnalysisSettings(threads=1))
    if kind == "loaded":
        csv = workdir / "sales.csv"
        csv.write_text("region,amount,units\n" + "".join(f"{r},{a},{u}\n" for r, a, u in ROWS))
        engine.load(str(csv), "sales")
    else:
        namespace["sales"] = _frame(kind)
    sid = store.create_session(title="tables").id
    tools = {d.name: d for d in analysis_tools()}

    def make_ctx(backend=None) -> ToolContext:
        cancel = threading.Event()
        return ToolContext(session_id=sid, store=store, engine=engine, ask=tool_ask(backend, cancel),
                           publish=lambda type_, data: None, cancel=cancel, tool_call_id="call-1",
                           turn_id="turn-1")

    yield kind, tools, make_ctx, engine
    engine.close()


def run(tools, tool: str, ctx: ToolContext, **args) -> ToolResult:
    out = tools[tool].handler(ctx, args)
    return out if isinstance(out, ToolResult) else ToolResult(str(out))


def test_list_tables_shows_it(table):
    kind, tools, make_ctx, _ = table
    result = run(tools, "list_tables", make_ctx())
    assert result.status == "success"
    assert "- sales:" in result.content and "8 rows" in result.content and "amount" in result.content


def test_describe_data_gives_schema_and_counts(table):
    _, tools, make_ctx, _ = table
    result = run(tools, "describe_data", make_ctx(), table_name="sales")
    assert result.status == "success"
    assert result.content.startswith("sales: ") and "8 rows, 3 columns" in result.content
    assert "- region " in result.content and "- amount " in result.content and "- units " in result.content


def test_describe_data_with_a_description_never_fails(table):
    """The small model fills the optional ``set_description`` on every call: a read must not fail
    because of it. Loaded tables keep it; for a live DataFrame it is ignored with a note."""
    kind, tools, make_ctx, engine = table
    result = run(tools, "describe_data", make_ctx(), table_name="sales", set_description="Sales by region")
    assert result.status == "success" and "8 rows, 3 columns" in result.content
    if kind == "loaded":
        assert "description: Sales by region" in result.content
        assert engine.describe("sales").description == "Sales by region"
    else:
        assert "description: Sales by region" not in result.content
        assert "not stored" in result.content and "live DataFrame" in result.content


def test_query_sql_reads_it(table):
    _, tools, make_ctx, _ = table
    result = run(tools, "query_sql", make_ctx(), sql="SELECT sum(amount) AS total, sum(units) AS u FROM sales")
    assert result.status == "success" and "total = 360.0\nu = 98" in result.content


def test_create_chart_reads_it(table):
    _, tools, make_ctx, _ = table
    result = run(tools, "create_chart", make_ctx(),
                 sql="SELECT region, sum(amount) AS total FROM sales GROUP BY region", mark="bar",
                 encoding={"x": {"field": "region", "type": "nominal"},
                           "y": {"field": "total", "type": "quantitative"}})
    assert result.status == "success" and "4 points" in result.content
    assert result.data["charts"][0]["mark"] in ("bar", {"type": "bar"}) or result.data["charts"][0]["mark"]["type"] == "bar"


def test_statistics_reads_it(table):
    _, tools, make_ctx, _ = table
    result = run(tools, "statistics", make_ctx(), test="describe", table="sales", x="amount")
    assert result.status == "success" and "describe on sales" in result.content
    assert "mean = 45" in result.content
    pearson = run(tools, "statistics", make_ctx(), test="pearson", table="sales", x="amount", y="units")
    assert "pearson on sales" in pearson.content and "n = 8" in pearson.content


def test_save_query_from_it(table):
    _, tools, make_ctx, engine = table
    result = run(tools, "save_query", make_ctx(), name="by_region",
                 sql="SELECT region, sum(amount) AS total FROM sales GROUP BY region")
    assert result.status == "success" and "Saved table by_region (4 rows, 2 columns)" in result.content
    assert engine.row_count("by_region") == 4


def test_quick_summary_and_query_preview_read_it(table):
    _, tools, make_ctx, _ = table
    backend = ScriptedBackend(["The total is 360.",
                               "```sql\nSELECT count(*) AS n FROM sales WHERE amount > 35\n```"])
    summary = run(tools, "quick_summary", make_ctx(backend), sql="SELECT sum(amount) AS total FROM sales")
    assert summary.status == "success" and summary.content == "The total is 360."
    assert "360.0" in backend.requests[0].last_user
    preview = run(tools, "query_preview", make_ctx(backend), question="how many sales above 35?")
    assert preview.status == "success" and "n = 5" in preview.content
    assert "sales" in backend.requests[1].system


def test_analyze_data_reads_it(table):
    _, tools, make_ctx, _ = table
    window = json.dumps({"summary": "Amounts rise steadily.", "new_findings": [
        {"description": "west has the largest amounts (80.0)", "severity": "info",
         "evidence": "row 8: west 80.0"}]})
    backend = ScriptedBackend(fn=lambda messages, tools: window)
    result = run(tools, "analyze_data", make_ctx(backend), prompt="what stands out?", table="sales")
    assert result.status == "success" and result.content.startswith("Analysed sales: 1 window(s)")
    assert "8 rows" in backend.requests[0].last_user or "west" in backend.requests[0].last_user
