"""What makes a small model's answers come from the data: the compact tool set and prompt, a
required first call (as a schema where the server cannot be told), promises and ungrounded
numbers sent back, repeated calls not run again, earlier questions only when referred to."""
from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.agent._loopguard import (FAKE_RESULT_NOTE, PROMISE_NOTE, REPEATED_CALL_NOTE,
                                              imitates_tool_result, promises_next_step,
                                              strip_fake_result, ungrounded_numbers)
from shell_agent_lab.agent._tool_sets import ANSWER_SCHEMA, answer_text, call_schema, compact_tools
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.context.builder import EARLIER_HEADER, refers_back
from shell_agent_lab.context.prompt import BASE_PROMPT, COMPACT_BASE_PROMPT
from shell_agent_lab.context.tokens import estimate_tokens
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.llm.types import Capabilities

SALES = pd.DataFrame({"region": ["West", "East", "West"], "Price (USD)": ["$1,200", "$80", "$15.50"],
                      "units": [3, 5, 7]})


# -- pure detectors ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "I see the error. Let's try again.",
    "The column name needs quotes. Let me fix the query and run it again.",
    "Sorry about that! I will now use stddev_samp instead.",
    "The function does not exist. We need to use the correct function name.",
    "Let's retry with the correct column.",
])
def test_promises_are_recognised(text):
    assert promises_next_step(text)


@pytest.mark.parametrize("text", [
    "West had the highest revenue: 38,988.",
    "I will ask the user instead.",
    "The mean is 4.91. Let me know if you want the median too?",
    "@mean[4.91]",
    "I used stddev_samp, which is the sample standard deviation; it is 2.02.",
    "",
])
def test_answers_are_not_promises(text):
    assert not promises_next_step(text)


def test_an_invented_tool_result_is_caught_anywhere_in_the_reply():
    text = "Let's try again with the correct function name.\n<tool_response>\n{\"std\": 2.1}\n</tool_response>"
    assert imitates_tool_result(text) and not imitates_tool_result("The result is 2.1.")
    assert strip_fake_result(text) == "Let's try again with the correct function name."


@pytest.mark.parametrize(("answer", "loose"), [
    ("The mean is 4.91.", []),                                # rounded from 4.91263
    ("The mean is 4.9126.", []),
    ("About 49.1% of rows.", []),                             # percent of the fraction 0.491263
    ("Total: 7,138,146.", []),                                # thousands separators
    ("The mean is 6.17.", ["6.17"]),                          # read off a sample value, not a result
    ("Top 3 regions; 2 of them grew.", []),                   # small counts are not checked
    ("On 2021-03-15 the total was 1200.", ["1200"]),          # dates are not numbers to check
    ("r = -0.005", []),
])
def test_numbers_must_come_from_a_tool_result_or_the_question(answer, loose):
    sources = ["What is the mean? Round to 2 decimals.", "mean = 4.91263\nshare = 0.491263",
               "sum = 7138146.0", "pearson_r = -0.004689"]
    assert ungrounded_numbers(answer, sources) == loose


# -- the compact tool set and its prompt budget --------------------------------------------------

def _specs():
    return [d.spec() for d in default_registry().all()]


def test_the_compact_set_is_the_core_plus_the_tools_of_the_way():
    from shell_agent_lab.agent._route import tools_of
    names = lambda way: [t.name for t in compact_tools(_specs(), tools_of(way))]   # noqa: E731
    assert names("answer") == names("reply") == ["query_sql", "statistics"]
    for way in ("create_chart", "remember_fact", "promote_finding", "load_data", "create_report"):
        assert names(way) == sorted(["query_sql", "statistics", way])
    assert {"get_text", "grep_text", "analyze_text"} <= set(names("documents"))
    mine = dataclasses.replace(_specs()[0], name="send_to_slack")
    assert "send_to_slack" in [t.name for t in compact_tools(_specs() + [mine], tools_of("answer"))]  # the user's own


