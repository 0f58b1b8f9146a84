"""The notebook as the workspace in a real JupyterLab: an answer's cells land under the asking
cell, in order, and run; the saved ``.ipynb`` holds them with their outputs; ``/fix`` replaces
a failing cell once accepted; the panel changes only the notebook it is bound to."""
from __future__ import annotations

import json

from playwright.sync_api import expect

from .conftest import ARTIFACTS
from ._lab import SCRIPTED_SETUP, cell_output, expect_state, open_notebook, open_panel, run_and_expect, run_cell, \
    write_notebook

Q1 = "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY total DESC"
Q2 = "SELECT week, amount FROM sales WHERE region = 'N' ORDER BY week"
CELLS = ".jp-Notebook .jp-Cell"


def _saved(root, name):
    return json.loads((root / name).read_text())["cells"]


def test_an_answers_cells_are_inserted_in_order_under_the_asking_cell_run_and_saved(page, lab_server):
    name = write_notebook(lab_server["root"], "cells.ipynb", [
        SCRIPTED_SETUP,
        f'backend.enqueue(call("query_sql", {{"sql": "{Q1}"}}), call("query_sql", {{"sql": "{Q2}"}}),'
        ' reply("N leads with 14.0; its weeks were 5.0 and 9.0."))\n'
        '%config ShellAgent.approval_overrides = {"query_sql": False}\nprint("ARMED")',
        "%agent Which region leads, and how did its weeks go?",
        'print("LAST CELL")',
    ])
    open_notebook(page, lab_server, name)
    run_and_expect(page, 0, "SETUP-DONE")
    run_and_expect(page, 1, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    run_and_expect(page, 2, "N leads with 14.0")
    cells = page.locator(CELLS)
    expect(cells).to_have_count(6, timeout=20_000)
    expect(cells.nth(3)).to_contain_text("-- shell-agent-lab: Which region leads")
    expect(cells.nth(3)).to_contain_text("GROUP BY")
    expect(cells.nth(4)).to_contain_text("WHERE region")
    expect(cells.nth(5)).to_contain_text("LAST CELL")            # below the inserted ones, not run
    expect(cell_output(page, 3)).to_contain_text("14.0", timeout=20_000)
    expect(cell_output(page, 4)).to_contain_text("9.0", timeout=20_000)
    # titles are off here: the panel names the session after the notebook until it has a title
    expect(page.locator("#sal-session-title")).to_have_text("cells")
    # each tool step reads as what it returned, with its SQL on demand
    step = page.locator("#sal-chat-log .sal-tool").first
    expect(step).to_contain_text("2 rows × 2 columns: region, total")
    step.locator(".sal-tool-sql summary").click()
    expect(step.locator(".sal-tool-sql pre")).to_have_text(Q1)
    expect(cell_output(page, 2)).to_contain_text("2 cells below reproduce this answer")
    # the picture in docs/workspace.md: the scripted set-up cells folded away, as a reader sees it
    fold = "(hidden) => window.jupyterapp.shell.currentWidget.content.widgets.slice(0, 2).forEach(c => " \
           "{ c.inputHidden = hidden; c.outputHidden = hidden; })"
    page.evaluate(fold, True)
    cells.nth(4).scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "workspace.png"))
    page.evaluate(fold, False)
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
    saved = _saved(lab_server["root"], name)
    sources = ["".join(c["source"]) for c in saved]
    assert sources[3].startswith("%%agent_sql\n-- shell-agent-lab: Which region leads") and Q1 in sources[3]
    assert Q2 in sources[4]
    assert saved[3]["execution_count"] and saved[4]["execution_count"] > saved[3]["execution_count"]
    assert "14.0" in json.dumps(saved[3]["outputs"]) and "9.0" in json.dumps(saved[4]["outputs"])


def test_fix_replaces_the_failing_cell_after_accepting(page, lab_server):
    name = write_notebook(lab_server["root"], "fix.ipynb", [
        SCRIPTED_SETUP,
        "total = sales['amout'].sum()",
        'backend.enqueue(reply("```python\\ntotal = sales[\'amount\'].sum()\\n```\\nThe column is amount."))\n'
        'print("ARMED")',
        "%agent /fix",
    ])
    open_notebook(page, lab_server, name)
    run_and_expect(page, 0, "SETUP-DONE")
    open_panel(page)
    expect_state(page, "ready")
    run_and_expect(page, 1, "KeyError")
    # a request that reaches the kernel before the failed cell's reply is aborted (stop on error):
    # wait for the reply (its execution count) and the kernel to go idle
    expect(page.locator(CELLS).nth(1).locator(".jp-InputPrompt")).to_have_text("[2]:")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'")
    page.wait_for_timeout(500)
    run_and_expect(page, 2, "ARMED")
    run_and_expect(page, 3, "+total = sales['amount'].sum()")
    expect(cell_output(page, 3)).to_contain_text("-total = sales['amout'].sum()")
    cell_output(page, 3).get_by_role("button", name="Accept").click()
    source = page.locator(CELLS).nth(1).locator(".jp-InputArea-editor")
    expect(source).to_contain_text("sales['amount'].sum()", timeout=15_000)
    expect(source).not_to_contain_text("amout")
    expect(cell_output(page, 1)).not_to_contain_text("KeyError")          # the old error went with the old code
    expect(page.locator(CELLS)).to_have_count(4)


