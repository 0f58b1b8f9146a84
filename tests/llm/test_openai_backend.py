"""The real openai SDK against a local chat-completions server."""
from __future__ import annotations

import json
import threading

import pytest

from shell_agent_lab.llm.errors import (BadResponseError, CancelledError, ConfigurationError,
                                        RateLimitedError, ToolArgumentsError, UnreachableError)
from shell_agent_lab.llm.openai_backend import OpenAIBackend
from shell_agent_lab.llm.retry import RetryPolicy
from shell_agent_lab.llm.types import ChatOptions, Message, ToolCall, ToolSpec
from tests.support.fake_model_servers import FakeOpenAIServer, Reply, call

FAST = RetryPolicy(attempts=3, base_delay=0.01, jitter=0.0)
SQL = ToolSpec("run_sql", "Run a read-only SQL query", {
    "type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]})


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def make(server, **kw):
    kw.setdefault("retry", FAST)
    kw.setdefault("timeout", 5.0)
    return OpenAIBackend(base_url=server.url, api_key="sk-test", model="fake-model", **kw)


def test_tool_call_round_trip(server):
    server.enqueue(Reply(tool_calls=[call("run_sql", {"sql": "select 1"}, id="c1")]),
                   Reply(text="The answer is 1."))
    backend = make(server)
    msgs = [Message("system", "be brief"), Message("user", "what is 1?")]
    first = backend.chat(msgs, [SQL])
    assert first.tool_calls == [ToolCall("c1", "run_sql", {"sql": "select 1"})]
    assert first.finish_reason == "tool_calls"
    assert first.usage.input_tokens == 11 and first.usage.output_tokens == 7
    msgs += [Message("assistant", "", tool_calls=first.tool_calls),
             Message("tool", "1", tool_call_id="c1", name="run_sql")]
    second = backend.chat(msgs, [SQL])
    assert second.text == "The answer is 1."
    sent = server.chat_requests[1].json
    assert sent["model"] == "fake-model"
    assert sent["tools"][0]["function"]["name"] == "run_sql"
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant", "tool"]
    assert sent["messages"][2]["tool_calls"][0]["function"] == {"name": "run_sql", "arguments": '{"sql": "select 1"}'}
    assert sent["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "1"}
    assert server.chat_requests[0].headers["authorization"] == "Bearer sk-test"


def test_streaming_text_and_tool_call_deltas(server):
    server.enqueue(Reply(text="Hello there, world", chunk_size=5),
                   Reply(text="Checking", tool_calls=[call("run_sql", {"sql": "select 42"}, id="c9")]))
    backend = make(server)
    pieces: list[str] = []
    response = backend.stream([Message("user", "hi")], on_text=pieces.append)
    assert pieces == ["Hello", " ther", "e, wo", "rld"]
    assert response.text == "Hello there, world"
    assert response.usage.output_tokens == 7
    assert server.chat_requests[0].json["stream"] is True
    streamed = backend.stream([Message("user", "q")], [SQL], on_text=lambda t: None)
    assert streamed.tool_calls == [ToolCall("c9", "run_sql", {"sql": "select 42"})]
    assert streamed.finish_reason == "tool_calls"


def test_429_then_success_reports_retry(server):
    server.enqueue(Reply(status=429), Reply(text="ok"))
    seen = []
    response = make(server).chat([Message("user", "x")], options=ChatOptions(on_retry=seen.append))
    assert response.text == "ok"
    assert len(seen) == 1 and seen[0].attempt == 1 and seen[0].max_attempts == 3
    assert "429" in seen[0].error
    assert len(server.chat_requests) == 2


def test_429_forever_is_rate_limited(server):
    server.enqueue(Reply(status=429, repeat=True))
    with pytest.raises(RateLimitedError, match="gave up after 3 attempts"):
        make(server).chat([Message("user", "x")])


def test_500_until_exhausted(server):
    server.enqueue(Reply(status=500, repeat=True))
    seen = []
    with pytest.raises(BadResponseError) as info:
        make(server).chat([Message("user", "x")], options=ChatOptions(on_retry=seen.append))
    assert "server error 500" in str(info.value) and "gave up after 3 attempts" in str(info.value)
    assert len(seen) == 2 and len(server.chat_requests) == 3


def test_400_is_not_retried(server):
    server.enqueue(Reply(status=400, body={"error": {"message": "bad field"}}, repeat=True))
    with pytest.raises(BadResponseError, match="bad field"):
        make(server).chat([Message("user", "x")])
    assert len(server.chat_requests) == 1


def test_401_says_which_key(server):
    server.enqueue(Reply(status=401))
    with pytest.raises(ConfigurationError, match="Set OPENAI_API_KEY"):
        make(server).chat([Message("user", "x")])


@pytest.mark.parametrize("stream", [False, True])
def test_malformed_tool_arguments(server, stream):
    server.enqueue(Reply(tool_calls=[call("run_sql", '{"sql": "select 1"', id="bad")]))
    backend = make(server)
    with pytest.raises(ToolArgumentsError, match="not valid JSON") as info:
        if stream:
            backend.stream([Message("user", "x")], [SQL], on_text=lambda t: None)
        else:
            backend.chat([Message("user", "x")], [SQL])
    assert info.value.tool_name == "run_sql" and info.value.tool_call_id == "bad"
    assert len(server.chat_requests) == 1  # not retried


@pytest.mark.parametrize("stream", [False, True])
def test_oversized_tool_arguments(server, stream):
    big = json.dumps({"sql": "x" * (1024 * 1024 + 10)})
    server.enqueue(Reply(tool_calls=[call("run_sql", big, id="big")]))
    backend = make(server)
    with pytest.raises(ToolArgumentsError, match="over the 1048576-byte cap"):
        if stream:
            backend.stream([Message("user", "x")], [SQL], on_text=lambda t: None)
        else:
            backend.chat([Message("user", "x")], [SQL])


def test_response_size_cap(server):
    server.enqueue(Reply(text="y" * 5000))
    with pytest.raises(BadResponseError, match="over the 2000-byte cap"):
        make(server, max_response_bytes=2000).chat([Message("user", "x")])
    server.enqueue(Reply(text="y" * 5000, chunk_size=500))
    with pytest.raises(BadResponseError, match="2000-byte cap"):
        make(server, max_response_bytes=2000).stream([Message("user", "x")], on_text=lambda t: None)


@pytest.mark.timeout(20)  # hang guard: the late answer comes only when the server stops
def test_timeout_per_attempt_then_retry(server):
    server.enqueue(Reply(text="late", delay=600.0), Reply(text="on time"))
    seen, slept = [], []
    # 3 s: the prompt reply must come within the limit on a loaded machine too
    backend = make(server, timeout=3.0, sleep=lambda delay, cancel: slept.append(delay))
    response = backend.chat([Message("user", "x")], options=ChatOptions(on_retry=seen.append))
    assert response.text == "on time"                 # the second attempt, not the late first one
    assert len(server.chat_requests) == 2
    assert [r.attempt for r in seen] == [1] and "did not answer within 3 s" in seen[0].error
    assert slept == [seen[0].delay] == [FAST.delay(1)]  # the backoff went through the policy's sleep


def test_timeouts_are_the_sdks_own_type(server):
    # openai 3.x sends through httpx2: a timeout of another HTTP library's type is refused by
    # newer releases (TypeError when the client is made) and misread by older ones
    import httpx2
    backend = make(server, timeout=40.0)
    sent = backend._client._client.timeout
    assert isinstance(sent, httpx2.Timeout)
    assert (sent.connect, sent.read, sent.write, sent.pool) == (10.0, 40.0, 40.0, 40.0)


def test_timeout_exhausted_is_unreachable(server):
    server.enqueue(Reply(text="late", delay=5.0, repeat=True))
    with pytest.raises(UnreachableError, match="did not answer"):
        make(server, timeout=0.3, retry=RetryPolicy(attempts=2, base_delay=0, jitter=0)).chat([Message("user", "x")])


@pytest.mark.timeout(15)  # hang guard: the stream hangs for 30 s unless the cancel interrupts it
def test_cancel_mid_stream(server):
    server.enqueue(Reply(text="one two three four five", chunk_size=4, hang_after=3))
    cancel = threading.Event()
    pieces: list[str] = []

    def on_text(piece: str) -> None:  # after two chunks the stream hangs; cancel while it waits
        pieces.append(piece)
        if len(pieces) == 1:
            threading.Timer(0.3, cancel.set).start()

    with pytest.raises(CancelledError):
        make(server, timeout=60).stream([Message("user", "x")], on_text=on_text, options=ChatOptions(cancel=cancel))
    assert "".join(pieces) == "one two "
    assert len(server.chat_requests) == 1             # cancelled, not retried


def test_connection_refused_names_lm_studio():
    backend = OpenAIBackend(base_url="http://127.0.0.1:1234/v1", model="m", retry=RetryPolicy(attempts=1), timeout=2)
    try:
        import socket
        with socket.create_connection(("127.0.0.1", 1234), timeout=0.2):
            pytest.skip("something listens on 1234")
    except OSError:
        pass
    with pytest.raises(UnreachableError, match="Is LM Studio running on 127.0.0.1:1234"):
        backend.chat([Message("user", "x")])


def test_lenient_tool_call_in_text(server):
    server.enqueue(Reply(text='Sure.\n<tool_call>{"name": "run_sql", "arguments": {"sql": "select 2"}}</tool_call>'))
    response = make(server).chat([Message("user", "x")], [SQL])
    assert response.text == "Sure."
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("run_sql", {"sql": "select 2"})]
    assert response.finish_reason == "tool_calls" and response.extra["lenient_tool_calls"]
    server.enqueue(Reply(text='```json\n{"name": "run_sql", "arguments": {"sql": "select 3"}}\n```'))
    streamed = make(server).stream([Message("user", "x")], [SQL], on_text=lambda t: None)
    assert streamed.tool_calls[0].arguments == {"sql": "select 3"} and streamed.text == ""
    server.enqueue(Reply(text='{"name": "run_sql", "arguments": {"sql": "select 4"}}'))
    off = make(server, lenient_tools=False).chat([Message("user", "x")], [SQL])
    assert off.tool_calls == []


def test_fold_tool_results_and_split_images(server):
    server.enqueue(Reply(text="done"))
    msgs = [Message("user", "look", images=[("image/png", b"\x89PNG1"), ("image/png", b"\x89PNG2")]),
            Message("assistant", "calling", tool_calls=[ToolCall("c1", "run_sql", {"sql": "s"})]),
            Message("tool", "r1", tool_call_id="c1", name="run_sql"),
            Message("tool", "r2", tool_call_id="c2", name="run_sql")]
    make(server, fold_tool_results=True, split_images=True).chat(msgs, [SQL])
    sent = server.chat_requests[0].json["messages"]
    assert [m["role"] for m in sent] == ["user", "user", "assistant", "user"]
    assert sent[0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert len(sent[1]["content"]) == 1
    assert "tool_calls" not in sent[2] and '<tool_call>{"name": "run_sql"' in sent[2]["content"]
    assert "r1" in sent[3]["content"] and "r2" in sent[3]["content"]


def test_env_variables_as_sdk_defines_them(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    server.enqueue(Reply(text="ok"))
    backend = OpenAIBackend(retry=FAST)
    assert backend.chat([Message("user", "x")]).text == "ok"
    request = server.chat_requests[0]
    assert request.json["model"] == "env-model"
    assert request.headers["authorization"] == "Bearer sk-env"
    assert backend.identity == "openai/env-model"


def test_missing_key_for_remote_endpoint(monkeypatch):
    with pytest.raises(ConfigurationError, match="Set OPENAI_API_KEY"):
        OpenAIBackend(model="gpt")


def test_model_discovered_from_server(server):
    server.models = ["first-model", "second"]
    server.enqueue(Reply(text="ok"))
    backend = OpenAIBackend(base_url=server.url, retry=FAST)  # loopback: no key needed
    backend.chat([Message("user", "x")])
    assert backend.model == "first-model"
    assert server.chat_requests[0].json["model"] == "first-model"


@pytest.mark.timeout(15)  # hang guard: the answer comes only when the server stops
def test_cancel_while_waiting_for_headers(server):
    server.enqueue(Reply(text="late", delay=600.0))
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    with pytest.raises(CancelledError):
        make(server, timeout=60).chat([Message("user", "x")], options=ChatOptions(cancel=cancel))
    assert len(server.chat_requests) == 1             # cancelled, not retried


@pytest.mark.parametrize("raw, message", [(b"<html>proxy error</html>", "not JSON"),
                                          (b'{"object": "chat.completion"}', "no choices"),
                                          (b'{"error": {"message": "model crashed"}}', "model crashed")])
def test_unusable_200_answers(server, raw, message):
    server.enqueue(Reply(raw=raw))
    with pytest.raises(BadResponseError, match=message):
        make(server).chat([Message("user", "x")])
    assert len(server.chat_requests) == 1


def test_errors_are_one_line_with_a_hint(server):
    server.enqueue(Reply(status=503, body="<html>\n<body>down\nfor maintenance</body>\n</html>", repeat=True))
    with pytest.raises(BadResponseError) as info:
        make(server, retry=RetryPolicy(attempts=1)).chat([Message("user", "x")])
    text = str(info.value)
    assert "\n" not in text and "503" in text and " — " in text


def test_options_reach_the_request(server):
    server.enqueue(Reply(text="ok"))
    make(server, extra_body={"top_k": 5}).chat([Message("user", "x")],
                                                options=ChatOptions(temperature=0.1, max_output_tokens=33))
    body = server.chat_requests[0].json
    assert body["temperature"] == 0.1 and body["max_tokens"] == 33 and body["top_k"] == 5


WINDOW = {"title": "window findings", "type": "object",
          "properties": {"summary": {"type": "string"},
                         "new_findings": {"type": "array", "minItems": 0, "items": {"type": "string"}}},
          "required": ["summary", "new_findings"], "additionalProperties": False}


@pytest.mark.parametrize("stream", [False, True])
def test_a_response_schema_is_sent_as_json_schema_response_format(server, stream):
    server.enqueue(Reply(text='{"summary": "s", "new_findings": []}'))
    backend = make(server)
    options = ChatOptions(response_format=WINDOW)
    if stream:
        backend.stream([Message("user", "x")], on_text=lambda _: None, options=options)
    else:
        backend.chat([Message("user", "x")], options=options)
    sent = server.chat_requests[0].json["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["name"] == "window_findings" and sent["json_schema"]["strict"] is True
    assert sent["json_schema"]["schema"] == {k: v for k, v in WINDOW.items() if k != "title"}


def test_no_response_schema_no_response_format(server):
    server.enqueue(Reply(text="plain"))
    make(server).chat([Message("user", "x")])
    assert "response_format" not in server.chat_requests[0].json