def test_the_first_request_of_the_compact_set_fits_the_budget():
    """The fixed prompt, the core tools' schemas and a schema line per column: ≤ 1,200 tokens
    (the embedded server counted 825 for a five-column frame)."""
    tools = compact_tools(_specs())
    schemas = json.dumps([{"type": "function", "function": {"name": t.name, "description": t.description,
                                                            "parameters": t.parameters}} for t in tools])
    engine = AnalysisEngine(None, namespace=lambda: {"sales": SALES})
    try:
        from shell_agent_lab.analysis.prompt_schema import schema_block
        schema = schema_block(engine.tables(), engine)
    finally:
        engine.close()
    total = estimate_tokens(COMPACT_BASE_PROMPT + schemas + schema) + 150   # chat template and question
    full = estimate_tokens(BASE_PROMPT + json.dumps([t.parameters for t in _specs()]))
    assert total <= 1200 < full


def test_schemas_for_a_required_call_and_for_an_answer():
    tools = compact_tools(_specs())
    schema = call_schema(tools)
    assert [s["properties"]["name"]["const"] for s in schema["anyOf"]] == ["query_sql", "statistics"]
    assert schema["anyOf"][0]["properties"]["arguments"]["required"] == ["sql"]
    assert answer_text('{"answer": "@n[3]"}') == "@n[3]" and answer_text("plain") == "plain"
    assert ANSWER_SCHEMA["required"] == ["answer"]


# -- the loop ------------------------------------------------------------------------------------

@pytest.fixture()
def data_agent(store, settings, tmp_path):
    agents = []

    def make(backend, *, tool_set="compact", route_by_model=False):
        settings.tool_set = tool_set
        settings.approval_policy = "approve"
        # these tests script the loop's requests; the way's choice has tests of its own below
        settings.route_by_model = route_by_model
        agent = Agent(store=store, registry=default_registry(), events=EventBus(), settings=settings,
                      backend=backend,
                      engine_factory=lambda s: AnalysisEngine(store.session_dir(s.id) / "analysis.duckdb",
                                                              namespace=lambda: {"sales": SALES}))
        agent.open_session(None, notebook_path=f"levers-{len(agents)}.ipynb")
        agents.append(agent)
        return agent

    yield make
    for agent in agents:
        agent.close()


def _no_tool_choice(backend: ScriptedBackend) -> ScriptedBackend:
    backend.capabilities = dataclasses.replace(backend.capabilities, tool_choice=False)
    return backend


def test_a_data_question_starts_with_a_required_call(data_agent):
    backend = ScriptedBackend([call("query_sql", {"sql": "SELECT count(*) AS n FROM sales WHERE region = 'West'"}),
                               "@n[2]"])
    agent = data_agent(backend)
    r = agent.run("How many rows have region West? Answer as @n[value].")
    assert r.text == "@n[2]"
    first, second = backend.requests
    assert first.options.tool_choice == "required" and second.options.tool_choice is None
    assert [t.name for t in first.tools] == ["query_sql", "statistics"]
    assert first.messages[0].content.startswith(COMPACT_BASE_PROMPT[:60])
    assert '"Price (USD)" VARCHAR (numbers stored as text: use num("Price (USD)"))' in first.messages[1].content


def test_without_tool_choice_the_call_is_required_through_a_schema(data_agent):
    backend = _no_tool_choice(ScriptedBackend([call("query_sql", {"sql": "SELECT 1 AS n"}), "@n[1]"]))
    agent = data_agent(backend)
    agent.run("How many rows are there?")
    first = backend.requests[0]
    assert first.options.tool_choice is None
    # a count is SQL's: statistics is offered, but the first call is held to query_sql
    assert first.options.response_format == call_schema([t for t in first.tools if t.name == "query_sql"])
    assert backend.requests[1].options.response_format is None


def test_the_full_set_is_left_to_the_model(data_agent):
    backend = ScriptedBackend(["There are 3 rows."])
    agent = data_agent(backend, tool_set="full")
    agent.run("How many rows are there?")
    assert backend.requests[0].options.tool_choice is None and len(backend.requests[0].tools) > 10
    assert backend.requests[0].messages[0].content.startswith(BASE_PROMPT[:60])


