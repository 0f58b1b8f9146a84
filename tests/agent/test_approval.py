"""The approval gate: resolution order, approvers, headless policies, per-request slots."""
from __future__ import annotations

import threading

import pytest

from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.tools.approval import PENDING, ApprovalDecision, ApprovalGate, ApprovalRequest
from shell_agent_lab.tools.registry import ToolDescriptor

FEEDBACK_TEXT = ("User rejected this operation.\nFeedback: use a view instead\n"
                 "Please revise your approach based on the feedback.")


class DropTable:
    def __init__(self) -> None:
        self.ran: list[dict] = []
        self.decisions: list = []

    def __call__(self, ctx, args):
        self.ran.append(args)
        self.decisions.append(ctx.decision)
        return f"dropped {args['table']}"

    def descriptor(self, **kw) -> ToolDescriptor:
        return ToolDescriptor("drop_table", "Drops a table.",
                              {"type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]},
                              self, category="write", approval_default=True, **kw)


def setup(make_agent, approver=None, script=None):
    tool = DropTable()
    backend = ScriptedBackend(script or [call("drop_table", {"table": "sales"}, id="t1"), "done"])
    agent, rec = make_agent(backend, approver=approver)
    agent.registry.register(tool.descriptor())
    return agent, rec, tool, backend


def tool_record(store, agent):
    return [r for r in store.list_records(agent.session.id) if r.role == "tool"][-1]


def test_approved_call_runs(make_agent, store):
    asked: list[ApprovalRequest] = []
    agent, rec, tool, _ = setup(make_agent, approver=lambda req: asked.append(req) or ApprovalDecision(True))
    r = agent.run("drop it")
    assert tool.ran == [{"table": "sales"}]
    assert asked[0].tool_name == "drop_table" and asked[0].category == "write"
    assert '"table": "sales"' in asked[0].preview
    req_event = rec.of("approval_request")[0]
    assert req_event.data["request_id"] == asked[0].id
    assert r.tool_activity[0].status == "success"


def test_rejection_without_feedback_text(make_agent, store):
    agent, _, tool, _ = setup(make_agent, approver=lambda req: ApprovalDecision(False))
    r = agent.run("drop it")
    assert tool.ran == []
    rec = tool_record(store, agent)
    assert rec.content == "Tool execution rejected by user." and rec.status == "error"
    assert r.tool_activity[0].status == "rejected"


def test_rejection_with_feedback_text_is_exact(make_agent, store):
    agent, _, tool, backend = setup(make_agent, approver=lambda req: ApprovalDecision(False, "use a view instead"))
    agent.run("drop it")
    assert tool_record(store, agent).content == FEEDBACK_TEXT
    sent = [m for m in backend.requests[-1].messages if m.role == "tool"][0].content
    assert FEEDBACK_TEXT in sent


def test_override_false_runs_without_asking(make_agent, settings):
    settings.approval_overrides = {"drop-table": False}
    asked = []
    agent, _, tool, _ = setup(make_agent, approver=lambda req: asked.append(req) or ApprovalDecision(False))
    agent.run("drop it")
    assert asked == [] and tool.ran == [{"table": "sales"}]


def test_override_true_asks_for_a_read_tool(make_agent, settings, store):
    settings.approval_overrides = {"resolve_date": True}
    asked = []
    script = [call("resolve_date", {"expression": "today"}), "ok"]
    agent, _, _, _ = setup(make_agent, approver=lambda req: asked.append(req) or ApprovalDecision(False),
                           script=script)
    agent.run("date")
    assert [a.tool_name for a in asked] == ["resolve_date"]
    assert tool_record(store, agent).content == "Tool execution rejected by user."


def test_headless_ask_declines_with_a_notice(make_agent, settings, store):
    agent, rec, tool, _ = setup(make_agent, approver=lambda req: None)
    r = agent.run("drop it")
    assert tool.ran == []
    assert tool_record(store, agent).content == "Tool execution rejected by user."
    notice = r.tool_activity[0].notice
    assert 'ShellAgent.approval_policy = "approve"' in notice
    assert 'ShellAgent.approval_overrides = {"drop_table": False}' in notice
    assert rec.of("approval_resolved")[0].data["approved"] is False


def test_no_approver_at_all_is_headless(make_agent, store):
    agent, _, tool, _ = setup(make_agent, approver=None)
    agent.run("drop it")
    assert tool.ran == []


def test_policy_approve_runs_and_says_what_it_approved(make_agent, settings):
    settings.approval_policy = "approve"
    asked = []
    agent, rec, tool, _ = setup(make_agent, approver=lambda req: asked.append(req))
    r = agent.run("drop it")
    assert asked == [] and tool.ran == [{"table": "sales"}]
    assert "Approved `drop_table` by policy" in r.tool_activity[0].notice
    assert '"table": "sales"' in r.tool_activity[0].notice
    resolved = rec.of("approval_resolved")[0].data
    assert resolved["approved"] is True and "drop_table" in resolved["notice"]


def test_policy_decline(make_agent, settings, store):
    settings.approval_policy = "decline"
    agent, _, tool, _ = setup(make_agent, approver=lambda req: ApprovalDecision(True))
    r = agent.run("drop it")
    assert tool.ran == [] and "Declined `drop_table` by policy" in r.tool_activity[0].notice
    assert tool_record(store, agent).content == "Tool execution rejected by user."


def test_pending_answered_from_another_thread_with_stray_and_double_answers(make_agent):
    agent, rec, tool, _ = setup(make_agent, approver=lambda req: PENDING,
                                script=[call("drop_table", {"table": "a"}), call("drop_table", {"table": "b"}),
                                        "done"])
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", agent.run("drop both")))
    t.start()
    first = rec.wait_for("approval_request")
    assert agent.resolve_approval("apr-stray", True) is False        # unknown id: no-op
    assert agent.resolve_approval(first.data["request_id"], True, action="insert_cell") is True
    assert agent.resolve_approval(first.data["request_id"], True) is False   # double click: no-op
    second = rec.wait_for("approval_request", lambda e: e.data["request_id"] != first.data["request_id"])
    # the stale answer for the first request never approves the second
    assert agent.resolve_approval(first.data["request_id"], True) is False
    assert agent.gate.pending()[0].id == second.data["request_id"]
    agent.resolve_approval(second.data["request_id"], False, "not b")
    t.join(10)
    assert tool.ran == [{"table": "a"}]
    assert tool.decisions[0].action == "insert_cell"
    assert out["r"].text == "done"


def test_abort_while_waiting_for_approval(make_agent):
    agent, rec, tool, _ = setup(make_agent, approver=lambda req: PENDING)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", agent.run("drop it")))
    t.start()
    rec.wait_for("approval_request")
    agent.abort()
    t.join(10)
    assert out["r"].text == "(Cancelled)" and tool.ran == []
    assert agent.gate.pending() == []


def test_resolution_order():
    gate = ApprovalGate({"mcp__files__read": False})
    plain = ToolDescriptor("list_tables", "x", {"type": "object"}, lambda c, a: "")
    asking = ToolDescriptor("query_sql", "x", {"type": "object"}, lambda c, a: "", approval_default=True)
    mcp_named = ToolDescriptor("mcp__files__write", "x", {"type": "object"}, lambda c, a: "")
    mcp_source = ToolDescriptor("fetch", "x", {"type": "object"}, lambda c, a: "", source="mcp")
    mcp_overridden = ToolDescriptor("mcp__files__read", "x", {"type": "object"}, lambda c, a: "")
    sandbox = ToolDescriptor("sandbox_run_shell", "x", {"type": "object"}, lambda c, a: "")
    assert [gate.required(d) for d in (plain, asking, mcp_named, mcp_source, mcp_overridden, sandbox)] == \
        [False, True, True, True, False, True]
    gate.overrides = {"query-sql": False, "list_tables": True}
    assert gate.required(asking) is False and gate.required(plain) is True


def test_approver_that_raises_declines(make_agent):
    def broken(req):
        raise RuntimeError("widget gone")
    agent, _, tool, _ = setup(make_agent, approver=broken)
    r = agent.run("drop it")
    assert tool.ran == [] and "failed" in r.tool_activity[0].notice


def test_invalid_policy_is_refused():
    with pytest.raises(ValueError, match='"ask", "ask_all", "approve" or "decline"'):
        ApprovalGate(policy="maybe")


def test_the_first_answer_wins_when_panel_and_prompt_both_answer(make_agent, store):
    holder = {}

    def approver(req):
        # the panel answers while the in-cell prompt is still open; then the prompt answers too
        assert holder["agent"].resolve_approval(req.id, False, "panel said no") is True
        return ApprovalDecision(True)

    agent, rec, tool, _ = setup(make_agent, approver=approver)
    holder["agent"] = agent
    agent.run("drop it")
    assert tool.ran == []
    assert "Feedback: panel said no" in tool_record(store, agent).content
    assert [e.data["approved"] for e in rec.of("approval_resolved")] == [False]
