"""The tool loop's rules: round limit, empty-reply retry, loop detection, argument problems,
unknown and disabled tools, stable prompts for the prompt cache."""
from __future__ import annotations

from shell_agent_lab.agent._loopguard import EMPTY_REPLY_NOTE, PROMISE_NOTE
from shell_agent_lab.llm.errors import ToolArgumentsError
from shell_agent_lab.llm.scripted import ScriptedBackend, call, reply
from shell_agent_lab.llm.types import ToolCall
from shell_agent_lab.tools.registry import ToolDescriptor, ToolError

LOOP_NOTE_START = "Note: `always_fails` has returned an error 3 times in a row"


def failing_tool() -> ToolDescriptor:
    def handler(ctx, args):
        raise ToolError("the input file is malformed")
    return ToolDescriptor("always_fails", "Fails.", {"type": "object", "properties": {"x": {"type": "integer"}}},
                          handler)


def notes_in(request) -> list[str]:
    return [m.content for m in request.messages[1:] if m.role == "system"]


def test_max_tool_rounds(make_agent, settings, store):
    settings.max_tool_rounds = 3
    backend = ScriptedBackend(fn=lambda msgs, tools: call("resolve_date", {"expression": "today"}))
    agent, _ = make_agent(backend)
    r = agent.run("loop forever")
    assert r.text == "(Max tool rounds reached)" and r.error is None
    assert len(backend.requests) == 3
    assert [x.role for x in store.list_records(agent.session.id)].count("tool") == 3


def test_empty_reply_is_retried_once_with_a_note(make_agent, store):
    backend = ScriptedBackend(["", "Here is the summary."])
    agent, _ = make_agent(backend)
    r = agent.run("summarise")
    assert r.text == "Here is the summary."
    assert len(backend.requests) == 2
    assert notes_in(backend.requests[0]) == []
    assert notes_in(backend.requests[1]) == [EMPTY_REPLY_NOTE]
    # the note is transient: it is never stored
    assert all(EMPTY_REPLY_NOTE not in r.content for r in store.list_records(agent.session.id))


def test_empty_twice_ends_cleanly_and_nonempty_is_not_retried(make_agent):
    backend = ScriptedBackend(["", "   "])
    agent, _ = make_agent(backend)
    r = agent.run("hello")
    assert r.text == "" and r.error is None and len(backend.requests) == 2
    backend.enqueue("fine")
    assert agent.run("again").text == "fine"
    assert len(backend.requests) == 3


def test_loop_detection_notes_once_per_stretch(make_agent, store):
    tool_calls = [call("always_fails", {"x": i}) for i in range(4)]
    backend = ScriptedBackend([*tool_calls, "I will ask the user instead."])
    agent, _ = make_agent(backend)
    agent.registry.register(failing_tool())
    r = agent.run("process the file")
    assert r.text == "I will ask the user instead."
    per_request = [[n for n in notes_in(req) if n.startswith("Note: `")] for req in backend.requests]
    # requests 0-2 lead to three errors; request 3 carries the note; request 4 (after the 4th error) does not
    assert [len(n) for n in per_request] == [0, 0, 0, 1, 0]
    assert per_request[3][0].startswith(LOOP_NOTE_START)
    assert all("three times" not in r.content and "3 times in a row" not in r.content
               for r in store.list_records(agent.session.id))
    assert [a.status for a in r.tool_activity] == ["error"] * 4


def test_loop_detection_needs_the_same_tool(make_agent):
    calls = [call("always_fails"), call("always_fails"), call("resolve_date", {"expression": "bogus"}),
             call("always_fails"), "done"]
    backend = ScriptedBackend(calls)
    agent, _ = make_agent(backend)
    agent.registry.register(failing_tool())
    agent.run("go")
    assert not any(n.startswith("Note: `") for req in backend.requests for n in notes_in(req))


