"""Approvals in the notebook: widget while the cell waits, input(), and the headless policy."""
from __future__ import annotations

import threading

import pandas as pd
import pytest
from nbhelpers import run

from shell_agent_lab.llm.scripted import call, reply
from shell_agent_lab.notebook.approval import parse_answer
from shell_agent_lab.notebook.runtime import get_runtime

SQL = "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1"


@pytest.fixture
def sales(shell):
    shell.user_ns["sales"] = pd.DataFrame({"region": ["EU", "US"], "amount": [3, 2]})


def _tool_result(backend):
    """What the model was told about the query_sql call (the tool message of the 2nd request)."""
    msgs = backend.requests[1].messages
    return next(m.content for m in msgs if m.role == "tool")


def _all_text(cap):
    return cap.stdout + "\n".join(str(o.data.get("text/plain", "")) for o in cap.outputs)


def test_headless_ask_declines_and_says_how_to_allow(shell, backend, sales):
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("I could not run it."))
    res, cap = run(shell, "%agent totals by region?")
    res.raise_error()
    assert "rejected" in _tool_result(backend).lower()
    assert 'approval_policy = "approve"' in _all_text(cap)


def test_headless_approve_policy_runs_and_prints_what_it_approved(shell, backend, sales):
    shell.run_line_magic("config", 'ShellAgent.approval_policy = "approve"')
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("EU leads."))
    res, cap = run(shell, "r = %agent totals by region?")
    res.raise_error()
    assert "EU" in _tool_result(backend) and "rejected" not in _tool_result(backend).lower()
    assert "Approved `query_sql` by policy" in _all_text(cap) and SQL in _all_text(cap)


def test_decline_policy_declines_even_with_a_human(shell, backend, sales, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "stdin")
    shell.run_line_magic("config", 'ShellAgent.approval_policy = "decline"')
    asked = []
    get_runtime().approver._input = lambda prompt: asked.append(prompt) or "y"
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("Declined."))
    res, cap = run(shell, "%agent totals?")
    res.raise_error()
    assert asked == [] and "rejected" in _tool_result(backend).lower()


def test_per_tool_override_wins_over_the_policy(shell, backend, sales):
    shell.run_line_magic("config", 'ShellAgent.approval_policy = "decline"')
    shell.run_line_magic("config", 'ShellAgent.approval_overrides = {"query_sql": False}')
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("EU leads."))
    run(shell, "%agent totals?")[0].raise_error()
    assert "rejected" not in _tool_result(backend).lower()


def test_console_frontend_asks_through_input_on_the_cells_thread(shell, backend, sales, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "stdin")
    threads = []

    def fake_input(prompt):
        threads.append(threading.current_thread() is threading.main_thread())
        return "n: use the 2023 table"

    get_runtime().approver._input = fake_input
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("OK, revising."))
    res, cap = run(shell, "%agent totals?")
    res.raise_error()
    assert threads == [True]
    assert "Approval needed: query_sql" in cap.stdout and SQL in cap.stdout
    assert "Feedback: use the 2023 table" in _tool_result(backend)


def _click_when_shown(monkeypatch, button: str) -> list:
    """Show approvals as widgets and click ``button`` from another thread, as a comm on a
    subshell would while the cell still waits; returns the widgets shown."""
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "widgets")
    approver = get_runtime().approver
    make = approver._make_widget
    shown = []

    def make_and_click(request, on_answer):
        widget = make(request, on_answer)
        shown.append(widget)
        threading.Timer(0.2, getattr(widget, button).click).start()
        return widget

    approver._make_widget = make_and_click
    return shown


def test_widget_answer_from_another_thread_resolves_the_waiting_cell(shell, backend, sales, monkeypatch):
    shown = _click_when_shown(monkeypatch, "approve")
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("EU leads with 3."))
    res, cap = run(shell, "r = %agent totals?")
    res.raise_error()
    assert len(shown) == 1 and shown[0].answered is True
    assert "EU" in _tool_result(backend)
    assert shell.user_ns["r"].text == "EU leads with 3."


@pytest.mark.parametrize("text, expected", [
    ("y", (True, "")), ("YES", (True, "")), ("", (False, "")), ("n", (False, "")),
    ("no: too broad", (False, "too broad")), ("use 2023 only", (False, "use 2023 only")),
])
def test_parse_answer(text, expected):
    assert parse_answer(text) == expected


def test_an_answer_from_the_side_panel_marks_the_widget(shell, backend, sales, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "widgets")
    rt = get_runtime()
    approver = rt.approver
    make = approver._make_widget
    shown = []

    def make_and_answer_elsewhere(request, on_answer):
        widget = make(request, on_answer)
        shown.append(widget)
        # the panel answers through the runtime, not through this widget
        threading.Timer(0.2, rt.resolve_approval, args=(request.id, False, "not now")).start()
        return widget

    approver._make_widget = make_and_answer_elsewhere
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("Fine."))
    run(shell, "%agent totals?")[0].raise_error()
    assert shown[0].approve.disabled and "rejected: not now" in shown[0].result.value
    assert "Feedback: not now" in _tool_result(backend)


CODE = "doubled = sales.amount * 2\ndoubled.sum()"


def _assert_inserted_not_run(shell, backend, res):
    res.raise_error()
    assert "doubled" not in shell.user_ns                       # nothing ran
    assert "has not been executed" in _tool_result(backend)
    assert shell.rl_next_input == CODE                          # the code waits as the next cell


def test_code_can_be_inserted_as_a_cell_from_the_widget(shell, backend, sales, monkeypatch):
    shown = _click_when_shown(monkeypatch, "insert")
    backend.enqueue(call("run_python", {"code": CODE}), reply("It is in a new cell for you."))
    res, _ = run(shell, "%agent double the amounts")
    _assert_inserted_not_run(shell, backend, res)
    assert shown[0].insert is not None and shown[0].approve.disabled
    assert "inserted as a new cell" in shown[0].result.value


def test_code_can_be_inserted_as_a_cell_from_the_input_prompt(shell, backend, sales, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "stdin")
    prompts = []
    get_runtime().approver._input = lambda prompt: prompts.append(prompt) or "i"
    backend.enqueue(call("run_python", {"code": CODE}), reply("Inserted."))
    res, _ = run(shell, "%agent double the amounts")
    _assert_inserted_not_run(shell, backend, res)
    assert "i = insert as a new cell" in prompts[0]


def test_approved_code_runs_in_the_notebook_namespace(shell, backend, sales, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "stdin")
    get_runtime().approver._input = lambda prompt: "y"
    backend.enqueue(call("run_python", {"code": CODE}), reply("Doubled: 10."))
    run(shell, "%agent double the amounts")[0].raise_error()
    assert list(shell.user_ns["doubled"]) == [6, 4]
    assert "10" in _tool_result(backend)


def test_sql_approvals_offer_no_insert_button(shell):
    from shell_agent_lab.notebook._approval_widget import ApprovalWidget
    from shell_agent_lab.tools.approval import ApprovalRequest

    request = ApprovalRequest("r1", "query_sql", {"sql": SQL}, "read", "sql_preview", SQL)
    assert ApprovalWidget(request, lambda *a: None).insert is None
