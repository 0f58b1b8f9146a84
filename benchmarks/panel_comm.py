"""Side-panel comm benchmark: kernel-side time to answer each request, and to forward events.

Run:  .venv/bin/python benchmarks/panel_comm.py [--samples 200]

A real store (temporary SQLite file) filled the way a busy session looks — 200 records, 100
Global Memory entries, 50 Session Memory entries, 100 Findings — and a real assistant with a
scripted model and three live DataFrames. Each op goes through ``Dispatcher.handle`` exactly as a
comm message would (schema validation, handler, result); events go through the comm endpoint's
forwarder (JSON-safe copy, envelope) into a comm double. Prints a Markdown table (milliseconds).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from shell_agent_lab.agent import build_agent  # noqa: E402
from shell_agent_lab.config import ShellAgent  # noqa: E402
from shell_agent_lab.llm.scripted import ScriptedBackend  # noqa: E402
from shell_agent_lab.notebook import comm  # noqa: E402
from shell_agent_lab.store import Caps, Store  # noqa: E402


class _Runtime:
    def __init__(self, agent):
        self.agent = agent
        self.started = True
        self.panel_connected = False

    def set_notebook_key(self, key):
        return None

    def resolve_approval(self, request_id, approved, feedback=""):
        return self.agent.resolve_approval(request_id, approved, feedback)


class _Comm:
    def __init__(self):
        self.count = 0

    def on_msg(self, cb):
        self.deliver = cb

    def on_close(self, cb):
        pass

    def send(self, payload):
        self.count += 1


def _fill(store: Store, sid: str) -> None:
    for i in range(100):
        store.append_record(sid, "user", f"question {i}: which regions had anomalous weeks in table t{i}?")
        store.append_record(sid, "assistant", f"answer {i}: " + "North and South differ by 12% " * 8)
    for i in range(100):
        store.global_memory.set(f"preference number {i} about chart style variant {i * 7} and rounding {i}",
                                "preference")
    for i in range(50):
        store.session_memory.add(sid, f"column c{i} in table t{i} holds weekly revenue for store {i * 3}",
                                 "fact", source="user_turn")
    for i in range(100):
        store.findings.add(sid, f"week {i} revenue in region r{i} deviates {i % 9 + 1}x from its median "
                                f"(store s{i * 13}, metric m{i})", tags=("medium", f"t{i}"))


def _time(fn, samples: int) -> tuple[float, float]:
    out = []
    for _ in range(samples):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.95) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "data", caps=Caps(global_memory=None, session_memory=None, findings=None))
        ns = {f"df{i}": pd.DataFrame({"week": range(1000), "amount": [float(x) for x in range(1000)]})
              for i in range(3)}
        agent = build_agent(ShellAgent(auto_extract=False, auto_title=False), store=store,
                            backend=ScriptedBackend(), namespace=lambda: ns)
        _fill(store, agent.session.id)
        dispatcher = comm.Dispatcher(lambda: _Runtime(agent))
        c = _Comm()
        comm._Endpoint(c, dispatcher)
        c.deliver({"content": {"data": {"v": 1, "id": "h", "op": "hello", "args": {"protocol": 1}}}})

        rows = []
        for op in ("hello", "history", "memory_list", "findings_list", "data_list", "sessions_list",
                   "settings_get"):
            request = {"v": 1, "id": "x", "op": op, "args": {"protocol": 1} if op == "hello" else {}}
            response = dispatcher.handle(request)
            assert response["ok"], response
            p50, p95 = _time(lambda: dispatcher.handle(request), args.samples)
            rows.append((op, p50, p95))
        data = {"turn_id": "turn-1", "text": "North"}
        p50, p95 = _time(lambda: agent.events.publish("stream_token", data, session_id=agent.session.id),
                         args.samples * 10)
        rows.append(("event forward (stream_token)", p50, p95))
        print("| request | p50 | p95 |\n|---|---:|---:|")
        for op, a, b in rows:
            print(f"| {op} | {a:.2f} | {b:.2f} |")
        agent.close()
        store.close()


if __name__ == "__main__":
    main()
