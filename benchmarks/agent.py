"""The agent's own cost per turn, with the model taken out.

    .venv/bin/python benchmarks/agent.py [--turns 60] [--history 0,1000]

A real store (SQLite in a temporary data dir), the real context builder and tool registry, and a
model that answers instantly without recording (the test double's deep copies of every request
would dominate), so what is timed is the agent: recording the user
message, the memory lifecycle, building the request, the tool loop, recording the answer and
the events. Measured per turn, from ``Agent.run`` to its reply:

* a plain answer;
* a turn with one tool call (``resolve_date``) and an answer (two model requests);

for sessions that already hold 0 and 1,000 records. Then the state machine: how long a send
refused while Busy takes, and how long a message queued during extraction waits after the
extraction ends before its turn starts (thread hand-off only).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shell_agent_lab.agent import Agent  # noqa: E402
from shell_agent_lab.agent.factory import default_registry  # noqa: E402
from shell_agent_lab.config import ShellAgent  # noqa: E402
from shell_agent_lab.events import EventBus  # noqa: E402
from shell_agent_lab.llm.scripted import ScriptedBackend, call  # noqa: E402
from shell_agent_lab.llm.types import Backend, Response  # noqa: E402
from shell_agent_lab.store import Store  # noqa: E402


class _Instant(Backend):
    """Answers from a list, instantly, keeping nothing."""

    name = "bench"
    model = "instant"

    def __init__(self, answers: list) -> None:
        self._answers = list(reversed(answers))

    def chat(self, messages, tools=(), *, options=None) -> Response:
        item = self._answers.pop()
        return item if isinstance(item, Response) else Response(text=item)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _agent(store: Store, backend: Backend, notebook: str, **kw) -> Agent:
    settings = ShellAgent(auto_extract=kw.pop("auto_extract", False), auto_title=False)
    agent = Agent(store=store, registry=default_registry(), events=EventBus(), settings=settings,
                  backend=backend, **kw)
    agent.open_session(None, notebook_path=notebook)
    return agent


def _seed(store: Store, sid: str, records: int) -> None:
    for k in range(records // 2):
        store.append_record(sid, "user", f"Question {k}: which regions sold more than {k * 10} units?")
        store.append_record(sid, "assistant", f"Regions north and south sold more than {k * 10} units.")


def _turns(store: Store, history: int, turns: int, with_tool: bool) -> list[float]:
    script = []
    for _ in range(turns + 1):
        if with_tool:
            script.append(call("resolve_date", {"expression": "yesterday", "reference_date": "2026-03-04"}))
        script.append("Done.")
    agent = _agent(store, _Instant(script), f"bench-{history}-{with_tool}.ipynb")
    _seed(store, agent.session.id, history)
    agent.run("warm up")
    times = []
    for k in range(turns):
        start = time.perf_counter()
        reply = agent.run(f"turn {k}: what day was yesterday?")
        times.append((time.perf_counter() - start) * 1000)
        assert reply.error is None, reply.error
    agent.close()
    return times


def _refusal(store: Store, samples: int) -> list[float]:
    started, release = threading.Event(), threading.Event()

    def held(messages, tools):
        started.set()
        release.wait(30)
        return "late"

    agent = _agent(store, ScriptedBackend([held]), "bench-refusal.ipynb")
    agent.send("hold", wait=False)
    started.wait(30)
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        result = agent.send("again")
        times.append((time.perf_counter() - start) * 1000)
        assert result.phase == "error"
    release.set()
    agent.wait_idle(30)
    agent.close()
    return times


def _dispatch(store: Store, samples: int) -> list[float]:
    times = []
    for k in range(samples):
        gate = threading.Event()
        holding = threading.Event()
        marks: dict[str, float] = {}

        def extractor(session, backend, cancel, gate=gate, holding=holding):
            holding.set()
            gate.wait(30)
            marks.setdefault("released", time.perf_counter())

        backend = ScriptedBackend(["first", "second"])
        agent = _agent(store, backend, f"bench-dispatch-{k}.ipynb", auto_extract=True, extractor=extractor)
        agent.events.subscribe(lambda e: marks.setdefault("started", time.perf_counter())
                               if e.data.get("message") == "queued one" else None, ["turn_started"])
        agent.run("first")
        holding.wait(30)
        agent.send("queued one")
        gate.set()
        agent.wait_idle(30)
        times.append((marks["started"] - marks["released"]) * 1000)
        agent.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--history", default="0,1000")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "data")
        print("| history (records) | turn | p50 (ms) | p95 (ms) |")
        print("|---:|---|---:|---:|")
        for history in (int(h) for h in args.history.split(",")):
            for with_tool, label in ((False, "plain answer"), (True, "one tool call + answer")):
                t = _turns(store, history, args.turns, with_tool)
                print(f"| {history:,} | {label} | {statistics.median(t):.1f} | {_pct(t, 0.95):.1f} |")
        refusal = _refusal(store, 200)
        dispatch = _dispatch(store, 20)
        print()
        print("| state machine | p50 (ms) | p95 (ms) |")
        print("|---|---:|---:|")
        print(f"| send refused while Busy | {statistics.median(refusal):.3f} | {_pct(refusal, 0.95):.3f} |")
        print(f"| queued turn starts after extraction ends | {statistics.median(dispatch):.2f} | "
              f"{_pct(dispatch, 0.95):.2f} |")
        store.close()


if __name__ == "__main__":
    main()