def test_the_panel_inserts_only_into_the_notebook_it_is_bound_to(page, lab_server):
    first = write_notebook(lab_server["root"], "bound.ipynb", [SCRIPTED_SETUP])
    other = write_notebook(lab_server["root"], "other.ipynb", ['print("OTHER")'])
    open_notebook(page, lab_server, first)
    run_and_expect(page, 0, "SETUP-DONE")
    open_panel(page)
    expect_state(page, "ready")
    page.evaluate(f"() => window.jupyterapp.commands.execute('docmanager:open', {{path: '{other}'}})")
    page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget?.context?.path === '{other}'")
    # the first notebook's kernel asks to insert while the panel shows the other notebook
    page.evaluate(
        """(path) => {
             const app = window.jupyterapp;
             const nb = app.shell.widgets('main');
             for (const w of nb) {
               if (w.context?.path === path) {
                 w.sessionContext.session.kernel.requestExecute(
                   {code: 'print("INSERTED", rt.insert_cell("x = 1", run=False))'});
               }
             }
           }""", first)
    page.wait_for_timeout(3000)
    expect(page.locator(".jp-NotebookPanel:visible .jp-Cell")).to_have_count(1)
    assert len(_saved(lab_server["root"], other)) == 1


def test_fix_error_in_the_panel_then_accept_replaces_the_cell(page, lab_server):
    name = write_notebook(lab_server["root"], "panelfix.ipynb", [
        SCRIPTED_SETUP,
        'backend.enqueue(reply("```python\\nweeks = sales.week.max()\\n```\\nThe column is week."))\nprint("ARMED")',
        "weeks = sales.wek.max()",
    ])
    open_notebook(page, lab_server, name)
    run_and_expect(page, 0, "SETUP-DONE")
    run_and_expect(page, 1, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    run_and_expect(page, 2, "AttributeError")
    page.click("#sal-chat-fix")
    expect(page.locator("#sal-chat-log .sal-msg-assistant").last).to_contain_text("The column is week.")
    expect(page.locator("#sal-fix-actions")).to_be_visible()
    page.click("#sal-fix-accept")
    source = page.locator(CELLS).nth(2).locator(".jp-InputArea-editor")
    expect(source).to_contain_text("weeks = sales.week.max()", timeout=15_000)
    expect(cell_output(page, 2)).not_to_contain_text("AttributeError")
    expect(page.locator("#sal-fix-actions")).to_be_hidden()


def test_a_slow_fix_from_the_panel_shows_its_diff_in_the_chat(page, lab_server):
    name = write_notebook(lab_server["root"], "slowfix.ipynb", [
        SCRIPTED_SETUP,
        "import time\n"
        "def slow_answer(messages, tools):\n"
        "    time.sleep(2)  # longer than the panel's quick wait for a reply\n"
        '    return reply("```python\\ntotal = sales.amount.sum()\\n```\\nThe column is amount.")\n'
        'backend.enqueue(slow_answer)\nprint("ARMED")',
        "total = sales.amont.sum()",
    ])
    open_notebook(page, lab_server, name)
    run_and_expect(page, 0, "SETUP-DONE")
    run_and_expect(page, 1, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    run_and_expect(page, 2, "AttributeError")
    page.click("#sal-chat-fix")
    reply_text = page.locator("#sal-chat-log .sal-msg-command")
    expect(reply_text).to_contain_text("Proposed fix for the failing cell", timeout=30_000)
    expect(reply_text).to_contain_text("-total = sales.amont.sum()")
    expect(reply_text).to_contain_text("+total = sales.amount.sum()")
    expect(page.locator("#sal-fix-actions")).to_be_visible()


def test_insert_only_on_the_panels_card_puts_the_code_in_a_cell_without_running_it(page, lab_server):
    name = write_notebook(lab_server["root"], "insertonly.ipynb", [
        SCRIPTED_SETUP,
        'backend.enqueue(call("run_python", {"code": "doubled = sales.amount * 2"}), reply("It is in a cell."))\n'
        'print("ARMED")',
        "%agent double the amounts with python",
    ])
    open_notebook(page, lab_server, name)
    run_and_expect(page, 0, "SETUP-DONE")
    run_and_expect(page, 1, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    run_cell(page, 2)
    card = page.locator("#sal-approvals .sal-approval[data-tool='run_python']")
    card.locator(".sal-insert-only").click()
    expect(cell_output(page, 2)).to_contain_text("It is in a cell.", timeout=30_000)
    cells = page.locator(CELLS)
    expect(cells).to_have_count(4, timeout=15_000)
    expect(cells.nth(3)).to_contain_text("doubled = sales.amount * 2")
    expect(cells.nth(3).locator(".jp-InputPrompt")).to_have_text("[ ]:")          # inserted, not run
