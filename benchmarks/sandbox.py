"""Program sandbox benchmark: the overhead of running a model-written program behind the
operating system's boundary, against the guarded in-kernel run it replaced, and the kernel's
memory for it.

Run:  .venv/bin/python benchmarks/sandbox.py [--sizes 1KB,100MB,1GB] [--programs 200]

For each frame size (numeric and categorical columns), one sandbox is started and the frame
shipped (timed apart: it happens once per frame version); then ``programs`` programs, cycled
from a small set (a count, a mean of a corner, the last rows, a whole-column maximum), each run in
the kernel (``run_program_in_kernel``) and in the sandbox (``run_program``) one after the other,
so both see the same machine. The overhead of a program is its sandboxed wall time less its
in-kernel wall time. The kernel's RSS is read before the frame is shipped, after, and after all
programs. Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from shell_agent_lab.answers.program_run import run_program, run_program_in_kernel  # noqa: E402
from shell_agent_lab.sandbox import ProgramSandbox  # noqa: E402

#: what a program costs apart from its own work is the point: three read a corner of the frame,
#: one scans a whole column (at 1 GB, the group-by an analyst would write takes seconds in
#: either place, and its noise would hide the overhead)
PROGRAMS = [
    "print(len(df))",
    "print(round(float(df['amount'].head(1000).mean()), 4))",
    "print(df.tail(5)['group'].astype(str).tolist())",
    "print(int(df['units'].max()))",
]
_SIZES = {"1KB": 1 << 10, "100MB": 100 << 20, "1GB": 1 << 30}


def frame_of(size: int) -> pd.DataFrame:
    rows = max(8, size // 25)            # 8 + 8 + 8 bytes of numbers and a 1-byte category code a row
    rng = np.random.default_rng(0)
    return pd.DataFrame({"amount": rng.random(rows) * 100, "units": rng.integers(0, 10, rows),
                         "id": np.arange(rows), "group": pd.Categorical.from_codes(rng.integers(0, 8, rows),
                                                                                   list("ABCDEFGH"))})


def rss() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(label: str, programs: int) -> dict:
    frame = frame_of(_SIZES[label])
    nbytes = int(frame.memory_usage(deep=True).sum())
    box = ProgramSandbox()
    box.warm()
    before = rss()
    started = time.perf_counter()
    first = run_program(PROGRAMS[0], {"df": frame}, sandbox=box, timeout=120)
    ship = time.perf_counter() - started
    assert first.ok, first.error
    after_ship = rss()
    overhead, inside, kernel = [], [], []
    for n in range(programs):
        source = PROGRAMS[n % len(PROGRAMS)]
        t0 = time.perf_counter()
        a = run_program_in_kernel(source, {"df": frame}, timeout=120)
        t1 = time.perf_counter()
        b = run_program(source, {"df": frame}, sandbox=box, timeout=120)
        t2 = time.perf_counter()
        assert a.ok and b.ok and a.stdout == b.stdout, (a, b)
        kernel.append(t1 - t0)
        inside.append(t2 - t1)
        overhead.append((t2 - t1) - (t1 - t0))
    end = rss()
    box.close()
    assert box.shipped == 1
    return {"size": label, "bytes": nbytes, "ship": ship, "p50": pct(overhead, 0.5), "p95": pct(overhead, 0.95),
            "kernel_p50": pct(kernel, 0.5), "sandbox_p50": pct(inside, 0.5),
            "rss_ship": after_ship - before, "rss_end": end - before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1KB,100MB,1GB")
    parser.add_argument("--programs", type=int, default=200)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; {args.programs} programs per size\n")
    print("| frame | bytes | first program (ships the frame) s | overhead p50 ms | overhead p95 ms | "
          "in-kernel p50 ms | sandbox p50 ms | kernel RSS after shipping | kernel RSS after all |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label in args.sizes.split(","):
        r = measure(label, args.programs)
        share = lambda b: f"{b / 2**20:+.1f} MB ({100 * b / r['bytes']:+.1f}% of the frame)"  # noqa: E731
        print(f"| {r['size']} | {r['bytes']:,} | {r['ship']:.2f} | {1000 * r['p50']:.1f} | {1000 * r['p95']:.1f} | "
              f"{1000 * r['kernel_p50']:.1f} | {1000 * r['sandbox_p50']:.1f} | {share(r['rss_ship'])} | "
              f"{share(r['rss_end'])} |", flush=True)


if __name__ == "__main__":
    main()
