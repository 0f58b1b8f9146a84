"""The analysis tools through their descriptors, with a real store and a scripted model."""
from __future__ import annotations

import json
import threading

import pandas as pd
import pytest

from shell_agent_lab.agent._ask import tool_ask
from shell_agent_lab.llm.scripted import ScriptedBackend
from shell_agent_lab.tools.registry import ToolError, ToolResult


def run(tools, tool, ctx, **args) -> ToolResult:
    result = tools[tool].handler(ctx, args)
    return result if isinstance(result, ToolResult) else ToolResult(result)


def test_descriptor_defaults_follow_the_reference(tools):
    expected = {
        "query_sql": ("read", True, "sql_preview"), "load_data": ("read", True, "execute"),
        "reset_analysis": ("write", True, "execute"), "save_query": ("write", True, "sql_preview"),
        "analyze_data": ("read", True, "analysis_plan"), "promote_finding": ("write", True, None),
        "list_tables": ("read", False, None), "describe_data": ("read", False, None),
        "query_preview": ("read", False, None), "quick_summary": ("read", False, None),
        "suggest_analysis": ("read", False, None), "create_report": ("read", False, None),
        "analyze_text": ("read", False, None), "grep_text": ("read", False, None),
        "get_text": ("read", False, None), "create_chart": ("read", False, None),
        "list_objects": ("read", False, None), "get_object": ("read", False, None),
        "statistics": ("read", False, None), "operation": ("read", False, None),
    }
    assert {n: (d.category, d.approval_default, d.dialog) for n, d in tools.items()} == expected
    for descriptor in tools.values():
        assert descriptor.parameters["type"] == "object"
        assert set(descriptor.parameters["required"]) <= set(descriptor.parameters["properties"])


