"""The analysis tools as descriptors for the tool registry."""
from __future__ import annotations

from ..tools.registry import ToolDescriptor
from .operations import operation_tools
from .tools_data import data_tools
from .tools_findings import findings_tools
from .tools_stats import stats_tools
from .tools_text import text_tools

__all__ = ["analysis_tools"]


def analysis_tools() -> list[ToolDescriptor]:
    """Every analysis tool, sorted by name. Handlers read ``ctx.engine``, ``ctx.store`` and ``ctx.ask``."""
    return sorted(data_tools() + findings_tools() + operation_tools() + stats_tools() + text_tools(),
                  key=lambda d: d.name)
