"""``build_agent``: the one place that wires a store, the tools, a backend and the analysis
engine into an :class:`~shell_agent_lab.agent.Agent`. Front doors call only this."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from ..context.prompt import MEMORY_HEADERS
from ..events import EventBus
from ..llm.errors import ConfigurationError
from ..llm.types import Backend
from ..tools.approval import Approver
from ..tools.builtin import builtin_tools
from ..tools.registry import ToolRegistry
from .agent import Agent

__all__ = ["build_agent", "default_registry"]

log = logging.getLogger(__name__)


def default_registry() -> ToolRegistry:
    """Builtin tools plus the analysis tools (when the analysis package is importable)."""
    registry = ToolRegistry(builtin_tools())
    try:
        from ..analysis import analysis_tools
    except ImportError:
        log.info("analysis tools unavailable: shell_agent_lab.analysis is not importable")
    else:
        for descriptor in analysis_tools():
            registry.register(descriptor)
    return registry


def _backend_factory(settings: Any) -> Callable[[str | None], Backend]:
    def factory(profile: str | None) -> Backend:
        try:
            from ..llm.selection import select_backend
        except ImportError as exc:
            raise ConfigurationError(
                "no model backend is available in this installation",
                hint="pass backend= to build_agent, or install shell-agent-lab with its model backends") from exc
        # a replay pins the memory sections of the system prompt (context's headers)
        return select_backend(settings, profile, pinned_sections=MEMORY_HEADERS)
    return factory


def _engine_factory(store: Any, settings: Any, namespace: Callable[[], dict] | None,
                    base_dir: Path | None, events: EventBus) -> Callable[[Any], Any] | None:
    try:
        from ..analysis import AnalysisEngine, AnalysisSettings
    except ImportError:
        log.info("analysis engine unavailable: shell_agent_lab.analysis is not importable")
        return None

    def factory(session: Any) -> Any:
        limits = AnalysisSettings(max_query_rows=settings.max_query_rows)

        def stored(name: str) -> None:   # a large file finished storing: exact row counts now
            events.publish("data_updated", {}, session_id=session.id)

        return AnalysisEngine(store.session_dir(session.id) / "analysis.duckdb", namespace=namespace,
                              base_dir=base_dir, settings=limits, on_stored=stored)
    return factory


def build_agent(settings: Any = None, *, store: Any = None, namespace: Callable[[], dict] | None = None,
                backend: Backend | None = None, approver: Approver | None = None,
                base_dir: Path | str | None = None, events: EventBus | None = None,
                registry: ToolRegistry | None = None) -> Agent:
    """Build the kernel's agent.

    ``settings`` is a :class:`~shell_agent_lab.config.ShellAgent` (a default one when omitted);
    ``store`` defaults to the store in the configured data directory; ``namespace`` returns the
    kernel's user namespace (its DataFrames become queryable); ``backend`` pins one backend
    (otherwise profiles select one); ``approver`` answers approval requests.
    """
    if settings is None:
        from ..config import ShellAgent
        settings = ShellAgent()
    if store is None:
        from ..paths import data_dir
        from ..store import Caps, Store
        store = Store.open(data_dir(settings.data_dir),
                           caps=Caps(global_memory=settings.max_global_memory,
                                     session_memory=settings.max_session_memory,
                                     findings=settings.max_findings))
    base = Path(base_dir).expanduser() if base_dir is not None else None
    extensions = None
    if registry is None:
        registry = default_registry()
        extensions = _install_extensions(registry, settings, store)
    events = events or EventBus()
    agent = Agent(store=store, registry=registry, events=events,
                  settings=settings, backend=backend,
                  backend_factory=None if backend is not None else _backend_factory(settings),
                  engine_factory=_engine_factory(store, settings, namespace, base, events), namespace=namespace,
                  approver=approver)
    agent.extensions = extensions
    return agent


def _install_extensions(registry: ToolRegistry, settings: Any, store: Any) -> Any:
    """The user's tools: @tool functions, script tools, MCP servers and run_python."""
    import atexit

    from ..tools.extensions import install_extensions

    profile = None
    if getattr(settings, "profile", None):
        try:
            profile = settings.profile_settings(settings.profile)
        except KeyError:
            profile = None
    extensions = install_extensions(registry, settings, data_dir=store.data_dir, profile=profile)
    atexit.register(extensions.close)
    return extensions