def test_argument_problems_come_back_as_tool_errors(make_agent, store):
    backend = ScriptedBackend([
        call("resolve_date", {"reference_date": "2026-01-01"}, id="missing"),          # required missing
        call("resolve_date", {"expression": 5}, id="wrongtype"),                      # wrong type
        call("resolve_date", {"expression": "x" * (1024 * 1024 + 10)}, id="huge"),    # over 1 MiB
        ToolArgumentsError("arguments for tool 'resolve_date' are not valid JSON (Expecting value at position 0)",
                           tool_name="resolve_date", tool_call_id="broken"),
        "Sorry, let me try differently.", "I could not read the date; which day do you mean?"])
    agent, _ = make_agent(backend)
    r = agent.run("when?")
    # a reply that only announces a next step is sent back once, with a note and a required call
    assert r.text == "I could not read the date; which day do you mean?"
    assert PROMISE_NOTE in notes_in(backend.requests[-1])
    assert backend.requests[-1].options.tool_choice == "required"
    tools = {x.tool_call_id: x for x in store.list_records(agent.session.id) if x.role == "tool"}
    assert "missing required 'expression'" in tools["missing"].content
    assert "expected string" in tools["wrongtype"].content
    assert "too large" in tools["huge"].content
    assert "not valid JSON" in tools["broken"].content
    assert all(t.status == "error" for t in tools.values())
    # each error reached the model as the answer to its call
    last = backend.requests[-1].messages
    answered = {m.tool_call_id for m in last if m.role == "tool"}
    assert {"missing", "wrongtype", "huge", "broken"} <= answered


def test_unknown_and_disabled_tools(make_agent, settings, store):
    settings.disabled_tools = ["resolve-date"]          # canonicalised to resolve_date
    backend = ScriptedBackend([call("resolve_date", {"expression": "today"}, id="d"),
                               call("no_such_tool", {}, id="u"), "ok"])
    agent, _ = make_agent(backend)
    agent.run("date?")
    assert "resolve_date" not in backend.requests[0].tool_names
    tools = {x.tool_call_id: x.content for x in store.list_records(agent.session.id) if x.role == "tool"}
    assert "no tool named 'resolve_date'" in tools["d"]
    assert "no tool named 'no_such_tool'" in tools["u"]


def test_remember_fact_only_offered_without_auto_extraction(make_agent, settings):
    backend = ScriptedBackend(["a", "b"])
    agent, _ = make_agent(backend)
    agent.run("one")
    assert "remember_fact" in backend.requests[-1].tool_names
    settings.auto_extract = True
    agent._extractor = lambda session, backend, cancel: None
    agent.run("two")
    assert "remember_fact" not in backend.requests[-1].tool_names


def test_two_turns_send_identical_system_prompt_and_tools(make_agent):
    backend = ScriptedBackend([call("resolve_date", {"expression": "today"}), "first", "second"])
    agent, _ = make_agent(backend)
    agent.run("what is the date?")
    agent.run("thanks")
    systems = [r.messages[0].content.encode() for r in backend.requests]
    tools = [r.tools for r in backend.requests]
    assert len(set(systems)) == 1
    assert all(t == tools[0] for t in tools) and tools[0]
    assert [t.name for t in tools[0]] == sorted(t.name for t in tools[0])
    # the later request begins with every message of the earlier one (prompt-cache friendly)
    first, last = backend.requests[1].messages, backend.requests[2].messages
    assert last[:len(first)] == first


def test_tool_exception_is_reported_not_raised(make_agent, store):
    def broken(ctx, args):
        raise ZeroDivisionError("division by zero")
    backend = ScriptedBackend([call("broken", {}, id="b"), "recovered"])
    agent, _ = make_agent(backend)
    agent.registry.register(ToolDescriptor("broken", "Breaks.", {"type": "object", "properties": {}}, broken))
    r = agent.run("go")
    assert r.text == "recovered"
    tool = [x for x in store.list_records(agent.session.id) if x.role == "tool"][0]
    assert tool.content == "Error: broken failed: ZeroDivisionError: division by zero"


