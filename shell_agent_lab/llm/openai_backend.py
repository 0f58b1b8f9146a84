"""OpenAI-compatible chat completions through the ``openai`` SDK.

Works with OpenAI itself and with local servers that speak the same protocol (LM Studio,
Ollama, vLLM, llama.cpp's server). Configuration follows the SDK: ``OPENAI_API_KEY`` and
``OPENAI_BASE_URL`` mean exactly what they mean there; ``OPENAI_MODEL`` names the model.

Per attempt: a deadline (``timeout``), a response size cap, and argument checks on every
tool call (JSON object, at most 1 MiB). Across attempts: :func:`~.retry.call_with_retry`
(429 / 5xx / timeouts / connection errors). SDK retries are off so only one policy applies.
When the model writes its tool calls as text, :mod:`.lenient` recovers them (the streamed
text the user saw still contains them; ``Response.text`` does not).
"""
from __future__ import annotations

import base64
import json
import os
import random
import re
import threading
import uuid
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlparse

import httpx2
import openai

from ._pump import Closer, pump
from .arguments import MAX_TOOL_ARGS_BYTES, parse_tool_arguments
from .errors import (BadResponseError, ConfigurationError, LLMError, RateLimitedError,
                     ToolArgumentsError, UnreachableError)
from .lenient import extract_tool_calls
from .repetition import RepetitionGuard
from .retry import RetryPolicy, call_with_retry
from .types import (Backend, Capabilities, ChatOptions, Message, Response, ToolCall, ToolSpec, unseen,
                    Usage)

__all__ = ["OpenAIBackend", "DEFAULT_OPENAI_MODEL", "MAX_RESPONSE_BYTES", "REPETITION_FINISH", "CUT_CALL_MESSAGE"]

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
#: reference app: local response body cap
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
_ERROR_BODY_BYTES = 512
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}
#: ``Response.finish_reason`` of a streamed reply stopped because it repeated itself
REPETITION_FINISH = "repetition"
#: what the model is told when its tool call was cut off by that stop
CUT_CALL_MESSAGE = ("the reply kept repeating itself and was stopped before the tool call's arguments were "
                    "complete; write the call once, shorter, without repeating a clause")
_CALL_IN_TEXT = re.compile(r"<(?:tool_call|function_call)>|\{\s*\"name\"\s*:", re.I)


class _Done(Exception):
    """The reply is complete at ``end`` (``ChatOptions.done``): stop reading the stream."""

    def __init__(self, end: int) -> None:
        super().__init__(end)
        self.end = end


class _Repetition(Exception):
    """Raised inside the stream's consumer to stop a reply that loops."""


def is_loopback(url: str | None) -> bool:
    return bool(url) and (urlparse(str(url)).hostname or "") in _LOOPBACK


