"""Widgets beside the cells: Findings, Memory, Data, Approval, and the SQL button.

Each live widget reads the store through a :class:`Source` and rebuilds itself in place when
the agent's event bus says its data changed — from whatever thread published it. Where no
widget frontend exists, ``text()`` gives the same content as Markdown.
"""
from __future__ import annotations

from typing import Any

from ._approval_widget import ApprovalWidget, SqlButton, cell_code
from ._data_widget import DataWidget, data_markdown
from ._findings_widget import FindingsWidget, filter_findings, findings_markdown
from ._memory_widget import MemoryWidget, memory_markdown
from ._widget_base import Source

__all__ = [
    "Source", "FindingsWidget", "MemoryWidget", "DataWidget", "ApprovalWidget", "SqlButton",
    "sql_button", "cell_code", "filter_findings", "findings_markdown", "memory_markdown", "data_markdown",
]


def sql_button(sqls: list[str]) -> Any:
    """The "Insert SQL as cell" button for the running kernel, or None without widgets."""
    from .runtime import get_runtime

    rt = get_runtime()
    if not rt.frontend().live:
        return None
    return SqlButton(sqls, rt.insert_cell)
