"""Findings against a real store (REFERENCE §3.5, in our words, plus near-miss protection)."""
from __future__ import annotations

import sqlite3
import threading
import pytest

from shell_agent_lab.store import Caps, ValidationError


def test_add_sets_content_id_and_weekday_label(store, session):
    f = store.findings.add(session.id, "Revenue grew 12% in Q3", tags=["high"], source="analyze_data")
    assert f.id == "f-20260216-001" and f.content == "Revenue grew 12% in Q3"
    assert f.created_label == "2026-02-16 (Monday)" and f.tags == ("high",)
    out = store.findings.render(session.id)
    assert out == "- [derived] [2026-02-16 (Monday)] Revenue grew 12% in Q3\n"
    assert "from:" not in out


def test_empty_store_renders_nothing(store, session):
    assert store.findings.render(session.id) == ""


def test_dedup_exact_punctuation_and_paraphrase(store, session):
    fs = store.findings
    assert fs.add(session.id, "On 2026-02-16 the Tokyo Widget sales hit an outlier value of 99999")
    assert fs.add(session.id, "On 2026-02-16 the Tokyo Widget sales hit an outlier value of 99999") is None
    assert fs.add(session.id, "on 2026-02-16, the TOKYO widget sales hit an outlier value of 99999!!") is None
    assert fs.add(session.id, "Tokyo Widget sales spiked to 99999 on 2026-02-16, an outlier") is None
    assert fs.add(session.id, "Osaka Gadget returns fell to 12 on 2026-02-17")
    assert len(fs.list(session.id)) == 2


@pytest.mark.parametrize(
    "first,second",
    [
        ("Revenue grew 12% in Q3", "Revenue grew 21% in Q3"),
        ("price correlates with volume", "price does not correlate with volume"),
        ("mean order value rose", "median order value rose"),
        ("EU churn spiked", "US churn spiked"),
    ],
)
def test_near_misses_are_distinct_findings(store, session, first, second):
    assert store.findings.add(session.id, first)
    assert store.findings.add(session.id, second) is not None
    assert len(store.findings.list(session.id)) == 2


def test_delete_many_ignores_missing(store, session):
    ids = [store.findings.add(session.id, t).id for t in ("alpha apples rose", "bravo bananas fell", "charlie cherries flat")]
    assert store.findings.delete_many(session.id, [ids[0], ids[2], "f-19990101-001"]) == 2
    assert store.findings.delete_many(session.id, None) == 0
    assert [f.id for f in store.findings.list(session.id)] == [ids[1]]


def test_cap_is_first_in_first_out(open_store):
    store = open_store(Caps(findings=3))
    sid = store.create_session().id
    for text in ("alpha apples", "bravo bananas", "charlie cherries", "delta dates"):
        store.findings.add(sid, text)
    assert [f.content for f in store.findings.list(sid)] == ["bravo bananas", "charlie cherries", "delta dates"]
    # an evicted id is never handed out again
    assert store.findings.add(sid, "echo eggplants").id == "f-20260216-005"


def test_concurrent_adds_get_unique_ids(open_store):
    store = open_store(Caps(findings=None))
    sid = store.create_session().id
    results, errors = [], []

    def worker(i):
        try:
            results.append(store.findings.add(sid, f"observation {i} about metric_{i}"))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len({f.id for f in results}) == 64


def test_thousandth_finding_of_a_day_gets_the_long_form(open_store, clock):
    store = open_store(Caps(findings=None))
    sid = store.create_session().id
    for i in range(3):
        store.findings.add(sid, f"early x{i}")
    with sqlite3.connect(store.db_path) as db:  # pretend 999 were recorded today
        db.execute("UPDATE finding_counters SET n = 998 WHERE session_id = ?", (sid,))
    assert store.findings.add(sid, "number nine hundred ninety-nine").id == "f-20260216-999"
    f = store.findings.add(sid, "the thousandth")
    assert f.id.startswith("f-20260216-") and len(f.id) > 14
    clock.jump(days=1)
    assert store.findings.add(sid, "next day").id == "f-20260217-001"


def test_render_budget_and_marker(store, session):
    for i in range(50):
        store.findings.add(session.id, f"finding {i} token{i} " + f"z{i}q " * 150)
    out = store.findings.render(session.id)
    assert len(out.encode()) <= 16 * 1024 + 200
    assert "earlier findings elided to fit budget)" in out.splitlines()[0]


def test_get_and_sanitised_rendering(store, session):
    f = store.findings.add(session.id, "line one\nline two\x00")
    assert store.findings.get(session.id, f.id).content == "line one\nline two"
    assert store.findings.get(session.id, "f-20000101-001") is None
    out = store.findings.render(session.id)
    assert out.count("\n") == 1 and "line one line two" in out


def test_bad_input_is_refused_clearly(store, session):
    with pytest.raises(ValidationError, match="empty"):
        store.findings.add(session.id, " \x00 ")
    with pytest.raises(ValidationError, match="source"):
        store.findings.add(session.id, "fine text", source="guess")
    with pytest.raises(ValidationError, match="1,048,576 characters"):
        store.findings.add(session.id, "y" * (1024 * 1024))
    assert store.findings.list(session.id) == []