class OpenAIBackend(Backend):
    """Chat completions (JSON or streamed) with native tools, retries and size caps.

    ``fold_tool_results`` sends tool results as a user message (and earlier tool calls as
    ``<tool_call>`` text) for servers that drop the ``tool`` role; ``split_images`` sends one
    user message per image (llama.cpp accepts one image per message). An empty ``model`` on
    a custom endpoint means "the first model the server lists".
    """

    name = "openai"

    def __init__(self, *, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, api_key_env: str | None = None,
                 timeout: float = 180.0, retry: RetryPolicy | None = None,
                 fold_tool_results: bool = False, split_images: bool = False,
                 lenient_tools: bool = True, stream_usage: bool = True,
                 max_response_bytes: int = MAX_RESPONSE_BYTES,
                 max_tool_args_bytes: int = MAX_TOOL_ARGS_BYTES,
                 extra_body: Mapping[str, Any] | None = None,
                 cut_repetition: bool | None = None,
                 env: Mapping[str, str] | None = None,
                 http_client: httpx2.Client | None = None,
                 sleep: Callable[[float, threading.Event | None], None] | None = None,
                 rand: Callable[[], float] = random.random) -> None:
        env = os.environ if env is None else env
        key_env = api_key_env or "OPENAI_API_KEY"
        self.base_url_configured = base_url or env.get("OPENAI_BASE_URL") or None
        key = api_key or env.get(key_env) or (env.get("OPENAI_API_KEY") if api_key_env else None)
        if not key:
            if is_loopback(self.base_url_configured):
                key = "not-needed"  # local servers accept any key
            else:
                raise ConfigurationError(
                    f"no API key for the OpenAI-compatible backend ({key_env} is not set)",
                    hint=f"Set {key_env} or configure a profile with another backend")
        self._key_env = key_env
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url_configured, max_retries=0,
                                     timeout=httpx2.Timeout(timeout, connect=min(10.0, timeout)),
                                     http_client=http_client)
        self.base_url = str(self._client.base_url).rstrip("/")
        self.model = model or env.get("OPENAI_MODEL") or ("" if self.base_url_configured else DEFAULT_OPENAI_MODEL)
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.fold_tool_results = fold_tool_results
        self.split_images = split_images
        self.lenient_tools = lenient_tools
        self.stream_usage = stream_usage
        self.max_response_bytes = max_response_bytes
        self.max_tool_args_bytes = max_tool_args_bytes
        self.extra_body = dict(extra_body or {})
        #: stop a streamed reply that loops (default: on for servers on this machine, whose
        #: small models do; see :mod:`.repetition`)
        self.cut_repetition = is_loopback(self.base_url) if cut_repetition is None else cut_repetition
        self._sleep = sleep
        self._rand = rand
        self.capabilities = Capabilities(streaming=True, native_tools=True, images=True)

    # -- Backend ----------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        options = options or ChatOptions()
        payload = self._payload(messages, tools, options)
        return self._with_retry(lambda: self._chat_once(payload, tools, options), options)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               on_text: Callable[[str], None], options: ChatOptions | None = None) -> Response:
        options = options or ChatOptions()
        payload = self._payload(messages, tools, options)
        return self._with_retry(lambda: self._stream_once(payload, tools, options, on_text), options)

    def close(self) -> None:
        self._client.close()

    # -- requests ---------------------------------------------------------------------------
    def _with_retry(self, attempt: Callable[[], Response], options: ChatOptions) -> Response:
        kwargs: dict[str, Any] = {"policy": self.retry, "options": options, "rand": self._rand}
        if self._sleep is not None:
            kwargs["sleep"] = self._sleep
        return call_with_retry(attempt, **kwargs)

    def _payload(self, messages: Sequence[Message], tools: Sequence[ToolSpec],
                 options: ChatOptions) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "messages": _to_openai_messages(messages, fold_tool_results=self.fold_tool_results,
                                            split_images=self.split_images)}
        if tools:
            payload["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description,
                "parameters": t.parameters or {"type": "object", "properties": {}}}} for t in tools]
        if options.temperature is not None:
            payload["temperature"] = options.temperature
        if options.max_output_tokens:
            payload["max_tokens"] = options.max_output_tokens
        if options.response_format:
            payload["response_format"] = _response_format(options.response_format)
        if options.tool_choice and tools:
            payload["tool_choice"] = options.tool_choice
        if self.extra_body:
            payload["extra_body"] = dict(self.extra_body)
        return payload

    def _resolve_model(self) -> str:
        if not self.model:
            try:
                listed = [m.id for m in self._client.models.list()]
            except Exception as exc:
                raise self._translate(exc) from exc
            if not listed:
                raise ConfigurationError(f"the server at {self.base_url} lists no models",
                                         hint="Load a model in the server, or set OPENAI_MODEL")
            self.model = listed[0]
        return self.model

    def _chat_once(self, payload: dict[str, Any], tools: Sequence[ToolSpec],
                   options: ChatOptions) -> Response:
        payload = {**payload, "model": self._resolve_model()}
        body = bytearray()
        cap = self.max_response_bytes

        def produce(emit: Callable[[Any], None], closer: Closer) -> None:
            with self._client.chat.completions.with_streaming_response.create(**payload) as raw:
                closer.set(raw.close)
                declared = raw.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > cap:
                    raise self._too_big(int(declared))
                for piece in raw.iter_bytes():
                    emit(piece)

        def take(piece: bytes) -> None:
            body.extend(piece)
            if len(body) > cap:
                raise self._too_big(len(body))

        self._run(produce, take, options)
        try:
            data = json.loads(bytes(body))
        except ValueError as exc:
            raise BadResponseError(f"{self.base_url} answered with something that is not JSON",
                                   hint="Check that the base URL points at a chat-completions API") from exc
        return self._parse_completion(data, tools)

    def _stream_once(self, payload: dict[str, Any], tools: Sequence[ToolSpec], options: ChatOptions,
                     on_text: Callable[[str], None]) -> Response:
        payload = {**payload, "model": self._resolve_model(), "stream": True}
        if self.stream_usage:
            payload["stream_options"] = {"include_usage": True}
        guard = RepetitionGuard() if self.cut_repetition else None
        state = _StreamState(self.max_response_bytes, self.max_tool_args_bytes, self.base_url,
                             watch=guard.feed if guard is not None else None)

        def produce(emit: Callable[[Any], None], closer: Closer) -> None:
            # once the reader stopped, emit raises and the with closes the stream from this
            # thread (a close from the reader's thread did not reach a socket this one reads)
            with self._client.chat.completions.create(**payload) as stream:
                closer.set(stream.close)
                for chunk in stream:
                    emit(chunk)

        def take(chunk: Any) -> None:
            piece = state.add(chunk)
            if guard is not None and guard.looping:
                raise _Repetition()      # closes the stream (pump closes it on any error)
            if piece:
                end = options.done(state.text) if options.done is not None and not state.slots else None
                if end is not None:
                    kept = piece[:max(0, len(piece) - (len(state.text) - end))]
                    if kept:
                        on_text(kept)
                    raise _Done(end)       # closes the stream: the server stops writing
                on_text(piece)

        try:
            try:
                self._run(produce, take, options)
            except _Repetition:
                return self._cut_short(state, guard, tools)
            except _Done as done:
                response = self._finish(state.text[:done.end], [], state.usage, "stop", state.model, tools)
                response.extra["done"] = True
                return response
            if state.finish_reason is None and not (options.cancel is not None and options.cancel.is_set()):
                # every complete answer ends with a finish reason: this stream was cut off (the
                # server died or dropped the connection), and half an answer is not an answer
                raise UnreachableError(f"{self.base_url} stopped in the middle of the answer (the stream "
                                       "ended without finishing)", hint=_where_hint(self.base_url))
        except LLMError as exc:
            if state.emitted and on_text is not unseen:  # text reached the user: another attempt would repeat it
                exc.retryable = False
            raise
        return self._finish(state.text, state.calls(), state.usage, state.finish_reason,
                            state.model, tools)

    def _cut_short(self, state: "_StreamState", guard: RepetitionGuard | None,
                   tools: Sequence[ToolSpec]) -> Response:
        """The reply of a stream stopped because it looped: its text up to the loop's first copy,
        the tool calls that were complete. A call cut off in the middle is one clear error."""
        text = guard.cut(state.text) if guard is not None and state.text and not state.slots else state.text
        if state.slots:
            calls, broken = state.complete_calls()
            if broken is not None and not calls:
                raise ToolArgumentsError(CUT_CALL_MESSAGE, tool_name=broken[0], tool_call_id=broken[1])
            response = self._finish(text, calls, state.usage, REPETITION_FINISH, state.model, tools)
        else:
            response = self._finish(text, [], state.usage, REPETITION_FINISH, state.model, tools)
            if not response.tool_calls and tools and _CALL_IN_TEXT.search(response.text or ""):
                name = re.search(r"\"name\"\s*:\s*\"([^\"]+)\"", response.text or "")
                raise ToolArgumentsError(CUT_CALL_MESSAGE, tool_name=name.group(1) if name else "")
        response.finish_reason = REPETITION_FINISH
        response.extra["repetition_cut"] = True
        return response

    def _run(self, produce: Callable[..., None], take: Callable[[Any], None], options: ChatOptions) -> None:
        try:
            pump(produce, on_item=take, cancel=options.cancel, timeout=self.timeout,
                 timeout_error=lambda: UnreachableError(
                     f"{self.base_url} did not answer within {self.timeout:g} s",
                     hint=_where_hint(self.base_url)))
        except (LLMError, _Repetition, _Done):
            raise
        except Exception as exc:
            raise self._translate(exc) from exc

    def _too_big(self, size: int) -> BadResponseError:
        return BadResponseError(f"response from {self.base_url} is {size} bytes, over the "
                                f"{self.max_response_bytes}-byte cap",
                                hint="Ask for a shorter answer or lower max_output_tokens")

    # -- parsing ----------------------------------------------------------------------------
    def _parse_completion(self, data: Any, tools: Sequence[ToolSpec]) -> Response:
        try:
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            detail = data.get("error") if isinstance(data, dict) else None
            raise BadResponseError(f"malformed response from {self.base_url}: no choices"
                                   + (f" ({_short(detail)})" if detail else ""),
                                   hint="Check the base URL and the server's logs") from exc
        text = _content_text(message.get("content"))
        calls = []
        for index, raw in enumerate(message.get("tool_calls") or []):
            function = raw.get("function") or {}
            name = function.get("name") or ""
            call_id = raw.get("id") or _new_call_id()
            args = parse_tool_arguments(function.get("arguments"), tool_name=name, tool_call_id=call_id,
                                        limit=self.max_tool_args_bytes)
            calls.append(ToolCall(id=call_id, name=name, arguments=args))
        usage_raw = data.get("usage") or {}
        usage = Usage(input_tokens=int(usage_raw.get("prompt_tokens") or 0),
                      output_tokens=int(usage_raw.get("completion_tokens") or 0))
        return self._finish(text, calls, usage, choice.get("finish_reason"), data.get("model"), tools)

    def _finish(self, text: str, calls: list[ToolCall], usage: Usage, finish_reason: str | None,
                model: str | None, tools: Sequence[ToolSpec]) -> Response:
        extra: dict[str, Any] = {}
        if not calls and tools and self.lenient_tools and text:
            found = extract_tool_calls(text, tools)
            if found.tool_calls:
                text, calls = found.text, found.tool_calls
                extra["lenient_tool_calls"] = True
                finish_reason = "tool_calls"
            if found.rejected:
                extra["lenient_rejected"] = found.rejected
        return Response(text=text, tool_calls=calls, usage=usage, finish_reason=finish_reason,
                        model=model or self.model, extra=extra)

    # -- errors -----------------------------------------------------------------------------
    def _translate(self, exc: BaseException) -> LLMError:
        if isinstance(exc, LLMError):
            return exc
        where = self.base_url
        if isinstance(exc, openai.APITimeoutError) or isinstance(exc, httpx2.TimeoutException):
            return UnreachableError(f"{where} did not answer in time", hint=_where_hint(where))
        if isinstance(exc, openai.APIConnectionError) or isinstance(exc, httpx2.TransportError):
            return UnreachableError(f"could not reach {where} ({_short(exc)})", hint=_where_hint(where))
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _error_detail(exc)
            if status == 401:
                return ConfigurationError(f"{where} rejected the API key (401)",
                                          hint=f"Set {self._key_env} or configure a profile")
            if status == 403:
                return ConfigurationError(f"{where} refused access (403): {detail}",
                                          hint=f"Check the key in {self._key_env} and its permissions")
            if status == 404:
                return ConfigurationError(f"model {self.model!r} or its endpoint was not found at {where} (404)",
                                          hint="Check OPENAI_MODEL (or the profile's model) and the base URL")
            if status == 429:
                return RateLimitedError(f"rate limited by {where} (429): {detail}",
                                        hint="Wait a minute, or check the account's quota")
            if status >= 500:
                return BadResponseError(f"server error {status} from {where}: {detail}",
                                        hint="The server failed; try again later or check its logs",
                                        retryable=True)
            return BadResponseError(f"{where} refused the request ({status}): {detail}",
                                    hint="Check the model name and options in the profile")
        if isinstance(exc, openai.OpenAIError):
            return BadResponseError(f"unusable answer from {where}: {_short(exc)}")
        if isinstance(exc, ValueError):
            return BadResponseError(f"malformed answer from {where}: {_short(exc)}")
        return BadResponseError(f"request to {where} failed: {type(exc).__name__}: {_short(exc)}")


