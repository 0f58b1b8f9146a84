"""Every op against a real Store: results match the schema, bad input gets a one-line error."""
from __future__ import annotations

import threading
import uuid

import pytest

from shell_agent_lab.notebook import comm

from .conftest import assert_valid


def _hello(call, key="k1"):
    return call("hello", {"protocol": 1, "client": "test", "notebook_path": "sales.ipynb", "session_key": key})


def test_hello_binds_the_session_key_and_reports_the_protocol(call, runtime, store, session):
    result = _hello(call)["result"]
    assert result["protocol"] == 1
    assert result["session"]["id"] == session.id and result["session"]["current"] is True
    assert result["session"]["key"] == "k1"
    assert store.get_session(session.id).key == "k1"
    assert runtime.panel_connected is True and runtime.keys == ["k1"]
    assert "send" in result["ops"] and "findings_updated" in result["events"]
    assert result["state"] == "READY"


def test_hello_with_another_protocol_version_is_refused(call):
    response = call("hello", {"protocol": 2}, ok=False)
    assert response["error"]["code"] == "version_mismatch"
    assert "protocol 2" in response["error"]["message"]


def test_malformed_and_unknown_requests_get_clear_errors(dispatcher):
    r = dispatcher.handle({"v": 1, "id": "x", "op": "nope", "args": {}})
    assert (r["ok"], r["error"]["code"], r["id"]) == (False, "unknown_op", "x")
    r = dispatcher.handle({"v": 1, "id": "y", "op": "send", "args": {}})
    assert r["error"]["code"] == "bad_request" and "'message' is a required property" in r["error"]["message"]
    r = dispatcher.handle({"v": 1, "id": "z", "op": "send", "args": {"message": "hi", "extra": 1}})
    assert r["error"]["code"] == "bad_request"
    r = dispatcher.handle("not json object")
    assert r["ok"] is False and r["id"] is None and r["error"]["code"] == "bad_request"
    for response in (r,):
        assert_valid("#/$defs/ResponseMessage", response)


def test_a_failing_agent_is_reported_as_no_agent(store):
    class Broken:
        panel_connected = False

        @property
        def agent(self):
            raise RuntimeError("profile 'gpt' needs OPENAI_API_KEY")

        def set_notebook_key(self, key):
            return None

    d = comm.Dispatcher(lambda: Broken())
    r = d.handle({"v": 1, "id": "h", "op": "hello", "args": {"protocol": 1}})
    assert r["error"]["code"] == "no_agent" and "OPENAI_API_KEY" in r["error"]["message"]


def test_send_runs_a_turn_and_history_shows_it(call, agent, session):
    events = []
    agent.events.subscribe(events.append)
    result = call("send", {"message": "total by region?"})["result"]
    assert result["phase"] in ("completed", "started")
    assert agent.sent == ["total by region?"]
    # the turn ran on a worker thread; its records are the session's
    for _ in range(100):
        records = call("history")["result"]["records"]
        if len(records) == 2:
            break
        threading.Event().wait(0.02)
    assert [r["role"] for r in records] == ["user", "assistant"]
    assert records[1]["content"] == "echo: total by region?"
    assert [e.type for e in events][:3] == ["turn_started", "stream_token", "turn_finished"]


def test_send_does_not_block_the_comm_while_a_turn_waits(call, agent):
    gate = threading.Event()
    agent.reply = lambda m: (gate.wait(5), "late")[1]
    result = call("send", {"message": "slow one"})["result"]
    assert result["phase"] == "started"
    # meanwhile other requests (approve, abort) are answered at once
    assert call("abort")["result"] == {"aborted": True}
    gate.set()


def test_slash_commands_answer_with_their_text(call):
    result = call("send", {"message": "/help"})["result"]
    assert result == {"phase": "command", "text": "ran /help", "error": None}


def test_blank_message_is_refused(call):
    assert call("send", {"message": "   "}, ok=False)["error"]["code"] == "bad_request"


def test_approve_resolves_a_pending_request_and_history_lists_pending(call, agent, runtime, session):
    _hello(call)
    runtime.pending.add("req-1")
    agent.events.publish("approval_request", {"request_id": "req-1", "tool_name": "query_sql",
                                              "arguments": {"sql": "SELECT 1"}, "category": "read",
                                              "dialog": None, "preview": "SELECT 1"}, session_id=session.id)
    pending = call("history")["result"]["pending_approvals"]
    assert [p["request_id"] for p in pending] == ["req-1"]
    assert call("approve", {"request_id": "req-1", "approved": False, "feedback": "use LIMIT"})["result"] == {"resolved": True}
    assert runtime.approvals == [("req-1", False, "use LIMIT")]
    assert call("history")["result"]["pending_approvals"] == []
    again = call("approve", {"request_id": "req-1", "approved": True}, ok=False)
    assert again["error"]["code"] == "not_found"


