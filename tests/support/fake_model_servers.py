"""Local HTTP servers that speak the model protocols, for driving the real SDKs in tests.

* :class:`FakeOpenAIServer` — ``POST /v1/chat/completions`` (JSON, or SSE when the request
  says ``"stream": true``, tool-call deltas included) and ``GET /v1/models``.
* :class:`FakeGeminiServer` — ``…/models/<model>:generateContent`` and
  ``…:streamGenerateContent?alt=sse`` (Gemini API and Vertex AI paths alike).

Both answer from a queue of scripted replies (then :attr:`default`), record every request in
:attr:`requests`, and can inject failures: an HTTP status (429, 500, …), a delay before the
answer (timeouts), a stream that hangs or is cut after N chunks (cancellation, a dropped
connection), raw argument strings (malformed or oversized tool arguments). A reply with ``repeat=True`` answers forever;
one with ``loop="…"`` streams that piece again and again without finishing (a model caught in a loop),
as text or, with ``loop_in_arguments=True``, inside its first tool call's arguments.

Usage::

    with FakeOpenAIServer() as server:
        server.enqueue(Reply(text="hi"), Reply(status=429), Reply(tool_calls=[call("run_sql", {...})]))
        backend = OpenAIBackend(base_url=server.url, api_key="test", model="m")
"""
from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

__all__ = ["Reply", "GeminiReply", "RecordedRequest", "FakeOpenAIServer", "FakeGeminiServer", "call"]


def call(name: str, arguments: dict | str, id: str | None = None) -> dict[str, Any]:
    """A tool call for :class:`Reply`; ``arguments`` may be a raw string (malformed tests)."""
    return {"id": id, "name": name, "arguments": arguments}


