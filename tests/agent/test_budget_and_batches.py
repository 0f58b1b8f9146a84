"""A reply's calls (identical ones run once, at most six), the question's time budget, calls
written as text, the ``model_wait`` heartbeat and the sized output limits — through the real
agent, store and context builder with a scripted model and an injected clock."""
from __future__ import annotations

import os
import threading
import time

import pytest

from shell_agent_lab.agent import _loop, _model_request
from shell_agent_lab.agent._batch import MAX_CALLS_PER_REPLY, SAME_CALL_TEXT, cap_note, plan_batch
from shell_agent_lab.agent._budget import DeadlineEvent
from shell_agent_lab.agent._loopguard import ANSWER_NOTE, EMPTY_REPLY_NOTE
from shell_agent_lab.llm.scripted import ScriptedBackend, reply
from shell_agent_lab.llm.types import Response, ToolCall
from shell_agent_lab.tools.registry import ToolDescriptor


class Clock:
    """Seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def counting_tool(runs: list, *, clock: Clock | None = None, takes: float = 0.0) -> ToolDescriptor:
    def handler(ctx, args):
        runs.append(dict(args))
        if clock is not None:
            clock.now += takes
        return f"region {args.get('region', '?')}: 4211 orders"
    return ToolDescriptor("count_orders", "Counts orders.",
                          {"type": "object", "properties": {"region": {"type": "string"}}}, handler)


def notes_in(request) -> list[str]:
    return [m.content for m in request.messages[1:] if m.role == "system"]


def records(store, agent, role: str):
    return [r for r in store.list_records(agent.session.id) if r.role == role]


# -- one reply's calls --------------------------------------------------------------------------

def test_plan_batch_keeps_the_first_six_and_marks_copies():
    calls = ["a", "b", "a", "c", "a", "b", "d", "e", "f"]
    batch = plan_batch(calls, key=lambda c: c)
    assert batch.kept == ["a", "b", "a", "c", "a", "b"] and batch.dropped == 3 and batch.total == 9
    assert batch.same_as == {2: 0, 4: 0, 5: 1}
    assert "9 tool calls" in cap_note(batch) and "other 3 were not run" in cap_note(batch)
    assert cap_note(plan_batch(["a"], key=lambda c: c)) == ""


def test_forty_identical_calls_in_one_reply_run_once(make_agent, store):
    runs: list = []
    calls = [ToolCall(id=f"c{i}", name="count_orders", arguments={"region": "north"}) for i in range(40)]
    backend = ScriptedBackend([reply("", *calls), "North has 4211 orders."])
    agent, rec = make_agent(backend)
    agent.registry.register(counting_tool(runs))
    r = agent.run("how many orders in the north?")
    assert r.text == "North has 4211 orders." and r.error is None
    assert runs == [{"region": "north"}]                       # executed once
    assert len(r.tool_activity) == 1 and len(rec.of("tool_start")) == 1
    assistant = [x for x in records(store, agent, "assistant") if x.tool_calls]
    assert len(assistant[0].tool_calls) == MAX_CALLS_PER_REPLY     # the excess is not kept
    results = [x.content for x in records(store, agent, "tool")]
    assert results[0] == "region north: 4211 orders"
    assert results[1:] == [SAME_CALL_TEXT] * (MAX_CALLS_PER_REPLY - 1)
    second = notes_in(backend.requests[1])
    assert any("40 tool calls" in n and "other 34 were not run" in n for n in second)
    assert ANSWER_NOTE in second                      # a reply that repeats itself must answer next
    assert len(backend.requests) == 2


def test_distinct_calls_past_the_cap_are_not_run_and_the_model_is_told(make_agent, store):
    runs: list = []
    calls = [ToolCall(id=f"c{i}", name="count_orders", arguments={"region": f"r{i}"}) for i in range(8)]
    backend = ScriptedBackend([reply("", *calls), "done"])
    agent, _ = make_agent(backend)
    agent.registry.register(counting_tool(runs))
    agent.run("count each region")
    assert [a["region"] for a in runs] == [f"r{i}" for i in range(6)]
    assert any("8 tool calls" in n and "other 2 were not run" in n for n in notes_in(backend.requests[1]))
    assert len(records(store, agent, "tool")) == 6


# -- the question's time budget -----------------------------------------------------------------

def test_budget_spent_after_a_tool_answers_from_its_result(make_agent, settings, store):
    settings.question_budget = 60
    clock, runs = Clock(), []

    def first(messages, tools):
        clock.now += 20
        return reply("", ToolCall(id="c1", name="count_orders", arguments={"region": "north"}))

    backend = ScriptedBackend([first, "too late to be asked"])
    agent, rec = make_agent(backend, clock=clock)
    agent.registry.register(counting_tool(runs, clock=clock, takes=45))
    r = agent.run("how many orders in the north?")
    assert len(backend.requests) == 1                    # no model request after the time ran out
    assert r.error is None and r.text.startswith("Time ran out (the 60 s set by ShellAgent.question_budget)")
    assert "region north: 4211 orders" in r.text
    assert records(store, agent, "assistant")[-1].content == r.text
    assert rec.of("question_budget_spent")[0].data["results"] == 1


def test_a_long_analysis_asked_for_runs_on_its_own_time(make_agent, settings):
    """analyze_data reads a table window by window: the minutes it takes are not the question's."""
    import dataclasses
    settings.question_budget = 60
    clock, runs = Clock(), []
    backend = ScriptedBackend([reply("", ToolCall(id="c1", name="count_orders", arguments={"region": "north"})),
                               "North has 4211 orders."])
    agent, rec = make_agent(backend, clock=clock)
    agent.registry.register(dataclasses.replace(counting_tool(runs, clock=clock, takes=300), own_time=True))
    r = agent.run("how many orders in the north?")
    assert len(backend.requests) == 2 and r.text == "North has 4211 orders."     # the model still answers
    assert not rec.of("question_budget_spent")


