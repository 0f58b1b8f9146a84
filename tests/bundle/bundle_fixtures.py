"""A populated session in a real store, and a fingerprint of a data dir for before/after checks."""
from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import duckdb

from shell_agent_lab.store import Store, SummaryEntry


@dataclass
class Populated:
    store: Store
    session_id: str
    report_id: str
    image_id: str


def populate(store: Store, *, private: bool = False, title: str = "Sales review") -> Populated:
    s = store.create_session(title=title, notebook_path="analysis/sales.ipynb", private=private,
                             profile="work")
    report = store.objects.put(s.id, b"# Weekly report\nEU revenue up 12%.\n", type="report",
                               mime_type="text/markdown", name="weekly.md")
    image = store.objects.put(s.id, b"\x89PNG\r\n\x1a\nfakeimage", type="image",
                              mime_type="image/png", name="chart.png")
    store.append_record(s.id, "user", "Which regions had anomalous weeks in df?")
    store.append_record(s.id, "assistant", "", tool_calls=[
        {"id": "call-1", "name": "query_sql",
         "arguments": {"sql": "SELECT region, sum(revenue) FROM sales GROUP BY region"}}])
    store.append_record(s.id, "tool", "region|revenue\nEU|120\nUS|95", tool_name="query_sql",
                        tool_call_id="call-1", status="success")
    store.append_record(
        s.id, "assistant",
        f"EU spiked in week 12. Full write-up: [report](object:{report.id}); chart "
        f"![chart](object:{image.id}). Raw id {report.id} too.",
        meta={"objects": [report.id], "note": f"object:{image.id}"})
    store.session_memory.add(s.id, "The sales table has one row per region and week", "fact",
                             source="assistant_turn")
    store.session_memory.add(s.id, "Analysing Q3 2026 sales for the board", "context",
                             source="user_turn")
    store.findings.add(s.id, "EU revenue spiked 40% in week 12", tags=("high", "sales"),
                       source="analyze_data")
    store.findings.add(s.id, "US returns doubled in week 14", tags=("medium", "sales"),
                       source="llm_promoted")
    store.put_summary(s.id, SummaryEntry(
        key="far:abc", kind="summary", tier="far", summarizer_id="scripted", from_ts=None,
        to_ts=None, record_count=3, summary=f"The user asked about anomalies; see {report.id}."))
    work = store.session_dir(s.id) / "work"
    (work / "charts").mkdir(parents=True)
    (work / "charts" / "eu.csv").write_text("week,revenue\n12,180\n")
    (work / "notes.txt").write_text("draft")
    (work / "link").symlink_to("/etc/hostname")        # never exported
    db = store.session_dir(s.id) / "analysis.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE sales AS SELECT * FROM (VALUES ('EU', 12, 120.0), ('US', 12, 95.0), "
                "('EU', 13, 80.0)) AS t(region, week, revenue)")
    con.close()
    return Populated(store, s.id, report.id, image.id)


def listing(root: Path) -> dict[str, tuple[str, int]]:
    """Every path under ``root`` with its kind and size (files) — the before/after fingerprint."""
    out: dict[str, tuple[str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root)] = ("dir", 0)
        for f in filenames:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = ("file", os.lstat(p).st_size)
    return out


def row_counts(db_path: Path) -> dict[str, int]:
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        con.close()
