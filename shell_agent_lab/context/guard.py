"""Guard envelopes for untrusted text, and cleaning of model replies.

Untrusted text (what the user typed, tool results, data) is wrapped in a random-nonce tag,
``<user_data_HEX>…</user_data_HEX>``. The system prompt tells the model the envelope is a defence
marker and that its content is data. Nothing is escaped: text that contains the tag name fails
closed with :class:`TagCollision`, so an attacker who guessed the tag cannot forge a close.

One nonce per session keeps the rendered history byte-stable (prompt caches stay warm); it is
rotated when the current name shows up in user or tool content, and reset on session load.
"""
from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = [
    "TagCollision", "new_tag", "wrap", "SessionGuards", "strip_think_tags", "strip_guard_tags",
    "clean_reply",
]

_WRAPPED_ROLES = frozenset({"user", "tool"})


class TagCollision(ValueError):
    """The text to wrap contains the envelope's tag name; wrapping it would be unsafe."""


def new_tag(prefix: str = "user_data") -> str:
    """A fresh tag name: ``<prefix>_`` followed by the hex of 16 random bytes."""
    return f"{prefix}_{secrets.token_hex(16)}"


def wrap(tag: str, data: str) -> str:
    """``<tag>data</tag>``, verbatim. Raises :class:`TagCollision` if ``data`` contains ``tag``."""
    if tag in data:
        raise TagCollision(f"untrusted text contains the guard tag {tag[:14]}…; refusing to wrap it")
    return f"<{tag}>{data}</{tag}>"


@dataclass
class _State:
    tag: str
    scanned_seq: int = -1   # highest record seq already checked against ``tag``
    rotations: int = 0


class SessionGuards:
    """The current guard tag of each session, rotated when untrusted content reveals it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, _State] = {}

    def tag(self, session_id: str) -> str:
        """The session's current tag, minted on first use."""
        with self._lock:
            return self._state(session_id).tag

    def reset(self, session_id: str) -> None:
        """Forget the session's tag (a new one is minted on next use)."""
        with self._lock:
            self._states.pop(session_id, None)

    def rotations(self, session_id: str) -> int:
        with self._lock:
            state = self._states.get(session_id)
            return state.rotations if state else 0

    def prepare(self, session_id: str, records: Iterable[Any]) -> str:
        """Check records not seen yet; rotate the tag when user/tool content contains it.

        ``records`` are store records (``seq``, ``role``, ``content``), oldest first. A fresh tag
        never appeared anywhere, so only records newer than the last check need scanning.
        """
        with self._lock:
            state = self._state(session_id)
            for record in records:
                seq = int(getattr(record, "seq", 0) or 0)
                if seq <= state.scanned_seq:
                    continue
                state.scanned_seq = seq
                if record.role in _WRAPPED_ROLES and state.tag in (record.content or ""):
                    state.tag = new_tag()
                    state.rotations += 1
            return state.tag

    def avoid(self, session_id: str, texts: Iterable[str]) -> str:
        """Rotate the tag until none of ``texts`` (other untrusted text) contains it."""
        texts = [t for t in texts if t]
        with self._lock:
            state = self._state(session_id)
            while any(state.tag in t for t in texts):
                state.tag = new_tag()
                state.rotations += 1
            return state.tag

    def _state(self, session_id: str) -> _State:
        state = self._states.get(session_id)
        if state is None:
            state = self._states[session_id] = _State(tag=new_tag())
        return state


# --- reply cleaning -------------------------------------------------------------------------

_THINK_NAMES = "think|thinking|reasoning|reflection"
_OPEN = re.compile(rf"<({_THINK_NAMES})(?:\s[^<>]*)?>", re.IGNORECASE)
_CLOSE = re.compile(rf"</({_THINK_NAMES})\s*>", re.IGNORECASE)
_CHANNEL_OPEN = "<|channel>thought"
_CHANNEL_CLOSE = "<channel|>"
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_ANY_GUARD = re.compile(r"</?user_data_[0-9a-f]{32}>")


def _code_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _CODE.finditer(text)]


def _in_spans(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= pos < end for start, end in spans)


def _next_outside(pattern: re.Pattern[str], text: str, pos: int, spans) -> re.Match[str] | None:
    for match in pattern.finditer(text, pos):
        if not _in_spans(match.start(), spans):
            return match
    return None


def strip_think_tags(text: str) -> str:
    """Remove think/thinking/reasoning/reflection blocks (an unclosed one runs to the end).

    Tags inside inline code spans or fenced code are left alone. A close tag with no opening
    before it (a model that starts mid-thought) drops everything before it.
    """
    if "<" not in text:
        return text
    spans = _code_spans(text)
    out: list[str] = []
    pos = 0
    first_open = _next_outside(_OPEN, text, 0, spans)
    first_close = _next_outside(_CLOSE, text, 0, spans)
    if first_close and (first_open is None or first_close.start() < first_open.start()):
        pos = first_close.end()
    while True:
        opened = _next_outside(_OPEN, text, pos, spans)
        channel = text.find(_CHANNEL_OPEN, pos)
        while channel != -1 and _in_spans(channel, spans):
            channel = text.find(_CHANNEL_OPEN, channel + 1)
        if opened is None and channel == -1:
            out.append(text[pos:])
            break
        if opened is not None and (channel == -1 or opened.start() < channel):
            out.append(text[pos:opened.start()])
            close = re.compile(rf"</{re.escape(opened.group(1))}\s*>", re.IGNORECASE).search(
                text, opened.end())
            pos = close.end() if close else len(text)
        else:
            out.append(text[pos:channel])
            end = text.find(_CHANNEL_CLOSE, channel + len(_CHANNEL_OPEN))
            pos = end + len(_CHANNEL_CLOSE) if end != -1 else len(text)
    return "".join(out).strip()


def strip_guard_tags(text: str, tag: str | None = None) -> str:
    """Remove ``<tag>``/``</tag>`` of the given tag, and any other guard envelope tags."""
    if tag:
        text = text.replace(f"<{tag}>", "").replace(f"</{tag}>", "")
    return _ANY_GUARD.sub("", text)


def clean_reply(text: str, tag: str | None = None) -> str:
    """A reply as shown and stored: think blocks and guard tags removed."""
    return strip_guard_tags(strip_think_tags(text or ""), tag)
