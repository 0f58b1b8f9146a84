"""The JSON sections of a bundle: building them on export, validating them on import (pure).

Each section is a list of plain JSON objects. On import every object is checked against a
small field table (type and presence) before anything is written; unknown keys are ignored so a
later exporter may add fields without breaking older importers of the same schema version.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from . import _layout
from .errors import InvalidBundleError

__all__ = [
    "Manifest", "build_manifest", "parse_manifest", "parse_section", "to_jsonable",
    "parse_time", "SECTION_FIELDS",
]

_STR = (str,)
_OPT_STR = (str, type(None))
_INT = (int,)
_BOOL = (bool,)
_NUM = (int, float)
_ANY = (str, int, float, bool, list, dict, type(None))

#: section -> {field: (accepted types, required)}
SECTION_FIELDS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    _layout.RECORDS: {
        "seq": (_INT, True), "role": (_STR, True), "content": (_STR, True),
        "tool_name": (_OPT_STR, False), "tool_call_id": (_OPT_STR, False),
        "tool_calls": ((list, type(None)), False), "status": (_OPT_STR, False),
        "meta": ((dict, type(None)), False), "created_at": (_STR, True),
    },
    _layout.SESSION_MEMORY: {
        "id": ((str, int), True), "fact": (_STR, True), "native_fact": (_OPT_STR, False),
        "category": (_STR, True), "source": (_OPT_STR, False), "tool_originated": (_BOOL, False),
        "relevance": (_NUM, False), "state": (_OPT_STR, False), "created_turn": (_INT, False),
        "last_touched_turn": (_INT, False), "last_touched_at": (_OPT_STR, False),
        "touch_count": (_INT, False), "created_at": (_STR, True),
        "superseded_by": ((str, int, type(None)), False), "source_time": (_OPT_STR, False),
        "suggested": (_BOOL, False),
    },
    _layout.FINDINGS: {
        "id": (_STR, True), "content": (_STR, True), "tags": ((list,), False),
        "source": (_OPT_STR, False), "tool_originated": (_BOOL, False),
        "created_at": (_STR, True), "created_label": (_OPT_STR, False),
    },
    _layout.SUMMARIES: {
        "key": (_STR, True), "kind": (_OPT_STR, False), "tier": (_OPT_STR, False),
        "summarizer_id": (_OPT_STR, False), "from_ts": (_OPT_STR, False), "to_ts": (_OPT_STR, False),
        "record_count": (_INT, False), "summary": (_STR, True), "created_at": (_STR, True),
    },
    _layout.OBJECT_INDEX: {
        "id": (_STR, True), "type": (_STR, True), "mime_type": (_OPT_STR, False),
        "name": (_OPT_STR, False), "size": (_INT, True), "created_at": (_STR, True),
    },
}

_RECORD_ROLES = {"system", "user", "assistant", "tool", "report", "summary"}
_MEMORY_CATEGORIES = {"fact", "context", "preference", "decision"}
_OBJECT_TYPES = {"image", "blob", "report", "markdown"}
_MAX_TITLE = 500


@dataclass(frozen=True)
class Manifest:
    schema_version: int
    exported_at: str
    exported_by_app_version: str
    original_id: str
    title: str
    private: bool
    profile: str | None
    notebook_path: str | None


def to_jsonable(value: Any) -> Any:
    """Datetimes → ISO-8601 UTC strings; tuples → lists; everything else as is (recursively)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat()
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return value


