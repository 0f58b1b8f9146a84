"""Data sharing in a real kernel: the magic against a recording provider counted as remote.

The kernel's notebook showed a DataFrame holding a canary; ``%agent`` turns list its rows and read
the notebook. The cell shows the rows and says once where requests go; the provider never
receives the canary; ``%agent /status`` names the level.
"""
from __future__ import annotations

import json

import pytest
from kernelhelpers import text_of

from tests.support.fake_model_servers import call
from tests.support.scripted_provider import ScriptedProvider

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

CANARY = "CANARY-7f3a"
AMOUNT = "987654.321"


@pytest.fixture
def provider():
    plan = {"rows": [call("query_sql", {"sql": "SELECT * FROM customers"}, id="rows-1")],
            "notebook": [call("read_notebook", {}, id="notebook-1")]}
    server = ScriptedProvider(plan).start()
    yield server
    server.stop()


def test_remote_default_keeps_records_in_the_notebook(start_kernel, provider):
    k = start_kernel(notebook="sharing.ipynb",
                     extra_env={"SHELL_AGENT_LAB_TREAT_AS_REMOTE": "1", "OPENAI_API_KEY": "sk-test"})
    k.run("%config ShellAgent.profiles = " + repr({"remote": {"backend": "openai", "endpoint": provider.url,
                                                               "model": "fake-model"}}))
    k.run('%config ShellAgent.profile = "remote"')
    k.run('%config ShellAgent.approval_policy = "approve"')
    k.run("import pandas as pd\n"
          f"customers = pd.DataFrame({{'name': ['{CANARY}', 'Wim Ode', 'Vera Lunt'], "
          f"'amount': [{AMOUNT}, 10.5, 20.25]}})")
    shown = k.run("customers")                   # the notebook shows the canary (Out[n])
    assert CANARY in text_of(shown["outputs"])

    rows = text_of(k.run("%agent show me the rows of customers", timeout=120)["outputs"])
    assert "🔒" in rows and "aggregates" in rows and "127.0.0.1" in rows      # said once, in the cell
    assert CANARY in rows                        # the user sees the rows
    notebook = text_of(k.run("%agent what did my notebook show?", timeout=120)["outputs"])
    assert "🔒" not in notebook                  # once per session

    status = text_of(k.run("%agent /status")["outputs"])
    assert "Data sharing: **aggregates**" in status and "127.0.0.1" in status

    sent = "\n".join(json.dumps(r.json, ensure_ascii=False) for r in provider.requests if r.json)
    assert any("query_sql" in json.dumps(r.json) for r in provider.requests if r.json)
    assert "customers" in sent and "amount" in sent
    leaks = [f"{m.get('role')}: {str(m.get('content'))[:300]}" for r in provider.requests if r.json
             for m in r.json.get("messages", []) if CANARY in json.dumps(m, ensure_ascii=False)]
    assert not leaks, leaks
    assert CANARY not in sent and AMOUNT not in sent
