"""The real google-genai SDK against a local generateContent server."""
from __future__ import annotations

import base64
import threading

import pytest
from google.oauth2.credentials import Credentials

from shell_agent_lab.llm.errors import (BadResponseError, CancelledError, ConfigurationError,
                                        RateLimitedError, UnreachableError)
from shell_agent_lab.llm.gemini_backend import GeminiBackend
from shell_agent_lab.llm.retry import RetryPolicy
from shell_agent_lab.llm.types import ChatOptions, Message, ToolCall, ToolSpec
from tests.support.fake_model_servers import FakeGeminiServer, GeminiReply

FAST = RetryPolicy(attempts=3, base_delay=0.01, jitter=0.0)
SQL = ToolSpec("run_sql", "Run SQL", {"type": "object", "properties": {"sql": {"type": "string"}},
                                      "required": ["sql"]})
SIG = base64.b64encode(b"signature-1").decode()


@pytest.fixture
def server():
    with FakeGeminiServer() as srv:
        yield srv


def make(server, **kw):
    kw.setdefault("retry", FAST)
    kw.setdefault("timeout", 5.0)
    return GeminiBackend(api_key="g-key", base_url=server.url, model="gemini-test", **kw)


def test_function_call_round_trip_with_signatures(server):
    server.enqueue(GeminiReply(parts=[
        {"text": "Let me think about tables", "thought": True, "thoughtSignature": SIG},
        {"text": "Checking."},
        {"functionCall": {"name": "run_sql", "args": {"sql": "select 1"}, "id": "fc-1"},
         "thoughtSignature": base64.b64encode(b"call-sig").decode()},
        {"functionCall": {"name": "run_sql", "args": {"sql": "select 2"}}},
    ]), GeminiReply(parts=[{"text": "Both are small."}]))
    backend = make(server)
    msgs = [Message("system", "be brief"), Message("system", "memory"), Message("user", "how many?")]
    first = backend.chat(msgs, [SQL])
    assert first.text == "Checking."  # the thought is not in the text
    assert first.extra["thought_signature"] == SIG
    one, two = first.tool_calls
    assert (one.id, one.name, one.arguments) == ("fc-1", "run_sql", {"sql": "select 1"})
    assert base64.b64decode(one.extra["thought_signature"]) == b"call-sig"
    assert two.id.startswith("vc-") and len(two.id) == 15 and two.extra["synthetic_id"]
    assert first.finish_reason == "tool_calls" and first.usage.input_tokens == 13

    msgs += [Message("assistant", first.text, tool_calls=first.tool_calls, extra=first.extra),
             Message("tool", "1", tool_call_id="fc-1", name="run_sql"),
             Message("tool", "2", tool_call_id=two.id)]  # name recovered from the call
    assert backend.chat(msgs, [SQL]).text == "Both are small."

    sent = server.requests[1].json
    assert sent["systemInstruction"]["parts"][0]["text"] == "be brief\n\nmemory"
    assert sent["tools"][0]["functionDeclarations"][0]["name"] == "run_sql"
    assert [c["role"] for c in sent["contents"]] == ["user", "model", "user"]
    model_parts = sent["contents"][1]["parts"]
    assert model_parts[0] == {"text": "Checking.", "thoughtSignature": SIG}
    assert model_parts[1]["functionCall"] == {"id": "fc-1", "name": "run_sql", "args": {"sql": "select 1"}}
    assert base64.b64decode(model_parts[1]["thoughtSignature"]) == b"call-sig"
    assert "id" not in model_parts[2]["functionCall"]  # synthesised ids never go back
    responses = sent["contents"][2]["parts"]  # two tool results coalesced into one content
    assert [p["functionResponse"]["name"] for p in responses] == ["run_sql", "run_sql"]
    assert responses[0]["functionResponse"] == {"id": "fc-1", "name": "run_sql", "response": {"result": "1"}}
    assert server.requests[0].headers["x-goog-api-key"] == "g-key"


def test_streaming(server):
    server.enqueue(GeminiReply(parts=[{"text": "hidden", "thought": True}, {"text": "Hel"}, {"text": "lo"},
                                      {"functionCall": {"name": "run_sql", "args": {"sql": "s"}}}]))
    pieces = []
    response = make(server).stream([Message("user", "hi")], [SQL], on_text=pieces.append)
    assert pieces == ["Hel", "lo"]
    assert response.text == "Hello" and response.tool_calls[0].name == "run_sql"
    assert server.requests[0].path.endswith(":streamGenerateContent")
    assert server.requests[0].query == {"alt": ["sse"]}


def test_429_then_success(server):
    server.enqueue(GeminiReply(status=429), GeminiReply(parts=[{"text": "ok"}]))
    seen = []
    assert make(server).chat([Message("user", "x")], options=ChatOptions(on_retry=seen.append)).text == "ok"
    assert len(seen) == 1
    assert "429" in seen[0].error


