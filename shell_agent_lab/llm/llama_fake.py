"""A stand-in for llama.cpp's server: the shared-server machinery, tested without a model.

The daemon runs it for ``--engine fake`` (``LocalBackend(..., engine="fake")``). It answers the
endpoints the daemon and the backend use, on 127.0.0.1:

- ``GET /health`` and ``GET /slots`` (one slot: ``id``, ``id_task``, ``is_processing``);
- ``POST /slots/0?action=save|restore|erase`` with ``{"filename": ...}``: the slot's cached
  prompt to or from a file in the slot directory, bare names only, as llama.cpp does;
- ``POST /v1/chat/completions``: the reply is ``pid=<pid> cached=<n>``, the server's pid and
  how many leading characters of the prompt were already cached, so a test can tell which
  server answered and whether a restored slot was reused. A last user message holding
  ``hold:<path>`` keeps the request in flight while ``<path>`` exists (at most 60 s).
  Streamed (``"stream": true``, server-sent events), ``pid=<pid> `` is sent before the hold,
  so the server can be stopped in the middle of a stream.

Like llama.cpp it refuses a model file that does not start with the GGUF magic, and it serves
one request at a time (one slot).
"""
from __future__ import annotations

import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from .llama_engine import EngineConfig, EngineError

__all__ = ["start_fake"]

_HOLD_LIMIT = 60.0
_HOLD = re.compile(r"(?:^|[\s>])hold:([^\s<'\"]+)")     # as sent bare or inside the user-data tags
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


class _Slot:
    def __init__(self) -> None:
        self.cache = ""
        self.id_task: int | None = None
        self.processing = False
        self.tasks = 0
        self.lock = threading.Lock()  # one request at a time, as one llama.cpp slot


class _FakeEngine:
    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.slot = _Slot()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-llama", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    # -- endpoints ------------------------------------------------------------------------------
    def slots(self) -> list[dict[str, Any]]:
        return [{"id": 0, "n_ctx": self.config.n_ctx, "id_task": self.slot.id_task,
                 "is_processing": self.slot.processing}]

    def slot_action(self, action: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if action == "erase":
            self.slot.cache = ""
            return 200, {"id_slot": 0}
        name = str(body.get("filename", ""))
        if not _NAME.match(name):
            return 400, {"error": {"code": 400, "message": "Invalid filename"}}
        path = self.config.slot_dir / name
        if action == "save":
            path.write_text(json.dumps({"cache": self.slot.cache}))
            return 200, {"id_slot": 0, "filename": name, "n_saved": len(self.slot.cache)}
        if action == "restore":
            try:
                self.slot.cache = json.loads(path.read_text())["cache"]
            except (OSError, ValueError, KeyError, TypeError):
                return 400, {"error": {"code": 400, "message": "Unable to restore slot"}}
            return 200, {"id_slot": 0, "filename": name, "n_restored": len(self.slot.cache)}
        return 400, {"error": {"code": 400, "message": f"unknown action {action!r}"}}

    def _answer(self, messages: list[dict[str, Any]], sent: Any = None) -> tuple[str, str]:
        """(reply, prompt); ``sent(text)`` gets the reply's first part before a hold."""
        prompt = "".join(f"<{m.get('role')}>{m.get('content')}" for m in messages)
        with self.slot.lock:
            self.slot.tasks += 1
            self.slot.id_task = self.slot.tasks
            self.slot.processing = True
            try:
                head = f"pid={os.getpid()} "
                if sent is not None:
                    sent(head)
                users = [m for m in messages if m.get("role") == "user"]
                last = str(users[-1].get("content", "")) if users else ""
                held = _HOLD.search(last)
                if held:
                    hold, deadline = Path(held.group(1)), time.monotonic() + _HOLD_LIMIT
                    while hold.exists() and time.monotonic() < deadline:
                        time.sleep(0.01)
                cached = len(os.path.commonprefix([self.slot.cache, prompt]))
                reply = f"{head}cached={cached}"
                self.slot.cache = prompt + reply
            finally:
                self.slot.processing = False
        return reply, prompt

    def stream(self, body: dict[str, Any], send: Any) -> None:
        """The reply as server-sent events: ``send(event_dict)`` for each, then ``[DONE]``."""
        def delta(text: str | None, finish: str | None = None) -> dict[str, Any]:
            return {"id": f"fake-{self.slot.id_task}", "object": "chat.completion.chunk", "created": 0,
                    "model": body.get("model") or "fake",
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "delta": {"role": "assistant", "content": text} if text is not None else {}}]}

        reply, _ = self._answer(body.get("messages") or [], lambda head: send(delta(head)))
        send(delta(reply.split(" ", 1)[1]))
        send(delta(None, "stop"))
        send(None)

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        reply, prompt = self._answer(body.get("messages") or [])
        return 200, {"id": f"fake-{self.slot.id_task}", "object": "chat.completion", "created": 0,
                     "model": body.get("model") or "fake",
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": reply}}],
                     "usage": {"prompt_tokens": len(prompt), "completion_tokens": 1,
                               "total_tokens": len(prompt) + 1}}


def _handler(engine: _FakeEngine) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass  # like the real server at low verbosity: nothing per request

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            path = urlparse(self.path).path
            if path == "/health":
                self._send(200, {"status": "ok"})
            elif path == "/slots":
                self._send(200, engine.slots())
            else:
                self._send(404, {"error": {"code": 404, "message": "not found"}})

        def do_POST(self) -> None:  # noqa: N802
            url = urlparse(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"code": 400, "message": "body is not JSON"}})
                return
            if url.path == "/v1/chat/completions" and body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()

                def event(payload: Any) -> None:
                    data = b"[DONE]" if payload is None else json.dumps(payload).encode()
                    self.wfile.write(b"data: " + data + b"\n\n")
                    self.wfile.flush()

                engine.stream(body, event)
            elif url.path == "/v1/chat/completions":
                self._send(*engine.chat(body))
            elif url.path == "/slots/0":
                self._send(*engine.slot_action((parse_qs(url.query).get("action") or [""])[0], body))
            else:
                self._send(404, {"error": {"code": 404, "message": "not found"}})

    return Handler


def start_fake(config: EngineConfig) -> _FakeEngine:
    """Start the stand-in server; :class:`EngineError` when the model file is not a GGUF file."""
    try:
        with open(config.model, "rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise EngineError(f"cannot read {config.model}: {exc.strerror}") from exc
    if magic != b"GGUF":
        raise EngineError(f"{config.model.name} is not a GGUF model")
    return _FakeEngine(config)
