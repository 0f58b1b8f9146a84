from __future__ import annotations

import json

import pytest

from shell_agent_lab.context.prompt import MEMORY_HEADERS
from shell_agent_lab.llm.errors import ConfigurationError
from shell_agent_lab.llm.openai_backend import OpenAIBackend
from shell_agent_lab.llm.replay import ReplayBackend, ReplayMissError, normalize_request, request_key
from shell_agent_lab.llm.retry import RetryPolicy
from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.llm.types import Message, ToolCall, ToolSpec
from tests.support.fake_model_servers import FakeOpenAIServer, Reply
from tests.support.fake_model_servers import call as fake_call

SQL = ToolSpec("run_sql", "Run SQL", {"type": "object", "properties": {"sql": {"type": "string"}}})


def test_record_then_replay_offline(tmp_path):
    cassette = tmp_path / "cassettes" / "demo.json"
    convo = [Message("system", "sys"), Message("user", "count rows")]
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(tool_calls=[fake_call("run_sql", {"sql": "select count(*) from t"}, id="srv-1")]),
                       Reply(text="There are 3 rows.", chunk_size=4))
        real = OpenAIBackend(base_url=server.url, api_key="sk-test", model="m", retry=RetryPolicy(attempts=1))
        recorder = ReplayBackend(cassette, real, mode="record")
        first = recorder.chat(convo, [SQL])
        followup = convo + [Message("assistant", "", tool_calls=first.tool_calls),
                            Message("tool", "3", tool_call_id=first.tool_calls[0].id, name="run_sql")]
        streamed: list[str] = []
        recorder.stream(followup, [SQL], on_text=streamed.append)
        assert streamed == ["Ther", "e ar", "e 3 ", "rows", "."]
    # the server is gone: replay answers from the cassette alone
    player = ReplayBackend(cassette, mode="replay")
    again = player.chat(convo, [SQL])
    assert again.tool_calls == [ToolCall("srv-1", "run_sql", {"sql": "select count(*) from t"})]
    # the follow-up uses a different call id: ids are normalised, so it still matches
    renamed = convo + [Message("assistant", "", tool_calls=[ToolCall("other-id", "run_sql", {"sql": "select count(*) from t"})]),
                       Message("tool", "3", tool_call_id="other-id", name="run_sql")]
    pieces: list[str] = []
    assert player.stream(renamed, [SQL], on_text=pieces.append).text == "There are 3 rows."
    assert pieces == ["Ther", "e ar", "e 3 ", "rows", "."]
    with pytest.raises(ReplayMissError) as info:
        player.chat([Message("user", "never asked")], [SQL])
    assert str(cassette) in str(info.value) and "'never asked'" in str(info.value)
    assert "record-missing" in str(info.value)


def test_a_miss_says_where_the_request_parts_from_the_closest_recording(tmp_path):
    cassette = tmp_path / "c.json"
    asked = "These are the notebook's DataFrames. DataFrame `sales` (4 rows): 'region', 'units'. Question: average units per product?"
    ReplayBackend(cassette, ScriptedBackend(["ok"]), mode="record").chat([Message("user", asked)])
    player = ReplayBackend(cassette, mode="replay")
    with pytest.raises(ReplayMissError) as info:
        player.chat([Message("user", asked.replace("(4 rows)", "(5 rows)"))])
    assert "closest recording differs at character" in str(info.value)
    assert "(4 rows)" in str(info.value) and "(5 rows)" in str(info.value)
    with pytest.raises(ReplayMissError) as far:
        player.chat([Message("user", "something else entirely")])
    assert "closest recording" not in str(far.value)


def test_record_missing_appends_and_env_selects_mode(tmp_path, monkeypatch):
    cassette = tmp_path / "c.json"
    inner = ScriptedBackend(["one", "two"])
    ReplayBackend(cassette, inner, mode="record").chat([Message("user", "a")])
    monkeypatch.setenv("SHELL_AGENT_LAB_REPLAY", "record-missing")
    backend = ReplayBackend(cassette, inner)
    assert backend.mode == "record-missing"
    assert backend.chat([Message("user", "a")]).text == "one"   # replayed
    assert backend.chat([Message("user", "b")]).text == "two"   # recorded
    assert len(inner.requests) == 2
    assert len(json.loads(cassette.read_text())["interactions"]) == 2


