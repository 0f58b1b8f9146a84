"""run_python in a real ipykernel: the agent's output is captured, the cells' output is not, and
the kernel's own streams (IPython patches their ``write`` for each cell) keep working."""
from __future__ import annotations

import pytest
from kernelhelpers import text_of

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

RUNTIME = "__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent()"


def _streams(outputs: list[dict]) -> str:
    return "".join(o["text"] for o in outputs if o["type"] == "stream")


def test_agent_output_is_captured_and_the_cells_keep_theirs(start_kernel):
    code = "print('from the agent')\nimport sys\nsys.stderr.write('agent warning\\n')\n6 * 7"
    k = start_kernel(script=[{"text": "", "tool_calls": [{"name": "run_python", "arguments": {"code": code}}]},
                             "It is 42."], notebook="rp.ipynb")
    k.run("%config ShellAgent.approval_overrides = {'run_python': False}")
    res = k.run("%agent compute it")
    assert "It is 42." in text_of(res["outputs"])
    assert "from the agent" not in _streams(res["outputs"]) and "agent warning" not in _streams(res["outputs"])
    tool_result = k.value(f"[m.content for m in {RUNTIME}.backend.requests[-1].messages if m.role == 'tool'][-1]")
    assert "from the agent" in tool_result and "agent warning" in tool_result and "42" in tool_result
    after = k.run("print('a cell afterwards')\nimport sys\nsys.stderr.write('its warning\\n')")
    assert _streams(after["outputs"]) == "a cell afterwards\nits warning\n"


def test_a_cell_printing_while_agent_code_runs_keeps_its_output(start_kernel):
    k = start_kernel()
    res = k.run(
        "import threading\n"
        "from shell_agent_lab.tools.run_python import execute_code\n"
        "inside, go, box = threading.Event(), threading.Event(), {}\n"
        "worker = threading.Thread(target=lambda: box.update(r=execute_code(\n"
        "    \"print('agent before')\\ninside.set()\\ngo.wait(30)\\nprint('agent after')\",\n"
        "    {'inside': inside, 'go': go})))\n"
        "worker.start()\n"
        "inside.wait(30)\n"
        "print('the cell prints meanwhile')\n"
        "go.set()\n"
        "worker.join(30)\n"
        "print(repr(box['r']))\n")
    assert _streams(res["outputs"]) == "the cell prints meanwhile\n('agent before\\nagent after', True)\n"


def test_time_limit_interrupts_code_in_a_kernel(start_kernel):
    k = start_kernel()
    res = k.run("from shell_agent_lab.tools.run_python import execute_code\n"
                "out, ok = execute_code('import time\\nwhile True:\\n    time.sleep(0.01)', {}, timeout=0.3)\n"
                "print(ok, out.splitlines()[-1])")
    assert _streams(res["outputs"]) == "False KeyboardInterrupt\n"
