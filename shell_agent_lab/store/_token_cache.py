"""An in-process copy of each memory scope's similarity tokens, for near-duplicate lookup.

Triggers append every insert, delete and text/supersession change of a memory row to
``memory_changes``; :meth:`TokenCache.sync`, called inside the write transaction, replays the
changes since its last visit (its own writes and other processes' alike), or reloads the scope
when the log was pruned past that point. Superseded entries are left out: they never merge.
"""
from __future__ import annotations

import math
import sqlite3
import threading
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["TokenCache", "ScopeTokens"]


@dataclass
class ScopeTokens:
    last_seq: int = 0
    tokens: dict[int, frozenset[str]] = field(default_factory=dict)
    postings: dict[str, set[int]] = field(default_factory=dict)

    def put(self, entry_id: int, tokens: frozenset[str]) -> None:
        self.drop(entry_id)
        self.tokens[entry_id] = tokens
        for token in tokens:
            self.postings.setdefault(token, set()).add(entry_id)

    def drop(self, entry_id: int) -> None:
        for token in self.tokens.pop(entry_id, ()):
            ids = self.postings.get(token)
            if ids is not None:
                ids.discard(entry_id)
                if not ids:
                    del self.postings[token]

    def candidates(self, tokens: frozenset[str], threshold: float) -> list[tuple[float, int]]:
        """``(score, id)`` of every entry with Jaccard ≥ ``threshold``, best first, ties oldest.

        Any B with J(A, B) ≥ t shares ≥ ceil(t·|A|) tokens with A, so it contains one of the
        |A| − ceil(t·|A|) + 1 rarest tokens of A (pigeonhole): only those posting lists are read.
        """
        n = len(tokens)
        if not n:
            return []
        must_share = max(1, math.ceil(threshold * n - 1e-9))
        probe = sorted(tokens, key=lambda t: (len(self.postings.get(t, ())), t))[: n - must_share + 1]
        seen: set[int] = set()
        for token in probe:
            seen.update(self.postings.get(token, ()))
        if not seen:
            return []
        # count shared tokens with C-level set and Counter operations, then score the few
        # candidates that share enough
        shared_counts: Counter[int] = Counter()
        for token in tokens:
            posting = self.postings.get(token)
            if posting:
                shared_counts.update(posting & seen if len(posting) > len(seen) else seen & posting)
        low, high = threshold * n, n / threshold
        scored = []
        for entry_id, shared in shared_counts.items():
            if shared < must_share:
                continue
            size = len(self.tokens[entry_id])
            if size < low or size > high:
                continue
            score = shared / (n + size - shared)
            if score >= threshold:
                scored.append((-score, entry_id))
        scored.sort()
        return [(-s, i) for s, i in scored]

    def containing_all(self, tokens: frozenset[str]) -> set[int]:
        """Ids of the entries holding every one of ``tokens`` (rarest posting list first)."""
        sets = sorted((self.postings.get(t, set()) for t in tokens), key=len)
        if not sets or not sets[0]:
            return set()
        return sets[0].intersection(*sets[1:])


class TokenCache:
    """Token sets per scope, shared by the threads of one ``Store``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scopes: dict[str, ScopeTokens] = {}

    def sync(self, conn: sqlite3.Connection, scope: str) -> ScopeTokens:
        """Bring ``scope`` up to date; call inside the transaction that will use it."""
        with self._lock:
            cached = self._scopes.get(scope)
            if cached is not None and not self._replay(conn, scope, cached):
                cached = None
            if cached is None:
                cached = self._load(conn, scope)
                self._scopes[scope] = cached
            return cached

    @staticmethod
    def _load(conn: sqlite3.Connection, scope: str) -> ScopeTokens:
        fresh = ScopeTokens(last_seq=conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM memory_changes").fetchone()[0])
        for entry_id, tokens in conn.execute(
            "SELECT id, sim_tokens FROM memory WHERE scope = ? AND superseded_by IS NULL", (scope,)
        ):
            fresh.put(entry_id, frozenset(tokens.split()))
        return fresh

    @staticmethod
    def _replay(conn: sqlite3.Connection, scope: str, cached: ScopeTokens) -> bool:
        oldest = conn.execute("SELECT MIN(seq) FROM memory_changes").fetchone()[0]
        if oldest is None:
            return cached.last_seq == 0
        if oldest > cached.last_seq + 1:
            return False  # pruned past our last visit: reload
        rows = conn.execute(
            "SELECT seq, entry_id FROM memory_changes WHERE scope = ? AND seq > ? ORDER BY seq",
            (scope, cached.last_seq),
        ).fetchall()
        changed = sorted({entry_id for _, entry_id in rows})
        latest = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM memory_changes").fetchone()[0]
        for start in range(0, len(changed), 500):
            chunk = changed[start : start + 500]
            current = {
                entry_id: (tokens, superseded)
                for entry_id, tokens, superseded in conn.execute(
                    f"SELECT id, sim_tokens, superseded_by FROM memory WHERE id IN "
                    f"({','.join('?' * len(chunk))})",
                    chunk,
                )
            }
            for entry_id in chunk:
                row = current.get(entry_id)
                if row is None or row[1] is not None:
                    cached.drop(entry_id)
                else:
                    cached.put(entry_id, frozenset(row[0].split()))
        cached.last_seq = latest
        return True

    def clear(self) -> None:
        with self._lock:
            self._scopes.clear()
