"""``/connect`` and ``/disconnect``: the session's connections, from the magic and the panel.

What they show is the redacted URL; the secret stays in the agent's memory."""
from __future__ import annotations

from typing import Any

from ..engines import EngineError
from .commands import CommandResult, register_command

__all__ = ["connect_command", "disconnect_command", "listing"]


def listing(agent: Any) -> list[dict[str, Any]]:
    """Each connection as the Data view shows it: name, kind, redacted URL, its tables (or why not)."""
    out = []
    for spec in agent.connections.specs():
        entry: dict[str, Any] = {"name": spec.name, "kind": spec.kind, "url": spec.redacted}
        try:
            entry["tables"] = [t.name for t in agent.connections.catalog(spec.name)]
        except EngineError as exc:
            entry["error"] = str(exc)
        out.append(entry)
    return out


def _text(entries: list[dict[str, Any]]) -> str:
    if not entries:
        return ("No connections. Add one with `%agent /connect NAME URL`, e.g. "
                "`%agent /connect pg postgresql://analyst@db:5432/sales` or `%agent /connect spark sc://cluster:15002`.")
    lines = []
    for e in entries:
        tables = (", ".join(e["tables"][:12]) + (" …" if len(e["tables"]) > 12 else "")) if "tables" in e else ""
        state = f"tables: {tables or '(none visible)'}" if "tables" in e else f"unavailable: {e['error']}"
        lines.append(f"- `{e['name']}` ({e['kind']}, `{e['url']}`) — {state}")
    return "\n".join(lines)


def connect_command(agent: Any, args: list[str]) -> CommandResult:
    if not args:
        entries = listing(agent)
        return CommandResult("connect", _text(entries), data=entries, kind="connect")
    if len(args) != 2:
        raise ValueError("give a name and a URL")
    try:
        spec = agent.connect(args[0], args[1])
        tables = [t.name for t in agent.connections.catalog(spec.name, refresh=True)]
    except EngineError as exc:
        if args[0] in agent.connections.names():
            agent.disconnect(args[0])
        return CommandResult("connect", error=f"/connect: {exc}", kind="error")
    shown = ", ".join(f"{spec.name}.{t}" for t in tables[:12]) or "(no tables visible)"
    return CommandResult("connect", f"Connected `{spec.name}` (`{spec.redacted}`, read-only). Tables: {shown}",
                         data={"name": spec.name, "kind": spec.kind, "url": spec.redacted, "tables": tables},
                         kind="connect")


def disconnect_command(agent: Any, args: list[str]) -> CommandResult:
    if len(args) != 1:
        raise ValueError("give the connection's name")
    if not agent.disconnect(args[0]):
        known = ", ".join(agent.connections.names()) or "none"
        return CommandResult("disconnect", error=f"/disconnect: no connection named {args[0]!r} (connections: {known}).",
                             kind="error")
    return CommandResult("disconnect", f"Removed the connection `{args[0]}`.", data={"name": args[0]},
                         kind="disconnect")


register_command("connect", connect_command, "List connections, or add one (postgresql:// or sc://, read-only).",
                 "/connect [NAME URL]")
register_command("disconnect", disconnect_command, "Remove a connection.", "/disconnect NAME")
