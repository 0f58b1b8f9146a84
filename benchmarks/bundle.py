"""Session bundles: export and import time and size, and how fast hostile bundles are refused.

Run: ``.venv/bin/python benchmarks/bundle.py [--rows N]`` — prints the Markdown table recorded
in ``docs/performance.md`` (section "Session bundles").

The session is shaped like a long analysis: 1,000 records (questions, tool calls, 12-row tool
results, answers with object links), 50 Session Memory entries, 60 Findings, 20 summaries,
20 objects of 64 KiB, and an analysis database with one table of ``--rows`` rows (mixed
numbers, strings and dates). Export, validation alone and import are each run three times into
fresh data dirs; the median is reported. The hostile cases measure the time to refuse a bundle
whose directory declares 4 GiB (no byte is decompressed) and a deflate bomb (refused from the
ratio, before extraction).
"""
from __future__ import annotations

import argparse
import os
import statistics
import struct
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import duckdb

from shell_agent_lab.bundle import InvalidBundleError, Limits, export_session, import_session
from shell_agent_lab.bundle._archive import open_archive
from shell_agent_lab.bundle._contents import read_contents
from shell_agent_lab.store import Caps, Store, SummaryEntry


def _populate(store: Store, rows: int) -> str:
    s = store.create_session(title="Benchmark session", notebook_path="bench.ipynb")
    ids = [store.objects.put(s.id, os.urandom(65536), type="image", mime_type="image/png",
                             name=f"chart{i}.png").id for i in range(20)]
    table = "\n".join(f"region{r}|{r * 17 % 101}|{r * 3.5:.1f}" for r in range(12))
    for turn in range(250):
        store.append_record(s.id, "user", f"Question {turn}: how did region {turn % 12} do in week {turn % 52}?")
        store.append_record(s.id, "assistant", "", tool_calls=[
            {"id": f"c{turn}", "name": "query_sql", "arguments": {"sql": "SELECT region, week, revenue FROM sales"}}])
        store.append_record(s.id, "tool", table, tool_name="query_sql", tool_call_id=f"c{turn}", status="success")
        store.append_record(s.id, "assistant", f"Region {turn % 12} grew; see [report](object:{ids[turn % 20]}).")
    for i in range(50):
        store.session_memory.add(s.id, f"Table sales column c{i} holds metric number {i}", "fact",
                                 source="assistant_turn")
    for i in range(60):
        store.findings.add(s.id, f"Region {i} revenue moved {i * 7}% in week {i % 52}", tags=("medium",),
                           source="analyze_data")
    for i in range(20):
        store.put_summary(s.id, SummaryEntry(f"k{i}", "summary", "far", "bench", None, None, 10,
                                             f"Summary {i} mentions {ids[i]}."))
    con = duckdb.connect(str(store.session_dir(s.id) / "analysis.duckdb"))
    con.execute(f"""CREATE TABLE sales AS SELECT range AS id, 'region' || (hash(range) % 12) AS region,
                    DATE '2024-01-01' + CAST(hash(range * 3) % 730 AS INTEGER) AS day,
                    (hash(range * 7) % 1000000) / 100.0 AS revenue,
                    md5(CAST(range AS VARCHAR))[:8] AS customer FROM range({rows})""")
    con.close()
    return s.id


def _median_ms(fn, runs: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def _declared_huge(path: Path) -> Path:
    """A small bundle whose ZIP directory claims its database entry is 4 GiB."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", b"{}")
        zf.writestr("analysis.duckdb", b"\0" * 1024)
    raw = bytearray(path.read_bytes())
    name = b"analysis.duckdb"
    pos = raw.rfind(b"PK\x01\x02", 0, raw.rfind(name) + 1)
    struct.pack_into("<I", raw, pos + 24, 0xFFFFFFFF)
    path.write_bytes(bytes(raw))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        src = Store.open(root / "src", caps=Caps(findings=None, session_memory=None))
        sid = _populate(src, args.rows)
        db_bytes = (src.session_dir(sid) / "analysis.duckdb").stat().st_size
        outs = iter(range(100))
        export_ms, exported = _median_ms(lambda: export_session(src, sid, root / f"e{next(outs)}.shellagent"))
        bundle = exported.path

        def validate() -> None:
            with open_archive(bundle) as zf:
                read_contents(zf, Limits())

        validate_ms, _ = _median_ms(validate)
        dests = iter(range(100))

        def do_import():
            dst = Store.open(root / f"dst{next(dests)}")
            try:
                return import_session(dst, bundle)
            finally:
                dst.close()

        import_ms, result = _median_ms(do_import)
        assert result.records == 1000 and result.tables == ["sales"]

        huge = _declared_huge(root / "declared.shellagent")
        bomb = root / "bomb.shellagent"
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("manifest.json", b"{}")
            zf.writestr("analysis.duckdb", b"\0" * (256 << 20))
        refusals = {}
        for label, path in (("declares 4 GiB", huge), ("256 MiB deflate bomb", bomb)):
            def refuse(path=path) -> str:
                dst = Store.open(root / "refuse")
                try:
                    import_session(dst, path, limits=Limits(max_entry_bytes=1 << 30))
                except InvalidBundleError as exc:
                    return str(exc)
                finally:
                    dst.close()
                raise AssertionError(f"{label} was accepted")
            refusals[label] = _median_ms(refuse)
        src.close()

    print("| rows in table | database | bundle | export (ms) | validate only (ms) | import (ms) |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(f"| {args.rows:,} | {db_bytes / 2**20:.1f} MiB | {exported.size / 2**20:.1f} MiB | "
          f"{export_ms:.0f} | {validate_ms:.0f} | {import_ms:.0f} |")
    print()
    print("| hostile bundle | refused in (ms) | message |")
    print("|---|---:|---|")
    for label, (ms, message) in refusals.items():
        print(f"| {label} | {ms:.1f} | {message} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
