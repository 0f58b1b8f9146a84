"""Gemini through the ``google-genai`` SDK: Gemini API key or Vertex AI (project, location).

Mapping (as in the reference app): system messages become the system instruction; a run of
tool results becomes one user content of function responses; thought parts never reach the
text, but their signatures are kept — on the :class:`ToolCall` (``extra["thought_signature"]``)
or the response (``Response.extra["thought_signature"]``, to be copied to the assistant
message's ``extra``) — and sent back verbatim on the next request, as Gemini requires.
Function calls without an id get ``vc-<12 hex>``; such ids are never sent back to the API.
"""
from __future__ import annotations

import base64
import os
import random
import threading
import uuid
from typing import Any, Callable, Mapping, Sequence

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from ._pump import Closer, pump
from .arguments import MAX_TOOL_ARGS_BYTES, parse_tool_arguments
from .errors import (BadResponseError, ConfigurationError, LLMError, RateLimitedError,
                     UnreachableError)
from .retry import RetryPolicy, call_with_retry
from .types import (Backend, Capabilities, ChatOptions, Message, Response, ToolCall, ToolSpec,
                    Usage)

__all__ = ["GeminiBackend", "DEFAULT_GEMINI_MODEL", "DEFAULT_VERTEX_LOCATION"]

DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
DEFAULT_VERTEX_LOCATION = "us-central1"
_SIGNATURE = "thought_signature"
_SYNTHETIC = "synthetic_id"


