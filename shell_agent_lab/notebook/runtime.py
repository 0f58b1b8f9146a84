"""The kernel's one agent, bound to this notebook's session.

``get_runtime()`` returns the per-kernel :class:`Runtime` (the magics and the side panel's
comm share it); ``get_agent()`` its agent, built on first use with the kernel's namespace, the
notebook's directory as the base for relative paths, and the notebook approver.

Session identity, first match wins: a stable key from the notebook's metadata (set by the side
panel through :meth:`Runtime.set_notebook_key`), the notebook path the server gave the kernel
(``__session__`` / ``JPY_SESSION_NAME``), otherwise a session of this kernel alone.
``/session NAME``, ``/private`` and ``/reset`` switch explicitly.

This is the notebook package's bottom module: it imports nothing above it. What it needs from
the modules that import it — the approval widget's factory — ``extension.load`` injects
(:func:`use_approval_widget`).
"""
from __future__ import annotations

import logging
import os
import threading
from typing import Any, Callable, Mapping

from .approval import NotebookApprover
from .identity import Frontend, base_dir, detect_frontend, notebook_path

__all__ = ["Runtime", "get_runtime", "get_agent", "reset_runtime", "settings_for", "use_approval_widget"]

log = logging.getLogger(__name__)

Builder = Callable[..., Any]

#: makes the approval widget shown in a cell (``widgets.ApprovalWidget``, injected by ``extension.load``)
_approval_widget: Callable[..., Any] | None = None


def settings_for(shell: Any) -> Any:
    """The shell's ``ShellAgent`` settings object (created and registered once)."""
    from ..config import ShellAgent

    for c in getattr(shell, "configurables", []):
        if isinstance(c, ShellAgent):
            return c
    from ._cassette import apply_cassette

    settings = ShellAgent(parent=shell)
    apply_cassette(settings, os.environ)
    shell.configurables.append(settings)
    return settings


def use_approval_widget(factory: Callable[..., Any] | None) -> None:
    """The factory of the approval widget shown in a cell, for runtimes made now and later."""
    global _approval_widget
    with _runtime_lock:
        _approval_widget = factory
        if _runtime is not None:
            _runtime.approver.make_widget = factory


def _default_build(*, shell: Any, base: Any, approver: Any) -> Any:
    """The one integration point with the agent package."""
    from ..agent.factory import build_agent
    from ._script import ENV_SCRIPT, load_script

    script = os.environ.get(ENV_SCRIPT)
    backend = load_script(script) if script else None
    return build_agent(settings_for(shell), namespace=lambda: shell.user_ns, base_dir=base, approver=approver,
                       backend=backend)


