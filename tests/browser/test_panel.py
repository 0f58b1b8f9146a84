"""The side panel in a real JupyterLab with Debian's Chromium (marked ``browser``)."""
from __future__ import annotations

from playwright.sync_api import expect

from shell_agent_lab.store import Store

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


def test_no_notebook_state(page, lab_server):
    page.goto(f"{lab_server['base']}/lab?reset&token={lab_server['token']}")
    page.wait_for_function("() => !!window.jupyterapp")
    open_panel(page)
    expect_state(page, "no-notebook")
    expect(page.locator("#sal-status")).to_contain_text("Open a notebook")