class GeminiBackend(Backend):
    """``generateContent`` / ``streamGenerateContent`` with function calling."""

    name = "gemini"

    def __init__(self, *, model: str | None = None, api_key: str | None = None,
                 api_key_env: str | None = None, vertex: bool = False, project: str | None = None,
                 location: str | None = None, credentials: Any = None, base_url: str | None = None,
                 timeout: float = 180.0, retry: RetryPolicy | None = None,
                 max_tool_args_bytes: int = MAX_TOOL_ARGS_BYTES,
                 env: Mapping[str, str] | None = None,
                 sleep: Callable[[float, threading.Event | None], None] | None = None,
                 rand: Callable[[], float] = random.random) -> None:
        env = os.environ if env is None else env
        self.vertex = vertex
        http_options = types.HttpOptions(timeout=int(timeout * 1000), base_url=base_url,
                                         retry_options=types.HttpRetryOptions(attempts=1))
        if vertex:
            self.name = "vertex"  # type: ignore[misc]
            project = project or env.get("GOOGLE_CLOUD_PROJECT")
            location = location or env.get("GOOGLE_CLOUD_LOCATION") or DEFAULT_VERTEX_LOCATION
            if not project:
                raise ConfigurationError("Vertex AI needs a Google Cloud project",
                                         hint="Set GOOGLE_CLOUD_PROJECT or the profile's options.project")
            self._key_hint = ("Run `gcloud auth application-default login` or set "
                              "GOOGLE_APPLICATION_CREDENTIALS")
            try:
                self._client = genai.Client(vertexai=True, project=project, location=location,
                                            credentials=credentials, http_options=http_options)
            except Exception as exc:
                raise ConfigurationError(f"cannot set up Vertex AI: {exc}", hint=self._key_hint) from exc
            self.where = f"Vertex AI ({project}/{location})"
        else:
            names = [api_key_env] if api_key_env else ["GEMINI_API_KEY", "GOOGLE_API_KEY"]
            key = api_key or next((env[n] for n in names if env.get(n)), None)
            if not key:
                raise ConfigurationError(f"no Gemini API key ({' / '.join(names)} is not set)",
                                         hint=f"Set {names[0]} or configure a profile")
            self._key_hint = f"Check the key in {' / '.join(names)}"
            self._client = genai.Client(api_key=key, vertexai=False, http_options=http_options)
            self.where = "the Gemini API" if not base_url else base_url
        self.model = model or DEFAULT_GEMINI_MODEL
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.max_tool_args_bytes = max_tool_args_bytes
        self._sleep = sleep
        self._rand = rand
        self.capabilities = Capabilities(streaming=True, native_tools=True, images=True)

    # -- Backend ----------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        return self._request(messages, tools, options or ChatOptions(), on_text=None)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               on_text: Callable[[str], None], options: ChatOptions | None = None) -> Response:
        return self._request(messages, tools, options or ChatOptions(), on_text=on_text)

    def close(self) -> None:
        try:
            self._client.close()
        except Exception:
            pass

    # -- requests ---------------------------------------------------------------------------
    def _request(self, messages: Sequence[Message], tools: Sequence[ToolSpec], options: ChatOptions,
                 on_text: Callable[[str], None] | None) -> Response:
        system, contents = to_gemini_contents(messages)
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            tools=[types.Tool(function_declarations=[
                types.FunctionDeclaration(name=t.name, description=t.description,
                                          parameters_json_schema=t.parameters or {"type": "object"})
                for t in tools])] if tools else None,
            temperature=options.temperature,
            max_output_tokens=options.max_output_tokens,
            response_mime_type="application/json" if options.response_format else None,
            response_json_schema=_gemini_schema(options.response_format) if options.response_format else None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY"))
            if options.tool_choice == "required" and tools else None,
        )
        kwargs: dict[str, Any] = {"policy": self.retry, "options": options, "rand": self._rand}
        if self._sleep is not None:
            kwargs["sleep"] = self._sleep
        return call_with_retry(lambda: self._attempt(contents, config, options, on_text), **kwargs)

    def _attempt(self, contents: list[types.Content], config: types.GenerateContentConfig,
                 options: ChatOptions, on_text: Callable[[str], None] | None) -> Response:
        state = _Accumulator(self.max_tool_args_bytes)

        def produce(emit: Callable[[Any], None], closer: Closer) -> None:
            if on_text is None:
                emit(self._client.models.generate_content(model=self.model, contents=contents, config=config))
                return
            for chunk in self._client.models.generate_content_stream(model=self.model, contents=contents,
                                                                     config=config):
                emit(chunk)

        def take(chunk: types.GenerateContentResponse) -> None:
            piece = state.add(chunk)
            if piece and on_text is not None:
                on_text(piece)

        try:
            pump(produce, on_item=take, cancel=options.cancel, timeout=self.timeout,
                 timeout_error=lambda: UnreachableError(f"{self.where} did not answer within {self.timeout:g} s",
                                                        hint="Check the network connection"))
        except LLMError as exc:
            if state.emitted:
                exc.retryable = False
            raise
        except Exception as exc:
            error = self._translate(exc)
            if state.emitted:
                error.retryable = False
            raise error from exc
        return state.response(self.model)

    # -- errors -----------------------------------------------------------------------------
    def _translate(self, exc: BaseException) -> LLMError:
        names = {cls.__name__ for cls in type(exc).__mro__}
        if isinstance(exc, genai_errors.APIError):
            code = int(exc.code or 0)
            detail = _short(exc.message or exc.status or exc)
            if code == 429:
                return RateLimitedError(f"rate limited by {self.where} (429): {detail}",
                                        hint="Wait a minute, or check the project's quota")
            if code in (401, 403) or (code == 400 and "api key" in detail.lower()):
                return ConfigurationError(f"{self.where} refused the credentials ({code}): {detail}",
                                          hint=self._key_hint)
            if code == 404:
                return ConfigurationError(f"model {self.model!r} was not found at {self.where} (404)",
                                          hint="Check the profile's model name")
            if code >= 500 or code == 499:
                return BadResponseError(f"server error {code} from {self.where}: {detail}",
                                        hint="The service failed; try again later", retryable=True)
            return BadResponseError(f"{self.where} refused the request ({code}): {detail}",
                                    hint="Check the model name and options in the profile")
        if "TimeoutException" in names or isinstance(exc, TimeoutError):
            return UnreachableError(f"{self.where} did not answer in time", hint="Check the network connection")
        if "TransportError" in names or isinstance(exc, ConnectionError):
            return UnreachableError(f"could not reach {self.where} ({_short(exc)})",
                                    hint="Check the network connection (and the proxy settings)")
        if "RefreshError" in names or "DefaultCredentialsError" in names:
            return ConfigurationError(f"no usable Google credentials: {_short(exc)}", hint=self._key_hint)
        return BadResponseError(f"unusable answer from {self.where}: {type(exc).__name__}: {_short(exc)}")


