"""The user's own tools through the real agent loop, behind the same approval gate."""
from __future__ import annotations

import stat
import sys
import textwrap
from pathlib import Path

import pytest

from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.scripted import ScriptedBackend, call, reply
from shell_agent_lab.tools.approval import ApprovalDecision
from shell_agent_lab.tools.python_tools import USER_TOOLS, tool
from tests.support.extension_agents import approve_all, tool_results

MCP_SERVER = Path(__file__).with_name("mcp_demo_server.py")


def _agent(agents, backend, *, settings=None, approver=None, namespace=None, mcp=None):
    settings = settings or ShellAgent(auto_extract=False, auto_title=False)
    if mcp:
        settings.mcp_servers = mcp
    return agents(settings=settings, backend=backend, approver=approver, namespace=namespace)


def test_decorated_function_is_called_with_the_right_arguments(store, agents):
    seen = []

    @tool
    def fiscal_quarter(month: int, fiscal_start: int = 4) -> str:
        """Fiscal quarter of a calendar month.

        Args:
            month: 1-12.
            fiscal_start: month the fiscal year starts in.
        """
        seen.append((month, fiscal_start))
        return f"Q{((month - fiscal_start) % 12) // 3 + 1}"

    try:
        backend = ScriptedBackend([call("fiscal_quarter", {"month": 5}), reply("May is in Q1.")])
        agent = _agent(agents, backend)
        result = agent.run("Which fiscal quarter is May?", timeout=30)
        assert result.text == "May is in Q1."
        assert seen == [(5, 4)]
        first = backend.requests[0]
        spec = next(t for t in first.tools if t.name == "fiscal_quarter")
        assert spec.parameters["required"] == ["month"]
        assert tool_results(backend.requests[1])[-1] == "Q1"
    finally:
        USER_TOOLS.unregister("fiscal_quarter")


