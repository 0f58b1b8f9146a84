"""Errors raised by the store.

::

    StoreError                  base class; every store failure is one of these
    ├── StoreCorruptError       the database file cannot be read; it is never touched
    ├── PrivateSessionError     a private session refused a write to Global Memory
    ├── NotFoundError           no session, entry, finding or object with that id
    ├── SessionInUseError       the session is open in another process (a kernel)
    ├── InvalidImportError      a memory export file that is not ours or not readable
    └── ValidationError         bad input (empty or oversized text, unknown category or type)

Messages are one line and say what to do next.
"""
from __future__ import annotations

__all__ = [
    "StoreError",
    "StoreCorruptError",
    "PrivateSessionError",
    "NotFoundError",
    "SessionInUseError",
    "InvalidImportError",
    "ValidationError",
]


class StoreError(Exception):
    """Base class of every error the store raises."""


class StoreCorruptError(StoreError):
    """The database file exists but cannot be read as a shell-agent-lab store."""


class PrivateSessionError(StoreError):
    """A private session refused an operation that would write to Global Memory."""


class NotFoundError(StoreError, LookupError):
    """The session, memory entry, finding or object does not exist."""


class SessionInUseError(StoreError):
    """Another process (a kernel) has the session open, so it cannot be deleted."""


class InvalidImportError(StoreError, ValueError):
    """A Global Memory export file has the wrong kind, version or shape."""


class ValidationError(StoreError, ValueError):
    """Input the store refuses: empty or oversized text, unknown category or type."""
