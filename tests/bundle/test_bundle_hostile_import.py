"""Hostile bundles through the real import: refused with one clear line, the data dir unchanged."""
from __future__ import annotations

import duckdb
import pytest

from shell_agent_lab.bundle import InvalidBundleError, Limits, export_session, import_session

import bundle_corpus as corpus
from bundle_fixtures import listing, populate, row_counts

LIMITS = Limits(max_entries=30, max_entry_bytes=8 << 20, max_total_bytes=16 << 20,
                max_json_bytes=1 << 20, ratio_floor_bytes=1 << 20, max_ratio=200)


@pytest.fixture
def populated(store):
    return populate(store)


@pytest.mark.parametrize("case", sorted(corpus.HOSTILE))
def test_hostile_bundle_leaves_the_data_dir_unchanged(case, populated, tmp_path):
    store = populated.store
    before_files, before_rows = listing(store.data_dir), row_counts(store.db_path)
    path, expected = corpus.HOSTILE[case](tmp_path)
    with pytest.raises(InvalidBundleError) as err:
        import_session(store, path, limits=LIMITS)
    message = str(err.value)
    assert expected.lower() in message.lower(), message
    assert "\n" not in message
    assert listing(store.data_dir) == before_files
    assert row_counts(store.db_path) == before_rows


def test_database_with_a_view_is_refused(populated, fresh_store, tmp_path):
    """A view in a foreign database could read local files when queried: refused."""
    store = populated.store
    db = store.session_dir(populated.session_id) / "analysis.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE VIEW secrets AS SELECT * FROM read_text('/etc/hostname')")
    con.close()
    bundle = export_session(store, populated.session_id, tmp_path).path
    before_files, before_rows = listing(fresh_store.data_dir), row_counts(fresh_store.db_path)
    with pytest.raises(InvalidBundleError, match="view"):
        import_session(fresh_store, bundle)
    assert listing(fresh_store.data_dir) == before_files
    assert row_counts(fresh_store.db_path) == before_rows


def test_failure_midway_rolls_everything_back(populated, fresh_store, tmp_path, monkeypatch):
    bundle = export_session(populated.store, populated.session_id, tmp_path).path
    before_files, before_rows = listing(fresh_store.data_dir), row_counts(fresh_store.db_path)
    calls = {"n": 0}
    real_add = fresh_store.findings.add

    def failing_add(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:  # after the session, objects, records, memory and one finding
            raise RuntimeError("power cut")
        return real_add(*args, **kwargs)

    monkeypatch.setattr(fresh_store.findings, "add", failing_add)
    with pytest.raises(RuntimeError, match="power cut"):
        import_session(fresh_store, bundle)
    assert calls["n"] == 2
    after = listing(fresh_store.data_dir)
    # the SQLite files may change size (WAL); everything else is exactly as before
    strip = lambda d: {k: v for k, v in d.items() if not k.startswith("shell_agent_lab.sqlite3")}  # noqa: E731
    assert strip(after) == strip(before_files)
    assert row_counts(fresh_store.db_path) == before_rows
    assert fresh_store.list_sessions() == []


def test_invalid_store_content_is_refused_and_rolled_back(fresh_store, tmp_path):
    """Structurally valid JSON the store refuses (a 1 MB fact) rolls back with a clear error."""
    import json

    entries = corpus.baseline_entries()
    memory = [{"id": 1, "fact": "x" * 1_000_000, "category": "fact", "source": "user_turn",
               "created_at": "2026-11-20T09:00:00+00:00"}]
    entries = [(n, json.dumps(memory).encode() if n == "session_memory.json" else d)
               for n, d in entries]
    bundle = corpus.write_zip(tmp_path / "bigfact.shellagent", entries)
    before_rows = row_counts(fresh_store.db_path)
    with pytest.raises(InvalidBundleError, match="nothing was imported"):
        import_session(fresh_store, bundle)
    assert row_counts(fresh_store.db_path) == before_rows
    assert not (fresh_store.data_dir / "objects").exists() or not any(
        (fresh_store.data_dir / "objects").iterdir())


def test_baseline_corpus_bundle_imports(fresh_store, tmp_path):
    path = corpus.write_zip(tmp_path / "ok.shellagent", corpus.baseline_entries())
    result = import_session(fresh_store, path)
    recs = fresh_store.list_records(result.session.id)
    new_a = result.object_ids[corpus.OBJ_A]
    assert recs[0].content == "look at object:" + new_a
    assert fresh_store.objects.get(new_a)[1] == b"# hi\n"
