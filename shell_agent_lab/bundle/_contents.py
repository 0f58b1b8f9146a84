"""Everything an archive holds, validated, before a single byte is written (pure reads)."""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from typing import Any

from . import _archive, _layout, _sections
from ._limits import Limits
from .errors import InvalidBundleError

__all__ = ["Contents", "read_contents"]


@dataclass(frozen=True)
class Contents:
    manifest: _sections.Manifest
    records: list[dict[str, Any]]
    session_memory: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    summaries: list[dict[str, Any]]
    objects: list[dict[str, Any]]
    scanned: _archive.Scanned


def _section(archive: zipfile.ZipFile, scanned: _archive.Scanned, name: str,
             limits: Limits) -> bytes | None:
    info = scanned.infos.get(name)
    if info is None:
        return None
    return _archive.read_bytes(archive, info, limits.max_json_bytes)


def read_contents(archive: zipfile.ZipFile, limits: Limits) -> Contents:
    """Scan the archive, parse and cross-check every JSON section; raise on the first problem."""
    scanned = _archive.scan(archive, limits)
    manifest = _sections.parse_manifest(_section(archive, scanned, _layout.MANIFEST, limits) or b"")
    raw_records = _section(archive, scanned, _layout.RECORDS, limits)
    if raw_records is None:
        raise InvalidBundleError("bundle has no records.json; it is incomplete")
    records = _sections.parse_section(_layout.RECORDS, raw_records)
    memory = _sections.parse_section(
        _layout.SESSION_MEMORY, _section(archive, scanned, _layout.SESSION_MEMORY, limits))
    findings = _sections.parse_section(
        _layout.FINDINGS, _section(archive, scanned, _layout.FINDINGS, limits))
    summaries = _sections.parse_section(
        _layout.SUMMARIES, _section(archive, scanned, _layout.SUMMARIES, limits))
    raw_index = _section(archive, scanned, _layout.OBJECT_INDEX, limits)
    if raw_index is None and scanned.object_ids:
        raise InvalidBundleError("bundle has object data but no objects/index.json")
    objects = _sections.parse_section(_layout.OBJECT_INDEX, raw_index)
    listed = {item["id"] for item in objects}
    missing = sorted(listed - scanned.object_ids)
    if missing:
        raise InvalidBundleError(
            f"bundle object index lists {len(missing)} object(s) with no data, e.g. {missing[0]}")
    orphans = sorted(scanned.object_ids - listed)
    if orphans:
        raise InvalidBundleError(
            f"bundle holds {len(orphans)} object(s) not listed in the index, e.g. {orphans[0]}")
    for item in objects:
        info = scanned.infos[_layout.OBJECT_DATA_PREFIX + item["id"]]
        if info.file_size != item["size"]:
            raise InvalidBundleError(
                f"bundle object {item['id']} is {info.file_size} bytes but the index says {item['size']}")
    seqs = [r["seq"] for r in records]
    if len(set(seqs)) != len(seqs):
        raise InvalidBundleError("bundle records.json repeats a sequence number")
    return Contents(manifest, records, memory, findings, summaries, objects, scanned)
