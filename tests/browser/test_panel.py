"""The side panel in a real JupyterLab with Debian's Chromium (marked ``browser``)."""
from __future__ import annotations

from playwright.sync_api import expect

from shell_agent_lab.store import Store

from .conftest import ARTIFACTS

from ._lab import (PANEL, SCRIPTED_SETUP, cell_output, expect_state, open_notebook, open_panel, run_and_expect,
                   run_cell, show_tab, write_notebook)


def test_extension_missing_then_loaded_from_the_panel(page, lab_server):
    write_notebook(lab_server["root"], "missing.ipynb", ["print('hello')"])
    open_notebook(page, lab_server, "missing.ipynb")
    open_panel(page)
    expect_state(page, "extension-missing")
    expect(page.locator("#sal-status")).to_contain_text("not loaded in this kernel")
    page.click("#sal-load-ext")
    expect_state(page, "ready")
    expect(page.locator(f"{PANEL} [data-tab-button='chat']")).to_be_visible()
    expect(page.locator("#sal-session-title")).not_to_be_empty()
    # a restarted kernel has lost the extension again: the panel follows it through the restart
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    expect_state(page, "extension-missing", timeout=60_000)
    expect(page.locator("#sal-load-ext")).to_be_visible()


def test_a_cell_that_loads_the_extension_makes_the_open_panel_ready_without_a_click(page, lab_server):
    # the panel looks when the notebook opens, finds no extension, and must notice a cell that
    # loads it: slow before the load, then a cell after it that needs nothing of the panel
    write_notebook(lab_server["root"], "later.ipynb", [
        "import time\ntime.sleep(3)\n%load_ext shell_agent_lab\nprint('LOADED')",
        "print('AFTER')",
    ])
    open_notebook(page, lab_server, "later.ipynb")
    open_panel(page)
    expect_state(page, "extension-missing")
    run_and_expect(page, 0, "LOADED")
    expect_state(page, "ready")
    run_and_expect(page, 1, "AFTER")
    expect_state(page, "ready")


def test_no_notebook_state(page, lab_server):
    page.goto(f"{lab_server['base']}/lab?reset&token={lab_server['token']}")
    page.wait_for_function("() => !!window.jupyterapp")
    open_panel(page)
    expect_state(page, "no-notebook")
    expect(page.locator("#sal-status")).to_contain_text("Open a notebook")


def test_chat_round_trip_and_a_magic_turn_shows_in_the_panel(page, lab_server):
    write_notebook(lab_server["root"], "chat.ipynb", [
        SCRIPTED_SETUP,
        'backend.enqueue(reply("Sales peaked in week 12."), reply("Week 12 was 40% above the median."))\nprint("QUEUED")',
        "%agent how much above the median was it",
        'print("INSERTED", rt.insert_cell("peak = sales.amount.max()"))',
    ])
    open_notebook(page, lab_server, "chat.ipynb")
    run_and_expect(page, 0, "SETUP-DONE")
    run_and_expect(page, 1, "QUEUED")
    open_panel(page)
    expect_state(page, "ready")
    page.fill("#sal-chat-input", "when did sales peak")
    page.press("#sal-chat-input", "Enter")
    log = page.locator("#sal-chat-log")
    expect(log.locator(".sal-msg-user").last).to_have_text("when did sales peak")
    expect(log.locator(".sal-msg-assistant").last).to_have_text("Sales peaked in week 12.")
    expect(page.locator("#sal-agent-state")).to_have_attribute("data-agent-state", "READY")
    # a turn started by the magic streams into the panel too
    run_and_expect(page, 2, "40% above the median")
    expect(log.locator(".sal-msg-user").last).to_have_text("how much above the median was it")
    expect(log.locator(".sal-msg-assistant").last).to_have_text("Week 12 was 40% above the median.")
    # the history survives a reconnect (it is the session's Records)
    page.evaluate("() => window.jupyterapp.commands.execute('shell-agent-lab:reconnect')")
    expect_state(page, "ready")
    expect(log.locator(".sal-msg-user")).to_have_count(2)
    expect(log.locator(".sal-msg-assistant")).to_have_count(2)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "panel.png"))      # the working panel (docs/screenshots/panel.png)
    # "Insert SQL as cell" from the kernel lands in this notebook through the panel
    run_and_expect(page, 3, "INSERTED True")
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(5, timeout=15000)
    expect(page.locator(".jp-Notebook .jp-Cell").nth(4)).to_contain_text("peak = sales.amount.max()")