def test_memory_list_pin_demote_edit_delete(call, store, session, agent):
    seen = []
    agent.events.subscribe(lambda e: seen.append(e.type))
    g = store.global_memory.add("Fiscal year starts in April", "decision", source="user_turn").entry
    s = store.session_memory.add(session.id, "sales.csv has one row per week", "fact", source="user_turn").entry
    sug = store.session_memory.add(session.id, "User prefers plotly charts", "preference",
                                   source="assistant_turn", suggested=True).entry
    listed = call("memory_list")["result"]
    assert [e["id"] for e in listed["global"]] == [g.id]
    assert listed["global"][0]["trust"] == "user-stated"
    assert [e["id"] for e in listed["session"]] == [s.id]
    assert [e["id"] for e in listed["suggestions"]] == [sug.id]
    assert listed["suggestions"][0]["trust"] == "derived"

    pinned = call("memory_pin", {"entry_id": sug.id, "category": "preference"})["result"]["entry"]
    assert pinned["scope"] == "global" and pinned["fact"] == "User prefers plotly charts"
    assert "global_memory_updated" in seen
    assert {e.fact for e in store.global_memory.list()} == {"Fiscal year starts in April", "User prefers plotly charts"}

    demoted = call("memory_demote", {"entry_id": g.id})["result"]["entry"]
    assert demoted["scope"] == "session"
    assert {e.fact for e in store.global_memory.list()} == {"User prefers plotly charts"}

    edited = call("memory_edit", {"scope": "session", "entry_id": s.id, "fact": "sales.csv: one row per week and region"})
    assert edited["result"]["entry"]["fact"] == "sales.csv: one row per week and region"

    ids = [e.id for e in store.session_memory.list(session.id)]
    assert call("memory_delete", {"scope": "session", "ids": ids})["result"]["deleted"] == len(ids)
    assert store.session_memory.list(session.id) == []


def test_memory_edit_needs_a_change_and_ids_must_be_numbers(call):
    assert call("memory_edit", {"scope": "global", "entry_id": 1}, ok=False)["error"]["code"] == "bad_request"
    r = call("memory_delete", {"scope": "global", "ids": ["abc"]}, ok=False)
    assert r["error"]["code"] == "bad_request" and "number" in r["error"]["message"]


def test_pin_is_refused_in_a_private_session(call, store, runtime, agent):
    private = store.create_session(title="secret", private=True)
    agent.open_session(private.id)
    e = store.session_memory.add(private.id, "revenue is confidential", "fact", source="user_turn").entry
    r = call("memory_pin", {"entry_id": e.id, "category": "decision"}, ok=False)
    assert r["error"]["code"] == "private_session"
    assert store.global_memory.list() == []
    assert call("memory_list")["result"]["private"] is True


def test_findings_add_list_pin_delete(call, store, session, agent):
    seen = []
    agent.events.subscribe(lambda e: seen.append(e.type))
    added = call("findings_add", {"content": "Week 12 sales dropped 40% in the North", "tags": ["high"]})["result"]
    assert added["duplicate"] is False and added["finding"]["severity"] == "high"
    assert "findings_updated" in seen
    dup = call("findings_add", {"content": "Week 12 sales dropped 40% in the North"})["result"]
    assert dup == {"finding": None, "duplicate": True}
    store.findings.add(session.id, "Returns spike after promotions", tags=("medium", "sales"))
    listed = call("findings_list")["result"]["findings"]
    assert [f["content"] for f in listed] == ["Returns spike after promotions", "Week 12 sales dropped 40% in the North"]
    entry = call("findings_pin", {"finding_id": listed[1]["id"], "category": "decision"})["result"]["entry"]
    assert entry["scope"] == "global" and "Week 12" in entry["fact"]
    assert call("findings_delete", {"ids": [f["id"] for f in listed]})["result"]["deleted"] == 2
    assert call("findings_list")["result"]["findings"] == []


def test_findings_pin_of_a_missing_finding_is_not_found(call):
    r = call("findings_pin", {"finding_id": "0" * 32, "category": "decision"}, ok=False)
    assert r["error"]["code"] == "not_found"


def test_data_list_refreshes_dataframes(call, agent):
    tables = call("data_list")["result"]["tables"]
    assert agent.engine().refreshed == 1
    assert tables[0] == {"name": "sales", "kind": "table", "rows": 3,
                         "columns": [{"name": "region", "type": "VARCHAR"}, {"name": "amount", "type": "DOUBLE"}]}
    assert tables[1]["kind"] == "dataframe"


