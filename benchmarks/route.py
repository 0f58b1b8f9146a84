"""Which way the embedded model sends a message (``agent/_route.py``), and how long a choice takes.

The messages: every natural question of the two external sets as their writers phrased them (60;
each must go the ``answer`` way), and the requests of ``route_requests.json`` (charts, memory, a
Finding, a file, a report, the notebook, documents, a date, a greeting; each names its way). Each
is asked through the product's own backend (the shared llama.cpp server) with the built-in tools
of a session that has data, exactly as a turn asks it: ``choose_route`` with the spec read from
the message. A question that states its form is decided without asking; the report counts how
many were asked.

    flock /tmp/bench.lock .venv/bin/python benchmarks/route.py [--out build/route.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shell_agent_lab.agent._route import ANSWER, choose_route  # noqa: E402
from shell_agent_lab.agent.factory import default_registry  # noqa: E402
from shell_agent_lab.answers.spec import read_spec  # noqa: E402
from shell_agent_lab.llm.local import LocalBackend  # noqa: E402
from shell_agent_lab.llm.types import ChatOptions, Message  # noqa: E402

HERE = Path(__file__).resolve().parent


def messages() -> list[tuple[str, str, str]]:
    """(source, message, the way it must go)."""
    out = []
    for folder in ("external", "external2"):
        for q in json.loads((HERE / folder / "questions.json").read_text()):
            if q["style"] == "natural":
                out.append((folder, q["question"], ANSWER))
    for r in json.loads((HERE / "route_requests.json").read_text()):
        out.append(("requests", r["message"], r["way"]))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="results JSON")
    ns = parser.parse_args()
    backend = LocalBackend()
    tools = [d.spec() for d in default_registry().all()]
    seconds: list[float] = []

    def ask(system: str, user: str, schema: dict) -> str:
        started = time.perf_counter()
        response = backend.chat([Message("system", system), Message("user", user)],
                                options=ChatOptions(temperature=0.0, response_format=schema, max_output_tokens=32))
        seconds.append(time.perf_counter() - started)
        return response.text or ""

    rows = []
    try:
        ask("Say hi.", "hi", {"type": "object", "properties": {"way": {"type": "string"}}})   # load the model
        seconds.clear()
        for source, message, want in messages():
            route = choose_route(message, read_spec(message), tools=tools, tables=["data"], ask=ask)
            rows.append({"source": source, "message": message, "want": want, "way": route.way,
                         "by": route.source, "right": route.way == want})
            print(f"{'ok ' if route.way == want else 'BAD'} {want:>16} <- {route.way:<16} ({route.source}) {message[:70]}",
                  flush=True)
    finally:
        backend.close()
    right = sum(r["right"] for r in rows)
    summary = {"messages": len(rows), "right": right,
               "by_source": {s: {"n": sum(r["source"] == s for r in rows),
                                 "right": sum(r["right"] for r in rows if r["source"] == s)}
                             for s in sorted({r["source"] for r in rows})},
               "asked": len(seconds),
               "seconds_per_choice": {"median": round(statistics.median(seconds), 2) if seconds else None,
                                      "max": round(max(seconds), 2) if seconds else None}}
    print(json.dumps(summary, indent=1))
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
