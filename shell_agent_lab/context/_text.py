"""Small text utilities shared by the builder, extraction and lifecycle (pure functions)."""
from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache

from ..store.similarity import token_set  # one tokenizer for memory, anchors and touches

__all__ = ["token_set", "jaccard", "utc_stamp", "time_prefix", "time_marker", "clock_hhmm"]

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    """|A∩B| / |A∪B|; 0 when both are empty."""
    if not a or not b:
        return 0.0
    inter = len(a & b)
    if not inter:
        return 0.0
    return inter / (len(a) + len(b) - inter)


def _utc(ts: datetime) -> datetime:
    if ts.tzinfo is None:
        return ts.replace(tzinfo=timezone.utc)
    return ts.astimezone(timezone.utc)


@lru_cache(maxsize=4096)
def time_prefix(ts: datetime) -> str:
    """``[Time: 2026-04-27 Monday 10:30:05 UTC]`` (locale-independent)."""
    t = _utc(ts)
    return f"[Time: {t:%Y-%m-%d} {_WEEKDAYS[t.weekday()]} {t:%H:%M:%S} UTC]"


@lru_cache(maxsize=4096)
def time_marker(ts: datetime) -> str:
    """``[2026-04-27 10:30 UTC]``."""
    return f"[{_utc(ts):%Y-%m-%d %H:%M} UTC]"


def utc_stamp(ts: datetime) -> str:
    return f"{_utc(ts):%Y-%m-%d %H:%M} UTC"


def clock_hhmm(ts: datetime) -> str:
    return f"{_utc(ts):%H:%M}"
