"""Drawing a turn: in place with a live frontend, once and readable without one."""
from __future__ import annotations

import threading

import pandas as pd

from shell_agent_lab.agent import Reply
from shell_agent_lab.events import EventBus
from shell_agent_lab.notebook.render import TurnView, chart_bundle, reply_markdown, render_reply, tool_line


class _Handle:
    def __init__(self, out, index):
        self.out, self.index = out, index

    def update(self, bundle, raw=True):
        self.out.items[self.index] = bundle
        self.out.updates += 1


class FakeOut:
    """Records what the cell would show; handles update their slot in place."""

    def __init__(self):
        self.items, self.updates = [], 0

    def show(self, bundle, *, handle=False):
        self.items.append(bundle)
        return _Handle(self, len(self.items) - 1) if handle else None

    def update(self, handle, bundle):
        handle.update(bundle)

    def obj(self, obj):
        self.items.append(obj)

    def texts(self):
        return [i.get("text/plain") if isinstance(i, dict) else i for i in self.items]


def _drive(view, events):
    bus = EventBus()
    bus.subscribe(view.post, TurnView.events)
    done = threading.Event()

    def worker():
        for t, d in events:
            bus.publish(t, d)
        done.set()
        view.wake()

    threading.Thread(target=worker).start()
    view.pump(done)


EVENTS = [
    ("tool_start", {"tool_call_id": "c1", "name": "analyze_data", "arguments": {"prompt": "find anomalies"}}),
    ("tool_progress", {"tool_call_id": "c1", "name": "analyze_data", "detail": "window", "current": 1, "total": 3}),
    ("tool_progress", {"tool_call_id": "c1", "name": "analyze_data", "detail": "window", "current": 2, "total": 3}),
    ("tool_end", {"tool_call_id": "c1", "name": "analyze_data", "status": "success", "summary": "4 findings"}),
    ("tool_start", {"tool_call_id": "c2", "name": "query_sql", "arguments": {"sql": "SELECT 1"}}),
    ("tool_end", {"tool_call_id": "c2", "name": "query_sql", "status": "error", "summary": "no such table"}),
    ("stream_token", {"text": "Two "}),
    ("stream_token", {"text": "weeks stand out."}),
]


def test_live_view_updates_one_line_per_tool_in_place():
    out = FakeOut()
    view = TurnView(live=True, out=out, min_interval=0)
    _drive(view, EVENTS)
    texts = out.texts()
    assert texts[0] == "✓ analyze_data — done: 4 findings"      # one slot, updated from running → window → done
    assert texts[1] == "✗ query_sql — error: no such table"
    assert texts[2] == "Two weeks stand out."
    assert len(texts) == 3 and out.updates >= 4
    view.finish(Reply(text="Two weeks stand out (cleaned)."))
    assert out.texts()[2] == "Two weeks stand out (cleaned)."   # the final text replaces the stream


def test_progress_line_reads_window_k_of_n():
    assert tool_line("analyze_data", "progress", "window 2/10") == "⏳ analyze_data — window 2/10"
    assert tool_line("query_sql", "running", "SELECT 1") == "⏳ query_sql — running: SELECT 1"
    assert tool_line("query_sql", "done", "| region | total |") == "✓ query_sql — done: columns region, total"


def test_headless_view_draws_each_piece_once_in_its_final_state():
    out = FakeOut()
    view = TurnView(live=False, out=out)
    _drive(view, EVENTS)
    assert out.items == []                                       # nothing while the turn runs
    view.finish(Reply(text="Two weeks stand out."))
    assert out.texts()[0] == "✓ analyze_data — done: 4 findings\n✗ query_sql — error: no such table"
    assert out.texts()[1] == "Two weeks stand out."
    assert out.updates == 0


def test_policy_notices_are_shown():
    out = FakeOut()
    view = TurnView(live=False, out=out)
    _drive(view, [("approval_resolved", {"request_id": "a", "approved": False,
                                         "notice": "Declined `query_sql` by policy"})])
    view.finish(Reply(text="ok"))
    assert out.texts()[0].startswith("⚖ Declined `query_sql` by policy")


def test_reply_parts_render_as_dataframe_vegalite_and_sql():
    df = pd.DataFrame({"a": [1, 2]})
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "bar", "title": "Revenue",
            "data": {"values": [{"a": 1}, {"a": 2}]}}
    out = FakeOut()
    render_reply(Reply(text="See chart.", tables=[df], charts=[spec], sql=["SELECT a FROM t"]), out=out)
    assert out.items[0]["text/markdown"].startswith("See chart.")
    assert out.items[1] is df
    assert out.items[2]["application/vnd.vegalite.v5+json"] is spec
    assert out.items[2]["text/plain"] == "<Vega-Lite bar: Revenue (2 rows)>"
    assert "```sql\nSELECT a FROM t\n```" in out.items[3]["text/markdown"]


def test_errors_and_findings_in_markdown():
    class F:
        content, tags = "EU churn spiked", ("high", "sales")

    md = reply_markdown(Reply(text="", error="model unreachable", new_findings=[F()]))
    assert "**Error:** model unreachable" in md and "- [high] EU churn spiked" in md


def test_chart_bundle_without_title():
    assert chart_bundle({"mark": {"type": "line"}})["text/plain"] == "<Vega-Lite line (0 rows)>"


def test_a_long_model_request_shows_one_still_working_line_in_place():
    out = FakeOut()
    view = TurnView(live=True, out=out, min_interval=0)
    _drive(view, [("model_wait", {"turn_id": "t", "elapsed": 5, "budget": 90.0}),
                  ("model_wait", {"turn_id": "t", "elapsed": 10, "budget": 90.0}),
                  ("stream_token", {"text": "Done."})])
    assert out.texts() == ["⏳ still working (10 s)", "Done."]       # one slot, updated
    view.finish(Reply(text="Done."))
    assert out.texts()[0] == ""                                       # cleared when the turn ends
    headless = FakeOut()
    quiet = TurnView(live=False, out=headless)
    _drive(quiet, [("model_wait", {"turn_id": "t", "elapsed": 5, "budget": None})])
    quiet.finish(Reply(text="ok"))
    assert all("still working" not in str(t) for t in headless.texts())


def test_the_still_working_line_counts_the_tokens_of_a_streamed_reply():
    from shell_agent_lab.notebook.render import wait_line

    assert wait_line(12, 48) == "⏳ still working (12 s, 48 tokens so far)"
    assert wait_line(12, 1) == "⏳ still working (12 s, 1 token so far)"
    assert wait_line(12, None) == "⏳ still working (12 s)"
    assert wait_line(None) == "⏳ still working"