def test_a_model_request_is_stopped_at_the_deadline(make_agent, settings):
    settings.question_budget = 30
    clock = Clock()

    def slow(messages, tools):
        clock.now += 31                 # the request outlives the budget while it streams
        return "This reply is long enough to be streamed in several pieces, so it is cut."

    backend = ScriptedBackend([slow])
    agent, rec = make_agent(backend, clock=clock)
    r = agent.run("what is the average order?")
    assert isinstance(backend.requests[0].options.cancel, DeadlineEvent)
    assert r.text.startswith("I could not answer in time (the 30 s set by ShellAgent.question_budget)")
    assert "the model had not finished its first reply" in r.text
    assert not any(ch.isdigit() for ch in r.text.split("question_budget")[1].split("%config")[0])
    assert rec.of("question_budget_spent")


def test_calls_left_when_the_time_runs_out_are_not_run(make_agent, settings, store):
    settings.question_budget = 60
    clock, runs = Clock(), []
    calls = [ToolCall(id=f"c{i}", name="count_orders", arguments={"region": f"r{i}"}) for i in range(3)]
    backend = ScriptedBackend([reply("", *calls)])
    agent, _ = make_agent(backend, clock=clock)
    agent.registry.register(counting_tool(runs, clock=clock, takes=61))
    r = agent.run("count three regions")
    assert [a["region"] for a in runs] == ["r0"]
    assert [x.content for x in records(store, agent, "tool")][1:] == [_loop.OUT_OF_TIME_RESULT] * 2
    assert "region r0: 4211 orders" in r.text and "Time ran out" in r.text


def test_no_budget_means_no_limit_and_cancel_still_cancels(make_agent, settings):
    settings.question_budget = 0
    clock = Clock()

    def slow(messages, tools):
        clock.now += 10_000
        return "Fine."

    backend = ScriptedBackend([slow])
    agent, _ = make_agent(backend, clock=clock)
    assert agent.run("hello").text == "Fine."
    assert not isinstance(backend.requests[0].options.cancel, DeadlineEvent)


def test_question_budget_setting_is_validated():
    from traitlets import TraitError

    from shell_agent_lab.config import ShellAgent

    assert ShellAgent().question_budget == 90.0
    with pytest.raises(TraitError, match="question_budget"):
        ShellAgent(question_budget=-1)


