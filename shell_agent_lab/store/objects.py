"""Object store: reports, text documents and images as files with a metadata row.

Blobs live at ``<data_dir>/objects/<32-hex id>`` (0600), written to a temporary file, synced and
renamed, so a reader never sees half a file.
"""
from __future__ import annotations

import os
import re
import secrets
import sqlite3
from pathlib import Path
from typing import Callable

from ._db import Database
from ._time import Clock, from_db, to_db
from .errors import NotFoundError, ValidationError
from .models import OBJECT_TYPES, Caps, ObjectMeta

__all__ = ["ObjectStore", "estimate_tokens"]

_ID = re.compile(r"^(?:[0-9a-f]{32}|[0-9a-f]{12})$")
_COLUMNS = "id, session_id, type, mime_type, name, size, lines, tokens, created_at"


def estimate_tokens(text: str) -> int:
    """max(bytes/4, 2·CJK runes + 1.3·words)."""
    cjk = sum(1 for ch in text if 0x3000 <= ord(ch) <= 0x9FFF or 0xF900 <= ord(ch) <= 0xFAFF)
    return max(len(text.encode("utf-8")) // 4, 2 * cjk + int(1.3 * len(text.split())))


def _is_text(mime_type: str, type_: str) -> bool:
    return mime_type.startswith("text/") or type_ in ("markdown", "report") or mime_type in (
        "application/json",
    )


def _meta(row: tuple) -> ObjectMeta:
    id_, session_id, type_, mime, name, size, lines, tokens, created_at = row
    return ObjectMeta(id_, session_id, type_, mime, name, size, lines, tokens, from_db(created_at))


class ObjectStore:
    def __init__(self, db: Database, root: Path, clock: Clock, caps: Caps,
                 require_session: Callable[[str], object]) -> None:
        self._db = db
        self._root = root
        self._clock = clock
        self._caps = caps
        self._require_session = require_session

    def path(self, object_id: str) -> Path:
        if not isinstance(object_id, str) or not _ID.match(object_id):
            raise NotFoundError(f"{object_id!r} is not an object id (32 hex characters)")
        return self._root / object_id

    def _write_blob(self, target: Path, data: bytes) -> None:
        self._root.mkdir(mode=0o700, parents=True, exist_ok=True)
        if (self._root.stat().st_mode & 0o777) != 0o700:
            os.chmod(self._root, 0o700)
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def put(self, session_id: str | None, data: bytes, *, type: str, mime_type: str = "",
            name: str = "") -> ObjectMeta:
        if type not in OBJECT_TYPES:
            raise ValidationError(f"object type {type!r} is not one of {', '.join(OBJECT_TYPES)}")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ValidationError("object data must be bytes")
        data = bytes(data)
        if len(data) > self._caps.object_bytes:
            raise ValidationError(
                f"object is {len(data):,} bytes; the limit is {self._caps.object_bytes:,}"
            )
        if session_id is not None:
            self._require_session(session_id)
        lines = tokens = 0
        if _is_text(mime_type, type):
            text = data.decode("utf-8", errors="replace")
            lines = text.count("\n") + 1
            tokens = estimate_tokens(text)
        object_id = secrets.token_hex(16)
        target = self._root / object_id
        self._write_blob(target, data)
        try:
            with self._db.write() as conn:
                conn.execute(
                    f"INSERT INTO objects ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                    (object_id, session_id, type, mime_type or "", name or "", len(data), lines,
                     tokens, to_db(self._clock())),
                )
        except sqlite3.IntegrityError as exc:  # the session was deleted meanwhile
            target.unlink(missing_ok=True)
            raise NotFoundError(f"no session {session_id!r}") from exc
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        return self.meta(object_id)

    def meta(self, object_id: str) -> ObjectMeta:
        self.path(object_id)
        with self._db.read() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM objects WHERE id = ?", (object_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no object {object_id}")
        return _meta(row)

    def get(self, object_id: str) -> tuple[ObjectMeta, bytes]:
        meta = self.meta(object_id)
        try:
            return meta, self.path(object_id).read_bytes()
        except FileNotFoundError as exc:
            raise NotFoundError(f"object {object_id} has no data file at {self.path(object_id)}") from exc

    def list(self, session_id: str | None, type: str | None = None) -> list[ObjectMeta]:
        sql = f"SELECT {_COLUMNS} FROM objects WHERE session_id IS ?"
        params: list = [session_id]
        if type is not None:
            sql += " AND type = ?"
            params.append(type)
        with self._db.read() as conn:
            return [_meta(r) for r in conn.execute(sql + " ORDER BY created_at, id", params)]

    def delete(self, object_id: str) -> bool:
        path = self.path(object_id)
        with self._db.write() as conn:
            deleted = conn.execute("DELETE FROM objects WHERE id = ?", (object_id,)).rowcount
        path.unlink(missing_ok=True)
        return bool(deleted)

    def remove_files(self, object_ids: list[str]) -> None:
        for object_id in object_ids:
            try:
                self.path(object_id).unlink(missing_ok=True)
            except (OSError, NotFoundError):  # pragma: no cover
                pass
