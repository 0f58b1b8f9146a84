"""``shell-agent-lab findings list --session ID``."""
from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._base import EXIT_OK, iso, print_json, with_store

__all__ = ["register", "finding_json"]


def finding_json(finding: Any) -> dict[str, Any]:
    return {
        "id": finding.id,
        "content": finding.content,
        "category": "finding",
        "source": finding.source,
        "created_at": iso(finding.created_at),
        "created_label": finding.created_label,
        "tags": list(finding.tags),
        "tool_originated": finding.tool_originated,
        "session_id": finding.session_id,
    }


def _list(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    if store.get_session(args.session) is None:
        from ..store import NotFoundError

        raise NotFoundError(f"no session {args.session!r}; list them with `shell-agent-lab sessions list`")
    findings = store.findings.list(args.session)
    if args.json:
        print_json(out, [finding_json(f) for f in findings])
        return EXIT_OK
    if not findings:
        out.write("(no findings)\n")
    for f in findings:
        tags = f"  [{', '.join(f.tags)}]" if f.tags else ""
        out.write(f"{f.id}  {f.content}{tags}\n")
    return EXIT_OK


def register(top: "argparse._SubParsersAction") -> tuple[str, "argparse._SubParsersAction"]:
    group = top.add_parser("findings", help="analysis findings of a session")
    sub = group.add_subparsers(dest="findings_command", metavar="SUBCOMMAND")
    sub.required = True
    p = sub.add_parser("list", help="list a session's findings, oldest first")
    p.add_argument("--session", required=True, metavar="ID")
    p.add_argument("--json", action="store_true", help="print a JSON array")
    p.set_defaults(func=with_store(_list))
    return "findings", sub