# -- calls written as text ----------------------------------------------------------------------

def test_a_tagged_call_in_the_text_is_run_as_the_call_it_meant(make_agent, store):
    text = '<tool_call>{"name": "resolve_date", "arguments": {"expression": "today"}}</tool_call>'
    backend = ScriptedBackend([text, "Today is the day."])
    agent, _ = make_agent(backend)
    r = agent.run("what day is it?")
    assert r.text == "Today is the day."
    assert [a.name for a in r.tool_activity] == ["resolve_date"]
    assert all("<tool_call>" not in x.content for x in records(store, agent, "assistant"))


@pytest.mark.parametrize("raw", [
    '{"name": "query_sql", "arguments": {"sql": "SELECT count(*) FROM sales"}}',       # tool not available
    '```json\n{"name": "resolve_date", "arguments": {"when": 3}}\n```',               # fails its schema
    '{"name": "query_sql", "arguments": {"sql": "SELECT a FROM t WHERE a IS NOT NULL AND',  # cut off
])
def test_a_raw_call_that_cannot_run_is_never_the_answer(make_agent, store, raw):
    backend = ScriptedBackend([raw, "I need a table to answer that."])
    agent, _ = make_agent(backend)
    r = agent.run("how many sales?")
    assert r.text == "I need a table to answer that."
    assert EMPTY_REPLY_NOTE in notes_in(backend.requests[1])
    assert all('"name"' not in x.content for x in records(store, agent, "assistant"))


# -- progress and output limits -----------------------------------------------------------------

def test_a_long_model_request_sends_model_wait_events(make_agent, monkeypatch):
    monkeypatch.setattr(_model_request, "HEARTBEAT_SECONDS", 0.02)

    def slow(messages, tools):
        time.sleep(0.3)
        return "Done."

    agent, rec = make_agent(ScriptedBackend([slow]))
    r = agent.run("take your time")
    assert r.text == "Done."
    beats = rec.of("model_wait")
    assert beats and all(b.data["turn_id"] == r.turn_id and isinstance(b.data["elapsed"], int) for b in beats)
    assert beats[0].data["budget"] == 90.0
    count = len(rec.of("model_wait"))
    time.sleep(0.1)
    assert len(rec.of("model_wait")) == count            # it stops with the request


def test_compact_requests_are_sized_and_full_ones_are_not(make_agent, settings):
    backend = ScriptedBackend(["Hello."])
    agent, _ = make_agent(backend)
    agent.run("hi")
    assert backend.requests[0].options.max_output_tokens is None
    settings.tool_set = "compact"
    backend.enqueue(Response(text="Hi again."))
    agent.run("hi again")
    assert backend.requests[1].options.max_output_tokens == _loop.ANSWER_TOKENS


def test_time_spent_waiting_for_approval_does_not_count(make_agent, settings):
    from shell_agent_lab.tools.approval import ApprovalDecision

    settings.question_budget = 60
    clock, runs = Clock(), []

    def approver(request):
        clock.now += 500                     # a person reads the call for minutes
        return ApprovalDecision(True)

    backend = ScriptedBackend([reply("", ToolCall(id="c1", name="count_orders", arguments={"region": "west"})),
                               "West has 4211 orders."])
    agent, _ = make_agent(backend, clock=clock, approver=approver)
    tool = counting_tool(runs)
    agent.registry.register(ToolDescriptor(tool.name, tool.description, tool.parameters, tool.handler,
                                           category="write", approval_default=True))
    r = agent.run("how many orders in the west?")
    assert runs == [{"region": "west"}] and r.text == "West has 4211 orders."


