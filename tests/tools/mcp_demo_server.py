"""A small stdio MCP server used by the tests (mcp SDK)."""
import os
import sys
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("demo")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def shout(text: str) -> str:
    """Upper-case some text."""
    print(f"shouting {len(text)} chars", file=sys.stderr, flush=True)
    return text.upper()


@server.tool()
def crash() -> str:
    """Exit the server process abruptly."""
    print("about to crash", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
def hang(seconds: float = 3600) -> str:
    """Block the server for a long time (a tool that hangs)."""
    print("hanging", file=sys.stderr, flush=True)
    time.sleep(seconds)
    return "woke up"


@server.tool()
def pid() -> str:
    """The server's process id (tells a restarted server from one that kept running)."""
    return str(os.getpid())


if __name__ == "__main__":
    server.run("stdio")
