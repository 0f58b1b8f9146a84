"""The notebook as the workspace, in a real shell on a scripted model: the cells behind an answer
(``r.cells``, ``/cells``), ``/fix``, ``read_notebook`` from the kernel's history, quiet reloads."""
from __future__ import annotations

import pandas as pd
from nbhelpers import run

from shell_agent_lab.llm.scripted import call, reply
from shell_agent_lab.notebook.cells import CELLS_MIME, cells_in_outputs

SQL = "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1"


def _sales(shell):
    shell.user_ns["sales"] = pd.DataFrame({"region": ["EU", "US", "EU"], "amount": [1.25, 2.5, 3.5]})
    shell.run_line_magic("config", 'ShellAgent.approval_overrides = {"query_sql": False, "run_python": False}')


def test_an_answer_records_its_query_as_a_cell_that_reproduces_it(shell, backend):
    _sales(shell)
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("EU leads with 4.75."))
    res, _ = run(shell, "r = %agent Which region leads?")
    res.raise_error()
    cells = shell.user_ns["r"].cells
    assert cells == [f"%%agent_sql\n-- shell-agent-lab: Which region leads?\n{SQL}"]
    res, cap = run(shell, cells[0])          # the cell runs as any cell: the same table
    res.raise_error()
    assert list(res.result["total"]) == [4.75, 2.5]


def test_cells_writes_the_last_answers_cells_as_one_output_without_a_frontend(shell, backend):
    _sales(shell)
    backend.enqueue(call("query_sql", {"sql": SQL}),
                    call("statistics", {"test": "describe", "table": "sales", "x": "amount"}),
                    reply("The mean is 2.42."))
    run(shell, "%agent Describe amount by region")[0].raise_error()
    res, cap = run(shell, "%agent /cells")
    res.raise_error()
    bundles = [o.data for o in cap.outputs]
    cells = cells_in_outputs([{"data": b} for b in bundles])
    assert [c.kind for c in cells] == ["sql", "python"]
    assert all(CELLS_MIME in b for b in bundles if "cells for the last answer" in b["text/plain"])
    assert cells[1].source.startswith("# shell-agent-lab: Describe amount by region\n")
    res, cap = run(shell, cells[1].source)   # the statistics cell runs the same tool again
    res.raise_error()
    assert "mean" in cap.stdout and "2.41666" in cap.stdout


def test_cells_off_keeps_answers_in_the_output(shell, backend):
    _sales(shell)
    shell.run_line_magic("config", 'ShellAgent.cells = "off"')
    backend.enqueue(call("query_sql", {"sql": SQL}), reply("EU."))
    run(shell, "r = %agent Which region leads?")[0].raise_error()
    assert shell.user_ns["r"].cells == []
    res, cap = run(shell, "%agent /cells")
    res.raise_error()
    assert "ran no SQL or code" in cap.outputs[0].data["text/markdown"]
    assert CELLS_MIME not in cap.outputs[0].data


def test_a_failed_call_gives_no_cell(shell, backend):
    _sales(shell)
    backend.enqueue(call("query_sql", {"sql": "SELECT nope FROM sales"}), reply("I could not tell."))
    run(shell, "r = %agent Which region leads?")[0].raise_error()
    assert shell.user_ns["r"].cells == []


def test_fix_proposes_a_corrected_cell_with_its_difference(shell, backend):
    _sales(shell)
    res, _ = run(shell, "total = sales['amout'].sum()")
    assert res.error_in_exec is not None
    backend.enqueue(reply("```python\ntotal = sales['amount'].sum()\n```\nThe column is called amount."))
    res, cap = run(shell, "%agent /fix")
    res.raise_error()
    text = cap.outputs[0].data["text/markdown"]
    assert "-total = sales['amout'].sum()" in text and "+total = sales['amount'].sum()" in text
    asked = backend.requests[-1].last_user
    assert "KeyError" in asked and "sales['amout']" in asked
    assert shell.rl_next_input == "total = sales['amount'].sum()"      # headless: offered as the next cell


def test_fix_without_a_failure_says_what_to_do(shell, backend):
    res, cap = run(shell, "%agent /fix")
    res.raise_error()
    assert "No cell has failed" in cap.outputs[0].data["text/markdown"]


def test_read_notebook_reads_the_kernels_history_and_last_error(shell, backend):
    from shell_agent_lab.tools.read_notebook import _handler
    from shell_agent_lab.tools.registry import ToolContext

    run(shell, "x = 21 * 2\nx")
    run(shell, "1 / 0")
    text = _handler(ToolContext(session_id="s", namespace=shell.user_ns), {}).content
    assert "x = 21 * 2" in text and "[output]\n42" in text
    assert "ZeroDivisionError" in text


def test_read_notebook_is_offered_only_when_the_message_asks_about_the_notebook(shell, backend):
    shell.run_line_magic("config", 'ShellAgent.tool_set = "compact"')
    run(shell, "1 / 0")
    # the way each message goes is the model's choice (asked first), and read_notebook is offered
    # only where it chose the notebook
    backend.enqueue(reply('{"way": "read_notebook"}'), call("read_notebook", {"last": 2}),
                    reply("Cell 1 divides by zero."), reply('{"way": "reply"}'), reply("Nothing to do."))
    run(shell, "%agent why does the last cell fail?")[0].raise_error()
    assert backend.requests[0].options.response_format["title"] == "route"
    assert "read_notebook" in backend.requests[1].tool_names
    tool_text = backend.requests[2].messages[-1].content
    assert "ZeroDivisionError" in tool_text and "user_data" in tool_text      # inside the guard envelope
    run(shell, "%agent Which region leads?")[0].raise_error()
    assert "read_notebook" not in backend.requests[4].tool_names


def test_loading_twice_is_silent(shell):
    res, cap = run(shell, "%load_ext shell_agent_lab")
    res.raise_error()
    assert cap.stdout == ""


def test_a_chart_cell_rebuilds_the_chart_from_its_query(shell, backend):
    _sales(shell)
    shell.run_line_magic("config", 'ShellAgent.approval_overrides = {"query_sql": False, "create_chart": False}')
    encoding = {"x": {"field": "region", "type": "nominal"}, "y": {"field": "total", "type": "quantitative"}}
    backend.enqueue(call("create_chart", {"sql": SQL, "mark": "bar", "encoding": encoding}), reply("Drawn."))
    run(shell, "r = %agent Chart the total by region")[0].raise_error()
    (source,) = shell.user_ns["r"].cells
    assert source.startswith("# shell-agent-lab: Chart the total by region\nfrom shell_agent_lab.notebook.cells import rerun")
    res, cap = run(shell, source)
    res.raise_error()
    (bundle,) = [o.data for o in cap.outputs if any("vega" in k for k in o.data)]
    spec = next(v for k, v in bundle.items() if "vega" in k)
    assert sorted(r["total"] for r in spec["data"]["values"]) == [2.5, 4.75]


def test_a_rerun_cell_keeps_the_arguments_exactly():
    from types import SimpleNamespace

    from shell_agent_lab.notebook.cells import cells_for

    args = {"test": "describe", "table": "sales", "x": "amount", "where": "note IS NOT null AND ok = true"}
    activity = SimpleNamespace(status="success", name="statistics", arguments=args, ran={})
    (cell,) = cells_for(SimpleNamespace(tool_activity=[activity], cells=[]), "q")
    call = cell.source.splitlines()[-1]
    assert call.startswith("rerun('statistics', ")
    assert eval(call[len("rerun('statistics', "):-1]) == args      # noqa: S307 - the literal the cell holds
