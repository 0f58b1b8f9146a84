"""Errors from the model seam.

    LLMError                     every model failure; ``str()`` is one actionable line
     ├── ConfigurationError      nothing usable is configured (missing key, unknown profile)
     ├── UnreachableError        the endpoint did not answer (connection refused, timeout, DNS)
     ├── RateLimitedError        429 / quota exhausted after all retries
     ├── BadResponseError        the endpoint answered with something unusable (5xx, malformed, too big)
     └── CancelledError          the user stopped the request

Backends translate SDK exceptions at the boundary with ``raise X(...) from exc`` so the
original stays available in logs and tracebacks.
"""
from __future__ import annotations

__all__ = [
    "LLMError", "ConfigurationError", "UnreachableError", "RateLimitedError",
    "BadResponseError", "CancelledError",
]


class LLMError(Exception):
    """Base class. ``hint`` says what the user can do about it."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message


class ConfigurationError(LLMError):
    pass


class UnreachableError(LLMError):
    pass


class RateLimitedError(LLMError):
    pass


class BadResponseError(LLMError):
    pass


class CancelledError(LLMError):
    pass
