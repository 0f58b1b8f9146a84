"""The compact tool set: what a small local model is offered for one message (pure).

A 1.5B model reads a short tool list better than a long one, and every schema costs prompt
tokens on every request (about 2,500 tokens for the full set, processed at 50–70 tokens/s on two
cores). The compact set is the core of data questions — ``query_sql`` and ``statistics`` — plus
the tool of the way the message was routed (``_route``: a chart, a file to load, something to
remember …).
The user's own tools (functions, scripts, MCP servers) are always offered: the user chose them.
The order is the registry's (sorted), so the same message always gets the same list.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

from ..llm.types import ToolSpec

__all__ = ["compact_tools", "CORE_TOOLS", "call_schema", "ANSWER_SCHEMA", "answer_text", "first_call_tools"]

CORE_TOOLS = frozenset({"query_sql", "statistics"})

#: the project's own tools; any other name is one of the user's own tools, always offered
_OURS = frozenset({
    "analyze_data", "analyze_text", "create_chart", "create_report", "describe_data", "get_object",
    "get_text", "grep_text", "list_objects", "list_tables", "load_data", "operation", "promote_finding",
    "query_preview", "query_sql", "quick_summary", "read_notebook", "remember_fact", "reset_analysis",
    "resolve_date", "run_python", "save_query", "statistics", "suggest_analysis"})


def compact_tools(tools: Sequence[ToolSpec], way: Collection[str] = ()) -> list[ToolSpec]:
    """The tools of ``tools`` a small model is offered for a message routed to a way whose tools
    are ``way`` (see ``_route.tools_of``): the core, the way's own, and the user's tools."""
    wanted = set(CORE_TOOLS) | set(way)
    return [t for t in tools if t.name in wanted or t.name not in _OURS]


def call_schema(tools: Sequence[ToolSpec]) -> dict:
    """A JSON schema whose instances are exactly the calls of ``tools``:
    ``{"name": <tool>, "arguments": {...}}``. Sent as the response format, it makes a server
    that constrains output to a schema (llama.cpp does) produce one well-formed call — the
    way to require a tool call where the server's own ``tool_choice`` cannot."""
    return {"title": "tool_call", "anyOf": [
        {"type": "object", "properties": {"name": {"const": t.name},
                                          "arguments": t.parameters or {"type": "object", "properties": {}}},
         "required": ["name", "arguments"]} for t in tools]}


#: the reply that must be an answer, not a call (for servers without ``tool_choice="none"``)
ANSWER_SCHEMA: dict = {"title": "answer", "type": "object",
                       "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def answer_text(text: str) -> str:
    """The answer inside a reply held to :data:`ANSWER_SCHEMA` (the text itself otherwise)."""
    import json
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and isinstance(value.get("answer"), str):
        return value["answer"]
    return text


#: tools that record an answer rather than find one: never the first call of a data question
#: (a small model asked to "record the answer as a finding" records one it made up)
_RECORDING = frozenset({"promote_finding", "remember_fact"})


def first_call_tools(tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The tools a required first call may use: all but those that record, and not
    ``statistics``, which a small model otherwise reaches for to sum, count and rank; SQL finds
    the rows first (a test or a correlation follows from them)."""
    finding = [t for t in tools if t.name not in _RECORDING and t.name != "statistics"]
    return finding or list(tools)
