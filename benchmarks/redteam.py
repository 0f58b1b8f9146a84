"""The red-team table: the corpus of hostile programs (``tests/sandbox/redteam.py``) against
the sandbox, by class.

Run:  .venv/bin/python benchmarks/redteam.py

Each program is read by the program check (would the answer path refuse it before it runs?)
and then run in the sandbox *without* the check, with the same assertions as the tests: the
kernel's frames, modules, path, options, random state, warnings filters and environment, the
notebook's folder, a secret file and the kernel's listening sockets unchanged, and the kernel
answering after it. Columns: attempts; refused by the check; stopped inside the sandbox (an
error, the time limit, a crash: the boundary or the program's own failure ended it); ran to
its end (with no effect outside); breaches; the kernel alive after each. Prints Markdown.
"""
from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shell_agent_lab.answers.program_check import check_program  # noqa: E402
from shell_agent_lab.sandbox import ProgramSandbox, SandboxError  # noqa: E402
from tests.sandbox import test_redteam as harness  # noqa: E402
from tests.sandbox.conftest import Listener  # noqa: E402
from tests.sandbox.redteam import CLASSES, CORPUS  # noqa: E402


class _Chdir:
    def chdir(self, path: Path) -> None:
        os.chdir(path)


def main() -> None:
    box = ProgramSandbox()
    box.run("print(1)", {})          # started before the first program: its own threads are not the program's
    counts: dict[str, Counter] = {c: Counter() for c in CLASSES}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "notebook"
        folder.mkdir()
        (folder / "secret.txt").write_text(f"{harness.TOKEN}\n")
        listener = Listener(str(Path(tmp) / "kernel.sock"))
        os.environ["SECRET_TOKEN"] = harness.TOKEN
        stage = {"folder": folder, "listener": listener}
        here = os.getcwd()
        try:
            for kind, label, template in CORPUS:
                row = counts[kind]
                row["attempts"] += 1
                source = harness._source(template, stage)
                if check_program(source, given=["df", "other"]):
                    row["refused by the check"] += 1

                def run_it(source: str, frames: dict) -> dict:
                    try:
                        return box.run(source, frames, timeout=2.0, memory_mb=512)
                    except SandboxError as exc:
                        return {"ok": False, "error": f"sandbox: {exc}"}

                try:
                    outcome = harness._attack(run_it, template, stage, _Chdir())
                except AssertionError as exc:
                    row["breaches"] += 1
                    print(f"BREACH {kind}: {label}: {exc}", file=sys.stderr)
                    outcome = {"ok": False}
                row["ran to its end" if outcome.get("ok") else "stopped inside the sandbox"] += 1
                alive = box.run("print(1)", {}, timeout=10.0)
                row["kernel alive after"] += int(alive.get("stdout") == "1\n")
        finally:
            os.chdir(here)
            os.environ.pop("SECRET_TOKEN", None)
            listener.close()
            box.close()
    columns = ["attempts", "refused by the check", "stopped inside the sandbox", "ran to its end", "breaches",
               "kernel alive after"]
    print("| class | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for kind in CLASSES:
        print(f"| {kind} | " + " | ".join(str(counts[kind][c]) for c in columns) + " |")
    total = sum(counts.values(), Counter())
    print("| **all** | " + " | ".join(f"**{total[c]}**" for c in columns) + " |")
    print(f"\nsandbox starts: {box.starts} (a program that ends the sandbox itself makes the next one start anew)")


if __name__ == "__main__":
    main()