def test_findings_sync_between_panel_and_notebook_widget(page, lab_server):
    write_notebook(lab_server["root"], "findings.ipynb", [
        SCRIPTED_SETUP,
        "%agent /findings",
        'backend.enqueue(call("promote_finding", {"content": "Returns spike after every promotion", "tags": ["high"]}),'
        ' reply("Recorded."))\n%config ShellAgent.approval_overrides = {"promote_finding": False}\nprint("ARMED")',
        "%agent record what you saw about returns",
    ])
    open_notebook(page, lab_server, "findings.ipynb")
    run_and_expect(page, 0, "SETUP-DONE")
    run_cell(page, 1)
    widget = cell_output(page, 1)
    open_panel(page)
    expect_state(page, "ready")
    show_tab(page, "findings")
    # created in the panel -> appears in the notebook's Findings widget
    page.fill("#sal-findings-new", "North region sales doubled in March")
    page.click("#sal-findings-add")
    expect(page.locator("#sal-findings-list")).to_contain_text("North region sales doubled in March")
    expect(widget).to_contain_text("North region sales doubled in March")
    # created from a cell (the agent's promote_finding tool) -> appears in the panel
    run_and_expect(page, 2, "ARMED")
    run_and_expect(page, 3, "Recorded.")
    row = page.locator("#sal-findings-list .sal-entry", has_text="Returns spike after every promotion")
    expect(row).to_be_visible()
    expect(row).to_have_attribute("data-severity", "high")
    # severity filter and search
    page.select_option("#sal-findings-severity", "high")
    expect(page.locator("#sal-findings-list .sal-entry")).to_have_count(1)
    page.select_option("#sal-findings-severity", "")
    page.fill("#sal-findings-search", "north")
    expect(page.locator("#sal-findings-list .sal-entry")).to_have_count(1)
    page.fill("#sal-findings-search", "")
    # bulk delete with a confirming second click
    for box in page.locator("#sal-findings-list .sal-select").all():
        box.check()
    page.click("#sal-findings-delete-selected")
    expect(page.locator("#sal-findings-delete-selected")).to_have_attribute("data-confirm", "armed")
    page.click("#sal-findings-delete-selected")
    expect(page.locator("#sal-findings-list")).to_contain_text("No findings in this session yet.")
    expect(widget).not_to_contain_text("North region sales doubled in March")


def test_pin_from_the_panel_lands_in_global_memory(page, lab_server):
    fact = "User prefers weekly charts in plotly"
    write_notebook(lab_server["root"], "pin.ipynb", [
        SCRIPTED_SETUP + "\nsid = rt.agent.session.id\n"
        f"rt.agent.store.session_memory.add(sid, {fact!r}, 'preference', source='assistant_turn', suggested=True)\n"
        "print('SUGGESTED')",
    ])
    open_notebook(page, lab_server, "pin.ipynb")
    run_and_expect(page, 0, "SUGGESTED")
    open_panel(page)
    expect_state(page, "ready")
    show_tab(page, "memory")
    suggestion = page.locator("#sal-memory-suggestions .sal-entry", has_text=fact)
    expect(suggestion).to_be_visible()
    expect(suggestion.locator("[data-trust]")).to_have_text("derived")
    suggestion.locator(".sal-pin-category").select_option("preference")
    suggestion.locator(".sal-pin").click()
    expect(page.locator("#sal-memory-global .sal-entry", has_text=fact)).to_be_visible()
    expect(page.locator("#sal-memory-suggestions")).not_to_contain_text(fact)
    store = Store.open(lab_server["data"])
    try:
        entries = [e for e in store.global_memory.list() if e.fact == fact]
    finally:
        store.close()
    assert len(entries) == 1 and entries[0].category == "preference"
    # Data: the notebook's live DataFrame with its row count and columns
    show_tab(page, "data")
    table = page.locator("#sal-data-list .sal-table[data-table='sales']")
    expect(table).to_have_attribute("data-kind", "dataframe")
    expect(table.locator(".sal-table-rows")).to_have_attribute("data-rows", "4")
    # Sessions: rename the notebook's session; the header follows
    show_tab(page, "sessions")
    current = page.locator("#sal-sessions-list .sal-session[data-current='true']")
    current.locator(".sal-rename").click()
    current.locator(".sal-rename-input").fill("Plotly preferences")
    current.locator(".sal-rename-save").click()
    expect(page.locator("#sal-session-title")).to_have_text("Plotly preferences")
    expect(current).to_contain_text("Plotly preferences")


