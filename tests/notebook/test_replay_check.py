"""The reproducibility check, end to end in real kernels: a scripted turn in a headless kernel
records its cells (``r.cells``), ``/cells`` writes them, the notebook runner inserts and runs
them; then a fresh kernel without a model re-runs the notebook and every stated number must be
produced again. A deliberately wrong stated number fails the check, named."""
from __future__ import annotations

import json

import nbformat
import pytest

from shell_agent_lab.notebook.cells import CELL_TAG
from shell_agent_lab.notebook.nbrun import execute, temporary_environ
from shell_agent_lab.notebook.replay_check import replay_check

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SQL = "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY total DESC"
SCRIPT = [
    {"text": "", "tool_calls": [{"name": "query_sql", "arguments": {"sql": SQL}}]},
    "EU leads with a total of 1,204.75; US follows with 310.5.",
]


def _notebook(tmp_path):
    (tmp_path / "sales.csv").write_text("region,amount\nEU,1000.5\nUS,310.5\nEU,204.25\n")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for source in ["import pandas as pd\nsales = pd.read_csv('sales.csv')",
                   "%load_ext shell_agent_lab\n%config ShellAgent.approval_overrides = {'query_sql': False}",
                   "r = %agent Which region has the highest total amount?",
                   "%agent /cells",
                   "len(r.cells)"]:
        nb.cells.append(nbformat.v4.new_code_cell(source))
    return nb


@pytest.fixture
def recorded(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    nb = _notebook(tmp_path)
    env = {"SHELL_AGENT_LAB_SCRIPT": str(script), "SHELL_AGENT_LAB_DATA_DIR": str(tmp_path / "data"),
           "SHELL_AGENT_LAB_CASSETTE": None, "JPY_SESSION_NAME": None, "SHELL_AGENT_LAB_FRONTEND": None}
    with temporary_environ(env):
        execute(nb, cwd=tmp_path, timeout=120)
    path = tmp_path / "answered.ipynb"
    nbformat.write(nb, path)
    return path


def test_cells_are_recorded_written_inserted_in_order_and_run(recorded):
    nb = nbformat.read(recorded, as_version=4)
    sources = [c.source for c in nb.cells]
    at = sources.index("%agent /cells")
    inserted = nb.cells[at + 1]
    assert inserted.metadata["tags"] == [CELL_TAG]
    assert inserted.source == f"%%agent_sql\n-- shell-agent-lab: Which region has the highest total amount?\n{SQL}"
    assert "1204.75" in inserted.outputs[0]["data"]["text/plain"]
    assert inserted.execution_count == nb.cells[at].execution_count + 1
    assert nb.cells[at + 2].outputs[0]["data"]["text/plain"] == "1"        # r.cells in the kernel


def test_run_all_without_a_model_reproduces_every_stated_number(recorded):
    report = replay_check(recorded, timeout=120)
    assert report.ok, report.markdown()
    assert report.checked == 2                     # 1,204.75 and 310.5
    assert any("len(r.cells)" in n or "NameError" in n for n in report.notes)   # r needs the model: not counted


def test_a_wrong_stated_number_fails_the_check_and_is_named(recorded, tmp_path):
    nb = nbformat.read(recorded, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            md = out.get("data", {}).get("text/markdown")
            if md and "1,204.75" in md:
                out["data"]["text/markdown"] = md.replace("1,204.75", "1,240.75")
    wrong = tmp_path / "wrong.ipynb"
    nbformat.write(nb, wrong)
    report = replay_check(wrong, timeout=120)
    assert not report.ok
    assert [m.number for m in report.mismatches] == ["1,240.75"]
    assert "1,240.75" in report.markdown() and "Which region has the highest" in report.markdown()
