"""Limits and knobs of the analysis engine (plain data; the agent maps its config onto it)."""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

__all__ = ["AnalysisSettings"]

#: DuckDB's own default for ``perfect_ht_threshold`` (group keys spanning up to 2^12 values)
_PERFECT_HASH_MIN_BITS = 12
#: widest perfect hash table: 2^18 slots, e.g. customer ids 0..262,143 as a group key. Each
#: thread allocates every slot whatever the data, so a query that groups few rows pays for
#: them (+35 ms for 5,000 rows with eight aggregates at 18 bits, measured on 2 CPUs), and a
#: key spanning about as many values as there are rows gains nothing
_PERFECT_HASH_MAX_BITS = 18
#: bytes of the memory limit set aside per slot and thread: a slot holds the states of one
#: possible group (about 33 bytes per sum), so eight aggregates fit and the tables stay within
#: an eighth of the limit
_PERFECT_HASH_BYTES_PER_SLOT = 2048

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$")
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1,
          "k": 1000, "kb": 1000, "m": 1000 ** 2, "mb": 1000 ** 2, "g": 1000 ** 3, "gb": 1000 ** 3,
          "t": 1000 ** 4, "tb": 1000 ** 4,
          "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3, "tib": 1024 ** 4}


def parse_size(text: str) -> int | None:
    """Bytes in a size as DuckDB writes or accepts it ("18.8 GiB", "325MiB", "4GB"); None if
    it is not one."""
    match = _SIZE.match(str(text))
    if not match or match.group(2).lower() not in _UNITS:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def perfect_hash_bits(memory_bytes: int | None, threads: int) -> int:
    """DuckDB's ``perfect_ht_threshold`` for a database with this memory limit and threads.

    A GROUP BY whose keys span at most 2^bits values by their statistics (ids, codes, days)
    runs on a table with a slot for every possible group instead of a hash table: grouping
    12.6 M rows by 200,000 customer ids took 0.53 s instead of 0.89 s (one aggregate) and
    0.32 s instead of 0.65 s (eight). The slots live outside DuckDB's memory limit, so their
    number follows it: 18 bits from about 1.5 GiB with 3 threads, DuckDB's own 12 below
    about 48 MiB."""
    if not memory_bytes or memory_bytes <= 0:
        return _PERFECT_HASH_MIN_BITS
    slots = memory_bytes / (max(1, threads) * _PERFECT_HASH_BYTES_PER_SLOT)
    bits = int(math.floor(math.log2(slots))) if slots >= 1 else 0
    return max(_PERFECT_HASH_MIN_BITS, min(_PERFECT_HASH_MAX_BITS, bits))


@dataclass(frozen=True)
class AnalysisSettings:
    #: result rows a chat-path query may return (the model sees them)
    max_query_rows: int = 10_000
    #: rows the analyze path may scan (sliding windows over a table)
    max_analyze_rows: int = 1_000_000
    #: seconds before a query is interrupted; 0 or less disables the limit
    query_timeout: float = 60.0
    #: DuckDB memory limit, e.g. "4GB"; empty keeps DuckDB's default (80% of RAM)
    memory_limit: str = ""
    #: DuckDB threads; 0 means one per CPU the process may use (the session database gets one
    #: more, see :meth:`query_threads`)
    threads: int = 0
    #: largest file load_data accepts, in bytes
    max_file_bytes: int = 20 * 1024 ** 3
    #: rows inlined into a chart spec
    max_chart_rows: int = 5_000
    #: characters of a rendered result sent to the model
    max_result_chars: int = 30_000
    #: bytes of one result held in memory (guards the kernel against e.g. repeat('x', 10^9))
    max_result_bytes: int = 256 * 1024 ** 2
    #: CSV / TSV / Parquet files at least this large are queryable as soon as load_data returns
    #: (a view over the file) and stored into the session database in the background; 0 or
    #: less loads every file before returning
    background_load_bytes: int = 64 * 1024 ** 2

    def __post_init__(self) -> None:
        # zero or negative caps mean "use the default", never "no rows"
        for name in ("max_query_rows", "max_analyze_rows", "max_file_bytes", "max_chart_rows",
                     "max_result_chars", "max_result_bytes"):
            if getattr(self, name) <= 0:
                object.__setattr__(self, name, type(self).__dataclass_fields__[name].default)

    def query_threads(self) -> int:
        """Threads of the session database: the configured number, else one per CPU plus one.

        DuckDB's calling thread idles through parts of some plans (the merge phase of exact
        ``count(DISTINCT …)`` per group, measured on 2 CPUs: 0.57 s -> 0.36 s and 1.43 s -> 0.91 s
        with one extra thread; other queries within a few percent)."""
        return self.threads if self.threads > 0 else self.resolved_threads() + 1

    def resolved_threads(self) -> int:
        if self.threads > 0:
            return self.threads
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except (AttributeError, OSError):  # pragma: no cover - non-Linux
            return max(1, os.cpu_count() or 1)
