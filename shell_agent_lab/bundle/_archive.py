"""Reading an untrusted ZIP archive safely.

:func:`scan` checks the archive's directory without extracting anything: entry names
(traversal, absolute paths, backslashes, drive letters, control characters, duplicates,
anything outside the bundle layout), entry types (symlinks and other special files), the
number of entries, declared sizes and compression ratios. :func:`read_bytes` and
:func:`extract` then count the bytes actually produced, so an archive whose directory lies
about sizes is stopped at the limit instead of filling the disk.
"""
from __future__ import annotations

import os
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from . import _layout
from ._limits import Limits
from .errors import InvalidBundleError

__all__ = ["Scanned", "open_archive", "scan", "read_bytes", "extract", "byte_budget"]

_CHUNK = 1024 * 1024
_ALLOWED_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
_UNIX = 3


@dataclass(frozen=True)
class Scanned:
    """The accepted entries of an archive, by kind."""

    infos: dict[str, zipfile.ZipInfo]
    object_ids: frozenset[str]
    has_db: bool
    #: ``work/`` files (not directories), relative to ``work/``
    work_files: tuple[str, ...] = ()


def open_archive(path: Path) -> zipfile.ZipFile:
    """Open ``path`` as a ZIP archive or raise :class:`InvalidBundleError`."""
    try:
        if not path.is_file():
            raise InvalidBundleError(f"{path}: no such bundle file")
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise InvalidBundleError(
            f"{path.name}: not a .shellagent bundle (not a ZIP archive, or truncated)") from exc
    except OSError as exc:
        raise InvalidBundleError(f"{path}: cannot read the bundle ({exc.strerror or exc})") from exc


def _check_name(name: str) -> None:
    shown = name.encode("unicode_escape").decode("ascii")[:120]
    if not name:
        raise InvalidBundleError("bundle has an entry with an empty name")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise InvalidBundleError(f"bundle entry {shown!r} has control characters in its name")
    if "\\" in name:
        raise InvalidBundleError(f"bundle entry {shown!r} contains a backslash; refusing it")
    if name.startswith("/") or (len(name) >= 2 and name[1] == ":" and name[0].isalpha()):
        raise InvalidBundleError(f"bundle entry {shown!r} is an absolute path; refusing it")
    parts = name.rstrip("/").split("/")
    if any(part in ("..", ".") for part in parts):
        raise InvalidBundleError(f"bundle entry {shown!r} escapes the bundle (path traversal)")
    if any(part == "" for part in parts):
        raise InvalidBundleError(f"bundle entry {shown!r} has an empty path component")


def _check_type(info: zipfile.ZipInfo) -> None:
    if info.create_system != _UNIX:
        return
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise InvalidBundleError(f"bundle entry {info.filename!r} is a symbolic link; refusing it")
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        raise InvalidBundleError(f"bundle entry {info.filename!r} is not a regular file; refusing it")


