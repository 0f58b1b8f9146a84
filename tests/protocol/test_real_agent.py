"""The comm against the real agent and the notebook runtime (scripted model, real store and DuckDB)."""
from __future__ import annotations

import base64
import threading
from types import SimpleNamespace

import pandas as pd
import pytest

from shell_agent_lab.agent import build_agent
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.scripted import ScriptedBackend, call as tool_call, reply
from shell_agent_lab.notebook import comm
from shell_agent_lab.notebook.runtime import Runtime

from .conftest import assert_valid


class _Comm:
    """A comm double that records what the kernel sends."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.cond = threading.Condition()

    def on_msg(self, cb):
        self.deliver = cb

    def on_close(self, cb):
        self.close = cb

    def send(self, payload):
        with self.cond:
            self.sent.append(payload)
            self.cond.notify_all()

    def request(self, op, args=None, rid=None):
        rid = rid or f"{op}-{len(self.sent)}"
        self.deliver({"content": {"data": {"v": 1, "id": rid, "op": op, "args": args or {}}}})
        response = next(m for m in reversed(self.sent) if m.get("id") == rid)
        assert_valid("#/$defs/ResponseMessage", response)
        if response["ok"]:
            assert_valid(f"#/ops/{op}/result", response["result"])
        return response

    def wait_event(self, name, timeout=10.0):
        with self.cond:
            ok = self.cond.wait_for(lambda: any(m.get("event") == name for m in self.sent), timeout)
        assert ok, f"no {name} event; got {[m.get('event') for m in self.sent]}"
        return next(m for m in self.sent if m.get("event") == name)


@pytest.fixture
def wired(store):
    ns = {"sales": pd.DataFrame({"region": ["N", "S", "N"], "amount": [1.0, 2.5, 4.0]})}
    backend = ScriptedBackend()
    shell = SimpleNamespace(user_ns=ns, config=None)

    def build(*, shell, base, approver):
        return build_agent(ShellAgent(auto_extract=False, auto_title=False), store=store, backend=backend,
                           namespace=lambda: ns, approver=approver, base_dir=base)

    runtime = Runtime(shell, build=build, environ={"JPY_SESSION_NAME": "/work/nb/sales.ipynb"})
    dispatcher = comm.Dispatcher(lambda: runtime)
    c = _Comm()
    comm._Endpoint(c, dispatcher)
    yield SimpleNamespace(runtime=runtime, backend=backend, comm=c, store=store, ns=ns)
    runtime.close()


def test_hello_binds_the_notebook_session_by_key(wired):
    r = wired.comm.request("hello", {"protocol": 1, "session_key": "nbkey1"})
    session = r["result"]["session"]
    assert session["key"] == "nbkey1" and session["notebook_path"] == "/work/nb/sales.ipynb"
    assert wired.runtime.panel_connected is True
    # a second kernel for the same notebook (after a rename) finds the session again by its key
    assert wired.store.find_session(None, key="nbkey1").id == session["id"]


def test_a_panel_turn_streams_events_and_lands_in_history(wired):
    wired.backend.enqueue(reply("North sold the most."))
    wired.comm.request("hello", {"protocol": 1, "session_key": "k"})
    r = wired.comm.request("send", {"message": "which region sold most?"})
    assert r["ok"] and r["result"]["phase"] in ("started", "completed")
    finished = wired.comm.wait_event("turn_finished")
    assert finished["data"]["text"] == "North sold the most."
    for m in wired.comm.sent:
        if "event" in m:
            assert_valid("#/$defs/EventMessage", m)
            assert_valid(f"#/events/{m['event']}", m["data"])
    wired.runtime.agent.wait_idle(10)
    history = wired.comm.request("history")["result"]
    assert [(h["role"], h["content"]) for h in history["records"]][-1] == ("assistant", "North sold the most.")
    assert history["records"][0]["content"] == "which region sold most?"


def test_an_approval_answered_through_the_comm_lets_the_tool_run(wired):
    wired.backend.enqueue(
        tool_call("promote_finding", {"content": "North has the largest single sale (4.0)", "tags": ["medium"]}),
        reply("Recorded it."))
    wired.comm.request("hello", {"protocol": 1, "session_key": "k2"})
    wired.comm.request("send", {"message": "note the biggest sale"})
    request = wired.comm.wait_event("approval_request")["data"]
    assert request["tool_name"] == "promote_finding"
    pending = wired.comm.request("history")["result"]["pending_approvals"]
    assert [p["request_id"] for p in pending] == [request["request_id"]]
    assert wired.comm.request("approve", {"request_id": request["request_id"], "approved": True})["ok"]
    wired.comm.wait_event("turn_finished")
    wired.runtime.agent.wait_idle(10)
    findings = wired.comm.request("findings_list")["result"]["findings"]
    assert [f["content"] for f in findings] == ["North has the largest single sale (4.0)"]
    assert findings[0]["severity"] == "medium"


def test_data_lists_live_dataframes(wired):
    wired.comm.request("hello", {"protocol": 1})
    tables = wired.comm.request("data_list")["result"]["tables"]
    sales = next(t for t in tables if t["name"] == "sales")
    assert sales["kind"] == "dataframe" and sales["rows"] == 3
    assert [c["name"] for c in sales["columns"]] == ["region", "amount"]


def test_settings_round_trip_on_the_real_configuration(wired):
    wired.comm.request("hello", {"protocol": 1})
    got = wired.comm.request("settings_get")["result"]
    tools = {t["name"]: t for t in got["tools"]}
    assert tools["query_sql"]["default"] == "ask" and tools["promote_finding"]["default"] == "ask"
    assert got["auto_extraction"] is False
    after = wired.comm.request("settings_set", {"approvals": {"promote_finding": "allow"},
                                                "auto_extraction": True})["result"]
    agent = wired.runtime.agent
    assert agent.settings.approval_overrides == {"promote_finding": False}
    assert agent.gate.overrides == {"promote_finding": False}
    assert {t["name"]: t["override"] for t in after["tools"]}["promote_finding"] == "allow"
    assert after["auto_extraction"] is True
    bad = wired.comm.request("settings_set", {"profile": "nope"})
    assert bad["ok"] is False and "unknown profile" in bad["error"]["message"]


def test_data_sharing_in_hello_settings_and_status(wired):
    hello = wired.comm.request("hello", {"protocol": 1})["result"]
    # the scripted model never leaves the machine: rows, by default
    assert hello["data_sharing"]["level"] == "rows" and hello["data_sharing"]["remote"] is False
    after = wired.comm.request("settings_set", {"data_sharing": "schema"})["result"]
    assert wired.runtime.agent.settings.data_sharing == "schema"
    assert after["data_sharing"]["level"] == "schema" and after["data_sharing"]["explicit"] is True
    back = wired.comm.request("settings_set", {"data_sharing": None})["result"]
    assert wired.runtime.agent.settings.data_sharing is None and back["data_sharing"]["explicit"] is False
    bad = wired.comm.request("settings_set", {"data_sharing": "everything"})
    assert bad["ok"] is False


def test_export_then_import_a_session_through_the_comm(wired):
    wired.backend.enqueue(reply("Noted."))
    hello = wired.comm.request("hello", {"protocol": 1, "session_key": "exp"})["result"]
    wired.comm.request("send", {"message": "remember the north region"})
    wired.comm.wait_event("turn_finished")
    wired.runtime.agent.wait_idle(10)
    wired.comm.request("findings_add", {"content": "North leads every week", "tags": ["info"]})
    exported = wired.comm.request("sessions_export", {"session_id": hello["session"]["id"]})["result"]
    assert exported["filename"].endswith(".shellagent") and exported["size"] > 0
    # the open session keeps working after its engine was closed for the copy
    assert wired.comm.request("data_list")["ok"]
    imported = wired.comm.request("sessions_import", {"filename": "../../evil/" + exported["filename"],
                                                      "data_base64": exported["data_base64"]})["result"]["session"]
    assert imported["id"] != hello["session"]["id"] and imported["current"] is False
    assert [f.content for f in wired.store.findings.list(imported["id"])] == ["North leads every week"]
    assert [r.content for r in wired.store.list_records(imported["id"])][:1] == ["remember the north region"]
    listed = {s["id"] for s in wired.comm.request("sessions_list")["result"]["sessions"]}
    assert {hello["session"]["id"], imported["id"]} <= listed


def test_importing_garbage_is_refused_and_changes_nothing(wired):
    wired.comm.request("hello", {"protocol": 1})
    before = len(wired.store.list_sessions())
    r = wired.comm.request("sessions_import", {"filename": "x.shellagent",
                                               "data_base64": base64.b64encode(b"not a zip").decode()})
    assert r["ok"] is False and r["error"]["code"] == "bad_request"
    assert len(wired.store.list_sessions()) == before


def test_reconnecting_keeps_an_explicitly_chosen_session_and_works_while_busy(wired):
    first = wired.comm.request("hello", {"protocol": 1, "session_key": "key-a"})["result"]["session"]
    agent = wired.runtime.agent
    fresh = agent.new_session()                      # what /reset does
    again = wired.comm.request("hello", {"protocol": 1, "session_key": "key-a"})["result"]["session"]
    assert again["id"] == fresh.id != first["id"]    # not switched back to the keyed session
    # a panel reconnecting while a turn runs still gets its handshake
    gate = threading.Event()
    wired.backend.enqueue(lambda messages, tools: (gate.wait(10), "done")[1])
    wired.comm.request("send", {"message": "slow question"})
    wired.comm.wait_event("turn_started")
    during = wired.comm.request("hello", {"protocol": 1, "session_key": "key-b"})
    assert during["ok"] and during["result"]["state"] == "BUSY"
    gate.set()
    wired.comm.wait_event("turn_finished")


def test_a_keyless_running_session_takes_the_notebook_key(wired):
    agent = wired.runtime.agent                       # built by a %agent cell before the panel came
    assert agent.session.key is None
    session = wired.comm.request("hello", {"protocol": 1, "session_key": "late-key"})["result"]["session"]
    assert session["id"] == agent.session.id and session["key"] == "late-key"
    assert wired.store.find_session(None, key="late-key").id == agent.session.id


def test_a_panel_opened_after_the_approval_was_asked_still_sees_it(wired):
    wired.backend.enqueue(tool_call("promote_finding", {"content": "South is flat", "tags": ["low"]}),
                          reply("ok"))
    agent = wired.runtime.agent
    result = agent.send("note the south", wait=False)          # a turn started before any panel
    assert result.phase == "started"
    for _ in range(200):
        if agent.gate.pending():
            break
        threading.Event().wait(0.02)
    wired.comm.request("hello", {"protocol": 1})
    pending = wired.comm.request("history")["result"]["pending_approvals"]
    assert [p["tool_name"] for p in pending] == ["promote_finding"]
    assert wired.comm.request("approve", {"request_id": pending[0]["request_id"], "approved": False,
                                          "feedback": "not yet"})["ok"]
    assert agent.wait_idle(10)
    assert wired.store.findings.list(agent.session.id) == []


def test_insert_sql_as_cell_reaches_the_connected_panel_only(wired):
    assert wired.runtime.insert_cell("%%agent_sql\nSELECT 1\n") is False        # no panel yet
    wired.comm.request("hello", {"protocol": 1})
    assert wired.runtime.insert_cell("%%agent_sql\nSELECT 1\n") is True
    message = wired.comm.sent[-1]
    assert_valid("#/$defs/CommandMessage", message)
    assert_valid("#/commands/insert_cell", message["args"])
    assert message == {"v": 1, "command": "insert_cell", "args": {"code": "%%agent_sql\nSELECT 1\n"}}
    wired.comm.request("hello", {"protocol": 1})                                 # a second hello adds no twin
    assert wired.runtime.insert_cell_handlers.count(wired.runtime.insert_cell_handlers[0]) == 1
    assert len(wired.runtime.insert_cell_handlers) == 1
    assert len(wired.runtime.command_handlers) == 1
    wired.comm.close({})
    assert wired.runtime.insert_cell_handlers == [] and wired.runtime.command_handlers == []
    assert wired.runtime.insert_cell("SELECT 2") is False


def test_a_panel_turn_inserts_its_cells_into_the_panels_notebook_and_runs_them(wired):
    sql = "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1"
    wired.runtime.agent.settings.approval_overrides = {"query_sql": False}
    wired.backend.enqueue(tool_call("query_sql", {"sql": sql}), reply("N leads with 5.0."))
    wired.comm.request("hello", {"protocol": 1, "session_key": "k3"})
    assert wired.comm.request("send", {"message": "which region leads?"})["ok"]
    wired.comm.wait_event("turn_finished")
    (sync,) = _commands(wired, "sync_cells")
    turn = sync["args"]["turn"]
    assert sync["args"] == {"source_cell": None, "turn": turn, "mode": "replace",
                            "mark": "# shell-agent-lab: which region leads?",
                            "cells": [{"code": f"%%agent_sql\n-- shell-agent-lab: which region leads?\n{sql}",
                                       "step": 1, "run": True, "kind": "sql"}]}
    assert wired.runtime.last_cells[0].kind == "sql"
    assert wired.runtime.last_cell_set.turn == turn


def _commands(wired, name, count=1):
    """The ``name`` commands the kernel sent, once ``count`` of them came (each checked against the schema)."""
    with wired.comm.cond:
        assert wired.comm.cond.wait_for(
            lambda: sum(m.get("command") == name for m in wired.comm.sent) >= count, 10), f"no {name} command"
    found = [m for m in wired.comm.sent if m.get("command") == name]
    for m in found:
        assert_valid("#/$defs/CommandMessage", m)
        assert_valid(f"#/commands/{name}", m["args"])
    return found


def test_undo_cells_sends_back_what_the_panel_reported_for_the_last_turn(wired):
    sql = "SELECT region FROM sales"
    wired.runtime.agent.settings.approval_overrides = {"query_sql": False}
    wired.comm.request("hello", {"protocol": 1, "session_key": "k7"})
    assert wired.comm.request("undo_cells", {})["result"]["undone"] is False          # nothing changed yet
    wired.backend.enqueue(tool_call("query_sql", {"sql": sql}), reply("N and S."))
    assert wired.comm.request("send", {"message": "which regions?"})["ok"]
    (sync,) = _commands(wired, "sync_cells")
    turn = sync["args"]["turn"]
    replaced = {"id": "c9", "source": "x = 1", "metadata": {"tags": ["mine"]}}
    change = {"turn": turn, "inserted": ["c10"], "replaced": [replaced], "removed": []}
    assert wired.comm.request("cells_changed", change)["result"] == {"kept": True}
    # a later report for the same turn (``/cells`` adding a missing cell) adds to it
    more = {"turn": turn, "inserted": ["c11"], "replaced": [], "removed": []}
    assert wired.comm.request("cells_changed", more)["result"] == {"kept": True}
    assert wired.comm.request("undo_cells", {"turn": "another"})["result"]["undone"] is False
    result = wired.comm.request("undo_cells", {"turn": turn})["result"]
    assert result == {"undone": True, "text": "Undone: removed 2 cells, restored 1 cell."}
    (undo,) = _commands(wired, "undo_cells")
    assert undo["args"] == {"turn": turn, "inserted": ["c10", "c11"], "replaced": [replaced], "removed": []}
    assert wired.comm.request("undo_cells", {})["result"]["undone"] is False          # one level only


def test_a_change_the_panel_could_not_get_leaves_the_last_one_to_undo(wired):
    from shell_agent_lab.notebook.cell_changes import begin_change

    wired.comm.request("hello", {"protocol": 1, "session_key": "k8"})
    change = {"turn": "t1", "inserted": ["c1"], "replaced": [], "removed": []}
    begin_change(wired.runtime, "t1", lambda: True)
    assert wired.comm.request("cells_changed", change)["result"] == {"kept": True}
    assert begin_change(wired.runtime, "t2", lambda: False) is False                 # not sent
    assert wired.comm.request("cells_changed", {**change, "turn": "t3", "inserted": []})["result"] == {"kept": False}
    assert wired.comm.request("undo_cells", {})["result"]["undone"] is True
    assert _commands(wired, "undo_cells")[0]["args"]["turn"] == "t1"


def test_the_panels_notebook_cells_feed_read_notebook_while_it_is_connected(wired):
    from shell_agent_lab.tools.read_notebook import _handler, set_reader
    from shell_agent_lab.tools.registry import ToolContext

    wired.comm.request("hello", {"protocol": 1, "session_key": "k4"})
    cells = [{"index": 1, "kind": "markdown", "source": "# Weekly sales", "id": "m1"},
             {"index": 2, "kind": "code", "source": "sales.amount.sum() / 0", "output": "",
              "error": "ZeroDivisionError: division by zero", "id": "c2"}]
    assert wired.comm.request("notebook_cells", {"cells": cells})["result"] == {"cells": 2}
    try:
        text = _handler(ToolContext(session_id="s", namespace={"In": ["", "x = 1"], "Out": {}}), {}).content
        assert "[cell 1 markdown]\n# Weekly sales" in text and "ZeroDivisionError" in text and "x = 1" not in text
        wired.comm.close({})                                  # the panel left: the kernel's history again
        text = _handler(ToolContext(session_id="s", namespace={"In": ["", "x = 1"], "Out": {}}), {}).content
        assert "x = 1" in text and "Weekly sales" not in text
    finally:
        set_reader(None)


def test_insert_only_on_the_panels_approval_card_inserts_the_code_unrun(wired):
    code = "sales['double'] = sales.amount * 2"
    wired.backend.enqueue(tool_call("run_python", {"code": code}), reply("It is in a new cell."))
    wired.comm.request("hello", {"protocol": 1, "session_key": "k5"})
    wired.comm.request("send", {"message": "double the amounts with python"})
    request = wired.comm.wait_event("approval_request")["data"]
    assert request["tool_name"] == "run_python"
    assert wired.comm.request("approve", {"request_id": request["request_id"], "approved": True,
                                          "action": "insert_cell"})["ok"]
    wired.comm.wait_event("turn_finished")
    (sync,) = _commands(wired, "sync_cells")
    assert sync["args"]["cells"] == [{"code": code, "step": 1, "run": False, "kind": "python"}]
    assert "double" not in wired.ns                                # nothing ran


def test_a_slow_commands_reply_arrives_as_a_command_result_naming_its_request(wired):
    from shell_agent_lab.notebook import workspace
    from shell_agent_lab.tools.read_notebook import Failure, record_failure

    gate = threading.Event()

    def slow_fix(messages, tools):
        assert gate.wait(10), "the test never let the model answer"
        return reply("```python\nsales.amount.sum() / 2\n```\nDivide by two, not zero.")

    workspace.register()
    record_failure(Failure("sales.amount.sum() / 0", "ZeroDivisionError: division by zero", "c7", 3))
    try:
        wired.backend.enqueue(slow_fix)
        wired.comm.request("hello", {"protocol": 1, "session_key": "k6"})
        quick = wired.comm.request("send", {"message": "/fix"}, rid="fix-req-1")
        assert quick["result"] == {"phase": "started", "text": None, "error": None}   # the model has not answered
        gate.set()
        event = wired.comm.wait_event("command_result")
        assert_valid("#/$defs/EventMessage", event)
        assert_valid("#/events/command_result", event["data"])
        data = event["data"]
        assert data["request_id"] == "fix-req-1" and data["phase"] == "command" and data["error"] is None
        assert "-sales.amount.sum() / 0\n+sales.amount.sum() / 2" in data["text"]
        # a quick command still answers in the response, and no event repeats it
        wired.runtime.agent.wait_idle(10)
        record_failure(None)
        answer = wired.comm.request("send", {"message": "/fix"}, rid="fix-req-2")["result"]
        assert answer["phase"] == "command" and answer["text"].startswith("No cell has failed")
        assert [m["data"]["request_id"] for m in wired.comm.sent if m.get("event") == "command_result"] == ["fix-req-1"]
    finally:
        gate.set()
        workspace.unregister()


def test_a_slow_commands_error_arrives_as_a_command_result_too(wired):
    from shell_agent_lab.notebook import workspace
    from shell_agent_lab.tools.read_notebook import Failure, record_failure

    gate = threading.Event()

    def failing_model(messages, tools):
        assert gate.wait(10), "the test never let the model answer"
        raise ValueError("the model refused the request")

    workspace.register()
    record_failure(Failure("sales.amount.sum() / 0", "ZeroDivisionError: division by zero", "c8", 4))
    try:
        wired.backend.enqueue(failing_model)
        wired.comm.request("hello", {"protocol": 1, "session_key": "k7"})
        assert wired.comm.request("send", {"message": "/fix"}, rid="fix-err")["result"]["phase"] == "started"
        gate.set()
        data = wired.comm.wait_event("command_result", timeout=30)["data"]
        assert_valid("#/events/command_result", data)
        assert data["request_id"] == "fix-err" and data["phase"] == "error" and data["text"] is None
        assert data["error"].startswith("/fix: ") and "refused" in data["error"]
    finally:
        gate.set()
        workspace.unregister()