def test_narrative_text_with_tool_calls_is_published(make_agent):
    backend = ScriptedBackend([reply("Let me check the calendar.", ToolCall("c", "resolve_date",
                                                                              {"expression": "today"})), "Done."])
    agent, rec = make_agent(backend)
    agent.run("date")
    assert rec.of("assistant_text")[0].data["text"] == "Let me check the calendar."


def test_missing_and_repeated_call_ids_are_made_unique(make_agent, store):
    backend = ScriptedBackend([
        reply("", ToolCall("", "resolve_date", {"expression": "today"}),
              ToolCall("0", "resolve_date", {"expression": "yesterday"})),
        reply("", ToolCall("0", "resolve_date", {"expression": "tomorrow"})),
        "done"])
    agent, rec = make_agent(backend)
    agent.run("dates")
    records = store.list_records(agent.session.id)
    call_ids = [c["id"] for r in records if r.role == "assistant" for c in (r.tool_calls or [])]
    tool_ids = [r.tool_call_id for r in records if r.role == "tool"]
    assert len(set(call_ids)) == 3 and "" not in call_ids and call_ids == tool_ids
    assert [e.data["tool_call_id"] for e in rec.of("tool_end")] == tool_ids
    last = backend.requests[-1].messages
    assert [m.tool_call_id for m in last if m.role == "tool"] == tool_ids


def test_tool_progress_is_matched_to_its_call(make_agent):
    def slow(ctx, args):
        for k in (1, 2):
            ctx.progress(f"window {k}/2", k, 2)
        return "finished"
    backend = ScriptedBackend([call("windows", {}, id="w1"), "ok"])
    agent, rec = make_agent(backend)
    agent.registry.register(ToolDescriptor("windows", "Works in windows.", {"type": "object", "properties": {}}, slow))
    agent.run("go")
    progress = rec.of("tool_progress")
    assert [(e.data["tool_call_id"], e.data["name"], e.data["detail"]) for e in progress] == \
        [("w1", "windows", "window 1/2"), ("w1", "windows", "window 2/2")]
    assert progress[0].data["turn_id"] == rec.of("tool_start")[0].data["turn_id"]


def test_provider_extras_are_replayed_on_the_next_request(make_agent):
    first = reply("", ToolCall("c1", "resolve_date", {"expression": "today"}, extra={"thought_signature": "c2ln"}))
    first.extra = {"thought_signature": "bXNn"}
    final = reply("Today it is.")
    final.extra = {"thought_signature": "ZW5k"}
    backend = ScriptedBackend([first, final, "next"])
    agent, _ = make_agent(backend)
    agent.run("date?")
    agent.run("thanks")
    assistants = [m for m in backend.requests[-1].messages if m.role == "assistant"]
    assert assistants[0].extra == {"thought_signature": "bXNn"}
    assert assistants[0].tool_calls[0].extra == {"thought_signature": "c2ln"}
    assert assistants[1].extra == {"thought_signature": "ZW5k"}


def test_a_made_up_tool_result_is_never_shown_and_the_model_is_asked_again(make_agent, store):
    from shell_agent_lab.agent._loopguard import FAKE_RESULT_NOTE

    fake = "<tool_response>\n| product | total |\n|---|---|\n| Product A | 12345.0 |\n</tool_response>"
    backend = ScriptedBackend([fake, "Gadget sold the most."])
    agent, _ = make_agent(backend)
    r = agent.run("total per product?")
    assert r.text == "Gadget sold the most."
    assert notes_in(backend.requests[1]) == [FAKE_RESULT_NOTE]
    assert all("12345" not in rec.content for rec in store.list_records(agent.session.id))


def test_a_made_up_tool_result_twice_is_treated_as_no_answer(make_agent):
    fake = "<tool_response>\n(1 row)\n</tool_response>"
    backend = ScriptedBackend([fake, fake, "Sorry, I could not get that."])
    agent, _ = make_agent(backend)
    r = agent.run("total per product?")
    assert r.text == "Sorry, I could not get that." and len(backend.requests) == 3
    assert notes_in(backend.requests[2]) == [EMPTY_REPLY_NOTE]
