"""One reply's tool calls as the turn runs them (pure): identical calls run once, and at most
:data:`MAX_CALLS_PER_REPLY` calls of one reply are taken.

A small local model sometimes writes the same call dozens of times in one reply; each would
cost a tool run and a step line, and its results would crowd the context of the next request.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence, TypeVar

__all__ = ["MAX_CALLS_PER_REPLY", "SAME_CALL_TEXT", "Batch", "plan_batch", "cap_note"]

#: calls of one reply that are taken; the rest are dropped and the model is told
MAX_CALLS_PER_REPLY = 6
#: the result recorded for a call identical to an earlier one of the same reply (not run)
SAME_CALL_TEXT = "Same call as above: see its result."

C = TypeVar("C")


@dataclass
class Batch:
    """``kept``: the calls taken, in order; ``same_as[i] = j``: kept call ``i`` repeats kept call
    ``j`` (``j < i``) and is not run; ``dropped``: calls past the cap (not run, not recorded)."""

    kept: list = field(default_factory=list)
    same_as: dict[int, int] = field(default_factory=dict)
    dropped: int = 0

    @property
    def total(self) -> int:
        return len(self.kept) + self.dropped


def plan_batch(calls: Sequence[C], key: Callable[[C], str], cap: int = MAX_CALLS_PER_REPLY) -> Batch:
    """Which of ``calls`` run: the first ``cap``, an identical call (same ``key``) only once."""
    kept = list(calls[:cap])
    first: dict[str, int] = {}
    same_as: dict[int, int] = {}
    for index, call in enumerate(kept):
        k = key(call)
        if k in first:
            same_as[index] = first[k]
        else:
            first[k] = index
    return Batch(kept=kept, same_as=same_as, dropped=max(0, len(calls) - cap))


def cap_note(batch: Batch, cap: int = MAX_CALLS_PER_REPLY) -> str:
    """What the model is told when calls of its reply were dropped ("" when none were)."""
    if not batch.dropped:
        return ""
    return (f"Note: your reply had {batch.total} tool calls; only the first {cap} were taken (at most {cap} "
            f"per reply) and the other {batch.dropped} were not run. Use the results above; call a tool "
            "again only if a result you still need is missing.")
