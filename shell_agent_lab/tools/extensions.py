"""The user's own tools, wired into an agent's registry behind the same approval gate.

* ``@shell_agent_lab.tool`` functions (this kernel), mirrored as they are defined;
* executable scripts in the tools directory (``ShellAgent.tools_dir``, default
  ``<data dir>/tools``), reloaded by ``/tools reload``;
* stdio MCP servers from ``ShellAgent.mcp_servers`` and the active profile's
  ``mcp_servers``, restartable with ``/mcp restart NAME``. The set follows the profile: on a
  profile or session switch (:meth:`Extensions.follow`) servers no longer configured are
  stopped, servers whose configuration is unchanged keep running, and new ones start when the
  next turn (or ``/tools``) needs their tools;
* ``run_python``, which runs approved code in the notebook's namespace.

The slash commands ``/tools`` and ``/mcp`` that read an agent's extensions live with the other
commands, in ``agent/commands.py``.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from .mcp_tools import MCPError, MCPServer, MCPServerConfig
from .python_tools import attach_user_tools
from .registry import ToolRegistry
from .run_python import run_python_tool
from .script_tools import load_script_tools

__all__ = ["Extensions", "install_extensions", "mcp_configs"]

log = logging.getLogger(__name__)


def mcp_configs(settings: Any, profile: dict[str, Any] | None = None) -> list[MCPServerConfig]:
    """Server configs from the settings' ``mcp_servers`` merged with the profile's (profile wins)."""
    raw: dict[str, Any] = dict(getattr(settings, "mcp_servers", None) or {})
    raw.update((profile or {}).get("mcp_servers") or {})
    configs = []
    for name, body in sorted(raw.items()):
        if not isinstance(body, dict) or not body.get("command"):
            raise ValueError(f"MCP server {name!r} needs at least a 'command', e.g. "
                             '{"command": "python", "args": ["server.py"]}')
        configs.append(MCPServerConfig(
            name=name, command=str(body["command"]), args=[str(a) for a in body.get("args", [])],
            env={str(k): str(v) for k, v in (body.get("env") or {}).items()}, cwd=body.get("cwd"),
            timeout=float(body.get("timeout", 30)), enabled=bool(body.get("enabled", True)),
            call_timeout=float(body["call_timeout"]) if body.get("call_timeout") else None))
    return configs


class Extensions:
    """Keeps the script tools and MCP servers of one registry current."""

    def __init__(self, registry: ToolRegistry, *, tools_dir: Path | None,
                 servers: list[MCPServerConfig] = ()) -> None:
        self.registry = registry
        self.tools_dir = tools_dir
        self._lock = threading.RLock()
        self._script_names: set[str] = set()
        self.servers: dict[str, MCPServer] = {c.name: MCPServer(c) for c in servers if c.enabled}
        self._registered: dict[str, set[str]] = {}     # server -> the tool names it registered
        self._pending: set[str] = set(self.servers)     # configured, not started yet
        self.errors: dict[str, str] = {}

    def reload_scripts(self) -> list[str]:
        with self._lock:
            for name in self._script_names:
                self.registry.unregister(name)
            descriptors = load_script_tools(self.tools_dir) if self.tools_dir else []
            for d in descriptors:
                self.registry.register(d)
            self._script_names = {d.name for d in descriptors}
            return sorted(self._script_names)

    # ---- MCP servers ----------------------------------------------------------------------

    def start_servers(self) -> None:
        """Start every configured server that has not been started yet."""
        with self._lock:
            for name in sorted(self._pending):
                self._start(name)

    def follow(self, settings: Any, profile: dict[str, Any] | None, *, start: bool = False) -> None:
        """Make the server set the one ``settings`` and ``profile`` configure.

        Servers no longer configured (or configured differently) are stopped and their tools
        removed; unchanged ones keep running; new ones are started now when ``start`` is true,
        else on the next call with ``start=True`` (the next turn). Never raises: a bad
        configuration is logged and kept in :attr:`errors`, and the current set stays.
        """
        try:
            configs = mcp_configs(settings, profile)
        except ValueError as exc:
            log.warning("MCP servers not changed: %s", exc)
            self.errors["configuration"] = str(exc)
            return
        self.errors.pop("configuration", None)
        wanted = {c.name: c for c in configs if c.enabled}
        with self._lock:
            for name, server in sorted(self.servers.items()):
                if wanted.get(name) != server.config:
                    self._unregister(name)
                    server.stop()
                    del self.servers[name]
                    self._pending.discard(name)
                    self.errors.pop(name, None)
                    log.info("MCP server %s stopped: no longer configured for this profile", name)
            for name, config in wanted.items():
                if name not in self.servers:
                    self.servers[name] = MCPServer(config)
                    self._pending.add(name)
            if start:
                self.start_servers()

    def _unregister(self, name: str) -> None:
        for tool in self._registered.pop(name, set()):
            self.registry.unregister(tool)

    def _start(self, name: str) -> None:
        server = self.servers[name]
        self._pending.discard(name)
        self._unregister(name)
        try:
            server.restart() if server.tools or server.restart_on_use else server.start()
        except MCPError as exc:
            self.errors[name] = str(exc)
            log.warning("%s", exc)
            return
        self.errors.pop(name, None)
        descriptors = server.descriptors()
        for d in descriptors:
            self.registry.register(d)
        self._registered[name] = {d.name for d in descriptors}

    def restart(self, name: str) -> str:
        with self._lock:
            if name not in self.servers:
                known = ", ".join(sorted(self.servers)) or "none configured"
                raise KeyError(f"no MCP server named {name!r} (configured: {known})")
            self._start(name)
            return self.errors.get(name) or f"MCP server {name} restarted with {len(self.servers[name].tools)} tool(s)"

    def status(self) -> list[dict[str, Any]]:
        with self._lock:
            return [{"name": n, "alive": s.alive, "tools": [t.name for t in s.tools], "error": self.errors.get(n),
                     "pending": n in self._pending, "restart_on_use": s.restart_on_use}
                    for n, s in sorted(self.servers.items())]

    def close(self) -> None:
        with self._lock:
            for server in self.servers.values():
                server.stop()


def install_extensions(registry: ToolRegistry, settings: Any, *, data_dir: Path | None,
                       profile: dict[str, Any] | None = None, start_servers: bool = True) -> Extensions:
    """Register user tools, script tools, MCP servers and run_python into ``registry``."""
    attach_user_tools(registry)
    registry.register(run_python_tool())
    configured = getattr(settings, "tools_dir", None)
    tools_dir = Path(configured).expanduser() if configured else (Path(data_dir) / "tools" if data_dir else None)
    ext = Extensions(registry, tools_dir=tools_dir, servers=mcp_configs(settings, profile))
    ext.reload_scripts()
    if start_servers:
        ext.start_servers()
    return ext