def test_query_sql_returns_text_sql_and_a_dataframe(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    sql = "SELECT region, count(*) AS n FROM sales GROUP BY region ORDER BY region"
    result = run(tools, "query_sql", make_ctx(), sql=sql)
    assert "| east | 50 |" in result.content and "(4 rows)" in result.content
    assert result.data["sql"] == [sql]
    frame = result.data["tables"][0]
    assert isinstance(frame, pd.DataFrame) and frame["n"].tolist() == [50, 50, 50, 50]


def test_rejected_sql_is_a_tool_error(tools, make_ctx):
    with pytest.raises(ToolError, match="read_csv"):
        run(tools, "query_sql", make_ctx(), sql="SELECT * FROM read_csv('/etc/passwd')")


def test_load_data_relative_path_progress_and_event(tools, make_ctx, events, sales_csv):
    result = run(tools, "load_data", make_ctx(), file_path="sales.csv", table_name="sales")
    assert "Loaded 200 rows into table sales" in result.content
    progress = [d for t, d in events if t == "tool_progress"]
    assert progress[0]["detail"].startswith("loading sales.csv") and progress[0]["total"] == sales_csv.stat().st_size
    assert progress[-1]["detail"] == "loaded 200 rows into sales"
    assert ("data_updated", {}) in events


def test_list_and_describe(tools, make_ctx, engine, namespace, sales_csv):
    namespace["df"] = pd.DataFrame({"x": [1.5, 2.5]})
    engine.load(str(sales_csv), "sales")
    listing = run(tools, "list_tables", make_ctx()).content
    assert "- sales: table, 200 rows" in listing and "- df: DataFrame (pandas), 2 rows" in listing
    assert "x DOUBLE" in listing and "sample: x: 1.5, 2.5" in listing
    assert "sample: region: north, south, east; day: 2024-01-01, 2024-01-02, 2024-01-03" in listing
    described = run(tools, "describe_data", make_ctx(), table_name="sales", set_description="daily sales").content
    assert "description: daily sales" in described and "- amount DOUBLE" in described
    assert "- region VARCHAR (e.g. north, south, east; 0 null, ~4 distinct)" in described
    with pytest.raises(ToolError, match="unknown table"):
        run(tools, "describe_data", make_ctx(), table_name="missing")


def test_save_query_and_collision(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    ok = run(tools, "save_query", make_ctx(), sql="SELECT * FROM sales WHERE amount > 50", name="big")
    assert ok.content.startswith("Saved table big")
    with pytest.raises(ToolError, match="big_v2, big_filtered, big_derived"):
        run(tools, "save_query", make_ctx(), sql="SELECT 1", name="big")


def test_reset_analysis_drops_tables(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    assert "Dropped 1 table(s): sales" in run(tools, "reset_analysis", make_ctx()).content
    assert engine.tables() == []


def test_query_preview_runs_the_models_sql(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    backend = ScriptedBackend(["```sql\nSELECT count(*) AS n FROM sales\n```"])
    result = run(tools, "query_preview", make_ctx(backend), question="how many rows?")
    assert "n = 200" in result.content and result.data["sql"] == ["SELECT count(*) AS n FROM sales"]
    assert "sales (table, 200 rows)" in backend.last_request.system


def test_query_preview_cannot_escape_the_gate(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    backend = ScriptedBackend(["SELECT * FROM read_text('/etc/passwd')"])
    with pytest.raises(ToolError, match="read_text"):
        run(tools, "query_preview", make_ctx(backend), question="show the password file")


def test_quick_summary_wraps_the_data(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    backend = ScriptedBackend(["Four regions, 50 rows each."])
    ctx = make_ctx(backend, wrap=lambda text: f"<user_data_x>{text}</user_data_x>")
    result = run(tools, "quick_summary", ctx, sql="SELECT region, count(*) FROM sales GROUP BY 1")
    assert result.content == "Four regions, 50 rows each."
    assert backend.last_request.last_user.startswith("<user_data_x>|")


def test_promote_finding_needs_data_and_reports_duplicates(tools, make_ctx, engine, store, session_id, sales_csv, events):
    with pytest.raises(ToolError, match="load a file"):
        run(tools, "promote_finding", make_ctx(), content="East sales doubled in March")
    engine.load(str(sales_csv), "sales")
    first = run(tools, "promote_finding", make_ctx(), content="East sales doubled in March", tags=["high", "sales"])
    assert first.content.startswith("Finding recorded as f-")
    again = run(tools, "promote_finding", make_ctx(), content="east sales doubled in march!")
    assert again.content.startswith("Finding already recorded (matches an existing observation)")
    findings = store.findings.list(session_id)
    assert len(findings) == 1 and findings[0].source == "llm_promoted" and findings[0].tool_originated
    assert ("findings_updated", {}) in events


def test_create_report_is_stored_as_a_report_object(tools, make_ctx, store, session_id):
    result = run(tools, "create_report", make_ctx(), title="Q1", content="# Q1\n<script>x</script> done")
    report = result.data["report"]
    meta, data = store.objects.get(report["id"])
    assert (meta.type, meta.mime_type, meta.name, meta.session_id) == ("report", "text/markdown", "Q1", session_id)
    assert data.decode() == "# Q1\n&lt;script>x&lt;/script> done"
    assert "do not restate" in result.content


def test_create_chart_inlines_data(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    result = run(tools, "create_chart", make_ctx(), sql="SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1",
                 mark="bar", encoding={"x": {"field": "region", "type": "nominal"},
                                       "y": {"field": "total", "type": "quantitative"}}, title="Totals")
    spec = result.data["charts"][0]
    assert spec["$schema"].endswith("/vega-lite/v5.json") and spec["title"] == "Totals"
    assert [v["region"] for v in spec["data"]["values"]] == ["east", "north", "south", "west"]
    assert json.loads(json.dumps(spec)) == spec
    with pytest.raises(ToolError, match="not a column"):
        run(tools, "create_chart", make_ctx(), sql="SELECT 1 AS a", mark="bar", encoding={"x": {"field": "b"}})
    as_text = run(tools, "create_chart", make_ctx(), sql="SELECT 1 AS a", mark="bar",
                  encoding='{"x": {"field": "a", "type": "nominal"}}')
    assert as_text.data["charts"][0]["encoding"] == {"x": {"field": "a", "type": "nominal"}}


def test_analyze_data_windows_findings_report_and_progress(tools, make_ctx, engine, store, session_id, events, sales_csv):
    engine.load(str(sales_csv), "sales")   # 200 rows -> windows at 0, 90, 180
    answers = iter([
        {"summary": "first", "new_findings": [{"description": "Row 7 has amount 99.5", "severity": "high", "evidence": "row 7"}]},
        {"summary": "second", "new_findings": []},
        {"summary": "final view", "new_findings": [{"description": "West is flat all month", "severity": "low", "evidence": ""}]},
    ])
    backend = ScriptedBackend(fn=lambda messages, tools_: "```json\n" + json.dumps(next(answers)) + "\n```")
    ctx = make_ctx(backend, wrap=lambda text: f"<user_data_t>{text}</user_data_t>")
    result = run(tools, "analyze_data", ctx, prompt="find outliers", table="sales")
    assert len(backend.requests) == 3
    windows = [json.loads(r.last_user.split("<user_data_t>")[1].split("</user_data_t>")[0]) for r in backend.requests]
    assert [(w[0]["_row"], w[-1]["_row"]) for w in windows] == [(1, 100), (91, 190), (181, 200)]
    assert "Running summary so far: first" in backend.requests[1].last_user
    progress = [d["detail"] for t, d in events if t == "tool_progress"]
    assert progress == ["window 1/3", "window 2/3", "window 3/3"]
    findings = store.findings.list(session_id)
    assert sorted(f.content for f in findings) == ["Row 7 has amount 99.5 (evidence: row 7)", "West is flat all month"]
    assert all(f.source == "analyze_data" and f.tool_originated for f in findings)
    assert sorted(tuple(f.tags) for f in findings) == [("high", "sales"), ("low", "sales")]
    report = result.data["report"]["content"]
    assert "## Summary" in report and "final view" in report and "### High (1)" in report
    assert len(result.data["findings"]) == 2


def test_analyze_data_refuses_tables_over_the_analyze_cap(tools, make_engine, store, session_id):
    from shell_agent_lab.analysis import AnalysisSettings
    from shell_agent_lab.tools.registry import ToolContext

    small = make_engine(AnalysisSettings(threads=1, max_analyze_rows=50), memory=True,
                        ns={"big": pd.DataFrame({"v": range(51)})})
    ctx = ToolContext(session_id=session_id, store=store, engine=small,
                      ask=tool_ask(ScriptedBackend(), threading.Event()))
    with pytest.raises(ToolError, match="pre-aggregate"):
        run(tools, "analyze_data", ctx, prompt="x", table="big")


def _doc(store, session_id, text, name="notes.md"):
    return store.objects.put(session_id, text.encode(), type="markdown", mime_type="text/markdown", name=name).id


def test_text_tools(tools, make_ctx, store, session_id):
    doc = _doc(store, session_id, "\n".join(f"line {i} {'ERROR' if i % 10 == 0 else 'ok'}" for i in range(1, 101)))
    listing = run(tools, "list_objects", make_ctx()).content
    assert doc in listing and "100 lines" in listing
    got = run(tools, "get_text", make_ctx(), object=doc, lines="9-11").content
    assert "9: line 9 ok\n10: line 10 ERROR\n11: line 11 ok" in got
    grep = run(tools, "grep_text", make_ctx(), object=doc, pattern="ERROR$", context_lines=0, max_matches=3).content
    assert grep.splitlines()[0] == "10 matching line(s) in notes.md, first 3 shown:"
    assert "10: line 10 ERROR" in grep and "40:" not in grep
    with pytest.raises(ToolError, match="invalid pattern"):
        run(tools, "grep_text", make_ctx(), object=doc, pattern="(unclosed")
    # a pattern that backtracks catastrophically in a backtracking engine finishes at once
    run(tools, "grep_text", make_ctx(), object=doc, pattern="(a+)+$")


def test_objects_of_other_sessions_are_invisible(tools, make_ctx, store):
    other = store.create_session(title="other").id
    doc = _doc(store, other, "secret")
    with pytest.raises(ToolError, match="no object"):
        run(tools, "get_object", make_ctx(), id=doc)


def test_analyze_text_chunks_and_promotes(tools, make_ctx, store, session_id):
    text = "\n".join(["# Intro"] + ["word " * 60] * 60 + ["# Results"] + ["data " * 60] * 60)
    doc = _doc(store, session_id, text)
    backend = ScriptedBackend(fn=lambda m, t: json.dumps({"summary": "ok", "new_findings": [
        {"description": f"point from {m[-1].content.count('data')} data words", "severity": "medium"}]}))
    result = run(tools, "analyze_text", make_ctx(backend), object=doc, perspective="risks")
    assert len(backend.requests) >= 2
    assert "# Results" in "\n".join(r.last_user for r in backend.requests)
    assert all(f.source == "analyze_text" for f in store.findings.list(session_id))
    assert result.data["report"]["id"]


def test_a_model_failure_inside_a_tool_is_a_tool_error(tools, make_ctx, engine, sales_csv):
    from shell_agent_lab.llm.errors import UnreachableError

    engine.load(str(sales_csv), "sales")
    backend = ScriptedBackend([UnreachableError("connection refused")])
    with pytest.raises(ToolError, match="model call inside this tool failed: connection refused"):
        run(tools, "query_preview", make_ctx(backend), question="how many?")


def test_analyze_data_keeps_findings_when_the_model_fails_midway(tools, make_ctx, engine, store, session_id, sales_csv):
    from shell_agent_lab.llm.errors import RateLimitedError

    engine.load(str(sales_csv), "sales")
    backend = ScriptedBackend([json.dumps({"summary": "s", "new_findings": [
        {"description": "North peaks on day 3", "severity": "medium"}]}), RateLimitedError("quota exhausted")])
    result = run(tools, "analyze_data", make_ctx(backend), prompt="peaks")
    assert "stopped at window 2/3: quota exhausted" in result.content
    assert [f.content for f in store.findings.list(session_id)] == ["North peaks on day 3"]
    assert "_Stopped early" in result.data["report"]["content"]


@pytest.mark.parametrize(("spec", "total", "expected"), [
    (None, 50, (1, 50)), ("", 50, (1, 50)), ("10-20", 50, (10, 20)), ("10-", 50, (10, 50)),
    ("-5", 50, (1, 5)), ("7", 50, (7, 7)), ("40-999", 50, (40, 50)), (3, 50, (3, 3)), ("2:4", 50, (2, 4)),
])
def test_line_ranges(spec, total, expected):
    from shell_agent_lab.analysis.tools_text import parse_lines

    assert parse_lines(spec, total) == expected


@pytest.mark.parametrize("spec", ["0-3", "5-2", "abc", "60", "1-2-3", [1, 2]])
def test_bad_line_ranges(spec):
    from shell_agent_lab.analysis.tools_text import parse_lines

    with pytest.raises(ToolError):
        parse_lines(spec, 50)


def test_get_object_kinds(tools, make_ctx, store, session_id):
    image = store.objects.put(session_id, b"\x89PNG....", type="image", mime_type="image/png", name="plot.png").id
    blob = store.objects.put(session_id, b"\x00\x01", type="blob", mime_type="application/octet-stream").id
    text = store.objects.put(session_id, b"x" * 40_000, type="markdown", mime_type="text/markdown", name="long.md").id
    assert run(tools, "get_object", make_ctx(), id=image).content == f"__IMAGE_RECALL_BLOB__{image}__"
    assert "binary; content not shown" in run(tools, "get_object", make_ctx(), id=blob).content
    long_text = run(tools, "get_object", make_ctx(), id=f"object:{text}").content
    assert "truncated: 40,000 bytes" in long_text and long_text.splitlines()[1] == "x" * 30_000
    with pytest.raises(ToolError, match="not an object id"):
        run(tools, "get_object", make_ctx(), id="../../etc/passwd")
    with pytest.raises(ToolError, match="not a text document"):
        run(tools, "get_text", make_ctx(), object=image, lines="1-2")
    assert "image" in run(tools, "list_objects", make_ctx(), type_filter="image").content
    with pytest.raises(ToolError, match="type_filter"):
        run(tools, "list_objects", make_ctx(), type_filter="secrets")


def test_chart_inputs_are_checked(tools, make_ctx, engine, sales_csv):
    engine.load(str(sales_csv), "sales")
    sql = "SELECT region, count(*) AS n FROM sales GROUP BY 1"
    enc = {"x": {"field": "region", "type": "nominal"}, "y": {"field": "n", "type": "quantitative"}}
    for mark, encoding, message in [
        ("pie3d", enc, "mark must be one of"),
        ({"type": "bar", "href": "javascript:alert(1)"}, enc, "unsupported keys: href"),
        ("bar", {"href": {"field": "region"}}, "unknown encoding channel"),
        ("bar", {"x": {"field": "region", "type": "colour"}}, "type must be"),
        ("bar", {"x": {"field": "region", "url": "http://x"}}, "unsupported keys: url"),
        ("bar", {}, "encoding must be an object"),
    ]:
        with pytest.raises(ToolError, match=message):
            run(tools, "create_chart", make_ctx(), sql=sql, mark=mark, encoding=encoding)
    with pytest.raises(ToolError, match="aggregate it to at most 5,000 rows"):
        run(tools, "create_chart", make_ctx(), sql="SELECT * FROM range(6000) r(i)", mark="point",
            encoding={"x": {"field": "i", "type": "quantitative"}})


def test_the_tools_that_ask_the_model_show_it_the_same_schema_text_as_the_system_prompt(tools, make_ctx, engine,
                                                                                         sales_csv):
    from shell_agent_lab.analysis.prompt_schema import schema_text

    engine.load(str(sales_csv), "sales")
    backend = ScriptedBackend(["```sql\nSELECT 1\n```", "- look at sales"])
    run(tools, "query_preview", make_ctx(backend), question="how many?")
    run(tools, "suggest_analysis", make_ctx(backend))
    schema = schema_text(engine)
    assert schema.startswith("sales (table") and '- "region"' not in schema
    assert schema in backend.requests[0].system
    assert backend.requests[1].last_user == schema
