"""Global Memory export/import as a JSON envelope.

``{"kind": "shell-agent-lab-global-memory", "schema_version": 1, "exported_at": ...,
"exported_by_app_version": ..., "entries": [...]}``. Import validates the whole file before
writing anything; ``GlobalMemory.import_`` then merges the normalised entries one by one
through ``add`` so near-duplicates consolidate. This module only validates and normalises: it
never writes (and never imports the memory class).
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterable, TypedDict

from ._time import parse_iso, to_db
from .errors import InvalidImportError
from .models import GLOBAL_CATEGORIES, GLOBAL_SOURCES, MemoryEntry

__all__ = [
    "ENVELOPE_KIND", "ENVELOPE_VERSION", "ImportEntry", "parse_envelope", "export_envelope",
    "normalise_entries",
]

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


def export_envelope(entries: Iterable[MemoryEntry], now: datetime) -> dict[str, Any]:
    """The envelope for ``entries`` (newest first, as ``GlobalMemory.list`` returns them), written
    oldest first so an import keeps their order."""
    rows = [
        {
            "fact": e.fact,
            "native_fact": e.native_fact,
            "category": e.category,
            "source": e.source,
            "tool_originated": e.tool_originated,
            "source_time": to_db(e.source_time),
            "created_at": to_db(e.created_at),
        }
        for e in reversed(list(entries))
    ]
    return {
        "kind": ENVELOPE_KIND,
        "schema_version": ENVELOPE_VERSION,
        "exported_at": to_db(now),
        "exported_by_app_version": _app_version(),
        "entries": rows,
    }


class ImportEntry(TypedDict):
    """One envelope entry, normalised: what ``GlobalMemory.import_`` adds."""

    fact: str
    category: str
    source: str
    native_fact: str
    tool_originated: bool
    created_at: datetime | None
    source_time: datetime | None


def normalise_entries(envelope: object) -> tuple[list[ImportEntry], int]:
    """Validate the envelope (raises :class:`InvalidImportError`) and normalise its entries.

    Returns the entries to add and how many were skipped (not an object, or no text fact); an
    unknown category becomes ``decision``, an unknown source ``""``."""
    entries = validate_envelope(envelope)
    out: list[ImportEntry] = []
    skipped = 0
    for raw in entries:
        if not isinstance(raw, dict) or not isinstance(raw.get("fact"), str):
            skipped += 1
            continue
        category = raw.get("category")
        if category not in GLOBAL_CATEGORIES:
            category = "decision"
        source = str(raw["source"]) if raw.get("source") in GLOBAL_SOURCES else ""
        native = raw["native_fact"] if isinstance(raw.get("native_fact"), str) else ""
        out.append(ImportEntry(
            fact=raw["fact"], category=category, source=source, native_fact=native,
            tool_originated=bool(raw.get("tool_originated", False)),
            created_at=parse_iso(raw.get("created_at")), source_time=parse_iso(raw.get("source_time")),
        ))
    return out, skipped
