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
    work/<path>                files the session's tools wrote (regular files only)

Nothing else is accepted on import.
"""
from __future__ import annotations

import re

__all__ = [
    "SCHEMA_VERSION", "BUNDLE_KIND", "SUFFIX", "MANIFEST", "RECORDS", "SESSION_MEMORY",
    "FINDINGS", "SUMMARIES", "ANALYSIS_DB", "OBJECT_INDEX", "OBJECT_DATA_PREFIX",
    "WORK_PREFIX", "JSON_SECTIONS", "OBJECT_ID", "classify",
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
WORK_PREFIX = "work/"
_MAX_COMPONENT = 255
_MAX_WORK_PATH = 1024

JSON_SECTIONS = (MANIFEST, RECORDS, SESSION_MEMORY, FINDINGS, SUMMARIES, OBJECT_INDEX)
_DIRECTORIES = ("objects/", "objects/data/")

OBJECT_ID = re.compile(r"^[a-f0-9]{32}$")


def _work_name_ok(rest: str) -> bool:
    parts = rest.rstrip("/").split("/")
    return (0 < len(rest) <= _MAX_WORK_PATH
            and all(p and p not in (".", "..") and len(p) <= _MAX_COMPONENT for p in parts))


def classify(name: str) -> str | None:
    """``"json"``, ``"db"``, ``"object"``, ``"dir"``, ``"work"`` or ``"workdir"`` for an accepted
    entry name, else None. (Traversal and absolute names are refused before this is asked.)"""
    if name in JSON_SECTIONS:
        return "json"
    if name == ANALYSIS_DB:
        return "db"
    if name in _DIRECTORIES:
        return "dir"
    if name.startswith(OBJECT_DATA_PREFIX) and OBJECT_ID.match(name[len(OBJECT_DATA_PREFIX):]):
        return "object"
    if name == WORK_PREFIX:
        return "workdir"
    if name.startswith(WORK_PREFIX) and _work_name_ok(name[len(WORK_PREFIX):]):
        return "workdir" if name.endswith("/") else "work"
    return None
