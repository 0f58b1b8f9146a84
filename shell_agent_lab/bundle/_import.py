"""Import a ``.shellagent`` bundle as a new session, all or nothing.

Order of work:

1. read and validate the whole archive directory and every JSON section (nothing written);
2. extract the analysis database and the object blobs into a private staging directory inside
   the data dir, counting bytes against the limits; check the database;
3. inside one store transaction: create the session (fresh id, free title), register the objects
   under fresh ids, append the records and write memory, findings and summaries with every
   object reference rewritten; move the staged database into place last;
4. on any failure: roll the transaction back, remove blobs and directories created, remove the
   staging directory — the data dir is as it was.
"""
from __future__ import annotations

import contextlib
import inspect
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from . import _archive, _duckdb_file, _layout, _refs, _sections
from ._contents import Contents, read_contents
from ._limits import Limits
from ._names import unique_title
from .errors import BundleError, InvalidBundleError
from ..store.errors import ValidationError as StoreValidationError

__all__ = ["ImportResult", "import_session"]


@dataclass(frozen=True)
class ImportResult:
    session: Any
    original_id: str
    object_ids: dict[str, str] = field(default_factory=dict)
    records: int = 0
    session_memory: int = 0
    findings: int = 0
    summaries: int = 0
    tables: list[str] = field(default_factory=list)
    work_files: int = 0


@contextlib.contextmanager
def _transaction(store: Any) -> Iterator[None]:
    begin = getattr(store, "transaction", None)
    if begin is None:  # compensation in import_session undoes the writes
        yield
        return
    with begin():
        yield


def _stage(archive: zipfile.ZipFile, contents: Contents, staging: Path, limits: Limits) -> list[str]:
    budget = _archive.byte_budget(limits.max_total_bytes)
    tables: list[str] = []
    if contents.scanned.has_db:
        info = contents.scanned.infos[_layout.ANALYSIS_DB]
        db = staging / _layout.ANALYSIS_DB
        _archive.extract(archive, info, db, limits.max_entry_bytes, budget)
        tables = _duckdb_file.check_imported(db)
    objects = staging / "objects"
    objects.mkdir(mode=0o700)
    for item in contents.objects:
        info = contents.scanned.infos[_layout.OBJECT_DATA_PREFIX + item["id"]]
        _archive.extract(archive, info, objects / item["id"], limits.max_entry_bytes, budget)
    work = staging / "work"
    for rel in contents.scanned.work_files:
        target = work.joinpath(*rel.split("/"))
        _private_dirs(work, target.parent)
        info = contents.scanned.infos[_layout.WORK_PREFIX + rel]
        _archive.extract(archive, info, target, limits.max_entry_bytes, budget)
    return tables


def _private_dirs(root: Path, leaf: Path) -> None:
    """Create ``root`` and the directories down to ``leaf`` as real 0700 directories."""
    current = root
    for part in ("", *leaf.relative_to(root).parts):
        current = current / part if part else current
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            raise InvalidBundleError(f"bundle work path {current.name!r} collides with a file")
        current.mkdir(mode=0o700, exist_ok=True)


def _summary_entry(item: dict[str, Any], mapping: dict[str, str]) -> Any:
    from ..store.models import SummaryEntry

    return SummaryEntry(
        key=item["key"], kind=item.get("kind") or "summary", tier=item.get("tier") or "",
        summarizer_id=item.get("summarizer_id") or "",
        from_ts=_sections.parse_time(item.get("from_ts"), "summary from_ts"),
        to_ts=_sections.parse_time(item.get("to_ts"), "summary to_ts"),
        record_count=item.get("record_count", 0),
        summary=_refs.rewrite_text(item["summary"], mapping),
        created_at=_sections.parse_time(item.get("created_at"), "summary created_at"),
    )


