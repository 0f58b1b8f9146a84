"""Plain data returned by the store. Times are timezone-aware UTC datetimes."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "Caps",
    "Session",
    "Record",
    "MemoryEntry",
    "AddResult",
    "ImportResult",
    "Finding",
    "SummaryEntry",
    "ObjectMeta",
    "GLOBAL_SCOPE",
    "GLOBAL_CATEGORIES",
    "SESSION_CATEGORIES",
    "GLOBAL_SOURCES",
    "SESSION_SOURCES",
    "FINDING_SOURCES",
    "OBJECT_TYPES",
]

#: the memory table's scope for Global Memory (a session's scope is ``session_scope(id)``)
GLOBAL_SCOPE = "global"
GLOBAL_CATEGORIES = ("preference", "decision")
SESSION_CATEGORIES = ("fact", "context")
GLOBAL_SOURCES = (
    "user_turn",
    "assistant_turn",
    "manual",
    "promoted_from_session_memory",
    "promoted_from_finding",
    "tool_call",
)
SESSION_SOURCES = ("user_turn", "assistant_turn", "tool_call")
FINDING_SOURCES = ("llm_promoted", "analyze_data", "analyze_text")
OBJECT_TYPES = ("image", "blob", "report", "markdown")


@dataclass(frozen=True)
class Caps:
    """Size limits. ``None`` for a count cap lifts it (benchmarks, tests)."""

    global_memory: int | None = 100
    session_memory: int | None = 50
    findings: int | None = 100
    summaries: int = 64
    fact_chars: int = 2000          # a memory fact longer than this is refused
    finding_chars: int = 20000      # a finding longer than this is refused
    object_bytes: int = 50 * 1024 * 1024


@dataclass(frozen=True)
class Session:
    id: str
    title: str
    notebook_path: str | None
    private: bool
    profile: str | None
    key: str | None
    title_locked: bool
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class Record:
    id: int
    session_id: str
    seq: int
    role: str
    content: str
    tool_name: str | None
    tool_call_id: str | None
    tool_calls: list[dict[str, Any]] | None
    status: str | None
    meta: dict[str, Any] | None
    created_at: datetime


@dataclass(frozen=True)
class MemoryEntry:
    id: int
    fact: str
    native_fact: str
    category: str
    source: str
    tool_originated: bool
    relevance: float
    state: str
    created_turn: int
    last_touched_turn: int
    last_touched_at: datetime
    touch_count: int
    created_at: datetime
    superseded_by: int | None = None
    session_id: str | None = None     # None for Global Memory
    source_time: datetime | None = None
    suggested: bool = False           # Session Memory preference/decision awaiting a Pin


@dataclass(frozen=True)
class AddResult:
    """What one ``add`` did: at most one of ``added`` / ``touched`` is set."""

    entry: MemoryEntry
    added: list[int] = field(default_factory=list)
    touched: list[int] = field(default_factory=list)
    superseded: list[int] = field(default_factory=list)

    @property
    def created(self) -> bool:
        return bool(self.added)


@dataclass(frozen=True)
class ImportResult:
    added: int = 0
    touched: int = 0
    skipped: int = 0


@dataclass(frozen=True)
class Finding:
    id: str
    session_id: str
    content: str
    tags: tuple[str, ...]
    source: str
    tool_originated: bool
    created_at: datetime
    created_label: str


@dataclass(frozen=True)
class SummaryEntry:
    key: str
    kind: str
    tier: str
    summarizer_id: str
    from_ts: datetime | None
    to_ts: datetime | None
    record_count: int
    summary: str
    created_at: datetime | None = None


@dataclass(frozen=True)
class ObjectMeta:
    id: str
    session_id: str | None
    type: str
    mime_type: str
    name: str
    size: int
    lines: int
    tokens: int
    created_at: datetime
