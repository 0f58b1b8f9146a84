"""Relevance decay, lifecycle states and eviction order (pure functions).

Each user turn multiplies the relevance of every entry past its fresh window by
``DECAY_RATE``. The state follows from the relevance and the entry's age in turns:
``fresh`` for the first ``FRESH_TURNS`` turns, then ``active`` (≥ 0.4), ``dormant`` (< 0.4) and
``archived`` (≤ 0.1). Dormant and archived entries are kept but not rendered into prompts.
"""
from __future__ import annotations

from datetime import datetime

__all__ = [
    "DECAY_RATE",
    "FRESH_TURNS",
    "DORMANT_BELOW",
    "ARCHIVED_AT_OR_BELOW",
    "STATES",
    "RENDERED_STATES",
    "decayed_relevance",
    "derive_state",
    "eviction_key",
]

DECAY_RATE = 0.93
FRESH_TURNS = 3
DORMANT_BELOW = 0.4
ARCHIVED_AT_OR_BELOW = 0.1
STATES = ("fresh", "active", "dormant", "archived")
RENDERED_STATES = ("fresh", "active")
_STATE_PRIORITY = {"archived": 0, "dormant": 1, "active": 2, "fresh": 3}


def decayed_relevance(relevance: float, rate: float = DECAY_RATE) -> float:
    """``relevance * rate`` clamped to [0, 1]; a rate outside (0, 1] is a no-op."""
    if relevance <= 0:
        return 0.0
    if rate <= 0 or rate > 1:
        rate = 1.0
    return max(0.0, min(1.0, relevance * rate))


def derive_state(
    relevance: float,
    created_turn: int,
    current_turn: int,
    *,
    fresh_turns: int = FRESH_TURNS,
    dormant_below: float = DORMANT_BELOW,
    archived_at_or_below: float = ARCHIVED_AT_OR_BELOW,
) -> str:
    """The lifecycle state; zero or negative thresholds fall back to the defaults."""
    fresh_turns = fresh_turns if fresh_turns > 0 else FRESH_TURNS
    dormant_below = dormant_below if dormant_below > 0 else DORMANT_BELOW
    archived_at_or_below = archived_at_or_below if archived_at_or_below > 0 else ARCHIVED_AT_OR_BELOW
    if current_turn - created_turn < fresh_turns:
        return "fresh"
    if relevance <= archived_at_or_below:
        return "archived"
    if relevance < dormant_below:
        return "dormant"
    return "active"


def eviction_key(
    state: str, relevance: float, last_touched_at: datetime, entry_id: int, superseded: bool = False
) -> tuple:
    """Sort key: the smallest key is evicted first.

    Superseded entries go first, then archived → dormant → active → fresh, then the lowest
    relevance, then the oldest touch, then the oldest id.
    """
    priority = -1 if superseded else _STATE_PRIORITY.get(state, 2)
    return (priority, relevance, last_touched_at, entry_id)
