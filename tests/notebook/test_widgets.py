"""Widgets over a real Store: filters, Pin, delete with confirmation, edits, updates from other threads."""
from __future__ import annotations

import threading

import pytest

from shell_agent_lab.events import EventBus
from shell_agent_lab.notebook.widgets import (ApprovalWidget, DataWidget, FindingsWidget, MemoryWidget, Source,
                                              SqlButton, cell_code)
from shell_agent_lab.tools.approval import ApprovalRequest


@pytest.fixture
def session(store):
    return store.create_session(title="t")


@pytest.fixture
def bus():
    return EventBus()


def _source(store, session, bus, **kw):
    return Source(store=store, session_id=lambda: session.id, events=bus, **kw)


def test_findings_filter_by_severity_and_search(store, session, bus):
    store.findings.add(session.id, "EU churn spiked in March", tags=("high", "churn"))
    store.findings.add(session.id, "US revenue flat", tags=("low",))
    w = FindingsWidget(_source(store, session, bus))
    assert len(w.visible_ids()) == 2
    w.severity.value = "high"
    assert [r.finding.content for r in w.rows()] == ["EU churn spiked in March"]
    w.severity.value = "all"
    w.search.value = "revenue"
    assert [r.finding.content for r in w.rows()] == ["US revenue flat"]
    assert "severity" in w.text() and "EU churn" in w.text()


def test_findings_pin_with_a_category_lands_in_global_memory(store, session, bus):
    f = store.findings.add(session.id, "Fiscal year starts in April", tags=("info",))
    seen = []
    bus.subscribe(lambda e: seen.append(e.type))
    w = FindingsWidget(_source(store, session, bus))
    row = w.rows()[0]
    row.category.value = "preference"
    row.pin.click()
    entries = store.global_memory.list()
    assert [(e.fact, e.category) for e in entries] == [("Fiscal year starts in April", "preference")]
    assert "global_memory_updated" in seen
    assert f.id in w.visible_ids()                        # the original stays


def test_findings_bulk_delete_needs_a_second_click(store, session, bus):
    for i in range(3):
        store.findings.add(session.id, f"finding number {i} about table t{i}", tags=("medium",))
    w = FindingsWidget(_source(store, session, bus))
    for r in w.rows()[:2]:
        r.select.value = True
    w.bulk.button.click()
    assert w.bulk.armed and "Delete 2 findings?" == w.bulk.confirm.description
    assert len(store.findings.list(session.id)) == 3        # nothing yet
    w.bulk.cancel.click()
    assert not w.bulk.armed and len(store.findings.list(session.id)) == 3
    w.bulk.button.click()
    w.bulk.confirm.click()
    assert len(store.findings.list(session.id)) == 1
    assert len(w.rows()) == 1                               # refreshed through the bus


def test_findings_update_in_place_from_another_thread(store, session, bus):
    w = FindingsWidget(_source(store, session, bus))
    assert w.rows() == []

    def worker():
        store.findings.add(session.id, "Late orders cluster on Mondays", tags=("medium",))
        bus.publish("findings_updated", {}, session_id=session.id)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert [r.finding.content for r in w.rows()] == ["Late orders cluster on Mondays"]
    w.close()
    store.findings.add(session.id, "after close", tags=())
    bus.publish("findings_updated", {})                      # a closed widget no longer listens
    assert len(w.rows()) == 1


def test_private_session_hides_pin(store, bus):
    private = store.create_session(title="p", private=True)
    store.findings.add(private.id, "secret", tags=())
    w = FindingsWidget(_source(store, private, bus, private=lambda: True))
    assert not hasattr(w.rows()[0], "pin") or w.rows()[0].pin not in w.rows()[0].children


def test_memory_global_above_session_with_badges_pin_demote_edit(store, session, bus):
    store.global_memory.set("Prefers plotly for charts", "preference")
    store.session_memory.set(session.id, "Table sales holds 2024 orders", "fact")
    w = MemoryWidget(_source(store, session, bus))
    assert w.children.index(w.global_box) < w.children.index(w.session_box)
    g_row, s_row = w.rows("global")[0], w.rows("session")[0]
    assert "user-stated" in g_row.label.value and "preference" in g_row.label.value
    assert "fact" in s_row.label.value and "learned" in s_row.label.value
    # Pin a session row as a decision
    s_row.category.value = "decision"
    s_row.pin.click()
    assert {e.fact for e in store.global_memory.list()} == {"Prefers plotly for charts", "Table sales holds 2024 orders"}
    # edit a global row
    row = next(r for r in w.rows("global") if r.entry.fact == "Prefers plotly for charts")
    row.edit.click()
    row.editor.value = "Prefers plotly for every chart"
    row.save.click()
    assert "Prefers plotly for every chart" in {e.fact for e in store.global_memory.list()}
    # demote it to the session
    row = next(r for r in w.rows("global") if r.entry.fact == "Prefers plotly for every chart")
    row.demote.click()
    assert "Prefers plotly for every chart" not in {e.fact for e in store.global_memory.list()}
    assert "Prefers plotly for every chart" in {e.fact for e in store.session_memory.list(session.id)}
    assert "Prefers plotly for every chart" in {r.entry.fact for r in w.rows("session")}


