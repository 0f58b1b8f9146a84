"""The side-panel protocol's data: the schema, request validation and plain JSON out of store objects.

Shared by the comm transport (``comm.py``) and the op handlers (``_panel_ops.py``).
"""
from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["PROTOCOL_VERSION", "RequestError", "load_protocol", "check", "map_exception", "json_safe",
           "event_message", "session_json", "record_json", "entry_json", "finding_json", "table_json",
           "memory_id", "GLOBAL_CATEGORIES"]

PROTOCOL_VERSION = 1
GLOBAL_CATEGORIES = ("preference", "decision")
_USER_STATED_GLOBAL = {"user_turn", "manual", "promoted_from_session_memory", "promoted_from_finding"}
_SEVERITIES = ("critical", "high", "medium", "low", "info")


@lru_cache(maxsize=1)
def load_protocol() -> dict[str, Any]:
    """The protocol schema shipped with the package."""
    text = resources.files(__package__).joinpath("protocol.json").read_text(encoding="utf-8")
    return json.loads(text)


class RequestError(Exception):
    """A request the kernel refuses; ``code`` is one of the schema's ErrorInfo codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --------------------------------------------------------------------------------------------
# validation


@lru_cache(maxsize=None)
def _validator(pointer: str) -> Any:
    from jsonschema import Draft202012Validator

    root = load_protocol()
    schema = {"$ref": pointer, "$defs": root["$defs"], "ops": root["ops"], "events": root["events"],
              "commands": root.get("commands", {})}
    return Draft202012Validator(schema)


def check(pointer: str, value: Any, what: str) -> None:
    error = next(iter(_validator(pointer).iter_errors(value)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        raise RequestError("bad_request", f"{what}{f' ({where})' if where else ''}: {error.message}")


# --------------------------------------------------------------------------------------------
# plain data out of store objects


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def session_json(session: Any, current_id: str | None) -> dict[str, Any]:
    return {
        "id": str(session.id),
        "title": str(session.title),
        "notebook_path": session.notebook_path,
        "private": bool(session.private),
        "profile": session.profile,
        "key": session.key,
        "created_at": _iso(session.created_at),
        "updated_at": _iso(session.updated_at),
        "current": session.id == current_id,
    }


def record_json(record: Any) -> dict[str, Any]:
    return {
        "id": record.id,
        "seq": int(record.seq),
        "role": record.role,
        "content": record.content or "",
        "tool_name": record.tool_name,
        "tool_call_id": record.tool_call_id,
        "status": record.status,
        "created_at": _iso(record.created_at),
    }


def _trust(scope: str, source: str) -> str:
    if scope == "global":
        return "user-stated" if source in _USER_STATED_GLOBAL else "derived"
    return "user-stated" if source == "user_turn" else "derived"


def entry_json(entry: Any, scope: str) -> dict[str, Any]:
    return {
        "id": entry.id,
        "scope": scope,
        "fact": entry.fact,
        "native_fact": entry.native_fact or "",
        "category": entry.category,
        "source": entry.source or "",
        "trust": _trust(scope, entry.source or ""),
        "state": entry.state or "active",
        "relevance": float(entry.relevance),
        "touch_count": int(entry.touch_count),
        "tool_originated": bool(entry.tool_originated),
        "created_at": _iso(entry.created_at),
    }


def finding_json(finding: Any) -> dict[str, Any]:
    tags = [str(t) for t in finding.tags]
    severity = next((t for t in tags if t in _SEVERITIES), None)
    return {
        "id": finding.id,
        "content": finding.content,
        "tags": tags,
        "severity": severity,
        "source": finding.source,
        "tool_originated": bool(finding.tool_originated),
        "created_at": _iso(finding.created_at),
    }


def table_json(info: Any) -> dict[str, Any]:
    columns = []
    for col in info.columns:
        name, type_ = (col if isinstance(col, (tuple, list)) else (col.name, col.type))
        columns.append({"name": str(name), "type": str(type_)})
    rows = info.rows
    return {"name": str(info.name), "kind": "dataframe" if info.kind == "dataframe" else "table",
            "rows": None if rows is None else int(rows), "columns": columns}


def json_safe(value: Any) -> Any:
    """Event payloads come from the agent: make them JSON (datetimes, tuples, objects → text)."""
    return json.loads(json.dumps(value, default=_iso))


def event_message(event: Any) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "event": event.type, "data": json_safe(event.data),
            "session_id": event.session_id, "seq": int(event.seq)}



def map_exception(exc: Exception) -> tuple[str, str]:
    """Known store/bundle errors become protocol error codes with their one-line message."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if names & {"AgentBusyError", "SessionInUseError"}:
        return "busy", text
    if "PrivateSessionError" in names:
        return "private_session", text
    if "NotFoundError" in names or isinstance(exc, (KeyError, LookupError)):
        return "not_found", text
    if names & {"ValidationError", "InvalidImportError", "InvalidBundleError", "BundleError"} or isinstance(exc, ValueError):
        return "bad_request", text
    return "internal", f"{type(exc).__name__}: {text}"


def memory_id(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise RequestError("bad_request", f"memory entry id must be a number, got {value!r}") from None
