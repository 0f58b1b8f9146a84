"""An ``operation`` call in a real shell on a scripted model: its cell reproduces the number —
an SQL operation as a ``%%agent_sql`` cell, a SciPy one as a ``rerun('operation', …)`` cell."""
from __future__ import annotations

import pandas as pd
import pytest
from nbhelpers import run
from scipy import stats

from shell_agent_lab.llm.scripted import call, reply

SALES = pd.DataFrame({"region": ["EU", "US", "EU", "US", "EU", "US"],
                      "amount": ["$1,250.50", "$2,500", "n/a", "$310", "$99.90", "$1,000"],
                      "units": [3, 5, 2, 1, 4, 2]})


def test_an_sql_operation_becomes_a_query_cell_with_the_same_rows(shell, backend):
    shell.user_ns["sales"] = SALES
    args = {"op": "aggregate", "table": "sales", "measures": [{"fn": "sum", "column": "amount"}],
            "group_by": ["region"], "order": "desc"}
    backend.enqueue(call("operation", args), reply("US leads with 3810."))
    run(shell, "r = %agent Which region sells most?")[0].raise_error()
    (cell,) = shell.user_ns["r"].cells
    assert cell.startswith("%%agent_sql\n-- shell-agent-lab: Which region sells most?\nSELECT ")
    assert "sum(amount) = 3810.0" in backend.requests[1].messages[-1].content
    res, _ = run(shell, cell)
    res.raise_error()
    assert list(res.result["region"]) == ["US", "EU"]
    assert list(res.result["sum(amount)"]) == [pytest.approx(3810.0), pytest.approx(1350.4)]


def test_a_scipy_operation_becomes_a_rerun_cell_printing_the_same_statistic(shell, backend):
    shell.user_ns["sales"] = SALES
    args = {"op": "correlation", "table": "sales", "x": "units", "y": "amount", "method": "spearman"}
    backend.enqueue(call("operation", args), reply("rho is 0.6."))
    run(shell, "r = %agent How do units and amount relate?")[0].raise_error()
    (cell,) = shell.user_ns["r"].cells
    assert "rerun('operation', " in cell
    res, cap = run(shell, cell)
    res.raise_error()
    both = pd.DataFrame({"u": [3, 5, 1, 4, 2], "a": [1250.5, 2500, 310, 99.9, 1000]})
    rho = stats.spearmanr(both.u, both.a)[0]
    assert f"spearman_rho(units, amount) = {rho:.6g}" in cap.stdout
    assert "scipy.stats.spearmanr" in cap.stdout
