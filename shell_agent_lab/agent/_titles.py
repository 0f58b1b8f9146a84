"""A session's automatic title, asked from the model after the first turn."""
from __future__ import annotations

import threading

from ..llm.types import Backend, ChatOptions, Message

__all__ = ["DEFAULT_TITLE", "make_title", "TITLE_PROMPT"]

DEFAULT_TITLE = "New Session"
TITLE_PROMPT = ("Write a short title (under 30 characters) for a conversation that begins with the "
                "message below. Use the same language as the message. Reply with the title only.")
_MAX_TITLE = 60
_MAX_INPUT = 2000


def clean_title(text: str) -> str | None:
    """The model's answer as a title: one line, quotes and markdown stripped; None when unusable."""
    title = " ".join((text or "").split()).strip("\"'`*# ")
    return title if title and len(title) <= _MAX_TITLE else None


def make_title(backend: Backend, first_message: str, cancel: threading.Event | None = None) -> str | None:
    """Ask ``backend`` for a title for a conversation starting with ``first_message``."""
    if not first_message.strip():
        return None
    response = backend.chat([Message("system", TITLE_PROMPT), Message("user", first_message[:_MAX_INPUT])], (),
                            options=ChatOptions(cancel=cancel))
    return clean_title(response.text)
