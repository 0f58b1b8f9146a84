"""Store benchmark: Global Memory add (with dedup) and render latency at 100 / 1,000 / 10,000 entries.

Run:  .venv/bin/python benchmarks/store.py [--sizes 100,1000,10000] [--samples 200]

Facts are generated from a Zipf-distributed vocabulary of 5,000 made-up words inside a dozen
sentence templates (with numbers, places and statistics words), so common words occur in thousands of
facts, the way real memory text does. Caps are lifted. Each size measures ``samples`` adds of new
facts, ``samples`` adds of near-duplicates (which consolidate into a touch) and ``samples`` renders
(cold: the render cache dropped first; warm: memory unchanged since the last render),
against a real SQLite file in a temporary directory. Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shell_agent_lab.store import Caps, Store  # noqa: E402

_SYLLABLES = ["ka", "lo", "mi", "ra", "ten", "vo", "sul", "dre", "pa", "qui", "zor", "ne", "bat", "fi", "gu"]
_TEMPLATES = [
    "User prefers {a} {b} charts for {c} reports",
    "User wants {a} results rounded to {n} decimals",
    "Team decided to store {a} {b} data in {c}",
    "User works with the {a}_{b} column in {c} tables",
    "Always compare the median {a} against {b} in {P}",
    "User reviews {a} {b} every {n} days with the {c} team",
    "Use {a} instead of {b} when plotting {c} trends",
    "The {a} dashboard must show {b} and {c} for {P}",
    "User expects {a} {b} figures in {P} currency",
    "Prefer {a} summaries of {b} {c} before details",
    "Decision: the {a} pipeline reads {b} files from {c}",
    "User asks for {n}% confidence bands on {a} {b} charts",
]
_PLACES = ["EU", "US", "APAC", "Tokyo", "Berlin", "Lagos", "Lima", "Oslo", "Austin", "Pune"]


def _vocabulary(rng: random.Random, size: int = 5000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Corpus:
    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = _vocabulary(self.rng)
        self.weights = [1 / (rank + 1) for rank in range(len(self.words))]
        self.count = 0

    def fact(self) -> str:
        self.count += 1
        a, b, c = self.rng.choices(self.words, weights=self.weights, k=3)
        template = self.rng.choice(_TEMPLATES)
        return template.format(a=a, b=b, c=c, n=self.rng.randint(1, 99), P=self.rng.choice(_PLACES))

    def paraphrase(self, fact: str) -> str:
        return fact.replace("User ", "The user ", 1) + "."


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(sizes: list[int], samples: int) -> list[dict]:
    corpus = Corpus()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp), caps=Caps(global_memory=None))
        gm = store.global_memory
        stored: list[str] = []
        for size in sizes:
            with store.transaction():  # fill quickly: one commit
                while len(stored) < size:
                    fact = corpus.fact()
                    if gm.add(fact, "decision", source="user_turn").added:
                        stored.append(fact)
            entries = len(gm.list())
            wall: dict[str, list[float]] = {k: [] for k in ("add", "dup", "cold", "warm")}
            cpu: dict[str, list[float]] = {k: [] for k in ("add", "dup", "cold", "warm")}

            def timed(kind: str, fn):
                w, c = time.perf_counter(), time.thread_time()
                value = fn()
                cpu[kind].append((time.thread_time() - c) * 1000)
                wall[kind].append((time.perf_counter() - w) * 1000)
                return value

            for _ in range(samples):
                fact = corpus.fact()
                if timed("add", lambda: gm.add(fact, "decision", source="user_turn")).added:
                    stored.append(fact)
            for fact in random.Random(size).sample(stored, min(samples, len(stored))):
                timed("dup", lambda: gm.add(corpus.paraphrase(fact), "decision", source="user_turn"))
            for _ in range(samples):
                gm._core._rendered.clear()  # benchmark only: drop the render cache
                block = timed("cold", gm.render)
                timed("warm", gm.render)
            row = {"entries": entries, "render_bytes": len(block.encode())}
            for kind in wall:
                row[f"{kind}_p50"] = statistics.median(wall[kind])
                row[f"{kind}_p95"] = _p(wall[kind], 0.95)
                row[f"{kind}_cpu95"] = _p(cpu[kind], 0.95)
            rows.append(row)
        store.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args(argv)
    rows = run([int(s) for s in args.sizes.split(",")], args.samples)
    labels = {"add": "add (new fact)", "dup": "add (near-duplicate → touch)",
              "cold": "render (cache dropped)", "warm": "render (unchanged memory)"}
    print("| operation | entries | p50 wall | p95 wall | p95 CPU |")
    print("|---|---:|---:|---:|---:|")
    for kind, label in labels.items():
        for r in rows:
            print(f"| {label} | {r['entries']:,} | {r[kind + '_p50']:.2f} | {r[kind + '_p95']:.2f} | "
                  f"{r[kind + '_cpu95']:.2f} |")
    print(f"\n(milliseconds; CPU = this thread's CPU time, which excludes waiting for a core on a "
          f"busy machine; rendered block {rows[-1]['render_bytes']:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
