"""Memory ageing, once per user turn, before the request is built.

Both stores decay one step (entries older than the fresh window lose relevance and may turn
dormant or archived), then entries whose words overlap the new message (Jaccard ≥ 0.3 on token
sets) are touched back to full relevance. The store persists every change, in one write
transaction (none when nothing changes).
"""
from __future__ import annotations

from typing import Any

__all__ = ["run_lifecycle", "TOUCH_THRESHOLD"]

TOUCH_THRESHOLD = 0.3


def run_lifecycle(store: Any, session_id: str, user_message: str) -> None:
    """Decay Global and Session Memory one step, then touch what ``user_message`` mentions.

    Call it after the user's record is appended: the current turn is the number of user
    records in the session.
    """
    turn = store.count_user_records(session_id)
    store.age_memory(session_id, user_message or "", turn, TOUCH_THRESHOLD)