def test_approval_answered_in_the_panel_while_a_magic_cell_waits(page, lab_server):
    write_notebook(lab_server["root"], "approve.ipynb", [
        SCRIPTED_SETUP,
        'backend.enqueue(call("promote_finding", {"content": "Q3 churn is twice Q2", "tags": ["critical"]}),'
        ' reply("Saved the finding."))\nprint("ARMED")',
        "%agent save the churn finding",
    ])
    open_notebook(page, lab_server, "approve.ipynb")
    run_and_expect(page, 0, "SETUP-DONE")
    run_and_expect(page, 1, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    run_cell(page, 2)
    card = page.locator("#sal-approvals .sal-approval[data-tool='promote_finding']")
    expect(card).to_be_visible()
    expect(card).to_contain_text("Q3 churn is twice Q2")
    expect(page.locator("#sal-agent-state")).to_have_attribute("data-agent-state", "BUSY")
    card.locator(".sal-approve").click()
    expect(card).to_have_count(0)
    expect(cell_output(page, 2)).to_contain_text("Saved the finding.", timeout=30_000)
    show_tab(page, "findings")
    expect(page.locator("#sal-findings-list")).to_contain_text("Q3 churn is twice Q2")


def test_kernel_side_not_answering_shows_unreachable_then_recovers(page, lab_server):
    write_notebook(lab_server["root"], "silent.ipynb", [
        "import comm\ncomm.get_comm_manager().register_target('shell_agent_lab', lambda c, m: None)\nprint('SILENT')",
        "%load_ext shell_agent_lab\nprint('LOADED')",
    ])
    open_notebook(page, lab_server, "silent.ipynb")
    run_and_expect(page, 0, "SILENT")
    open_panel(page)
    expect_state(page, "backend-unreachable", timeout=40_000)
    expect(page.locator("#sal-status")).to_contain_text("did not answer")
    run_and_expect(page, 1, "LOADED")
    page.click("#sal-retry")
    expect_state(page, "ready")


def test_model_endpoint_unreachable_says_how_to_fix(page, lab_server):
    write_notebook(lab_server["root"], "offline.ipynb", [
        "%load_ext shell_agent_lab\n"
        '%config ShellAgent.profiles = {"dead": {"backend": "openai", "model": "m", "endpoint": "http://127.0.0.1:9/v1"}}\n'
        '%config ShellAgent.profile = "dead"\n%config ShellAgent.auto_title = False\nprint("CONFIGURED")',
    ])
    open_notebook(page, lab_server, "offline.ipynb")
    run_and_expect(page, 0, "CONFIGURED")
    open_panel(page)
    expect_state(page, "ready")
    page.fill("#sal-chat-input", "hello there")
    page.press("#sal-chat-input", "Enter")
    banner = page.locator("#sal-backend-status")
    expect(banner).to_have_attribute("data-state", "unreachable", timeout=40_000)
    expect(banner).to_contain_text("Settings tab")
    page.click("#sal-chat-stop")
    expect(page.locator("#sal-agent-state")).to_have_attribute("data-agent-state", "READY", timeout=30_000)


def test_a_message_sent_during_memory_extraction_is_visibly_queued(page, lab_server):
    write_notebook(lab_server["root"], "queue.ipynb", [
        SCRIPTED_SETUP + "\nimport threading\nhold = threading.Event()\n"
        "%config ShellAgent.auto_extract = True\n"
        'backend.enqueue(reply("First answer."), lambda messages, tools: (hold.wait(60), "NONE")[1],'
        ' reply("Second answer."))\nprint("ARMED")',
        "hold.set()\nprint('RELEASED')",
    ])
    open_notebook(page, lab_server, "queue.ipynb")
    run_and_expect(page, 0, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    log = page.locator("#sal-chat-log")
    page.fill("#sal-chat-input", "first question")
    page.press("#sal-chat-input", "Enter")
    expect(log.locator(".sal-msg-assistant").last).to_have_text("First answer.")
    expect(page.locator("#sal-agent-state")).to_have_attribute("data-agent-state", "EXTRACTING")
    page.fill("#sal-chat-input", "second question")
    page.press("#sal-chat-input", "Enter")
    activity = page.locator("#sal-chat-activity")
    expect(activity).to_have_attribute("data-state", "queued")
    expect(activity).to_contain_text("second question")
    expect(page.locator("#sal-agent-state")).to_have_attribute("data-agent-state", "QUEUED")
    run_and_expect(page, 1, "RELEASED")
    expect(log.locator(".sal-msg-assistant").last).to_have_text("Second answer.", timeout=30_000)
    expect(activity).to_have_attribute("data-state", "idle", timeout=30_000)


def test_a_slow_program_request_shows_progress_in_the_cell_and_the_panel(page, lab_server):
    """The answer path that writes a program waits on the model like any other: the cell and the
    panel both say it is still working, with the seconds, while the reply is slow."""
    write_notebook(lab_server["root"], "slow.ipynb", [
        SCRIPTED_SETUP + "\nimport time\nfrom shell_agent_lab.agent import _model_request\n_model_request.HEARTBEAT_SECONDS = 1.0\n"
        '%config ShellAgent.answer_strategy = "program"\n'
        '%config ShellAgent.route_by_model = False\n'       # the slow request is the program's
        'backend.enqueue(lambda messages, tools: (time.sleep(12),'
        ' "```python\\nanswer = {\\"total\\": float(sales[\\"amount\\"].sum())}\\nprint(answer)\\n```")[1])\n'
        'print("ARMED")',
        "%agent what is the total amount in sales?",
    ])
    open_notebook(page, lab_server, "slow.ipynb")
    run_and_expect(page, 0, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    run_cell(page, 1)
    expect(cell_output(page, 1)).to_contain_text("still working", timeout=20_000)
    activity = page.locator("#sal-chat-activity")
    expect(activity).to_contain_text("Still working", timeout=20_000)
    expect(activity).to_have_attribute("data-state", "busy")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "slow-program.png"))
    expect(cell_output(page, 1)).to_contain_text("24.5", timeout=40_000)
    expect(activity).to_have_attribute("data-state", "idle", timeout=30_000)
