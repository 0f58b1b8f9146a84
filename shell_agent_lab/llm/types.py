"""Typed messages, tool specs and responses: the vocabulary of the model seam.

A backend implements one method, :meth:`Backend.chat`; :meth:`Backend.stream` has a
default that calls ``chat`` and reports the whole text at once, which backends that can
stream override. Nothing here knows about the store, the tools or notebooks.
"""
from __future__ import annotations

import abc
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Literal, Sequence

__all__ = [
    "system_prompt_of",
    "Role", "ToolCall", "Message", "ToolSpec", "Usage", "Response", "Capabilities",
    "RetryInfo", "ChatOptions", "Backend",
]

Role = Literal["system", "user", "assistant", "tool"]


@dataclass
class ToolCall:
    """A call the model asked for. ``arguments`` is the parsed JSON object."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    #: provider metadata that must be replayed verbatim (e.g. Gemini thought signatures)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Message:
    role: Role
    content: str = ""
    #: assistant messages: the calls it made
    tool_calls: list[ToolCall] = field(default_factory=list)
    #: tool messages: which call this answers, and the tool's name
    tool_call_id: str | None = None
    name: str | None = None
    #: images as (mime_type, bytes)
    images: list[tuple[str, bytes]] = field(default_factory=list)
    #: provider metadata (e.g. Gemini thought signatures on an assistant turn)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolSpec:
    """What the model is told about a tool: name, description, JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Response:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Capabilities:
    streaming: bool = False
    native_tools: bool = False
    images: bool = False
    #: honours ``ChatOptions.tool_choice="required"`` (the embedded llama.cpp server does not with
    #: Qwen's tool format: its constrained output runs on as blank lines to the token limit)
    tool_choice: bool = True


@dataclass(frozen=True)
class RetryInfo:
    attempt: int          # the attempt that failed (1-based)
    max_attempts: int
    delay: float          # seconds until the next attempt
    error: str            # one line


@dataclass
class ChatOptions:
    temperature: float | None = None
    max_output_tokens: int | None = None
    #: set to cancel an in-flight request (checked between stream chunks and retries)
    cancel: threading.Event | None = None
    #: called before each backoff sleep
    on_retry: Callable[[RetryInfo], None] | None = None
    #: a JSON schema the reply's text must match (structured output). Its ``title`` names it.
    #: OpenAI-compatible servers (llama.cpp included) enforce it, Gemini is given it as the
    #: response schema; backends without structured output ignore it and the caller parses leniently.
    response_format: dict[str, Any] | None = None
    #: ``done(text_so_far)``: where a streamed reply without tool calls is complete (its length
    #: to keep), or None while it is not; the backend stops reading there, ``on_text`` gets
    #: nothing past it, and the reply ends with ``finish_reason`` "stop" and ``extra["done"]``
    #: (backends that cannot stop early ignore it)
    done: Callable[[str], int | None] | None = None
    #: "required": the reply must call one of the tools (OpenAI-compatible servers constrain the
    #: output to a tool call; Gemini's function-calling mode ANY). None: the model decides.
    tool_choice: str | None = None


def unseen(piece: str) -> None:
    """``on_text`` for a streamed reply nobody is shown: a request that fails after some of it
    arrived may still be sent again (a reply already shown may not: it would be repeated)."""


class Backend(abc.ABC):
    """The model seam. Subclasses set ``name``, ``model`` and ``capabilities``."""

    name: ClassVar[str] = "backend"
    capabilities: Capabilities = Capabilities()
    model: str = ""

    @abc.abstractmethod
    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        """Send ``messages`` (and the tools the model may call); return one complete response."""

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               on_text: Callable[[str], None], options: ChatOptions | None = None) -> Response:
        """Like :meth:`chat`, calling ``on_text`` with each piece of text as it arrives."""
        response = self.chat(messages, tools, options=options)
        if response.text:
            on_text(response.text)
        return response

    @property
    def identity(self) -> str:
        """``<backend>/<model>``: keys summary caches and shows in ``/model``."""
        return f"{self.name}/{self.model}"

    def close(self) -> None:
        """Release resources (servers, HTTP clients). Idempotent."""


def system_prompt_of(messages: Sequence[Message]) -> str:
    """The system prompt of a request: its leading system message, and the second one when the
    request starts with two (the fixed part, then the data schema and memory)."""
    head: list[str] = []
    for message in messages:
        if message.role != "system" or len(head) == 2:
            break
        head.append(message.content or "")
    return "\n".join(head)
