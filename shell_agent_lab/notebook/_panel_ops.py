"""The side panel's ops: one handler per op in ``protocol.json`` (the ``OPS`` dispatch table).

A handler takes the dispatcher (a :class:`~._panel_types.PanelHost`: ``d.runtime``, ``d.agent``,
``d.store``, ``d.publish``) and the validated arguments, and returns the result object; refusals raise :class:`RequestError`.
Handlers never block on a turn: they run on the comm's thread while cells execute.
"""
from __future__ import annotations

import base64
import binascii
import contextlib
import logging
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from .._version import __version__
from ..agent.agent import AgentBusyError
from ._panel_types import PanelAgent, PanelHost, PanelRuntime
from .cells import send_turn
from ._panel_wire import (PROTOCOL_VERSION, RequestError, entry_json, finding_json,
                          json_safe, load_protocol, map_exception, memory_id, record_json, session_json,
                          table_json)

__all__ = ["OPS"]

log = logging.getLogger(__name__)

_SEND_WAIT = 0.25          # seconds `send` waits for a quick answer (slash command, queued) before "started"

Handler = Callable[[PanelHost, dict[str, Any]], dict[str, Any]]
OPS: dict[str, Handler] = {}


def _op(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        OPS[name] = fn
        return fn

    return register


@_op("hello")
def _hello(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
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
        "session": session_json(session, session.id),
        "state": _state_name(agent),
        "ops": sorted(protocol["ops"]),
        "events": sorted(protocol["events"]),
        **_data_sharing(agent),
    }


def _data_sharing(agent: PanelAgent) -> dict[str, Any]:
    """{"data_sharing": …} for the panel's status line ({} when the backend cannot be built yet)."""
    status = getattr(agent, "data_sharing_status", None)
    if status is None:
        return {}
    try:
        return {"data_sharing": status()}
    except Exception:       # no backend yet: the status line says it once one answers
        return {}


def _bind_key(runtime: PanelRuntime, key: str) -> None:
    """Tie the notebook's stable key to its session without undoing an explicit switch.

    Before the assistant exists the key selects the session (a renamed notebook finds its
    session again in a new kernel). Once it runs, the current session stays (it may have been
    chosen with ``/session`` or ``/reset``); it takes the key only when it has none and no other
    session holds it.
    """
    try:
        if not runtime.started:
            runtime.set_notebook_key(key)
            return
        agent = runtime.agent
        current = agent.session
        if current.key:
            return
        if agent.store.find_session(None, key=key) is None:
            agent.store.set_session_key(current.id, key)
            agent.refresh_session()
    except AgentBusyError:
        log.info("session key not bound while a turn runs; keeping the current session")
    except Exception as exc:
        raise RequestError("no_agent", f"the assistant could not open this notebook's session: {exc}") from exc


def _state_name(agent: PanelAgent) -> str:
    name = str(agent.state.name).upper()
    return name if name in ("READY", "BUSY", "EXTRACTING", "QUEUED") else "READY"


@_op("send")
def _send(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    """Answer within ``_SEND_WAIT`` when the message is done by then (a quick command, queued);
    otherwise reply ``started`` and publish the outcome, when it comes, as ``command_result``
    naming this request (a slow command such as ``/fix`` keeps its reply)."""
    message = args["message"].strip()
    if not message:
        raise RequestError("bad_request", "the message is empty")
    agent = d.agent
    message = _with_attachments(agent, message)
    request_id = d.request_id
    box: dict[str, Any] = {}
    lock = threading.Lock()

    def run() -> None:
        try:
            box["result"] = send_turn(d.runtime, agent, message)   # cells go in once the turn ends
        except Exception as exc:  # reported in the response when quick, else through events
            box["error"] = exc
            log.exception("send from the side panel failed")
        with lock:
            box["done"] = True
            late = box.get("late", False)
        if late:
            _publish_late(d, request_id, box)

    # a turn may wait for an approval answered through this same comm: never block the handler
    thread = threading.Thread(target=run, name="shell-agent-lab-panel-send", daemon=True)
    thread.start()
    thread.join(_SEND_WAIT)
    with lock:
        if not box.get("done"):
            box["late"] = True
            return {"phase": "started", "text": None, "error": None}
    if "error" in box:
        code, text = map_exception(box["error"])
        raise RequestError(code, text)
    return _send_result(box["result"])


def _send_result(result: Any) -> dict[str, Any]:
    """The wire form of what ``send`` returned: ``phase``, ``text``, ``error``."""
    phase = str(result.phase or "completed")
    if phase not in ("started", "completed", "queued", "command", "error"):
        phase = "completed"
    content = result.content or None
    error = result.error_message or None
    return {"phase": phase, "text": None if content is None else str(content),
            "error": None if error is None else str(error)}


def _publish_late(d: PanelHost, request_id: str | None, box: dict[str, Any]) -> None:
    """A ``send`` answered ``started`` has finished: its outcome goes out as ``command_result``."""
    if "error" in box:
        outcome = {"phase": "error", "text": None, "error": map_exception(box["error"])[1]}
    else:
        outcome = _send_result(box["result"])
    if outcome["phase"] == "started":     # a turn: its reply streams as turn events
        return
    try:
        d.publish("command_result", {"request_id": request_id or "", "phase": outcome["phase"],
                                     "text": outcome["text"], "error": outcome["error"]})
    except Exception:
        log.exception("could not report a command's result to the side panel")


@_op("abort")
def _abort(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    d.agent.abort()
    return {"aborted": True}


@_op("approve")
def _approve(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    request_id = args["request_id"]
    d.agent  # noqa: B018 - make sure the agent (and its approval tracking) exists
    extra = {"action": args["action"]} if args.get("action") else {}     # "Insert only"
    resolved = bool(d.runtime.resolve_approval(request_id, bool(args["approved"]), args.get("feedback", ""), **extra))
    if not resolved:
        raise RequestError("not_found", f"no pending approval {request_id!r}: it was already answered or timed out")
    return {"resolved": True}


@_op("history")
def _history(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    agent = d.agent
    records = [
        record_json(r) for r in agent.store.list_records(str(agent.session.id))
        if r.role in ("user", "assistant", "tool") and (r.role != "assistant" or (r.content or "").strip())
    ]
    return {"records": records, "state": _state_name(agent), "pending_approvals": _pending(agent, d)}


def _pending(agent: PanelAgent, d: PanelHost) -> list[dict[str, Any]]:
    """Approvals still waiting: from the agent's gate (authoritative), else as seen on the bus."""
    gate = agent.gate
    if gate is None:
        return d.pending_approvals()
    return [json_safe({"request_id": r.id, "tool_name": r.tool_name, "arguments": r.arguments,
                        "category": r.category, "dialog": r.dialog, "preview": r.preview,
                        "destination": getattr(r, "destination", "")})
            for r in gate.pending()]


@_op("memory_list")
def _memory_list(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    agent = d.agent
    store, sid = agent.store, str(agent.session.id)
    session: list[dict[str, Any]] = []
    suggestions: list[dict[str, Any]] = []
    for e in store.session_memory.list(sid):
        # gated preference/decision entries wait in Session Memory for the user's Pin
        suggested = bool(e.suggested)
        (suggestions if suggested else session).append(entry_json(e, "session"))
    return {
        "global": [entry_json(e, "global") for e in store.global_memory.list()],
        "session": session,
        "suggestions": suggestions,
        "private": bool(agent.session.private),
    }


@_op("memory_pin")
def _memory_pin(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    entry = d.store.pin_session_memory(d.session_id(), memory_id(args["entry_id"]), args["category"])
    d.publish("global_memory_updated")
    d.publish("session_memory_updated")
    return {"entry": entry_json(entry, "global")}


@_op("memory_demote")
def _memory_demote(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    entry = d.store.demote_global(memory_id(args["entry_id"]), d.session_id())
    d.publish("global_memory_updated")
    d.publish("session_memory_updated")
    return {"entry": entry_json(entry, "session")}


@_op("memory_edit")
def _memory_edit(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    if "fact" not in args and "category" not in args:
        raise RequestError("bad_request", "memory_edit: pass a new fact or category")
    scope, entry_id = args["scope"], memory_id(args["entry_id"])
    changes = {"fact": args.get("fact"), "category": args.get("category")}
    store = d.store
    if scope == "global":
        entry = store.global_memory.edit(entry_id, **changes)
    else:
        entry = store.session_memory.edit(d.session_id(), entry_id, **changes)
    d.publish(f"{scope}_memory_updated")
    return {"entry": entry_json(entry, scope)}


@_op("memory_delete")
def _memory_delete(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    ids = [memory_id(i) for i in args["ids"]]
    store = d.store
    if args["scope"] == "global":
        deleted = store.global_memory.delete_many(ids)
    else:
        deleted = store.session_memory.delete_many(d.session_id(), ids)
    d.publish(f"{args['scope']}_memory_updated")
    return {"deleted": int(deleted)}


@_op("findings_list")
def _findings_list(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    findings = sorted(d.store.findings.list(d.session_id()), key=lambda f: f.created_at, reverse=True)
    return {"findings": [finding_json(f) for f in findings]}


@_op("findings_add")
def _findings_add(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    finding = d.store.findings.add(d.session_id(), args["content"].strip(), tags=tuple(args.get("tags", ())))
    if finding is not None:
        d.publish("findings_updated")
    return {"finding": None if finding is None else finding_json(finding), "duplicate": finding is None}


@_op("findings_pin")
def _findings_pin(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    entry = d.store.pin_finding(d.session_id(), args["finding_id"], args["category"])
    d.publish("global_memory_updated")
    return {"entry": entry_json(entry, "global")}


@_op("findings_delete")
def _findings_delete(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    deleted = d.store.findings.delete_many(d.session_id(), [str(i) for i in args["ids"]])
    d.publish("findings_updated")
    return {"deleted": int(deleted)}


@_op("data_list")
def _data_list(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    engine = d.agent.engine()           # opens the session's engine on first use
    if engine is None:
        return {"tables": []}
    engine.refresh_dataframes()
    result: dict[str, Any] = {"tables": [table_json(t) for t in engine.tables()]}
    if d.agent.connections:        # redacted URLs only; the secret stays in the kernel
        from ..agent.connection_commands import listing
        result["connections"] = listing(d.agent)
    return result


@_op("sessions_list")
def _sessions_list(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    current = d.session_id()
    return {"sessions": [session_json(s, current) for s in d.store.list_sessions()], "current": current}


@_op("sessions_rename")
def _sessions_rename(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    store, sid, title = d.store, args["session_id"], args["title"].strip()
    if not title:
        raise RequestError("bad_request", "a session title cannot be empty")
    store.rename_session(sid, title)
    session = store.get_session(sid)
    if session is None:
        raise RequestError("not_found", f"no session {sid!r}; refresh the Sessions tab")
    d.agent.events.publish("session_renamed", {"session_id": sid, "title": session.title}, session_id=sid)
    return {"session": session_json(session, d.session_id())}


@_op("sessions_delete")
def _sessions_delete(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
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
def _sessions_export(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    sid = args["session_id"]
    store = d.store
    session = store.get_session(sid)
    if session is None:
        raise RequestError("not_found", f"no session {sid!r}; refresh the Sessions tab")
    data, filename = _bundle_export(d.agent, store, session)
    return {"filename": filename, "mime_type": "application/zip",
            "data_base64": base64.b64encode(data).decode("ascii"), "size": len(data)}


@_op("sessions_import")
def _sessions_import(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    try:
        data = base64.b64decode(args["data_base64"], validate=True)
    except (binascii.Error, ValueError):
        raise RequestError("bad_request", "the bundle is not valid base64; pick the file again") from None
    session = _bundle_import(d.agent, d.store, data, args.get("filename") or "bundle")
    return {"session": session_json(session, d.session_id())}


@_op("objects_attach")
def _objects_attach(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    from . import attach as att

    try:
        data = base64.b64decode(args["data_base64"], validate=True)
    except (binascii.Error, ValueError):
        raise RequestError("bad_request", "the file is not valid base64; pick it again") from None
    agent = d.agent
    name = Path(str(args["filename"]).replace("\\", "/")).name or "attachment"
    try:
        kind, _ = att.classify(data, name)
        if kind == "image":
            att.check_images(agent, [name])
        meta = att.store_bytes(agent.store, agent.session.id, data, name=name)
    except att.AttachError as exc:
        raise RequestError("bad_request", str(exc)) from None
    att.queue(meta.session_id, [meta])
    return {"object": {"id": meta.id, "type": meta.type, "mime_type": meta.mime_type, "name": meta.name,
                       "size": meta.size},
            "text": f"Attached {name}; your next message carries it."}


def _with_attachments(agent: PanelAgent, message: str) -> str:
    """A chat message (not a /command) with the anchors of what was attached since the last one."""
    from ..agent.commands import is_command
    from . import attach as att

    if is_command(message):
        return message
    sid = agent.session.id
    queued = att.pending(sid)
    if not queued:
        return message
    try:
        att.check_images(agent, [m.name or m.id for m in queued if m.type == "image"])
    except att.AttachError as exc:
        raise RequestError("bad_request", f"{exc}, or remove the image with /objects delete ID") from None
    return att.compose(message, att.take_pending(sid, agent.store))


@_op("settings_get")
def _settings_get(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    return _settings_of(d.agent)


@_op("settings_set")
def _settings_set(d: PanelHost, args: dict[str, Any]) -> dict[str, Any]:
    _apply_settings(d.agent, args)
    return _settings_of(d.agent)


# --------------------------------------------------------------------------------------------
# integration points with layers written alongside (each one small function)


_HOLD_WAIT = 30.0          # seconds a panel op waits for background work (never for a turn)


@contextlib.contextmanager
def _held(agent: PanelAgent, what: str) -> Iterator[None]:
    """Run the block under the agent's maintenance hold: no turn starts meanwhile.

    Comm handlers run one at a time on one thread: waiting there for a turn that waits for an
    approval (or a Stop) sent over the same comm would never end. A running turn is refused
    at once; extraction, which asks nobody anything, is waited for up to ``_HOLD_WAIT`` s.
    """
    with agent.maintenance(what, timeout=_HOLD_WAIT):
        yield


def _bundle_export(agent: PanelAgent, store: Any, session: Any) -> tuple[bytes, str]:
    """One ``.shellagent`` file for ``session`` (the open one through the agent, which closes
    its engine for the copy and reopens it before any turn runs)."""
    from ..bundle import export_session

    with tempfile.TemporaryDirectory(prefix="sal-export-") as tmp:
        if session.id == agent.session.id:
            with _held(agent, "export the open session"):
                result = agent.export_session(Path(tmp))
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


def _settings_of(agent: PanelAgent) -> dict[str, Any]:
    """The session's profile/model, per-tool approvals and auto-extraction (``config.ShellAgent``).

    ``approval_overrides`` maps a tool to True (ask) or False (run freely); a tool in
    ``disabled_tools`` is never offered to the model, shown here as "deny".
    """
    settings = agent.settings
    session = agent.session
    profiles = []
    for name, body in sorted((settings.profiles or {}).items()):
        body = dict(body) if isinstance(body, Mapping) else {}
        profiles.append({"name": str(name), "backend": str(body.get("backend") or ""),
                         "model": None if body.get("model") is None else str(body["model"])})
    overrides = dict(settings.approval_overrides or {})
    disabled = set(settings.disabled_tools or ())
    tools = []
    for desc in sorted(agent.registry.all(), key=lambda t: t.name):
        if desc.name in disabled:
            override = "deny"
        elif desc.name in overrides:
            override = "ask" if overrides[desc.name] else "allow"
        else:
            override = None
        tools.append({"name": desc.name, "category": str(desc.category or ""),
                      "default": "ask" if desc.approval_default else "allow",
                      "override": override})
    try:
        model = agent.backend.model
    except Exception:  # a profile that cannot be built yet still shows its settings
        model = settings.model
    return {
        "profile": session.profile or settings.profile,
        "model": None if model is None else str(model),
        "profiles": profiles,
        "tools": tools,
        "auto_extraction": _auto_extraction(agent, settings, session),
        **_data_sharing(agent),
    }


def _auto_extraction(agent: PanelAgent, settings: Any, session: Any) -> bool:
    value = settings.auto_extract
    if value is not None:
        return bool(value)
    try:                                # the backend's default when unset
        return bool(agent.auto_extract_enabled(session, agent.backend))
    except Exception:
        return False


def _apply_settings(agent: PanelAgent, args: dict[str, Any]) -> None:
    settings = agent.settings
    if settings is None:
        raise RequestError("unsupported", "this agent has no adjustable settings")
    with _settings_lock:
        if "approvals" in args:
            overrides = dict(settings.approval_overrides or {})
            disabled = list(settings.disabled_tools or [])
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
            if agent.gate is not None:      # the running agent reads its gate's copy
                agent.gate.overrides = settings.approval_overrides
        if "auto_extraction" in args:
            settings.auto_extract = bool(args["auto_extraction"])
        if "data_sharing" in args:
            settings.data_sharing = args["data_sharing"] or None
        if args.get("profile") is not None or args.get("model") is not None:
            with _held(agent, "change the profile or model"):
                if args.get("profile") is not None:
                    agent.set_profile(args["profile"])
                if args.get("model") is not None:
                    agent.set_model(args["model"])


_settings_lock = threading.Lock()
