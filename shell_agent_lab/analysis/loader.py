"""Validate a user's data file and stream it into the session database.

The session connection cannot touch the file system (external access is off and its
configuration locked), so files are read by a short-lived, separate in-memory DuckDB instance
that exists only for one load. Its rows travel to the session database as an Arrow stream,
batch by batch, so a file larger than the memory limit still loads.
"""
from __future__ import annotations

import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from .errors import LoadError

__all__ = ["FileFormat", "validate_file_path", "detect_format", "open_reader", "SUPPORTED_SUFFIXES",
           "human_bytes"]

#: suffix -> format; ``.gz`` / ``.zst`` variants of the text formats are accepted too
SUPPORTED_SUFFIXES: dict[str, str] = {
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json", ".jsonl": "jsonl",
    ".ndjson": "jsonl", ".parquet": "parquet", ".pq": "parquet",
}
_COMPRESSED = (".gz", ".zst")
_BATCH_ROWS = 122_880

Progress = Callable[[str, "int | None", "int | None"], None]


@dataclass(frozen=True)
class FileFormat:
    kind: str           # csv | tsv | json | jsonl | parquet
    size: int           # bytes on disk


def human_bytes(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(size) < 1024 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"  # pragma: no cover


def validate_file_path(raw: Any, base_dir: Path | None, max_bytes: int) -> Path:
    """Resolve ``raw`` (absolute, ``~``-prefixed, or relative to ``base_dir``) to a regular file.

    Refuses empty paths, control characters, symlinks, directories, missing files and files
    over ``max_bytes``, each with one line that says what to do.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise LoadError("file_path is empty; give the path of a CSV, TSV, JSON, JSONL or Parquet file.")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in raw):
        raise LoadError("file_path contains control characters (e.g. a newline); pass the plain path.")
    path = Path(raw.strip()).expanduser()
    if not path.is_absolute():
        path = Path(base_dir if base_dir is not None else Path.cwd()) / path
    path = Path(os.path.normpath(path))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise LoadError(f"no such file: {path}") from None
    except OSError as exc:
        raise LoadError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(info.st_mode):
        raise LoadError(f"{path} is a symbolic link; load the file it points to by its real path.")
    if stat.S_ISDIR(info.st_mode):
        raise LoadError(f"{path} is a directory; give the path of one data file inside it.")
    if not stat.S_ISREG(info.st_mode):
        raise LoadError(f"{path} is not a regular file (device, pipe or socket).")
    if info.st_size > max_bytes:
        raise LoadError(f"{path.name} is {human_bytes(info.st_size)}, over the {human_bytes(max_bytes)} "
                        "load limit; load a smaller extract or raise the max_file_bytes setting.")
    if not os.access(path, os.R_OK):
        raise LoadError(f"{path} is not readable by this process; check its permissions.")
    return path


def detect_format(path: Path) -> str:
    name = path.name.lower()
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    suffix = os.path.splitext(name)[1]
    kind = SUPPORTED_SUFFIXES.get(suffix)
    if kind is None:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise LoadError(f"cannot tell the format of {path.name!r}; supported extensions: {supported} "
                        "(optionally .gz).")
    return kind


def _read_sql(kind: str, *, full_sample: bool) -> str:
    sample = ", sample_size = -1" if full_sample else ""
    if kind == "csv":
        return f"SELECT * FROM read_csv($path{sample})"
    if kind == "tsv":
        return f"SELECT * FROM read_csv($path, delim = '\\t'{sample})"
    if kind == "json":
        return f"SELECT * FROM read_json_auto($path{sample})"
    if kind == "jsonl":
        return f"SELECT * FROM read_json_auto($path, format = 'newline_delimited'{sample})"
    if kind == "parquet":
        return "SELECT * FROM read_parquet($path)"
    raise LoadError(f"unsupported format {kind!r}")  # pragma: no cover


#: memory the CSV reader's buffers need (a query over a file being stored needs it too)
READER_FLOOR = 256 * 1024 ** 2


def memory_bytes(limit: str) -> int | None:
    """A DuckDB memory limit such as ``"4GB"`` or ``"512MiB"`` in bytes; ``None`` if unset or unreadable."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]?i?B)?\s*", limit or "", re.I)
    if not match:
        return None
    units = {"": 1, "B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "TB": 1000 ** 4,
             "KIB": 1024, "MIB": 1024 ** 2, "GIB": 1024 ** 3, "TIB": 1024 ** 4}
    return int(float(match.group(1)) * units.get((match.group(2) or "").upper(), 1))


