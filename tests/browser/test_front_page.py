"""What a newcomer meets first: the panel's input spans the panel above its buttons with a
placeholder that is read whole, and the README's picture — a notebook with an answer and the
cell behind it, beside the panel holding the same conversation."""
from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import expect

from .conftest import ARTIFACTS
from ._lab import SCRIPTED_SETUP, cell_output, expect_state, open_notebook, open_panel, run_and_expect, \
    write_notebook

SALES_CSV = Path(__file__).resolve().parents[2] / "notebooks" / "sales.csv"
CELLS = ".jp-Notebook .jp-Cell"

MEASURE = """() => {
  const input = document.querySelector('#sal-chat-input');
  const tab = input.closest('.sal-tab');
  const tabStyle = getComputedStyle(tab);
  const inner = tab.clientWidth - parseFloat(tabStyle.paddingLeft) - parseFloat(tabStyle.paddingRight);
  const style = getComputedStyle(input);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const box = input.getBoundingClientRect();
  const buttons = [...document.querySelectorAll('.sal-chat-buttons button:not([hidden])')]
    .map(b => b.getBoundingClientRect()).filter(r => r.width > 0);
  return {
    panel: document.querySelector('#shell-agent-lab-panel').getBoundingClientRect().width,
    inner, input: box.width, inputBottom: box.bottom, tabRight: tab.getBoundingClientRect().right,
    placeholder: input.placeholder, placeholderWidth: ctx.measureText(input.placeholder).width,
    room: input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
    scrollWidth: input.scrollWidth, clientWidth: input.clientWidth,
    scrollHeight: input.scrollHeight, clientHeight: input.clientHeight,
    buttonsTop: Math.min(...buttons.map(r => r.top)), buttonsRight: Math.max(...buttons.map(r => r.right)),
    buttons: buttons.length,
  };
}"""


def test_the_panel_input_spans_the_panel_above_its_buttons_and_its_placeholder_is_read_whole(page, lab_server):
    name = write_notebook(lab_server["root"], "input.ipynb", [SCRIPTED_SETUP])
    open_notebook(page, lab_server, name)
    run_and_expect(page, 0, "SETUP-DONE")
    open_panel(page)                                   # at the default sidebar width
    expect_state(page, "ready")
    m = page.evaluate(MEASURE)
    assert m["input"] >= m["inner"] - 2, m                              # the panel's full width
    assert m["input"] >= 0.85 * m["panel"], m
    assert m["placeholder"].strip() and m["placeholderWidth"] <= m["room"], m       # read whole, on one line
    assert m["scrollWidth"] <= m["clientWidth"] and m["scrollHeight"] <= m["clientHeight"], m
    assert m["buttons"] >= 3 and m["buttonsTop"] >= m["inputBottom"], m           # the buttons sit below it
    assert m["buttonsRight"] <= m["tabRight"] + 1, m                             # and inside the panel
    # typing still sends
    page.fill("#sal-chat-input", "hello")
    page.evaluate("() => 0")
    expect(page.locator("#sal-chat-input")).to_have_value("hello")


QUESTION = "Which product sells the most units on average, and by how much?"
SQL = "SELECT product, avg(units) AS avg_units FROM sales GROUP BY product ORDER BY avg_units DESC"
# the numbers are the data's own (sales.csv), written with every digit as a model copies them
ANSWER = ("Gizmo sells the most: 55.416666666666664 units per region and month on average, "
          "4.645833333333329 more than Widget (50.770833333333336); Gadget averages 50.395833333333336.")


def test_the_readme_picture_an_answer_and_its_cell_beside_the_panel(page, lab_server):
    shutil.copy(SALES_CSV, lab_server["root"] / "sales.csv")
    name = write_notebook(lab_server["root"], "first_question.ipynb", [
        SCRIPTED_SETUP + "\n%config ShellAgent.approval_overrides = {\"query_sql\": False}\n"
        f'backend.enqueue(call("query_sql", {{"sql": "{SQL}"}}), reply("{ANSWER}"))\nprint("ARMED")',
        'import pandas as pd\n\nsales = pd.read_csv("sales.csv")\nsales.head(3)',
        f"%agent {QUESTION}",
    ])
    open_notebook(page, lab_server, name)
    run_and_expect(page, 0, "ARMED")
    open_panel(page)
    expect_state(page, "ready")
    run_and_expect(page, 1, "Gizmo")
    run_and_expect(page, 2, "55.42 units per region and month", timeout=60_000)
    expect(cell_output(page, 2)).to_contain_text("4.65 more than Widget (50.77)")
    cells = page.locator(CELLS)
    expect(cells).to_have_count(4, timeout=20_000)
    expect(cells.nth(3)).to_contain_text("GROUP BY product")
    expect(cell_output(page, 3)).to_contain_text("55.41", timeout=20_000)
    log = page.locator("#sal-chat-log")
    expect(log.locator(".sal-msg-user").last).to_have_text(QUESTION)
    expect(log.locator(".sal-msg-assistant").last).to_contain_text("55.42")
    # as a reader of the README sees the notebook: the scripted set-up cell out of sight, the
    # file browser closed
    page.evaluate("() => { window.jupyterapp.shell.currentWidget.content.widgets[0].node.style.display = 'none';"
                  " if (!window.jupyterapp.shell.leftCollapsed) window.jupyterapp.shell.collapseLeft(); }")
    page.locator("#sal-chat-input").fill("")
    cells.nth(1).scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "front.png"))        # docs/screenshots/front.png
