"""``shell-agent-lab sessions show|rename|export|import`` against a real store in the test data dir."""
from __future__ import annotations

import json

import pytest

from shell_agent_lab.store import Store

import bundle_corpus as corpus
from tests.support.cli_harness import run
from bundle_fixtures import listing, populate, row_counts


@pytest.fixture
def home_store(_isolated_data_dir):
    """The store in the data dir the CLI resolves ($SHELL_AGENT_LAB_DATA_DIR)."""
    st = Store.open(_isolated_data_dir)
    yield st
    st.close()


def test_show_json_has_counts_and_tables(home_store):
    src = populate(home_store)
    code, out, err = run("sessions", "show", src.session_id, "--json")
    assert code == 0, err
    body = json.loads(out)
    assert body["id"] == src.session_id and body["title"] == "Sales review"
    assert (body["records"], body["findings"], body["objects"], body["summaries"]) == (4, 2, 2, 1)
    assert body["session_memory"] == 2
    assert body["tables"] == [{"name": "sales", "rows": 3, "columns": 3}]


def test_show_text_by_unique_prefix_and_by_title(home_store):
    src = populate(home_store)
    code, out, _ = run("sessions", "show", src.session_id[:-2], "--records", "2")
    assert code == 0
    assert out.splitlines()[0] == "Sales review"
    assert "sales (3 rows)" in out
    assert "[4] assistant: EU spiked in week 12." in out
    code, out, _ = run("sessions", "show", "Sales review")
    assert code == 0 and src.session_id in out


def test_unknown_session_exits_3_with_one_line(home_store):
    code, out, err = run("sessions", "show", "sess-nope")
    assert code == 3
    assert out == ""
    assert err.startswith("error: no session 'sess-nope'") and err.count("\n") == 1


def test_rename_locks_the_title(home_store):
    src = populate(home_store)
    code, out, _ = run("sessions", "rename", src.session_id, "Board pack", "--json")
    assert code == 0
    assert json.loads(out)["title"] == "Board pack" and json.loads(out)["title_locked"] is True
    assert home_store.set_auto_title(src.session_id, "Auto title") is False
    assert home_store.get_session(src.session_id).title == "Board pack"


def test_rename_refuses_an_empty_title(home_store):
    src = populate(home_store)
    code, _, err = run("sessions", "rename", src.session_id, "   ")
    assert code == 4 and err.startswith("error:")
    assert home_store.get_session(src.session_id).title == "Sales review"


def test_export_then_import_through_the_cli(home_store, tmp_path):
    src = populate(home_store)
    code, out, err = run("sessions", "export", src.session_id, str(tmp_path), "--json")
    assert code == 0, err
    exported = json.loads(out)
    assert exported["records"] == 4 and exported["has_analysis_db"] is True
    path = exported["path"]
    assert path.endswith(".shellagent")

    code, _, err = run("sessions", "export", src.session_id, path)
    assert code == 4 and "already exists" in err

    code, out, err = run("sessions", "import", path, "--json")
    assert code == 0, err
    imported = json.loads(out)
    assert imported["title"] == "Sales review (imported)"
    assert imported["original_id"] == src.session_id and imported["id"] != src.session_id
    assert imported["tables"] == ["sales"] and imported["objects"] == 2
    assert len(home_store.list_sessions()) == 2


def test_import_of_a_hostile_bundle_exits_4_and_writes_nothing(home_store, tmp_path):
    populate(home_store)
    before_files, before_rows = listing(home_store.data_dir), row_counts(home_store.db_path)
    path, _ = corpus.traversal(tmp_path)
    code, out, err = run("sessions", "import", str(path))
    assert code == 4
    assert "path traversal" in err and err.count("\n") == 1
    assert listing(home_store.data_dir) == before_files
    assert row_counts(home_store.db_path) == before_rows


def test_import_of_a_missing_file(home_store, tmp_path):
    code, _, err = run("sessions", "import", str(tmp_path / "nope.shellagent"))
    assert code == 4 and "no such bundle file" in err
