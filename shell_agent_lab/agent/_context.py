"""The agent's seam to ``shell_agent_lab.context``: building messages, the per-turn memory
lifecycle and extraction. Everything the loop needs from that layer goes through here."""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from ..llm.errors import CancelledError
from ..llm.types import Backend, ChatOptions

__all__ = ["make_builder", "make_budget", "run_lifecycle", "run_extraction", "wrap_untrusted"]

log = logging.getLogger(__name__)


def make_builder(store: Any) -> Any:
    from ..context import ContextBuilder

    return ContextBuilder(store)


def make_budget(backend: Backend, profile: dict[str, Any], max_context_tokens: int | None) -> Any:
    """The context budget: settings → profile → the backend's own defaults → unlimited."""
    from ..context import Budget

    def pick(key: str, backend_attr: str | None = None) -> Any:
        if profile.get(key) is not None:
            return profile[key]
        defaults = getattr(getattr(backend, "profile", None), "defaults", None)
        if defaults is not None and getattr(defaults, key, None) is not None:
            return getattr(defaults, key)
        return getattr(backend, backend_attr or key, None)

    tokens = max_context_tokens or pick("max_context_tokens", "context_tokens") or 0
    reserve = pick("output_reserve")
    if reserve is None:
        reserve = 4096 if tokens else 0
    kwargs: dict[str, Any] = {"max_context_tokens": int(tokens), "output_reserve": int(reserve) if tokens else 0}
    tool_cap = pick("max_tool_result_tokens")
    if tool_cap:
        kwargs["max_tool_result_tokens"] = int(tool_cap)
    return Budget(**kwargs)


def run_lifecycle(store: Any, session_id: str, message: str) -> None:
    """Decay and touch memory for a new user turn."""
    from ..context import run_lifecycle as _run

    _run(store, session_id, message)


def run_extraction(store: Any, publish: Callable[[str, dict], None], session_id: str,
                   backend: Backend, private: bool, cancel: threading.Event | None = None,
                   sharing: str = "rows") -> Any:
    """Extract memories from the latest turn (cancelled with ``cancel``), reading its answers as
    the model may at data-sharing level ``sharing``.

    Stop pressed while the model's reply is arriving discards that reply: nothing is stored.
    """
    from ..context import Extractor

    return Extractor(store, publish).run(session_id, _Cancellable(backend, cancel), private=private,
                                         options=ChatOptions(cancel=cancel), sharing=sharing)


class _Cancellable:
    """The backend, with ``cancel`` checked again once an answer has arrived."""

    def __init__(self, backend: Backend, cancel: threading.Event | None) -> None:
        self._backend = backend
        self._cancel = cancel

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        response = self._backend.chat(*args, **kwargs)
        if self._cancel is not None and self._cancel.is_set():
            raise CancelledError("memory extraction was stopped")
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


def wrap_untrusted(text: str) -> str:
    """Wrap data a tool sends to the model itself in a fresh guard envelope (fails closed)."""
    from ..context import new_tag, wrap

    return wrap(new_tag(), text)