def test_repeated_requests_replay_in_order(tmp_path):
    cassette = tmp_path / "c.json"
    recorder = ReplayBackend(cassette, ScriptedBackend(["first", "second"]), mode="record")
    recorder.chat([Message("user", "same")])
    recorder.chat([Message("user", "same")])
    player = ReplayBackend(cassette, mode="replay")
    assert [player.chat([Message("user", "same")]).text for _ in range(3)] == ["first", "second", "second"]


def test_secrets_are_scrubbed(tmp_path):
    cassette = tmp_path / "c.json"
    env = {"MY_SERVICE_TOKEN": "tok-1234567890", "HOME": "/home/x"}
    inner = ScriptedBackend([call("fetch", {"header": "Bearer abcdefghijkl"}, id="c1"), "key sk-abcdefghijklmnopqrstuv"])
    recorder = ReplayBackend(cassette, inner, mode="record", env=env)
    recorder.chat([Message("user", "use tok-1234567890 and api_key=hunter22")])
    recorder.chat([Message("user", "AIza" + "x" * 35)])
    text = cassette.read_text()
    for secret in ("tok-1234567890", "hunter22", "abcdefghijkl", "sk-abcdefghijklmnop", "AIzaxxx"):
        assert secret not in text
    assert "[REDACTED]" in text
    # a different secret value yields the same key: recordings survive key rotation
    a = request_key(normalize_request([Message("user", "sk-" + "a" * 20)], []))
    b = request_key(normalize_request([Message("user", "sk-" + "b" * 20)], []))
    assert a == b


def test_bad_setup_errors(tmp_path):
    with pytest.raises(ConfigurationError, match="does not exist"):
        ReplayBackend(tmp_path / "missing.json", mode="replay")
    with pytest.raises(ConfigurationError, match="needs a real backend"):
        ReplayBackend(tmp_path / "x.json", mode="record")
    with pytest.raises(ConfigurationError, match="unknown replay mode"):
        ReplayBackend(tmp_path / "x.json", mode="rewind")  # type: ignore[arg-type]
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigurationError, match="not readable"):
        ReplayBackend(broken, mode="replay")


def _prompt(memory: str = "") -> str:
    from shell_agent_lab.context.prompt import GLOBAL_HEADER, PromptParts, render_system_prompt

    parts = PromptParts(base="You are a data assistant (wording v1).", global_memory=memory)
    assert (GLOBAL_HEADER in render_system_prompt(parts)) == bool(memory)
    return render_system_prompt(parts)


