"""Global Memory and Session Memory: one table, two scopes, the same lifecycle.

``add`` consolidates: an exact, normalised or near-duplicate fact (protected tokens agreeing, no
contrast class contradicted, Jaccard ≥ 0.5) *touches* the existing entry instead of adding one. A
fact that reverses an older one — explicitly ("no longer …") or by flipping its polarity ("with"
→ "without", "always" → "never", "enable" → "disable") — supersedes it: the old row stays for history, marked ``superseded_by``, and is neither
rendered nor listed by default. Over the cap, one entry is evicted in lifecycle order.
"""
from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from typing import Any, Iterable, Iterator, Sequence

from . import lifecycle, render, similarity
from ._db import Database
from ._time import Clock, from_db, to_db
from ._token_cache import TokenCache
from .errors import NotFoundError, ValidationError
from .models import (
    GLOBAL_CATEGORIES,
    GLOBAL_SCOPE,
    GLOBAL_SOURCES,
    SESSION_CATEGORIES,
    SESSION_SOURCES,
    AddResult,
    Caps,
    ImportResult,
    MemoryEntry,
)
from .transfer import export_envelope, normalise_entries

__all__ = ["GlobalMemory", "SessionMemory"]

_GLOBAL_MARKER = "({n} earlier facts elided to fit budget)"
_SESSION_MARKER = "({n} earlier session-memory entries elided to fit budget)"
_STATE_CASE = (
    "CASE WHEN :turn - created_turn < :fresh THEN 'fresh' "
    "WHEN relevance <= :archived THEN 'archived' "
    "WHEN relevance < :dormant THEN 'dormant' ELSE 'active' END"
)


def session_scope(session_id: str) -> str:
    return f"s:{session_id}"


def _entry(row: sqlite3.Row | tuple) -> MemoryEntry:
    (id_, _scope, session_id, fact, _norm, native, category, source, tool_orig, relevance, state,
     created_turn, last_turn, last_at, touch_count, created_at, source_time, superseded_by,
     _tokens, suggested) = row
    return MemoryEntry(
        id=id_, fact=fact, native_fact=native, category=category, source=source,
        tool_originated=bool(tool_orig), relevance=relevance, state=state,
        created_turn=created_turn, last_touched_turn=last_turn,
        last_touched_at=from_db(last_at), touch_count=touch_count,
        created_at=from_db(created_at), superseded_by=superseded_by, session_id=session_id,
        source_time=from_db(source_time), suggested=bool(suggested),
    )


_COLUMNS = (
    "id, scope, session_id, fact, norm, native_fact, category, source, tool_originated, relevance, "
    "state, created_turn, last_touched_turn, last_touched_at, touch_count, created_at, source_time, "
    "superseded_by, token_count, suggested"
)


def _decay_params(scope: str, turn: int) -> dict[str, Any]:
    return {
        "scope": scope, "turn": turn, "fresh": lifecycle.FRESH_TURNS, "rate": lifecycle.DECAY_RATE,
        "archived": lifecycle.ARCHIVED_AT_OR_BELOW, "dormant": lifecycle.DORMANT_BELOW,
    }


_DECAYED = "CASE WHEN relevance <= 0 THEN 0.0 ELSE MIN(1.0, relevance * :rate) END"
_DECAYING = "scope = :scope AND :turn - created_turn >= :fresh"


def _decay_pending(conn: sqlite3.Connection, params: dict[str, Any]) -> bool:
    """Whether :func:`_decay` would change a row: a relevance that decays, or a stale state."""
    return bool(conn.execute(
        f"SELECT EXISTS (SELECT 1 FROM memory WHERE {_DECAYING} AND relevance != {_DECAYED}) "
        f"OR EXISTS (SELECT 1 FROM memory WHERE scope = :scope AND state != {_STATE_CASE})",
        params,
    ).fetchone()[0])


def _decay(conn: sqlite3.Connection, params: dict[str, Any]) -> int:
    """One decay step for the scope's entries past their fresh window; returns state flips."""
    conn.execute(f"UPDATE memory SET relevance = {_DECAYED} WHERE {_DECAYING}", params)
    return conn.execute(
        f"UPDATE memory SET state = {_STATE_CASE} WHERE scope = :scope AND state != {_STATE_CASE}",
        params,
    ).rowcount


