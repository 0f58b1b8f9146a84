"""Fault 5: two kernels on one notebook. Both share the session: their records interleave in
order and none is lost; the analysis database stays with the kernel that opened it first and
the second one says so. Deleting a session another kernel has open is refused (store, CLI and
the notebook command alike) and works once that kernel is gone."""
from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from chaoshelpers import RUNTIME, integrity, kill, rows
from kernelhelpers import text_of

from shell_agent_lab.store import SessionInUseError, Store

pytestmark = [pytest.mark.chaos, pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(240)]

TURNS = 6
CLI = [sys.executable, "-c", "import sys; from shell_agent_lab.cli import main; sys.exit(main(sys.argv[1:]))"]


def _ask_all(kernel, tag):
    for i in range(TURNS):
        kernel.run(f"%agent {tag} question {i}")


def test_two_kernels_share_one_notebook_session(start_kernel, _isolated_data_dir):
    a = start_kernel(script=[f"a answer {i}" for i in range(TURNS)], notebook="shared.ipynb")
    b = start_kernel(script=[f"b answer {i}" for i in range(TURNS)], notebook="shared.ipynb")
    a.run("import pandas as pd\nsales = pd.DataFrame({'region': ['EU', 'US'], 'amount': [1, 2]})")
    sid = a.value(f"{RUNTIME}.get_agent().session.id")
    assert b.value(f"{RUNTIME}.get_agent().session.id") == sid
    threads = [threading.Thread(target=_ask_all, args=(k, tag)) for k, tag in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    records = rows(_isolated_data_dir, "SELECT seq, role, content FROM records WHERE session_id = ? ORDER BY seq",
                   (sid,))
    assert [r[0] for r in records] == list(range(1, 4 * TURNS + 1))          # no gap, no duplicate
    for tag in ("a", "b"):
        users = [c for _, role, c in records if role == "user" and c.startswith(tag)]
        answers = [c for _, role, c in records if role == "assistant" and c.startswith(tag)]
        assert users == [f"{tag} question {i}" for i in range(TURNS)]        # each kernel's own order
        assert answers == [f"{tag} answer {i}" for i in range(TURNS)]
        for i in range(TURNS):      # each answer follows its own question
            q = next(s for s, role, c in records if c == f"{tag} question {i}")
            ans = next(s for s, role, c in records if c == f"{tag} answer {i}")
            assert q < ans
    # the analysis database stays with the first kernel; the second says where it is
    assert "another kernel" in text_of(b.run("%agent /data")["outputs"])
    assert "sales" in text_of(a.run("%agent /data")["outputs"])
    assert integrity(_isolated_data_dir) == "ok"


def test_a_session_open_in_another_kernel_is_not_deleted(start_kernel, _isolated_data_dir, tmp_path):
    k = start_kernel(script=["Hello."], notebook="open.ipynb")
    k.run("%agent hello")
    sid = k.value(f"{RUNTIME}.get_agent().session.id")
    other = start_kernel(script=[], notebook="other.ipynb")
    other.value(f"{RUNTIME}.get_agent().session.id")
    # the CLI, another process
    cli = subprocess.run([*CLI, "sessions", "delete", sid],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode != 0
    assert "open in another kernel" in (cli.stdout + cli.stderr)
    # the notebook command in another kernel
    res = other.collect(other.send(f"%agent /sessions delete {sid} --yes"))
    assert res["reply"]["status"] == "error" and "open in another kernel" in res["reply"]["evalue"]
    assert "\n" not in res["reply"]["evalue"]
    with Store.open(_isolated_data_dir) as store:
        with pytest.raises(SessionInUseError, match="open in another kernel"):
            store.delete_session(sid)
        assert store.get_session(sid) is not None
        assert len(store.list_records(sid)) == 2
    # once that kernel is gone (even killed), the delete goes through
    kill(k)
    cli = subprocess.run([*CLI, "sessions", "delete", sid],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, cli.stderr
    assert rows(_isolated_data_dir, "SELECT COUNT(*) FROM records WHERE session_id = ?", (sid,)) == [(0,)]
    assert not (_isolated_data_dir / "sessions" / sid).exists()