def test_an_ungrounded_number_is_sent_back_once_with_a_required_call(data_agent):
    backend = ScriptedBackend([
        call("query_sql", {"sql": "SELECT sum(units) AS total FROM sales"}),
        "The total is 42.5.",                                    # no tool result says 42.5
        call("query_sql", {"sql": "SELECT sum(units) AS total FROM sales"}),
        "The total is 15."])
    agent = data_agent(backend)
    r = agent.run("What is the total of units?")
    assert r.text == "The total is 15."
    note = [m.content for m in backend.requests[2].messages if m.role == "system"][-1]
    assert "42.5" in note and backend.requests[2].options.tool_choice == "required"
    # the refused answer was never stored
    assert all("42.5" not in (x.content or "") for x in agent.store.list_records(agent.session.id))


def test_a_promise_and_an_invented_result_are_sent_back(data_agent):
    backend = ScriptedBackend([
        call("query_sql", {"sql": "SELECT std(units) FROM sales"}),
        "I see the error. Let's try again with the right function.",
        "Let me fix it.\n<tool_response>{\"std\": 2}</tool_response>",
        call("query_sql", {"sql": "SELECT stddev_samp(units) AS s FROM sales"}),
        "The sample standard deviation is 2."])
    agent = data_agent(backend)
    r = agent.run("What is the standard deviation of units?")
    assert r.text == "The sample standard deviation is 2."
    notes = [[m.content for m in q.messages[2:] if m.role == "system"] for q in backend.requests]
    assert PROMISE_NOTE in notes[2] and FAKE_RESULT_NOTE in notes[3]
    # the first SQL was repaired before it ran (std is not DuckDB's)
    tool = [x for x in agent.store.list_records(agent.session.id) if x.role == "tool"][0]
    assert "stddev_samp" in tool.content and "units" in tool.content


def test_a_repeated_call_is_not_run_again_and_the_next_reply_must_answer(data_agent):
    sql = {"sql": "SELECT sum(units) AS total FROM sales"}
    backend = _no_tool_choice(ScriptedBackend([call("query_sql", sql), call("query_sql", sql),
                                               '{"answer": "@total[15]"}']))
    agent = data_agent(backend)
    r = agent.run("What is the total of units? Answer as @total[value].")
    assert r.text == "@total[15]"
    tools = [x for x in agent.store.list_records(agent.session.id) if x.role == "tool"]
    assert "total = 15" in tools[0].content and tools[1].content == REPEATED_CALL_NOTE
    assert backend.requests[2].options.response_format == ANSWER_SCHEMA


def test_earlier_questions_reach_only_a_question_that_refers_back(data_agent):
    backend = ScriptedBackend([call("query_sql", {"sql": "SELECT 3 AS n"}), "@n[3]",
                               call("query_sql", {"sql": "SELECT 2 AS n"}), "@n[2]",
                               call("query_sql", {"sql": "SELECT 1 AS n"}), "@n[1]"])
    agent = data_agent(backend)
    agent.run("How many rows are in sales?")
    agent.run("How many rows have region West?")
    agent.run("And for East?")
    contexts = [q.messages[1].content for q in backend.requests]
    assert EARLIER_HEADER not in contexts[2]                      # a standalone question
    assert EARLIER_HEADER in contexts[4] and "Q: How many rows have region West?\nA: @n[2]" in contexts[4]
    # and the records of earlier questions are not sent as conversation
    assert [m.role for m in backend.requests[4].messages[2:]] == ["user"]


@pytest.mark.parametrize(("question", "back"), [
    ("And for 2021?", True), ("What about the East region?", True), ("Why is that so high?", True),
    ("How many rows have region West?", False), ("Which product sold the most units?", False)])
def test_refers_back(question, back):
    assert refers_back(question) is back


def test_the_embedded_model_is_held_to_schemas_not_tool_choice():
    from shell_agent_lab.llm.local import LocalBackend
    from shell_agent_lab.llm.types import ChatOptions
    backend = LocalBackend(model_path="/nonexistent.gguf")
    assert backend.capabilities.tool_choice is False
    options = backend._options(ChatOptions(tool_choice="required"))
    assert options.tool_choice is None and options.max_output_tokens and options.temperature == 0.0
    assert Capabilities().tool_choice is True


def test_sql_written_out_instead_of_run_is_a_promise():
    assert promises_next_step("To fix the error, here's the corrected query:\n```sql\nSELECT 1\n```")
    assert not promises_next_step("I ran:\n```sql\nSELECT 1\n```\n@n[1]")


