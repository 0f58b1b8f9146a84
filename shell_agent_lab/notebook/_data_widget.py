"""The Data widget: the session's tables and the notebook's live DataFrames."""
from __future__ import annotations

from typing import Any

import ipywidgets as W

from ._widget_base import LiveWidget, Source, esc, md_cell

__all__ = ["DataWidget", "data_markdown"]


def _columns(info: Any) -> list[tuple[str, str]]:
    cols = getattr(info, "columns", None) or []
    out = []
    for c in cols:
        if isinstance(c, (tuple, list)) and len(c) >= 2:
            out.append((str(c[0]), str(c[1])))
        else:
            out.append((str(getattr(c, "name", c)), str(getattr(c, "type", ""))))
    return out


def _rows(info: Any) -> str:
    rows = getattr(info, "rows", None)
    return f"{rows:,}" if isinstance(rows, int) else "?"


def data_markdown(tables: list) -> str:
    if not tables:
        return "**Data** — no tables or DataFrames yet. Load a file or create a DataFrame, then ask."
    lines = [f"**Data** ({len(tables)})", "", "| name | kind | rows | columns |", "|---|---|---|---|"]
    for t in tables:
        cols = ", ".join(f"{n} {ty}".strip() for n, ty in _columns(t))
        lines.append(f"| {md_cell(t.name)} | {t.kind} | {_rows(t)} | {md_cell(cols)} |")
    return "\n".join(lines)


class DataWidget(LiveWidget):
    """Tables in the session's database and DataFrames in the namespace, with rows and columns."""

    refresh_on = ("data_updated", "session_changed")

    def __init__(self, source: Source) -> None:
        super().__init__(source)
        self.refresh_button = W.Button(description="Refresh", icon="refresh", layout=W.Layout(width="100px"))
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.table = W.HTML()
        self.children = [self.refresh_button, self.table, self.status]
        self._tables: list = []
        self.refresh()

    def _rebuild(self) -> None:
        self._tables = list(self.source.tables())
        if not self._tables:
            self.table.value = "<i>No tables or DataFrames yet.</i>"
            return
        body = []
        for t in self._tables:
            cols = ", ".join(f"<code>{esc(n)}</code> <small>{esc(ty)}</small>" for n, ty in _columns(t))
            kind = "🐼 DataFrame" if t.kind == "dataframe" else "🗄 table"
            body.append(f"<tr><td><b>{esc(t.name)}</b></td><td>{kind}</td>"
                        f"<td style='text-align:right'>{_rows(t)}</td><td>{cols}</td></tr>")
        self.table.value = ("<table><thead><tr><th>name</th><th>kind</th><th>rows</th><th>columns</th></tr>"
                            f"</thead><tbody>{''.join(body)}</tbody></table>")

    def names(self) -> list[str]:
        return [t.name for t in self._tables]

    def text(self) -> str:
        return data_markdown(self._tables)
