"""The embedded model on a busy machine: the same requests quiet and beside other work, in one run.

Requests (greedy, ``ignore_eos`` so every run generates the same number of tokens):

- ``shared 120``: a ~378-token prompt (cached after the warm-up) with 120 tokens out, through the
  shared server's HTTP endpoint (the daemon every kernel uses);
- ``shared hi``: "Say hi", 10 tokens out, same endpoint;
- ``bare 120``: the 120-token request to a bare ``xllamacpp.Server`` in this process, with the
  same model, threads and barrier spin as the shared server (what llama.cpp itself does, with no
  daemon, HTTP or Python of ours around it);
- ``spin 120`` (``--spin-default``): the 120-token request to a second shared server started
  with GOMP's default barrier spin (``GOMP_SPINCOUNT=300000``, the product before
  :data:`~shell_agent_lab.llm.llama_engine.BARRIER_SPIN`): the same code but for the spin, asked
  in turn with the others, so the comparison holds whatever else the machine does. A request
  of it that takes longer than ``--cap`` seconds is given up (shown as at least that).

Conditions: quiet; 1 and 2 processes spinning on a core (``python -c "while True: pass"``, each
in its own session, like another program); a DuckDB query over a ~1 GB Parquet file running in
another process (it uses every core) while the requests are made; three requesters asking the
shared server at once (wall time of the three against three quiet requests). Each busy condition
is followed by nothing else running, so the quiet figures are taken between them too. Times are
printed with their ratio to the quiet time of the same request in this run: these machines are
shared and noisy, only ratios within one run compare.

    flock /tmp/bench.lock .venv/bin/python benchmarks/busy_machine.py [--threads N] [--data FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shell_agent_lab.llm.llama_client import LlamaServer  # noqa: E402
from shell_agent_lab.llm.llama_engine import EngineConfig, default_threads, llama_params, prepare_threads  # noqa: E402
from shell_agent_lab.llm.local import assemble_model  # noqa: E402

SYSTEM = ("You are a data analysis assistant working inside a Jupyter notebook. Answer from the data, "
          "call a tool when a number is needed. " + " ".join(
              f"Column c{i} of the table sales holds the amount of product {i} sold per region and month."
              for i in range(19)))
QUESTION = "Describe the table sales in detail."
SPIN = "while True: pass"
DUCKDB_QUERY = ("SELECT k % 1000 AS g, avg(x), sum(y), count(DISTINCT z) FROM read_parquet('{path}') "
                "GROUP BY g ORDER BY g")


def body(tokens: int, *, hi: bool = False, tag: str = "") -> dict:
    messages = ([{"role": "user", "content": "Say hi"}] if hi else
                [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION + tag}])
    return {"messages": messages, "max_tokens": tokens, "temperature": 0, "ignore_eos": True}


def post(url: str, payload: dict, timeout: float = 1800.0) -> dict:
    request = urllib.request.Request(f"{url}/v1/chat/completions", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as answer:
            return json.loads(answer.read())
    except TimeoutError:
        return {}  # given up: the time shown is the cap


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


# -- the other work ---------------------------------------------------------------------------------

def spinners(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True) for _ in range(count)]


def parquet_file(path: Path, rows: int) -> Path:
    if path.is_file():
        return path
    import duckdb

    tmp = path.with_suffix(".partial")
    duckdb.connect().execute(
        f"COPY (SELECT i AS k, random() AS x, random() * 1000 AS y, (random() * 1e9)::BIGINT AS z "
        f"FROM range({rows}) t(i)) TO '{tmp}' (FORMAT parquet)")
    os.replace(tmp, path)
    return path


def duckdb_query(path: Path) -> subprocess.Popen:
    """DuckDB running the query over and over in another process (every core, as it does)."""
    code = ("import duckdb\ncon = duckdb.connect()\ncon.execute('SET enable_progress_bar = false')\nwhile True:\n"
            f"    con.execute({DUCKDB_QUERY.format(path=path)!r}).fetchall()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    time.sleep(2.0)  # past its start: reading and aggregating
    return proc


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.kill()
        proc.wait()


# -- the run --------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: the product's)")
    parser.add_argument("--tokens", type=int, default=120)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "busy_machine_1gb.parquet")
    parser.add_argument("--rows", type=int, default=38_000_000, help="rows of the generated Parquet file")
    parser.add_argument("--skip", default="", help="conditions to leave out, e.g. busy2,duckdb")
    parser.add_argument("--spin-default", action="store_true",
                        help="also ask a shared server with GOMP's default barrier spin (quiet and 1 busy process)")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds a --spin-default request may take")
    args = parser.parse_args()
    threads = args.threads or default_threads()
    skip = set(filter(None, args.skip.split(",")))
    print(f"cores {os.cpu_count()}, threads {threads}, load {os.getloadavg()[0]:.2f}", flush=True)

    data = None
    if "duckdb" not in skip:
        started = time.perf_counter()
        data = parquet_file(args.data, args.rows)
        print(f"{data}: {data.stat().st_size / 1e9:.2f} GB (ready in {time.perf_counter() - started:.0f} s)",
              flush=True)

    root = Path(tempfile.mkdtemp(prefix="busy-machine-"))
    model = assemble_model(root / "models")
    server = LlamaServer(model, n_ctx=8192, n_threads=threads, models_dir=root / "models")
    url = server.start()
    spin_server = spin_url = None
    if args.spin_default:
        os.environ["GOMP_SPINCOUNT"] = "300000"          # the daemon's environment only
        try:
            spin_server = LlamaServer(model, n_ctx=8192, n_threads=threads, models_dir=root / "spin")
            spin_url = spin_server.start()
        finally:
            del os.environ["GOMP_SPINCOUNT"]
    prepare_threads()  # the bare server waits at barriers as the shared one does
    import xllamacpp

    bare = xllamacpp.Server(llama_params(EngineConfig(model, 8192, 1, threads, root / "kv"), xllamacpp))
    n = args.tokens
    requests: dict[str, Callable[[], object]] = {
        f"shared {n}": lambda: post(url, body(n)),
        "shared hi": lambda: post(url, body(10, hi=True)),
        f"bare {n}": lambda: bare.handle_chat_completions(body(n)),
    }
    if spin_url is not None:
        requests[f"spin {n}"] = lambda: post(spin_url, body(n), timeout=args.cap)
    usage = post(url, body(n))["usage"]
    print(f"prompt {usage['prompt_tokens']} tokens, {usage['completion_tokens']} out", flush=True)
    for fn in requests.values():
        fn()  # warm: the prompt is cached in both servers

    rows: list[tuple[str, dict[str, float]]] = []

    def measure(label: str, start: Callable[[], list[subprocess.Popen]]) -> None:
        """One round of the requests beside ``start()``'s processes; the spin server only in
        the first three rounds (quiet, 1 busy process, quiet): its busy requests take minutes."""
        procs = start()
        time.sleep(0.5 if procs else 0.0)
        try:
            times = {name: timed(fn) for name, fn in requests.items()
                     if not name.startswith("spin") or len(rows) < 3}
        finally:
            stop(procs)
        rows.append((label, times))
        print(f"{label}: " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()), flush=True)

    def concurrent() -> float:
        done: list[float] = []
        started = time.perf_counter()
        workers = [threading.Thread(target=lambda i=i: (post(url, body(n, tag=f" ({i})")),
                                                        done.append(time.perf_counter() - started)))
                   for i in range(3)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return max(done)

    measure("quiet", list)
    conditions: list[tuple[str, Callable[[], list[subprocess.Popen]]]] = [
        ("1 busy process", lambda: spinners(1)), ("2 busy processes", lambda: spinners(2))]
    if data is not None:
        conditions.append(("DuckDB query (1 GB)", lambda: [duckdb_query(data)]))
    keys = {"1 busy process": "busy1", "2 busy processes": "busy2", "DuckDB query (1 GB)": "duckdb"}
    for label, start in conditions:
        if keys[label] in skip:
            continue
        measure(label, start)
        measure("quiet", list)
    three = None
    if "concurrent" not in skip:
        three = concurrent()
        print(f"three requesters at once: {three:.2f} s", flush=True)

    quiet = {name: statistics.median(t[name] for label, t in rows if label == "quiet" and name in t)
             for name in requests}
    names = list(requests)
    print(f"\n| condition | {' | '.join(names)} |\n|---|" + "---:|" * len(names))
    print("| quiet (median, s) | " + " | ".join(f"{quiet[k]:.2f}" for k in names) + " |")
    for label, times in rows:
        if label != "quiet":
            print(f"| {label} | " + " | ".join(f"{times[k] / quiet[k]:.2f}x ({times[k]:.1f} s)" if k in times
                                            else "–" for k in names) + " |")
    if three is not None:
        ratio = three / (3 * quiet[f"shared {n}"])
        print(f"| three requesters at once (wall vs 3 quiet) | {ratio:.2f}x ({three:.1f} s) |"
              + " |" * (len(names) - 1))
    del bare
    server.shutdown()
    if spin_server is not None:
        spin_server.shutdown(timeout=5.0)


if __name__ == "__main__":
    main()