def test_sessions_list_rename_delete(call, store, session, agent):
    other = store.create_session(title="Old analysis", notebook_path="/nb/old.ipynb", private=True)
    listed = call("sessions_list")["result"]
    assert listed["current"] == session.id
    by_id = {s["id"]: s for s in listed["sessions"]}
    assert by_id[session.id]["current"] is True and by_id[other.id]["private"] is True
    seen = []
    agent.events.subscribe(lambda e: seen.append((e.type, e.data)))
    renamed = call("sessions_rename", {"session_id": other.id, "title": "Q1 churn"})["result"]["session"]
    assert renamed["title"] == "Q1 churn" and store.get_session(other.id).title == "Q1 churn"
    assert ("session_renamed", {"session_id": other.id, "title": "Q1 churn"}) in seen
    r = call("sessions_delete", {"session_id": session.id}, ok=False)
    assert r["error"]["code"] == "bad_request" and "/reset" in r["error"]["message"]
    assert call("sessions_delete", {"session_id": other.id})["result"] == {"deleted": 1}
    assert store.get_session(other.id) is None
    assert call("sessions_delete", {"session_id": other.id}, ok=False)["error"]["code"] == "not_found"


def test_sessions_import_rejects_bad_base64(call):
    r = call("sessions_import", {"filename": "x.zip", "data_base64": "%%%not base64"}, ok=False)
    assert r["error"]["code"] == "bad_request"


def test_settings_get_and_set(call, agent):
    got = call("settings_get")["result"]
    assert got["profile"] is None or got["profile"] == "replay"
    assert {p["name"] for p in got["profiles"]} == {"replay", "local"}
    assert {t["name"]: t["default"] for t in got["tools"]} == {"query_sql": "ask", "describe_table": "allow"}
    new = call("settings_set", {"approvals": {"query_sql": "allow", "describe_table": "deny"},
                                "auto_extraction": True})["result"]
    assert agent.settings.approval_overrides == {"query_sql": False} and agent.settings.auto_extract is True
    assert agent.settings.disabled_tools == ["describe_table"]
    assert {t["name"]: t["override"] for t in new["tools"]} == {"query_sql": "allow", "describe_table": "deny"}
    call("settings_set", {"approvals": {"query_sql": None, "describe_table": "ask"}})
    assert agent.settings.approval_overrides == {"describe_table": True} and agent.settings.disabled_tools == []
    call("settings_set", {"profile": "local", "model": "smollm2"})
    assert agent.profile_switches == [("profile", "local"), ("model", "smollm2")]
    r = call("settings_set", {"approvals": {"query_sql": "maybe"}}, ok=False)
    assert r["error"]["code"] == "bad_request"


def test_handlers_are_safe_from_many_threads(call, store, session):
    errors = []

    def worker(n):
        try:
            for i in range(5):
                # distinct wording so the store's near-duplicate check keeps all of them
                call("findings_add", {"content": f"{uuid.uuid4().hex} {uuid.uuid4().hex} thread {n} item {i}"})
                call("findings_list")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.findings.list(session.id)) == 20


def test_events_are_forwarded_as_schema_valid_messages(dispatcher, agent, session):
    sent = []

    class Comm:
        def on_msg(self, cb):
            self.msg = cb

        def on_close(self, cb):
            self.close = cb

        def send(self, payload):
            sent.append(payload)

    c = Comm()
    comm._Endpoint(c, dispatcher)
    c.msg({"content": {"data": {"v": 1, "id": "h", "op": "hello", "args": {"protocol": 1}}}})
    assert sent[-1]["ok"] is True
    sent.clear()
    agent.send("hi", wait=False)
    assert [m["event"] for m in sent] == ["turn_started", "stream_token", "turn_finished"]
    for message in sent:
        assert_valid("#/$defs/EventMessage", message)
        assert_valid(f"#/events/{message['event']}", message["data"])
        assert message["session_id"] == session.id
    c.close({})
    sent.clear()
    agent.send("after close", wait=False)
    assert sent == []


def test_panel_connected_follows_open_comms(dispatcher, runtime):
    class Comm:
        def on_msg(self, cb):
            self.msg = cb

        def on_close(self, cb):
            self.close = cb

        def send(self, payload):
            pass

    a, b = Comm(), Comm()
    for c in (a, b):
        comm._Endpoint(c, dispatcher)
        c.msg({"content": {"data": {"v": 1, "id": "h", "op": "hello", "args": {"protocol": 1}}}})
    assert runtime.panel_connected is True
    a.close({})
    a.close({})                      # a repeated close counts once
    assert runtime.panel_connected is True
    b.close({})
    assert runtime.panel_connected is False
