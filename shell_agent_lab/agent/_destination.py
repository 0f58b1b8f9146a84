"""Where the rows a tool reads end up: on this machine, or with the model's host.

The approval gate lets reads of the session's data run freely when this is ``None``
(docs/approvals.md): the model runs here (embedded, or a server on a loopback address), or the
model is elsewhere but ``ShellAgent.data_sharing`` keeps rows on this machine (any level other
than ``"rows"``).
"""
from __future__ import annotations

from typing import Any

from ..llm.destination import model_host

__all__ = ["rows_go_to"]


def rows_go_to(backend: Any, settings: Any) -> str | None:
    """``None`` when tool results with rows stay on this machine, else where they go (a host)."""
    host = model_host(backend)
    if host is None:
        return None
    level = getattr(settings, "data_sharing", None) or "rows"
    return host if str(level) == "rows" else None