def test_a_query_written_out_instead_of_run_is_run(data_agent):
    backend = ScriptedBackend([
        "To fix it, here is the corrected query:\n```sql\nSELECT count(*) AS n FROM sales WHERE region = 'West'\n```",
        "@n[2]"])
    agent = data_agent(backend)
    r = agent.run("How many rows have region West? Answer as @n[value].")
    assert r.text == "@n[2]" and [a.name for a in r.tool_activity] == ["query_sql"]
    assert "n = 2" in [x for x in agent.store.list_records(agent.session.id) if x.role == "tool"][0].content


def test_the_forced_answer_carries_a_note(data_agent):
    sql = {"sql": "SELECT sum(units) AS total FROM sales"}
    backend = _no_tool_choice(ScriptedBackend([call("query_sql", sql), call("query_sql", sql), '{"answer": "15"}']))
    agent = data_agent(backend)
    agent.run("What is the total of units?")
    from shell_agent_lab.agent._loopguard import ANSWER_NOTE
    assert backend.requests[2].messages[-1].content == ANSWER_NOTE


def test_a_number_read_off_a_long_listing_is_not_grounded(store, settings):
    rows = pd.DataFrame({"v": [float(i) + 0.25 for i in range(80)]})
    settings.tool_set, settings.approval_policy = "compact", "approve"
    backend = ScriptedBackend([call("query_sql", {"sql": "SELECT v FROM big"}), "The average is 7.25.",
                               call("query_sql", {"sql": "SELECT avg(v) AS a FROM big"}), "The average is 39.75."])
    agent = Agent(store=store, registry=default_registry(), events=EventBus(), settings=settings, backend=backend,
                  engine_factory=lambda s: AnalysisEngine(None, namespace=lambda: {"big": rows}))
    agent.open_session(None, notebook_path="listing.ipynb")
    try:
        assert agent.run("What is the average of v?").text == "The average is 39.75."
        assert "7.25" in backend.requests[2].messages[-1].content      # the grounding note named it
    finally:
        agent.close()


def test_a_data_question_does_not_start_by_recording_an_answer(data_agent):
    backend = _no_tool_choice(ScriptedBackend([
        call("query_sql", {"sql": "SELECT region, sum(units) AS u FROM sales GROUP BY region ORDER BY u DESC LIMIT 1"}),
        call("promote_finding", {"finding": "West sold the most units (10).", "severity": "info"}),
        "West sold the most units: 10."]))
    agent = data_agent(backend)
    agent.run("Which region sold the most units? Record the answer as a finding with promote_finding.")
    first, second = backend.requests[0], backend.requests[1]
    assert "promote_finding" in [t.name for t in first.tools]          # offered all along
    assert [s["properties"]["name"]["const"] for s in first.options.response_format["anyOf"]] == \
        ["query_sql"]                                                    # but not the first call
    assert second.options.response_format is None


def test_a_required_first_call_finds_rows_and_records_nothing():
    """A small model reaches for statistics to sum, count and rank, and records an answer it
    made up when a recording tool is offered first: the first call is SQL's."""
    from shell_agent_lab.agent._tool_sets import first_call_tools
    tools = compact_tools(_specs(), {"remember_fact"})
    assert [t.name for t in first_call_tools(tools)] == ["query_sql"]


def test_a_tool_the_user_names_is_called_before_the_answer_is_taken(data_agent):
    backend = _no_tool_choice(ScriptedBackend([
        call("query_sql", {"sql": "SELECT region, sum(units) AS u FROM sales GROUP BY region ORDER BY u DESC LIMIT 1"}),
        "West sold the most units: 10.",
        call("promote_finding", {"finding": "West sold the most units (10).", "severity": "info"}),
        "West sold the most units: 10. Recorded as a finding."]))
    agent = data_agent(backend)
    r = agent.run("Which region sold the most units? Record the answer as a finding with promote_finding.")
    assert r.text.endswith("Recorded as a finding.")
    third = backend.requests[2]
    assert "promote_finding" in third.messages[-1].content
    assert [s["properties"]["name"]["const"] for s in third.options.response_format["anyOf"]] == ["promote_finding"]


