"""Approvals in a real kernel, run headless as nbclient runs a notebook: a read of the
notebook's own DataFrame runs without asking when the model is on this machine (the embedded
model, a server on 127.0.0.1) and asks, naming the host, when the rows would go elsewhere."""
from __future__ import annotations

import pytest
from kernelhelpers import text_of

from shell_agent_lab.llm.destination import LOOPBACK_IS_REMOTE_ENV
from tests.support.fake_model_servers import FakeOpenAIServer, Reply, call

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

SALES = "import pandas as pd\nsales = pd.DataFrame({'region': ['EU', 'US', 'EU'], 'amount': [1, 2, 3]})"
SQL = "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1"
AGENT = "__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent()"
# the tool loop answers (not a pandas program), and the way of a question about the loaded data
# is not asked of the model: these tests are about a query_sql call's approval
WATCH = ("%config ShellAgent.answer_strategy = \"tools\"\n%config ShellAgent.route_by_model = False\n"
         f"seen = []\n{AGENT}.events.subscribe(lambda e: seen.append(dict(e.data)), ['approval_request'])")


def _openai_env(server: FakeOpenAIServer, **extra: str) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test", "OPENAI_MODEL": "fake-model", **extra}


def test_embedded_model_reads_the_notebooks_dataframe_without_asking(start_kernel):
    k = start_kernel(notebook="embedded.ipynb", script=[
        {"text": "", "tool_calls": [{"name": "query_sql", "arguments": {"sql": SQL}}]}, "EU leads with 4."])
    k.run(SALES)
    k.run(f"{AGENT}.backend.name = 'local'")      # the scripted model stands in for the embedded one
    k.run(WATCH)
    out = text_of(k.run("%agent totals by region?")["outputs"])
    assert "needs approval" not in out and "EU leads with 4." in out
    assert k.value("seen") == []
    tool = k.value(f"[m.content for m in {AGENT}.backend.requests[1].messages if m.role == 'tool'][0]")
    assert "EU" in tool and "rejected" not in tool.lower()


def test_a_model_server_on_loopback_reads_without_asking_and_ask_all_asks_again(start_kernel):
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(tool_calls=[call("query_sql", {"sql": SQL})]), Reply(text="EU leads with 4."))
        k = start_kernel(notebook="loopback.ipynb", extra_env=_openai_env(server))
        k.run(SALES)
        k.run(WATCH)
        out = text_of(k.run("%agent totals by region?")["outputs"])
        assert "needs approval" not in out and "EU leads with 4." in out
        tool_results = [m for m in server.chat_requests[1].json["messages"] if m["role"] == "tool"]
        assert "EU" in tool_results[0]["content"] and "rejected" not in tool_results[0]["content"].lower()
        assert k.value("seen") == []
        # one setting restores asking for every read
        server.enqueue(Reply(tool_calls=[call("query_sql", {"sql": SQL})]), Reply(text="Declined."))
        k.run('%config ShellAgent.approval_policy = "ask_all"')
        out = text_of(k.run("%agent totals by region again?")["outputs"])
        assert "`query_sql` needs approval" in out
        assert [e["tool_name"] for e in k.value("seen")] == ["query_sql"]


def test_a_remote_model_that_receives_rows_asks_and_names_its_host(start_kernel):
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(tool_calls=[call("query_sql", {"sql": SQL})]), Reply(text="Could not run it."))
        k = start_kernel(notebook="remote.ipynb", extra_env=_openai_env(server, **{LOOPBACK_IS_REMOTE_ENV: "1"}))
        k.run(SALES)
        k.run(WATCH)
        out = text_of(k.run("%agent totals by region?")["outputs"])
        assert "`query_sql` needs approval" in out
        seen = k.value("seen")
        assert [e["tool_name"] for e in seen] == ["query_sql"] and seen[0]["destination"] == "127.0.0.1"
        tool_results = [m for m in server.chat_requests[1].json["messages"] if m["role"] == "tool"]
        assert "EU" not in tool_results[0]["content"]          # nothing was read, nothing was sent
        # a data-sharing level that keeps rows here lets the read run
        server.enqueue(Reply(tool_calls=[call("query_sql", {"sql": SQL})]), Reply(text="EU leads with 4."))
        k.run(f"{AGENT}.settings.data_sharing = 'aggregates'")     # read defensively, as the setting lands
        out = text_of(k.run("%agent totals by region, aggregates only?")["outputs"])
        assert "needs approval" not in out and "EU leads with 4." in out