def _time_keeper(method: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """For items written through ``method``: ``{"created_at": <original time>}`` when the store
    method can keep it, else ``{}`` (the signature is inspected once per method)."""
    try:
        accepts = "created_at" in inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        accepts = False

    def keep(item: dict[str, Any]) -> dict[str, Any]:
        if not accepts or not item.get("created_at"):
            return {}
        return {"created_at": _sections.parse_time(item["created_at"], "created_at")}
    return keep


def _by_time(item: dict[str, Any]) -> Any:
    return _sections.parse_time(item["created_at"], "created_at")


def _notebook_path(store: Any, path: str | None) -> str | None:
    """Keep the notebook binding only when no existing session already claims that notebook."""
    if not path:
        return None
    return None if store.find_session(path) is not None else path


def _write(store: Any, contents: Contents, staging: Path, created: dict[str, Any]) -> ImportResult:
    manifest = contents.manifest
    title = unique_title(manifest.title, (s.title for s in store.list_sessions()))
    session = store.create_session(
        title=title, notebook_path=_notebook_path(store, manifest.notebook_path),
        private=manifest.private, profile=manifest.profile)
    created["session"] = session
    mapping: dict[str, str] = {}
    for item in contents.objects:
        data = (staging / "objects" / item["id"]).read_bytes()
        meta = store.objects.put(session.id, data, type=item["type"],
                                 mime_type=item.get("mime_type") or "", name=item.get("name") or "")
        created.setdefault("objects", []).append(meta.id)
        mapping[item["id"]] = meta.id
    record_time = _time_keeper(store.append_record)
    for rec in sorted(contents.records, key=lambda r: r["seq"]):
        store.append_record(
            session.id, rec["role"], _refs.rewrite_text(rec["content"], mapping),
            tool_name=rec.get("tool_name"), tool_call_id=rec.get("tool_call_id"),
            tool_calls=_refs.rewrite_json(rec.get("tool_calls"), mapping),
            status=rec.get("status"), meta=_imported_meta(_refs.rewrite_json(rec.get("meta"), mapping)),
            **record_time(rec))
    memory = 0
    memory_time = _time_keeper(store.session_memory.add)
    for entry in sorted(contents.session_memory, key=_by_time):
        if entry.get("superseded_by") is not None:
            continue  # history of the source session; the current entry carries the fact
        extra = {"suggested": True} if entry.get("suggested") is True else {}
        extra.update(memory_time(entry))
        added_entry = store.session_memory.add(
            session.id, _refs.rewrite_text(entry["fact"], mapping), entry["category"],
            source=entry.get("source") or "user_turn",
            native_fact=_refs.rewrite_text(entry.get("native_fact") or "", mapping),
            tool_originated=bool(entry.get("tool_originated", False)), **extra)
        memory += bool(getattr(added_entry, "added", True))
    findings = 0
    finding_time = _time_keeper(store.findings.add)
    for item in sorted(contents.findings, key=_by_time):
        added = store.findings.add(
            session.id, _refs.rewrite_text(item["content"], mapping), tags=tuple(item.get("tags", ())),
            source=item.get("source") or "llm_promoted",
            tool_originated=bool(item.get("tool_originated", False)),
            **finding_time(item))
        findings += added is not None
    for item in contents.summaries:
        store.put_summary(session.id, _summary_entry(item, mapping))
    return ImportResult(session=session, original_id=manifest.original_id, object_ids=mapping,
                        records=len(contents.records), session_memory=memory, findings=findings,
                        summaries=len(contents.summaries))


def _undo(store: Any, created: dict[str, Any], db_dest: Path | None, fresh_dirs: list[Path]) -> None:
    data_dir = Path(store.data_dir)
    for object_id in created.get("objects", ()):
        with contextlib.suppress(OSError):
            (data_dir / "objects" / object_id).unlink()
        with contextlib.suppress(Exception):
            store.objects.delete(object_id)
    session = created.get("session")
    if session is not None:
        with contextlib.suppress(Exception):
            if store.get_session(session.id) is not None:
                store.delete_session(session.id)
        with contextlib.suppress(OSError):
            shutil.rmtree(Path(store.session_dir(session.id)))
    if db_dest is not None:
        with contextlib.suppress(OSError):
            db_dest.unlink()
    for directory in fresh_dirs:  # created by this import and now empty again
        with contextlib.suppress(OSError):
            directory.rmdir()


def import_session(store: Any, bundle: Path | str, *, limits: Limits | None = None) -> ImportResult:
    """Import ``bundle`` as a new session; raise :class:`InvalidBundleError` with nothing written.

    Waiting for the agent to be idle is the caller's job.
    """
    limits = limits or Limits()
    path = Path(bundle).expanduser()
    with _archive.open_archive(path) as archive:
        contents = read_contents(archive, limits)
        data_dir = Path(store.data_dir)
        fresh_dirs = [d for d in (data_dir / "sessions", data_dir / "objects") if not d.exists()]
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=data_dir))
        created: dict[str, Any] = {}
        db_dest: Path | None = None
        try:
            tables = _stage(archive, contents, staging, limits)
            with _transaction(store):
                result = _write(store, contents, staging, created)
                session_dir = Path(store.session_dir(result.session.id))
                if contents.scanned.work_files:
                    work_dest = session_dir / "work"
                    if work_dest.exists():
                        raise BundleError(f"{work_dest} already exists; refusing to overwrite it")
                    os.replace(staging / "work", work_dest)
                if contents.scanned.has_db:
                    db_dest = session_dir / _layout.ANALYSIS_DB
                    if db_dest.exists():
                        raise BundleError(f"{db_dest} already exists; refusing to overwrite it")
                    os.replace(staging / _layout.ANALYSIS_DB, db_dest)
        except BaseException as exc:
            _undo(store, created, db_dest, fresh_dirs)
            if isinstance(exc, StoreValidationError):
                raise InvalidBundleError(f"{path.name}: {exc}; nothing was imported") from exc
            if isinstance(exc, (OSError, zipfile.BadZipFile)) and not isinstance(exc, BundleError):
                raise InvalidBundleError(f"{path.name}: import failed and was rolled back ({exc})") from exc
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return ImportResult(**{**result.__dict__, "tables": tables,
                           "work_files": len(contents.scanned.work_files)})


def _imported_meta(meta: Any) -> dict[str, Any]:
    """Mark a record as coming from a bundle: its "user" text was not typed by this user, so
    the Global-Memory gate never takes it as the user's own words."""
    out = dict(meta) if isinstance(meta, dict) else ({"original_meta": meta} if meta is not None else {})
    out["imported"] = True
    return out
