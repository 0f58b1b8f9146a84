"""The agent's read-only connections to other databases, and the analysis engine with them beside it.

:class:`ConnectionSlot` holds the :class:`~shell_agent_lab.engines.Connections` (added by
``/connect`` or named in the settings and the session's profile) and puts the session's
analysis engine behind a :class:`~shell_agent_lab.engines.Sources` when there are any, keeping
one ``Sources`` per engine. A connection named in the settings is added once per URL (a bad
entry is logged and left for ``/connect`` to report), and every connection a session uses has
its name (never its URL) recorded in the session's folder.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engines import ConnectionSpec

__all__ = ["ConnectionSlot", "wanted_connections"]

log = logging.getLogger(__name__)


def wanted_connections(settings: Any, profile: dict[str, Any]) -> dict[str, str]:
    """The connections the settings name, with those of the session's profile over them."""
    wanted = dict(getattr(settings, "connections", None) or {})
    wanted.update(profile.get("connections") or {})
    return wanted


class ConnectionSlot:
    """The connections, the names recorded from the settings, and the ``Sources`` last built."""

    def __init__(self, store: Any) -> None:
        from ..engines import Connections

        self.connections = Connections()
        self._store = store
        self._configured: dict[str, str] = {}      # connection name -> URL taken from the settings
        self._sources: tuple[Any, Any] = (None, None)    # (engine, the Sources around it)

    def connect(self, session: Any, name: str, url: str) -> ConnectionSpec:
        """Add (or replace) the connection ``name``, recorded as used in ``session``."""
        spec = self.connections.add(name, url)
        self.record(session, spec.name)
        return spec

    def disconnect(self, name: str) -> bool:
        return self.connections.remove(name)

    def record(self, session: Any, name: str) -> None:
        """Note in ``session``'s folder that it used the connection ``name`` (failures are ignored)."""
        from ..engines.usage import record_use
        try:
            record_use(self._store.session_dir(session.id), name)
        except Exception:
            log.debug("recording the connection name failed", exc_info=True)

    def beside(self, engine: Any, session: Any, wanted: dict[str, str]) -> Any:
        """``engine`` behind :class:`~shell_agent_lab.engines.Sources` when connections exist,
        after adding the ``wanted`` ones (see :meth:`sync`)."""
        self.sync(wanted)
        if engine is None or not self.connections:
            return engine
        held, sources = self._sources
        if held is not engine or sources is None:
            from ..engines import Sources
            sources = Sources(engine, self.connections, on_use=lambda n: self.record(session, n))
            self._sources = (engine, sources)
        return sources

    def sync(self, wanted: dict[str, str]) -> None:
        """Add the ``wanted`` connections (name -> URL), each once per URL."""
        for name, url in wanted.items():
            if self._configured.get(name) == url:
                continue
            self._configured[name] = url
            try:
                self.connections.add(name, url)
            except Exception as exc:   # a bad entry is reported by /connect, not fatal
                log.warning("connection %s from the settings is not usable: %s", name, exc)
