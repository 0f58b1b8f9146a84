"""Export a populated session, import it into a fresh data dir: new ids, same contents."""
from __future__ import annotations

import json
import zipfile
from datetime import datetime, timezone

import duckdb
import pytest

from shell_agent_lab.bundle import (
    BundleExportError, default_filename, export_active_session, export_session, import_session,
)

from bundle_fixtures import populate


def _rewrite(text, mapping):
    for old, new in mapping.items():
        text = text.replace(old, new)
    return text


def test_round_trip_into_a_fresh_data_dir(store, fresh_store, tmp_path):
    src = populate(store)
    exported = export_session(store, src.session_id, tmp_path)
    assert exported.path.parent == tmp_path and exported.path.suffix == ".shellagent"
    assert (exported.records, exported.findings, exported.objects) == (4, 2, 2)
    assert exported.has_analysis_db
    with zipfile.ZipFile(exported.path) as zf:
        assert zf.namelist()[0] == "manifest.json"
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["schema_version"] == 1
    assert manifest["session"] == {"original_id": src.session_id, "title": "Sales review",
                                   "private": False, "profile": "work",
                                   "notebook_path": "analysis/sales.ipynb"}

    result = import_session(fresh_store, exported.path)
    new = result.session
    assert new.id != src.session_id
    assert (new.title, new.private, new.profile, new.notebook_path) == (
        "Sales review", False, "work", "analysis/sales.ipynb")
    assert result.tables == ["sales"]

    # objects: fresh ids, same bytes and metadata
    mapping = result.object_ids
    assert set(mapping) == {src.report_id, src.image_id}
    assert not set(mapping.values()) & set(mapping)
    for old, new_id in mapping.items():
        old_meta, old_data = store.objects.get(old)
        new_meta, new_data = fresh_store.objects.get(new_id)
        assert new_data == old_data
        assert (new_meta.type, new_meta.mime_type, new_meta.name, new_meta.session_id) == (
            old_meta.type, old_meta.mime_type, old_meta.name, new.id)

    # records: identical apart from rewritten references, which now point at the new objects
    old_recs, new_recs = store.list_records(src.session_id), fresh_store.list_records(new.id)
    assert [(r.role, r.tool_name, r.tool_call_id, r.status) for r in new_recs] == [
        (r.role, r.tool_name, r.tool_call_id, r.status) for r in old_recs]
    assert [r.content for r in new_recs] == [_rewrite(r.content, mapping) for r in old_recs]
    assert [r.created_at for r in new_recs] == [r.created_at for r in old_recs]  # original times
    assert new_recs[1].tool_calls == old_recs[1].tool_calls
    last = new_recs[3]
    assert f"object:{mapping[src.report_id]}" in last.content
    assert f"object:{mapping[src.image_id]}" in last.content
    assert src.report_id not in last.content and src.image_id not in last.content
    assert last.meta == {"objects": [mapping[src.report_id]], "note": f"object:{mapping[src.image_id]}",
                         "imported": True}   # the gate never takes imported text as the user's own

    # memory, findings, summaries
    key = lambda m: (m.fact, m.category, m.source, m.created_at)  # noqa: E731
    assert sorted(map(key, fresh_store.session_memory.list(new.id))) == sorted(
        map(key, store.session_memory.list(src.session_id)))
    fkey = lambda f: (f.content, tuple(f.tags), f.source, f.created_at, f.created_label)  # noqa: E731
    assert sorted(map(fkey, fresh_store.findings.list(new.id))) == sorted(
        map(fkey, store.findings.list(src.session_id)))
    summary = fresh_store.get_summary(new.id, "far:abc")
    assert summary is not None and summary.summary == (
        f"The user asked about anomalies; see {mapping[src.report_id]}.")

    # the work folder came along: regular files only, private modes
    work = fresh_store.session_dir(new.id) / "work"
    assert result.work_files == 2 and exported.work_files == 2
    assert (work / "charts" / "eu.csv").read_text() == "week,revenue\n12,180\n"
    assert (work / "notes.txt").read_text() == "draft"
    assert not (work / "link").exists()
    assert oct((work / "notes.txt").stat().st_mode & 0o777) == "0o600"
    assert oct((work / "charts").stat().st_mode & 0o777) == "0o700"

    # the analysis database came along and answers
    db = fresh_store.session_dir(new.id) / "analysis.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT sum(revenue) FROM sales WHERE region = 'EU'").fetchone()[0] == 200.0
    con.close()


def test_imported_session_answers_through_the_analysis_engine(store, fresh_store, tmp_path):
    from shell_agent_lab.analysis import AnalysisEngine

    src = populate(store)
    result = import_session(fresh_store, export_session(store, src.session_id, tmp_path).path)
    engine = AnalysisEngine(fresh_store.session_dir(result.session.id) / "analysis.duckdb")
    try:
        assert "sales" in [t.name for t in engine.tables()]
        answer = engine.query("SELECT region, sum(revenue) AS total FROM sales GROUP BY region "
                              "ORDER BY region")
        assert [list(r) for r in answer.rows] == [["EU", 200.0], ["US", 95.0]]
    finally:
        engine.close()


