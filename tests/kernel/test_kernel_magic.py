"""The magic in real ipykernels: a turn end to end, two notebooks sharing Global Memory only,
a widget approval answered while the cell runs, and a headless run that follows the policy."""
from __future__ import annotations

import threading

import pytest
from kernelhelpers import text_of

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

SALES = "import pandas as pd\nsales = pd.DataFrame({'region': ['EU', 'US', 'EU'], 'amount': [1, 2, 3]})"
SQL = "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1"
QUERY = {"text": "", "tool_calls": [{"name": "query_sql", "arguments": {"sql": SQL}}]}


def test_a_turn_end_to_end_in_a_kernel(start_kernel):
    k = start_kernel(script=["Hello from the **kernel**."], notebook="one.ipynb")
    res = k.run("%agent is this working?")
    assert "Hello from the **kernel**." in text_of(res["outputs"])
    assert not any(o["type"] == "execute_result" for o in res["outputs"])      # shown once
    assert k.value("get_ipython().user_ns['__session__'] if '__session__' in get_ipython().user_ns "
                   "else __import__('os').environ['JPY_SESSION_NAME']").endswith("one.ipynb")
    session = k.value("(lambda s: [s.notebook_path, s.private])("
                      "__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent().session)")
    assert session[0].endswith("one.ipynb") and session[1] is False
    last_user = k.value("__import__('shell_agent_lab.notebook.runtime', fromlist=['x'])"
                        ".get_agent().backend.requests[-1].last_user")
    assert "is this working?" in last_user


def test_two_notebooks_share_preferences_but_not_session_facts(start_kernel):
    a = start_kernel(notebook="a.ipynb", script=[
        "Noted, plotly it is.",
        "preference|turn-1|User prefers plotly for charts|\nfact|turn-1|Table sales has 1200 rows|",
    ])
    b = start_kernel(notebook="b.ipynb", script=["Here is a plotly chart."])
    a.run("%config ShellAgent.auto_extract = True")
    a.run("%agent I prefer plotly for charts. Table sales has 1200 rows.")
    a.run("__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent().wait_idle(30)")
    globals_a = a.value("[e.fact for e in __import__('shell_agent_lab.notebook.runtime', fromlist=['x'])"
                        ".get_agent().store.global_memory.list()]")
    assert globals_a == ["User prefers plotly for charts"]
    b.run("%agent chart revenue by month")
    system_b = b.value("__import__('shell_agent_lab.notebook.runtime', fromlist=['x'])"
                       ".get_agent().backend.requests[-1].system")
    assert "User prefers plotly for charts" in system_b
    assert "1200 rows" not in system_b
    sessions = [a.value("__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent().session.id"),
                b.value("__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent().session.id")]
    assert sessions[0] != sessions[1]


def _comm_opens(msg, found):
    if msg["msg_type"] == "comm_open":
        state = msg["content"].get("data", {}).get("state", {})
        if state.get("_model_name") == "ButtonModel":
            found.setdefault(state.get("description"), msg["content"]["comm_id"])


def test_widget_approval_answered_while_the_cell_runs(start_kernel):
    k = start_kernel(notebook="w.ipynb", script=[QUERY, "EU leads with 4."])
    k.run(SALES)
    # a subshell, as JupyterLab 4.6 creates for comms, so the click is handled while the cell runs
    k.kc.control_channel.send(k.kc.session.msg("create_subshell_request", {}))
    subshell_id = k.kc.control_channel.get_msg(timeout=10)["content"]["subshell_id"]
    buttons: dict = {}
    clicked = threading.Event()

    def on_msg(msg):
        _comm_opens(msg, buttons)
        if "Approve" in buttons and not clicked.is_set():
            clicked.set()
            click = k.kc.session.msg("comm_msg", {"comm_id": buttons["Approve"],
                                                  "data": {"method": "custom", "content": {"event": "click"}}})
            click["header"]["subshell_id"] = subshell_id
            k.kc.shell_channel.send(click)

    msg_id = k.send("r = %agent totals by region?", allow_stdin=True)
    res = k.collect(msg_id, on_msg=on_msg, timeout=60)
    assert res["reply"]["status"] == "ok", res
    assert clicked.is_set()
    assert k.value("r.text") == "EU leads with 4."
    tool = k.value("[m.content for m in __import__('shell_agent_lab.notebook.runtime', fromlist=['x'])"
                   ".get_agent().backend.requests[1].messages if m.role == 'tool'][0]")
    assert "EU" in tool and "rejected" not in tool.lower()


def test_headless_run_follows_the_approval_policy(start_kernel):
    k = start_kernel(notebook="h.ipynb", script=[QUERY, "Could not run it.", QUERY, "EU leads."])
    k.run(SALES)
    res = k.run("%agent totals by region?")                 # allow_stdin=False, as nbclient runs it
    out = text_of(res["outputs"])
    assert 'approval_policy = "approve"' in out and "needs approval" in out
    k.run('%config ShellAgent.approval_policy = "approve"')
    res = k.run("%agent totals by region?")
    out = text_of(res["outputs"])
    assert "Approved `query_sql` by policy" in out and "EU leads." in out


def test_make_run_kernels_load_the_extension_without_load_ext(tmp_path, monkeypatch):
    from jupyter_client.manager import KernelManager

    from shell_agent_lab import launch

    base = launch.write_kernelspec(tmp_path / "launch")
    monkeypatch.setenv("JUPYTER_PATH", launch.lab_env(base, {})["JUPYTER_PATH"])
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        reply = kc.execute_interactive("assert 'agent' in get_ipython().magics_manager.magics['line']", timeout=60)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_console_frontend_answers_through_input_while_the_cell_awaits(start_kernel):
    k = start_kernel(script=[QUERY, "EU leads."])                 # no notebook: a console-like frontend
    k.run(SALES)
    msg_id = k.send("r = %agent totals by region?", allow_stdin=True)
    request = k.kc.get_stdin_msg(timeout=60)
    assert request["msg_type"] == "input_request" and "Approve?" in request["content"]["prompt"]
    k.kc.input("y")
    res = k.collect(msg_id, timeout=60)
    assert res["reply"]["status"] == "ok", res
    assert "Approval needed: query_sql" in text_of(res["outputs"])
    assert k.value("r.text") == "EU leads."
