"""MCP servers over stdio, through the official ``mcp`` SDK.

Each configured server runs as a child process; its tools are offered to the model as
``mcp__<server>__<tool>`` and ask for approval by default. The SDK is asynchronous, so each
server gets a private event loop on a daemon thread; the agent calls it synchronously with
a timeout. The child's stderr is drained continuously (a full pipe would deadlock it) and
its tail is quoted when the server fails. A server that dies is reported, its tools answer
with a clear error, and :meth:`MCPServer.restart` brings it back.
"""
from __future__ import annotations

import asyncio
import collections
import logging
import os
import re
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from ._convert import cap_text
from .registry import ToolContext, ToolDescriptor, ToolError, ToolResult

__all__ = ["MCPServerConfig", "MCPServer", "MCPError", "mcp_tool_name", "split_mcp_tool_name"]

log = logging.getLogger(__name__)

_SERVER_NAME = re.compile(r"^[A-Za-z0-9-]+$")
PREFIX = "mcp__"


class MCPError(Exception):
    """An MCP server could not be started or answered badly; the message says which and why."""


def mcp_tool_name(server: str, tool: str) -> str:
    return f"{PREFIX}{server.replace('-', '_').lower()}__{re.sub(r'[^a-z0-9_]', '_', tool.lower())}"


def split_mcp_tool_name(name: str) -> tuple[str, str] | None:
    """``mcp__srv__tool`` → (``srv``, ``tool``); the tool part may itself contain ``__``."""
    if not name.startswith(PREFIX):
        return None
    rest = name[len(PREFIX):]
    server, sep, tool = rest.partition("__")
    if not server or not sep or not tool:
        return None
    return server, tool


@dataclass
class MCPServerConfig:
    name: str
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    #: seconds for start-up (initialize + list tools), and for each call unless ``call_timeout`` is set
    timeout: float = 30.0
    enabled: bool = True
    #: seconds a tool call may take (None: ``timeout``)
    call_timeout: float | None = None

    def __post_init__(self) -> None:
        if not _SERVER_NAME.match(self.name):
            raise ValueError(f"MCP server name {self.name!r} may only contain letters, digits and '-'")


