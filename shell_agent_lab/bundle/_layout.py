"""What a ``.shellagent`` bundle holds, by name (pure; no I/O).

A bundle is a ZIP archive::

    manifest.json              always first: schema version, exporter, the session's identity
    records.json               the conversation, oldest first
    session_memory.json        Session Memory entries (superseded ones included)
    findings.json              Findings
    summaries.json             cached summaries of older records
    analysis.duckdb            the session's analysis database (optional)
    objects/index.json         metadata of every object the session owns
    objects/data/<32-hex id>   one blob per object

Nothing else is accepted on import.
"""
from __future__ import annotations

import re

__all__ = [
    "SCHEMA_VERSION", "BUNDLE_KIND", "SUFFIX", "MANIFEST", "RECORDS", "SESSION_MEMORY",
    "FINDINGS", "SUMMARIES", "ANALYSIS_DB", "OBJECT_INDEX", "OBJECT_DATA_PREFIX",
    "JSON_SECTIONS", "OBJECT_ID", "classify",
]

SCHEMA_VERSION = 1
BUNDLE_KIND = "shell-agent-lab-session"
SUFFIX = ".shellagent"

MANIFEST = "manifest.json"
RECORDS = "records.json"
SESSION_MEMORY = "session_memory.json"
FINDINGS = "findings.json"
SUMMARIES = "summaries.json"
ANALYSIS_DB = "analysis.duckdb"
OBJECT_INDEX = "objects/index.json"
OBJECT_DATA_PREFIX = "objects/data/"

JSON_SECTIONS = (MANIFEST, RECORDS, SESSION_MEMORY, FINDINGS, SUMMARIES, OBJECT_INDEX)
_DIRECTORIES = ("objects/", "objects/data/")

OBJECT_ID = re.compile(r"^[a-f0-9]{32}$")


def classify(name: str) -> str | None:
    """Return ``"json"``, ``"db"``, ``"object"`` or ``"dir"`` for an accepted entry name, else None."""
    if name in JSON_SECTIONS:
        return "json"
    if name == ANALYSIS_DB:
        return "db"
    if name in _DIRECTORIES:
        return "dir"
    if name.startswith(OBJECT_DATA_PREFIX) and OBJECT_ID.match(name[len(OBJECT_DATA_PREFIX):]):
        return "object"
    return None
