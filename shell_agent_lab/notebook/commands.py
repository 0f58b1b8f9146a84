"""Slash commands the notebook adds to the shared command table (``agent.commands``).

``/sessions [rename|delete]``, ``/session NAME``, ``/private``, ``/pin``, ``/remember``, ``/forget``, ``/export``, ``/import``, ``/sql``,
``/attach`` and ``/objects`` work from the magic and, through the same table, from the side panel.
Arguments are parsed by :mod:`.args` so both doors give the same usage errors.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..agent.commands import Command, CommandResult, commands, register_command, unregister_command
from . import args as A

__all__ = ["register", "unregister", "NOTEBOOK_COMMANDS", "resolve_id"]


def _runtime() -> Any:
    from .runtime import get_runtime

    return get_runtime()


def _parsed(name: str, argv: list[str]) -> Any:
    try:
        return A.COMMANDS[name].parse(argv)
    except A.UsageError as exc:
        raise ValueError(str(exc).split("; usage:")[0]) from None


def resolve_id(text: str) -> tuple[str, Any]:
    """``f-…`` → ("finding", id); ``g12`` → ("global", 12); ``s7`` or ``7`` → ("session", 7)."""
    t = text.strip()
    if t.startswith("f-"):
        return "finding", t
    for prefix, scope in (("g", "global"), ("s", "session"), ("", "session")):
        body = t[len(prefix):] if prefix and t.lower().startswith(prefix) else t
        if (prefix == "" or t.lower().startswith(prefix)) and body.isdigit():
            return scope, int(body)
    raise ValueError(f"{text!r} is not an id: use f-… for a Finding, s12 for Session Memory, g3 for Global Memory "
                     "(ids are listed by /findings and /memory)")


def _session_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("session", argv)
    session = _runtime().switch_session(p.title)
    return CommandResult("session", f"This notebook now uses the session **{session.title}** (`{session.id}`).",
                         data={"session": session.id}, kind="session")


def _sessions_cmd(agent: Any, argv: list[str]) -> CommandResult:
    """``/sessions`` lists (the shared command); ``rename`` and ``delete`` are added here."""
    p = _parsed("sessions", argv)
    if p.action == "rename":
        return _rename_session(agent, p.target, p.title)
    if p.action == "delete":
        return _delete_session(agent, p.target, p.yes)
    listing = _core.get("sessions")
    if listing is None:  # pragma: no cover - the agent package always registers it
        raise RuntimeError("the session list is not available")
    return listing.handler(agent, argv)


def _find_session(store: Any, text: str) -> Any:
    """A session by exact id, else by a unique id prefix, else by exact title."""
    matches = store.sessions_named(text)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ValueError(f"no session {text!r} (`%agent /sessions` lists them)")
    raise ValueError(f"{text!r} matches {len(matches)} sessions; give the id from `%agent /sessions`")


def _rename_session(agent: Any, target: str, title: str) -> CommandResult:
    from ..store.errors import StoreError

    store = agent.store
    session = _find_session(store, target)
    try:
        renamed = store.rename_session(session.id, title)
    except StoreError as exc:
        return CommandResult("sessions", error=f"/sessions rename: {exc}", kind="error")
    agent.events.publish("session_renamed", {"session_id": renamed.id, "title": renamed.title},
                         session_id=renamed.id)
    return CommandResult("sessions", f"Renamed **{session.title}** to **{renamed.title}** (`{renamed.id}`); "
                         "automatic titles will not change it.",
                         data={"session": renamed.id, "title": renamed.title}, kind="session_renamed")


def _delete_session(agent: Any, session_id: str, yes: bool) -> CommandResult:
    from ..store.errors import StoreError

    store = agent.store
    session = store.get_session(session_id)
    if session is None:
        raise ValueError(f"no session {session_id!r}; deleting takes the full id shown by `%agent /sessions`")
    if session.id == agent.session.id:
        return CommandResult("sessions", error="/sessions delete: that is the session this notebook has open, so it "
                             "is kept; start a fresh one with `%agent /reset` (or switch with /session NAME), "
                             "then delete it", kind="error")
    if not yes:
        counts = (f"{len(store.list_records(session.id))} messages, {len(store.findings.list(session.id))} Findings, "
                  f"{len(store.session_memory.list(session.id))} Session Memory entries, "
                  f"{len(store.objects.list(session.id))} objects")
        return CommandResult("sessions", f"This would delete **{session.title}** (`{session.id}`) for good: {counts}, "
                             "and its tables and files. To go ahead, run "
                             f"`%agent /sessions delete {session.id} --yes`.",
                             data={"session": session.id, "deleted": False}, kind="session_delete")
    try:
        store.delete_session(session.id)
    except StoreError as exc:
        return CommandResult("sessions", error=f"/sessions delete: {exc}", kind="error")
    return CommandResult("sessions", f"Deleted **{session.title}** (`{session.id}`) and everything it owned.",
                         data={"session": session.id, "deleted": True}, kind="session_delete")


def _private_cmd(agent: Any, argv: list[str]) -> CommandResult:
    _parsed("private", argv)
    session = _runtime().new_session(private=True)
    return CommandResult("private", f"🔒 Started a private session (`{session.id}`): nothing said here reaches "
                         "Global Memory, and Pin is off.", data={"session": session.id}, kind="private")


def _pin_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("pin", argv)
    scope, ident = resolve_id(p.target)
    store, sid = agent.store, agent.session.id
    if scope == "global":
        raise ValueError(f"{p.target} is already in Global Memory")
    try:
        if scope == "finding":
            entry = store.pin_finding(sid, ident, p.category)
        else:
            entry = store.pin_session_memory(sid, ident, p.category)
    except Exception as exc:
        return CommandResult("pin", error=f"/pin: {exc}", kind="error")
    agent.events.publish("global_memory_updated", {}, session_id=sid)
    return CommandResult("pin", f"Pinned to Global Memory as {p.category}: {entry.fact}", data=entry, kind="pin")


def _remember_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("remember", argv)
    session = agent.session
    if session.private:
        return CommandResult("remember", error="/remember: this is a private session; nothing said here goes "
                             "to Global Memory (start a normal one with /reset)", kind="error")
    entry = agent.store.global_memory.set(p.fact, p.category)
    agent.events.publish("global_memory_updated", {}, session_id=session.id)
    return CommandResult("remember", f"Remembered in Global Memory as {entry.category}: {entry.fact}",
                         data=entry, kind="remember")


def _forget_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("forget", argv)
    store, sid = agent.store, agent.session.id
    if p.all_session:
        ids = [e.id for e in store.session_memory.list(sid)]
        n = store.session_memory.delete_many(sid, ids)
        agent.events.publish("session_memory_updated", {}, session_id=sid)
        return CommandResult("forget", f"Forgot {n} Session Memory entries.", data=n, kind="forget")
    targets = [resolve_id(t) for t in p.targets]
    findings = [i for s, i in targets if s == "finding"]
    session = [i for s, i in targets if s == "session"]
    glob = [i for s, i in targets if s == "global"]
    n = 0
    if findings:
        n += store.findings.delete_many(sid, findings)
        agent.events.publish("findings_updated", {}, session_id=sid)
    if session:
        n += store.session_memory.delete_many(sid, session)
        agent.events.publish("session_memory_updated", {}, session_id=sid)
    if glob:
        n += store.global_memory.delete_many(glob)
        agent.events.publish("global_memory_updated", {}, session_id=sid)
    missing = len(targets) - n
    text = f"Forgot {n} entr{'ies' if n != 1 else 'y'}." + (f" {missing} id(s) were not found." if missing else "")
    return CommandResult("forget", text, data=n, kind="forget")


def _export_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("export", argv)
    from ..bundle import BundleError

    dest = Path(p.path).expanduser() if p.path else _runtime_base()
    if not dest.is_absolute():
        dest = _runtime_base() / dest
    try:
        result = agent.export_session(dest)     # no turn starts meanwhile; the engine is reopened
    except (BundleError, OSError) as exc:
        return CommandResult("export", error=f"/export: {exc}", kind="error")
    return CommandResult("export", f"Exported this session to `{result.path}` ({result.records} records, "
                         f"{result.findings} findings).", data={"path": str(result.path)}, kind="export")


def _import_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("import", argv)
    from ..bundle import BundleError, import_session

    src = Path(p.path).expanduser()
    if not src.is_absolute():
        src = _runtime_base() / src
    if not src.is_file():
        raise ValueError(f"no bundle at {src}")
    agent.wait_idle()
    try:
        result = import_session(agent.store, src)
    except (BundleError, OSError) as exc:
        return CommandResult("import", error=f"/import: {exc}", kind="error")
    session = result.session
    return CommandResult("import", f"Imported the session **{session.title}** ({result.records} records, "
                         f"{result.findings} findings); switch to it with `%agent /session {session.title}`.",
                         data={"session": session.id}, kind="import")


def _runtime_base() -> Path:
    from .identity import base_dir

    return base_dir(_runtime().notebook_path)


def _sql_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("sql", argv)
    reply = _runtime().last_reply
    from .render import sql_of

    sqls = sql_of(reply) if reply is not None else []
    if not sqls:
        raise ValueError("the last turn ran no SQL")
    if p.index is not None:
        if p.index > len(sqls):
            raise ValueError(f"the last turn ran {len(sqls)} quer{'ies' if len(sqls) != 1 else 'y'}, not {p.index}")
        sqls = [sqls[p.index - 1]]
    return CommandResult("sql", "\n\n".join(f"```sql\n{s.strip()}\n```" for s in sqls), data=sqls, kind="sql")


def _attach_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("attach", argv)
    from . import attach as att

    try:
        metas = att.attach_paths(agent, p.paths, att.base_for(agent, _runtime().notebook_path))
    except att.AttachError as exc:
        return CommandResult("attach", error=f"/attach: {exc}", kind="error")
    att.queue(agent.session.id, metas)
    lines = [f"- {att.describe(m)}" for m in metas]
    text = (f"Attached {len(metas)} object{'s' if len(metas) != 1 else ''}; your next question carries "
            f"{'them' if len(metas) != 1 else 'it'} (`/objects` lists, `/objects delete ID` removes):\n" + "\n".join(lines))
    return CommandResult("attach", text, data=metas, kind="attach")


def _objects_cmd(agent: Any, argv: list[str]) -> CommandResult:
    p = _parsed("objects", argv)
    from . import attach as att

    store, sid = agent.store, agent.session.id
    if p.delete:
        ids = att.resolve_ids(store, sid, p.delete)
        n = sum(1 for i in ids if store.objects.delete(i))
        att.forget_pending(ids)
        return CommandResult("objects", f"Deleted {n} object{'s' if n != 1 else ''}.", data=ids, kind="objects")
    metas = store.objects.list(sid)
    if not metas:
        return CommandResult("objects", "No documents, images or reports in this session yet; attach some with "
                             "`%agent /attach PATH`.", data=[], kind="objects")
    queued = {m.id for m in att.pending(sid)}
    lines = [f"- {att.describe(m)}" + (" — goes with the next question" if m.id in queued else "") for m in metas]
    return CommandResult("objects", "\n".join(lines), data=metas, kind="objects")


#: name -> (handler, summary, usage) — the notebook's additions to the shared table
NOTEBOOK_COMMANDS: dict[str, Callable[[Any, list[str]], CommandResult]] = {
    "sessions": _sessions_cmd,
    "session": _session_cmd, "private": _private_cmd, "pin": _pin_cmd, "remember": _remember_cmd,
    "forget": _forget_cmd,
    "export": _export_cmd, "import": _import_cmd, "sql": _sql_cmd,
    "attach": _attach_cmd, "objects": _objects_cmd,
}


#: shared commands the notebook extends (``/sessions``), restored by :func:`unregister`
_core: dict[str, Command] = {}


def register() -> None:
    for command in commands():
        if command.name in NOTEBOOK_COMMANDS and command.handler is not NOTEBOOK_COMMANDS[command.name]:
            _core[command.name] = command
    for name, handler in NOTEBOOK_COMMANDS.items():
        spec = A.COMMANDS[name]
        register_command(name, handler, spec.summary[0].upper() + spec.summary[1:] + ".", spec.usage)


def unregister() -> None:
    for name in NOTEBOOK_COMMANDS:
        unregister_command(name)
    for core in _core.values():
        register_command(core.name, core.handler, core.summary, core.usage)
