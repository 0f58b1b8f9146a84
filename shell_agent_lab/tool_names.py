"""How a tool's name is spelled: one rule shared by the settings (below every package) and the
tool registry."""
from __future__ import annotations

__all__ = ["canonical_tool_name"]


def canonical_tool_name(name: str) -> str:
    """Tool names are snake_case everywhere; ``-`` is accepted and folded to ``_``."""
    return name.strip().replace("-", "_")