def test_after_the_named_tool_runs_the_next_reply_must_answer(data_agent):
    from shell_agent_lab.agent._loopguard import ANSWER_NOTE
    backend = _no_tool_choice(ScriptedBackend([
        call("query_sql", {"sql": "SELECT 10 AS u"}), "West: 10.",
        call("promote_finding", {"finding": "West sold the most units (10).", "severity": "info"}),
        '{"answer": "West sold the most units: 10. Recorded."}']))
    agent = data_agent(backend)
    r = agent.run("Which region sold the most units? Record it as a finding with promote_finding.")
    assert r.text == "West sold the most units: 10. Recorded."
    assert backend.requests[3].options.response_format == ANSWER_SCHEMA
    assert backend.requests[3].messages[-1].content == ANSWER_NOTE


def test_one_tool_called_over_and_over_must_then_answer(data_agent):
    calls = [call("query_sql", {"sql": f"SELECT {i} AS n"}) for i in range(4)]
    backend = _no_tool_choice(ScriptedBackend([*calls, '{"answer": "3"}']))
    agent = data_agent(backend)
    assert agent.run("How many rows are there?").text == "3"
    assert backend.requests[4].options.response_format == ANSWER_SCHEMA


def test_an_answer_without_the_asked_format_is_asked_again(data_agent):
    from shell_agent_lab.agent._loopguard import missing_templates
    assert missing_templates(("n", "m"), "@n[3] and @m[value]") == ["m"]
    assert missing_templates((), "3") == []
    backend = _no_tool_choice(ScriptedBackend([call("query_sql", {"sql": "SELECT 15 AS total"}),
                                               "The total is 15.", '{"answer": "The total is 15. @total[15]"}']))
    agent = data_agent(backend)
    r = agent.run("What is the total of units? Answer as @total[value].")
    assert r.text == "The total is 15. @total[15]"
    assert "@total[…]" in backend.requests[2].messages[-1].content
    assert backend.requests[2].options.response_format == ANSWER_SCHEMA


# -- the way a message goes, chosen in the loop -----------------------------------------------------

def test_the_model_chooses_the_way_and_the_compact_set_offers_its_tool(data_agent):
    backend = _no_tool_choice(ScriptedBackend(['{"way": "create_chart"}', "I drew it."]))
    agent = data_agent(backend, route_by_model=True)
    agent.run("Show me units per region as bars")
    route, first = backend.requests
    assert route.options.response_format["title"] == "route" and route.tools == []
    assert route.last_user.startswith("Message: Show me units per region as bars")
    assert "create_chart" in [t.name for t in first.tools]
    assert first.options.response_format is None          # not a data question: no required call


def test_a_data_question_the_model_routes_to_the_answer_starts_with_a_required_call(data_agent):
    backend = _no_tool_choice(ScriptedBackend(['{"way": "answer"}', call("query_sql", {"sql": "SELECT 3 AS n"}),
                                               "There are 3 rows."]))
    agent = data_agent(backend, route_by_model=True)
    agent.run("How big is this table?")
    route, first, _ = backend.requests
    assert [t.name for t in first.tools] == ["query_sql", "statistics"]
    assert first.options.response_format == call_schema([t for t in first.tools if t.name == "query_sql"])


def test_a_stated_form_is_not_routed_by_the_model(data_agent):
    backend = ScriptedBackend([call("query_sql", {"sql": "SELECT 3 AS n"}), "@n[3]"])
    agent = data_agent(backend, route_by_model=True)
    assert agent.run("How many rows? Answer as @n[value].").text == "@n[3]"
    assert all((q.options.response_format or {}).get("title") != "route" for q in backend.requests)


def test_a_choice_off_the_schema_leaves_a_data_question_its_answer(data_agent):
    backend = _no_tool_choice(ScriptedBackend(["I think a chart", call("query_sql", {"sql": "SELECT 3 AS n"}),
                                               "There are 3 rows."]))
    agent = data_agent(backend, route_by_model=True)
    assert agent.run("How big is this table?").text == "There are 3 rows."
    assert backend.requests[1].options.response_format["title"] == "tool_call"

