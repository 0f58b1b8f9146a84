"""The model call a tool may make (``ToolContext.ask``): built here, from the session's backend,
so the tools never import the model layer; a backend error becomes the tool's error."""
from __future__ import annotations

import threading
from typing import Any

from ..llm.errors import LLMError
from ..llm.types import Backend, ChatOptions, Message
from ..tools.registry import Ask, ModelCallError

__all__ = ["tool_ask"]


def tool_ask(backend: Backend | None, cancel: threading.Event, *, sharing: str = "rows") -> Ask | None:
    """``ask(system, user, *, response_format=None, temperature=None) -> str`` over ``backend``
    (None without a backend): one call without tools, cancelled with ``cancel``, the reply's
    text stripped; an :class:`LLMError` is raised again as :class:`ModelCallError`.

    Below ``sharing="rows"`` the call is refused: a tool that asks the model hands it rows (a
    query's result to summarise, windows of a table to read) or sample values, which the
    data-sharing level keeps on this machine."""
    if backend is None:
        return None
    if sharing != "rows":
        def refuse(system: str, user: str, *, response_format: dict[str, Any] | None = None,
                   temperature: float | None = None) -> str:
            raise ModelCallError(f"this tool hands rows of the data to the model, which data sharing "
                                 f"\"{sharing}\" does not allow; compute the answer with query_sql or "
                                 "statistics instead")
        return refuse

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