def test_conversation_matching_still_pins_the_memory_in_the_prompt(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_REPLAY_MATCH", "conversation")
    cassette = tmp_path / "memory.json"
    question = Message("user", "Which month?")
    source = ScriptedBackend(["April (fiscal)"])
    recorder = ReplayBackend(cassette, source, mode="record", pinned_sections=MEMORY_HEADERS)
    recorder.chat([Message("system", _prompt("- [user-stated] User uses the fiscal year (learned 2026-01-02)")),
                   question])
    recorded = json.loads(cassette.read_text())["interactions"][0]
    assert recorded["memory"].startswith("Important facts you remember about the user:")
    assert "(learned DATE)" in recorded["memory"]

    player = ReplayBackend(cassette, mode="replay", pinned_sections=MEMORY_HEADERS)
    # reworded base prompt, same memory on another day: still answered
    reworded = _prompt("- [user-stated] User uses the fiscal year (learned 2026-03-04)").replace("v1", "v2")
    assert player.chat([Message("system", reworded), question]).text == "April (fiscal)"
    # the preference no longer reaches the prompt: the replay fails and says why
    with pytest.raises(ReplayMissError, match="other memory in the system prompt"):
        ReplayBackend(cassette, mode="replay", pinned_sections=MEMORY_HEADERS).chat(
            [Message("system", _prompt()), question])


def test_the_agents_factory_has_a_replay_pin_the_memory_sections(tmp_path, monkeypatch):
    from shell_agent_lab.agent.factory import _backend_factory
    from shell_agent_lab.config import ShellAgent

    monkeypatch.setenv("SHELL_AGENT_LAB_REPLAY_MATCH", "conversation")
    cassette = tmp_path / "memory.json"
    question = Message("user", "Which month?")
    ReplayBackend(cassette, ScriptedBackend(["April (fiscal)"]), mode="record", pinned_sections=MEMORY_HEADERS).chat(
        [Message("system", _prompt("- [user-stated] User uses the fiscal year")), question])
    settings = ShellAgent(profiles={"demo": {"backend": "replay", "options": {"cassette": str(cassette)}}},
                          profile="demo")
    player = _backend_factory(settings)(None)
    with pytest.raises(ReplayMissError, match="other memory in the system prompt"):
        player.chat([Message("system", _prompt()), question])
    # without the pin (the backend alone) the same request is answered
    assert ReplayBackend(cassette, mode="replay").chat([Message("system", _prompt()), question]).text


def test_recordings_without_memory_stay_valid(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_REPLAY_MATCH", "conversation")
    cassette = tmp_path / "old.json"
    convo = [Message("system", _prompt()), Message("user", "hi")]
    ReplayBackend(cassette, ScriptedBackend(["hello"]), mode="record").chat(convo)
    data = json.loads(cassette.read_text())
    assert data["interactions"][0]["memory"] == ""
    del data["interactions"][0]["memory"]          # as cassettes recorded before the pin
    cassette.write_text(json.dumps(data))
    later = [Message("system", _prompt("- a fact")), Message("user", "hi")]
    assert ReplayBackend(cassette, mode="replay").chat(later).text == "hello"


def test_full_matching_records_no_separate_memory(tmp_path, monkeypatch):
    monkeypatch.delenv("SHELL_AGENT_LAB_REPLAY_MATCH", raising=False)
    cassette = tmp_path / "full.json"
    ReplayBackend(cassette, ScriptedBackend(["x"]), mode="record").chat(
        [Message("system", _prompt("- a fact")), Message("user", "hi")])
    assert "memory" not in json.loads(cassette.read_text())["interactions"][0]


def test_a_model_reported_as_a_file_path_is_recorded_by_its_name_only(tmp_path):
    from shell_agent_lab.llm.types import Response

    class PathModel(ScriptedBackend):
        def chat(self, messages, tools=(), *, options=None):
            response = super().chat(messages, tools, options=options)
            return Response(text=response.text, model="/home/ana/models/qwen-1.5b.gguf")

    cassette = tmp_path / "m.json"
    ReplayBackend(cassette, PathModel(["ok"]), mode="record").chat([Message("user", "hi")])
    assert json.loads(cassette.read_text())["interactions"][0]["response"]["model"] == "qwen-1.5b.gguf"


SCHEMA = {"title": "window_findings", "type": "object",
          "properties": {"summary": {"type": "string"}, "new_findings": {"type": "array"}},
          "required": ["summary", "new_findings"]}


def test_a_response_schema_keys_stably_and_leaves_schemaless_keys_alone(monkeypatch):
    monkeypatch.delenv("SHELL_AGENT_LAB_REPLAY_MATCH", raising=False)
    convo = [Message("system", "sys"), Message("user", "window 1")]
    plain = normalize_request(convo, [SQL], {})
    assert "response_format" not in plain                       # recorded cassettes keep their keys
    assert request_key(plain) == request_key(normalize_request(convo, [SQL], {}, response_format=None))
    with_schema = request_key(normalize_request(convo, [SQL], {}, response_format=SCHEMA))
    reordered = dict(reversed(list(SCHEMA.items())))
    assert with_schema == request_key(normalize_request(convo, [SQL], {}, response_format=reordered))
    assert with_schema != request_key(plain)
    other = {**SCHEMA, "required": ["summary"]}
    assert with_schema != request_key(normalize_request(convo, [SQL], {}, response_format=other))
    conv = {"SHELL_AGENT_LAB_REPLAY_MATCH": "conversation"}   # the notebooks' matching ignores it, like tools
    assert request_key(normalize_request(convo, [], conv, response_format=SCHEMA)) == \
        request_key(normalize_request(convo, [], conv))


def test_a_schema_request_records_and_replays(tmp_path, monkeypatch):
    from shell_agent_lab.llm.types import ChatOptions

    monkeypatch.delenv("SHELL_AGENT_LAB_REPLAY_MATCH", raising=False)
    cassette = tmp_path / "s.json"
    inner = ScriptedBackend(['{"summary": "s", "new_findings": []}', "free text"])
    recorder = ReplayBackend(cassette, inner, mode="record")
    convo = [Message("user", "window 1")]
    recorder.chat(convo, options=ChatOptions(response_format=SCHEMA))
    recorder.chat(convo)
    recorded = json.loads(cassette.read_text())["interactions"]
    assert recorded[0]["request"]["response_format"] == SCHEMA and "response_format" not in recorded[1]["request"]
    player = ReplayBackend(cassette, mode="replay")
    assert player.chat(convo, options=ChatOptions(response_format=SCHEMA)).text.startswith('{"summary"')
    assert player.chat(convo).text == "free text"