def parse_time(value: str | None, where: str) -> datetime | None:
    """Parse an ISO-8601 time written by :func:`to_jsonable`; naive times are taken as UTC."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise InvalidBundleError(f"{where}: {value!r} is not an ISO-8601 time") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def build_manifest(*, session: Any, exported_at: datetime, app_version: str,
                   connections: list[str] | None = None) -> dict[str, Any]:
    """The manifest for ``session`` (a store ``Session``); ``connections``: the names (never the
    URLs) of the connections the session used."""
    return {
        "kind": _layout.BUNDLE_KIND,
        "schema_version": _layout.SCHEMA_VERSION,
        "exported_at": to_jsonable(exported_at),
        "exported_by_app_version": app_version,
        "session": {
            "original_id": session.id,
            "title": session.title,
            "private": bool(session.private),
            "profile": session.profile,
            "notebook_path": session.notebook_path,
        },
        "connections": list(connections or []),
    }


def _load_json(raw: bytes, name: str) -> Any:
    def _reject_constant(token: str) -> Any:
        raise ValueError(f"{token} is not valid JSON")

    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidBundleError(f"bundle {name} is not valid UTF-8 JSON ({exc})") from exc


def parse_manifest(raw: bytes) -> Manifest:
    """Validate the manifest strictly; raise :class:`InvalidBundleError` naming what is wrong."""
    data = _load_json(raw, _layout.MANIFEST)
    if not isinstance(data, dict):
        raise InvalidBundleError("bundle manifest.json is not a JSON object")
    kind = data.get("kind", _layout.BUNDLE_KIND)
    if kind != _layout.BUNDLE_KIND:
        raise InvalidBundleError(f"bundle manifest kind is {kind!r}, expected {_layout.BUNDLE_KIND!r}")
    version = data.get("schema_version")
    if type(version) is not int:
        raise InvalidBundleError("bundle manifest has no integer schema_version")
    if version != _layout.SCHEMA_VERSION:
        raise InvalidBundleError(
            f"bundle schema_version {version} is not supported (this version reads "
            f"{_layout.SCHEMA_VERSION}); upgrade shell-agent-lab to import it")
    session = data.get("session")
    if not isinstance(session, dict):
        raise InvalidBundleError("bundle manifest has no 'session' object")
    exported_at = data.get("exported_at")
    if not isinstance(exported_at, str):
        raise InvalidBundleError("bundle manifest has no exported_at time")
    parse_time(exported_at, "bundle manifest exported_at")
    app_version = data.get("exported_by_app_version", "")
    checks = {
        "original_id": _STR, "title": _STR, "private": _BOOL,
        "profile": _OPT_STR, "notebook_path": _OPT_STR,
    }
    for field, types in checks.items():
        if field not in session and types is not _OPT_STR:
            raise InvalidBundleError(f"bundle manifest session has no {field!r}")
        value = session.get(field)
        if type(value) not in types:
            raise InvalidBundleError(f"bundle manifest session {field!r} has the wrong type")
    title = session["title"].strip()
    if len(title) > _MAX_TITLE or any(ord(ch) < 32 for ch in title):
        raise InvalidBundleError("bundle manifest title is too long or has control characters")
    return Manifest(
        schema_version=version,
        exported_at=exported_at,
        exported_by_app_version=str(app_version) if isinstance(app_version, str) else "",
        original_id=session["original_id"],
        title=title or "Imported Session",
        private=session["private"],
        profile=session.get("profile"),
        notebook_path=session.get("notebook_path"),
    )


def _check_item(section: str, index: int, item: Any) -> None:
    where = f"bundle {section} item {index}"
    if not isinstance(item, dict):
        raise InvalidBundleError(f"{where} is not a JSON object")
    for field, (types, required) in SECTION_FIELDS[section].items():
        if field not in item:
            if required:
                raise InvalidBundleError(f"{where} has no {field!r}")
            continue
        value = item[field]
        # bool is an int subclass; an int field must not accept true/false
        if type(value) not in types and not (float in types and type(value) is int):
            raise InvalidBundleError(f"{where} field {field!r} has the wrong type")
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidBundleError(f"{where} field {field!r} is not a finite number")
        if field.endswith("_at") or field in ("from_ts", "to_ts", "source_time"):
            parse_time(value, f"{where} field {field!r}")


def _check_semantics(section: str, items: list[dict[str, Any]]) -> None:
    if section == _layout.RECORDS:
        for i, item in enumerate(items):
            if item["role"] not in _RECORD_ROLES:
                raise InvalidBundleError(f"bundle records.json item {i} has unknown role {item['role']!r}")
    elif section == _layout.SESSION_MEMORY:
        for i, item in enumerate(items):
            if item["category"] not in _MEMORY_CATEGORIES:
                raise InvalidBundleError(
                    f"bundle session_memory.json item {i} has unknown category {item['category']!r}")
    elif section == _layout.FINDINGS:
        for i, item in enumerate(items):
            if not all(isinstance(tag, str) for tag in item.get("tags", [])):
                raise InvalidBundleError(f"bundle findings.json item {i} has a non-text tag")
    elif section == _layout.OBJECT_INDEX:
        seen: set[str] = set()
        for i, item in enumerate(items):
            if not _layout.OBJECT_ID.match(item["id"]):
                raise InvalidBundleError(f"bundle object index item {i} has a malformed id")
            if item["id"] in seen:
                raise InvalidBundleError(f"bundle object index lists {item['id']} twice")
            seen.add(item["id"])
            if item["type"] not in _OBJECT_TYPES:
                raise InvalidBundleError(f"bundle object {item['id']} has unknown type {item['type']!r}")
            if item["size"] < 0:
                raise InvalidBundleError(f"bundle object {item['id']} has a negative size")


def parse_section(section: str, raw: bytes | None) -> list[dict[str, Any]]:
    """Validate one list section; ``None`` (absent) is an empty list."""
    if raw is None:
        return []
    data = _load_json(raw, section)
    if not isinstance(data, list):
        raise InvalidBundleError(f"bundle {section} is not a JSON list")
    for i, item in enumerate(data):
        _check_item(section, i, item)
    _check_semantics(section, data)
    return data
