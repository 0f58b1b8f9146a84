"""An in-memory stand-in for the store's surface that the context layer uses.

It follows docs/contracts.md ("store/") closely enough for the context tests; the integration
tests run the same scenarios against the real SQLite store.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

T0 = datetime(2026, 4, 27, 8, 30, tzinfo=timezone.utc)


@dataclass
class FakeRecord:
    id: int
    session_id: str
    seq: int
    role: str
    content: str
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_calls: Any = None
    status: str | None = None
    meta: dict = field(default_factory=dict)
    created_at: datetime = T0


@dataclass
class FakeEntry:
    id: int
    fact: str
    category: str
    state: str = "active"
    source: str = "user_turn"
    native_fact: str = ""
    relevance: float = 1.0
    touch_count: int = 0
    last_touched_turn: int = 0


class FakeMemory:
    def __init__(self) -> None:
        self.entries: dict[str, list[FakeEntry]] = {}
        self._ids = itertools.count(1)

    def _list(self, key: str) -> list[FakeEntry]:
        return self.entries.setdefault(key, [])

    def add_entry(self, key: str, fact: str, category: str, **kw: Any) -> FakeEntry:
        entry = FakeEntry(next(self._ids), fact, category, **kw)
        self._list(key).insert(0, entry)
        return entry

    def render_for(self, key: str) -> str:
        lines = [f"- [{'user-stated' if e.source == 'user_turn' else 'derived'}] [{e.category}] {e.fact}\n"
                 for e in self._list(key) if e.state not in ("dormant", "archived")]
        return "".join(lines)


class FakeGlobal(FakeMemory):
    def list(self, include_superseded: bool = False) -> list[FakeEntry]:
        return list(self._list("global"))

    def render(self) -> str:
        return self.render_for("global")

    def add_fact(self, fact: str, category: str = "preference", **kw: Any) -> FakeEntry:
        return self.add_entry("global", fact, category, **kw)


class FakeSession(FakeMemory):
    def list(self, session_id: str, include_superseded: bool = False) -> list[FakeEntry]:
        return list(self._list(session_id))

    def render(self, session_id: str) -> str:
        return self.render_for(session_id)

    def add_fact(self, session_id: str, fact: str, category: str = "fact", **kw: Any) -> FakeEntry:
        return self.add_entry(session_id, fact, category, **kw)


class FakeFindings:
    def __init__(self) -> None:
        self.items: dict[str, list[str]] = {}

    def render(self, session_id: str) -> str:
        return "".join(f"- [derived] {c}\n" for c in reversed(self.items.get(session_id, [])))


class FakeStore:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.records: dict[str, list[FakeRecord]] = {}
        self.summaries: dict[tuple[str, str], Any] = {}
        self.summary_gets = 0
        self.global_memory = FakeGlobal()
        self.session_memory = FakeSession()
        self.findings = FakeFindings()
        self._ids = itertools.count(1)
        self.clock = T0

    def append_record(self, session_id: str, role: str, content: str, *, at: datetime | None = None,
                      **kw: Any) -> FakeRecord:
        records = self.records.setdefault(session_id, [])
        if at is None:
            at = self.clock
            self.clock += timedelta(minutes=1)
        record = FakeRecord(id=next(self._ids), session_id=session_id, seq=len(records) + 1,
                            role=role, content=content, created_at=at, **kw)
        records.append(record)
        return record

    def list_records(self, session_id: str) -> list[FakeRecord]:
        return list(self.records.get(session_id, []))

    def get_summary(self, session_id: str, key: str) -> Any:
        self.summary_gets += 1
        return self.summaries.get((session_id, key))

    def put_summary(self, session_id: str, entry: Any) -> None:
        self.summaries[(session_id, entry.key)] = entry
