"""Slash commands shared by the magic and the side panel.

Each command returns a :class:`CommandResult`: a Markdown ``text`` any front door can show, plus
structured ``data`` that richer front doors render (tables, widgets). Front doors add their own
commands with :func:`register_command` (``/session``, ``/private``, ``/sql``, ``/export`` …).
"""
from __future__ import annotations

import re
import shlex
import threading
from dataclasses import dataclass
from typing import Any, Callable

from ..llm.errors import LLMError
from ..tools.extensions import Extensions

__all__ = ["CommandResult", "Command", "register_command", "unregister_command", "commands",
           "is_command", "run_command", "parse_command"]

_NAME = re.compile(r"^/([a-z][a-z0-9_-]*)(?:\s|$)", re.IGNORECASE)


@dataclass
class CommandResult:
    name: str
    text: str = ""
    data: Any = None
    error: str | None = None
    #: what kind of payload ``data`` is, for renderers: help | model | profile | findings | memory |
    #: data | sessions | reset | stop | …
    kind: str = ""


Handler = Callable[[Any, list[str]], CommandResult]


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    summary: str
    usage: str = ""


_lock = threading.Lock()
_commands: dict[str, Command] = {}


def register_command(name: str, handler: Handler, summary: str, usage: str = "") -> None:
    """Add (or replace) ``/name``. The handler gets the agent and the argument words."""
    key = name.lstrip("/").lower()
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", key):
        raise ValueError(f"invalid command name {name!r}")
    with _lock:
        _commands[key] = Command(key, handler, summary, usage or f"/{key}")


def unregister_command(name: str) -> bool:
    with _lock:
        return _commands.pop(name.lstrip("/").lower(), None) is not None


def commands() -> list[Command]:
    with _lock:
        return [_commands[k] for k in sorted(_commands)]


def is_command(text: str) -> bool:
    """``/word …`` is a command; ``/path/to/file …`` is an ordinary message."""
    stripped = text.strip()
    m = _NAME.match(stripped)
    return m is not None and "/" not in stripped[1:m.end()].strip()


def parse_command(text: str) -> tuple[str, list[str]]:
    body = text.strip()[1:]
    try:
        words = shlex.split(body)
    except ValueError:
        words = body.split()
    return (words[0].lower() if words else ""), words[1:]


