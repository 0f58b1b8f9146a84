"""``shell-agent-lab sessions show|rename|export|import``.

Exit codes: 0 done; 1 failed; 2 usage; 3 no such session; 4 the input was refused (a bundle that
is not acceptable, a destination that already exists). Errors are one line on stderr.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from ..analysis.results import is_internal_name
from ._base import (EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK, EXIT_REFUSED, CommandError, iso, open_store,
                    with_store)
from .sessions import session_json as _session_json

__all__ = ["register", "resolve_session", "open_store"]


def resolve_session(store: Any, text: str) -> Any:
    """A session by exact id, else by a unique id prefix, else by exact title."""
    matches = store.sessions_named(text)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise CommandError(
            f"no session {text!r}; list them with `shell-agent-lab sessions list`", EXIT_NOT_FOUND)
    ids = ", ".join(s.id for s in matches[:5])
    raise CommandError(f"{text!r} matches {len(matches)} sessions ({ids}); give the full id",
                       EXIT_NOT_FOUND)


def _tables(db: Path) -> list[dict[str, Any]] | str:
    """Tables of an analysis database, read-only; a short reason when it cannot be read."""
    if not db.is_file():
        return []
    import duckdb

    try:
        con = duckdb.connect(str(db), read_only=True, config={"enable_external_access": False})
    except duckdb.Error as exc:
        return "in use by a kernel" if "lock" in str(exc).lower() else "unreadable"
    try:
        rows = con.execute("SELECT table_name, estimated_size, column_count FROM duckdb_tables() "
                           "WHERE NOT internal ORDER BY table_name").fetchall()
    finally:
        con.close()
    # the engine's own bookkeeping (pending-load records, half-stored tables) is not the user's
    return [{"name": n, "rows": r, "columns": c} for n, r, c in rows if not is_internal_name(n)]


def _show(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    session = resolve_session(store, args.session)
    records = store.list_records(session.id)
    db = Path(store.session_dir(session.id)) / "analysis.duckdb"
    body = _session_json(session)
    body.update({
        "records": len(records),
        "session_memory": len(store.session_memory.list(session.id)),
        "findings": len(store.findings.list(session.id)),
        "objects": len(store.objects.list(session.id)),
        "summaries": len(store.list_summaries(session.id)),
        "analysis_db": str(db) if db.is_file() else None,
        "analysis_db_bytes": db.stat().st_size if db.is_file() else 0,
        "tables": _tables(db),
    })
    if args.records:
        body["last_records"] = [
            {"seq": r.seq, "role": r.role, "content": r.content, "created_at": iso(r.created_at)}
            for r in records[-args.records:]]
    if args.json:
        json.dump(body, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return EXIT_OK
    lock = " (private)" if session.private else ""
    out.write(f"{session.title}{lock}\n")
    for key in ("id", "notebook_path", "profile", "created_at", "updated_at", "records",
                "session_memory", "findings", "objects", "summaries"):
        out.write(f"  {key.replace('_', ' '):<15} {body[key] if body[key] is not None else '-'}\n")
    tables = body["tables"]
    if isinstance(tables, str):
        out.write(f"  {'tables':<15} {tables}\n")
    else:
        listed = ", ".join(f"{t['name']} ({t['rows']} rows)" for t in tables) or "-"
        out.write(f"  {'tables':<15} {listed}\n")
    for rec in body.get("last_records", []):
        text = " ".join(rec["content"].split())
        out.write(f"  [{rec['seq']}] {rec['role']}: {text[:200]}{'…' if len(text) > 200 else ''}\n")
    return EXIT_OK


def _rename(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from ..store.errors import ValidationError

    session = resolve_session(store, args.session)
    try:
        renamed = store.rename_session(session.id, args.title)
    except ValidationError as exc:
        raise CommandError(str(exc), EXIT_REFUSED) from exc
    if args.json:
        json.dump(_session_json(renamed), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(f"renamed {renamed.id} to {renamed.title!r}\n")
    return EXIT_OK


def _export(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from ..bundle import BundleExportError, export_session

    session = resolve_session(store, args.session)
    try:
        result = export_session(store, session.id, args.path, overwrite=args.overwrite)
    except BundleExportError as exc:
        code = EXIT_REFUSED if "already exists" in str(exc) else EXIT_FAILED
        raise CommandError(str(exc), code) from exc
    if args.json:
        body = {k: (str(v) if isinstance(v, Path) else v) for k, v in result.__dict__.items()}
        json.dump(body, out, indent=2)
        out.write("\n")
    else:
        out.write(f"exported {session.title!r} to {result.path} ({result.records} records, "
                  f"{result.findings} findings, {result.objects} objects, "
                  f"{'with' if result.has_analysis_db else 'no'} analysis database)\n")
        for name in result.unfinished_tables:
            out.write(f"  table {name!r} is not in the bundle: it was still being stored when its kernel "
                      "stopped and its file is gone; load it again and export again\n")
    return EXIT_OK


def _import(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from ..bundle import BundleError, import_session

    try:
        result = import_session(store, args.path)
    except BundleError as exc:
        raise CommandError(f"{exc}", EXIT_REFUSED) from exc
    session = result.session
    if args.json:
        body = _session_json(session)
        body.update({"original_id": result.original_id, "records": result.records,
                     "session_memory": result.session_memory, "findings": result.findings,
                     "summaries": result.summaries, "objects": len(result.object_ids),
                     "tables": result.tables})
        json.dump(body, out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(f"imported {session.title!r} as {session.id} ({result.records} records, "
                  f"{result.findings} findings, {len(result.object_ids)} objects, "
                  f"{len(result.tables)} tables)\n")
    return EXIT_OK


def register(sessions: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``show``, ``rename``, ``export`` and ``import`` to the ``sessions`` command group."""
    p = sessions.add_parser("show", help="one session: ids, counts, tables",
                            description="Show one session (by id, unique id prefix or exact title).")
    p.add_argument("session", help="session id, unique id prefix, or exact title")
    p.add_argument("--records", type=int, default=0, metavar="N", help="also print the last N records")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=with_store(_show))

    p = sessions.add_parser("rename", help="rename a session (automatic titles never override it)")
    p.add_argument("session", help="session id, unique id prefix, or exact title")
    p.add_argument("title", help="the new title")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=with_store(_rename))

    p = sessions.add_parser("export", help="write a session to a .shellagent bundle",
                            description="Export a session with its records, memory, findings, "
                                        "summaries, objects and analysis database.")
    p.add_argument("session", help="session id, unique id prefix, or exact title")
    p.add_argument("path", nargs="?", default=None,
                   help="file or directory (default: <title>-YYYYMMDD-HHMMSS.shellagent here)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=with_store(_export))

    p = sessions.add_parser("import", help="add a session from a .shellagent bundle",
                            description="Import a bundle as a new session (fresh ids). A bundle "
                                        "that fails any check is refused and nothing is written.")
    p.add_argument("path", help="the .shellagent file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=with_store(_import))
