"""The Findings widget: severity badges and filter, search, Pin, delete, bulk delete."""
from __future__ import annotations

from typing import Any

import ipywidgets as W

from ._widget_base import SEVERITIES, BulkDelete, LiveWidget, Source, esc, md_cell, severity_badge, severity_of

__all__ = ["FindingsWidget", "filter_findings", "findings_markdown"]


def filter_findings(findings: list, severity: str = "all", search: str = "") -> list:
    """Findings matching a severity (``all`` for any) and a case-insensitive text search."""
    needle = search.strip().lower()
    out = []
    for f in findings:
        sev = severity_of(f.tags)
        if severity != "all" and sev != severity:
            continue
        if needle and needle not in f.content.lower() and needle not in " ".join(f.tags).lower() \
                and needle not in f.id.lower():
            continue
        out.append(f)
    return out


def findings_markdown(findings: list) -> str:
    if not findings:
        return "**Findings** — none yet in this session."
    rows = [f"**Findings** ({len(findings)})", "", "| id | severity | finding | tags |", "|---|---|---|---|"]
    for f in findings:
        rows.append(f"| {f.id} | {severity_of(f.tags) or '—'} | {md_cell(f.content)} | {md_cell(', '.join(f.tags))} |")
    return "\n".join(rows)


class _Row(W.HBox):
    def __init__(self, finding: Any, owner: "FindingsWidget") -> None:
        self.finding = finding
        self.select = W.Checkbox(value=False, indent=False, layout=W.Layout(width="24px"))
        sev = severity_of(finding.tags)
        others = [t for t in finding.tags if t.lower() != sev]
        meta = f'<span style="color:#757575;font-size:85%">{esc(finding.id)} · {esc(finding.created_label)}' + \
               (f" · {esc(', '.join(others))}" if others else "") + "</span>"
        self.label = W.HTML(f"{severity_badge(sev)}{esc(finding.content)}<br>{meta}",
                            layout=W.Layout(flex="1 1 auto"))
        self.category = W.Dropdown(options=["decision", "preference"], value="decision",
                                   layout=W.Layout(width="110px"), description_allow_html=False)
        self.pin = W.Button(description="Pin", icon="thumb-tack", tooltip="Pin to Global Memory",
                            layout=W.Layout(width="70px"))
        self.delete = W.Button(icon="trash", tooltip="Delete this finding", layout=W.Layout(width="40px"))
        self.pin.on_click(lambda _b: owner.pin(finding.id, self.category.value))
        self.delete.on_click(lambda _b: owner.delete([finding.id]))
        controls = [self.category, self.pin] if not owner.source.private() else []
        super().__init__([self.select, self.label, *controls, self.delete])


class FindingsWidget(LiveWidget):
    """This session's Findings, updated in place when they change."""

    refresh_on = ("findings_updated", "session_changed")

    def __init__(self, source: Source) -> None:
        super().__init__(source)
        self.severity = W.Dropdown(options=["all", *SEVERITIES], value="all", description="Severity",
                                   layout=W.Layout(width="200px"))
        self.search = W.Text(placeholder="search findings", continuous_update=True, layout=W.Layout(width="240px"))
        self.title = W.HTML()
        self.bulk = BulkDelete(lambda: len(self.selected_ids()), lambda: self.delete(self.selected_ids()), "finding")
        self.rows_box = W.VBox()
        self.severity.observe(lambda _c: self._draw(), "value")
        self.search.observe(lambda _c: self._draw(), "value")
        self.children = [self.title, W.HBox([self.severity, self.search, self.bulk]), self.rows_box, self.status]
        self._all: list = []
        self.refresh()

    def _rebuild(self) -> None:
        self._all = self.source.store.findings.list(self.source.session_id())
        self._draw()

    def _draw(self) -> None:
        shown = filter_findings(self._all, self.severity.value, self.search.value)
        self.title.value = f"<b>Findings</b> ({len(shown)} of {len(self._all)})"
        self.rows_box.children = [_Row(f, self) for f in shown]

    def rows(self) -> list[_Row]:
        return list(self.rows_box.children)

    def visible_ids(self) -> list[str]:
        return [r.finding.id for r in self.rows()]

    def selected_ids(self) -> list[str]:
        return [r.finding.id for r in self.rows() if r.select.value]

    def pin(self, finding_id: str, category: str) -> None:
        try:
            entry = self.source.store.pin_finding(self.source.session_id(), finding_id, category)
        except Exception as exc:
            self.say(f"Pin failed: {exc}", error=True)
            return
        self.publish("global_memory_updated")
        self.say(f"Pinned to Global Memory as {category}: {entry.fact[:80]}")

    def delete(self, ids: list[str]) -> None:
        if not ids:
            return
        n = self.source.store.findings.delete_many(self.source.session_id(), list(ids))
        self.publish("findings_updated")
        self.say(f"Deleted {n} finding{'s' if n != 1 else ''}.")

    def text(self) -> str:
        return findings_markdown(self._all)
