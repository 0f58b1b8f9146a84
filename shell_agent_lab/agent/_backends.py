"""Which backend the agent talks to, and the per-backend defaults it follows.

:class:`BackendSlot` holds the current backend (built per profile by a factory, or pinned by the
caller) behind its own lock. The ``*_on`` functions resolve a setting in order: ``ShellAgent``
value → the profile's value → the backend's declared default → the built-in rule (remote models
on; the embedded ``local`` model and the ``scripted`` test double off).
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from ..llm.errors import ConfigurationError
from ..llm.types import Backend

__all__ = ["BackendSlot", "auto_extract_on", "auto_title_on", "schema_in_prompt_on", "tool_set_for"]

log = logging.getLogger(__name__)

_OFF_BY_DEFAULT = ("local", "scripted")


class BackendSlot:
    def __init__(self, backend: Backend | None, factory: Callable[[str | None], Backend] | None) -> None:
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()       # one build at a time: two would close each other's
        self._backend = backend
        self._profile: str | None = None
        self._factory = factory

    @property
    def current(self) -> Backend | None:
        with self._lock:
            return self._backend

    def get(self, profile: str | None) -> Backend:
        """The backend for ``profile``: the pinned one, the one built for it, or a new one."""
        with self._lock:
            backend = self._backend
            if backend is not None and (self._factory is None or self._profile == profile):
                return backend
        if self._factory is None:
            raise ConfigurationError("no model backend is configured",
                                     hint="pass backend= or backend_factory= when building the agent")
        with self._build_lock:
            with self._lock:        # built by another thread while this one waited
                backend = self._backend
                if backend is not None and self._profile == profile:
                    return backend
            return self._build(profile)

    def require_factory(self) -> None:
        """Refuse model/profile switching when the caller pinned one backend."""
        if self._factory is None:
            current = self.current
            fixed = current.identity if current is not None else "none"
            raise ConfigurationError(f"this agent was built with a fixed backend ({fixed})",
                                     hint="switching needs ShellAgent.profiles and build_agent without backend=")

    def rebuild(self, profile: str | None) -> Backend:
        """Build the backend for ``profile`` (closing the previous one)."""
        self.require_factory()
        with self._build_lock:
            return self._build(profile)

    def _build(self, profile: str | None) -> Backend:
        assert self._factory is not None
        backend = self._factory(profile)
        with self._lock:
            old, self._backend, self._profile = self._backend, backend, profile
        if old is not None and old is not backend:
            try:
                old.close()
            except Exception:
                log.exception("closing the previous backend failed")
        return backend

    def close(self) -> None:
        backend = self.current
        if backend is not None:
            try:
                backend.close()
            except Exception:
                log.exception("closing the backend failed")


def _flag(setting: bool | None, profile: dict[str, Any], key: str, backend: Backend, attr: str) -> bool:
    if setting is not None:
        return bool(setting)
    if isinstance(profile.get(key), bool):
        return profile[key]
    declared = getattr(backend, attr, None)
    if isinstance(declared, bool):
        return declared
    return backend.name not in _OFF_BY_DEFAULT


def auto_extract_on(settings: Any, profile: dict[str, Any], backend: Backend) -> bool:
    return _flag(settings.auto_extract, profile, "auto_extract", backend, "auto_extract_default")


def auto_title_on(settings: Any, profile: dict[str, Any], backend: Backend) -> bool:
    return _flag(settings.auto_title, profile, "auto_title", backend, "auto_title_default")


def schema_in_prompt_on(settings: Any, backend: Backend, tool_set: str = "full") -> bool:
    """``ShellAgent.schema_in_prompt``, else on for local models and the compact tool set
    (whose short prompt tells the model the columns are listed)."""
    setting = getattr(settings, "schema_in_prompt", None)
    if setting is not None:
        return bool(setting)
    if tool_set == "compact":
        return True
    return _is_local(backend)


def answer_strategy_for(settings: Any, tool_set: str) -> str:
    """``ShellAgent.answer_strategy``: "program" or "tools"; "auto" (the default) writes a pandas
    program first with the compact tool set (the embedded code model writes pandas best) and
    uses the tool loop otherwise."""
    value = getattr(settings, "answer_strategy", None) or "auto"
    if value in ("program", "operation", "tools"):
        return value
    return "program" if tool_set == "compact" else "tools"


def _is_local(backend: Backend) -> bool:
    profile = getattr(backend, "profile", None)
    return bool(getattr(profile, "is_local", False)) or backend.name == "local"


def tool_set_for(settings: Any, profile: dict[str, Any], backend: Backend) -> str:
    """"compact" or "full": ``ShellAgent.tool_set`` → the profile's ``tool_set`` → compact for
    local models (small ones read a short list better, and every schema costs prompt time)."""
    for value in (getattr(settings, "tool_set", None), profile.get("tool_set"),
                  (getattr(getattr(backend, "profile", None), "options", None) or {}).get("tool_set")):
        if value in ("compact", "full"):
            return value
    return "compact" if _is_local(backend) else "full"