def run_command(agent: Any, text: str) -> CommandResult:
    """Run one slash command; unknown ones get an error that lists the known ones."""
    name, args = parse_command(text)
    with _lock:
        command = _commands.get(name)
    if command is None:
        known = ", ".join(f"/{c.name}" for c in commands())
        return CommandResult(name, error=f"Unknown command /{name}. Commands: {known} (/help explains them).",
                             kind="error")
    try:
        result = command.handler(agent, args)
    except (KeyError, ValueError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        return CommandResult(name, error=f"/{name}: {message}. Usage: {command.usage}", kind="error")
    except (RuntimeError, LLMError) as exc:
        return CommandResult(name, error=f"/{name}: {exc}", kind="error")
    result.name = result.name or name
    return result


# -- the core commands ------------------------------------------------------------------------
def _help(agent: Any, args: list[str]) -> CommandResult:
    rows = [(c.usage, c.summary) for c in commands()]
    lines = ["| Command | What it does |", "|---|---|"] + [f"| `{u}` | {s} |" for u, s in rows]
    return CommandResult("help", "\n".join(lines), data=[{"usage": u, "summary": s} for u, s in rows], kind="help")


def _model(agent: Any, args: list[str]) -> CommandResult:
    if args:
        backend = agent.set_model(args[0])
        return CommandResult("model", f"Model: `{backend.identity}`",
                             data={"backend": backend.name, "model": backend.model}, kind="model")
    backend = agent.backend
    profile = agent.profile
    return CommandResult("model", f"Model: `{backend.identity}`" + (f" (profile `{profile}`)" if profile else ""),
                         data={"backend": backend.name, "model": backend.model, "profile": profile}, kind="model")


def _status(agent: Any, args: list[str]) -> CommandResult:
    backend = agent.backend
    sharing = agent.data_sharing_status()
    lines = [f"Model: `{backend.identity}`" + (f" (profile `{agent.profile}`)" if agent.profile else ""),
             f"State: {agent.state}", f"Data sharing: **{sharing['level']}** — {sharing['text']}"]
    return CommandResult("status", "\n\n".join(lines),
                         data={"backend": backend.name, "model": backend.model, "profile": agent.profile,
                               "state": str(agent.state), "data_sharing": sharing}, kind="status")


def _profile(agent: Any, args: list[str]) -> CommandResult:
    settings = agent.settings
    if args:
        name = args[0]
        backend = agent.set_profile(name)
        return CommandResult("profile", f"This session now uses profile `{name}` (`{backend.identity}`).",
                             data={"profile": name, "backend": backend.name, "model": backend.model},
                             kind="profile")
    current = agent.profile
    names = sorted(settings.profiles)
    if not names:
        return CommandResult("profile", "No profiles are configured. Add some with "
                             '`%config ShellAgent.profiles = {"work": {"backend": "openai", "model": "gpt-4o-mini"}}`.',
                             data={"current": current, "profiles": []}, kind="profile")
    lines = []
    for n in names:
        mark = "●" if n == current else "○"
        default = " (default)" if n == settings.profile else ""
        lines.append(f"- {mark} `{n}`{default}")
    return CommandResult("profile", "\n".join(lines), data={"current": current, "profiles": names}, kind="profile")


def _findings(agent: Any, args: list[str]) -> CommandResult:
    items = agent.store.findings.list(agent.session.id)
    if not items:
        return CommandResult("findings", "No findings in this session yet.", data=[], kind="findings")
    lines = [f"- `{f.id}` {f.content}" + (f" _[{', '.join(f.tags)}]_" if f.tags else "") for f in items]
    return CommandResult("findings", "\n".join(lines), data=items, kind="findings")


def _memory(agent: Any, args: list[str]) -> CommandResult:
    store, sid = agent.store, agent.session.id
    glob, sess = store.global_memory.list(), store.session_memory.list(sid)
    parts = ["**Global Memory**"] + ([f"- [{e.category}] {e.fact}" for e in glob] or ["- (empty)"])
    parts += ["", "**Session Memory**"] + ([f"- [{e.category}] {e.fact}" for e in sess] or ["- (empty)"])
    return CommandResult("memory", "\n".join(parts), data={"global": glob, "session": sess}, kind="memory")


def _data(agent: Any, args: list[str]) -> CommandResult:
    engine = agent.engine()
    if engine is None:
        reason = agent.engine_error
        text = (f"The analysis database of this session could not be opened ({reason})." if reason
                else "No analysis engine in this session.")
        return CommandResult("data", text, data=[], kind="data", error=None)
    try:
        engine.refresh_dataframes()
    except Exception:
        pass
    tables = engine.tables()
    if not tables:
        return CommandResult("data", "No tables or DataFrames yet. Load a file or create a DataFrame.",
                             data=[], kind="data")
    lines = [f"- `{t.name}` ({t.kind}, {t.rows} rows): " + ", ".join(f"{c[0]} {c[1]}" for c in t.columns)
             for t in tables]
    return CommandResult("data", "\n".join(lines), data=tables, kind="data")


def _sessions(agent: Any, args: list[str]) -> CommandResult:
    items = agent.store.list_sessions()
    current = agent.session.id
    lines = []
    for s in items:
        mark = "●" if s.id == current else "○"
        lock = " 🔒" if s.private else ""
        where = f" — {s.notebook_path}" if s.notebook_path else ""
        lines.append(f"- {mark} {s.title}{lock}{where} (`{s.id}`)")
    return CommandResult("sessions", "\n".join(lines) or "No sessions.", data=items, kind="sessions")


def _reset(agent: Any, args: list[str]) -> CommandResult:
    old = agent.session
    new = agent.new_session()
    return CommandResult("reset", f"Started a new conversation (`{new.id}`); the previous one is kept in /sessions.",
                         data={"previous": old.id, "session": new.id}, kind="reset")


def _stop(agent: Any, args: list[str]) -> CommandResult:
    state = agent.state
    agent.abort()
    text = "Stopped." if str(state) != "READY" else "Nothing is running."
    return CommandResult("stop", text, data={"previous_state": str(state)}, kind="stop")


def _state_text(status: dict[str, Any]) -> str:
    if status["alive"]:
        return "running"
    if status["pending"]:
        return "not started yet (starts with the next message)"
    if status["restart_on_use"]:
        return "stopped after a call timed out or was stopped (starts again on its next call)"
    return "stopped"


def _tools(agent: Any, words: list[str]) -> CommandResult:
    ext: Extensions | None = getattr(agent, "extensions", None)
    if ext is not None:
        ext.start_servers()         # the listing shows what the next turn offers
    if words[:1] == ["reload"]:
        if ext is None:
            return CommandResult("tools", error="script tools are not set up in this kernel")
        names = ext.reload_scripts()
        return CommandResult("tools", text=f"Reloaded {len(names)} script tool(s): {', '.join(names) or 'none'}",
                             kind="tools")
    rows = []
    for d in agent.registry.all():
        rows.append({"name": d.name, "category": d.category, "source": d.source,
                     "approval": agent.gate.required(d) if getattr(agent, "gate", None) is not None
                     else d.approval_default, "description": d.description.splitlines()[0][:80]})
    lines = ["| tool | category | source | asks first |", "|---|---|---|---|"]
    lines += [f"| `{r['name']}` | {r['category']} | {r['source']} | {'yes' if r['approval'] else 'no'} |"
              for r in rows]
    return CommandResult("tools", text="\n".join(lines), data=rows, kind="tools")


def _mcp(agent: Any, words: list[str]) -> CommandResult:
    ext: Extensions | None = getattr(agent, "extensions", None)
    problem = ext.errors.get("configuration") if ext is not None else None
    note = f"\n\nThe MCP configuration was not applied: {problem}" if problem else ""
    if ext is None or not ext.servers:
        return CommandResult("mcp", text="No MCP servers are configured for this profile (set "
                             "`ShellAgent.mcp_servers`, or a profile's `mcp_servers`)." + note,
                             kind="mcp", data=[])
    if words[:1] == ["restart"] and len(words) == 2:
        try:
            return CommandResult("mcp", text=ext.restart(words[1]), kind="mcp", data=ext.status())
        except KeyError as exc:
            return CommandResult("mcp", error=str(exc.args[0]))
    if words:
        return CommandResult("mcp", error="usage: /mcp  or  /mcp restart NAME")
    status = ext.status()
    lines = [f"- **{s['name']}**: {_state_text(s)}, {len(s['tools'])} tool(s)"
             + (f" — {s['error'].splitlines()[0]}" if s["error"] else "") for s in status]
    return CommandResult("mcp", text="\n".join(lines) + note, data=status, kind="mcp")


register_command("help", _help, "List the commands.")
register_command("model", _model, "Show the model, or switch it within the current profile.", "/model [name]")
register_command("status", _status, "The model, the state, and where data goes (data sharing).")
register_command("profile", _profile, "List profiles, or bind this session to one.", "/profile [name]")
register_command("findings", _findings, "List this session's Findings.")
register_command("memory", _memory, "Show Global Memory and this session's memory.")
register_command("data", _data, "List the tables and DataFrames the assistant can query.")
register_command("sessions", _sessions, "List all sessions.")
register_command("reset", _reset, "Start a new conversation for this notebook (the old one is kept).")
register_command("stop", _stop, "Stop the running answer and clear the queue.")
register_command("tools", _tools, "List the tools the model may call; `/tools reload` rereads scripts",
                 "/tools [reload]")
register_command("mcp", _mcp, "MCP servers and their state; `/mcp restart NAME`", "/mcp [restart NAME]")
