"""Findings: short analysis observations kept per session (cap 100, first in first out).

IDs are ``f-YYYYMMDD-NNN`` from a per-session, per-day counter incremented inside the write
transaction, so concurrent writers never share an id and a deleted id is never reused; past 999
in a day the form becomes ``f-YYYYMMDD-NNNNNN-<6 hex>``.
"""
from __future__ import annotations

import json
import secrets
import sqlite3
from datetime import datetime
from typing import Callable, Iterable

from . import render, similarity
from ._db import Database
from ._time import Clock, from_db, to_db
from .errors import ValidationError
from .models import FINDING_SOURCES, Caps, Finding

__all__ = ["Findings", "finding_id"]

_MARKER = "({n} earlier findings elided to fit budget)"
_MAX_TAGS = 20
_MAX_TAG_CHARS = 40


def finding_id(day: str, n: int) -> str:
    """``f-<day>-NNN`` for the first 999 of a day, then a longer unique form."""
    if n <= 999:
        return f"f-{day}-{n:03d}"
    return f"f-{day}-{n:06d}-{secrets.token_hex(3)}"


def _finding(row: tuple) -> Finding:
    id_, session_id, content, tags, source, tool_orig, created_at, label = row
    return Finding(
        id=id_, session_id=session_id, content=content, tags=tuple(json.loads(tags)),
        source=source, tool_originated=bool(tool_orig), created_at=from_db(created_at),
        created_label=label,
    )


_COLUMNS = "id, session_id, content, tags, source, tool_originated, created_at, created_label"


class Findings:
    """Per-session findings with dedup that respects numbers, negations, names and statistics."""

    def __init__(self, db: Database, clock: Clock, caps: Caps,
                 require_session: Callable[[str], object]) -> None:
        self._db = db
        self._clock = clock
        self._caps = caps
        self._require_session = require_session

    def _clean_tags(self, tags: Iterable[str]) -> tuple[str, ...]:
        if isinstance(tags, str):
            tags = [tags]
        out: list[str] = []
        for tag in tags or ():
            if not isinstance(tag, str):
                raise ValidationError(f"tags must be text, not {type(tag).__name__}")
            clean = render.sanitize(tag, _MAX_TAG_CHARS)
            if clean and clean not in out:
                out.append(clean)
        return tuple(out[:_MAX_TAGS])

    @staticmethod
    def _is_duplicate(content: str, existing: Iterable[tuple[str, str]]) -> bool:
        existing = list(existing)
        if not existing:
            return False
        norm = similarity.normalize(content)
        tokens = similarity.similarity_tokens(content)
        for old, old_norm in existing:
            if old == content:
                return True
            close = old_norm == norm or similarity.jaccard(
                tokens, similarity.similarity_tokens(old)
            ) >= similarity.CONSOLIDATION_THRESHOLD
            if close and similarity.protected_agree(content, old):
                return True
        return False

    def _seen(self, session_id: str) -> dict[str, tuple[str, str]]:
        """``id -> (content, norm)`` of the session's findings, read without the write lock."""
        with self._db.read() as conn:
            return {i: (c, n) for i, c, n in conn.execute(
                "SELECT id, content, norm FROM findings WHERE session_id = ?", (session_id,))}

    @staticmethod
    def _added_since(conn: sqlite3.Connection, session_id: str,
                     seen: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
        """``(content, norm)`` of the findings recorded since ``seen`` was read (ids are never
        reused, so an id not seen is a new finding)."""
        new = [i for (i,) in conn.execute("SELECT id FROM findings WHERE session_id = ?", (session_id,))
               if i not in seen]
        return [conn.execute("SELECT content, norm FROM findings WHERE session_id = ? AND id = ?",
                             (session_id, i)).fetchone() for i in new]

    def add(self, session_id: str, content: str, *, tags: Iterable[str] = (),
            source: str = "llm_promoted", tool_originated: bool = False,
            created_at: datetime | None = None) -> Finding | None:
        """Store a finding; ``None`` when it duplicates one already recorded.

        ``created_at`` keeps an original time (imports); the id is always from today's counter.
        """
        if not isinstance(content, str):
            raise ValidationError(f"finding content must be text, not {type(content).__name__}")
        content = render.clean_text(content)
        if not content:
            raise ValidationError("finding is empty; give the observation to record")
        if len(content) > self._caps.finding_chars:
            raise ValidationError(
                f"finding is {len(content):,} characters; the limit is {self._caps.finding_chars:,} — "
                "summarise it"
            )
        if source not in FINDING_SOURCES:
            raise ValidationError(f"source {source!r} is not one of {', '.join(FINDING_SOURCES)}")
        clean_tags = self._clean_tags(tags)
        self._require_session(session_id)
        # compare with every finding outside the write lock; inside it, only with those
        # recorded meanwhile (by another thread or process)
        seen = self._seen(session_id)
        norm = similarity.normalize(content)
        if self._is_duplicate(content, seen.values()):
            return None
        with self._db.write() as conn:
            if self._is_duplicate(content, self._added_since(conn, session_id, seen)):
                return None
            now = self._clock()
            day = now.strftime("%Y%m%d")
            n = conn.execute(
                "INSERT INTO finding_counters (session_id, day, n) VALUES (?, ?, 1) "
                "ON CONFLICT (session_id, day) DO UPDATE SET n = n + 1 RETURNING n",
                (session_id, day),
            ).fetchone()[0]
            new_id = finding_id(day, n)
            conn.execute(
                "INSERT INTO findings (id, session_id, content, norm, tags, source, tool_originated, "
                "created_at, created_label) VALUES (?,?,?,?,?,?,?,?,?)",
                (new_id, session_id, content, norm,
                 json.dumps(list(clean_tags)), source, int(tool_originated), to_db(created_at or now),
                 render.created_label(created_at or now)),
            )
            self._evict(conn, session_id)
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM findings WHERE session_id = ? AND id = ?", (session_id, new_id)
            ).fetchone()
            if row is None:
                raise ValidationError("the findings cap is 0; nothing can be stored")
            return _finding(row)

    def _evict(self, conn: sqlite3.Connection, session_id: str) -> None:
        cap = self._caps.findings
        if cap is None:
            return
        conn.execute(
            "DELETE FROM findings WHERE session_id = ? AND seq NOT IN "
            "(SELECT seq FROM findings WHERE session_id = ? ORDER BY seq DESC LIMIT ?)",
            (session_id, session_id, cap),
        )

    def list(self, session_id: str) -> list[Finding]:
        """Oldest first (the order they were recorded)."""
        with self._db.read() as conn:
            return [
                _finding(r)
                for r in conn.execute(
                    f"SELECT {_COLUMNS} FROM findings WHERE session_id = ? ORDER BY seq", (session_id,)
                )
            ]

    def get(self, session_id: str, finding_id: str) -> Finding | None:
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM findings WHERE session_id = ? AND id = ?",
                (session_id, finding_id),
            ).fetchone()
        return _finding(row) if row else None

    def delete_many(self, session_id: str, ids: Iterable[str] | None) -> int:
        ids = [i for i in ids or () if isinstance(i, str)]
        if not ids:
            return 0
        with self._db.write() as conn:
            return sum(
                conn.execute(
                    "DELETE FROM findings WHERE session_id = ? AND id = ?", (session_id, i)
                ).rowcount
                for i in ids
            )

    def render(self, session_id: str) -> str:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT content, created_label FROM findings WHERE session_id = ? ORDER BY seq DESC",
                (session_id,),
            ).fetchall()
        return render.render_block((render.finding_line(c, l) for c, l in rows), len(rows), _MARKER)
