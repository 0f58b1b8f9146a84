"""Fault 1: a kernel SIGKILLed in the middle of a turn — while the model streams, while a tool
runs, while memory extraction runs. A new kernel on the same notebook reopens the session with
every record written before the kill; a cut-off turn ends in an ``interrupted`` record (never a
finished answer); Session Memory, Global Memory and Findings are intact; the store passes
``integrity_check``; the next question is answered."""
from __future__ import annotations

import pytest
from chaoshelpers import RUNTIME, integrity, kill, rows, wait_for
from kernelhelpers import text_of

from shell_agent_lab.store import Store

pytestmark = [pytest.mark.chaos, pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(240)]

HANG = ("import threading as _t\n"
        "def _hang(messages, tools):\n"
        "    _t.Event().wait(600)\n")
SLOW_TOOL = ("import shell_agent_lab as _sal, threading as _t\n"
             "@_sal.tool(category='read')\n"
             "def slow_step() -> str:\n"
             "    '''A step that takes its time.'''\n"
             "    _t.Event().wait(600)\n"
             "    return 'done'\n")


def _seed(k, data_dir):
    """One finished turn, plus memory and a Finding written by another process."""
    k.run("%agent first question")
    sid = k.value(f"{RUNTIME}.get_agent().session.id")
    with Store.open(data_dir) as store:
        store.global_memory.add("User prefers plotly for charts", "preference", source="user_turn")
        store.session_memory.add(sid, "Table sales has 1200 rows", "fact", source="user_turn")
        store.findings.add(sid, "EU leads revenue with 4.2M", source="analyze_data")
    return sid


def _snapshot(data_dir, sid):
    return {
        "records": rows(data_dir, "SELECT seq, role, content, status FROM records WHERE session_id = ? "
                                  "ORDER BY seq", (sid,)),
        "memory": rows(data_dir, "SELECT id, scope, fact, state FROM memory ORDER BY id"),
        "findings": rows(data_dir, "SELECT id, content FROM findings ORDER BY id"),
    }


def _user_record(data_dir, sid, text):
    return bool(rows(data_dir, "SELECT 1 FROM records WHERE session_id = ? AND role = 'user' AND content = ?",
                     (sid, text)))


def _reopen_and_check(start_kernel, data_dir, sid, before, *, interrupted: bool):
    k2 = start_kernel(script=["Back again."], notebook="nb.ipynb")
    assert k2.value(f"{RUNTIME}.get_agent().session.id") == sid
    after = _snapshot(data_dir, sid)
    assert after["records"][:len(before["records"])] == before["records"]       # nothing lost
    assert after["memory"] == before["memory"] and after["findings"] == before["findings"]
    extra = after["records"][len(before["records"]):]
    if interrupted:
        assert len(extra) == 1 and extra[0][1] == "system" and extra[0][3] == "interrupted"
        assert "interrupted" in extra[0][2]
        # the half turn shows no finished answer: no plain assistant text after its user message
        half = after["records"][max(i for i, r in enumerate(after["records"]) if r[1] == "user"):]
        assert [r for r in half if r[1] == "assistant" and r[2] and r[3] is None] == []
    else:
        assert extra == []
    assert integrity(data_dir) == "ok"
    assert not list((data_dir / "sessions" / sid / "turns").glob("*.json"))   # no marker left
    # the history the panel shows ends with the marked turn, and the next question works
    res = k2.run("%agent and now?")
    assert "Back again." in text_of(res["outputs"])
    return after


def test_killed_while_the_model_streams(start_kernel, _isolated_data_dir):
    k = start_kernel(script=["First answer."], notebook="nb.ipynb")
    sid = _seed(k, _isolated_data_dir)
    k.run(HANG + f"{RUNTIME}.get_agent().backend.enqueue(_hang)")
    before = _snapshot(_isolated_data_dir, sid)
    k.send("%agent second question")
    wait_for(lambda: _user_record(_isolated_data_dir, sid, "second question"), what="the user record")
    wait_for(lambda: list((_isolated_data_dir / "sessions" / sid / "turns").glob("*.json")), what="the turn")
    kill(k)
    before["records"] = _snapshot(_isolated_data_dir, sid)["records"]
    assert before["records"][-1][1:3] == ("user", "second question")
    _reopen_and_check(start_kernel, _isolated_data_dir, sid, before, interrupted=True)


def test_killed_while_a_tool_runs(start_kernel, _isolated_data_dir):
    k = start_kernel(script=["First answer.", {"tool_calls": [{"name": "slow_step", "arguments": {}}]}],
                     notebook="nb.ipynb")
    sid = _seed(k, _isolated_data_dir)
    k.run(SLOW_TOOL)
    k.send("%agent run the slow step")
    wait_for(lambda: rows(_isolated_data_dir, "SELECT 1 FROM records WHERE session_id = ? AND role = 'assistant' "
                                               "AND tool_calls LIKE '%slow_step%'", (sid,)), what="the tool call")
    kill(k)
    before = _snapshot(_isolated_data_dir, sid)
    assert [r[1] for r in before["records"][-2:]] == ["user", "assistant"]
    _reopen_and_check(start_kernel, _isolated_data_dir, sid, before, interrupted=True)


def test_killed_while_memory_extraction_runs(start_kernel, _isolated_data_dir):
    k = start_kernel(script=["First answer."], notebook="nb.ipynb")
    sid = _seed(k, _isolated_data_dir)
    k.run("%config ShellAgent.auto_extract = True")
    k.run(HANG + f"{RUNTIME}.get_agent().backend.enqueue('Second answer.', _hang)")
    k.run("%agent I prefer seaborn; what next?")
    # the answer is recorded and the extraction call has taken the hanging reply
    wait_for(lambda: k.value(f"{RUNTIME}.get_agent().backend.pending") == 0, what="the extraction call")
    assert k.value(f"{RUNTIME}.get_agent().state.value") == "EXTRACTING"
    before = _snapshot(_isolated_data_dir, sid)
    kill(k)
    assert before["records"][-1][1:3] == ("assistant", "Second answer.")
    _reopen_and_check(start_kernel, _isolated_data_dir, sid, before, interrupted=False)
