"""The session's history as the builder sees it: cached per-record state, the window start,
the anchor/dead-topic split of older records, and tool-call pairing (no I/O except the store
reads in :func:`memory_signature`)."""
from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from typing import Any

from ..llm.types import Message
from ._text import jaccard, token_set
from .tokens import estimate_tokens

__all__ = ["SessionState", "Older", "message_tokens", "is_placeholder", "window_start",
           "memory_signature", "classify_older", "pair_tool_calls"]

_DEAD_STATES = frozenset({"dormant", "archived"})
_ANCHOR_CATEGORIES = frozenset({"preference", "decision"})


def message_tokens(message: Message) -> int:
    tokens = estimate_tokens(message.content)
    for call in message.tool_calls:
        tokens += estimate_tokens(call.name) + estimate_tokens(
            json.dumps(call.arguments, ensure_ascii=False, sort_keys=True))
    return tokens


def is_placeholder(record: Any) -> bool:
    return record.role == "assistant" and (record.content or "").startswith("[Calling:") \
        and not getattr(record, "tool_calls", None)


@dataclass
class Older:
    """The summarisable part of the history for one (start, memory) state."""

    anchors: list[Any]
    remaining: list[Any]
    anchor_indices: list[int]
    dropped: int
    fingerprints: list[str]


class SessionState:
    """Everything cached for one session. Records are append-only, so caches only grow."""

    def __init__(self) -> None:
        self.seen = 0                    # number of store records processed
        self.last_id: Any = None
        self.last_seq = 0
        self.raw: list[Any] = []         # records that may be sent (oldest first)
        self.legacy: list[Any] = []      # legacy "summary" records
        self.render_key: tuple[Any, ...] | None = None   # (tag, tool cap[, sharing]) the renders were made with
        self.tokens: list[int] = []      # tokens of raw[i] as rendered in sequence
        self.cum: list[int] = [0]        # prefix sums of tokens
        self.messages: dict[tuple[Any, bool], Message] = {}
        self.token_sets: dict[Any, frozenset[str]] = {}
        self.digests: dict[Any, bytes] = {}
        self.classes: dict[Any, tuple[bool, tuple[str, ...]]] = {}
        self.class_sig: Any = None
        self.candidates_key: Any = None
        self.candidates: Older | None = None
        self.summaries: dict[str, str] = {}
        self.tiers_key: Any = None
        self.tiers: list[tuple[str, list[Any], int, str]] = []

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def reset_renders(self, key: tuple[Any, ...]) -> None:
        self.render_key = key
        self.tokens = []
        self.cum = [0]
        self.messages = {}


def window_start(state: SessionState, raw_budget: int | None, step: float) -> int:
    """Index of the first raw record sent verbatim.

    The smallest start whose records fit ``raw_budget`` is snapped forward to a grid of
    ``step × raw_budget`` tokens over the history's prefix sums, so the start stays put while
    the conversation grows and jumps once per grid step. The newest record is always included
    and a window never opens with a tool result whose call is outside it.
    """
    n = len(state.raw)
    if n == 0 or raw_budget is None:
        return 0
    cum = state.cum
    smallest = min(bisect.bisect_left(cum, cum[n] - raw_budget), n - 1)
    grid = int(raw_budget * step)
    start = smallest
    if grid > 0:
        line = -(-cum[smallest] // grid) * grid
        start = min(max(bisect.bisect_left(cum, line), smallest), n - 1)
    while start < n - 1 and state.raw[start].role == "tool":
        start += 1                       # never open the window with an orphan tool result
    return start


def memory_signature(store: Any, session_id: str, anchor_threshold: float,
                     dead_topic_threshold: float) -> tuple:
    """What anchor and dead-topic classification depends on (memory facts and thresholds)."""
    anchors = tuple(sorted({e.fact for e in store.global_memory.list()
                            if e.category in _ANCHOR_CATEGORIES}))
    dead, live = set(), set()
    for entry in store.session_memory.list(session_id):
        (dead if entry.state in _DEAD_STATES else live).add(entry.fact)
    return (anchors, tuple(sorted(dead)), tuple(sorted(live)),
            anchor_threshold, dead_topic_threshold)


def classify_older(state: SessionState, start: int, sig: tuple) -> Older:
    """Split the records before ``start`` into anchors, dead topics and the rest."""
    if start == 0:
        return Older([], [], [], 0, [])
    key = (start, sig)
    if state.candidates_key == key and state.candidates is not None:
        return state.candidates
    if state.class_sig != sig:
        state.class_sig, state.classes = sig, {}
    anchor_sets = [token_set(f) for f in sig[0]]
    dead_sets = [(f, token_set(f)) for f in sig[1]]
    live_sets = [token_set(f) for f in sig[2]]
    athr, dthr = sig[3], sig[4]
    result = Older([], [], [], 0, [])
    fingerprints: set[str] = set()
    for index, record in enumerate(state.raw[:start]):
        cls = state.classes.get(record.id)
        if cls is None:
            words = state.token_sets.get(record.id)
            if words is None:
                words = state.token_sets[record.id] = token_set(record.content or "")
            if any(jaccard(words, a) >= athr for a in anchor_sets):
                cls = (True, ())
            else:
                hits = tuple(f for f, d in dead_sets if jaccard(words, d) >= dthr)
                if hits and any(jaccard(words, live) >= dthr for live in live_sets):
                    hits = ()
                cls = (False, hits)
            state.classes[record.id] = cls
        if cls[0]:
            result.anchors.append(record)
            result.anchor_indices.append(index)
        elif cls[1]:
            result.dropped += 1
            fingerprints.update(cls[1])
        else:
            result.remaining.append(record)
    result.fingerprints = sorted(fingerprints)
    state.candidates_key, state.candidates = key, result
    return result


def pair_tool_calls(messages: list[Message]) -> list[Message]:
    """Keep native tool calling consistent: every call answered, every answer called.

    Calls without a result in the window are dropped from their assistant message (an
    assistant message left empty is dropped); results whose call is not in the window become
    user text labelled with the tool's name.
    """
    answered = {m.tool_call_id for m in messages if m.role == "tool" and m.tool_call_id}
    out: list[Message] = []
    called: set[str] = set()
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            calls = [c for c in message.tool_calls if c.id in answered]
            if len(calls) != len(message.tool_calls):
                message.tool_calls = calls
            if not calls and not message.content:
                continue
            called.update(c.id for c in calls)
        elif message.role == "tool" and message.tool_call_id not in called:
            label = f"[Result of tool {message.name or 'unknown'}]"
            message = Message(role="user", content=f"{label}\n{message.content}")
        out.append(message)
    return out
