"""Kernel side of the side panel: the ``shell_agent_lab`` comm target and its request handlers.

The panel opens one comm per notebook kernel and sends requests ``{v, id, op, args}``; each gets
exactly one response ``{v, id, ok, result | error}``. The agent's event bus is forwarded as
``{v, event, data, session_id, seq}``. Every shape is described once, in ``protocol.json`` next
to this module; requests are validated against it here, and the tests validate every response
and event against it too (the panel's TypeScript types are generated from the same file).

JupyterLab 4.6 with ipykernel 7 delivers comm messages on a *subshell thread*, so handlers run
while a cell executes: they only touch the agent and the store (both thread-safe) and guard
their own state with a lock. Requests that may take long (a chat turn) run on a worker thread
so that approvals and Stop still get through.
"""
from __future__ import annotations

import base64
import binascii
import json
import logging
import tempfile
import threading
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from .._version import __version__

__all__ = ["COMM_TARGET", "PROTOCOL_VERSION", "Dispatcher", "RequestError", "load_protocol",
           "register_comm_target"]

log = logging.getLogger(__name__)

COMM_TARGET = "shell_agent_lab"
PROTOCOL_VERSION = 1
_SEND_WAIT = 0.25          # seconds `send` waits for a quick answer (slash command, queued) before "started"
_GLOBAL = ("preference", "decision")
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
    schema = {"$ref": pointer, "$defs": root["$defs"], "ops": root["ops"], "events": root["events"]}
    return Draft202012Validator(schema)


def _check(pointer: str, value: Any, what: str) -> None:
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


def _session(session: Any, current_id: str | None) -> dict[str, Any]:
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


def _record(record: Any) -> dict[str, Any]:
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


def _entry(entry: Any, scope: str) -> dict[str, Any]:
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


def _finding(finding: Any) -> dict[str, Any]:
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


def _table(info: Any) -> dict[str, Any]:
    columns = []
    for col in info.columns:
        name, type_ = (col if isinstance(col, (tuple, list)) else (col.name, col.type))
        columns.append({"name": str(name), "type": str(type_)})
    rows = info.rows
    return {"name": str(info.name), "kind": "dataframe" if info.kind == "dataframe" else "table",
            "rows": None if rows is None else int(rows), "columns": columns}


def _json_safe(value: Any) -> Any:
    """Event payloads come from the agent: make them JSON (datetimes, tuples, objects → text)."""
    return json.loads(json.dumps(value, default=_iso))


def _event_message(event: Any) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "event": event.type, "data": _json_safe(event.data),
            "session_id": event.session_id, "seq": int(event.seq)}


# --------------------------------------------------------------------------------------------
# the dispatcher: one request in, one response out


Handler = Callable[["Dispatcher", dict[str, Any]], dict[str, Any]]
_OPS: dict[str, Handler] = {}


