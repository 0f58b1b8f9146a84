"""``shell-agent-lab sessions list|delete`` (more sub-commands register into this group)."""
from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._base import EXIT_OK, iso, print_json, with_store

__all__ = ["register", "session_json"]


def session_json(session: Any) -> dict[str, Any]:
    return {
        "id": session.id,
        "title": session.title,
        "private": session.private,
        "notebook_path": session.notebook_path,
        "profile": session.profile,
        "title_locked": session.title_locked,
        "created_at": iso(session.created_at),
        "updated_at": iso(session.updated_at),
    }


def _list(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    sessions = store.list_sessions()
    if args.json:
        print_json(out, [session_json(s) for s in sessions])
        return EXIT_OK
    if not sessions:
        out.write("(no sessions)\n")
    for s in sessions:
        lock = " [private]" if s.private else ""
        where = f"  {s.notebook_path}" if s.notebook_path else ""
        out.write(f"{s.id}  {s.updated_at:%Y-%m-%d %H:%M}  {s.title}{lock}{where}\n")
    return EXIT_OK


def _delete(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    session = store.get_session(args.session)
    if session is None:
        from ..store import NotFoundError

        raise NotFoundError(f"no session {args.session!r}; list them with `shell-agent-lab sessions list`")
    store.delete_session(session.id)
    if args.json:
        print_json(out, {**session_json(session), "deleted": True})
    else:
        out.write(f"deleted session {session.id} ({session.title})\n")
    return EXIT_OK


def register(top: "argparse._SubParsersAction") -> tuple[str, "argparse._SubParsersAction"]:
    group = top.add_parser("sessions", help="notebook sessions",
                           description="List and manage sessions (one per notebook).")
    sub = group.add_subparsers(dest="sessions_command", metavar="SUBCOMMAND")
    sub.required = True

    p = sub.add_parser("list", help="list sessions, most recently used first")
    p.add_argument("--json", action="store_true", help="print a JSON array")
    p.set_defaults(func=with_store(_list))

    p = sub.add_parser("delete", help="delete a session and everything it owns",
                       description="Delete a session: its records, memory, findings, summaries, "
                                   "objects and analysis database.")
    p.add_argument("session", metavar="ID", help="the full session id")
    p.add_argument("--json", action="store_true", help="print the deleted session as JSON")
    p.set_defaults(func=with_store(_delete))
    return "sessions", sub
