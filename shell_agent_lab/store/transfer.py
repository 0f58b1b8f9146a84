"""Global Memory export/import as a JSON envelope.

``{"kind": "shell-agent-lab-global-memory", "schema_version": 1, "exported_at": ...,
"exported_by_app_version": ..., "entries": [...]}``. Import validates the whole file before
writing anything, then merges entry by entry through ``add`` so near-duplicates consolidate.
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ._time import parse_iso, to_db
from .errors import InvalidImportError, ValidationError
from .models import GLOBAL_CATEGORIES, GLOBAL_SOURCES, ImportResult

if TYPE_CHECKING:  # pragma: no cover
    from .memory import GlobalMemory, _MemoryCore

__all__ = ["ENVELOPE_KIND", "ENVELOPE_VERSION", "parse_envelope", "export_envelope", "import_envelope"]

ENVELOPE_KIND = "shell-agent-lab-global-memory"
ENVELOPE_VERSION = 1
_MAX_ENTRIES = 100_000


def _app_version() -> str:
    try:
        from importlib.metadata import version

        return version("shell-agent-lab")
    except Exception:  # pragma: no cover - running from a source tree without metadata
        return "unknown"


def parse_envelope(text: str | bytes) -> dict[str, Any]:
    """Parse and validate an export file's text; raises :class:`InvalidImportError`."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidImportError(f"not a JSON file ({exc.__class__.__name__}: {exc})") from exc
    validate_envelope(data)
    return data


def validate_envelope(data: object) -> list[dict[str, Any]]:
    """Check kind, version and shape; return the entry list."""
    if not isinstance(data, dict):
        raise InvalidImportError("expected a JSON object with kind, schema_version and entries")
    kind = data.get("kind")
    if kind != ENVELOPE_KIND:
        raise InvalidImportError(
            f"kind is {kind!r}, expected {ENVELOPE_KIND!r}: this is not a Global Memory export"
        )
    version = data.get("schema_version")
    if type(version) is not int or version != ENVELOPE_VERSION:
        raise InvalidImportError(
            f"schema_version {version!r} is not supported (expected {ENVELOPE_VERSION}); "
            "export again with a matching shell-agent-lab"
        )
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise InvalidImportError("entries must be a list")
    if len(entries) > _MAX_ENTRIES:
        raise InvalidImportError(f"{len(entries):,} entries is more than the {_MAX_ENTRIES:,} allowed")
    return entries


def export_envelope(memory: "GlobalMemory", now: datetime) -> dict[str, Any]:
    """Current (not superseded) entries, oldest first, so an import keeps their order."""
    entries = [
        {
            "fact": e.fact,
            "native_fact": e.native_fact,
            "category": e.category,
            "source": e.source,
            "tool_originated": e.tool_originated,
            "source_time": to_db(e.source_time),
            "created_at": to_db(e.created_at),
        }
        for e in reversed(memory.list())
    ]
    return {
        "kind": ENVELOPE_KIND,
        "schema_version": ENVELOPE_VERSION,
        "exported_at": to_db(now),
        "exported_by_app_version": _app_version(),
        "entries": entries,
    }


def import_envelope(core: "_MemoryCore", envelope: object, cap: int | None) -> ImportResult:
    """Merge an envelope into Global Memory in one transaction (all or nothing)."""
    from .memory import GLOBAL_SCOPE

    entries = validate_envelope(envelope)
    added = touched = skipped = 0
    with core._db.write() as conn:
        for raw in entries:
            if not isinstance(raw, dict) or not isinstance(raw.get("fact"), str):
                skipped += 1
                continue
            category = raw.get("category")
            if category not in GLOBAL_CATEGORIES:
                category = "decision"
            source = raw.get("source") if raw.get("source") in GLOBAL_SOURCES else ""
            native = raw.get("native_fact") if isinstance(raw.get("native_fact"), str) else ""
            try:
                result = core.add(
                    GLOBAL_SCOPE, None, raw["fact"], category, source=source, native_fact=native,
                    tool_originated=bool(raw.get("tool_originated", False)), turn=0,
                    categories=GLOBAL_CATEGORIES, sources=GLOBAL_SOURCES, cap=cap, conn=conn,
                    created_at=parse_iso(raw.get("created_at")),
                    source_time=parse_iso(raw.get("source_time")),
                )
            except ValidationError:  # empty or oversized fact: skip it, keep the rest
                skipped += 1
                continue
            if result.added:
                added += 1
            else:   # merged into a known fact (a touch), not skipped
                touched += 1
    return ImportResult(added=added, touched=touched, skipped=skipped)