def _change_mark(conn: sqlite3.Connection, scope: str) -> int:
    """The scope's newest ``memory_changes`` entry: moves with every insert, delete, text or
    supersession change of one of its rows (what :func:`_matching` depends on)."""
    return conn.execute(
        "SELECT COALESCE(MAX(seq), 0) FROM memory_changes WHERE scope = ?", (scope,)
    ).fetchone()[0]


def _matching(conn: sqlite3.Connection, scope: str, words: frozenset[str], threshold: float) -> list[int]:
    """Ids of the scope's current entries whose words overlap ``words`` by Jaccard ≥ ``threshold``."""
    return [
        entry_id
        for entry_id, tokens, stored in conn.execute(
            "SELECT id, sim_tokens, signature FROM memory WHERE scope = ? AND superseded_by IS NULL",
            (scope,),
        ).fetchall()
        if similarity.jaccard(words, similarity.Signature.loads(tokens, stored).words) >= threshold
    ]


class _MemoryCore:
    """Scope-parameterised implementation shared by both facilities."""

    def __init__(self, db: Database, clock: Clock, caps: Caps) -> None:
        self._db = db
        self._clock = clock
        self._caps = caps
        self._tokens = TokenCache()
        self._rendered: dict[str, tuple[int, str]] = {}
        self._render_lock = threading.Lock()
        db.rollback_hooks.append(self._forget_caches)

    def _forget_caches(self) -> None:
        """A rolled-back write may have been seen by a cache: start over."""
        self._tokens.clear()
        with self._render_lock:
            self._rendered.clear()

    # --- validation -----------------------------------------------------------------------
    def _clean_fact(self, fact: object, what: str = "fact") -> str:
        if not isinstance(fact, str):
            raise ValidationError(f"{what} must be text, not {type(fact).__name__}")
        cleaned = render.clean_text(fact)
        if not cleaned:
            raise ValidationError(f"{what} is empty; give the text to remember")
        if len(cleaned) > self._caps.fact_chars:
            raise ValidationError(
                f"{what} is {len(cleaned):,} characters; the limit is {self._caps.fact_chars:,} — "
                "shorten it to the essential sentence"
            )
        return cleaned

    @staticmethod
    def _check_category(category: str, allowed: Sequence[str]) -> str:
        if category not in allowed:
            raise ValidationError(
                f"category {category!r} is not one of {', '.join(allowed)}"
            )
        return category

    @staticmethod
    def _check_source(source: str, allowed: Sequence[str]) -> str:
        if source and source not in allowed:
            raise ValidationError(f"source {source!r} is not one of {', '.join(allowed)}")
        return source

    # --- queries ----------------------------------------------------------------------------
    def get(self, conn: sqlite3.Connection, scope: str, entry_id: int) -> MemoryEntry | None:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM memory WHERE scope = ? AND id = ?", (scope, entry_id)
        ).fetchone()
        return _entry(row) if row else None

    def _find_match(self, conn: sqlite3.Connection, scope: str, fact: str) -> MemoryEntry | None:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM memory WHERE scope = ? AND fact = ? AND superseded_by IS NULL "
            "ORDER BY id LIMIT 1",
            (scope, fact),
        ).fetchone()
        if row:
            return _entry(row)
        sig = similarity.signature(fact)
        for entry_id, tokens, stored in conn.execute(
            "SELECT id, sim_tokens, signature FROM memory WHERE scope = ? AND norm = ? "
            "AND superseded_by IS NULL ORDER BY id",
            (scope, similarity.normalize(fact)),
        ).fetchall():
            if similarity.signatures_agree(sig, similarity.Signature.loads(tokens, stored)):
                return self.get(conn, scope, entry_id)
        return self._fuzzy_match(conn, scope, sig)

    def _fuzzy_match(
        self, conn: sqlite3.Connection, scope: str, sig: similarity.Signature
    ) -> MemoryEntry | None:
        cached = self._tokens.sync(conn, scope)
        for _score, entry_id in cached.candidates(sig.tokens, similarity.CONSOLIDATION_THRESHOLD):
            row = conn.execute(
                "SELECT sim_tokens, signature FROM memory WHERE id = ? AND superseded_by IS NULL",
                (entry_id,),
            ).fetchone()
            if row and similarity.signatures_agree(sig, similarity.Signature.loads(*row)):
                return self.get(conn, scope, entry_id)
        return None

    def _index(self, conn: sqlite3.Connection, scope: str, entry_id: int, fact: str) -> int:
        """Store the fact's similarity tokens and protected-token signature."""
        sig = similarity.signature(fact)
        tokens = sorted(sig.tokens)
        conn.execute(
            "UPDATE memory SET token_count = ?, sim_tokens = ?, signature = ? WHERE id = ?",
            (len(tokens), " ".join(tokens), sig.dumps(), entry_id),
        )
        return len(tokens)

    def _touch(self, conn: sqlite3.Connection, entry: MemoryEntry, turn: int) -> MemoryEntry:
        current = max(turn, entry.last_touched_turn)
        state = lifecycle.derive_state(1.0, entry.created_turn, current)
        conn.execute(
            "UPDATE memory SET relevance = 1.0, touch_count = touch_count + 1, last_touched_at = ?, "
            "last_touched_turn = ?, state = ? WHERE id = ?",
            (to_db(self._clock()), current, state, entry.id),
        )
        return self.get(conn, self._scope_of(conn, entry.id), entry.id)  # type: ignore[return-value]

    @staticmethod
    def _scope_of(conn: sqlite3.Connection, entry_id: int) -> str:
        return conn.execute("SELECT scope FROM memory WHERE id = ?", (entry_id,)).fetchone()[0]

    def _insert(
        self, conn: sqlite3.Connection, scope: str, session_id: str | None, fact: str, category: str,
        *, source: str, native_fact: str, tool_originated: bool, turn: int, state: str,
        created_at: datetime | None = None, source_time: datetime | None = None,
        suggested: bool = False,
    ) -> int:
        now = self._clock()
        created = created_at or now
        cur = conn.execute(
            "INSERT INTO memory (scope, session_id, fact, norm, native_fact, category, source, "
            "tool_originated, relevance, state, created_turn, last_touched_turn, last_touched_at, "
            "touch_count, created_at, source_time, suggested) "
            "VALUES (?,?,?,?,?,?,?,?,1.0,?,?,?,?,0,?,?,?)",
            (scope, session_id, fact, similarity.normalize(fact), native_fact, category, source,
             int(tool_originated), state, turn, turn, to_db(now), to_db(created),
             to_db(source_time or created), int(suggested)),
        )
        entry_id = int(cur.lastrowid)
        self._index(conn, scope, entry_id, fact)
        return entry_id

    def _supersede(self, conn: sqlite3.Connection, scope: str, new_id: int, fact: str) -> list[int]:
        """Mark the current entries ``fact`` reverses as superseded by ``new_id``.

        Candidates: entries holding every token of the object an explicit reversal names, and
        entries with exactly the new fact's topic tokens (a polarity flip can only be one of
        those); :func:`similarity.supersedes` decides.
        """
        cached = self._tokens.sync(conn, scope)
        candidates: set[int] = set()
        obj = similarity.reversed_object(fact)
        if obj:
            candidates |= cached.containing_all(obj)
        else:
            # the new entry's similarity tokens are in the cache already (synced after insert)
            stored = cached.tokens.get(new_id)
            topic = similarity.polarity_free(stored) if stored is not None else similarity.topic_tokens(fact)
            if topic:
                candidates |= {
                    entry_id for entry_id in cached.containing_all(topic)
                    if similarity.polarity_free(cached.tokens[entry_id]) == topic
                }
        candidates.discard(new_id)
        old_ids = []
        for entry_id in sorted(candidates):
            row = conn.execute(
                "SELECT fact FROM memory WHERE id = ? AND superseded_by IS NULL", (entry_id,)
            ).fetchone()
            if row and similarity.supersedes(fact, row[0]):
                old_ids.append(entry_id)
        conn.executemany(
            "UPDATE memory SET superseded_by = ? WHERE id = ?", [(new_id, i) for i in old_ids]
        )
        return old_ids

    def _evict(self, conn: sqlite3.Connection, scope: str, cap: int | None) -> None:
        if cap is None:
            return
        count = conn.execute("SELECT COUNT(*) FROM memory WHERE scope = ?", (scope,)).fetchone()[0]
        excess = count - cap
        if excess <= 0:
            return
        victims = conn.execute(
            "SELECT id FROM memory WHERE scope = ? ORDER BY (superseded_by IS NULL), "
            "CASE state WHEN 'archived' THEN 0 WHEN 'dormant' THEN 1 WHEN 'fresh' THEN 3 ELSE 2 END, "
            "relevance, last_touched_at, id LIMIT ?",
            (scope, excess),
        ).fetchall()
        conn.executemany("DELETE FROM memory WHERE id = ?", victims)

    # --- operations -------------------------------------------------------------------------
    def add(
        self, scope: str, session_id: str | None, fact: str, category: str, *, source: str,
        native_fact: str, tool_originated: bool, turn: int, categories: Sequence[str],
        sources: Sequence[str], cap: int | None, conn: sqlite3.Connection | None = None,
        created_at: datetime | None = None, source_time: datetime | None = None,
        suggested: bool = False,
    ) -> AddResult:
        fact = self._clean_fact(fact)
        native = render.clean_text(native_fact or "")[: self._caps.fact_chars]
        self._check_category(category, categories)
        self._check_source(source, sources)
        with self._db.write() as c:
            return self._add_in(c, scope, session_id, fact, category, source, native,
                                tool_originated, turn, cap, created_at, source_time, suggested)

    def _add_in(self, conn, scope, session_id, fact, category, source, native, tool_originated,
                turn, cap, created_at, source_time, suggested) -> AddResult:
        match = self._find_match(conn, scope, fact)
        if match is not None:
            entry = self._touch(conn, match, turn)
            return AddResult(entry=entry, touched=[entry.id])
        new_id = self._insert(
            conn, scope, session_id, fact, category, source=source, native_fact=native,
            tool_originated=tool_originated, turn=turn,
            state=lifecycle.derive_state(1.0, turn, turn),
            created_at=created_at, source_time=source_time, suggested=suggested,
        )
        superseded = self._supersede(conn, scope, new_id, fact)
        self._evict(conn, scope, cap)
        entry = self.get(conn, scope, new_id)
        if entry is None:  # evicted at once: only when the cap is 0
            raise ValidationError("the memory cap is 0; nothing can be stored")
        return AddResult(entry=entry, added=[new_id], superseded=superseded)

    def set(self, scope: str, session_id: str | None, fact: str, category: str, *, native_fact: str,
            categories: Sequence[str], default_category: str, cap: int | None) -> MemoryEntry:
        fact = self._clean_fact(fact)
        native = render.clean_text(native_fact or "")[: self._caps.fact_chars]
        if category not in categories:
            category = default_category
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT id FROM memory WHERE scope = ? AND fact = ? AND superseded_by IS NULL "
                "ORDER BY id LIMIT 1",
                (scope, fact),
            ).fetchone()
            if row:
                # said again by the user: the fact is as relevant as a new one (a dormant or
                # archived entry comes back, where /memory shows it)
                conn.execute(
                    "UPDATE memory SET native_fact = ?, category = ?, relevance = 1.0, state = 'active', "
                    "last_touched_at = ?, touch_count = touch_count + 1 WHERE id = ?",
                    (native, category, to_db(self._clock()), row[0]),
                )
                return self.get(conn, scope, row[0])  # type: ignore[return-value]
            new_id = self._insert(
                conn, scope, session_id, fact, category, source="manual", native_fact=native,
                tool_originated=False, turn=0, state="active",
            )
            self._supersede(conn, scope, new_id, fact)
            self._evict(conn, scope, cap)
            entry = self.get(conn, scope, new_id)
            if entry is None:
                raise ValidationError("the memory cap is 0; nothing can be stored")
            return entry

    def edit(self, scope: str, entry_id: int, *, fact: str | None, category: str | None,
             categories: Sequence[str]) -> MemoryEntry:
        if fact is not None:
            fact = self._clean_fact(fact)
        if category is not None:
            self._check_category(category, categories)
        with self._db.write() as conn:
            if self.get(conn, scope, entry_id) is None:
                raise NotFoundError(f"no memory entry with id {entry_id}")
            if fact is not None:
                conn.execute(
                    "UPDATE memory SET fact = ?, norm = ? WHERE id = ?",
                    (fact, similarity.normalize(fact), entry_id),
                )
                self._index(conn, scope, entry_id, fact)
            if category is not None:
                conn.execute("UPDATE memory SET category = ? WHERE id = ?", (category, entry_id))
            return self.get(conn, scope, entry_id)  # type: ignore[return-value]

    def delete_many(self, scope: str, ids: Iterable[int]) -> int:
        return self._delete_each(scope, "id", [int(i) for i in ids or ()])

    def delete_by_facts(self, scope: str, facts: Iterable[str]) -> int:
        return self._delete_each(scope, "fact", [f for f in facts or () if isinstance(f, str)])

    def _delete_each(self, scope: str, column: str, values: list[Any]) -> int:
        """Delete the scope's rows whose ``column`` (``id`` or ``fact``) is one of ``values``."""
        if not values:
            return 0
        with self._db.write() as conn:
            return sum(conn.execute(f"DELETE FROM memory WHERE scope = ? AND {column} = ?",
                                    (scope, value)).rowcount for value in values)

    def list(self, scope: str, include_superseded: bool) -> list[MemoryEntry]:
        where = "" if include_superseded else " AND superseded_by IS NULL"
        with self._db.read() as conn:
            return [
                _entry(r)
                for r in conn.execute(
                    f"SELECT {_COLUMNS} FROM memory WHERE scope = ?{where} "
                    "ORDER BY created_at DESC, id DESC",
                    (scope,),
                )
            ]

    def touch(self, scope: str, entry_id: int, turn: int) -> MemoryEntry:
        with self._db.write() as conn:
            entry = self.get(conn, scope, entry_id)
            if entry is None:
                raise NotFoundError(f"no memory entry with id {entry_id}")
            return self._touch(conn, entry, turn)

    def touch_matching(self, scope: str, text: str, turn: int, threshold: float) -> int:
        return self.age([scope], text, turn, threshold, decay=False)[1]

    def decay_all(self, scope: str, current_turn: int) -> int:
        return self.age([scope], "", current_turn, 0.0)[0]

    # --- per-turn ageing --------------------------------------------------------------------
    def age(self, scopes: Sequence[str], text: str, turn: int, threshold: float, *,
            decay: bool = True) -> tuple[int, int]:
        """Decay each scope one step (with ``decay``), then touch its entries whose words overlap
        ``text`` (Jaccard ≥ ``threshold``); returns ``(state flips, entries touched)``.

        Deciding what changes runs in a read, outside the write lock: whether any row would
        decay or change state, and which entries match. A scope with nothing to change is left
        alone (no write at all when none has). The others are aged in one write transaction,
        all of it as of that transaction: their decay runs there, and a scope whose entries
        changed since the read (its ``memory_changes`` mark moved) has its matches recomputed.
        """
        words = similarity.token_set(text) if threshold > 0 and isinstance(text, str) and text.strip() \
            else frozenset()
        if not decay and not words:
            return 0, 0
        plans = []
        with self._db.read() as conn:
            for scope in scopes:
                params = _decay_params(scope, turn)
                decays = decay and _decay_pending(conn, params)
                mark, ids = (_change_mark(conn, scope), _matching(conn, scope, words, threshold)) \
                    if words else (0, [])
                if decays or ids:
                    plans.append((scope, params, decays, mark, ids))
        if not plans:
            return 0, 0
        flips = touched = 0
        with self._db.write() as conn:
            if decay:
                for _scope, params, _decays, _mark, _ids in plans:
                    flips += _decay(conn, params)
            for scope, _params, _decays, mark, ids in plans:
                if words and _change_mark(conn, scope) != mark:
                    ids = _matching(conn, scope, words, threshold)
                for entry_id in ids:
                    entry = self.get(conn, scope, entry_id)
                    if entry is not None:
                        self._touch(conn, entry, turn)
                        touched += 1
        return flips, touched

    def render(self, scope: str, *, session_scope_tag: str, marker: str) -> str:
        """The prompt block; cached per scope until a rendered column changes (any process)."""
        with self._db.read() as conn:
            row = conn.execute("SELECT v FROM memory_versions WHERE scope = ?", (scope,)).fetchone()
            version = row[0] if row else 0
            with self._render_lock:
                hit = self._rendered.get(scope)
            if hit is not None and hit[0] == version:
                return hit[1]
            total = conn.execute(
                "SELECT COUNT(*) FROM memory INDEXED BY memory_rendered WHERE scope = ? "
                "AND superseded_by IS NULL AND state IN ('fresh', 'active')",
                (scope,),
            ).fetchone()[0]
            rows = conn.execute(
                "SELECT fact, native_fact, category, source, created_at, suggested "
                "FROM memory INDEXED BY memory_rendered WHERE scope = ? "
                "AND superseded_by IS NULL AND state IN ('fresh', 'active') "
                "ORDER BY created_at DESC, id DESC",
                (scope,),
            )

            def lines() -> Iterator[str]:
                for fact, native, category, source, created_at, suggested in rows:
                    yield render.memory_line(
                        fact, native, category, source, created_at,
                        scope=session_scope_tag, suggested=bool(suggested),
                    )

            text = render.render_block(lines(), total, marker) if total else ""
            rows.close()
        with self._render_lock:
            self._rendered[scope] = (version, text)
        return text


