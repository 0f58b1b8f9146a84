"""Persistent state: sessions, records, summaries, memory, findings and objects in SQLite (WAL).

``Store.open()`` is the entry point; see ``docs/contracts.md``.
"""
from .errors import (
    InvalidImportError,
    NotFoundError,
    PrivateSessionError,
    SessionInUseError,
    StoreCorruptError,
    StoreError,
    ValidationError,
)
from .memory import GlobalMemory, SessionMemory
from .findings import Findings
from .models import (
    AddResult,
    Caps,
    Finding,
    ImportResult,
    MemoryEntry,
    ObjectMeta,
    Record,
    Session,
    SummaryEntry,
)
from .objects import ObjectStore
from .store import Store
from .transfer import parse_envelope

__all__ = [
    "Store",
    "Caps",
    "Session",
    "Record",
    "MemoryEntry",
    "AddResult",
    "ImportResult",
    "Finding",
    "SummaryEntry",
    "ObjectMeta",
    "GlobalMemory",
    "SessionMemory",
    "Findings",
    "ObjectStore",
    "parse_envelope",
    "StoreError",
    "StoreCorruptError",
    "PrivateSessionError",
    "SessionInUseError",
    "NotFoundError",
    "InvalidImportError",
    "ValidationError",
]
