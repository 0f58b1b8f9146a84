"""Hostile programs through ``%agent`` in a real kernel, written by a scripted model that
obeys a poisoned cell: each one passes the program check (its known gaps), runs in the
sandbox, and leaves the notebook's DataFrame, its folder and the kernel as they were."""
from __future__ import annotations

import secrets

import pytest
from kernelhelpers import text_of

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

TOKEN = "tok-" + secrets.token_hex(8)

# each passes check_program: the check is a first pass, not the boundary
ATTACKS = {
    "reads a file": "import numpy.ma.mrecords as m\nprint(m.openfile('{secret}').read())",
    "writes a report file": ("import scipy.odr as odr\nimport numpy as np\nx = np.arange(5.)\n"
                             "o = odr.ODR(odr.Data(x, 2*x), odr.unilinear, beta0=[1., 0.], rptfile='{folder}/pwned.rpt')\n"
                             "o.set_iprint(final=2)\no.run()\nprint(df['v'].sum())"),
    "crashes the interpreter": "t = ()\nfor _ in range(10 ** 6):\n    t = (t,)\nprint(hash(t))",
    "holds a regular expression": "import re\nprint(re.match(r'((a|aa)+)+$', 'a' * 60 + 'b'))",
    "asks for 3 GB": "s = 'x'.ljust(3 * 10 ** 9)\nprint(len(s))",
}


AGENT = "__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent()"
STORE, STORE_SID = f"{AGENT}.store", f"{AGENT}.session.id"


def _program(body: str) -> str:
    return f"```python\n{body}\n```"


def test_hostile_programs_through_agent_change_nothing(start_kernel, tmp_path):
    (tmp_path / "secret.txt").write_text(TOKEN)
    script = []
    for body in ATTACKS.values():
        body = body.replace("{secret}", str(tmp_path / "secret.txt")).replace("{folder}", str(tmp_path))
        script += [_program(body), _program(body)]          # the first program and its retry
    k = start_kernel(notebook="attack.ipynb", script=script)
    k.run("import pandas as pd\ndf = pd.DataFrame({'v': [1, 2, 3]})")
    k.run('%config ShellAgent.program_timeout = 3.0\n%config ShellAgent.answer_strategy = "program"')
    def files():             # the notebook's folder, less the product's own data folder
        return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.parts[len(tmp_path.parts)] != "data")

    before = files()
    for what in ATTACKS:
        reply = k.run("%agent what is the total of v in df?")
        out = text_of(reply["outputs"])
        assert TOKEN not in out, what
        assert k.value("df['v'].tolist()") == [1, 2, 3], what
        assert files() == before, what
        assert not list(tmp_path.rglob("pwned*")), what
        assert k.value("1 + 1") == 2, what          # the kernel still answers
        ran = k.value(f"[r.content for r in {STORE}.list_records({STORE_SID}) if r.tool_name == 'run_pandas']")
        assert ran, f"{what}: no program ran"
    # and an honest program still answers, without an approval
    k2 = start_kernel(notebook="honest.ipynb", script=[_program("print(int(df['v'].sum()))")])
    k2.run("import pandas as pd\ndf = pd.DataFrame({'v': [1, 2, 3]})")
    k2.run('%config ShellAgent.answer_strategy = "program"')
    out = text_of(k2.run("%agent what is the total of v in df?")["outputs"])
    assert "6" in out and "approval" not in out.lower()


def test_a_program_cell_runs_in_the_sandbox_too(start_kernel, tmp_path):
    """The cell an answer inserts (``%%agent_program``) is what Run All runs again: it must run
    behind the same boundary, or the program the sandbox held would run in the kernel then."""
    (tmp_path / "secret.txt").write_text(TOKEN)
    k = start_kernel(notebook="cells.ipynb")
    k.run("import pandas as pd\ndf = pd.DataFrame({'v': [1, 2, 3]})")
    honest = k.run("%%agent_program df\n# shell-agent-lab: total?\nprint(int(df['v'].sum()))\n"
                   "answer = {'total': int(df['v'].sum())}")
    out = text_of(honest["outputs"])
    assert "6" in out and "{'total': 6}" in out
    hostile = k.collect(k.send("%%agent_program df\ndf.loc[0, 'v'] = 99\nprint(open(" + repr(str(tmp_path / "secret.txt"))
                               + ").read())\nopen(" + repr(str(tmp_path / "pwned")) + ", 'w')"))
    assert hostile["reply"]["status"] == "error"          # Run All stops on it, as on any failing cell
    assert TOKEN not in str(hostile) and "No such file or directory" in str(hostile)
    assert k.value("df['v'].tolist()") == [1, 2, 3] and not (tmp_path / "pwned").exists()
