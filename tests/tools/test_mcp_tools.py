"""MCP over stdio with the official SDK: listing, calling, a crashing server, restart."""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from shell_agent_lab.tools.mcp_tools import (
    MCPError, MCPServer, MCPServerConfig, mcp_tool_name, split_mcp_tool_name,
)
from shell_agent_lab.tools.registry import ToolContext, ToolError

SERVER = Path(__file__).with_name("mcp_demo_server.py")


@pytest.fixture
def server():
    s = MCPServer(MCPServerConfig("demo-srv", sys.executable, [str(SERVER)], timeout=30))
    yield s
    s.stop()


def test_names_are_namespaced_and_split_back():
    assert mcp_tool_name("demo-srv", "add") == "mcp__demo_srv__add"
    assert split_mcp_tool_name("mcp__demo__read__file") == ("demo", "read__file")
    assert split_mcp_tool_name("mcp__demo__") is None
    assert split_mcp_tool_name("query_sql") is None
    with pytest.raises(ValueError):
        MCPServerConfig("bad name!", "x")


def test_lists_and_calls_tools(server):
    server.start()
    descriptors = {d.name: d for d in server.descriptors()}
    assert set(descriptors) == {"mcp__demo_srv__add", "mcp__demo_srv__shout", "mcp__demo_srv__crash",
                                "mcp__demo_srv__hang", "mcp__demo_srv__pid"}
    add = descriptors["mcp__demo_srv__add"]
    assert add.approval_default is True and add.category == "execute" and add.source == "mcp"
    assert add.parameters["properties"].keys() == {"a", "b"}
    assert add.handler(ToolContext("s"), {"a": 2, "b": 40}).content == "42"
    assert server.call("shout", {"text": "eu"}) == ("EU", False)


def test_crashing_server_gives_clear_error_and_can_restart(server):
    server.start()
    crash = next(d for d in server.descriptors() if d.name.endswith("__crash"))
    with pytest.raises(ToolError) as info:
        crash.handler(ToolContext("s"), {})
    message = str(info.value)
    assert "demo-srv" in message and "restart" in message and "about to crash" in message
    assert not server.alive
    with pytest.raises(MCPError, match="not running"):
        server.call("add", {"a": 1, "b": 1})
    server.restart()
    assert server.call("add", {"a": 1, "b": 1}) == ("2", False)


def test_server_that_cannot_start_is_reported():
    s = MCPServer(MCPServerConfig("ghost", sys.executable, ["-c", "import sys; print('no mcp here', file=sys.stderr); sys.exit(2)"], timeout=10))
    with pytest.raises(MCPError, match="ghost"):
        s.start()
    s.stop()


def test_hanging_call_hits_its_timeout_and_the_server_is_usable_afterwards():
    s = MCPServer(MCPServerConfig("slow", sys.executable, [str(SERVER)], timeout=30, call_timeout=1))
    try:
        s.start()
        first_pid = s.call("pid", {})[0]
        with pytest.raises(MCPError) as info:
            s.call("hang", {})
        message = str(info.value)
        assert "'slow'" in message and "did not answer 'hang' within 1s" in message
        assert "starts again on its next call" in message
        assert not s.alive and s.restart_on_use
        assert s.call("add", {"a": 1, "b": 2}) == ("3", False)      # started again on use
        assert s.alive and not s.restart_on_use
        assert s.call("pid", {})[0] != first_pid                    # a fresh process, not the stuck one
    finally:
        s.stop()


def test_a_cancelled_call_stops_at_once_and_says_so(server):
    server.start()
    cancel = threading.Event()
    cancel.set()                                                    # Stop pressed while it runs
    with pytest.raises(MCPError, match="the call was stopped"):
        server.call("hang", {}, timeout=600, cancel=cancel)
    assert server.restart_on_use
    assert server.call("add", {"a": 2, "b": 2}) == ("4", False)


def test_a_call_timeout_may_be_configured_apart_from_start_up():
    from shell_agent_lab.tools.extensions import mcp_configs
    from shell_agent_lab.config import ShellAgent

    (config,) = mcp_configs(ShellAgent(mcp_servers={"x": {"command": "srv", "timeout": 20, "call_timeout": 5}}))
    assert (config.timeout, config.call_timeout) == (20, 5)
    (default,) = mcp_configs(ShellAgent(mcp_servers={"x": {"command": "srv"}}))
    assert default.call_timeout is None
