"""Tools that produce Findings and reports: analyze_data, promote_finding, create_report."""
from __future__ import annotations

import re
from typing import Any

from ..tools.registry import ToolContext, ToolDescriptor, ToolError, ToolResult
from . import summarizer
from ._tooling import ask_model, engine_of, guarded, has_engine, has_store, store_of, text_arg, wrap
from .errors import RowCapError

__all__ = ["findings_tools", "promote_run", "save_report"]

_FINDING_CHARS = 1_000
_DUPLICATE = "Finding already recorded (matches an existing observation): {content} No new entry created."


def _finding_text(finding: summarizer.WindowFinding) -> str:
    text = finding.description
    if finding.evidence:
        text += f" (evidence: {finding.evidence})"
    return text if len(text) <= _FINDING_CHARS else text[: _FINDING_CHARS - 1] + "…"


def promote_run(ctx: ToolContext, run: summarizer.AnalysisRun, *, tag: str, source: str) -> tuple[list[str], int]:
    """Add every kept finding to the session's Findings; return (new ids, duplicates)."""
    store = store_of(ctx)
    ids: list[str] = []
    duplicates = 0
    for finding in run.findings:
        added = store.findings.add(ctx.session_id, _finding_text(finding), tags=[finding.severity, tag],
                                   source=source, tool_originated=True)
        if added is None:
            duplicates += 1
        else:
            ids.append(added.id)
    if ids:
        ctx.publish("findings_updated", {})
    return ids, duplicates


_RAW_HTML = re.compile(r"<(?=[A-Za-z/!?])")


def save_report(ctx: ToolContext, title: str, content: str) -> dict[str, Any]:
    """Store a Markdown report object (raw HTML neutralised); return its id, title and content."""
    store = store_of(ctx)
    clean = _RAW_HTML.sub("&lt;", content)
    meta = store.objects.put(ctx.session_id, clean.encode("utf-8"), type="report",
                             mime_type="text/markdown", name=title[:200])
    return {"id": meta.id, "title": title, "content": clean}


@guarded
def _analyze_data(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    engine = engine_of(ctx)
    goal = text_arg(args, "prompt", max_chars=4000)
    table = text_arg(args, "table", required=False, max_chars=200)
    if not table:
        infos = engine.tables()
        if not infos:
            raise ToolError("nothing to analyse; load a file with load_data or create a DataFrame first.")
        table = infos[0].name
    total = engine.row_count(table)
    cap = engine.settings.max_analyze_rows
    if total > cap:
        raise RowCapError(f"{table} has {total:,} rows, over the {cap:,}-row analysis limit; pre-aggregate "
                          "it (GROUP BY) or filter it into a smaller table with save_query first.")
    if total == 0:
        return ToolResult(f"{table} has no rows; nothing to analyse.")
    spans = summarizer.windows(total)

    def fetch(offset: int, limit: int):
        result = engine.rows_window(table, offset, limit)
        return result.columns, result.rows

    run = summarizer.run_windows(
        spans, fetch, lambda system, user, schema: ask_model(
            ctx, system, user, response_format=schema, temperature=summarizer.WINDOW_TEMPERATURE),
        goal=goal, label=f"{table} rows",
        wrap=lambda text: wrap(ctx, text), cancel=ctx.cancel,
        progress=lambda k, n: ctx.progress(f"window {k}/{n}", k, n))
    if run.error and run.windows == 0:
        raise ToolError(f"analysis {run.error}")
    ids, duplicates = promote_run(ctx, run, tag=table, source="analyze_data")
    report = summarizer.render_report(run, title=f"Analysis of {table}", goal=goal, source=f"table {table}, {total:,} rows")
    saved = save_report(ctx, f"Analysis of {table}", report)
    lines = [f"Analysed {table}: {run.windows} window(s) of up to {summarizer.WINDOW_ROWS} rows"
             + (" (cancelled early)" if run.cancelled else "") + "."
             + (f" It {run.error}." if run.error else ""),
             f"Summary: {run.summary or '(none)'}",
             f"Findings recorded: {len(ids)}" + (f" ({duplicates} already known)" if duplicates else "") + "."]
    for finding in run.findings[:20]:
        lines.append(f"- [{finding.severity}] {finding.description}")
    lines.append(f"Full report saved as object {saved['id']}; it is shown to the user, do not restate it.")
    return ToolResult("\n".join(lines), data={"findings": ids, "report": saved})


@guarded
def _promote_finding(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    store = store_of(ctx)
    content = text_arg(args, "content", max_chars=_FINDING_CHARS)
    tags = args.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ToolError("'tags' must be a list of strings, e.g. [\"high\", \"sales\"].")
    if ctx.engine is None or not ctx.engine.has_data():
        raise ToolError("findings are recorded about loaded data; load a file or create a DataFrame first.")
    added = store.findings.add(ctx.session_id, content, tags=tags[:10], source="llm_promoted",
                               tool_originated=True)
    if added is None:
        return ToolResult(_DUPLICATE.format(content=content))
    ctx.publish("findings_updated", {})
    return ToolResult(f"Finding recorded as {added.id}.", data={"findings": [added.id]})


@guarded
def _create_report(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    title = text_arg(args, "title", max_chars=200)
    content = text_arg(args, "content", max_chars=500_000)
    saved = save_report(ctx, title, content)
    return ToolResult(f"Report {title!r} saved as object {saved['id']}. It is shown to the user; do not "
                      "restate its content.", data={"report": saved})


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def findings_tools() -> list[ToolDescriptor]:
    return [
        ToolDescriptor(
            "analyze_data", "Read a whole table (up to 1,000,000 rows) in overlapping windows of 100 "
            "rows, looking for what the prompt asks; records what it finds as Findings and writes a report.",
            _obj({"prompt": {"type": "string", "description": "What to look for, e.g. 'anomalous weeks by region'."},
                  "table": {"type": "string", "description": "Table or DataFrame (default: the first one)."}},
                 ["prompt"]), _analyze_data, approval_default=True, dialog="analysis_plan",
            available=lambda ctx: has_engine(ctx) and has_store(ctx), source="analysis", own_time=True),
        ToolDescriptor(
            "promote_finding", "Record one data-analysis discovery as a Finding of this session.",
            _obj({"content": {"type": "string", "description": "The finding, one or two sentences with the numbers."},
                  "tags": {"type": "array", "items": {"type": "string"},
                           "description": "Severity (critical, high, medium, low, info) and topic tags."}},
                 ["content"]), _promote_finding, category="write", approval_default=True,
            available=lambda ctx: has_engine(ctx) and has_store(ctx), source="analysis"),
        ToolDescriptor(
            "create_report", "Save a Markdown report (GitHub-flavoured, no raw HTML) for the user.",
            _obj({"title": {"type": "string", "description": "Report title."},
                  "content": {"type": "string", "description": "The report in Markdown."}},
                 ["title", "content"]), _create_report, available=has_store, source="analysis"),
    ]
