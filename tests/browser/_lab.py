"""Small helpers to drive JupyterLab and the side panel from playwright."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

PANEL = "#shell-agent-lab-panel"

#: first cell of most test notebooks: the kernel's agent answers from a scripted model
SCRIPTED_SETUP = """\
from shell_agent_lab.agent import build_agent
from shell_agent_lab.llm.scripted import ScriptedBackend, call, reply
from shell_agent_lab.notebook.extension import settings_for
from shell_agent_lab.notebook.runtime import get_runtime
backend = ScriptedBackend()
rt = get_runtime(get_ipython(), build=lambda *, shell, base, approver: build_agent(
    settings_for(shell), namespace=lambda: shell.user_ns, base_dir=base, approver=approver, backend=backend))
%load_ext shell_agent_lab
%config ShellAgent.auto_extract = False
%config ShellAgent.auto_title = False
import pandas as pd
sales = pd.DataFrame({"week": [10, 11, 12, 13], "region": ["N", "S", "N", "S"], "amount": [5.0, 6.5, 9.0, 4.0]})
rt.agent.session  # build the agent now; the panel's handshake then only binds the session
print("SETUP-DONE")"""


def write_notebook(root: Path, name: str, cells: list[str]) -> str:
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                   "source": src} for src in cells],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    (root / name).write_text(json.dumps(nb))
    return name


def open_notebook(page: Page, lab: dict[str, Any], name: str) -> None:
    page.goto(f"{lab['base']}/lab/tree/{name}?reset&token={lab['token']}")
    page.wait_for_function(
        "() => { const w = window.jupyterapp?.shell.currentWidget;"
        " const k = w?.sessionContext?.session?.kernel; return !!k && k.status === 'idle'; }",
        timeout=60_000)


def run_cell(page: Page, index: int) -> None:
    page.evaluate(
        """(i) => {
             const app = window.jupyterapp; const nb = app.shell.currentWidget;
             nb.content.activeCellIndex = i; nb.content.deselectAll();
             void app.commands.execute('notebook:run-cell');   // resolves only when the cell ends
           }""", index)


def cell_output(page: Page, index: int):
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-Cell-outputArea")


def run_and_expect(page: Page, index: int, text: str, timeout: float = 30_000) -> None:
    run_cell(page, index)
    expect(cell_output(page, index)).to_contain_text(text, timeout=timeout)


def open_panel(page: Page) -> None:
    page.wait_for_function("() => window.jupyterapp?.commands.hasCommand('shell-agent-lab:open-panel')")
    page.evaluate("() => window.jupyterapp.commands.execute('shell-agent-lab:open-panel')")
    expect(page.locator(PANEL)).to_be_visible()


def expect_state(page: Page, state: str, timeout: float = 30_000) -> None:
    expect(page.locator(PANEL)).to_have_attribute("data-state", state, timeout=timeout)


def show_tab(page: Page, name: str) -> None:
    page.click(f"{PANEL} [data-tab-button='{name}']")
    expect(page.locator(f"{PANEL} .sal-tab[data-tab='{name}']")).to_be_visible()
