"""Context building: time per turn and prompt-cache stability.

    .venv/bin/python benchmarks/context.py [--sizes 100,1000,10000] [--turns 60]

For each session size the history is written to a real store (SQLite, temporary data dir), one
warm-up build fills the render caches and the summary cache, then each measured turn appends a
user record, builds the request (timed: system prompt + messages; the summarizer is an instant
fake, so the model is excluded) and appends the assistant's answer.

Prompt-cache stability: over 50 consecutive turns with no memory writes, a request is
"prefix-stable" when its serialised bytes begin with the complete previous request. Turns where
the raw window moved and a new summary had to be made are counted separately. The shared-prefix
share is the byte length of the common prefix with the previous request over the request size.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shell_agent_lab.context import Budget, ContextBuilder  # noqa: E402
from shell_agent_lab.llm.types import Backend, ChatOptions, Message, Response, ToolSpec  # noqa: E402
from shell_agent_lab.store import Store  # noqa: E402

BUDGET = Budget(max_context_tokens=32_000, output_reserve=4_000, max_tool_result_tokens=2_000)


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=40)
        return self.now


class _InstantSummarizer(Backend):
    name = "bench"
    model = "instant"

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        self.calls += 1
        return Response(text=f"- analysis: the user explored the orders table (summary {self.calls})")


def _turn(store: Store, sid: str, k: int, *, answer: bool = True) -> None:
    """One turn as the agent writes it: question, tool call, tool result, answer."""
    store.append_record(sid, "user", f"Question {k}: which regions sold more than "
                                     f"{k * 10} units in week {k % 52}?")
    _tool_round(store, sid, k)
    if answer:
        _answer(store, sid, k)


def _tool_round(store: Store, sid: str, k: int) -> None:
    store.append_record(sid, "assistant", "", tool_calls=[
        {"id": f"c{k}", "name": "query_sql",
         "arguments": {"sql": f"SELECT region, SUM(units) FROM orders WHERE week = {k % 52} "
                              "GROUP BY region"}}])
    store.append_record(sid, "tool", "region,units\n" + "\n".join(
        f"region_{r},{(k * 7 + r) % 997}" for r in range(12)), tool_name="query_sql",
        tool_call_id=f"c{k}", status="success")


def _answer(store: Store, sid: str, k: int) -> None:
    store.append_record(sid, "assistant", f"In week {k % 52}, {k % 12} regions sold more "
                                          f"than {k * 10} units; region_{k % 12} led.")


def _fill(store: Store, sid: str, n: int) -> None:
    with store.transaction():
        for k in range(n // 4):
            _turn(store, sid, k)


def _serialise(messages: list[Message]) -> bytes:
    parts = []
    for m in messages:
        calls = json.dumps([[c.id, c.name, c.arguments] for c in m.tool_calls], sort_keys=True)
        parts.append(f"<{m.role}|{m.tool_call_id or ''}>{m.content}{calls if m.tool_calls else ''}\n")
    return "".join(parts).encode()


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:                      # binary search on equal prefixes (bytes compare in C)
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def run_size(n: int, turns: int, budget: Budget) -> dict:
    """Build the request at both model calls of each turn (after the question, after the tool)."""
    with tempfile.TemporaryDirectory() as tmp:
        clock = _Clock()
        store = Store.open(Path(tmp), clock=clock)
        sid = store.create_session(title=f"bench {n}").id
        _fill(store, sid, n)
        builder = ContextBuilder(store)
        summarizer = _InstantSummarizer()
        t0 = time.perf_counter()
        builder.build(sid, budget=budget, summarizer=summarizer)
        cold = (time.perf_counter() - t0) * 1000
        times: list[float] = []
        cpu: list[float] = []
        previous: bytes | None = None
        unstable = forced = requests = 0
        shares: list[float] = []

        def measure() -> None:
            nonlocal previous, unstable, forced, requests
            calls = summarizer.calls
            t0, c0 = time.perf_counter(), time.thread_time()
            built = builder.build(sid, budget=budget, summarizer=summarizer)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
            request = _serialise(built.messages)
            if previous is not None:
                requests += 1
                shared = _common_prefix(previous, request)
                shares.append(shared / len(request))
                if shared < len(previous):
                    if summarizer.calls > calls:
                        forced += 1
                    else:
                        unstable += 1
            previous = request

        for t in range(turns):
            k = n // 4 + t
            store.append_record(sid, "user", f"Follow-up {t}: and which regions in week {k % 52}?")
            measure()
            _tool_round(store, sid, k)
            measure()
            _answer(store, sid, k)
        store.close()
    times.sort()
    cpu.sort()
    return {
        "cpu_median_ms": statistics.median(cpu), "cpu_p95_ms": cpu[int(0.95 * (len(cpu) - 1))],
        "records": n, "cold_ms": cold, "median_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (len(times) - 1))], "max_ms": times[-1],
        "unstable": unstable, "forced": forced, "requests": requests,
        "prefix_share": statistics.mean(shares) if shares else 1.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--contexts", default="32000,8000",
                        help="max_context_tokens values to run (output reserve = 1/8)")
    parser.add_argument("--steps", default="0.5,0",
                        help="window_step values (0 = the window moves with every record)")
    args = parser.parse_args(argv)
    print(f"{args.turns} turns x 2 requests per session; instant summarizer; "
          "max_tool_result_tokens 2000")
    print()
    print("| context tokens | window step | records | first build (ms) | median (ms) | p95 (ms) | "
          "max (ms) | CPU median / p95 (ms) | "
          "requests not extending the previous one: unexplained / new summary | "
          "mean shared-prefix share |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for step in (float(x) for x in args.steps.split(",")):
        for context in (int(c) for c in args.contexts.split(",")):
            budget = Budget(max_context_tokens=context, output_reserve=context // 8,
                            max_tool_result_tokens=2_000, window_step=step)
            for size in (int(s) for s in args.sizes.split(",")):
                _row(context, step, run_size(size, args.turns, budget))
    return 0


def _row(context: int, step: float, r: dict) -> None:
    print(f"| {context:,} | {step:g} | {r['records']:,} | {r['cold_ms']:.1f} | "
          f"{r['median_ms']:.2f} | {r['p95_ms']:.2f} | {r['max_ms']:.2f} | "
          f"{r['cpu_median_ms']:.2f} / {r['cpu_p95_ms']:.2f} | "
          f"{r['unstable']} / {r['forced']} (of {r['requests']}) | {r['prefix_share']:.1%} |",
          flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