class MCPServer:
    """A connection to one stdio MCP server."""

    def __init__(self, config: MCPServerConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._closed = threading.Event()
        self._stderr = collections.deque(maxlen=50)
        self._stderr_fds: tuple[int, int] | None = None
        #: stopped by a call that timed out or was cancelled: the next call starts it again
        self.restart_on_use = False
        self._stopper: threading.Thread | None = None
        self.tools: list[Any] = []

    # ---- lifecycle -------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._ready.is_set() and not self._closed.is_set() and self._failure is None

    def start(self) -> list[Any]:
        """Spawn the server, initialise the session and list its tools."""
        stopper = self._stopper
        if stopper is not None:         # the previous process is still being stopped
            stopper.join(timeout=30)
            self._stopper = None
        with self._lock:
            if self.alive:
                return self.tools
            self._reset()
            read_fd, write_fd = os.pipe()
            self._stderr_fds = (read_fd, write_fd)
            threading.Thread(target=self._drain_stderr, args=(read_fd,), daemon=True,
                             name=f"mcp-{self.config.name}-stderr").start()
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._run_loop, daemon=True, name=f"mcp-{self.config.name}")
            self._thread.start()
        if not self._ready.wait(self.config.timeout) and self._failure is None:
            self.stop()
            raise MCPError(f"MCP server {self.config.name!r} did not start within {self.config.timeout:.0f}s"
                           + self._stderr_hint())
        if self._failure is not None:
            failure = self._failure
            self.stop()
            raise MCPError(f"MCP server {self.config.name!r} failed to start: {failure}" + self._stderr_hint()) from failure
        self.restart_on_use = False
        return self.tools

    def restart(self) -> list[Any]:
        self.stop()
        return self.start()

    def stop(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            if loop is not None and self._stop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._stop.set)
            if thread is not None:
                thread.join(timeout=10)
            self._loop = None
            self._thread = None
            self._session = None
            self._closed.set()

    def _reset(self) -> None:
        self._ready.clear()
        self._closed.clear()
        self._failure = None
        self._session = None
        self.tools = []

    # ---- the private loop --------------------------------------------------------------------

    def _run_loop(self) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # noqa: BLE001 - reported to the caller, never raised here
            if not self._ready.is_set():
                self._failure = exc
            log.info("MCP server %s stopped: %r", self.config.name, exc)
        finally:
            self._closed.set()
            self._ready.set()
            try:
                loop.close()
            except Exception:  # pragma: no cover
                pass
            if self._stderr_fds is not None:
                try:
                    os.close(self._stderr_fds[1])
                except OSError:
                    pass

    async def _serve(self) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        cfg = self.config
        params = StdioServerParameters(command=cfg.command, args=list(cfg.args),
                                       env={**os.environ, **cfg.env} if cfg.env else None, cwd=cfg.cwd)
        assert self._stderr_fds is not None
        errlog = os.fdopen(os.dup(self._stderr_fds[1]), "w")
        self._stop = asyncio.Event()
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await asyncio.wait_for(session.initialize(), cfg.timeout)
                    listed = await asyncio.wait_for(session.list_tools(), cfg.timeout)
                    self.tools = list(listed.tools)
                    self._session = session
                    self._ready.set()
                    await self._stop.wait()
        finally:
            errlog.close()

    def _drain_stderr(self, fd: int) -> None:
        with os.fdopen(fd, "r", errors="replace") as stream:
            for line in stream:
                self._stderr.append(line.rstrip("\n"))
                log.debug("mcp %s: %s", self.config.name, line.rstrip())

    def stderr_tail(self, lines: int = 10) -> str:
        return "\n".join(list(self._stderr)[-lines:])

    def _stderr_hint(self) -> str:
        tail = self.stderr_tail()
        return f"\nLast stderr lines:\n{tail}" if tail else ""

    # ---- calls --------------------------------------------------------------------------------

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None,
             cancel: threading.Event | None = None) -> tuple[str, bool]:
        """Call ``tool``; returns (text, is_error). Raises MCPError when the server is gone.

        A call that takes longer than ``timeout`` (default: the config's ``call_timeout``, else
        ``timeout``) or is cancelled through ``cancel`` stops the server — a tool that hangs may
        well hold the whole server — and the next call starts it again.
        """
        if self.restart_on_use and not self.alive:
            self.start()                # raises MCPError with the reason when it cannot start
        if not self.alive or self._loop is None or self._session is None:
            raise MCPError(f"MCP server {self.config.name!r} is not running"
                           + (" (it exited)" if self._closed.is_set() else "")
                           + f"; restart it with `%agent /mcp restart {self.config.name}`" + self._stderr_hint())
        limit = timeout or self.config.call_timeout or self.config.timeout
        future = asyncio.run_coroutine_threadsafe(self._session.call_tool(tool, arguments), self._loop)
        deadline = time.monotonic() + limit
        stopped = False
        while True:
            step = min(0.1, max(0.0, deadline - time.monotonic()))
            try:
                result = future.result(timeout=step)
                break
            except FutureTimeout as exc:
                stopped = cancel is not None and cancel.is_set()
                if not stopped and time.monotonic() < deadline:
                    continue
                future.cancel()
                self._abandon_session()
                why = "the call was stopped" if stopped else f"it did not answer {tool!r} within {limit:g}s"
                raise MCPError(f"MCP server {self.config.name!r}: {why}; the server was stopped and starts "
                               "again on its next call" + self._stderr_hint()) from exc
            except Exception as exc:
                # tool failures come back as results with isError; an exception means the
                # connection itself broke, so the server is treated as gone until restarted
                self._mark_dead()
                raise MCPError(f"MCP server {self.config.name!r} failed on {tool!r}: {exc} — the server is "
                               f"no longer usable; restart it with `%agent /mcp restart {self.config.name}`"
                               + self._stderr_hint()) from exc
        return _result_text(result), bool(getattr(result, "isError", False) or getattr(result, "is_error", False))

    def _abandon_session(self) -> None:
        """Stop the server after a call was given up on, without waiting for it to exit (a
        stuck server takes seconds to be terminated); the next call starts it again."""
        self.restart_on_use = True
        self._closed.set()

        def stop_quietly() -> None:
            try:
                self.stop()
            except Exception:  # pragma: no cover - stop is best effort here
                log.exception("stopping MCP server %s failed", self.config.name)

        self._stopper = threading.Thread(target=stop_quietly, daemon=True, name=f"mcp-{self.config.name}-stop")
        self._stopper.start()

    def _mark_dead(self) -> None:
        self._closed.set()
        loop = self._loop
        if loop is not None and self._stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:  # loop already closed
                pass

    def descriptors(self) -> list[ToolDescriptor]:
        """One descriptor per listed tool (approval on: these run someone else's code)."""
        out = []
        for t in self.tools:
            schema = getattr(t, "inputSchema", None) or getattr(t, "input_schema", None) or {"type": "object"}
            out.append(ToolDescriptor(
                name=mcp_tool_name(self.config.name, t.name),
                description=(getattr(t, "description", None) or f"MCP tool {t.name}")
                + f" (from MCP server {self.config.name})",
                parameters=dict(schema),
                handler=self._handler_for(t.name),
                category="execute",
                approval_default=True,
                dialog="execute",
                source="mcp",
            ))
        return out

    def _handler_for(self, tool: str):
        def handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
            try:
                text, is_error = self.call(tool, args, cancel=ctx.cancel)
            except MCPError as exc:
                raise ToolError(str(exc)) from exc
            return ToolResult(text, status="error" if is_error else "success")

        return handler


def _result_text(result: Any) -> str:
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            parts.append(f"[image {getattr(block, 'mimeType', getattr(block, 'mime_type', ''))}]")
        else:
            parts.append(f"[{kind or 'content'}]")
    structured = getattr(result, "structuredContent", None) or getattr(result, "structured_content", None)
    if not parts and structured is not None:
        import json

        parts.append(json.dumps(structured, default=str))
    return cap_text("\n".join(parts) or "(no output)")
