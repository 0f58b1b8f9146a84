"""Slash commands the notebook adds to the shared command table (``agent.commands``).

``/session NAME``, ``/private``, ``/pin``, ``/remember``, ``/forget``, ``/export``, ``/import`` and ``/sql``
work from the magic and, through the same table, from the side panel. Arguments are parsed
by :mod:`.args` so both doors give the same usage errors.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..agent.commands import CommandResult, register_command, unregister_command
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


#: name -> (handler, summary, usage) — the notebook's additions to the shared table
NOTEBOOK_COMMANDS: dict[str, Callable[[Any, list[str]], CommandResult]] = {
    "session": _session_cmd, "private": _private_cmd, "pin": _pin_cmd, "remember": _remember_cmd,
    "forget": _forget_cmd,
    "export": _export_cmd, "import": _import_cmd, "sql": _sql_cmd,
}


def register() -> None:
    for name, handler in NOTEBOOK_COMMANDS.items():
        spec = A.COMMANDS[name]
        register_command(name, handler, spec.summary[0].upper() + spec.summary[1:] + ".", spec.usage)


def unregister() -> None:
    for name in NOTEBOOK_COMMANDS:
        unregister_command(name)
