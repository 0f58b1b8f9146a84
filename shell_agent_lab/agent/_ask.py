"""The model call a tool may make (``ToolContext.ask``): built here, from the session's backend,
so the tools never import the model layer; a backend error becomes the tool's error."""
from __future__ import annotations

import threading
from typing import Any

from ..llm.errors import LLMError
from ..llm.types import Backend, ChatOptions, Message
from ..tools.registry import Ask, ModelCallError

__all__ = ["tool_ask"]


def tool_ask(backend: Backend | None, cancel: threading.Event) -> Ask | None:
    """``ask(system, user, *, response_format=None, temperature=None) -> str`` over ``backend``
    (None without a backend): one call without tools, cancelled with ``cancel``, the reply's
    text stripped; an :class:`LLMError` is raised again as :class:`ModelCallError`."""
    if backend is None:
        return None

    def ask(system: str, user: str, *, response_format: dict[str, Any] | None = None,
            temperature: float | None = None) -> str:
        try:
            response = backend.chat([Message("system", system), Message("user", user)],
                                    options=ChatOptions(cancel=cancel, response_format=response_format,
                                                        temperature=temperature))
        except LLMError as exc:
            raise ModelCallError(str(exc)) from exc
        return (response.text or "").strip()

    return ask
