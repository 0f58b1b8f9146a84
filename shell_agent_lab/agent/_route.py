"""Which way a message goes (pure: the ways, the prompt, the schema, the check of the reply).

A message is answered from the data (``answer``: the program path, then the core tools), or
by one of the tools that do something else (draw a chart, remember, record a Finding, load a
file, write a report, read the notebook, or one of the user's own tools), or in words
(``reply``: a greeting, a question about the assistant). Nothing here reads the message's
words for meaning:

* explicit syntax decides where there is some: a form the question states (``@part[…]``,
  an ``Answer:`` line, read once into the spec), a file it names that is not loaded yet, a
  tool it names;
* otherwise the model is asked, under a JSON schema whose only values are the ways, each
  described by its tool's own description. A new tool is a new way with no change here;
* a reply that does not hold to the schema, a server that refuses the schema, or no model to
  ask, falls back to ``answer`` when there is data (the assistant's main work) and ``reply``
  when there is none. A model that cannot be reached is the turn's error, said once.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..answers.spec import AnswerSpec
from ..llm.errors import CancelledError
from ..llm.types import ToolSpec

__all__ = ["ANSWER", "REPLY", "Route", "ways_of", "tools_of", "route_prompt", "route_message", "route_schema",
           "read_route", "choose_route", "ROUTE_TITLE"]

ANSWER = "answer"
REPLY = "reply"
ROUTE_TITLE = "route"

#: tools that compute an answer from the data, or read it to find one: the answer way does their
#: work (offered as ways of their own, a small model sent every data question to analyze_data)
_ANSWERING = frozenset({"query_sql", "statistics", "query_preview", "operation", "quick_summary",
                        "describe_data", "list_tables", "run_python", "analyze_data"})
#: tools that go together as one way: the way's name, what it is for, its tools
_GROUPS = (("documents", "read, search or summarise an attached text document, PDF or image (not the tables)",
            frozenset({"list_objects", "get_object", "get_text", "grep_text", "analyze_text"})),)
_FILE = re.compile(r"([\w.-]+)\.(?:csv|tsv|json|jsonl|ndjson|parquet|xlsx?)\b", re.IGNORECASE)
_DESCRIPTION_CHARS = 110
#: how the choice is shown to the model, one example per kind of way (shown where that way is
#: offered); they teach the form of the choice, the ways' descriptions say what each is for
_EXAMPLES = (("Which region had the highest average price in 2023?", ANSWER),
             ("Is there a relationship between age and income?", ANSWER),
             ("Plot monthly sales as a line chart", "create_chart"),
             ("Remember that amounts are in euros", "remember_fact"),
             ("Why does the cell above raise an error?", "read_notebook"),
             ("Thanks, that is all for now", REPLY))


@dataclass(frozen=True)
class Route:
    """The way chosen and what chose it: ``form``, ``file``, ``tool name``, ``model`` or
    ``fallback``. ``data_first``: the way's tool acts on something found in the data first (a
    tool named in a question about loaded data: "… record it with promote_finding")."""

    way: str
    source: str
    data_first: bool = False

    @property
    def answers(self) -> bool:
        return self.way == ANSWER


def _first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    cut = re.search(r"(?<=[A-Za-z0-9)])[.;](?:\s|$)", text)
    text = text[:cut.start()] if cut else text
    return text if len(text) <= _DESCRIPTION_CHARS else text[:_DESCRIPTION_CHARS - 1].rstrip() + "…"


def ways_of(tools: Sequence[ToolSpec], *, has_data: bool) -> dict[str, str]:
    """The ways a message may go, each with what it is for: ``answer`` when there is data,
    ``reply``, and every offered tool (or group of tools) that does more than compute an answer."""
    ways: dict[str, str] = {}
    if has_data:
        ways[ANSWER] = ("compute an answer from the loaded data: a number, a name, a list, yes or no, "
                        "a comparison or a short table")
    ways[REPLY] = "reply in words: a greeting or thanks, or a question about the assistant itself"
    names = {t.name for t in tools}
    grouped = {name for _, _, members in _GROUPS for name in members}
    for tool in sorted(tools, key=lambda t: t.name):
        if tool.name not in _ANSWERING and tool.name not in grouped and tool.name not in ways:
            ways[tool.name] = _first_sentence(tool.description) or tool.name
    for way, what, members in _GROUPS:
        if members & names:
            ways[way] = what
    return ways


def tools_of(way: str) -> frozenset[str]:
    """The tools a way offers: its group's, or the tool it is named after (none for ``answer``
    and ``reply``)."""
    for name, _, members in _GROUPS:
        if name == way:
            return members
    return frozenset() if way in (ANSWER, REPLY) else frozenset({way})


def route_prompt(ways: Mapping[str, str]) -> str:
    """The system prompt of the choice (the same for every message with the same tools, so a
    server that keeps prompt prefixes reads it once)."""
    listed = "\n".join(f"- {name}: {what}" for name, what in ways.items())
    examples = [(m, w) for m, w in _EXAMPLES if w in ways]
    shown = "\n".join(f"Message: {m}\n{{\"way\": \"{w}\"}}" for m, w in examples)
    first = (f"Most messages are questions about the data: any question whose reply is computed from "
             f"the data's values (a count, a statistic, a comparison, a ranking, a test, a yes or no) "
             f"goes the way \"{ANSWER}\". Choose another way only when the message asks for what it "
             f"does.\n\n" if ANSWER in ways else "")
    return ("You route a data analyst's message to the one way that handles it. The ways:\n"
            f"{listed}\n\n{first}Examples:\n{shown}\n\nReply with JSON: {{\"way\": <one of the ways>}}.")


def route_message(message: str) -> str:
    """The user turn of the choice (framed, so that it is never the same request as the
    message's own turn)."""
    return f"Message: {message.strip()}\n\nWhich way handles this message?"


def route_schema(ways: Mapping[str, str]) -> dict[str, Any]:
    return {"title": ROUTE_TITLE, "type": "object",
            "properties": {"way": {"type": "string", "enum": list(ways)}},
            "required": ["way"], "additionalProperties": False}


def read_route(reply: str, ways: Mapping[str, str]) -> str | None:
    """The way a reply names, when it holds to :func:`route_schema`; None otherwise."""
    try:
        data = json.loads(reply)
    except (TypeError, ValueError):
        return None
    way = data.get("way") if isinstance(data, dict) else None
    return way if isinstance(way, str) and way in ways else None


def _key(name: str) -> str:
    """A table's name as loading a file makes it (``Sales 2023.csv`` is ``sales_2023``)."""
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def _named_file(message: str, tables: Sequence[str]) -> bool:
    known = {_key(t) for t in tables}
    return any(_key(m.group(1)) not in known for m in _FILE.finditer(message or ""))


def _named_tool(message: str, tools: Sequence[ToolSpec]) -> str | None:
    """A tool the message names by its name (``promote_finding``, ``analyze_data``; plain words
    such as "statistics" are ordinary English, so only names with an underscore count)."""
    for tool in tools:
        if "_" in tool.name and re.search(rf"(?<![\w]){re.escape(tool.name)}(?![\w])", message or ""):
            return tool.name
    return None


def choose_route(message: str, spec: AnswerSpec, *, tools: Sequence[ToolSpec], tables: Sequence[str],
                 ask: Callable[[str, str, dict[str, Any]], str] | None) -> Route:
    """The way ``message`` goes. ``tables``: the names of the session's tables and DataFrames;
    ``ask(system, user, schema) -> reply``: the model, or None where it may not be asked."""
    has_data = bool(tables)
    ways = ways_of(tools, has_data=has_data)
    fallback = Route(ANSWER if has_data else REPLY, "fallback")
    if "load_data" in ways and _named_file(message, tables):
        return Route("load_data", "file")
    named = _named_tool(message, tools)
    if named is not None:
        return Route(named, "tool name", data_first=has_data)
    if spec.source == "syntax":            # the question states the form of its answer
        return Route(ANSWER, "form") if has_data else fallback
    if ask is None:
        return fallback
    try:
        way = read_route(ask(route_prompt(ways), route_message(message), route_schema(ways)), ways)
    except Exception as exc:
        if getattr(exc, "retryable", False) or isinstance(exc, CancelledError):
            raise       # the model is not there (or the turn was stopped): the turn says so once
        return fallback     # a server that refuses the schema, a reply it could not send
    return Route(way, "model") if way is not None else fallback
