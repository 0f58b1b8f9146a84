"""The analysis tools as descriptors for the tool registry."""
from __future__ import annotations

from ..tools.registry import ToolDescriptor
from .tools_data import data_tools

__all__ = ["analysis_tools"]


def analysis_tools() -> list[ToolDescriptor]:
    """Every analysis tool, sorted by name. Handlers read ``ctx.engine``, ``ctx.store`` and ``ctx.backend``."""
    return sorted(data_tools(), key=lambda d: d.name)