@dataclass
class Reply:
    """One chat-completions answer (or failure)."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    #: raw error body (dict → JSON); default is an OpenAI-style error object
    body: Any = None
    delay: float = 0.0                 # seconds before answering
    hang_after: int | None = None      # streaming: stop sending after N chunks and hang
    cut_after: int | None = None       # streaming: close the connection after N chunks
    chunk_size: int = 4                # characters of text per SSE chunk
    finish_reason: str | None = None
    usage: tuple[int, int] = (11, 7)
    repeat: bool = False               # keep answering with this reply
    model: str = "fake-model"
    raw: bytes | None = None           # send these bytes as a 200 JSON body (streamed: as one event) instead
    loop: str | None = None            # streaming: then send this piece forever (until the client leaves, 30 s)
    loop_in_arguments: bool = False    # the loop is inside the first tool call's arguments


@dataclass
class GeminiReply:
    """One generateContent answer: ``parts`` are Gemini part dicts (text, thought, functionCall…)."""

    parts: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    body: Any = None
    delay: float = 0.0
    hang_after: int | None = None      # streaming: parts sent before hanging
    finish_reason: str = "STOP"
    usage: tuple[int, int] = (13, 5)
    repeat: bool = False
    block_reason: str | None = None    # answer with promptFeedback.blockReason and no candidates


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    json: Any


class _Server:
    """A threaded HTTP server on 127.0.0.1 (free port) with a reply queue."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.default: Any = None
        self._queue: deque[Any] = deque()
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> "_Server":
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer._handle(self, "GET")

            def do_POST(self) -> None:
                outer._handle(self, "POST")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=type(self).__name__, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "_Server":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- scripting --------------------------------------------------------------------------
    def enqueue(self, *replies: Any) -> None:
        with self._lock:
            self._queue.extend(replies)

    def _next(self) -> Any:
        with self._lock:
            if self._queue:
                reply = self._queue[0]
                if not getattr(reply, "repeat", False):
                    self._queue.popleft()
                return reply
        return self.default

    # -- plumbing ---------------------------------------------------------------------------
    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urlparse(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        record = RecordedRequest(method, url.path, parse_qs(url.query),
                                 {k.lower(): v for k, v in handler.headers.items()}, body)
        with self._lock:
            self.requests.append(record)
        try:
            self.route(handler, record)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def route(self, handler: BaseHTTPRequestHandler, request: RecordedRequest) -> None:
        raise NotImplementedError

    @staticmethod
    def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    @staticmethod
    def start_sse(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()

    @staticmethod
    def send_event(handler: BaseHTTPRequestHandler, payload: Any) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        handler.wfile.write(f"data: {data}\n\n".encode())
        handler.wfile.flush()

    def hang(self) -> None:
        """Hold the connection open until the server stops (or 30 s)."""
        self._release.wait(30)

    def wait_before(self, delay: float) -> None:
        if delay:
            self._release.wait(delay)


class FakeOpenAIServer(_Server):
    """Chat completions on ``<url>/chat/completions``; :attr:`url` is the SDK base URL."""

    def __init__(self, models: tuple[str, ...] = ("fake-model",)) -> None:
        super().__init__()
        self.models = list(models)
        self.loops_sent = 0
        self.loop_ended: float | None = None
        self.default = Reply(text="(no scripted reply)")

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def route(self, handler: BaseHTTPRequestHandler, request: RecordedRequest) -> None:
        if request.method == "GET" and request.path.endswith("/models"):
            self.send_json(handler, 200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models]})
            return
        if not request.path.endswith("/chat/completions"):
            self.send_json(handler, 404, {"error": {"message": f"no route {request.path}", "type": "not_found"}})
            return
        reply: Reply = self._next()
        self.wait_before(reply.delay)
        if reply.status != 200:
            body = reply.body if reply.body is not None else {
                "error": {"message": f"injected status {reply.status}", "type": "fake", "code": str(reply.status)}}
            self.send_json(handler, reply.status, body if not isinstance(body, str) else body.encode())
            return
        stream = isinstance(request.json, dict) and request.json.get("stream")
        if reply.raw is not None and stream:      # one server-sent event carrying these bytes
            self.start_sse(handler)
            handler.wfile.write(b"data: " + reply.raw + b"\n\n")
            handler.wfile.flush()
        elif reply.raw is not None:
            self.send_json(handler, 200, reply.raw)
        elif stream:
            self._stream(handler, reply)
        else:
            self.send_json(handler, 200, self._completion(reply))

    @staticmethod
    def _tool_calls(reply: Reply) -> list[dict[str, Any]]:
        out = []
        for index, tc in enumerate(reply.tool_calls):
            args = tc["arguments"] if isinstance(tc["arguments"], str) else json.dumps(tc["arguments"])
            out.append({"id": tc.get("id") or f"call_{index}", "type": "function",
                        "function": {"name": tc["name"], "arguments": args}})
        return out

    def _completion(self, reply: Reply) -> dict[str, Any]:
        calls = self._tool_calls(reply)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": reply.model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": reply.finish_reason or ("tool_calls" if calls else "stop")}],
            "usage": {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                      "total_tokens": sum(reply.usage)},
        }

    def _chunk(self, reply: Reply, delta: dict[str, Any], finish: str | None = None,
               usage: bool = False) -> dict[str, Any]:
        chunk: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                                 "created": 0, "model": reply.model,
                                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage:
            chunk["choices"] = []
            chunk["usage"] = {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                              "total_tokens": sum(reply.usage)}
        return chunk

    def _stream_loop(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        """Send the reply's text (or its first call's start), then ``reply.loop`` until the client
        closes the connection; ``loops_sent`` counts the pieces, ``loop_ended`` the end."""
        self.start_sse(handler)
        self.send_event(handler, self._chunk(reply, {"role": "assistant", "content": ""}))
        if reply.loop_in_arguments:
            tc = self._tool_calls(reply)[0]
            self.send_event(handler, self._chunk(reply, {"tool_calls": [{
                "index": 0, "id": tc["id"], "type": "function",
                "function": {"name": tc["function"]["name"], "arguments": tc["function"]["arguments"]}}]}))
        elif reply.text:
            self.send_event(handler, self._chunk(reply, {"content": reply.text}))
        deadline = time.monotonic() + 30
        self.loops_sent = 0
        try:
            while time.monotonic() < deadline and not self._release.is_set():
                delta: dict[str, Any] = ({"tool_calls": [{"index": 0, "function": {"arguments": reply.loop}}]}
                                         if reply.loop_in_arguments else {"content": reply.loop})
                self.send_event(handler, self._chunk(reply, delta))
                self.loops_sent += 1
                time.sleep(0.002)
        finally:
            self.loop_ended = time.monotonic()

    def _stream(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.loop is not None:
            self._stream_loop(handler, reply)
            return
        chunks: list[dict[str, Any]] = [self._chunk(reply, {"role": "assistant", "content": ""})]
        text = reply.text
        for start in range(0, len(text), reply.chunk_size):
            chunks.append(self._chunk(reply, {"content": text[start:start + reply.chunk_size]}))
        for index, tc in enumerate(self._tool_calls(reply)):
            args = tc["function"]["arguments"]
            half = len(args) // 2
            chunks.append(self._chunk(reply, {"tool_calls": [{"index": index, "id": tc["id"], "type": "function",
                                                               "function": {"name": tc["function"]["name"],
                                                                            "arguments": args[:half]}}]}))
            chunks.append(self._chunk(reply, {"tool_calls": [{"index": index,
                                                               "function": {"arguments": args[half:]}}]}))
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        chunks.append(self._chunk(reply, {}, finish))
        chunks.append(self._chunk(reply, {}, usage=True))
        self.start_sse(handler)
        for index, chunk in enumerate(chunks):
            if reply.hang_after is not None and index >= reply.hang_after:
                self.hang()
                return
            if reply.cut_after is not None and index >= reply.cut_after:
                handler.close_connection = True
                handler.connection.shutdown(socket.SHUT_RDWR)
                return
            self.send_event(handler, chunk)
        self.send_event(handler, "[DONE]")


_GEMINI_PATH = re.compile(r"/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$")


class FakeGeminiServer(_Server):
    """generateContent / streamGenerateContent; :attr:`url` is the SDK ``base_url``."""

    def __init__(self) -> None:
        super().__init__()
        self.default = GeminiReply(parts=[{"text": "(no scripted reply)"}])

    @property
    def url(self) -> str:
        return f"{self.root}/"

    def route(self, handler: BaseHTTPRequestHandler, request: RecordedRequest) -> None:
        match = _GEMINI_PATH.search(request.path)
        if request.method != "POST" or not match:
            self.send_json(handler, 404, {"error": {"code": 404, "message": f"no route {request.path}",
                                                    "status": "NOT_FOUND"}})
            return
        reply: GeminiReply = self._next()
        self.wait_before(reply.delay)
        if reply.status != 200:
            status_name = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE",
                           400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                           404: "NOT_FOUND"}.get(reply.status, "UNKNOWN")
            body = reply.body if reply.body is not None else {
                "error": {"code": reply.status, "message": f"injected status {reply.status}", "status": status_name}}
            self.send_json(handler, reply.status, body)
            return
        if reply.block_reason:
            self.send_json(handler, 200, {"promptFeedback": {"blockReason": reply.block_reason}})
            return
        if match.group("method") == "generateContent":
            self.send_json(handler, 200, self._response(reply, reply.parts, final=True))
            return
        self.start_sse(handler)
        for index, part in enumerate(reply.parts):
            if reply.hang_after is not None and index >= reply.hang_after:
                self.hang()
                return
            self.send_event(handler, self._response(reply, [part], final=index == len(reply.parts) - 1))
        if not reply.parts:
            self.send_event(handler, self._response(reply, [], final=True))

    @staticmethod
    def _response(reply: GeminiReply, parts: list[dict[str, Any]], *, final: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if final:
            candidate["finishReason"] = reply.finish_reason
        return {"candidates": [candidate],
                "usageMetadata": {"promptTokenCount": reply.usage[0], "candidatesTokenCount": reply.usage[1],
                                  "totalTokenCount": sum(reply.usage)},
                "modelVersion": "fake-gemini"}
