"""``--json`` on the commands that change things: memory delete|export|import, sessions delete.
Output is one JSON value on stdout; errors stay one line on stderr with the documented exit code."""
from __future__ import annotations

import json

import pytest

from shell_agent_lab.store import Store

from tests.support.cli_harness import run


@pytest.fixture
def session_id(_isolated_data_dir):
    store = Store.open(_isolated_data_dir)
    try:
        s = store.create_session(title="Q3 review", notebook_path="/nb/q3.ipynb")
        store.session_memory.add(s.id, "Dataset is sales.csv", "fact", source="user_turn")
        return s.id
    finally:
        store.close()


def _ids():
    return {r["fact"]: r["id"] for r in json.loads(run("memory", "list", "--json")[1])}


def test_memory_delete_json_counts_and_exit_3_when_some_are_missing(_isolated_data_dir):
    run("memory", "add", "alpha apples", "--category", "decision")
    run("memory", "add", "bravo bananas", "--category", "decision")
    code, out, err = run("memory", "delete", str(_ids()["alpha apples"]), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {"deleted": 1, "requested": 1, "missing": 0}
    code, out, err = run("memory", "delete", "999", "--fact", "bravo bananas", "--json")
    assert code == 3 and json.loads(out) == {"deleted": 1, "requested": 2, "missing": 1}
    assert err.startswith("error: 1 of the given entries did not exist") and err.count("\n") == 1
    assert _ids() == {}


def test_session_memory_delete_json(session_id):
    code, out, _ = run("memory", "delete", "--fact", "Dataset is sales.csv", "--session", session_id, "--json")
    assert code == 0 and json.loads(out)["deleted"] == 1
    code, out, err = run("memory", "delete", "1", "--session", "sess-none", "--json")
    assert code == 3 and out == "" and "no session" in err


def test_memory_export_and_import_json(_isolated_data_dir, tmp_path, monkeypatch):
    run("memory", "add", "User prefers plotly", "--category", "preference")
    run("memory", "add", "User always wants ISO dates", "--category", "decision")
    target = tmp_path / "mem.json"
    code, out, err = run("memory", "export", str(target), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {"path": str(target), "entries": 2}
    assert json.loads(target.read_text())["kind"] == "shell-agent-lab-global-memory"
    code, out, _ = run("memory", "export", "-", "--json")      # to stdout the export is the JSON
    assert code == 0 and len(json.loads(out)["entries"]) == 2

    monkeypatch.setenv("SHELL_AGENT_LAB_DATA_DIR", str(tmp_path / "other"))
    code, out, err = run("memory", "import", str(target), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {"added": 2, "merged": 0, "skipped": 0}
    code, out, _ = run("memory", "import", str(target), "--json")
    again = json.loads(out)
    assert again["added"] == 0 and again["merged"] == 2
    code, out, err = run("memory", "import", str(tmp_path / "missing.json"), "--json")
    assert code == 1 and out == "" and "does not exist" in err and err.count("\n") == 1


def test_sessions_delete_json_has_the_listing_shape(session_id):
    listed = json.loads(run("sessions", "list", "--json")[1])[0]
    code, out, err = run("sessions", "delete", session_id, "--json")
    assert (code, err) == (0, "")
    body = json.loads(out)
    assert body == {**listed, "deleted": True}
    assert body["id"] == session_id and body["title"] == "Q3 review"
    code, out, err = run("sessions", "delete", session_id, "--json")
    assert code == 3 and out == "" and err.startswith("error: no session") and err.count("\n") == 1


def test_sessions_show_and_list_share_one_session_shape(session_id):
    listed = json.loads(run("sessions", "list", "--json")[1])[0]
    shown = json.loads(run("sessions", "show", session_id, "--json")[1])
    assert {k: shown[k] for k in listed} == listed