def _response_format(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``response_format`` for a JSON schema, named by its title and strict (OpenAI then
    guarantees the shape; llama.cpp's server turns the schema into a grammar either way)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "response"))[:64]
    body = {k: v for k, v in schema.items() if k != "title"}
    return {"type": "json_schema", "json_schema": {"name": name, "schema": body, "strict": True}}


class _StreamState:
    """Accumulates streamed chunks: text, tool-call deltas by index, usage, size."""

    def __init__(self, cap: int, args_cap: int, where: str,
                 watch: Callable[[str], Any] | None = None) -> None:
        self.cap, self.args_cap, self.where = cap, args_cap, where
        #: sees every piece the model generates (text, tool names, arguments), in order
        self.watch = watch
        self.parts: list[str] = []
        self.size = 0
        self.emitted = False
        self.slots: dict[int, dict[str, Any]] = {}
        self.usage = Usage()
        self.finish_reason: str | None = None
        self.model: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def _grow(self, amount: int) -> None:
        self.size += amount
        if self.size > self.cap:
            raise BadResponseError(f"streamed response from {self.where} passed the {self.cap}-byte cap",
                                   hint="Ask for a shorter answer or lower max_output_tokens")

    def add(self, chunk: Any) -> str:
        self.model = getattr(chunk, "model", None) or self.model
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = Usage(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0))
        piece = ""
        for choice in getattr(chunk, "choices", None) or []:
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            if delta.content:
                piece += delta.content
                if self.watch is not None:
                    self.watch(delta.content)
            for tc in delta.tool_calls or []:
                slot = self.slots.setdefault(tc.index if tc.index is not None else len(self.slots),
                                             {"id": None, "name": "", "arguments": []})
                if tc.id:
                    slot["id"] = tc.id
                if tc.function is not None:
                    if tc.function.name:
                        slot["name"] += tc.function.name
                        if self.watch is not None:
                            self.watch(f"\n{tc.function.name} ")
                    if tc.function.arguments:
                        if self.watch is not None:
                            self.watch(tc.function.arguments)
                        slot["arguments"].append(tc.function.arguments)
                        size = sum(len(a.encode("utf-8")) for a in slot["arguments"])
                        self._grow(len(tc.function.arguments.encode("utf-8")))
                        if size > self.args_cap:
                            parse_tool_arguments("x" * (self.args_cap + 1), tool_name=slot["name"],
                                                 tool_call_id=slot["id"] or "", limit=self.args_cap)
        if piece:
            self._grow(len(piece.encode("utf-8")))
            self.parts.append(piece)
            self.emitted = True
        return piece

    def complete_calls(self) -> tuple[list[ToolCall], tuple[str, str] | None]:
        """The calls whose arguments parse, and (name, id) of the first that does not."""
        out: list[ToolCall] = []
        broken: tuple[str, str] | None = None
        for index in sorted(self.slots):
            slot = self.slots[index]
            call_id = slot["id"] or _new_call_id()
            try:
                args = parse_tool_arguments("".join(slot["arguments"]), tool_name=slot["name"],
                                            tool_call_id=call_id, limit=self.args_cap)
            except ToolArgumentsError:
                broken = broken or (slot["name"], call_id)
                continue
            out.append(ToolCall(id=call_id, name=slot["name"], arguments=args))
        return out, broken

    def calls(self) -> list[ToolCall]:
        out = []
        for index in sorted(self.slots):
            slot = self.slots[index]
            call_id = slot["id"] or _new_call_id()
            args = parse_tool_arguments("".join(slot["arguments"]), tool_name=slot["name"],
                                        tool_call_id=call_id, limit=self.args_cap)
            out.append(ToolCall(id=call_id, name=slot["name"], arguments=args))
        return out


# -- message mapping (pure) --------------------------------------------------------------------

def _to_openai_messages(messages: Sequence[Message], *, fold_tool_results: bool = False,
                        split_images: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    pending_results: list[str] = []

    def flush() -> None:
        if pending_results:
            out.append({"role": "user", "content": "\n\n".join(pending_results)})
            pending_results.clear()

    for message in messages:
        if message.role == "tool":
            if fold_tool_results:
                label = message.name or "tool"
                pending_results.append(f"[Result of {label} (call {message.tool_call_id})]\n{message.content}")
            else:
                out.append({"role": "tool", "tool_call_id": message.tool_call_id or "",
                            "content": message.content})
            continue
        flush()
        if message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
            if message.tool_calls and fold_tool_results:
                written = "\n".join(
                    "<tool_call>" + json.dumps({"name": c.name, "arguments": c.arguments}, ensure_ascii=False)
                    + "</tool_call>" for c in message.tool_calls)
                entry["content"] = f"{message.content}\n{written}".strip()
            elif message.tool_calls:
                entry["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                    "name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                    for c in message.tool_calls]
            if entry["content"] is None and "tool_calls" not in entry:
                entry["content"] = ""
            out.append(entry)
        elif message.role == "user" and message.images:
            images = [{"type": "image_url", "image_url": {
                "url": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"}}
                for mime, data in message.images]
            if split_images:
                out.append({"role": "user", "content": [{"type": "text", "text": message.content}, images[0]]})
                out.extend({"role": "user", "content": [image]} for image in images[1:])
            else:
                out.append({"role": "user", "content": [{"type": "text", "text": message.content}, *images]})
        else:
            out.append({"role": message.role, "content": message.content})
    flush()
    return out


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def _new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def _short(value: Any) -> str:
    text = " ".join(str(value).split())
    encoded = text.encode("utf-8")
    if len(encoded) > _ERROR_BODY_BYTES:
        text = encoded[:_ERROR_BODY_BYTES].decode("utf-8", "ignore") + "…"
    return text


def _error_detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return _short(inner["message"])
        return _short(json.dumps(body))
    try:
        return _short(exc.response.text)
    except Exception:
        return _short(exc)


def _where_hint(url: str) -> str:
    parsed = urlparse(url)
    host, port = parsed.hostname or "", parsed.port
    if host in _LOOPBACK:
        if port == 1234:
            return "Is LM Studio running on 127.0.0.1:1234 with its server started?"
        if port == 11434:
            return "Is Ollama running on 127.0.0.1:11434 (ollama serve)?"
        return f"Is the model server running on {host}:{port}?"
    return "Check the network connection and OPENAI_BASE_URL (or the profile's endpoint)"