def _op(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _OPS[name] = fn
        return fn

    return register


class Dispatcher:
    """Answers protocol requests for one kernel.

    ``runtime`` is a callable returning the notebook runtime (``get_runtime``): it has
    ``.agent`` (built on first use), ``set_notebook_key(key)``, ``resolve_approval(...)`` and
    ``panel_connected``. Tests pass their own.
    """

    def __init__(self, runtime: Callable[[], Any]) -> None:
        self._runtime_provider = runtime
        self._lock = threading.RLock()
        self._pending: dict[str, dict[str, Any]] = {}
        self._tracked_bus: Any = None
        self._untrack: Callable[[], None] | None = None
        self._panels = 0

    # -- entry point ---------------------------------------------------------------------------
    def handle(self, message: Any) -> dict[str, Any]:
        """Validate ``message``, run its op, and return the response (never raises)."""
        request_id = message.get("id") if isinstance(message, Mapping) else None
        if not isinstance(request_id, str):
            request_id = None
        try:
            _check("#/$defs/RequestMessage", message, "malformed request")
            op = message["op"]
            handler = _OPS.get(op)
            if handler is None or op not in load_protocol()["ops"]:
                raise RequestError("unknown_op", f"unknown op {op!r}; this kernel speaks {', '.join(sorted(_OPS))}")
            args = message["args"]
            _check(f"#/ops/{op}/args", args, f"{op}: bad arguments")
            result = handler(self, args)
            return {"v": PROTOCOL_VERSION, "id": request_id, "ok": True, "result": result}
        except RequestError as exc:
            return self._error(request_id, exc.code, exc.message)
        except Exception as exc:  # mapped to a one-line error; the traceback goes to the log
            code, text = _map_exception(exc)
            if code == "internal":
                log.exception("side-panel request failed")
            return self._error(request_id, code, text)

    @staticmethod
    def _error(request_id: str | None, code: str, message: str) -> dict[str, Any]:
        return {"v": PROTOCOL_VERSION, "id": request_id, "ok": False,
                "error": {"code": code, "message": message or code}}

    # -- the runtime and the agent ---------------------------------------------------------------
    @property
    def runtime(self) -> Any:
        return self._runtime_provider()

    @property
    def agent(self) -> Any:
        try:
            agent = self.runtime.agent
        except RequestError:
            raise
        except Exception as exc:
            raise RequestError("no_agent", f"the assistant could not start in this kernel: {exc}") from exc
        self._track_approvals(agent.events)
        return agent

    @property
    def store(self) -> Any:
        return self.agent.store

    def session_id(self) -> str:
        return str(self.agent.session.id)

    def publish(self, event: str, data: dict[str, Any] | None = None) -> None:
        """Tell every listener (the notebook's widgets, other panels) that something changed."""
        agent = self.agent
        agent.events.publish(event, data or {}, session_id=str(agent.session.id))

    # -- approvals seen on the bus (so a panel opened late still shows them) ---------------------
    def _track_approvals(self, bus: Any) -> None:
        with self._lock:
            if self._tracked_bus is bus:
                return
            if self._untrack is not None:
                self._untrack()
            self._pending.clear()
            self._tracked_bus = bus
            self._untrack = bus.subscribe(self._on_approval_event, ["approval_request", "approval_resolved"])

    def _on_approval_event(self, event: Any) -> None:
        with self._lock:
            if event.type == "approval_request":
                self._pending[str(event.data.get("request_id"))] = _json_safe(event.data)
            else:
                self._pending.pop(str(event.data.get("request_id")), None)

    # -- connected panels (the notebook runtime routes approvals to a panel when one listens) ---
    def panel_joined(self) -> None:
        with self._lock:
            self._panels += 1

    def panel_left(self) -> None:
        with self._lock:
            self._panels = max(0, self._panels - 1)
            if self._panels:
                return
        try:
            self.runtime.panel_connected = False
        except Exception:  # the runtime may be gone with the kernel
            pass

    def pending_approvals(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._pending.values())


def _map_exception(exc: Exception) -> tuple[str, str]:
    """Known store/bundle errors become protocol error codes with their one-line message."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "AgentBusyError" in names:
        return "busy", text
    if "PrivateSessionError" in names:
        return "private_session", text
    if "NotFoundError" in names or isinstance(exc, (KeyError, LookupError)):
        return "not_found", text
    if names & {"ValidationError", "InvalidImportError", "InvalidBundleError", "BundleError"} or isinstance(exc, ValueError):
        return "bad_request", text
    return "internal", f"{type(exc).__name__}: {text}"


def _memory_id(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise RequestError("bad_request", f"memory entry id must be a number, got {value!r}") from None


def _one(items: Iterable[Any], predicate: Callable[[Any], bool], what: str) -> Any:
    for item in items:
        if predicate(item):
            return item
    raise RequestError("not_found", f"no {what}; refresh the panel")


# --------------------------------------------------------------------------------------------
# handlers (one per op in protocol.json)


@_op("hello")
def _hello(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    if args["protocol"] != PROTOCOL_VERSION:
        raise RequestError("version_mismatch", f"the panel speaks protocol {args['protocol']}, this kernel "
                                               f"speaks {PROTOCOL_VERSION} (shell-agent-lab {__version__})")
    runtime = d.runtime
    runtime.panel_connected = True
    key = args.get("session_key")
    if key:
        _bind_key(runtime, key)
    agent = d.agent
    session = agent.session
    protocol = load_protocol()
    return {
        "protocol": PROTOCOL_VERSION,
        "version": __version__,
        "session": _session(session, session.id),
        "state": _state_name(agent),
        "ops": sorted(protocol["ops"]),
        "events": sorted(protocol["events"]),
    }


def _bind_key(runtime: Any, key: str) -> None:
    """Tie the notebook's stable key to its session without undoing an explicit switch.

    Before the assistant exists the key selects the session (a renamed notebook finds its
    session again in a new kernel). Once it runs, the current session stays (it may have been
    chosen with ``/session`` or ``/reset``); it takes the key only when it has none and no other
    session holds it.
    """
    try:
        if not getattr(runtime, "started", False):
            runtime.set_notebook_key(key)
            return
        agent = runtime.agent
        current = agent.session
        if current.key:
            return
        if agent.store.find_session(None, key=key) is None:
            agent.store.set_session_key(current.id, key)
            refresh = getattr(agent, "refresh_session", None)
            if refresh is not None:
                refresh()
    except Exception as exc:
        if "AgentBusyError" in {c.__name__ for c in type(exc).__mro__}:
            log.info("session key not bound while a turn runs; keeping the current session")
            return
        raise RequestError("no_agent", f"the assistant could not open this notebook's session: {exc}") from exc


def _state_name(agent: Any) -> str:
    state = agent.state
    name = getattr(state, "name", None) or getattr(state, "value", None) or str(state)
    name = str(name).upper()
    return name if name in ("READY", "BUSY", "EXTRACTING", "QUEUED") else "READY"


@_op("send")
def _send(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    message = args["message"].strip()
    if not message:
        raise RequestError("bad_request", "the message is empty")
    agent = d.agent
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["result"] = agent.send(message, wait=False)
        except Exception as exc:  # reported in the response when quick, else through events
            box["error"] = exc
            log.exception("send from the side panel failed")
        finally:
            done.set()

    # a turn may wait for an approval answered through this same comm: never block the handler
    threading.Thread(target=run, name="shell-agent-lab-panel-send", daemon=True).start()
    if not done.wait(_SEND_WAIT):
        return {"phase": "started", "text": None, "error": None}
    if "error" in box:
        code, text = _map_exception(box["error"])
        raise RequestError(code if code != "internal" else "internal", text)
    result = box["result"]
    phase = str(getattr(result, "phase", "completed") or "completed")
    if phase not in ("started", "completed", "queued", "command", "error"):
        phase = "completed"
    text = getattr(result, "content", None) or None
    error = getattr(result, "error_message", None) or None
    return {"phase": phase, "text": None if text is None else str(text), "error": None if error is None else str(error)}


@_op("abort")
def _abort(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    d.agent.abort()
    return {"aborted": True}


@_op("approve")
def _approve(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    request_id = args["request_id"]
    d.agent  # noqa: B018 - make sure the agent (and its approval tracking) exists
    resolved = bool(d.runtime.resolve_approval(request_id, bool(args["approved"]), args.get("feedback", "")))
    if not resolved:
        raise RequestError("not_found", f"no pending approval {request_id!r}: it was already answered or timed out")
    return {"resolved": True}


@_op("history")
def _history(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    agent = d.agent
    records = [
        _record(r) for r in agent.store.list_records(str(agent.session.id))
        if r.role in ("user", "assistant", "tool") and (r.role != "assistant" or (r.content or "").strip())
    ]
    return {"records": records, "state": _state_name(agent), "pending_approvals": _pending(agent, d)}


def _pending(agent: Any, d: Dispatcher) -> list[dict[str, Any]]:
    """Approvals still waiting: from the agent's gate (authoritative), else as seen on the bus."""
    gate = getattr(agent, "gate", None)
    if gate is None or not hasattr(gate, "pending"):
        return d.pending_approvals()
    return [_json_safe({"request_id": r.id, "tool_name": r.tool_name, "arguments": r.arguments,
                        "category": r.category, "dialog": r.dialog, "preview": r.preview})
            for r in gate.pending()]


@_op("memory_list")
def _memory_list(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    agent = d.agent
    store, sid = agent.store, str(agent.session.id)
    session: list[dict[str, Any]] = []
    suggestions: list[dict[str, Any]] = []
    for e in store.session_memory.list(sid):
        # gated preference/decision entries wait in Session Memory for the user's Pin
        suggested = bool(e.suggested) if hasattr(e, "suggested") else e.category in _GLOBAL
        (suggestions if suggested else session).append(_entry(e, "session"))
    return {
        "global": [_entry(e, "global") for e in store.global_memory.list()],
        "session": session,
        "suggestions": suggestions,
        "private": bool(agent.session.private),
    }


@_op("memory_pin")
def _memory_pin(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    entry = d.store.pin_session_memory(d.session_id(), _memory_id(args["entry_id"]), args["category"])
    d.publish("global_memory_updated")
    d.publish("session_memory_updated")
    return {"entry": _entry(entry, "global")}


@_op("memory_demote")
def _memory_demote(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    entry = d.store.demote_global(_memory_id(args["entry_id"]), d.session_id())
    d.publish("global_memory_updated")
    d.publish("session_memory_updated")
    return {"entry": _entry(entry, "session")}


@_op("memory_edit")
def _memory_edit(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    if "fact" not in args and "category" not in args:
        raise RequestError("bad_request", "memory_edit: pass a new fact or category")
    scope, entry_id = args["scope"], _memory_id(args["entry_id"])
    changes = {"fact": args.get("fact"), "category": args.get("category")}
    store = d.store
    if scope == "global":
        entry = store.global_memory.edit(entry_id, **changes)
    else:
        entry = store.session_memory.edit(d.session_id(), entry_id, **changes)
    d.publish(f"{scope}_memory_updated")
    return {"entry": _entry(entry, scope)}


@_op("memory_delete")
def _memory_delete(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    ids = [_memory_id(i) for i in args["ids"]]
    store = d.store
    if args["scope"] == "global":
        deleted = store.global_memory.delete_many(ids)
    else:
        deleted = store.session_memory.delete_many(d.session_id(), ids)
    d.publish(f"{args['scope']}_memory_updated")
    return {"deleted": int(deleted)}


@_op("findings_list")
def _findings_list(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    findings = sorted(d.store.findings.list(d.session_id()), key=lambda f: f.created_at, reverse=True)
    return {"findings": [_finding(f) for f in findings]}


@_op("findings_add")
def _findings_add(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    finding = d.store.findings.add(d.session_id(), args["content"].strip(), tags=tuple(args.get("tags", ())))
    if finding is not None:
        d.publish("findings_updated")
    return {"finding": None if finding is None else _finding(finding), "duplicate": finding is None}


@_op("findings_pin")
def _findings_pin(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    entry = d.store.pin_finding(d.session_id(), args["finding_id"], args["category"])
    d.publish("global_memory_updated")
    return {"entry": _entry(entry, "global")}


@_op("findings_delete")
def _findings_delete(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    deleted = d.store.findings.delete_many(d.session_id(), [str(i) for i in args["ids"]])
    d.publish("findings_updated")
    return {"deleted": int(deleted)}


@_op("data_list")
def _data_list(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    engine = getattr(d.agent, "engine", None)
    if callable(engine) and not hasattr(engine, "tables"):
        engine = engine()               # Agent.engine() opens the session's engine on first use
    if engine is None:
        return {"tables": []}
    refresh = getattr(engine, "refresh_dataframes", None)
    if refresh is not None:
        refresh()
    return {"tables": [_table(t) for t in engine.tables()]}


@_op("sessions_list")
def _sessions_list(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    current = d.session_id()
    return {"sessions": [_session(s, current) for s in d.store.list_sessions()], "current": current}


@_op("sessions_rename")
def _sessions_rename(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    store, sid, title = d.store, args["session_id"], args["title"].strip()
    if not title:
        raise RequestError("bad_request", "a session title cannot be empty")
    store.rename_session(sid, title)
    session = store.get_session(sid)
    if session is None:
        raise RequestError("not_found", f"no session {sid!r}; refresh the Sessions tab")
    d.agent.events.publish("session_renamed", {"session_id": sid, "title": session.title}, session_id=sid)
    return {"session": _session(session, d.session_id())}


@_op("sessions_delete")
def _sessions_delete(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    sid = args["session_id"]
    if sid == d.session_id():
        raise RequestError("bad_request", "this notebook's own session cannot be deleted while it is open; "
                                          "use %agent /reset for a fresh one first")
    store = d.store
    if store.get_session(sid) is None:
        raise RequestError("not_found", f"no session {sid!r}; refresh the Sessions tab")
    store.delete_session(sid)
    return {"deleted": 1}


@_op("sessions_export")
def _sessions_export(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    sid = args["session_id"]
    store = d.store
    session = store.get_session(sid)
    if session is None:
        raise RequestError("not_found", f"no session {sid!r}; refresh the Sessions tab")
    data, filename = _bundle_export(d.agent, store, session)
    return {"filename": filename, "mime_type": "application/zip",
            "data_base64": base64.b64encode(data).decode("ascii"), "size": len(data)}


@_op("sessions_import")
def _sessions_import(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    try:
        data = base64.b64decode(args["data_base64"], validate=True)
    except (binascii.Error, ValueError):
        raise RequestError("bad_request", "the bundle is not valid base64; pick the file again") from None
    session = _bundle_import(d.agent, d.store, data, args.get("filename") or "bundle")
    return {"session": _session(session, d.session_id())}


@_op("settings_get")
def _settings_get(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    return _settings_of(d.agent)


@_op("settings_set")
def _settings_set(d: Dispatcher, args: dict[str, Any]) -> dict[str, Any]:
    _apply_settings(d.agent, args)
    return _settings_of(d.agent)


# --------------------------------------------------------------------------------------------
# integration points with layers written alongside (each one small function)


def _bundle_export(agent: Any, store: Any, session: Any) -> tuple[bytes, str]:
    """One ``.shellagent`` file for ``session`` (the open one is exported with its engine closed)."""
    from ..bundle import export_active_session, export_session

    with tempfile.TemporaryDirectory(prefix="sal-export-") as tmp:
        if session.id == agent.session.id:
            agent.wait_idle()
            engine = agent.engine()
            result = export_active_session(
                store, session.id, Path(tmp),
                close_engine=engine.close if engine is not None else (lambda: None),
                reopen_engine=lambda: agent.open_session(session.id))
        else:
            result = export_session(store, session.id, Path(tmp))
        path = Path(result.path)
        return path.read_bytes(), path.name


def _bundle_import(agent: Any, store: Any, data: bytes, filename: str) -> Any:
    """Add the bundle as a new session (all or nothing; the bundle is checked before any write)."""
    from ..bundle import import_session

    name = Path(filename.replace("\\", "/")).name or "session"
    if not name.endswith(".shellagent"):
        name += ".shellagent"
    with tempfile.TemporaryDirectory(prefix="sal-import-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        return import_session(store, path).session


def _settings_of(agent: Any) -> dict[str, Any]:
    """The session's profile/model, per-tool approvals and auto-extraction (``config.ShellAgent``).

    ``approval_overrides`` maps a tool to True (ask) or False (run freely); a tool in
    ``disabled_tools`` is never offered to the model, shown here as "deny".
    """
    settings = getattr(agent, "settings", None)
    session = agent.session
    profiles = []
    for name, body in sorted((getattr(settings, "profiles", None) or {}).items()):
        body = dict(body) if isinstance(body, Mapping) else {}
        profiles.append({"name": str(name), "backend": str(body.get("backend") or ""),
                         "model": None if body.get("model") is None else str(body["model"])})
    overrides = dict(getattr(settings, "approval_overrides", None) or {})
    disabled = set(getattr(settings, "disabled_tools", None) or ())
    tools = []
    registry = getattr(agent, "registry", None)
    for desc in sorted(registry.all() if registry is not None else [], key=lambda t: t.name):
        if desc.name in disabled:
            override = "deny"
        elif desc.name in overrides:
            override = "ask" if overrides[desc.name] else "allow"
        else:
            override = None
        tools.append({"name": desc.name, "category": str(getattr(desc, "category", "") or ""),
                      "default": "ask" if getattr(desc, "approval_default", False) else "allow",
                      "override": override})
    try:
        model = agent.backend.model
    except Exception:  # a profile that cannot be built yet still shows its settings
        model = getattr(settings, "model", None)
    return {
        "profile": session.profile or getattr(settings, "profile", None),
        "model": None if model is None else str(model),
        "profiles": profiles,
        "tools": tools,
        "auto_extraction": _auto_extraction(agent, settings, session),
    }


def _auto_extraction(agent: Any, settings: Any, session: Any) -> bool:
    value = getattr(settings, "auto_extract", None)
    if value is not None:
        return bool(value)
    effective = getattr(agent, "_auto_extract", None)      # the backend's default when unset
    try:
        return bool(effective(session, agent.backend)) if effective else False
    except Exception:
        return False


def _apply_settings(agent: Any, args: dict[str, Any]) -> None:
    settings = getattr(agent, "settings", None)
    if settings is None:
        raise RequestError("unsupported", "this agent has no adjustable settings")
    with _settings_lock:
        if "approvals" in args:
            overrides = dict(getattr(settings, "approval_overrides", None) or {})
            disabled = list(getattr(settings, "disabled_tools", None) or [])
            for tool, value in args["approvals"].items():
                overrides.pop(tool, None)
                if tool in disabled:
                    disabled.remove(tool)
                if value == "deny":
                    disabled.append(tool)
                elif value is not None:
                    overrides[tool] = value == "ask"
            settings.approval_overrides = overrides
            settings.disabled_tools = disabled
            gate = getattr(agent, "gate", None)
            if gate is not None:            # the running agent reads its gate's copy
                gate.overrides = settings.approval_overrides
        if "auto_extraction" in args:
            settings.auto_extract = bool(args["auto_extraction"])
        if args.get("profile") is not None:
            agent.set_profile(args["profile"])
        if args.get("model") is not None:
            agent.set_model(args["model"])


_settings_lock = threading.Lock()


# --------------------------------------------------------------------------------------------
# the comm target


class _Endpoint:
    """One open comm: requests in, responses and forwarded events out."""

    def __init__(self, comm: Any, dispatcher: Dispatcher) -> None:
        self._comm = comm
        self._dispatcher = dispatcher
        self._send_lock = threading.Lock()
        self._unsubscribe: Callable[[], None] | None = None
        self._bus: Any = None
        self._closed = False
        comm.on_msg(self._on_msg)
        comm.on_close(self._on_close)

    def _on_msg(self, msg: dict[str, Any]) -> None:
        data = msg.get("content", {}).get("data")
        response = self._dispatcher.handle(data)
        if response.get("ok") and isinstance(data, Mapping) and data.get("op") == "hello":
            self._subscribe()
        self._send(response)

    def _subscribe(self) -> None:
        try:
            bus = self._dispatcher.agent.events
        except RequestError:
            return
        if bus is self._bus:
            return
        if self._unsubscribe is not None:
            self._unsubscribe()
        else:
            self._dispatcher.panel_joined()
        self._bus = bus
        self._unsubscribe = bus.subscribe(self._forward)

    def _forward(self, event: Any) -> None:
        if event.type not in load_protocol()["events"]:
            return
        self._send(_event_message(event))

    def _send(self, payload: dict[str, Any]) -> None:
        with self._send_lock:
            if self._closed:
                return
            try:
                self._comm.send(payload)
            except Exception:
                log.exception("could not send to the side panel")

    def _on_close(self, msg: Any) -> None:
        with self._send_lock:
            if self._closed:
                return
            self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            self._dispatcher.panel_left()


_dispatcher: Dispatcher | None = None
_registered_with: Any = None
_register_lock = threading.Lock()


def _default_runtime() -> Any:
    from .runtime import get_runtime

    return get_runtime()


def register_comm_target(manager: Any = None, *, runtime: Callable[[], Any] | None = None) -> None:
    """Register the ``shell_agent_lab`` comm target (idempotent; ``%load_ext`` calls it)."""
    global _dispatcher, _registered_with
    if manager is None:
        import comm as comm_pkg

        manager = comm_pkg.get_comm_manager()
    with _register_lock:
        if _dispatcher is None or runtime is not None:
            _dispatcher = Dispatcher(runtime or _default_runtime)
        dispatcher = _dispatcher

        def on_open(comm: Any, open_msg: Any) -> None:
            _Endpoint(comm, dispatcher)

        manager.register_target(COMM_TARGET, on_open)
        _registered_with = manager