def test_script_tool_is_called_with_json_arguments(store, agents):
    tools_dir = store.data_dir / "tools"
    tools_dir.mkdir()
    script = tools_dir / "region_lookup.py"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        # @tool: region_lookup
        # @description: Region of a country code
        # @param: code string "ISO country code"
        import json, sys
        args = json.load(sys.stdin)
        print({{"DE": "EU", "US": "NA"}}.get(args["code"], "unknown"))
        """))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    backend = ScriptedBackend([call("region_lookup", {"code": "DE"}), reply("Germany is in the EU region.")])
    agent = _agent(agents, backend)
    assert agent.run("Region of DE?", timeout=30).text == "Germany is in the EU region."
    assert tool_results(backend.requests[1])[-1].strip() == "EU"


def test_mcp_tools_go_through_the_gate_and_a_crash_does_not_end_the_turn(store, agents):
    asked = []

    def approver(request):
        asked.append(request.tool_name)
        return ApprovalDecision(approved=request.arguments.get("a") != 13, feedback="not that number")

    backend = ScriptedBackend([
        call("mcp__demo__add", {"a": 2, "b": 3}),
        call("mcp__demo__add", {"a": 13, "b": 1}),
        call("mcp__demo__crash", {}),
        reply("Done despite the crash."),
    ])
    agent = _agent(agents, backend, approver=approver,
                   mcp={"demo": {"command": sys.executable, "args": [str(MCP_SERVER)], "timeout": 30}})
    result = agent.run("add some numbers", timeout=60)
    assert result.text == "Done despite the crash."
    assert asked == ["mcp__demo__add", "mcp__demo__add", "mcp__demo__crash"]
    names = [t.name for t in backend.requests[0].tools]
    assert {"mcp__demo__add", "mcp__demo__shout", "mcp__demo__crash"} <= set(names)
    results = tool_results(backend.requests[3])
    assert "5" in results[0]
    assert "User rejected this operation.\nFeedback: not that number" in results[1]
    assert "MCP server 'demo'" in results[2] and "restart" in results[2]
    status = {s["name"]: s for s in agent.extensions.status()}
    assert status["demo"]["alive"] is False


def test_run_python_never_runs_without_approval(store, agents):
    ns: dict = {}
    code = "import pathlib\nMARKER = 'ran'\n"

    # headless: no approver at all, default policy "ask" -> declined with a notice
    backend = ScriptedBackend([call("run_python", {"code": code}), reply("ok")])
    agent = _agent(agents, backend, namespace=ns)
    agent.run("run it", timeout=30)
    assert "MARKER" not in ns
    assert "rejected" in tool_results(backend.requests[1])[-1].lower()

    # interactive: a human declines
    backend2 = ScriptedBackend([call("run_python", {"code": code}), reply("ok")])
    agent2 = _agent(agents, backend2, namespace=ns,
                    approver=lambda r: ApprovalDecision(approved=False))
    agent2.run("run it", timeout=30)
    assert "MARKER" not in ns

    # interactive: a human chooses to insert it as a cell -> still nothing runs
    backend3 = ScriptedBackend([call("run_python", {"code": code}), reply("ok")])
    agent3 = _agent(agents, backend3, namespace=ns,
                    approver=lambda r: ApprovalDecision(approved=True, action="insert_cell"))
    agent3.run("run it", timeout=30)
    assert "MARKER" not in ns
    assert "has not been executed" in tool_results(backend3.requests[1])[-1]

    # only an approval runs it
    backend4 = ScriptedBackend([call("run_python", {"code": code + "MARKER"}), reply("ok")])
    agent4 = _agent(agents, backend4, namespace=ns,
                    approver=approve_all)
    agent4.run("run it", timeout=30)
    assert ns["MARKER"] == "ran"
    assert tool_results(backend4.requests[1])[-1].strip().endswith("ran")


def test_build_agent_offers_the_users_tools_and_commands(tmp_path):
    from shell_agent_lab.agent.commands import run_command
    from shell_agent_lab.agent.factory import build_agent

    tools_dir = tmp_path / "scripts"
    tools_dir.mkdir()
    script = tools_dir / "hello.sh"
    script.write_text("#!/bin/sh\n# @tool: hello\n# @category: write\necho hi\n")
    script.chmod(0o700)
    settings = ShellAgent(auto_extract=False, auto_title=False, tools_dir=str(tools_dir),
                          mcp_servers={"demo": {"command": sys.executable, "args": [str(MCP_SERVER)]}})
    agent = build_agent(settings, backend=ScriptedBackend())
    try:
        names = {d.name for d in agent.registry.all()}
        assert {"hello", "run_python", "mcp__demo__add", "query_sql"} <= names
        agent.open_session(None, notebook_path="x.ipynb")
        listing = run_command(agent, "/tools")
        assert "`hello` | write | script | yes" in listing.text
        assert "`run_python` | execute | builtin | yes" in listing.text
        status = run_command(agent, "/mcp")
        assert "**demo**: running, 5 tool(s)" in status.text
        restarted = run_command(agent, "/mcp restart demo")
        assert "restarted with 5 tool(s)" in restarted.text
        assert run_command(agent, "/mcp restart nope").error.startswith("no MCP server named 'nope'")
    finally:
        agent.abort()
        agent.extensions.close()
        agent.store.close()


def test_bad_mcp_configuration_is_a_clear_error():
    from shell_agent_lab.tools.extensions import mcp_configs

    with pytest.raises(ValueError, match="needs at least a 'command'"):
        mcp_configs(ShellAgent(mcp_servers={"x": {"args": []}}))


def test_tools_listing_reflects_approval_overrides():
    from shell_agent_lab.agent.commands import run_command
    from shell_agent_lab.agent.factory import build_agent

    settings = ShellAgent(auto_extract=False, auto_title=False, approval_overrides={"run_python": False})
    agent = build_agent(settings, backend=ScriptedBackend())
    try:
        agent.open_session(None, notebook_path="x.ipynb")
        assert "`run_python` | execute | builtin | no" in run_command(agent, "/tools").text
    finally:
        agent.abort()
        agent.extensions.close()
        agent.store.close()
