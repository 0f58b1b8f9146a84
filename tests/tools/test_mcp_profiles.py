"""MCP servers follow the active profile; a hanging MCP tool times out inside a turn and the
server is usable on the next call."""
from __future__ import annotations

import sys
from pathlib import Path


from shell_agent_lab.agent.commands import run_command
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.scripted import ScriptedBackend, call, reply
from tests.support.extension_agents import approve_all, tool_results

SERVER = Path(__file__).with_name("mcp_demo_server.py")


def _server(**extra):
    return {"command": sys.executable, "args": [str(SERVER)], "timeout": 30, **extra}


def _agent(agents, backend, settings):
    return agents(settings=settings, backend_factory=lambda profile: backend, approver=approve_all)


def _mcp_names(agent) -> set[str]:
    return {d.name for d in agent.registry.all() if d.source == "mcp"}


def test_servers_follow_profile_switches_and_sessions(store, agents):
    settings = ShellAgent(auto_extract=False, auto_title=False, mcp_servers={"shared": _server()},
                          profiles={"p1": {"mcp_servers": {"one": _server()}},
                                    "p2": {"mcp_servers": {"two": _server()}}})
    backend = ScriptedBackend()
    agent = _agent(agents, backend, settings)
    ext = agent.extensions
    shared = ext.servers["shared"]
    shared_pid = shared.call("pid", {})[0]
    assert set(ext.servers) == {"shared"}

    agent.set_profile("p1")
    assert set(ext.servers) == {"shared", "one"}
    assert ext.servers["shared"] is shared and shared.alive           # shared one kept running
    assert not ext.servers["one"].alive                              # new one starts lazily...
    assert "not started yet" in run_command(agent, "/mcp").text
    backend.enqueue(call("mcp__one__add", {"a": 2, "b": 3}), reply("five"))
    assert agent.run("add", timeout=60).text == "five"                # ...with the next turn
    offered = set(backend.requests[0].tool_names)
    assert {"mcp__one__add", "mcp__shared__add"} <= offered and not any("__two__" in n for n in offered)
    assert tool_results(backend.requests[1])[-1] == "5"
    one = ext.servers["one"]
    assert one.alive

    agent.set_profile("p2")
    assert set(ext.servers) == {"shared", "two"}
    assert not one.alive                                             # no longer configured: stopped
    assert not any("__one__" in n for n in _mcp_names(agent))
    assert run_command(agent, "/tools").text.count("mcp__two__") == 5   # /tools starts what it lists
    assert ext.servers["two"].alive

    # a session bound to another profile brings its servers with it
    other = store.create_session(notebook_path="other.ipynb", profile="p1")
    two = ext.servers["two"]
    agent.open_session(other.id)
    assert set(ext.servers) == {"shared", "one"} and not two.alive
    assert not any("__two__" in n for n in _mcp_names(agent))
    assert ext.servers["shared"] is shared and shared.call("pid", {})[0] == shared_pid


def test_a_changed_configuration_restarts_that_server(store, agents):
    settings = ShellAgent(auto_extract=False, auto_title=False, mcp_servers={"shared": _server()},
                          profiles={"slow": {"mcp_servers": {"shared": _server(call_timeout=5)}}})
    agent = _agent(agents, ScriptedBackend(), settings)
    before = agent.extensions.servers["shared"]
    agent.set_profile("slow")
    after = agent.extensions.servers["shared"]
    assert after is not before and not before.alive and after.config.call_timeout == 5


def test_a_bad_profile_configuration_keeps_the_servers_and_says_why(store, agents):
    settings = ShellAgent(auto_extract=False, auto_title=False, mcp_servers={"shared": _server()},
                          profiles={"broken": {"mcp_servers": {"nocmd": {"args": []}}}})
    agent = _agent(agents, ScriptedBackend(), settings)
    agent.set_profile("broken")
    assert agent.extensions.servers["shared"].alive
    assert "needs at least a 'command'" in agent.extensions.errors["configuration"]
    shown = run_command(agent, "/mcp").text
    assert "**shared**: running" in shown and "was not applied: MCP server 'nocmd' needs at least" in shown


def test_hanging_mcp_tool_times_out_in_a_turn_and_the_server_is_usable_after(store, agents):
    settings = ShellAgent(auto_extract=False, auto_title=False,
                          mcp_servers={"demo": _server(call_timeout=1)})
    backend = ScriptedBackend([call("mcp__demo__hang", {}), call("mcp__demo__add", {"a": 40, "b": 2}),
                               reply("The slow tool timed out; the sum is 42.")])
    agent = _agent(agents, backend, settings)
    result = agent.run("try the slow tool, then add", timeout=120)
    assert result.text == "The slow tool timed out; the sum is 42."
    hung, added = tool_results(backend.requests[2])[-2:]
    assert "MCP server 'demo'" in hung and "did not answer 'hang' within 1s" in hung
    assert "starts again on its next call" in hung
    assert added == "42"
    assert agent.extensions.status()[0]["alive"] is True
