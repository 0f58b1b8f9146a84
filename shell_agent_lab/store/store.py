"""The ``Store``: one SQLite database (WAL) under the data directory.

It owns sessions, their append-only records, the summary cache, the four memory facilities
(Global Memory, Session Memory, Findings) and the object store. Every read-modify-write runs in a
``BEGIN IMMEDIATE`` transaction, so several threads and several kernels can write at once.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from . import presence, render
from ._db import DB_NAME, Database
from ._time import Clock, from_db, to_db, utc_now
from .errors import NotFoundError, PrivateSessionError, SessionInUseError, StoreError, ValidationError
from .findings import Findings
from .memory import GlobalMemory, SessionMemory, _MemoryCore, session_scope
from .models import GLOBAL_CATEGORIES, GLOBAL_SCOPE, Caps, MemoryEntry, Record, Session, SummaryEntry
from .objects import ObjectStore

__all__ = ["Store"]

_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_TITLE_CHARS = 200
#: the record a turn cut off by a killed kernel gets (role ``system``, status ``interrupted``)
INTERRUPTED_TEXT = ("This turn was interrupted: the kernel stopped before it finished, so it has no answer. "
                    "Ask again to continue.")
_SESSION_COLUMNS = (
    "id, title, notebook_path, private, profile, key, title_locked, created_at, updated_at"
)
_RECORD_COLUMNS = (
    "id, session_id, seq, role, content, tool_name, tool_call_id, tool_calls, status, meta, created_at"
)


def _session(row: tuple) -> Session:
    id_, title, path, private, profile, key, locked, created, updated = row
    return Session(id_, title, path, bool(private), profile, key, bool(locked), from_db(created),
                   from_db(updated))


def _record(row: tuple) -> Record:
    id_, sid, seq, role, content, tool_name, call_id, calls, status, meta, created = row
    return Record(id_, sid, seq, role, content, tool_name, call_id,
                  json.loads(calls) if calls else None, status,
                  json.loads(meta) if meta else None, from_db(created))


def _clean_title(title: object) -> str:
    if not isinstance(title, str):
        raise ValidationError(f"title must be text, not {type(title).__name__}")
    clean = render.sanitize(title, _TITLE_CHARS)
    if not clean:
        raise ValidationError("title is empty")
    return clean


def _ensure_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(path, 0o700)
    except OSError:  # pragma: no cover
        pass
    return path


class Store:
    """Open with :meth:`Store.open`; safe to share between threads."""

    def __init__(self, data_dir: Path, db: Database, clock: Clock, caps: Caps) -> None:
        self._data_dir = data_dir
        self._db = db
        self._clock = clock
        self.caps = caps
        core = _MemoryCore(db, clock, caps)
        self._memory_core = core
        self.global_memory = GlobalMemory(core, caps)
        self.session_memory = SessionMemory(core, caps, self._require_session)
        self.findings = Findings(db, clock, caps, self._require_session)
        self.objects = ObjectStore(db, data_dir / "objects", clock, caps, self._require_session)

    @classmethod
    def open(cls, data_dir: Path | str | None = None, *, clock: Clock | None = None,
             caps: Caps | None = None) -> "Store":
        """Open (creating if needed) the store under ``data_dir`` or the default data dir."""
        if data_dir is None:
            from ..paths import data_dir as default_data_dir

            root = default_data_dir(create=False)
        else:
            root = Path(data_dir).expanduser()
        if root.is_dir() and not os.access(root, os.R_OK | os.W_OK | os.X_OK):
            # never "repair" it behind the user's back: its permissions may be deliberate
            raise StoreError(f"the data directory {root} is not readable and writable by this user; fix its "
                             f"permissions (for example chmod 700 {root}) or point SHELL_AGENT_LAB_DATA_DIR "
                             "at another directory")
        try:
            _ensure_dir(root)
        except OSError as exc:
            raise StoreError(f"cannot create the data directory {root} ({exc.strerror})") from exc
        db = Database(root / DB_NAME)
        return cls(root, db, clock or utc_now, caps or Caps())

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def data_dir(self) -> Path:
        return self._data_dir

    @property
    def db_path(self) -> Path:
        return self._db.path

    def session_dir(self, session_id: str) -> Path:
        """``<data_dir>/sessions/<id>/`` (0700), created on demand."""
        self._check_session_id(session_id)
        return _ensure_dir(self._data_dir / "sessions" / session_id)

    # --- sessions -------------------------------------------------------------------------
    @staticmethod
    def _check_session_id(session_id: object) -> str:
        if not isinstance(session_id, str) or not _SESSION_ID.match(session_id):
            raise NotFoundError(f"{session_id!r} is not a session id")
        return session_id

    def _require_session(self, session_id: str) -> Session:
        session = self.get_session(session_id)
        if session is None:
            raise NotFoundError(f"no session {session_id!r}; list them with `shell-agent-lab sessions list`")
        return session

    def create_session(self, *, title: str = "New Session", notebook_path: str | None = None,
                       private: bool = False, profile: str | None = None,
                       key: str | None = None) -> Session:
        title = _clean_title(title)
        now = to_db(self._clock())
        with self._db.write() as conn:
            for _ in range(5):
                session_id = f"sess-{int(self._clock().timestamp() * 1000)}-{secrets.token_hex(3)}"
                if not conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
                    break
            conn.execute(
                f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?,?,?,?,?,?,0,?,?)",
                (session_id, title, None if notebook_path is None else str(notebook_path),
                 int(bool(private)), profile, key, now, now),
            )
        return self.get_session(session_id)  # type: ignore[return-value]

    def get_session(self, session_id: str) -> Session | None:
        if not isinstance(session_id, str):
            return None
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return _session(row) if row else None

    def find_session(self, notebook_path: str | None = None, *, key: str | None = None) -> Session | None:
        """The session bound to notebook metadata ``key``, else to ``notebook_path``."""
        with self._db.read() as conn:
            for column, value in (("key", key), ("notebook_path", notebook_path)):
                if value is None:
                    continue
                row = conn.execute(
                    f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE {column} = ? "
                    "ORDER BY updated_at DESC, rowid DESC LIMIT 1",
                    (str(value),),
                ).fetchone()
                if row:
                    return _session(row)
        return None

    def sessions_named(self, text: str) -> list[Session]:
        """The sessions ``text`` may mean: the one with that exact id, else those whose id
        starts with it, else those titled exactly ``text`` (one match means it is unambiguous)."""
        session = self.get_session(text)
        if session is not None:
            return [session]
        sessions = self.list_sessions()
        return [s for s in sessions if s.id.startswith(text)] or [s for s in sessions if s.title == text]

    def list_sessions(self) -> list[Session]:
        with self._db.read() as conn:
            return [
                _session(r)
                for r in conn.execute(
                    f"SELECT {_SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, rowid DESC"
                )
            ]

    def _update_session(self, session_id: str, sql: str, params: tuple) -> int:
        with self._db.write() as conn:
            changed = conn.execute(sql, params).rowcount
            if not changed and not conn.execute(
                "SELECT 1 FROM sessions WHERE id = ?", (session_id,)
            ).fetchone():
                raise NotFoundError(f"no session {session_id!r}")
            return changed

    def rename_session(self, session_id: str, title: str) -> Session:
        """A user rename: sets ``title_locked`` so automatic titles no longer apply."""
        title = _clean_title(title)
        self._update_session(
            session_id,
            "UPDATE sessions SET title = ?, title_locked = 1, updated_at = ? WHERE id = ?",
            (title, to_db(self._clock()), session_id),
        )
        return self.get_session(session_id)  # type: ignore[return-value]

    def set_auto_title(self, session_id: str, title: str) -> bool:
        """Set a generated title unless the user renamed the session; True when applied."""
        title = _clean_title(title)
        return bool(self._update_session(
            session_id,
            "UPDATE sessions SET title = ? WHERE id = ? AND title_locked = 0",
            (title, session_id),
        ))

    def set_session_profile(self, session_id: str, profile: str | None) -> None:
        self._update_session(
            session_id, "UPDATE sessions SET profile = ? WHERE id = ?", (profile, session_id)
        )

    def set_session_key(self, session_id: str, key: str | None) -> None:
        self._update_session(session_id, "UPDATE sessions SET key = ? WHERE id = ?", (key, session_id))

    def delete_session(self, session_id: str) -> None:
        """Delete the session and everything it owns: records, memory, findings, summaries,
        objects and its directory. Refused while another process (a kernel) has it open."""
        self._check_session_id(session_id)
        directory = self._data_dir / "sessions" / session_id
        if directory.is_dir() and presence.open_elsewhere(directory):
            raise SessionInUseError(
                f"session {session_id!r} is open in another kernel; shut that notebook's kernel down "
                "(or switch it to another session) first, then delete it")
        with self._db.write() as conn:
            object_ids = [
                r[0] for r in conn.execute("SELECT id FROM objects WHERE session_id = ?", (session_id,))
            ]
            deleted = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount
            # the session-scoped rows go by ON DELETE CASCADE; be explicit for older files
            conn.execute("DELETE FROM memory WHERE scope = ?", (session_scope(session_id),))
        self.objects.remove_files(object_ids)
        if directory.is_dir() and not directory.is_symlink():
            shutil.rmtree(directory)
        if not deleted:
            raise NotFoundError(f"no session {session_id!r}")

    # --- which processes have a session open; turns cut off by a killed process ---------------
    def hold_session(self, session_id: str) -> presence.SessionHold:
        """Mark ``session_id`` open in this process until ``.release()`` (a kernel's agent holds the
        session it shows); :meth:`delete_session` in another process refuses it meanwhile."""
        return presence.hold(self.session_dir(session_id))

    def begin_turn(self, session_id: str, user_seq: int) -> presence.TurnMarker:
        """Note that the turn started by record ``user_seq`` runs in this process; ``.end()`` it when
        the turn ends. If the process dies first, :meth:`record_interrupted_turns` finds it."""
        return presence.begin_turn(self.session_dir(session_id), {"user_seq": int(user_seq), "pid": os.getpid()})

    def record_interrupted_turns(self, session_id: str) -> list[Record]:
        """Append an ``interrupted`` record for each turn of ``session_id`` whose process died before
        the turn ended (a killed kernel); returns the records appended."""
        added: list[Record] = []
        for dead in presence.dead_turns(self.session_dir(session_id)):
            seq = dead.info.get("user_seq")
            try:
                with self._db.write() as conn:
                    seen = conn.execute(
                        "SELECT 1 FROM records WHERE session_id = ? AND status = 'interrupted' "
                        "AND json_extract(meta, '$.user_seq') = ?", (session_id, seq)).fetchone()
                    exists = conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
                    if exists and not seen:
                        added.append(self.append_record(session_id, "system", INTERRUPTED_TEXT,
                                                        status="interrupted", meta={"user_seq": seq}))
            except BaseException:
                dead.keep()
                raise
            dead.discard()
        return added

    # --- records ----------------------------------------------------------------------------
    def append_record(self, session_id: str, role: str, content: str, *, tool_name: str | None = None,
                      tool_call_id: str | None = None, tool_calls: list[dict[str, Any]] | None = None,
                      status: str | None = None, meta: dict[str, Any] | None = None,
                      created_at: datetime | None = None) -> Record:
        """Append one record; ``created_at`` (default now) lets an import keep original times."""
        if not isinstance(role, str) or not role:
            raise ValidationError("record role must be a non-empty string")
        if not isinstance(content, str):
            raise ValidationError(f"record content must be text, not {type(content).__name__}")
        try:
            calls = json.dumps(tool_calls) if tool_calls is not None else None
            meta_text = json.dumps(meta) if meta is not None else None
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"record tool_calls/meta must be JSON-serialisable ({exc})") from exc
        now = to_db(self._clock())
        stamp = to_db(created_at) if created_at is not None else now
        with self._db.write() as conn:
            if not conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
                raise NotFoundError(f"no session {session_id!r}")
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM records WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            cur = conn.execute(
                "INSERT INTO records (session_id, seq, role, content, tool_name, tool_call_id, "
                "tool_calls, status, meta, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (session_id, seq, role, content, tool_name, tool_call_id, calls, status, meta_text, stamp),
            )
            conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
            row = conn.execute(
                f"SELECT {_RECORD_COLUMNS} FROM records WHERE id = ?", (cur.lastrowid,)
            ).fetchone()
        return _record(row)

    def list_records(self, session_id: str, *, after_seq: int = 0) -> list[Record]:
        """Oldest first; ``after_seq`` returns only newer records (incremental readers)."""
        with self._db.read() as conn:
            return [
                _record(r)
                for r in conn.execute(
                    f"SELECT {_RECORD_COLUMNS} FROM records WHERE session_id = ? AND seq > ? "
                    "ORDER BY seq",
                    (session_id, after_seq),
                )
            ]

    def count_user_records(self, session_id: str) -> int:
        with self._db.read() as conn:
            return conn.execute(
                "SELECT COUNT(*) FROM records WHERE session_id = ? AND role = 'user'", (session_id,)
            ).fetchone()[0]

    def age_memory(self, session_id: str, text: str, turn: int, threshold: float) -> None:
        """One turn of memory ageing: Global Memory and the session's memory each decay one step,
        then their entries whose words overlap ``text`` (Jaccard ≥ ``threshold``) are touched.
        One write transaction for all of it, and none when nothing would change."""
        self._memory_core.age([GLOBAL_SCOPE, session_scope(session_id)], text, turn, threshold)

    # --- transactions -----------------------------------------------------------------------
    def transaction(self):
        """One ``BEGIN IMMEDIATE`` on this thread: store writes made inside on the same thread
        join it and an exception rolls all of them back (blob files are the caller's to remove).

        ``with store.transaction(): ...``
        """
        return self._db.write()

    # --- summary cache ------------------------------------------------------------------------
    _SUMMARY_COLUMNS = (
        "key, kind, tier, summarizer_id, from_ts, to_ts, record_count, summary, created_at"
    )

    @staticmethod
    def _summary(row: tuple) -> SummaryEntry:
        key_, kind, tier, summarizer, from_ts, to_ts, count, summary, created = row
        return SummaryEntry(key_, kind, tier, summarizer, from_db(from_ts), from_db(to_ts), count,
                            summary, from_db(created))

    def get_summary(self, session_id: str, key: str) -> SummaryEntry | None:
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {self._SUMMARY_COLUMNS} FROM summaries WHERE session_id = ? AND key = ?",
                (session_id, key),
            ).fetchone()
        return self._summary(row) if row else None

    def list_summaries(self, session_id: str) -> list[SummaryEntry]:
        """Oldest first by ``created_at``."""
        with self._db.read() as conn:
            return [
                self._summary(r)
                for r in conn.execute(
                    f"SELECT {self._SUMMARY_COLUMNS} FROM summaries WHERE session_id = ? "
                    "ORDER BY created_at, rowid",
                    (session_id,),
                )
            ]

    def put_summary(self, session_id: str, entry: SummaryEntry) -> None:
        """Insert or replace by key; keeps the newest ``Caps.summaries`` by ``created_at``."""
        created = to_db(entry.created_at or self._clock())
        with self._db.write() as conn:
            if not conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
                raise NotFoundError(f"no session {session_id!r}")
            conn.execute(
                "INSERT OR REPLACE INTO summaries (session_id, key, kind, tier, summarizer_id, "
                "from_ts, to_ts, record_count, summary, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (session_id, entry.key, entry.kind, entry.tier, entry.summarizer_id,
                 to_db(entry.from_ts), to_db(entry.to_ts), entry.record_count, entry.summary, created),
            )
            conn.execute(
                "DELETE FROM summaries WHERE session_id = ? AND key NOT IN (SELECT key FROM summaries "
                "WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)",
                (session_id, session_id, self.caps.summaries),
            )

    # --- pin / demote ---------------------------------------------------------------------------
    @staticmethod
    def _check_pin_category(category: str) -> str:
        if category not in GLOBAL_CATEGORIES:
            raise ValidationError(
                f"pin category {category!r} is not one of {', '.join(GLOBAL_CATEGORIES)}"
            )
        return category

    def _require_public(self, session_id: str) -> Session:
        session = self._require_session(session_id)
        if session.private:
            raise PrivateSessionError(
                f"session {session_id!r} is private: nothing from it can be pinned to Global Memory"
            )
        return session

    def pin_session_memory(self, session_id: str, entry_id: int, category: str) -> MemoryEntry:
        """Copy a Session Memory entry to Global Memory (the original stays)."""
        self._check_pin_category(category)
        self._require_public(session_id)
        entry = self.session_memory.get(session_id, entry_id)
        if entry is None:
            raise NotFoundError(f"no session-memory entry {entry_id} in session {session_id!r}")
        with self._db.write() as conn:
            pinned = self.global_memory.add(
                entry.fact, category, source="promoted_from_session_memory",
                native_fact=entry.native_fact, tool_originated=entry.tool_originated,
            ).entry
            conn.execute("UPDATE memory SET suggested = 0 WHERE id = ?", (entry.id,))
        return pinned

    def pin_finding(self, session_id: str, finding_id: str, category: str) -> MemoryEntry:
        """Copy a Finding to Global Memory (the finding stays)."""
        self._check_pin_category(category)
        self._require_public(session_id)
        finding = self.findings.get(session_id, finding_id)
        if finding is None:
            raise NotFoundError(f"no finding {finding_id!r} in session {session_id!r}")
        return self.global_memory.add(
            finding.content, category, source="promoted_from_finding", native_fact=finding.content,
            tool_originated=finding.tool_originated,
        ).entry

    def demote_global(self, entry_id: int, session_id: str) -> MemoryEntry:
        """Move a Global Memory entry into one session's memory (as ``context``)."""
        self._require_session(session_id)
        core = self._memory_core
        with self._db.write() as conn:
            entry = core.get(conn, GLOBAL_SCOPE, entry_id)
            if entry is None:
                raise NotFoundError(f"no Global Memory entry {entry_id}")
            user_stated = render.trust_tag(entry.source) == "[user-stated]"
            source = "user_turn" if user_stated else (
                entry.source if entry.source in SessionMemory.sources else "assistant_turn")
            result = core.add(
                session_scope(session_id), session_id, entry.fact, "context", source=source,
                native_fact=entry.native_fact, tool_originated=entry.tool_originated,
                turn=entry.created_turn, categories=SessionMemory.categories,
                sources=SessionMemory.sources, cap=self.caps.session_memory, conn=conn,
            )
            conn.execute("DELETE FROM memory WHERE id = ?", (entry_id,))
            return result.entry