def test_memory_edit_refuses_empty_text(store, session, bus):
    store.global_memory.set("Uses EUR", "decision")
    w = MemoryWidget(_source(store, session, bus))
    row = w.rows("global")[0]
    row.edit.click()
    row.editor.value = "   "
    row.save.click()
    assert "cannot be empty" in w.status.value
    assert [e.fact for e in store.global_memory.list()] == ["Uses EUR"]


def test_memory_bulk_delete_across_sections(store, session, bus):
    store.global_memory.set("Uses EUR", "decision")
    store.session_memory.set(session.id, "sales has 10 rows", "fact")
    store.session_memory.set(session.id, "region is a text column", "context")
    w = MemoryWidget(_source(store, session, bus))
    w.rows("global")[0].select.value = True
    w.rows("session")[0].select.value = True
    w.bulk.button.click()
    w.bulk.confirm.click()
    assert store.global_memory.list() == []
    assert len(store.session_memory.list(session.id)) == 1
    assert len(w.rows("session")) == 1


def test_suggestions_are_marked_and_pinnable(store, session, bus):
    store.session_memory.add(session.id, "Prefers weekly buckets", "preference", source="assistant_turn",
                             suggested=True)
    w = MemoryWidget(_source(store, session, bus))
    row = w.rows("session")[0]
    assert "suggestion" in row.label.value
    assert row.category.value == "preference"
    row.pin.click()
    assert [e.fact for e in store.global_memory.list()] == ["Prefers weekly buckets"]


def test_data_widget_lists_tables_and_dataframes(store, session, bus):
    class Info:
        def __init__(self, name, kind, rows, columns):
            self.name, self.kind, self.rows, self.columns = name, kind, rows, columns

    tables = [Info("sales", "table", 1200, [("region", "VARCHAR"), ("amount", "DOUBLE")]),
              Info("df", "dataframe", 3, [("x", "BIGINT")])]
    w = DataWidget(_source(store, session, bus, tables=lambda: tables))
    assert w.names() == ["sales", "df"]
    assert "1,200" in w.table.value and "DataFrame" in w.table.value and "region" in w.table.value
    tables.append(Info("later", "table", 1, []))
    bus.publish("data_updated", {})
    assert w.names() == ["sales", "df", "later"]
    assert "| sales | table | 1,200 |" in w.text()


def test_approval_widget_answers_once_with_feedback():
    req = ApprovalRequest("apr-1", "query_sql", {"sql": "SELECT 1"}, "read", "sql_preview", "SELECT 1")
    answers = []
    w = ApprovalWidget(req, lambda ok, fb: answers.append((ok, fb)))
    assert "SQL to run" in w.header.value and "SELECT 1" in w.preview.value
    w.feedback.value = "use the 2023 table"
    w.reject.click()
    w.approve.click()                                        # a second click is a no-op
    assert answers == [(False, "use the 2023 table")]
    assert w.approve.disabled and "rejected" in w.result.value


def test_sql_button_inserts_or_explains():
    inserted = []
    b = SqlButton(["SELECT 1"], lambda code: inserted.append(code) or True)
    b.button.click()
    assert inserted == ["%%agent_sql\nSELECT 1\n"] and "inserted" in b.note.value
    b2 = SqlButton(["SELECT 1", "SELECT 2;"], lambda code: False)
    b2.button.click()
    assert "%agent /sql" in b2.note.value
    assert cell_code(["SELECT 1", "SELECT\n 2;"]) == "%agent_sql SELECT 1\n%agent_sql SELECT 2\n"


def test_widgets_have_readable_text_plain():
    req = ApprovalRequest("apr-2", "load_data", {"file_path": "a.csv"}, "read", None, '{"file_path": "a.csv"}')
    bundle = ApprovalWidget(req, lambda ok, fb: None)._repr_mimebundle_()
    assert bundle["text/plain"].startswith("Approval needed: load_data")