def scan(archive: zipfile.ZipFile, limits: Limits) -> Scanned:
    """Validate the archive's directory; raise :class:`InvalidBundleError` on the first problem."""
    infos = archive.infolist()
    if len(infos) > limits.max_entries:
        raise InvalidBundleError(
            f"bundle has {len(infos)} entries; at most {limits.max_entries} are accepted")
    seen: dict[str, zipfile.ZipInfo] = {}
    folded: set[str] = set()
    total = 0
    objects_total = 0
    object_ids: set[str] = set()
    work_files: list[str] = []
    for info in infos:
        name = info.filename
        _check_name(name)
        _check_type(info)
        key = name.casefold().rstrip("/")
        if name in seen or key in folded:
            raise InvalidBundleError(f"bundle has two entries named {name!r}; refusing it")
        folded.add(key)
        kind = _layout.classify(name)
        if kind is None:
            raise InvalidBundleError(f"bundle has an unexpected entry {name!r}")
        if info.flag_bits & 0x1:
            raise InvalidBundleError(f"bundle entry {name!r} is encrypted; refusing it")
        if info.compress_type not in _ALLOWED_METHODS:
            raise InvalidBundleError(
                f"bundle entry {name!r} uses an unsupported compression method ({info.compress_type})")
        if kind in ("dir", "workdir"):
            if info.file_size:
                raise InvalidBundleError(f"bundle entry {name!r} is a directory with content")
            seen[name] = info
            continue
        size = info.file_size
        cap = limits.max_json_bytes if kind == "json" else limits.max_entry_bytes
        if size > cap:
            raise InvalidBundleError(
                f"bundle entry {name!r} declares {size} bytes; the limit is {cap}")
        if size > limits.ratio_floor_bytes and size > limits.max_ratio * max(info.compress_size, 1):
            raise InvalidBundleError(
                f"bundle entry {name!r} expands {size / max(info.compress_size, 1):.0f}x "
                f"(limit {limits.max_ratio:.0f}x); refusing a likely zip bomb")
        total += size
        if total > limits.max_total_bytes:
            raise InvalidBundleError(
                f"bundle declares more than {limits.max_total_bytes} bytes in total; refusing it")
        if kind == "work":
            work_files.append(name[len(_layout.WORK_PREFIX):])
        if kind == "object":
            object_ids.add(name[len(_layout.OBJECT_DATA_PREFIX):])
            objects_total += size
            if objects_total > limits.max_object_bytes:
                raise InvalidBundleError(
                    f"bundle objects exceed {limits.max_object_bytes} bytes in total; refusing it")
        seen[name] = info
    if _layout.MANIFEST not in seen:
        raise InvalidBundleError("bundle has no manifest.json; it is not a .shellagent bundle")
    _check_work_tree(work_files, seen)
    return Scanned(infos=seen, object_ids=frozenset(object_ids), has_db=_layout.ANALYSIS_DB in seen,
                   work_files=tuple(work_files))


def _check_work_tree(files: list[str], seen: dict[str, zipfile.ZipInfo]) -> None:
    """A ``work/`` file may not also be a directory of another entry (``a`` and ``a/b``)."""
    folded = {f.casefold() for f in files}
    for name in list(files) + [n[len(_layout.WORK_PREFIX):] for n in seen
                               if n.startswith(_layout.WORK_PREFIX) and n.endswith("/")]:
        parts = name.rstrip("/").split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i]).casefold()
            if parent in folded:
                raise InvalidBundleError(
                    f"bundle entry 'work/{name}' sits under 'work/{'/'.join(parts[:i])}', which is a file")


class _Counter:
    """Shared byte budget across all extracted entries."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def take(self, name: str, n: int) -> None:
        self.used += n
        if self.used > self.limit:
            raise InvalidBundleError(
                f"bundle expands beyond {self.limit} bytes while extracting {name!r}; refusing it")


def _copy(archive: zipfile.ZipFile, info: zipfile.ZipInfo, out: BinaryIO, cap: int,
          budget: _Counter | None) -> int:
    written = 0
    try:
        with archive.open(info) as src:
            while True:
                chunk = src.read(_CHUNK)
                if not chunk:
                    break
                written += len(chunk)
                if written > info.file_size or written > cap:
                    raise InvalidBundleError(
                        f"bundle entry {info.filename!r} expands past its declared size; refusing it")
                if budget is not None:
                    budget.take(info.filename, len(chunk))
                out.write(chunk)
    except InvalidBundleError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError) as exc:
        raise InvalidBundleError(
            f"bundle entry {info.filename!r} is damaged or truncated ({exc})") from exc
    if written != info.file_size:
        raise InvalidBundleError(f"bundle entry {info.filename!r} is truncated")
    return written


def read_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes:
    """Read one entry into memory, never producing more than ``cap`` bytes."""
    import io

    buf = io.BytesIO()
    _copy(archive, info, buf, cap, None)
    return buf.getvalue()


def extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, cap: int,
            budget: "_Counter | None" = None) -> int:
    """Write one entry to ``dest`` (created 0600, must not exist) counting the bytes produced."""
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        n = _copy(archive, info, out, cap, budget)
        out.flush()
        os.fsync(out.fileno())
    return n


def byte_budget(limit: int) -> _Counter:
    """A running total shared by several :func:`extract` calls."""
    return _Counter(limit)
