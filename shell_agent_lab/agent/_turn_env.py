"""Everything one turn is given: the :class:`TurnEnv` built from the settings, the session's
profile and the backend it talks to.

:func:`build_turn_env` also points the approval gate at the turn (the settings' overrides and
policy, where rows read by a tool end up, the connections a query may name) and resolves the
per-backend defaults (the tool set, the schema in the prompt, the answer strategy, the context
budget, the data-sharing level). What the agent owns is passed in as callables and called in a
fixed order: the analysis engine is opened after the gate takes the settings and before it
learns the connections (opening it adds the configured ones), then the kernel's namespace is
read, the profile looked up, and the profile's MCP servers started.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Iterable

from ..events import EventBus
from ..llm.types import Backend
from ..tools.approval import ApprovalGate
from ..tools.registry import ToolRegistry
from . import _context
from ._backends import answer_strategy_for, auto_extract_on, schema_in_prompt_on, tool_set_for
from ._destination import rows_go_to
from ._turn_state import TurnEnv
from ._sharing import sharing_level

__all__ = ["build_turn_env", "read_namespace"]

log = logging.getLogger(__name__)


def read_namespace(namespace: Callable[[], dict] | None) -> dict | None:
    """The kernel's namespace from ``namespace`` (None without one, or when it fails)."""
    if namespace is None:
        return None
    try:
        return namespace()
    except Exception:
        log.exception("namespace callable failed")
        return None


def build_turn_env(turn_id: str, cancel: threading.Event, session: Any, backend: Backend, *, settings: Any,
                   store: Any, builder: Any, registry: ToolRegistry, gate: ApprovalGate, events: EventBus,
                   clock: Callable[[], Any] | None, open_engine: Callable[[], Any],
                   connection_names: Callable[[], Iterable[str]], namespace: Callable[[], dict] | None,
                   profile_settings: Callable[[], dict[str, Any]],
                   follow_profile_tools: Callable[[], None]) -> TurnEnv:
    """The environment of turn ``turn_id`` in ``session`` (cancelled with ``cancel``).

    ``open_engine`` returns the session's analysis engine (with its connections beside it),
    ``connection_names`` the connections' names after that, ``profile_settings`` the session's
    profile dict, and ``follow_profile_tools`` starts the profile's MCP servers; the turn's
    events are published for ``session``.
    """
    gate.overrides = settings.approval_overrides
    gate.policy = settings.approval_policy
    engine = open_engine()
    gate.rows_go_to = rows_go_to(backend, settings)
    gate.connections = frozenset(connection_names())
    names = read_namespace(namespace)
    profile = profile_settings()
    tool_set = tool_set_for(settings, profile, backend)
    follow_profile_tools()
    sid = session.id

    def publish(type_: str, data: dict) -> None:
        events.publish(type_, data, session_id=sid)

    return TurnEnv(store=store, session=session, builder=builder, backend=backend,
                   registry=registry, gate=gate, publish=publish, cancel=cancel,
                   turn_id=turn_id, max_rounds=settings.max_tool_rounds,
                   max_args_bytes=settings.max_tool_call_args_bytes, disabled=settings.disabled(),
                   auto_extract=auto_extract_on(settings, profile, backend), engine=engine,
                   namespace=names,
                   settings=settings, clock=clock,
                   budget=_context.make_budget(backend, profile, settings.max_context_tokens),
                   schema_in_prompt=schema_in_prompt_on(settings, backend, tool_set),
                   tool_set=tool_set, require_tool_first=tool_set == "compact",
                   answer_strategy=answer_strategy_for(settings, tool_set),
                   program_timeout=float(getattr(settings, "program_timeout", 30.0) or 30.0),
                   question_budget=settings.question_budget,
                   data_sharing=sharing_level(settings, profile, backend),
                   route_by_model=bool(getattr(settings, "route_by_model", True)))
