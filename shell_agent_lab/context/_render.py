"""Rendering one stored record as one model message (pure, given the guard tag)."""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, Callable

from ..llm.types import Message, ToolCall
from ..sharing import answer_view, model_view
from ._text import time_marker, time_prefix
from .anchors import split_anchors
from .guard import wrap
from .tokens import estimate_tokens

__all__ = ["truncate_to_tokens", "render_record", "tool_text", "needs_marker", "tool_calls_of", "images_of", "GAP"]

#: a pause longer than this between two records is marked with the time
GAP = timedelta(minutes=30)
_SUFFIX = "\n... [truncated, {n} bytes total]"


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """Cut ``text`` so its estimate fits ``max_tokens``, saying how big it was. Idempotent."""
    if max_tokens <= 0 or estimate_tokens(text) <= max_tokens:
        return text
    suffix = _SUFFIX.format(n=len(text.encode("utf-8")))
    keep = max(0, max_tokens * 4 - len(suffix))
    cut = text[:keep] + suffix
    while keep > 0 and estimate_tokens(cut) > max_tokens:
        keep = keep * max_tokens // max(1, estimate_tokens(cut)) - 1
        keep = max(0, keep)
        cut = text[:keep] + suffix
    return cut


def needs_marker(role: str, created: datetime | None, previous: datetime | None, first: bool) -> bool:
    """Tool records always carry the time; others only after a pause; the first record never."""
    if first or created is None:
        return False
    if role == "tool":
        return True
    return previous is not None and created - previous > GAP


def tool_calls_of(record: Any) -> list[ToolCall]:
    """Structured calls stored with an assistant record (ToolCall objects, dicts or JSON)."""
    raw = getattr(record, "tool_calls", None)
    if not raw:
        return []
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return []
    calls: list[ToolCall] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, ToolCall):
            calls.append(item)
        elif isinstance(item, dict):
            args = item.get("arguments") or {}
            if isinstance(args, str):
                try:
                    args = json.loads(args) if args.strip() else {}
                except ValueError:
                    args = {"_raw": args}
            calls.append(ToolCall(id=str(item.get("id") or ""), name=str(item.get("name") or ""),
                                  arguments=args if isinstance(args, dict) else {"_raw": args},
                                  extra=dict(item.get("extra") or {})))
    return calls


#: an image object id -> (mime type, bytes), or None when it cannot be shown
ImageLoader = Callable[[str], "tuple[str, bytes] | None"]


def images_of(content: str, load: ImageLoader) -> list[tuple[str, bytes]]:
    """The pictures named by a user message's image anchors, in order (unloadable ones skipped)."""
    return [p for p in map(load, split_anchors(content)[1]) if p is not None]


def tool_text(record: Any, sharing: str) -> str:
    """What the model may read of a tool record at data-sharing level ``sharing`` (the boundary:
    every tool result reaches a request through here; see :mod:`shell_agent_lab.sharing`)."""
    meta = getattr(record, "meta", None)
    return model_view(getattr(record, "tool_name", None), record.content or "",
                      meta if isinstance(meta, dict) else None, sharing, status=getattr(record, "status", None))


def render_record(record: Any, *, tag: str, tool_cap: int, marker: bool,
                  images: ImageLoader | None = None, sharing: str = "rows") -> Message:
    """One record as a message: the model's view of tool output (``sharing``) → truncate it →
    wrap user/tool → time prefix → marker.

    A user message's leading object anchors (see :mod:`.anchors`) stay outside the envelope;
    with ``images``, each image anchor's picture rides along in ``Message.images``.
    """
    role = record.role
    content = record.content or ""
    pictures: list[tuple[str, bytes]] = []
    if role == "tool":
        content = truncate_to_tokens(tool_text(record, sharing), tool_cap)
    elif role == "assistant":
        content = answer_view(content, getattr(record, "meta", None), sharing)
    if role == "user":
        anchors, _, rest = split_anchors(content)
        if images is not None:
            pictures = images_of(content, images)
        content = wrap(tag, rest)
        if anchors:
            content = "\n".join(anchors) + "\n" + content
    elif role == "tool":
        content = wrap(tag, content)
    created = getattr(record, "created_at", None)
    if role == "user" and created is not None:
        content = f"{time_prefix(created)}\n\n{content}"
    if marker and created is not None:
        content = f"{time_marker(created)}\n{content}"
    if role == "tool":
        return Message(role="tool", content=content, tool_call_id=record.tool_call_id,
                       name=record.tool_name)
    if role == "assistant":
        meta = getattr(record, "meta", None) or {}
        extra = meta.get("extra") if isinstance(meta, dict) else None
        return Message(role="assistant", content=content, tool_calls=tool_calls_of(record),
                       extra=dict(extra) if isinstance(extra, dict) else {})
    return Message(role="user", content=content, images=pictures)
