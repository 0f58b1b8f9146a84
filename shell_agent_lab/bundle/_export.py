"""Export one session to a ``.shellagent`` bundle."""
from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from .._version import __version__
from . import _duckdb_file, _layout, _sections
from ._names import default_filename
from .errors import BundleExportError

__all__ = ["ExportResult", "export_session", "analysis_db_path"]

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class ExportResult:
    path: Path
    session_id: str
    records: int
    session_memory: int
    findings: int
    summaries: int
    objects: int
    has_analysis_db: bool
    size: int
    work_files: int = 0
    #: tables a stopped kernel was still storing whose files are gone: not in the bundle
    unfinished_tables: tuple[str, ...] = ()


def analysis_db_path(store: Any, session_id: str) -> Path:
    """Where the session's analysis database lives (see the store contract)."""
    return Path(store.session_dir(session_id)) / _layout.ANALYSIS_DB


def _now(clock: Clock | None) -> datetime:
    return (clock or (lambda: datetime.now(timezone.utc)))()


def _plain(obj: Any, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    body = dataclasses.asdict(obj) if dataclasses.is_dataclass(obj) else dict(obj)
    for key in drop:
        body.pop(key, None)
    return _sections.to_jsonable(body)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")


def _resolve_dest(dest: Path | str | None, title: str, session_id: str, when: datetime) -> Path:
    name = default_filename(title, session_id, when)
    if dest is None:
        return Path.cwd() / name
    path = Path(dest).expanduser()
    if path.is_dir():
        return path / name
    if path.suffix != _layout.SUFFIX:
        path = path.with_name(path.name + _layout.SUFFIX)
    return path


def _work_files(work: Path) -> list[tuple[Path, str]]:
    """Regular files under the session's ``work/`` folder as (path, bundle name); symlinks and
    special files are left out, and nothing outside the folder is followed."""
    if not work.is_dir() or work.is_symlink():
        return []
    found: list[tuple[Path, str]] = []
    for dirpath, dirnames, filenames in os.walk(work, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not (Path(dirpath) / d).is_symlink())
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            rel = path.relative_to(work).as_posix()
            found.append((path, _layout.WORK_PREFIX + rel))
    return found


def _list_memory(store: Any, session_id: str) -> list[Any]:
    try:
        return list(store.session_memory.list(session_id, include_superseded=True))
    except TypeError:  # a store without the history flag
        return list(store.session_memory.list(session_id))


def export_session(store: Any, session_id: str, dest: Path | str | None = None, *,
                   overwrite: bool = False, clock: Clock | None = None) -> ExportResult:
    """Write ``session_id`` to one ``.shellagent`` file and return what was written.

    ``dest`` may be a file path, an existing directory (the default file name is used inside
    it) or None (the current directory). The file appears atomically: it is written under a
    temporary name beside the destination and renamed into place, so a failure leaves nothing.
    Waiting for the agent to be idle, and closing an engine that has the session's database
    open, is the caller's job (see :func:`export_active_session`).
    """
    session = store.get_session(session_id)
    if session is None:
        raise BundleExportError(
            f"no session {session_id!r}; list them with `shell-agent-lab sessions list`")
    when = _now(clock)
    path = _resolve_dest(dest, session.title, session.id, when)
    if path.exists() and not overwrite:
        raise BundleExportError(f"{path} already exists; choose another name or remove it first")
    if not path.parent.is_dir():
        raise BundleExportError(f"{path.parent} is not a directory")

    records = [_plain(r, ("id", "session_id")) for r in store.list_records(session_id)]
    memory = [_plain(m, ("session_id",)) for m in _list_memory(store, session_id)]
    findings = [_plain(f, ("session_id",)) for f in store.findings.list(session_id)]
    lister = getattr(store, "list_summaries", None)
    summaries = [_plain(s) for s in lister(session_id)] if lister else []
    metas = list(store.objects.list(session_id))
    index = [
        {"id": m.id, "type": m.type, "mime_type": m.mime_type, "name": m.name, "size": m.size,
         "created_at": _sections.to_jsonable(m.created_at)}
        for m in metas
    ]
    from ..engines.usage import used_names
    manifest = _sections.build_manifest(session=session, exported_at=when, app_version=__version__,
                                        connections=used_names(Path(store.session_dir(session_id))))

    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    db_src = analysis_db_path(store, session_id)
    work = _work_files(Path(store.session_dir(session_id)) / "work")
    db_copy: Path | None = None
    unfinished: tuple[str, ...] = ()
    try:
        if db_src.is_file():
            unfinished = _duckdb_file.finish_pending_stores(db_src)
            db_copy = tmp.with_suffix(".duckdb")
            _duckdb_file.snapshot(db_src, db_copy)
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(_layout.MANIFEST, _dumps(manifest))
            zf.writestr(_layout.RECORDS, _dumps(records))
            zf.writestr(_layout.SESSION_MEMORY, _dumps(memory))
            zf.writestr(_layout.FINDINGS, _dumps(findings))
            zf.writestr(_layout.SUMMARIES, _dumps(summaries))
            zf.writestr(_layout.OBJECT_INDEX, _dumps(index))
            for meta in metas:
                _, data = store.objects.get(meta.id)
                zf.writestr(_layout.OBJECT_DATA_PREFIX + meta.id, data)
            if db_copy is not None:
                zf.write(db_copy, _layout.ANALYSIS_DB)
            for src, name in work:
                zf.write(src, name)
        os.chmod(tmp, 0o600)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        if db_copy is not None:
            db_copy.unlink(missing_ok=True)
    return ExportResult(
        path=path, session_id=session_id, records=len(records), session_memory=len(memory),
        findings=len(findings), summaries=len(summaries), objects=len(metas),
        has_analysis_db=db_copy is not None, size=path.stat().st_size, work_files=len(work),
        unfinished_tables=unfinished,
    )
