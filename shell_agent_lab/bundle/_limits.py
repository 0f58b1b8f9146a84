"""Limits applied to every bundle before anything is written."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]

_MiB = 1024 * 1024
_GiB = 1024 * _MiB


@dataclass(frozen=True)
class Limits:
    """Bounds on what an imported bundle may contain.

    Declared sizes (from the ZIP directory) are checked before extraction, and the bytes
    actually produced while extracting are counted against the same bounds, so an archive
    that lies about its sizes is caught too.
    """

    max_entries: int = 10_000
    #: any single entry
    max_entry_bytes: int = 4 * _GiB
    #: all entries together
    max_total_bytes: int = 8 * _GiB
    #: JSON sections (manifest, records, memory, findings, summaries, object index)
    max_json_bytes: int = 256 * _MiB
    #: uncompressed / compressed, checked for entries larger than ``ratio_floor_bytes``
    max_ratio: float = 200.0
    ratio_floor_bytes: int = 16 * _MiB
    #: the object blobs together
    max_object_bytes: int = 2 * _GiB
