"""The ``shell-agent-lab`` command line, run in-process through ``main`` and once as a real
console script."""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shell_agent_lab.cli import main
from shell_agent_lab.store import Store


def run(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def data(_isolated_data_dir):
    return _isolated_data_dir


@pytest.fixture
def seeded(data):
    store = Store.open(data)
    try:
        s = store.create_session(title="Q3 review", notebook_path="/nb/q3.ipynb")
        store.findings.add(s.id, "Revenue grew 12% in Q3", tags=["high"], source="analyze_data")
        store.findings.add(s.id, "Revenue grew 21% in Q4")
        store.session_memory.add(s.id, "Dataset is sales.csv", "fact", source="user_turn")
        store.append_record(s.id, "user", "hello")
        return s.id
    finally:
        store.close()


def test_memory_add_and_list_json(data):
    assert run("memory", "add", "User prefers plotly", "--category", "preference")[0] == 0
    code, out, err = run("memory", "add", "User always wants ISO dates", "--category", "decision")
    assert code == 0 and out.startswith("added ")
    code, out, err = run("memory", "list", "--json")
    assert code == 0 and err == ""
    rows = json.loads(out)
    assert [r["fact"] for r in rows] == ["User always wants ISO dates", "User prefers plotly"]
    for row in rows:
        assert {"fact", "category", "source", "created_at"} <= row.keys()
        assert row["source"] == "manual"


def test_memory_add_duplicate_reports_refresh(data):
    run("memory", "add", "User prefers plotly", "--category", "preference")
    code, out, _ = run("memory", "add", "User prefers plotly", "--category", "preference")
    assert code == 0 and "already known" in out
    assert len(json.loads(run("memory", "list", "--json")[1])) == 1


def test_reversal_hides_the_old_entry_unless_all(data):
    run("memory", "add", "User prefers seaborn", "--category", "preference")
    code, out, _ = run("memory", "add", "User no longer prefers seaborn; use plotly", "--category", "preference")
    assert "superseded 1" in out
    assert [r["fact"] for r in json.loads(run("memory", "list", "--json")[1])] == [
        "User no longer prefers seaborn; use plotly"]
    everything = json.loads(run("memory", "list", "--all", "--json")[1])
    assert {r["fact"]: r["superseded_by"] for r in everything}["User prefers seaborn"] == 2


def test_session_memory_through_the_cli(seeded):
    code, out, err = run("memory", "add", "Focus on the EU region", "--category", "context", "--session", seeded)
    assert code == 0, err
    rows = json.loads(run("memory", "list", "--session", seeded, "--json")[1])
    assert [r["category"] for r in rows] == ["context", "fact"]
    assert json.loads(run("memory", "list", "--json")[1]) == []


@pytest.mark.parametrize(
    "argv",
    [
        ("memory", "add", "x y", "--category", "fact"),                       # fact needs --session
        ("memory", "add", "x y", "--category", "preference", "--session", "s"),
        ("memory", "add", "x y", "--category", "opinion"),
        ("memory", "add", "x y"),
        ("memory",),
        (),
        ("findings", "list"),
        ("memory", "delete"),
        ("memory", "delete", "abc"),
        ("nonsense",),
    ],
)
def test_usage_errors_exit_2_with_one_line(data, argv):
    code, out, err = run(*argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("usage error:")


def test_bad_fact_is_an_error_not_a_traceback(data):
    code, out, err = run("memory", "add", "x" * 1_000_000, "--category", "decision")
    assert code == 1 and err.startswith("error: fact is 1,000,000 characters")
    assert err.count("\n") == 1
    code, _, err = run("memory", "add", "\x00\x01", "--category", "decision")
    assert code == 1 and "empty" in err


def test_memory_delete_by_id_and_text(data):
    run("memory", "add", "alpha apples", "--category", "decision")
    run("memory", "add", "bravo bananas", "--category", "decision")
    run("memory", "add", "charlie cherries", "--category", "decision")
    ids = {r["fact"]: r["id"] for r in json.loads(run("memory", "list", "--json")[1])}
    code, out, _ = run("memory", "delete", str(ids["alpha apples"]), "--fact", "bravo bananas")
    assert code == 0 and out == "deleted 2 of 2\n"
    code, out, err = run("memory", "delete", "999")
    assert code == 3 and "did not exist" in err
    assert [r["fact"] for r in json.loads(run("memory", "list", "--json")[1])] == ["charlie cherries"]


def test_export_import_roundtrip_and_refusals(data, tmp_path, monkeypatch):
    run("memory", "add", "User prefers plotly", "--category", "preference")
    target = tmp_path / "mem.json"
    code, out, _ = run("memory", "export", str(target))
    assert code == 0 and (target.stat().st_mode & 0o777) == 0o600
    envelope = json.loads(target.read_text())
    assert envelope["kind"] == "shell-agent-lab-global-memory"

    other = tmp_path / "other"
    monkeypatch.setenv("SHELL_AGENT_LAB_DATA_DIR", str(other))
    code, out, _ = run("memory", "import", str(target))
    assert code == 0 and out.startswith("imported: 1 added")
    code, out, _ = run("memory", "import", "-", stdin=target.read_text())
    assert code == 0 and "0 added, 1 merged" in out

    for bad, message in [
        ("this is not json", "not a JSON file"),
        (json.dumps({"kind": "other", "schema_version": 1, "entries": []}), "kind is 'other'"),
        (json.dumps({"kind": "shell-agent-lab-global-memory", "schema_version": 9, "entries": []}), "schema_version 9"),
    ]:
        path = tmp_path / "bad.json"
        path.write_text(bad)
        code, out, err = run("memory", "import", str(path))
        assert code == 1 and message in err and err.count("\n") == 1
    code, _, err = run("memory", "import", str(tmp_path / "missing.json"))
    assert code == 1 and "does not exist" in err
    assert len(json.loads(run("memory", "list", "--json")[1])) == 1  # nothing lost


def test_sessions_list_and_delete(seeded, data):
    code, out, _ = run("sessions", "list", "--json")
    (row,) = json.loads(out)
    assert row["id"] == seeded and row["title"] == "Q3 review" and row["private"] is False
    code, out, _ = run("sessions", "list")
    assert seeded in out and "Q3 review" in out
    code, out, _ = run("sessions", "delete", seeded)
    assert code == 0 and seeded in out
    assert json.loads(run("sessions", "list", "--json")[1]) == []
    code, _, err = run("sessions", "delete", seeded)
    assert code == 3 and "no session" in err


def test_findings_list_json(seeded):
    code, out, _ = run("findings", "list", "--session", seeded, "--json")
    rows = json.loads(out)
    assert [r["content"] for r in rows] == ["Revenue grew 12% in Q3", "Revenue grew 21% in Q4"]
    assert rows[0]["id"].startswith("f-") and rows[0]["tags"] == ["high"]
    for row in rows:
        assert {"content", "category", "source", "created_at"} <= row.keys()
    assert rows[0]["source"] == "analyze_data"
    code, _, err = run("findings", "list", "--session", "sess-none")
    assert code == 3


def test_corrupt_database_is_one_line_exit_1(data):
    data.mkdir(parents=True, exist_ok=True)
    db = data / "shell_agent_lab.sqlite3"
    db.write_bytes(b"garbage" * 100)
    code, out, err = run("memory", "list")
    assert code == 1 and err.count("\n") == 1 and str(db) in err
    assert db.read_bytes() == b"garbage" * 100


def test_console_script_runs(data):
    script = Path(sys.executable).with_name("shell-agent-lab")
    env = {**os.environ, "SHELL_AGENT_LAB_DATA_DIR": str(data)}
    done = subprocess.run([str(script), "memory", "add", "User prefers Go", "--category", "preference"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([str(script), "memory", "list", "--json"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert json.loads(done.stdout)[0]["fact"] == "User prefers Go"
    done = subprocess.run([str(script), "bogus"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
