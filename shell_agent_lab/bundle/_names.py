"""Names: the default bundle file name and imported-title collisions (pure)."""
from __future__ import annotations

import re
from datetime import datetime
from typing import Iterable

from ._layout import SUFFIX

__all__ = ["default_filename", "unique_title"]

_UNSAFE = re.compile(r'[/\\:*?"<>|\x00-\x1f\x7f]')
_MAX_STEM = 64


def default_filename(title: str, session_id: str, when: datetime) -> str:
    """``<sanitised title ≤ 64 chars>-YYYYMMDD-HHMMSS.shellagent``.

    Path separators, ``:*?"<>|`` and control characters become ``_``; an empty (or
    all-dots) title falls back to ``session-<first 8 characters of the id>``.
    """
    stem = _UNSAFE.sub("_", title.strip())[:_MAX_STEM].strip().strip(".")
    if not stem.strip("_ "):
        stem = "session-" + _UNSAFE.sub("_", session_id)[:8]
    return f"{stem}-{when.strftime('%Y%m%d-%H%M%S')}{SUFFIX}"


def unique_title(title: str, existing: Iterable[str]) -> str:
    """``title``, or ``title (imported)``, ``title (imported 2)``, … whichever is free."""
    taken = set(existing)
    if title not in taken:
        return title
    candidate = f"{title} (imported)"
    n = 2
    while candidate in taken:
        candidate = f"{title} (imported {n})"
        n += 1
    return candidate