def test_private_flag_and_title_collisions(store, tmp_path):
    src = populate(store, private=True, title="Secret work")
    bundle = export_session(store, src.session_id, tmp_path).path
    first = import_session(store, bundle).session
    second = import_session(store, bundle).session
    assert first.title == "Secret work (imported)"
    assert second.title == "Secret work (imported 2)"
    assert first.private and second.private
    # the notebook stays bound to the original session; the copies are unbound
    assert first.notebook_path is None and second.notebook_path is None
    assert len({src.session_id, first.id, second.id}) == 3


def test_default_filename_rules():
    when = datetime(2026, 11, 20, 9, 5, 7, tzinfo=timezone.utc)
    assert default_filename("Q3: sales/EU?", "sess-1", when) == "Q3_ sales_EU_-20261120-090507.shellagent"
    assert default_filename("", "sess-123456789", when) == "session-sess-123-20261120-090507.shellagent"
    assert default_filename("...", "abcdefghij", when).startswith("session-abcdefgh-")
    long = default_filename("x" * 200, "s", when)
    assert long == "x" * 64 + "-20261120-090507.shellagent"


def test_export_refuses_to_overwrite_and_unknown_sessions(store, tmp_path):
    src = populate(store)
    dest = tmp_path / "out.shellagent"
    export_session(store, src.session_id, dest)
    before = dest.read_bytes()
    with pytest.raises(BundleExportError, match="already exists"):
        export_session(store, src.session_id, dest)
    assert dest.read_bytes() == before
    with pytest.raises(BundleExportError, match="no session"):
        export_session(store, "sess-0-000000", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["out.shellagent"]


def test_export_failure_leaves_no_partial_file(store, tmp_path, monkeypatch):
    src = populate(store)
    out = tmp_path / "exports"
    out.mkdir()

    def broken(object_id):
        raise OSError("disk on fire")

    monkeypatch.setattr(store.objects, "get", broken)
    with pytest.raises(OSError, match="disk on fire"):
        export_session(store, src.session_id, out)
    assert list(out.iterdir()) == []


def test_export_active_session_closes_then_reopens(store, tmp_path):
    src = populate(store)
    db = store.session_dir(src.session_id) / "analysis.duckdb"
    calls = []
    con = {"c": duckdb.connect(str(db))}
    con["c"].execute("INSERT INTO sales VALUES ('US', 13, 1.5)")  # sits in the WAL until checkpoint

    def close():
        calls.append("close")
        con["c"].close()

    def reopen():
        calls.append("reopen")
        con["c"] = duckdb.connect(str(db))

    result = export_active_session(store, src.session_id, tmp_path, close_engine=close,
                                   reopen_engine=reopen)
    assert calls == ["close", "reopen"]
    assert con["c"].execute("SELECT count(*) FROM sales").fetchone()[0] == 4
    con["c"].close()
    with zipfile.ZipFile(result.path) as zf:
        (tmp_path / "copy.duckdb").write_bytes(zf.read("analysis.duckdb"))
    copy = duckdb.connect(str(tmp_path / "copy.duckdb"), read_only=True)
    assert copy.execute("SELECT count(*) FROM sales").fetchone()[0] == 4
    copy.close()

    calls.clear()
    with pytest.raises(BundleExportError):
        export_active_session(store, "sess-0-000000", tmp_path, close_engine=lambda: calls.append("close"),
                              reopen_engine=lambda: calls.append("reopen"))
    assert calls == ["close", "reopen"]


def test_export_refuses_a_database_another_process_holds(store, tmp_path):
    """Another kernel (process) has the session's database open: a clear error, no file."""
    import subprocess
    import sys

    src = populate(store)
    db = store.session_dir(src.session_id) / "analysis.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
         "time.sleep(60)", str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        out = tmp_path / "exports"
        out.mkdir()
        with pytest.raises(BundleExportError, match="open in another kernel"):
            export_session(store, src.session_id, out)
        assert list(out.iterdir()) == []
    finally:
        holder.kill()
        holder.wait()


def test_import_counts_what_was_stored_and_skips_superseded_history(fresh_store, tmp_path):
    import bundle_corpus as corpus

    memory = [
        {"id": 1, "fact": "The sales table has one row per region and week", "category": "fact",
         "source": "assistant_turn", "created_at": "2026-11-20T09:00:00+00:00"},
        {"id": 2, "fact": "the sales table has one row per region and week", "category": "fact",
         "source": "assistant_turn", "created_at": "2026-11-20T09:01:00+00:00"},
        {"id": 3, "fact": "Old context that was replaced", "category": "context",
         "source": "user_turn", "created_at": "2026-11-20T08:00:00+00:00", "superseded_by": 4},
        {"id": 4, "fact": "User prefers plotly", "category": "preference", "suggested": True,
         "source": "assistant_turn", "created_at": "2026-11-20T09:02:00+00:00"},
    ]
    entries = [(n, json.dumps(memory).encode() if n == "session_memory.json" else d)
               for n, d in corpus.baseline_entries()]
    result = import_session(fresh_store, corpus.write_zip(tmp_path / "m.shellagent", entries))
    stored = fresh_store.session_memory.list(result.session.id)
    assert result.session_memory == 2 == len(stored)
    suggestion = next(m for m in stored if m.category == "preference")
    assert suggestion.suggested is True
    assert "Old context" not in " ".join(m.fact for m in stored)