def _reader_memory(limit: str) -> str:
    """The reader's limit: the session's, but at least 256 MB for the CSV reader's buffers.

    The reader only streams (nothing accumulates), so its footprint is its buffers; the
    session database is the one that must stay inside the configured limit.
    """
    size = memory_bytes(limit)
    if size is None:
        return limit
    return limit if size >= READER_FLOOR else f"{READER_FLOOR // 1024 ** 2}MiB"


class _Reader:
    """An Arrow stream over one file, read by a private DuckDB instance."""

    def __init__(self, path: Path, kind: str, *, threads: int, memory_limit: str,
                 temp_dir: Path | None, full_sample: bool, sql: str | None = None,
                 batch_rows: int = _BATCH_ROWS) -> None:
        config: dict[str, Any] = {"autoinstall_known_extensions": False,
                                  "autoload_known_extensions": False,
                                  "python_enable_replacements": False, "threads": threads}
        if memory_limit:
            config["memory_limit"] = _reader_memory(memory_limit)
        if temp_dir is not None:
            config["temp_directory"] = str(temp_dir)
        self._conn = duckdb.connect(":memory:", config=config)
        try:
            if sql is None:
                relation = self._conn.sql(_read_sql(kind, full_sample=full_sample), params={"path": str(path)})
            else:   # a SELECT the engine wrote over this file (see the staging module)
                relation = self._conn.sql(sql)
            self.reader: pa.RecordBatchReader = relation.to_arrow_reader(batch_rows)
        except BaseException:
            self._conn.close()
            raise

    def interrupt(self) -> None:
        self._conn.interrupt()

    def close(self) -> None:
        try:
            self.reader.close()
        finally:
            self._conn.close()


def open_reader(path: Path, kind: str, *, threads: int, memory_limit: str = "",
                temp_dir: Path | None = None, full_sample: bool = False, sql: str | None = None,
                batch_rows: int = _BATCH_ROWS) -> _Reader:
    """Open the file for streaming; raises :class:`LoadError` on a file DuckDB cannot parse.

    ``sql`` replaces the default ``read_*`` call (it must read ``path`` only)."""
    try:
        return _Reader(path, kind, threads=threads, memory_limit=memory_limit, temp_dir=temp_dir,
                       full_sample=full_sample, sql=sql, batch_rows=batch_rows)
    except duckdb.Error as exc:
        raise LoadError(f"cannot read {path.name} as {kind.upper()}: {_first_line(exc)}") from exc


def counted(reader: pa.RecordBatchReader, *, progress: Progress | None,
            cancel: threading.Event | None, every_rows: int = 1_000_000) -> pa.RecordBatchReader:
    """Wrap ``reader`` so progress is reported every ``every_rows`` rows and cancel stops it."""
    def batches() -> Iterator[pa.RecordBatch]:
        rows = 0
        next_report = every_rows
        for batch in reader:
            if cancel is not None and cancel.is_set():
                raise LoadError("load cancelled")
            rows += batch.num_rows
            if progress is not None and rows >= next_report:
                progress(f"read {rows:,} rows", rows, None)
                next_report = rows + every_rows
            yield batch
    return pa.RecordBatchReader.from_batches(reader.schema, batches())


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
