"""Model seam benchmarks.

Default: the cost the backend adds around the SDK — the same chat-completions requests sent
through ``OpenAIBackend`` and through the bare ``openai`` client, against a local fake server
(JSON and streamed answers), plus lenient tool-call parsing of a long reply.

``--local``: the embedded model (needs the ``local`` extra): assembly of the 22 parts, server
start, generation speed, peak memory, and five SQL questions about a DuckDB table answered with
the schema in the system prompt and tool calls parsed leniently; each generated query is run
and its result compared with the expected answer.

    .venv/bin/python benchmarks/llm.py [--local] [--threads N]
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openai  # noqa: E402

from shell_agent_lab.llm.lenient import extract_tool_calls  # noqa: E402
from shell_agent_lab.llm.openai_backend import OpenAIBackend  # noqa: E402
from shell_agent_lab.llm.retry import RetryPolicy  # noqa: E402
from shell_agent_lab.llm.types import ChatOptions, Message, ToolSpec  # noqa: E402
from tests.support.fake_model_servers import FakeOpenAIServer, Reply  # noqa: E402

SQL_TOOL = ToolSpec("run_sql", "Run one read-only DuckDB SQL query and return the rows.", {
    "type": "object", "properties": {"sql": {"type": "string", "description": "the query"}},
    "required": ["sql"]})


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.95) - 1] * 1000


def overhead(n: int = 200) -> None:
    text = "The total is 42. " * 12
    with FakeOpenAIServer() as server:
        server.default = Reply(text=text, chunk_size=4)
        backend = OpenAIBackend(base_url=server.url, api_key="k", model="m", retry=RetryPolicy(attempts=1))
        bare = openai.OpenAI(base_url=server.url, api_key="k", max_retries=0)
        msgs = [Message("system", "sys"), Message("user", "q")]
        raw_msgs = [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"}]
        rows = []
        for label, fn in [
            ("JSON, bare SDK", lambda: bare.chat.completions.create(model="m", messages=raw_msgs)),
            ("JSON, OpenAIBackend", lambda: backend.chat(msgs, [SQL_TOOL])),
            ("stream, bare SDK", lambda: list(bare.chat.completions.create(model="m", messages=raw_msgs,
                                                                           stream=True))),
            ("stream, OpenAIBackend", lambda: backend.stream(msgs, [SQL_TOOL], on_text=lambda t: None)),
        ]:
            for _ in range(10):
                fn()
            samples = []
            for _ in range(n):
                started = time.perf_counter()
                fn()
                samples.append(time.perf_counter() - started)
            rows.append((label, *_ms(samples)))
    print(f"\nRequest round trip against a local server ({n} requests each; stream = "
          f"{len(text) // 4} chunks)\n")
    print("| path | median (ms) | p95 (ms) |\n|---|---:|---:|")
    for label, med, p95 in rows:
        print(f"| {label} | {med:.2f} | {p95:.2f} |")

    reply = ("Let me look at the data first. " * 100 + '\n<tool_call>{"name": "run_sql", "arguments": '
             '{"sql": "select region, sum(amount) from sales group by 1"}}</tool_call>')
    samples = []
    for _ in range(200):
        started = time.perf_counter()
        found = extract_tool_calls(reply, [SQL_TOOL])
        samples.append(time.perf_counter() - started)
    assert found.tool_calls
    med, p95 = _ms(samples)
    print(f"\nLenient parsing of a {len(reply):,}-character reply with one tagged call: "
          f"median {med:.3f} ms, p95 {p95:.3f} ms")


QUESTIONS = [
    ("How many rows does the sales table have?", 12),
    ("What is the total amount over all sales?", 1950),
    ("Which region has the largest total amount?", "north"),
    ("How many distinct regions are there?", 3),
    ("What is the largest single amount?", 300),
]


def _sales(con) -> None:
    con.execute("create table sales(region varchar, month integer, amount integer)")
    rows = [("north", m, a) for m, a in zip(range(1, 5), (250, 300, 200, 150))] + \
           [("south", m, a) for m, a in zip(range(1, 5), (100, 120, 130, 150))] + \
           [("west", m, a) for m, a in zip(range(1, 5), (140, 160, 90, 160))]
    con.executemany("insert into sales values (?, ?, ?)", rows)


def _matches(rows: list[tuple], expected: object) -> bool:
    values = [v for row in rows for v in row]
    if isinstance(expected, str):
        return bool(values) and str(values[0]).lower() == expected
    return any(isinstance(v, (int, float)) and float(v) == float(expected) for v in values[:2])


def local(threads: int) -> None:
    import duckdb
    import psutil

    from shell_agent_lab.llm.local import LocalBackend, assemble_model, stop_all_servers

    proc = psutil.Process()
    started = time.perf_counter()
    path = assemble_model()
    print(f"\nEmbedded model ({path.name}, {path.stat().st_size / 2**20:,.0f} MiB, {threads} threads)\n")
    print(f"- assemble + verify (first run, or re-verify): {time.perf_counter() - started:.1f} s")
    backend = LocalBackend(path, n_ctx=4096, n_threads=threads)
    started = time.perf_counter()
    backend.chat([Message("user", "Hi")], options=ChatOptions(max_output_tokens=1))
    print(f"- server start + first token: {time.perf_counter() - started:.1f} s")
    speeds = []
    for _ in range(3):
        started = time.perf_counter()
        r = backend.chat([Message("user", "Write a short paragraph about databases.")],
                         options=ChatOptions(max_output_tokens=32, temperature=0))
        speeds.append(r.usage.output_tokens / (time.perf_counter() - started))
    print(f"- generation: {statistics.median(speeds):.1f} tokens/s (median of 3, 32 tokens, incl. prompt)")

    con = duckdb.connect()
    _sales(con)
    system = ("You answer questions about a DuckDB database by calling the run_sql tool with one SQL query.\n"
              "Schema:\n  sales(region VARCHAR, month INTEGER, amount INTEGER)\n"
              "Call the tool; do not explain.")
    correct = 0
    for question, expected in QUESTIONS:
        started = time.perf_counter()
        response = backend.chat([Message("system", system), Message("user", question)], [SQL_TOOL],
                                options=ChatOptions(max_output_tokens=80, temperature=0))
        elapsed = time.perf_counter() - started
        sql = response.tool_calls[0].arguments.get("sql", "") if response.tool_calls else ""
        try:
            rows = con.execute(sql).fetchall() if sql else []
        except Exception as exc:  # the model's SQL may be wrong: that is the measurement
            rows = [(f"error: {exc}",)]
        ok = _matches(rows, expected)
        correct += ok
        how = "lenient" if response.extra.get("lenient_tool_calls") else ("native" if sql else "none")
        print(f"  - {question!r}: {'ok' if ok else 'WRONG'} ({how} call, {elapsed:.1f} s) {sql!r}")
    print(f"- SQL questions answered correctly: {correct}/{len(QUESTIONS)}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    print(f"- memory: peak RSS {peak:.2f} GiB, now {proc.memory_info().rss / 2**30:.2f} GiB "
          f"(this process, including the in-process llama.cpp server)")
    stop_all_servers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", action="store_true", help="also benchmark the embedded model")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    overhead()
    if args.local:
        local(args.threads)


if __name__ == "__main__":
    main()
