"""Timestamps: aware UTC datetimes in Python, fixed-width ISO-8601 text in SQLite (sortable)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def to_db(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return as_utc(dt).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_db(text: str | None) -> datetime | None:
    if not text:
        return None
    return as_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))


def parse_iso(value: object) -> datetime | None:
    """A user-supplied ISO-8601 timestamp, or ``None`` when missing or unparseable."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return as_utc(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
    except ValueError:
        return None