class Runtime:
    """Per-kernel state of the notebook surface. Thread-safe."""

    def __init__(self, shell: Any, *, build: Builder = _default_build,
                 environ: Mapping[str, str] | None = None) -> None:
        self.shell = shell
        self._build = build
        self._environ = environ if environ is not None else os.environ
        self._lock = threading.RLock()
        self._agent: Any = None
        self._key: str | None = None
        self.panel_connected = False
        self.last_reply: Any = None
        #: called with SQL text to insert it as the next cell (the side panel registers one)
        self.insert_cell_handlers: list[Callable[..., Any]] = []
        #: the cells of the last answer (``%agent /cells`` writes them; see :mod:`.cells`)
        self.last_cells: list[Any] = []
        #: the last answer's cells with where they belong (``cells.CellSet``)
        self.last_cell_set: Any = None
        #: called with a command name and its arguments (``sync_cells``, ``undo_cells``) to change
        #: the notebook (the side panel registers one)
        self.command_handlers: list[Callable[[str, dict[str, Any]], Any]] = []
        #: what the assistant's last change did to the notebook, for Undo cells (see :mod:`.cell_changes`)
        self.cell_change: dict[str, Any] | None = None
        self.approver = NotebookApprover(self.resolve_approval, make_widget=_approval_widget)

    # -- identity ------------------------------------------------------------------------------
    @property
    def notebook_path(self) -> str | None:
        return notebook_path(getattr(self.shell, "user_ns", None), self._environ)

    def frontend(self) -> Frontend:
        forced = str(self._environ.get("SHELL_AGENT_LAB_FRONTEND", "") or "")
        return detect_frontend(self.shell, self._environ, forced=forced, panel_connected=self.panel_connected)

    # -- the agent -----------------------------------------------------------------------------
    @property
    def agent(self) -> Any:
        with self._lock:
            if self._agent is None:
                path = self.notebook_path
                agent = self._build(shell=self.shell, base=base_dir(path), approver=self.approver)
                self._agent = agent
                agent.events.subscribe(self.approver.on_resolved, ["approval_resolved"])
                self._open_for_notebook()
            return self._agent

    @property
    def started(self) -> bool:
        return self._agent is not None

    def session(self) -> Any:
        return self.agent.session

    def set_notebook_key(self, key: str | None) -> Any:
        """The side panel supplies the stable id kept in the notebook's metadata."""
        with self._lock:
            self._key = key or None
            if self._agent is None:
                return None
            return self._open_for_notebook()

    def _open_for_notebook(self) -> Any:
        """Reopen this notebook's session (by key, then path), or start one."""
        agent, path, key = self._agent, self.notebook_path, self._key
        store = agent.store
        found = None
        if key:
            found = store.find_session(None, key=key)
        if found is None and path:
            found = store.find_session(path)
        if found is None:
            found = store.create_session(notebook_path=path, profile=agent.settings.profile)
        if key and found.key != key:
            store.set_session_key(found.id, key)
        return agent.open_session(found.id)

    def switch_session(self, title: str) -> Any:
        """``/session NAME``: reuse the session titled NAME, else create it."""
        agent = self.agent
        store = agent.store
        with agent.maintenance("switch sessions"):     # refused while a turn runs, before creating anything
            for s in store.list_sessions():
                if s.title == title:
                    return agent.open_session(s.id)
            session = store.create_session(title=title, notebook_path=self.notebook_path,
                                           profile=agent.settings.profile)
            store.rename_session(session.id, title)
            return agent.open_session(session.id)

    def new_session(self, *, private: bool = False) -> Any:
        """``/reset`` and ``/private``: a fresh session for this notebook."""
        agent = self.agent
        with agent.maintenance("start a new session"):   # refused while a turn runs, before creating one
            session = agent.store.create_session(notebook_path=self.notebook_path, private=private,
                                                 profile=agent.settings.profile)
            return agent.open_session(session.id)

    # -- approvals and cells -------------------------------------------------------------------
    def resolve_approval(self, request_id: str, approved: bool, feedback: str = "",
                         action: str | None = None) -> bool:
        agent = self._agent
        if agent is None:
            return False
        return bool(agent.resolve_approval(request_id, approved, feedback, action))

    def insert_cell(self, code: str, **options: Any) -> bool:
        """Insert ``code`` as the next cell, through a registered frontend hook (``options``:
        ``run``, ``after_cell_id``, ``replace`` of the ``insert_cell`` panel command).

        The newest hook is tried first: after the panel reconnects, the previous connection's
        hook can linger until its close message is processed, and it would swallow the cell.
        """
        for handler in reversed(list(self.insert_cell_handlers)):
            try:
                if (handler(code, **options) if options else handler(code)) is not False:
                    return True
            except Exception:
                log.exception("insert-cell handler failed")
        return False

    def notebook_command(self, command: str, args: dict[str, Any]) -> bool:
        """Ask the notebook's frontend to run ``command`` (a ``commands`` entry of the panel
        protocol) through a registered hook, the newest first; False when none took it."""
        for handler in reversed(list(self.command_handlers)):
            try:
                if handler(command, args) is not False:
                    return True
            except Exception:
                log.exception("notebook command %s failed", command)
        return False

    def close(self) -> None:
        with self._lock:
            agent, self._agent = self._agent, None
        if agent is not None:
            close = getattr(agent, "close", None)
            if close:
                close()


_runtime: Runtime | None = None
_runtime_lock = threading.Lock()


def get_runtime(shell: Any = None, **kwargs: Any) -> Runtime:
    """The kernel's runtime (created on first call with the running IPython shell)."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            if shell is None:
                from IPython import get_ipython

                shell = get_ipython()
                if shell is None:
                    raise RuntimeError("shell-agent-lab's notebook runtime needs a running IPython kernel or shell")
            _runtime = Runtime(shell, **kwargs)
        return _runtime


def get_agent() -> Any:
    """The kernel's agent, bound to this notebook's session."""
    return get_runtime().agent


def reset_runtime() -> None:
    """Close and forget the runtime (``%unload_ext`` and tests)."""
    global _runtime
    with _runtime_lock:
        rt, _runtime = _runtime, None
    if rt is not None:
        rt.close()