class GlobalMemory:
    """Preferences and decisions that hold across every session (cap ``Caps.global_memory``)."""

    categories = GLOBAL_CATEGORIES
    sources = GLOBAL_SOURCES

    def __init__(self, core: _MemoryCore, caps: Caps) -> None:
        self._core = core
        self._caps = caps

    def add(self, fact: str, category: str, *, source: str, native_fact: str = "",
            tool_originated: bool = False, turn: int = 0,
            created_at: datetime | None = None) -> AddResult:
        """Add a fact, or touch the near-duplicate already stored.

        ``created_at`` keeps an original time (imports); otherwise it is now.
        """
        return self._core.add(
            GLOBAL_SCOPE, None, fact, category, source=source, native_fact=native_fact,
            tool_originated=tool_originated, turn=turn, categories=self.categories,
            sources=self.sources, cap=self._caps.global_memory, created_at=created_at,
        )

    def set(self, fact: str, category: str, *, native_fact: str = "") -> MemoryEntry:
        """Manual entry (source ``manual``); an unknown category becomes ``decision``."""
        return self._core.set(
            GLOBAL_SCOPE, None, fact, category, native_fact=native_fact,
            categories=self.categories, default_category="decision", cap=self._caps.global_memory,
        )

    def get(self, entry_id: int) -> MemoryEntry | None:
        with self._core._db.read() as conn:
            return self._core.get(conn, GLOBAL_SCOPE, entry_id)

    def edit(self, entry_id: int, *, fact: str | None = None, category: str | None = None) -> MemoryEntry:
        return self._core.edit(GLOBAL_SCOPE, entry_id, fact=fact, category=category,
                               categories=self.categories)

    def delete(self, entry_id: int) -> bool:
        return self._core.delete_many(GLOBAL_SCOPE, [entry_id]) == 1

    def delete_many(self, ids: Iterable[int]) -> int:
        return self._core.delete_many(GLOBAL_SCOPE, ids)

    def delete_by_facts(self, facts: Iterable[str]) -> int:
        return self._core.delete_by_facts(GLOBAL_SCOPE, facts)

    def list(self, include_superseded: bool = False) -> list[MemoryEntry]:
        """Newest first; superseded entries only when asked."""
        return self._core.list(GLOBAL_SCOPE, include_superseded)

    def touch(self, entry_id: int, turn: int) -> MemoryEntry:
        return self._core.touch(GLOBAL_SCOPE, entry_id, turn)

    def touch_matching(self, text: str, turn: int, threshold: float = similarity.TOUCH_THRESHOLD) -> int:
        return self._core.touch_matching(GLOBAL_SCOPE, text, turn, threshold)

    def decay_all(self, current_turn: int) -> int:
        return self._core.decay_all(GLOBAL_SCOPE, current_turn)

    def render(self) -> str:
        return self._core.render(GLOBAL_SCOPE, session_scope_tag="global", marker=_GLOBAL_MARKER)

    def export(self) -> dict:
        return export_envelope(self.list(), self._core._clock())

    def import_(self, envelope: dict) -> ImportResult:
        """Merge an export envelope in one transaction (all or nothing): the envelope is validated
        first, then each entry is added through ``add``'s consolidation."""
        entries, skipped = normalise_entries(envelope)
        added = touched = 0
        core = self._core
        with core._db.write() as conn:
            for entry in entries:
                try:
                    result = core.add(
                        GLOBAL_SCOPE, None, entry["fact"], entry["category"], source=entry["source"],
                        native_fact=entry["native_fact"], tool_originated=entry["tool_originated"],
                        turn=0, categories=GLOBAL_CATEGORIES, sources=GLOBAL_SOURCES,
                        cap=self._caps.global_memory, conn=conn, created_at=entry["created_at"],
                        source_time=entry["source_time"],
                    )
                except ValidationError:  # empty or oversized fact: skip it, keep the rest
                    skipped += 1
                    continue
                if result.added:
                    added += 1
                else:   # merged into a known fact (a touch), not skipped
                    touched += 1
        return ImportResult(added=added, touched=touched, skipped=skipped)


