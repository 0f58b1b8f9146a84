"""Retrying a model request: the policy (pure) and the loop (sleep, clock and randomness injected).

Defaults follow the reference app: 3 attempts, 5 s base delay doubling up to 120 s, ±1 s
jitter. Retryable: rate limits, unreachable endpoints (connection errors, timeouts) and
5xx answers — anything whose :attr:`LLMError.retryable` is true, plus foreign exceptions
whose text names a transient condition. Each backoff is announced through
``ChatOptions.on_retry`` before the sleep, so the agent can show it as an event.
"""
from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

from .errors import CancelledError, LLMError
from .types import ChatOptions, RetryInfo

__all__ = ["RetryPolicy", "is_retryable", "call_with_retry"]

T = TypeVar("T")

_TRANSIENT = (
    "429", "499", "500", "502", "503", "504", "resource_exhausted", "unavailable",
    "deadline_exceeded", "deadline exceeded", "connection reset", "connection refused",
    "i/o timeout", "timed out", "eof",
)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3
    base_delay: float = 5.0
    factor: float = 2.0
    max_delay: float = 120.0
    jitter: float = 1.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0 or self.jitter < 0:
            raise ValueError("delays must not be negative")

    def delay(self, attempt: int, rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait after failed ``attempt`` (1-based): base·factor^(n-1), capped, ± jitter."""
        raw = min(self.max_delay, self.base_delay * self.factor ** max(0, attempt - 1))
        return max(0.0, raw + (rand() * 2.0 - 1.0) * self.jitter)


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, CancelledError):
        return False
    if isinstance(exc, LLMError):
        return bool(exc.retryable)
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    text = str(exc).lower()
    return any(marker in text for marker in _TRANSIENT)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]


def _default_sleep(delay: float, cancel: threading.Event | None) -> None:
    if cancel is not None:
        cancel.wait(delay)
    else:
        time.sleep(delay)


def call_with_retry(attempt: Callable[[], T], *, policy: RetryPolicy | None = None,
                    options: ChatOptions | None = None,
                    sleep: Callable[[float, threading.Event | None], None] = _default_sleep,
                    rand: Callable[[], float] = random.random) -> T:
    """Run ``attempt`` until it succeeds, fails for good, or attempts run out.

    The last error is re-raised with "(gave up after N attempts)" appended when more than
    one attempt was made. Cancellation is checked before each attempt and after each sleep.
    """
    policy = policy or RetryPolicy()
    cancel = options.cancel if options else None
    on_retry = options.on_retry if options else None
    for number in range(1, policy.attempts + 1):
        if cancel is not None and cancel.is_set():
            raise CancelledError("request cancelled")
        try:
            return attempt()
        except BaseException as exc:
            if not isinstance(exc, Exception) or not is_retryable(exc):
                raise
            if number >= policy.attempts:
                if number > 1 and isinstance(exc, LLMError):
                    exc.message = f"{exc.message} (gave up after {number} attempts)"
                    exc.args = (exc.message,)
                raise
            delay = policy.delay(number, rand)
            if on_retry is not None:
                on_retry(RetryInfo(attempt=number, max_attempts=policy.attempts, delay=delay,
                                   error=_one_line(exc)))
            sleep(delay, cancel)
    raise AssertionError("unreachable")  # pragma: no cover
