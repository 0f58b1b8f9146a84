"""Make a large file queryable at once, and store it into the session database in the background.

``load_data`` on a large CSV, TSV or Parquet file does not wait for the file to be copied into
the session database. Instead:

1. the file is hard-linked into the session's *staging directory* (``<database>.files/``), the
   one directory the sealed session connection may read (DuckDB's ``allowed_directories``,
   set before external access is switched off and the configuration locked; DuckDB resolves
   symbolic links, so only real files placed there by this module are readable);
2. the table name becomes a view over the linked file, with the column types sniffed once, so
   the next query already answers from the file. The view is temporary (it lives in the
   session connection, never in the database file), so a copy of the file, e.g. in an exported
   bundle, holds no view that reads a file;
3. a background builder streams the file into a hidden table in chunks, yielding to every
   query between chunks, then swaps it in for the view in one transaction.

A pending load is recorded in the database (table ``_sal_loads``) so a kernel restart in the
middle resumes it. The record holds a random token, never a path: the linked file is always
``<staging directory>/<token><suffix>``, so a foreign database file cannot point the builder at
another file. The hard link keeps the data the user approved even if the original is deleted
or replaced; a file changed in place while it is being stored is read again.

Pure helpers live here; the threads and the catalogue changes are in :mod:`.background_store`.
"""
from __future__ import annotations

import os
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from .results import INTERNAL_PREFIX

__all__ = ["LOADS_TABLE", "BUILD_PREFIX", "SUFFIXES", "Job", "stage_dir_for", "new_token", "link_path",
           "valid_token", "estimate_rows", "chunks", "sql_literal"]

LOADS_TABLE = f"{INTERNAL_PREFIX}loads"
BUILD_PREFIX = f"{INTERNAL_PREFIX}build_"
#: formats that can be queried in place, and the suffix the linked file keeps (it picks the reader)
SUFFIXES = {"csv": ".csv", "tsv": ".tsv", "parquet": ".parquet"}
_TOKEN = re.compile(r"^[0-9a-f]{32}$")

#: one chunk of the background copy: DuckDB appends it in parallel; the copy yields between chunks
CHUNK_ROWS = 1_000_000
CHUNK_BYTES = 96 * 1024 ** 2
BATCH_ROWS = 122_880


@dataclass
class Job:
    """One file being stored in the background."""

    name: str                     # the table's name, as the user spelt it
    token: str
    kind: str                     # csv | tsv | parquet
    link: Path
    size: int
    mtime_ns: int
    estimated_rows: int
    rows_exact: bool = False
    select: str = ""              # the SELECT over the linked file (the view's definition)
    full_sample: bool = False     # column types were sniffed from the whole file
    stop: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    cursor: Any = None            # the builder's connections, so a stop can interrupt them
    reader: Any = None
    samples: dict[str, list[str]] | None = None
    description: str = ""        # set while loading; the swap puts it on the table

    @property
    def key(self) -> str:
        return self.name.lower()

    def unchanged(self) -> bool:
        """The linked file still has the size and modification time it had when loaded."""
        try:
            info = os.stat(self.link)
        except OSError:
            return False
        return info.st_size == self.size and info.st_mtime_ns == self.mtime_ns


def stage_dir_for(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".files")


def new_token() -> str:
    return uuid.uuid4().hex


def valid_token(token: Any) -> bool:
    return isinstance(token, str) and bool(_TOKEN.match(token))


def link_path(stage: Path, token: str, kind: str) -> Path:
    if not valid_token(token) or kind not in SUFFIXES:
        raise ValueError("invalid staged load record")
    return stage / f"{token}{SUFFIXES[kind]}"


def sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def estimate_rows(path: Path, size: int, *, sample_bytes: int = 4 * 1024 ** 2, probes: int = 8) -> int:
    """Rows of a delimited text file: exact when it is small, else extrapolated from the line
    lengths in ``probes`` slices spread over the file (line lengths often grow down a file)."""
    try:
        with open(path, "rb") as fh:
            if size <= sample_bytes:
                data = fh.read()
                lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
                return max(0, lines - 1)
            step = sample_bytes // probes
            lines = spanned = 0
            for i in range(probes):
                fh.seek((size - step) * i // max(1, probes - 1))
                block = fh.read(step)
                first, last = block.find(b"\n"), block.rfind(b"\n")
                if first < 0 or last <= first:
                    continue
                lines += block.count(b"\n", first + 1, last + 1)
                spanned += last - first
    except OSError:
        return 0
    if not lines or not spanned:
        return 0
    return max(0, round(size * lines / spanned) - 1)


def chunks(reader: pa.RecordBatchReader, *, rows: int = CHUNK_ROWS, max_bytes: int = CHUNK_BYTES,
           before_batch: Callable[[], None] | None = None) -> Iterator[pa.Table]:
    """Group ``reader``'s batches into tables of about ``rows`` rows (or ``max_bytes``).

    ``before_batch`` runs before each batch is read (reading one parses the file)."""
    pending: list[pa.RecordBatch] = []
    count = size = 0
    batches = iter(reader)
    while True:
        if before_batch is not None:
            before_batch()
        batch = next(batches, None)
        if batch is None:
            break
        if batch.num_rows == 0:
            continue
        pending.append(batch)
        count += batch.num_rows
        size += batch.nbytes
        if count >= rows or size >= max_bytes:
            yield pa.Table.from_batches(pending, schema=reader.schema)
            pending, count, size = [], 0, 0
    if pending:
        yield pa.Table.from_batches(pending, schema=reader.schema)