class _Accumulator:
    """Collects text, calls, signatures and usage from one or many response chunks."""

    def __init__(self, args_cap: int) -> None:
        self.args_cap = args_cap
        self.parts: list[str] = []
        self.calls: list[ToolCall] = []
        self.signature: str | None = None
        self.usage = Usage()
        self.finish_reason: str | None = None
        self.model_version: str | None = None
        self.emitted = False

    def add(self, chunk: types.GenerateContentResponse) -> str:
        if chunk.usage_metadata is not None:
            self.usage = Usage(int(chunk.usage_metadata.prompt_token_count or 0),
                               int(chunk.usage_metadata.candidates_token_count or 0))
        self.model_version = chunk.model_version or self.model_version
        piece = ""
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is None:
            feedback = chunk.prompt_feedback
            if feedback is not None and feedback.block_reason:
                reason = getattr(feedback.block_reason, "value", feedback.block_reason)
                raise BadResponseError(f"Gemini refused the prompt ({reason})",
                                       hint="Rephrase the request; the prompt was blocked by safety filters")
            return ""
        if candidate.finish_reason is not None:
            self.finish_reason = str(getattr(candidate.finish_reason, "value", candidate.finish_reason)).lower()
        for part in (candidate.content.parts if candidate.content and candidate.content.parts else []):
            signature = _b64(part.thought_signature) if part.thought_signature else None
            if part.function_call is not None:
                fc = part.function_call
                extra: dict[str, Any] = {}
                if signature:
                    extra[_SIGNATURE] = signature
                call_id = fc.id
                if not call_id:
                    call_id = f"vc-{uuid.uuid4().hex[:12]}"
                    extra[_SYNTHETIC] = True
                args = parse_tool_arguments(dict(fc.args or {}), tool_name=fc.name or "",
                                            tool_call_id=call_id, limit=self.args_cap)
                self.calls.append(ToolCall(id=call_id, name=fc.name or "", arguments=args, extra=extra))
                continue
            if signature and self.signature is None:
                self.signature = signature
            if part.thought:
                continue
            if part.text:
                piece += part.text
        if piece:
            self.parts.append(piece)
            self.emitted = True
        return piece

    def response(self, model: str) -> Response:
        extra = {_SIGNATURE: self.signature} if self.signature else {}
        reason = "tool_calls" if self.calls else (self.finish_reason or "stop")
        return Response(text="".join(self.parts), tool_calls=self.calls, usage=self.usage,
                        finish_reason=reason, model=self.model_version or model, extra=extra)


def to_gemini_contents(messages: Sequence[Message]) -> tuple[str, list[types.Content]]:
    """Our messages → (system instruction, contents). Pure."""
    system: list[str] = []
    contents: list[types.Content] = []
    names: dict[str, str] = {}
    responses: list[types.Part] = []

    def flush() -> None:
        if responses:
            contents.append(types.Content(role="user", parts=list(responses)))
            responses.clear()

    for message in messages:
        if message.role == "tool":
            call_id = message.tool_call_id or ""
            name = message.name or names.get(call_id, "tool")
            responses.append(types.Part(function_response=types.FunctionResponse(
                id=None if not call_id or call_id.startswith("vc-") else call_id,
                name=name, response={"result": message.content})))
            continue
        flush()
        if message.role == "system":
            if message.content:
                system.append(message.content)
        elif message.role == "user":
            parts = [types.Part(text=message.content)] if message.content else []
            parts += [types.Part(inline_data=types.Blob(mime_type=mime, data=data)) for mime, data in message.images]
            contents.append(types.Content(role="user", parts=parts or [types.Part(text="")]))
        else:
            parts = []
            signature = message.extra.get(_SIGNATURE)
            if message.content:
                parts.append(types.Part(text=message.content,
                                        thought_signature=_unb64(signature) if signature else None))
                signature = None
            for tc in message.tool_calls:
                names[tc.id] = tc.name
                call_signature = tc.extra.get(_SIGNATURE) or signature
                signature = None
                parts.append(types.Part(
                    function_call=types.FunctionCall(
                        id=None if tc.extra.get(_SYNTHETIC) or tc.id.startswith("vc-") else tc.id,
                        name=tc.name, args=dict(tc.arguments)),
                    thought_signature=_unb64(call_signature) if call_signature else None))
            contents.append(types.Content(role="model", parts=parts or [types.Part(text="")]))
    flush()
    return "\n\n".join(system), contents


def _gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON schema as Gemini takes it (``response_json_schema``): without the title, which
    names the schema for OpenAI-style APIs only."""
    return {k: v for k, v in schema.items() if k != "title"}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text)


def _short(value: Any, limit: int = 512) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit] + "…"
