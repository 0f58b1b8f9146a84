"""A backend that answers from a script: queued responses or a function.

Made for tests and demos. It never sleeps, never touches the network, and records every
request it receives in :attr:`ScriptedBackend.requests` so a test can assert on exactly what
was sent (system prompt, history, tool list, options).

A queued item may be:

* a ``str`` — the reply text,
* a :class:`~shell_agent_lab.llm.types.Response`,
* an exception instance — raised for that request (e.g. ``RateLimitedError(...)``),
* a callable ``(messages, tools) -> Response | str`` — called for that request only.

When the queue is empty, ``fn`` (if given) answers every further request; otherwise the
request fails with :class:`ScriptExhaustedError`, naming the request and its last user
message so the missing step in the script is obvious.
"""
from __future__ import annotations

import copy
import itertools
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence, Union

from .errors import CancelledError, LLMError
from .types import Backend, Capabilities, ChatOptions, Message, Response, ToolCall, ToolSpec, system_prompt_of

__all__ = ["ScriptedBackend", "ScriptedRequest", "ScriptExhaustedError", "reply", "call"]

ScriptFn = Callable[[list[Message], list[ToolSpec]], Union[Response, str]]
ScriptItem = Union[str, Response, BaseException, ScriptFn]

_ids = itertools.count(1)


class ScriptExhaustedError(LLMError):
    """The script has no answer for a request."""


@dataclass
class ScriptedRequest:
    """One request as the backend saw it (deep copies: later mutation does not leak in)."""

    messages: list[Message]
    tools: list[ToolSpec]
    options: ChatOptions | None
    streamed: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def system(self) -> str:
        """The system prompt ("" when the request had none)."""
        return system_prompt_of(self.messages)

    @property
    def last_user(self) -> str:
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]


def reply(text: str = "", *tool_calls: ToolCall, finish_reason: str | None = None) -> Response:
    """Build a :class:`Response` (``finish_reason`` defaults to stop / tool_calls)."""
    reason = finish_reason or ("tool_calls" if tool_calls else "stop")
    return Response(text=text, tool_calls=list(tool_calls), finish_reason=reason, model="scripted")


def call(name: str, arguments: dict[str, Any] | None = None, *, id: str | None = None,
         text: str = "") -> Response:
    """A response that calls one tool: ``call("run_sql", {"sql": "select 1"})``."""
    call_id = id or f"call_{next(_ids)}"
    return reply(text, ToolCall(id=call_id, name=name, arguments=dict(arguments or {})))


class ScriptedBackend(Backend):
    """Answers from a queue of scripted items, then from ``fn``; records every request."""

    name = "scripted"

    def __init__(self, responses: Iterable[ScriptItem] = (), *, fn: ScriptFn | None = None,
                 model: str = "scripted", chunk_size: int = 8,
                 capabilities: Capabilities | None = None) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self.model = model
        self.capabilities = capabilities or Capabilities(streaming=True, native_tools=True, images=True)
        self.requests: list[ScriptedRequest] = []
        self._queue: deque[ScriptItem] = deque(responses)
        self._fn = fn
        self._chunk_size = chunk_size
        self._lock = threading.Lock()
        self.closed = False

    # -- scripting -------------------------------------------------------------------------
    def enqueue(self, *items: ScriptItem) -> "ScriptedBackend":
        """Append answers for the next requests; returns ``self`` for chaining."""
        with self._lock:
            self._queue.extend(items)
        return self

    def set_fn(self, fn: ScriptFn | None) -> None:
        """Answer requests from ``fn`` once the queue is empty."""
        self._fn = fn

    @property
    def pending(self) -> int:
        """How many queued answers are left."""
        with self._lock:
            return len(self._queue)

    @property
    def last_request(self) -> ScriptedRequest:
        if not self.requests:
            raise AssertionError("the scripted backend has received no request")
        return self.requests[-1]

    # -- Backend ---------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        return self._answer(messages, tools, options, streamed=False)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               on_text: Callable[[str], None], options: ChatOptions | None = None) -> Response:
        response = self._answer(messages, tools, options, streamed=True)
        text = response.text
        for start in range(0, len(text), self._chunk_size):
            _check_cancel(options)
            on_text(text[start:start + self._chunk_size])
        return response

    def close(self) -> None:
        self.closed = True

    # -- internals -------------------------------------------------------------------------
    def _answer(self, messages: Sequence[Message], tools: Sequence[ToolSpec],
                options: ChatOptions | None, *, streamed: bool) -> Response:
        _check_cancel(options)
        msgs = copy.deepcopy(list(messages))
        tool_list = list(tools)
        with self._lock:
            self.requests.append(ScriptedRequest(msgs, tool_list, options, streamed))
            number = len(self.requests)
            item: ScriptItem | None = self._queue.popleft() if self._queue else None
            fn = self._fn
        if item is None:
            if fn is None:
                last = next((m.content for m in reversed(msgs) if m.role == "user"), "")
                raise ScriptExhaustedError(
                    f"scripted backend has no answer for request #{number} "
                    f"(last user message: {last[:200]!r})",
                    hint="enqueue another response or pass fn=")
            item = fn
        if isinstance(item, BaseException):
            raise item
        if callable(item) and not isinstance(item, (str, Response)):
            item = item(copy.deepcopy(msgs), tool_list)
        return _as_response(item, self.model)


def _as_response(item: Any, model: str) -> Response:
    if isinstance(item, Response):
        result = copy.deepcopy(item)
        if result.model is None:
            result.model = model
        if result.finish_reason is None:
            result.finish_reason = "tool_calls" if result.tool_calls else "stop"
        return result
    if isinstance(item, str):
        return Response(text=item, finish_reason="stop", model=model)
    raise TypeError(f"a scripted answer must be str, Response, exception or callable, not {type(item).__name__}")


def _check_cancel(options: ChatOptions | None) -> None:
    if options is not None and options.cancel is not None and options.cancel.is_set():
        raise CancelledError("request cancelled")
