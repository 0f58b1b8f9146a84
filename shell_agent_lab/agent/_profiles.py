"""Which profile a session uses, and switching the profile or the model it talks to.

A session uses its own profile, else ``ShellAgent.profile`` (:func:`profile_name`);
:func:`profile_settings` is that profile's dict ({} when the name is not configured).
:func:`bind_profile` and :func:`use_model` build the backend for a new profile or model and put
the previous binding back when it cannot be built. :func:`follow_profile_tools` makes the
user's MCP servers those of a session's profile. The agent runs the switches under its
maintenance hold and announces them.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

from ..llm.types import Backend
from ._backends import BackendSlot

__all__ = ["bind_profile", "follow_profile_tools", "profile_name", "profile_settings", "use_model"]

log = logging.getLogger(__name__)


def profile_name(settings: Any, session: Any) -> str | None:
    """The profile ``session`` uses: its own, else the settings' one."""
    return getattr(session, "profile", None) or settings.profile


def profile_settings(settings: Any, session: Any) -> dict[str, Any]:
    """The dict of the profile ``session`` uses ({} when that profile is not configured)."""
    try:
        return settings.profile_settings(profile_name(settings, session))
    except KeyError:
        return {}


def follow_profile_tools(extensions: Any, settings: Any, session: Any, *, start: bool = False) -> None:
    """Make the MCP servers those of ``session``'s profile (new ones start with ``start``);
    nothing without the user's extensions, and a failure is logged."""
    if extensions is None:
        return
    try:
        extensions.follow(settings, profile_settings(settings, session), start=start)
    except Exception:
        log.exception("updating the MCP servers for the profile failed")


def bind_profile(store: Any, backends: BackendSlot, settings: Any, session: Any, name: str | None,
                 refresh: Callable[[], Any]) -> tuple[Any, Backend]:
    """Bind ``session`` to profile ``name`` in the store and build its backend; returns the
    session as re-read by ``refresh`` and the backend. The previous binding is restored (and
    the error raised) when the backend cannot be built."""
    previous = session.profile
    store.set_session_profile(session.id, name)
    session = refresh() or session
    try:
        backend = backends.rebuild(profile_name(settings, session))
    except Exception:       # the old binding stays when the new backend cannot be built
        store.set_session_profile(session.id, previous)
        refresh()
        raise
    return session, backend


def use_model(settings: Any, backends: BackendSlot, model: str | None,
              current_session: Callable[[], Any]) -> tuple[Any, Backend]:
    """Set ``ShellAgent.model`` to ``model`` and build the backend for the current session's
    profile; returns that session and the backend. The previous model is restored (and the
    error raised) when the backend cannot be built."""
    previous = settings.model
    settings.model = model or None
    session = current_session()
    try:
        backend = backends.rebuild(profile_name(settings, session))
    except Exception:       # the old model stays when the new backend cannot be built
        settings.model = previous
        raise
    return session, backend
