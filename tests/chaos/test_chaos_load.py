"""Fault 7: load. Eight real kernels, each on its own notebook, ask twenty questions at once
against one data directory with background memory extraction on; every turn saves a Finding
and every extraction a Session Memory fact. Afterwards every record and memory write is there,
no Finding is doubled, the 95th percentile of the store's own work per turn stays at or under
20 ms, and no turn opens more than six write transactions. Measured in the kernels and written
to the test's output (``-s``) and to the JUnit property ``store_ms_per_turn``: wall time in store
transactions, its CPU time, the time spent waiting for another process's write lock and holding
it, and the number of write transactions. ``CHAOS_LOAD_KERNELS=N`` runs N kernels instead of 8
(to see how the waits grow with the number of busy kernels per core).

The wall time is recorded, not held to 20 ms: with more busy kernels than cores it holds the
waits for a core and for a lock held by a descheduled process, which the store cannot control,
and even with one busy kernel per core a loaded machine pushed its p95 past 20 ms in one run of
22 (docs/reliability.md has the measurements). It is bounded only against a lock held for a
whole turn."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from chaoshelpers import RUNTIME, integrity, rows
from kernelhelpers import text_of

pytestmark = [pytest.mark.chaos, pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
KERNELS, QUESTIONS = int(os.environ.get("CHAOS_LOAD_KERNELS", 8)), 20
WRITES_PER_TURN = 6      # the question, the tool call, its result, the answer, the Finding, memory ageing
P95_LIMIT_MS = 20.0
WALL_BOUND_MS = 1000.0
SETUP = ("%config ShellAgent.auto_extract = True\n%config ShellAgent.auto_title = False\n"
         "%config ShellAgent.approval_policy = 'approve'\n")
FRAME = "import pandas as pd\nsales = pd.DataFrame({'region': ['EU', 'US'], 'amount': [1, 2]})"


def _p(turns: list[dict], key: str, q: float) -> float:
    ordered = sorted(t[key] for t in turns)
    return ordered[max(0, int(round(q * len(ordered))) - 1)]


def test_eight_kernels_twenty_questions_each(start_kernel, _isolated_data_dir, record_property):
    kernels = []
    for n in range(KERNELS):
        k = start_kernel(script=[], notebook=f"load-{n}.ipynb")
        k.run(SETUP)
        k.run(FRAME)
        k.run(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"      # the repository, for tests.chaos
              f"from tests.chaos._load_kernel import install, ask\ninstall({n})")
        kernels.append(k)
    timings: dict[int, list[dict]] = {}

    def work(n: int) -> None:
        res = kernels[n].run(f"import json as _j\nprint(_j.dumps([ask({n}, i) for i in range({QUESTIONS})]))",
                             timeout=480)
        timings[n] = json.loads(text_of(res["outputs"]).strip().splitlines()[-1])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(KERNELS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(500)
    assert sorted(timings) == list(range(KERNELS))
    sessions = {}
    for n, k in enumerate(kernels):
        assert k.value(f"{RUNTIME}.get_agent().wait_idle(120)")
        sessions[n] = k.value(f"{RUNTIME}.get_agent().session.id")
    data = _isolated_data_dir
    for n, sid in sessions.items():
        records = rows(data, "SELECT role, content FROM records WHERE session_id = ? ORDER BY seq", (sid,))
        users = [c for role, c in records if role == "user"]
        assert users == [f"This is kernel {n} question {i}: dataset ds{n}q{i} holds {1000 + i} rows."
                         for i in range(QUESTIONS)]
        answers = [c for role, c in records if role == "assistant" and c.startswith("Answer")]
        assert answers == [f"Answer {n}.{i}: noted." for i in range(QUESTIONS)]
        assert len(records) == 4 * QUESTIONS          # question, tool call, tool result, answer
        findings = rows(data, "SELECT content FROM findings WHERE session_id = ?", (sid,))
        assert sorted(f for (f,) in findings) == sorted(f"Kernel {n} finding {i}: region r{i} leads"
                                                        for i in range(QUESTIONS))
        facts = {f for (f,) in rows(data, "SELECT fact FROM memory WHERE scope = ?", (f"s:{sid}",))}
        assert facts == {f"Dataset ds{n}q{i} holds {1000 + i} rows" for i in range(QUESTIONS)}
    assert rows(data, "SELECT COUNT(*), COUNT(DISTINCT session_id || '/' || id), COUNT(DISTINCT content) "
                      "FROM findings") == [(KERNELS * QUESTIONS,) * 3]
    assert integrity(data) == "ok"
    turns = [t for n in sorted(timings) for t in timings[n]]
    summary = {key: {"p50": round(_p(turns, key, 0.5), 2), "p95": round(_p(turns, key, 0.95), 2),
                     "max": round(max(t[key] for t in turns), 2)}
               for key in ("wall", "cpu", "lock", "held", "writes", "turn")}
    record_property("store_ms_per_turn", json.dumps(summary))
    print(f"\n{KERNELS} kernels on {len(os.sched_getaffinity(0))} cores, store time per turn, ms, "
          f"over {len(turns)} turns: {json.dumps(summary)}")
    # the store's own work per turn (CPU time of this thread in store transactions) is the
    # limit; the wall time a turn spends in the store also holds the waits for other kernels'
    # writes and for a CPU, which on a machine with fewer cores than busy kernels the store
    # cannot control: it is recorded, and bounded only against a lock held for the whole turn
    cpu = summary["cpu"]["p95"]
    assert cpu <= P95_LIMIT_MS, f"p95 store work per turn {cpu:.1f} ms > {P95_LIMIT_MS} ms"
    assert summary["wall"]["p95"] <= WALL_BOUND_MS, summary
    # what the store controls of the others' waits: how often a turn takes the write lock
    assert summary["writes"]["max"] <= WRITES_PER_TURN, summary
