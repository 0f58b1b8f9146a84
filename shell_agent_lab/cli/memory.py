"""``shell-agent-lab memory add|list|delete|export|import``.

Without ``--session`` the commands work on Global Memory (preference, decision); with
``--session ID`` on that session's memory (fact, context).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from ._base import (EXIT_NOT_FOUND, EXIT_OK, CommandError, UsageError, iso, print_json,
                    with_store, write_private_file)

__all__ = ["register", "entry_json"]

_CATEGORIES = ("preference", "decision", "fact", "context")


def entry_json(entry: Any) -> dict[str, Any]:
    return {
        "id": entry.id,
        "fact": entry.fact,
        "native_fact": entry.native_fact,
        "category": entry.category,
        "source": entry.source,
        "created_at": iso(entry.created_at),
        "state": entry.state,
        "relevance": round(entry.relevance, 4),
        "touch_count": entry.touch_count,
        "tool_originated": entry.tool_originated,
        "session_id": entry.session_id,
        "superseded_by": entry.superseded_by,
        "suggested": entry.suggested,
    }


def _require_session(store: Any, session_id: str) -> None:
    from ..store import NotFoundError

    if store.get_session(session_id) is None:
        raise NotFoundError(f"no session {session_id!r}; list them with `shell-agent-lab sessions list`")


def _add(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    if args.session is None:
        if args.category not in ("preference", "decision"):
            raise UsageError(
                f"category {args.category!r} is session-scoped: add --session ID, or use preference/decision"
            )
        result = store.global_memory.add(args.fact, args.category, source="manual")
    else:
        if args.category not in ("fact", "context"):
            raise UsageError(
                f"category {args.category!r} belongs in Global Memory: drop --session, or use fact/context"
            )
        _require_session(store, args.session)
        result = store.session_memory.add(args.session, args.fact, args.category, source="user_turn")
    if args.json:
        print_json(out, {**entry_json(result.entry), "added": bool(result.added),
                         "superseded": result.superseded})
    elif result.added:
        out.write(f"added {result.entry.id}\n")
        for old in result.superseded:
            out.write(f"superseded {old}\n")
    else:
        out.write(f"already known as {result.entry.id} (refreshed)\n")
    return EXIT_OK


def _list(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    if args.session is None:
        entries = store.global_memory.list(include_superseded=args.all)
    else:
        _require_session(store, args.session)
        entries = store.session_memory.list(args.session, include_superseded=args.all)
    if args.json:
        print_json(out, [entry_json(e) for e in entries])
        return EXIT_OK
    if not entries:
        where = f"session {args.session}" if args.session else "Global Memory"
        out.write(f"({where} is empty)\n")
    for e in entries:
        flags = " superseded" if e.superseded_by else (" suggested" if e.suggested else "")
        out.write(f"{e.id:>6}  {e.state:<8} {e.category:<10} {e.created_at:%Y-%m-%d}  "
                  f"{e.fact}{'  [' + flags.strip() + ']' if flags else ''}\n")
    return EXIT_OK


def _delete(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    if not args.ids and not args.fact:
        raise UsageError("give entry ids or --fact TEXT")
    ids = []
    for raw in args.ids:
        try:
            ids.append(int(raw))
        except ValueError:
            raise UsageError(f"{raw!r} is not an entry id (a number from `memory list`)") from None
    if args.session is None:
        deleted = store.global_memory.delete_many(ids) + store.global_memory.delete_by_facts(args.fact)
    else:
        _require_session(store, args.session)
        deleted = (store.session_memory.delete_many(args.session, ids)
                   + store.session_memory.delete_by_facts(args.session, args.fact))
    asked = len(ids) + len(args.fact)
    if args.json:
        print_json(out, {"deleted": deleted, "requested": asked, "missing": asked - deleted})
    else:
        out.write(f"deleted {deleted} of {asked}\n")
    if deleted < asked:
        raise CommandError(f"{asked - deleted} of the given entries did not exist", EXIT_NOT_FOUND)
    return EXIT_OK


def _export(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    envelope = store.global_memory.export()
    text = json.dumps(envelope, ensure_ascii=False, indent=2) + "\n"
    if args.file == "-":  # the export itself is the JSON output, with or without --json
        out.write(text)
        return EXIT_OK
    path = Path(args.file)
    if path.is_dir():
        raise UsageError(f"{path} is a directory; give a file name")
    write_private_file(path, text)
    if args.json:
        print_json(out, {"path": str(path), "entries": len(envelope["entries"])})
    else:
        out.write(f"exported {len(envelope['entries'])} entries to {path}\n")
    return EXIT_OK


def _import(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from ..store import parse_envelope

    if args.file == "-":
        text = sys.stdin.read()
    else:
        path = Path(args.file)
        if not path.is_file():
            raise CommandError(f"{path} does not exist" if not path.exists() else f"{path} is not a file")
        if path.stat().st_size > 64 * 1024 * 1024:
            raise CommandError(f"{path} is larger than 64 MiB; not a memory export")
        text = path.read_bytes()
    result = store.global_memory.import_(parse_envelope(text))
    if args.json:
        print_json(out, {"added": result.added, "merged": result.touched, "skipped": result.skipped})
    else:
        out.write(f"imported: {result.added} added, {result.touched} merged into existing, "
                  f"{result.skipped} skipped\n")
    return EXIT_OK


def register(top: "argparse._SubParsersAction") -> tuple[str, "argparse._SubParsersAction"]:
    group = top.add_parser("memory", help="Global Memory and Session Memory",
                           description="List, add, delete, export and import remembered facts.")
    sub = group.add_subparsers(dest="memory_command", metavar="SUBCOMMAND")
    sub.required = True

    p = sub.add_parser("add", help="remember a fact", description="Remember a fact. Without "
                       "--session: Global Memory (preference|decision); with it: Session Memory (fact|context).")
    p.add_argument("fact", help="the fact, one sentence")
    p.add_argument("--category", required=True, choices=_CATEGORIES)
    p.add_argument("--session", metavar="ID", help="add to this session's memory")
    p.add_argument("--json", action="store_true", help="print the entry as JSON")
    p.set_defaults(func=with_store(_add))

    p = sub.add_parser("list", help="list remembered facts (newest first)")
    p.add_argument("--session", metavar="ID", help="list this session's memory")
    p.add_argument("--all", action="store_true", help="include entries superseded by a reversal")
    p.add_argument("--json", action="store_true", help="print a JSON array")
    p.set_defaults(func=with_store(_list))

    p = sub.add_parser("delete", help="delete entries by id or by exact text")
    p.add_argument("ids", nargs="*", metavar="ID", help="entry ids from `memory list`")
    p.add_argument("--fact", action="append", default=[], metavar="TEXT",
                   help="delete the entry with exactly this text (repeatable)")
    p.add_argument("--session", metavar="ID", help="delete from this session's memory")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(func=with_store(_delete))

    p = sub.add_parser("export", help="write Global Memory to a JSON file")
    p.add_argument("file", help="destination file, or - for standard output")
    p.add_argument("--json", action="store_true", help="print the path and count as JSON")
    p.set_defaults(func=with_store(_export))

    p = sub.add_parser("import", help="merge a Global Memory JSON export (near-duplicates consolidate)")
    p.add_argument("file", help="an export file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(func=with_store(_import))
    return "memory", sub