class SessionMemory:
    """Facts and context about one session (cap ``Caps.session_memory`` per session)."""

    categories = SESSION_CATEGORIES
    sources = SESSION_SOURCES

    def __init__(self, core: _MemoryCore, caps: Caps, require_session) -> None:
        self._core = core
        self._caps = caps
        self._require_session = require_session

    def add(self, session_id: str, fact: str, category: str, *, source: str, native_fact: str = "",
            tool_originated: bool = False, turn: int = 0, suggested: bool = False,
            created_at: datetime | None = None) -> AddResult:
        """Add a fact/context entry, or — with ``suggested=True`` — a preference/decision the
        Global Memory gate refused, kept here until the user pins it."""
        if category in GLOBAL_CATEGORIES and not suggested:
            raise ValidationError(
                f"category {category!r} belongs in Global Memory; in Session Memory it is only "
                "accepted as a suggestion (suggested=True)"
            )
        if suggested and category not in GLOBAL_CATEGORIES:
            raise ValidationError(
                f"only preference or decision entries can be suggestions, not {category!r}"
            )
        self._require_session(session_id)
        return self._core.add(
            session_scope(session_id), session_id, fact, category, source=source,
            native_fact=native_fact, tool_originated=tool_originated, turn=turn,
            categories=self.categories + GLOBAL_CATEGORIES, sources=self.sources,
            cap=self._caps.session_memory, suggested=suggested, created_at=created_at,
        )

    def set(self, session_id: str, fact: str, category: str, *, native_fact: str = "") -> MemoryEntry:
        """Manual entry; an unknown category becomes ``context``."""
        self._require_session(session_id)
        return self._core.set(
            session_scope(session_id), session_id, fact, category, native_fact=native_fact,
            categories=self.categories, default_category="context", cap=self._caps.session_memory,
        )

    def get(self, session_id: str, entry_id: int) -> MemoryEntry | None:
        with self._core._db.read() as conn:
            return self._core.get(conn, session_scope(session_id), entry_id)

    def edit(self, session_id: str, entry_id: int, *, fact: str | None = None,
             category: str | None = None) -> MemoryEntry:
        return self._core.edit(session_scope(session_id), entry_id, fact=fact, category=category,
                               categories=self.categories)

    def delete(self, session_id: str, entry_id: int) -> bool:
        return self._core.delete_many(session_scope(session_id), [entry_id]) == 1

    def delete_many(self, session_id: str, ids: Iterable[int]) -> int:
        return self._core.delete_many(session_scope(session_id), ids)

    def delete_by_facts(self, session_id: str, facts: Iterable[str]) -> int:
        return self._core.delete_by_facts(session_scope(session_id), facts)

    def list(self, session_id: str, include_superseded: bool = False) -> list[MemoryEntry]:
        return self._core.list(session_scope(session_id), include_superseded)

    def touch(self, session_id: str, entry_id: int, turn: int) -> MemoryEntry:
        return self._core.touch(session_scope(session_id), entry_id, turn)

    def touch_matching(self, session_id: str, text: str, turn: int,
                       threshold: float = similarity.TOUCH_THRESHOLD) -> int:
        return self._core.touch_matching(session_scope(session_id), text, turn, threshold)

    def decay_all(self, session_id: str, current_turn: int) -> int:
        return self._core.decay_all(session_scope(session_id), current_turn)

    def render(self, session_id: str) -> str:
        return self._core.render(session_scope(session_id), session_scope_tag="session",
                                 marker=_SESSION_MARKER)