# -- the pure parts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, kept", [
    ('{"name": "query_sql", "arguments": {"sql": "SELECT 1"}}', ""),
    ('Here it is: <tool_call>{"name": "x", "arguments": {}}</tool_call>', "Here it is:"),
    ('The total is 5.\n```json\n{"name": "query_sql", "arguments": {"sql": "SELECT 1 AND', "The total is 5."),
    ('<tool_call>\n</tool_call>', ""),
    ('The column {"a": 1} holds JSON.', 'The column {"a": 1} holds JSON.'),
    ('```json\n{"region": "north", "total": 4}\n```', '```json\n{"region": "north", "total": 4}\n```'),
    ("North sold 4211 units.", "North sold 4211 units."),
])
def test_strip_raw_calls_removes_calls_and_nothing_else(text, kept):
    from shell_agent_lab.agent._rawcalls import strip_raw_calls

    assert strip_raw_calls(text) == kept


def test_late_answer_quotes_the_tools_and_adds_no_number():
    from shell_agent_lab.agent._budget import late_answer

    text = late_answer(90, [("query_sql", "n = 17\n(1 row)"), ("statistics", "mean = 3.25")], started=True)
    assert text.startswith("Time ran out (the 90 s set by ShellAgent.question_budget)")
    assert "**query_sql**\n```\nn = 17\n(1 row)\n```" in text and "mean = 3.25" in text
    nothing = late_answer(90, [], started=True)
    assert "no tool call had returned a result yet" in nothing
    assert "question_budget = 180" in nothing
    programs = late_answer(90, [], started=True, failed=["line 4: KeyError: 'x'", "line 7: NameError: name 'y' "
                                                         "is not defined — bind it first"])
    assert ("the 2 programs the model wrote computed no answer (the last: NameError: name 'y' is not "
            "defined); they are in the cells below") in programs and "bind it first" not in programs


def test_a_budget_spent_on_a_busy_machine_says_so_and_with_what(make_agent, settings, monkeypatch):
    from shell_agent_lab.llm.cpu_load import LoadWatch

    settings.question_budget = 30
    clock = Clock()
    procs = {os.getpid(): ("python", 0.0), 4242: ("duckdb", 0.0)}
    sampled = threading.Event()

    def snapshot():
        sampled.set()
        return dict(procs)

    monkeypatch.setattr(_loop, "LoadWatch", lambda: LoadWatch(snapshot=snapshot, ours=lambda: {os.getpid()},
                                                              clock=clock, cores=2))
    monkeypatch.setattr(_model_request, "HEARTBEAT_SECONDS", 0.01)

    def slow(messages, tools):
        assert sampled.wait(10)         # a heartbeat samples the machine meanwhile
        clock.now += 31
        procs[4242] = ("duckdb", 31.0)  # another process took one core the whole time
        return "This reply is long enough to be streamed in several pieces, so it is cut."

    agent, rec = make_agent(ScriptedBackend([slow]), clock=clock)
    r = agent.run("what is the average order?")
    assert r.text.startswith("I could not answer in time (the 30 s set by ShellAgent.question_budget): the "
                             "model had not finished its first reply, because the machine was busy: other "
                             "processes used 1.0 of its 2 cores, most of it duckdb (pid 4242).")
    assert "narrower" not in r.text and "\n" not in r.text
    assert rec.of("question_budget_spent")[0].data["busy"].startswith("the machine was busy")


def test_a_streamed_reply_reports_its_tokens_while_it_runs(make_agent, monkeypatch):
    monkeypatch.setattr(_model_request, "HEARTBEAT_SECONDS", 0.01)
    backend = ScriptedBackend(["One two three four five six seven eight nine ten eleven twelve."])
    real_stream = backend.stream

    def slow_stream(messages, tools=(), *, on_text, options=None):
        def each(piece):
            on_text(piece)
            seen = len(rec.of("model_wait"))
            deadline = time.monotonic() + 10
            while len(rec.of("model_wait")) == seen and time.monotonic() < deadline:
                time.sleep(0.005)       # a heartbeat between two pieces
        return real_stream(messages, tools, on_text=each, options=options)

    monkeypatch.setattr(backend, "stream", slow_stream)
    agent, rec = make_agent(backend)
    agent.run("count to twelve")
    tokens = [b.data["tokens"] for b in rec.of("model_wait")]
    assert tokens and all(isinstance(t, int) for t in tokens)
    assert tokens == sorted(tokens) and tokens[0] >= 1 and tokens[-1] > tokens[0]
