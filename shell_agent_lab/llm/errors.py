"""Errors from the model seam.

    LLMError                     every model failure; ``str()`` is one actionable line
     ├── ConfigurationError      nothing usable is configured (missing key, unknown profile)
     ├── UnreachableError        the endpoint did not answer (connection refused, timeout, DNS)
     ├── RateLimitedError        429 / quota exhausted after all retries
     ├── BadResponseError        the endpoint answered with something unusable (5xx, malformed, too big)
     │    └── ToolArgumentsError the model called a tool with arguments that are not a JSON object
     │                           or exceed the size cap (``tool_name`` / ``tool_call_id`` say which)
     └── CancelledError          the user stopped the request

``retryable`` (default false; true for rate limits, unreachable endpoints and 5xx answers)
tells the retry policy whether another attempt may help.

Backends translate SDK exceptions at the boundary with ``raise X(...) from exc`` so the
original stays available in logs and tracebacks.
"""
from __future__ import annotations

__all__ = [
    "LLMError", "ConfigurationError", "UnreachableError", "RateLimitedError",
    "BadResponseError", "CancelledError", "ToolArgumentsError",
]


class LLMError(Exception):
    """Base class. ``hint`` says what the user can do about it."""

    #: whether another attempt may succeed (overridable per instance)
    retryable: bool = False

    def __init__(self, message: str, *, hint: str = "", retryable: bool | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if retryable is not None:
            self.retryable = retryable

    def __str__(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message


class ConfigurationError(LLMError):
    pass


class UnreachableError(LLMError):
    retryable = True


class RateLimitedError(LLMError):
    retryable = True


class BadResponseError(LLMError):
    pass


class ToolArgumentsError(BadResponseError):
    """A tool call whose arguments cannot be used; the agent reports it to the model."""

    def __init__(self, message: str, *, tool_name: str = "", tool_call_id: str = "",
                 hint: str = "") -> None:
        super().__init__(message, hint=hint or "the model sent a malformed tool call; ask again "
                                               "or use a stronger model")
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id


class CancelledError(LLMError):
    pass
