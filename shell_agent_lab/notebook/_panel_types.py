"""What the side panel's op handlers (``_panel_ops.py``) use, as Protocols: the dispatcher that
calls them, the notebook runtime and the agent. Declared here, where they are used, so the
handlers depend on these shapes and not on ``comm.py`` or the agent's class; the real ones
(``comm.Dispatcher``, ``runtime.Runtime``, ``agent.Agent``) and the tests' doubles fit them.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

__all__ = ["PanelAgent", "PanelRuntime", "PanelHost"]


class PanelAgent(Protocol):
    """The agent as the panel's handlers use it (``agent.Agent``)."""

    store: Any
    settings: Any
    registry: Any
    gate: Any
    events: Any

    @property
    def session(self) -> Any: ...

    @property
    def state(self) -> Any: ...

    @property
    def backend(self) -> Any: ...

    def send(self, message: str, *, wait: bool = True) -> Any: ...

    def abort(self) -> None: ...

    def engine(self) -> Any: ...

    @property
    def connections(self) -> Any: ...

    def refresh_session(self) -> Any: ...

    def maintenance(self, what: str, *, timeout: float | None = None) -> AbstractContextManager[None]: ...

    def auto_extract_enabled(self, session: Any = None, backend: Any = None) -> bool: ...

    def export_session(self, dest: Path | str | None = None, **options: Any) -> Any: ...

    def set_profile(self, name: str | None) -> Any: ...

    def set_model(self, model: str | None) -> Any: ...


class PanelRuntime(Protocol):
    """The notebook runtime as the panel's handlers use it (``runtime.Runtime``)."""

    panel_connected: bool

    @property
    def agent(self) -> Any: ...

    @property
    def started(self) -> bool: ...

    def set_notebook_key(self, key: str | None) -> Any: ...

    def resolve_approval(self, request_id: str, approved: bool, feedback: str = "") -> bool: ...


class PanelHost(Protocol):
    """What a handler receives: the dispatcher (``comm.Dispatcher``) for one kernel."""

    @property
    def runtime(self) -> PanelRuntime: ...

    @property
    def agent(self) -> PanelAgent: ...

    @property
    def store(self) -> Any: ...

    def session_id(self) -> str: ...

    @property
    def request_id(self) -> str | None:
        """The id of the request being handled (on the handler's thread), for a late answer to name."""
        ...

    def publish(self, event: str, data: dict[str, Any] | None = None) -> None: ...

    def pending_approvals(self) -> list[dict[str, Any]]: ...
