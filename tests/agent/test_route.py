"""The way a message goes: explicit syntax where there is some, the model under a schema of the
ways otherwise, and a fallback that never keeps a data question from its answer."""
from __future__ import annotations

import json

import pytest

from shell_agent_lab.agent._route import (ANSWER, REPLY, ROUTE_TITLE, choose_route, read_route, route_message,
                                          route_prompt, route_schema, ways_of)
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.answers.spec import read_spec
from shell_agent_lab.llm.types import ToolSpec


def _tools():
    return [d.spec() for d in default_registry().all()]


class Asked:
    """A model that names ``way`` and keeps what it was asked."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls: list[tuple[str, str, dict]] = []

    def __call__(self, system: str, user: str, schema: dict) -> str:
        self.calls.append((system, user, schema))
        return self.reply


def _route(message: str, ask=None, tables=("sales",), tools=None):
    return choose_route(message, read_spec(message), tools=_tools() if tools is None else tools,
                        tables=list(tables), ask=ask)


def test_the_ways_are_answer_reply_and_the_tools_that_do_more_than_compute():
    ways = ways_of(_tools(), has_data=True)
    assert list(ways)[:2] == [ANSWER, REPLY]
    for tool in ("create_chart", "remember_fact", "promote_finding", "load_data", "create_report", "read_notebook"):
        assert tool in ways and ways[tool]
    for answering in ("query_sql", "statistics", "operation", "describe_data"):
        assert answering not in ways
    assert ANSWER not in ways_of(_tools(), has_data=False)
    # each way is described by its tool's own description: a new tool is a new way
    mine = ToolSpec(name="send_to_slack", description="Post a message to the team channel. Long details here.",
                    parameters={"type": "object", "properties": {}})
    assert ways_of([mine], has_data=True)["send_to_slack"] == "Post a message to the team channel"


def test_a_stated_form_goes_the_answer_way_without_asking():
    ask = Asked('{"way": "create_chart"}')
    route = _route("Which region sold most? Format: @region[name]", ask)
    assert (route.way, route.source) == (ANSWER, "form") and not ask.calls
    assert _route("Which region sold most? Answer: <region>", ask).way == ANSWER and not ask.calls


def test_a_named_file_not_loaded_and_a_named_tool_decide_without_asking():
    ask = Asked('{"way": "answer"}')
    assert _route("What is in prices.csv?", ask).way == "load_data"
    assert _route("In sales.csv, what is the peak?", ask, tables=["sales"]).source != "file"
    assert _route("run promote_finding on it", ask).way == "promote_finding"
    # a tool the answer way stands for is still the user's to name
    assert _route("Call the analyze_data tool with table orders", ask).way == "analyze_data"
    assert _route("use query_sql for this", ask).way == "query_sql"
    assert len(ask.calls) == 1      # only the file named after a loaded table was asked about


def test_a_named_tool_acts_on_the_data_first_only_when_there_is_data():
    ask = Asked('{"way": "answer"}')
    with_data = _route("Find the top region and record it with promote_finding", ask)
    assert (with_data.way, with_data.source, with_data.data_first) == ("promote_finding", "tool name", True)
    without = _route("Find the top region and record it with promote_finding", ask, tables=())
    assert (without.way, without.data_first) == ("promote_finding", False)
    # a file named with other spelling than the table loaded from it is still that table
    assert _route("What is the peak in Sales-2023.csv?", ask, tables=["sales_2023"]).way != "load_data"
    assert _route("What is the peak in Sales-2023.csv?", ask, tables=["sales"]).way == "load_data"


@pytest.mark.parametrize("reply, way", [
    ('{"way": "create_chart"}', "create_chart"),
    ('{"way": "answer"}', ANSWER),
    ('{"way": "reply"}', REPLY),
])
def test_otherwise_the_model_chooses_among_the_ways(reply, way):
    ask = Asked(reply)
    route = _route("Show me how revenue moves over the months", ask)
    assert (route.way, route.source) == (way, "model")
    system, user, schema = ask.calls[0]
    assert schema == route_schema(ways_of(_tools(), has_data=True)) and schema["title"] == ROUTE_TITLE
    assert system == route_prompt(ways_of(_tools(), has_data=True))
    assert user == route_message("Show me how revenue moves over the months")
    assert "create_chart: Draw a chart" in system


@pytest.mark.parametrize("reply", ['{"way": "launch_rockets"}', "create_chart", "", '{"route": "answer"}', "[]"])
def test_a_reply_off_the_schema_falls_back_to_the_answer_way_with_data(reply):
    route = _route("Show me revenue", Asked(reply))
    assert (route.way, route.source) == (ANSWER, "fallback")
    assert _route("hello there", Asked(reply), tables=()).way == REPLY


def test_a_model_that_refuses_the_schema_or_cannot_be_asked_falls_back():
    from shell_agent_lab.llm.errors import BadResponseError

    def refusing(system, user, schema):
        raise BadResponseError("400: response_format is not supported")

    assert _route("Show me revenue", refusing).source == "fallback"
    assert _route("Show me revenue", None).way == ANSWER


@pytest.mark.parametrize("error", ["unreachable", "cancelled"])
def test_a_model_that_cannot_be_reached_is_the_turns_error_said_once(error):
    from shell_agent_lab.llm.errors import CancelledError, UnreachableError
    exc = UnreachableError("connection refused") if error == "unreachable" else CancelledError("stopped")

    def down(system, user, schema):
        raise exc

    with pytest.raises(type(exc)):
        _route("Show me revenue", down)


def test_the_prompt_is_the_same_for_every_message_and_the_question_is_framed():
    ways = ways_of(_tools(), has_data=True)
    assert route_prompt(ways) == route_prompt(ways_of(_tools(), has_data=True))
    # framed, so a cassette or a cache never takes it for the message's own turn
    assert route_message("How many rows?") != "How many rows?"
    assert read_route(json.dumps({"way": "answer"}), ways) == ANSWER
    assert read_route('{"way": "answer"', ways) is None


def test_the_route_prompt_snapshot():
    """The prompt as the model reads it, with the built-in tools (regenerate with
    SHELL_AGENT_LAB_UPDATE_SNAPSHOTS=1 after an intended change, and review it)."""
    import os
    from pathlib import Path
    path = Path(__file__).parent / "snapshots" / "route_prompt.txt"
    text = route_prompt(ways_of(_tools(), has_data=True)) + "\n---\n" + route_message("How many rows are there?")
    if os.environ.get("SHELL_AGENT_LAB_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, "the route prompt changed: regenerate the snapshot and review it"
