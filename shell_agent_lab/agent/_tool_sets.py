"""The compact tool set: what a small local model is offered for one message (pure).

A 1.5B model reads a short tool list better than a long one, and every schema costs prompt
tokens on every request (about 2,500 tokens for the full set, processed at 50–70 tokens/s on two
cores). The compact set is the core of data questions — ``query_sql`` and ``statistics`` — plus
the tools whose purpose the message names (a chart, a file to load, something to remember …).
The user's own tools (functions, scripts, MCP servers) are always offered: the user chose them.
The order is the registry's (sorted), so the same message always gets the same list.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..llm.types import ToolSpec

__all__ = ["compact_tools", "asks_beyond_answers", "CORE_TOOLS", "call_schema", "ANSWER_SCHEMA", "answer_text", "first_call_tools"]

CORE_TOOLS = frozenset({"query_sql", "statistics"})

_ASKED_FOR: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
    (frozenset(names), re.compile(pattern, re.IGNORECASE)) for names, pattern in (
        (("create_chart",), r"\b(?:chart|plot|graph|visuali[sz]\w*|histogram|scatter|bar\s*chart|line\s*chart|pie)\b"),
        (("remember_fact",), r"\b(?:remember|memori[sz]e|keep\s+in\s+mind|note\s+that|from\s+now\s+on|i\s+prefer|always|never)\b"),
        (("promote_finding",), r"\bfindings?\b|\brecord\s+(?:this|that|it)\b"),
        (("load_data",), r"\bload\w*\b|\.(?:csv|tsv|json|jsonl|ndjson|parquet)\b|\bfile\b"),
        (("analyze_data",), r"\banaly[sz]\w*\b|\banomal\w*|\bpatterns?\b|\binsights?\b"),
        (("describe_data", "list_tables"), r"\b(?:describe|schema|columns?|what\s+(?:tables|data)|which\s+tables|tables?\b)"),
        (("read_notebook",), r"\bnotebook\b|\bcell\s*#?\d+|\b(?:this|that|last|previous|next|first|failing|failed)\s+cells?\b|"
                             r"\b(?:chart|cell|output|plot|table|code|graph)s?\s+(?:above|below)\b|\btraceback\b|"
                             r"\bexception\b|\bcontinue\s+from\b|\bcells?\b.*\b(?:fails?|failing|failed|errors?)\b|"
                             r"\b(?:fails?|failing|failed|errors?)\b.*\bcells?\b"),
        (("run_python",), r"\b(?:python|pandas|numpy|scipy|code|script|dataframe\s+method)\b"),
        (("resolve_date",), r"\b(?:today|yesterday|tomorrow|last\s+(?:week|month|quarter|year)|this\s+(?:week|month|quarter|year)|ago)\b"),
        (("save_query",), r"\bsave\b.*\btable\b|\bcreate\s+(?:a\s+)?table\b"),
        (("reset_analysis",), r"\breset\b|\bdrop\s+(?:all\s+)?(?:the\s+)?tables\b"),
        (("quick_summary", "suggest_analysis"), r"\bsummar\w*|\bsuggest\w*|\bideas?\b|\bwhat\s+should\s+i\b"),
        # the noun ("write a report", "the report"), not the verb of "Report the slope and R squared"
        (("create_report",), r"\b(?:an?|the|my|this|that|html|markdown|pdf|full|short|written|summary)\s+report\b|"
                             r"\breports\b|\breport\s+(?:file|document|page)\b|"
                             r"\b(?:create|make|write|build|draft|generate|export|produce|save)\w*\s+(?:\w+\s+){0,2}report\b"),
        (("analyze_text", "grep_text", "get_text", "list_objects", "get_object"),
         r"\b(?:document|pdf|attachment|attached|text\s+file|grep|image|object)\w*"),
    ))

#: tools of the project itself; any other name is one of the user's own tools
_OURS = frozenset({n for names, _ in _ASKED_FOR for n in names} | CORE_TOOLS | {"query_preview", "operation"})


def compact_tools(tools: Sequence[ToolSpec], message: str) -> list[ToolSpec]:
    """The tools of ``tools`` a small model is offered for ``message``."""
    wanted = set(CORE_TOOLS)
    for names, pattern in _ASKED_FOR:
        if pattern.search(message or ""):
            wanted |= names
    return [t for t in tools if t.name in wanted or t.name not in _OURS]


#: what the program path does not do: draw, remember, record, write tables or reports
_BEYOND = frozenset({"create_chart", "promote_finding", "save_query", "reset_analysis", "create_report"})


#: loading something new: a file by name, or "load" with what is loaded
_LOADS = re.compile(r"\bload(?:s|ed|ing)?\s+(?:in\s+|up\s+)?(?:(?:the|a|an|this|that|my|another|new|our)\s+)?"
                    r"(?:file|csv|tsv|json|parquet|excel|spreadsheet|dataset|data\s+(?:from|in|at)|table\s+from)\b",
                    re.IGNORECASE)
_FILE = re.compile(r"([\w.-]+)\.(?:csv|tsv|json|jsonl|ndjson|parquet|xlsx?)\b", re.IGNORECASE)
_KEEPS = re.compile(r"\b(?:remember|memori[sz]e|keep\s+in\s+mind|from\s+now\s+on)\b", re.IGNORECASE)


def _key(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def _without(message: str, names: Sequence[str]) -> str:
    """``message`` with the data's own names blanked: a column called ``load_mw`` or
    ``report_date`` is the data, not a request to load or report."""
    for name in sorted({str(n) for n in names if str(n).strip()}, key=len, reverse=True):
        message = re.sub(rf"(?<![\w.]){re.escape(name)}(?![\w])", " ", message, flags=re.IGNORECASE)
    return message


def asks_beyond_answers(message: str, tool_names: Sequence[str] = (), names: Sequence[str] = ()) -> bool:
    """The message asks for more than an answer computed from the data: a chart, a file to load,
    something to remember, a finding, a document — or it names a tool. The program path leaves
    such messages to the tool loop. ``names`` are the data's tables and columns: words of the
    data are not requests, and a file named after a table already here is not a file to load."""
    tables = {_key(str(n)) for n in names}
    files = [m.group(1) for m in _FILE.finditer(message or "")]
    if any(_key(stem) not in tables for stem in files):
        return True
    text = _FILE.sub(" ", _without(message or "", names))
    if any(pattern.search(text) for group, pattern in _ASKED_FOR if group & _BEYOND):
        return True
    if _LOADS.search(text) or _KEEPS.search(text):
        return True
    # a name like promote_finding (plain words such as "statistics" are ordinary English)
    return any(re.search(rf"\b{re.escape(n)}\b", message or "") for n in tool_names if "_" in n)


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


#: what the statistics tool is for; any other question about the data starts with SQL
_STATISTICS_WORDS = re.compile(
    r"correlat|pearson|spearman|kendall|t-?test|p-?value|chi|regress|slope|intercept|r²|\br2\b|"
    r"r-squared|shapiro|normal(?:ity|ly)|outlier|z-?score|\biqr\b|interquartile|skew|kurtosis",
    re.IGNORECASE)


def first_call_tools(tools: Sequence[ToolSpec], message: str = "") -> list[ToolSpec]:
    """The tools a question about the data may start with: all but those that record, and
    ``statistics`` only for what SQL lacks (tests, correlation, regression, outliers, shape):
    a small model otherwise reaches for it to sum, count and rank."""
    finding = [t for t in tools if t.name not in _RECORDING
               and (t.name != "statistics" or _STATISTICS_WORDS.search(message or ""))]
    return finding or list(tools)
