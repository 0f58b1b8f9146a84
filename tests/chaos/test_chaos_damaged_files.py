"""Fault 4: damaged files. A garbage or truncated ``analysis.duckdb``, a store with scribbled
pages, an unreadable data directory: each is reported in one line that names the file and the
way out (move it aside, restore from an exported bundle); what does not depend on it keeps
working; nothing is recreated over the user's data."""
from __future__ import annotations

import hashlib
import sqlite3

import pytest
from chaoshelpers import DB, RUNTIME
from kernelhelpers import text_of

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.store import Caps, Store
from tests.support.file_permissions import run_honouring_permissions

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(240)]

FRAME = "import pandas as pd\nsales = pd.DataFrame({'region': ['EU', 'US'], 'amount': [1, 2]})"
CLI = "import sys\nfrom shell_agent_lab.cli import main\nsys.exit(main({argv!r}))\n"


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _damage(path, how):
    data = path.read_bytes()
    if how == "garbage":
        path.write_bytes(b"this is not a DuckDB file \x00\xff" * 400)
    else:
        path.write_bytes(data[: len(data) // 2])


@pytest.mark.kernel
@pytest.mark.slow
@pytest.mark.parametrize("how", ["garbage", "truncated"])
def test_a_damaged_analysis_database_is_named_and_left_alone(start_kernel, _isolated_data_dir, tmp_path, how):
    k = start_kernel(script=["Noted."], notebook="nb.ipynb")
    k.run(FRAME)
    k.run(f"{RUNTIME}.get_agent().engine().create_table_from_query('kept', 'SELECT * FROM sales')")
    sid = k.value(f"{RUNTIME}.get_agent().session.id")
    k.run("%agent hello")
    k.shutdown()
    with Store.open(_isolated_data_dir) as store:
        store.global_memory.add("User prefers plotly for charts", "preference", source="user_turn")
        other = store.create_session(title="Other", notebook_path="other.ipynb").id
        other_db = store.session_dir(other) / "analysis.duckdb"
    engine = AnalysisEngine(other_db)
    engine.create_table_from_query("regions", "SELECT 1 AS n")
    engine.close()
    db = _isolated_data_dir / "sessions" / sid / "analysis.duckdb"
    _damage(db, how)
    damaged = _digest(db)

    k2 = start_kernel(script=["Still here."], notebook="nb.ipynb")
    assert k2.value(f"{RUNTIME}.get_agent().session.id") == sid
    shown = text_of(k2.run("%agent /data")["outputs"])
    assert str(db) in shown and "damaged" in shown and "move it aside" in shown and "bundle" in shown
    # chat, Global Memory and the session's records keep working
    assert "Still here." in text_of(k2.run("%agent are you there?")["outputs"])
    assert "User prefers plotly for charts" in text_of(k2.run("%agent /memory")["outputs"])
    assert k2.value(f"len({RUNTIME}.get_agent().store.list_records({sid!r}))") == 4
    # the file was not recreated or written; another session's tables are fine
    assert _digest(db) == damaged
    engine = AnalysisEngine(other_db)
    try:
        assert [t.name for t in engine.tables()] == ["regions"]
    finally:
        engine.close()


def _scribble(path):
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    for offset in range(2 * 4096, len(data), 3 * 4096):     # a byte write over many b-tree pages
        data[offset: offset + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))


@pytest.mark.kernel
@pytest.mark.slow
def test_a_store_with_bad_pages_is_named_and_left_alone(start_kernel, _isolated_data_dir):
    with Store.open(_isolated_data_dir, caps=Caps(global_memory=None)) as store:
        sid = store.create_session(title="Sales", notebook_path="nb.ipynb").id
        for i in range(300):
            store.global_memory.add(f"fact {i} about subject_{i} " + "padding " * 20, "decision", source="user_turn")
            store.append_record(sid, "user", f"question {i}")
    path = _isolated_data_dir / DB
    _scribble(path)
    damaged = _digest(path)
    cli = run_honouring_permissions(CLI.format(argv=["memory", "list"]))
    assert cli.returncode != 0
    line = cli.stderr.strip().splitlines()[-1]
    assert str(path) in line and "move it aside" in line, cli.stderr
    k = start_kernel(script=["x"], notebook="nb.ipynb")
    res = k.collect(k.send("%agent hello"))
    text = (res["reply"].get("evalue") or "") + text_of(res["outputs"])
    assert str(path) in text and "move it aside" in text
    assert _digest(path) == damaged


def test_an_unreadable_data_directory_is_named_and_not_recreated(_isolated_data_dir):
    with Store.open(_isolated_data_dir) as store:
        store.global_memory.add("User prefers plotly for charts", "preference", source="user_turn")
    before = sorted(p.name for p in _isolated_data_dir.iterdir())
    _isolated_data_dir.chmod(0)
    try:
        cli = run_honouring_permissions(CLI.format(argv=["memory", "list"]))
    finally:
        _isolated_data_dir.chmod(0o700)
    assert cli.returncode != 0
    line = cli.stderr.strip().splitlines()[-1]
    assert str(_isolated_data_dir) in line and "permission" in line.lower(), cli.stderr
    assert sorted(p.name for p in _isolated_data_dir.iterdir()) == before
    with Store.open(_isolated_data_dir) as store:      # readable again: everything is there
        assert [e.fact for e in store.global_memory.list()] == ["User prefers plotly for charts"]