def test_errors_translate(server):
    server.enqueue(GeminiReply(status=500, repeat=True))
    with pytest.raises(BadResponseError, match="gave up after 3 attempts"):
        make(server).chat([Message("user", "x")])
    server._queue.clear()
    server.enqueue(GeminiReply(status=429, repeat=True))
    with pytest.raises(RateLimitedError):
        make(server).chat([Message("user", "x")])
    server._queue.clear()
    server.enqueue(GeminiReply(status=403))
    with pytest.raises(ConfigurationError, match="GEMINI_API_KEY"):
        make(server).chat([Message("user", "x")])


@pytest.mark.timeout(15)  # hang guard: the stream hangs for 30 s unless the cancel interrupts it
def test_cancel_mid_stream(server):
    server.enqueue(GeminiReply(parts=[{"text": "a"}, {"text": "b"}, {"text": "c"}], hang_after=1))
    cancel = threading.Event()
    pieces = []

    def on_text(piece):  # the stream then hangs; cancel while it waits
        pieces.append(piece)
        threading.Timer(0.2, cancel.set).start()

    with pytest.raises(CancelledError):
        make(server, timeout=60).stream([Message("user", "x")], on_text=on_text, options=ChatOptions(cancel=cancel))
    assert pieces == ["a"]
    assert len(server.requests) == 1                  # cancelled, not retried


def test_timeout_is_unreachable(server):
    server.enqueue(GeminiReply(parts=[{"text": "late"}], delay=5, repeat=True))
    with pytest.raises(UnreachableError):
        make(server, timeout=0.3, retry=RetryPolicy(attempts=1)).chat([Message("user", "x")])


def test_key_from_env_and_missing_key(server, monkeypatch):
    with pytest.raises(ConfigurationError, match="GEMINI_API_KEY / GOOGLE_API_KEY"):
        GeminiBackend()
    monkeypatch.setenv("GOOGLE_API_KEY", "from-google")
    server.enqueue(GeminiReply(parts=[{"text": "ok"}]))
    GeminiBackend(base_url=server.url, retry=FAST).chat([Message("user", "x")])
    assert server.requests[0].headers["x-goog-api-key"] == "from-google"


def test_vertex_path_and_bearer_token(server):
    server.enqueue(GeminiReply(parts=[{"text": "from vertex"}]))
    backend = GeminiBackend(vertex=True, project="proj", location="europe-west4", base_url=server.url,
                            credentials=Credentials(token="tok"), retry=FAST)
    assert backend.chat([Message("user", "x")]).text == "from vertex"
    assert backend.identity == "vertex/gemini-2.5-flash"
    request = server.requests[0]
    assert "/projects/proj/locations/europe-west4/publishers/google/models/gemini-2.5-flash:" in request.path
    assert request.headers["authorization"] == "Bearer tok"
    with pytest.raises(ConfigurationError, match="GOOGLE_CLOUD_PROJECT"):
        GeminiBackend(vertex=True, env={})


def test_contents_mapping_images_and_message_signature():
    from shell_agent_lab.llm.gemini_backend import to_gemini_contents

    system, contents = to_gemini_contents([
        Message("user", "see", images=[("image/png", b"\x89PNG")]),
        Message("assistant", "", tool_calls=[ToolCall("vc-0123456789ab", "run_sql", {"sql": "s"}, extra={"synthetic_id": True})],
                extra={"thought_signature": SIG}),
    ])
    assert system == ""
    user, model = contents
    assert user.parts[1].inline_data.data == b"\x89PNG" and user.parts[1].inline_data.mime_type == "image/png"
    call_part = model.parts[0]
    assert call_part.function_call.id is None and call_part.thought_signature == b"signature-1"


def test_options_reach_the_request(server):
    server.enqueue(GeminiReply(parts=[{"text": "ok"}]))
    make(server).chat([Message("user", "x")], options=ChatOptions(temperature=0.2, max_output_tokens=55))
    config = server.requests[0].json["generationConfig"]
    assert config["temperature"] == 0.2 and config["maxOutputTokens"] == 55


def test_blocked_prompt_is_a_clear_error(server):
    server.enqueue(GeminiReply(block_reason="SAFETY", repeat=True))
    with pytest.raises(BadResponseError, match=r"refused the prompt \(SAFETY\)"):
        make(server).chat([Message("user", "x")])
    assert len(server.requests) == 1  # not retried


def test_a_response_schema_becomes_a_json_response_with_that_schema(server):
    schema = {"title": "window_findings", "type": "object",
              "properties": {"summary": {"type": "string"}, "new_findings": {"type": "array", "minItems": 0,
                                                                              "items": {"type": "string"}}},
              "required": ["summary", "new_findings"]}
    server.enqueue(GeminiReply(parts=[{"text": '{"summary": "s", "new_findings": []}'}]),
                   GeminiReply(parts=[{"text": "plain"}]))
    backend = make(server)
    backend.chat([Message("user", "x")], options=ChatOptions(response_format=schema))
    config = server.requests[0].json["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == {k: v for k, v in schema.items() if k != "title"}
    backend.chat([Message("user", "x")])
    plain = server.requests[1].json.get("generationConfig") or {}
    assert "responseMimeType" not in plain and "responseJsonSchema" not in plain
