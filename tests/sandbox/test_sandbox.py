"""The sandbox as the answer path uses it: analyst programs print what they print in the kernel,
frames travel once and again only when they change, the sandbox survives a passing thread and
comes back after it is killed or stuck, the kernel's descriptors are not inside, and where no
sandbox can be set up a program asks first (fail closed)."""
from __future__ import annotations

import os
import sys
import threading
import time

import pandas as pd
import pytest

from shell_agent_lab import sandbox as isolation
from shell_agent_lab.agent._program_runner import ProgramDeclined, program_runner
from shell_agent_lab.answers.program_run import run_program, run_program_in_kernel
from shell_agent_lab.answers.least_squares import LinearRegression
from shell_agent_lab.sandbox import ProgramSandbox, SandboxError

from tests.answers.legit_programs import LEGIT, sales_frames


@pytest.mark.parametrize("label,source,expected", LEGIT, ids=[lg[0] for lg in LEGIT])
def test_analyst_programs_print_the_same_in_the_sandbox(label, source, expected, sandbox):
    run = run_program(source, sales_frames(), sandbox=sandbox)
    assert run.ok and run.isolated, run.error
    assert run.stdout == expected


def test_values_come_back_by_name_as_plain_data(sandbox):
    frames = sales_frames()
    run = run_program("m = LinearRegression().fit(df[['units']], df['sales'])\n"
                      "answer = {'slope': float(m.coef_[0]), 'top': df.groupby('region')['sales'].sum().idxmax()}\n"
                      "n = len(df)", {**frames, "LinearRegression": LinearRegression}, sandbox=sandbox)
    assert run.ok, run.error
    assert run.values["n"] == 8 and run.values["answer"]["top"] == "North"
    assert isinstance(run.values["answer"]["slope"], float)


def test_a_failed_program_gets_the_same_hint_inside_as_in_the_kernel(sandbox):
    """The hint reads the program's own objects (here the frame a groupby made), which live in
    the sandbox: the answer it gives must not depend on where the program ran."""
    source = ("totals = df.groupby(['region'])[['sales']].sum()\n"
              "print(totals['region'])")
    inside = run_program(source, sales_frames(), sandbox=sandbox)
    kernel = run_program_in_kernel(source, sales_frames())
    assert inside.isolated and not inside.ok
    assert inside.error == kernel.error
    assert "'region' is the index of totals here, not a column" in inside.error


def test_an_answer_of_pandas_types_comes_back_from_the_sandbox_as_in_the_kernel(sandbox):
    source = ("import pandas as pd\nby = df.groupby('region')['sales'].sum()\n"
              "answer = {'top': by.nlargest(2).index, 'month': pd.Period('2023-03', 'M'), 'n': by.size}")
    inside = run_program(source, sales_frames(), sandbox=sandbox)
    assert inside.isolated and inside.ok, inside.error
    assert inside.values["answer"] == run_program_in_kernel(source, sales_frames()).values["answer"]
    assert inside.values["answer"]["month"] == "2023-03" and len(inside.values["answer"]["top"]) == 2


def test_a_frame_travels_once_and_again_when_it_changes(sandbox):
    df = pd.DataFrame({"x": list(range(1000))})
    before = sandbox.shipped
    for _ in range(3):
        assert sandbox.run("print(int(df['x'].sum()))", {"df": df})["stdout"] == "499500\n"
    assert sandbox.shipped == before + 1
    df.loc[0, "x"] = 1000                      # written in place: Copy-on-Write gives it new storage
    assert sandbox.run("print(int(df['x'].sum()))", {"df": df})["stdout"] == "500500\n"
    df["y"] = 1
    assert sandbox.run("print(list(df.columns))", {"df": df})["stdout"] == "['x', 'y']\n"
    other = df.rename(columns={"x": "z"})     # another frame under the same name
    assert sandbox.run("print(list(df.columns))", {"df": other})["stdout"] == "['z', 'y']\n"
    assert sandbox.shipped == before + 4
    assert sandbox.run("print(list(df.columns))", {"df": other})["stdout"] == "['z', 'y']\n"
    assert sandbox.shipped == before + 4


def test_frames_keep_their_types(sandbox):
    df = pd.DataFrame({"when": pd.date_range("2024-01-01", periods=3, tz="UTC"),
                       "cat": pd.Categorical(["a", "b", "a"]), "n": pd.array([1, None, 3], dtype="Int64"),
                       "mixed": pd.Series([1, "x", None], dtype=object)},
                      index=pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1)], names=["k", "i"]))
    reply = sandbox.run("print(df.dtypes.astype(str).tolist(), df.index.names, df['n'].sum())", {"df": df})
    assert reply["stdout"] == f"{df.dtypes.astype(str).tolist()} ['k', 'i'] 4\n", reply


def test_started_from_a_passing_thread_the_sandbox_lives_on():
    box = ProgramSandbox()
    try:
        starter = threading.Thread(target=box.warm)
        starter.start()
        starter.join()
        pid = box.pid
        time.sleep(0.5)
        assert pid is not None and box.pid == pid
        assert box.run("print(1)", {})["stdout"] == "1\n"
        assert box.starts == 1
    finally:
        box.close()


def test_a_killed_sandbox_is_started_again():
    box = ProgramSandbox()
    try:
        assert box.run("print(1)", {})["stdout"] == "1\n"
        os.killpg(box.pid, 9)
        time.sleep(0.2)
        assert box.run("print(2)", {})["stdout"] == "2\n"
        assert box.starts == 2
    finally:
        box.close()


def test_a_sandbox_that_stops_answering_is_ended(tmp_path):
    silent = tmp_path / "silent.py"
    silent.write_text("import json, socket, struct, sys, time\n"
                      "s = socket.socket(fileno=int(sys.argv[1]))\n"
                      "m = json.dumps({'op': 'ready'}).encode()\n"
                      "s.send(struct.pack('<Q', len(m)) + m)\n"
                      "while True:\n    s.recv(100000)\n    if False: break\n")

    class Probeless(ProgramSandbox):
        def _ensure(self):                     # this stand-in answers no probe
            if self._sock is None:
                import socket as sk
                ours, theirs = sk.socketpair(sk.AF_UNIX, sk.SOCK_SEQPACKET)
                import subprocess
                self._process = subprocess.Popen([sys.executable, str(silent), str(theirs.fileno())],
                                                 pass_fds=[theirs.fileno()], start_new_session=True)
                theirs.close()
                self._sock = ours
                from shell_agent_lab.sandbox import _channel
                _channel.receive(ours, deadline=time.monotonic() + 30)
            return self._sock

    box = Probeless()
    started = time.monotonic()
    with pytest.raises(SandboxError, match="stopped answering"):
        box.run("print(1)", {}, timeout=0.5)
    assert time.monotonic() - started < 15
    assert box.pid is None


def test_the_kernels_descriptors_are_not_inside(sandbox, tmp_path):
    held = open(tmp_path / "kernel-file", "wb")      # a descriptor the kernel holds open
    try:
        reply = sandbox.run("import os\nprint(sorted(int(f) for f in os.listdir('/proc/self/fd')))\n"
                            "print(os.listdir('/proc'))", {})
    finally:
        held.close()
    fds = eval(reply["stdout"].splitlines()[0])
    assert len(fds) <= 5, fds                   # 0, 1, 2, the result pipe, the listing's own
    assert str(os.getpid()) not in reply["stdout"].splitlines()[1]


class _Gate:
    def __init__(self, approve: bool) -> None:
        self.approve, self.asked = approve, []

    def check(self, descriptor, arguments, cancel=None):
        self.asked.append((descriptor.name, arguments["code"]))
        return type("D", (), {"approved": self.approve, "notice": ""})()


class _Registry:
    def get(self, name):
        return type("T", (), {"name": name})()


@pytest.fixture
def no_sandbox(monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_BWRAP", "/nonexistent/bwrap")
    isolation.reset()
    yield
    monkeypatch.delenv("SHELL_AGENT_LAB_BWRAP")
    isolation.reset()


def test_without_a_sandbox_nothing_runs_unasked(no_sandbox):
    found = isolation.status()
    assert not found and "bubblewrap" in found.reason
    run = run_program("print(1)", sales_frames())
    assert run.unavailable and not run.ok and run.stdout == ""
    declining = _Gate(False)
    with pytest.raises(ProgramDeclined, match="cannot be isolated on this machine"):
        program_runner(gate=declining, registry=_Registry())("print(1)", sales_frames())
    assert [name for name, _ in declining.asked] == ["run_python"]



def test_without_a_sandbox_an_approved_program_runs_in_the_kernel(tmp_path):
    """Approved, the program runs on the guarded in-kernel runner. In a fresh interpreter: the
    runner's trace function is the process's, and a long test session leaves others around."""
    import subprocess

    script = ("from shell_agent_lab.agent._program_runner import program_runner\n"
              "from tests.answers.legit_programs import sales_frames\n"
              "class G:\n    def check(self, d, a, cancel=None):\n"
              "        return type('D', (), {'approved': True, 'notice': ''})()\n"
              "class R:\n    def get(self, name):\n        return type('T', (), {'name': name})()\n"
              "run = program_runner(gate=G(), registry=R())(\"print(int(df['units'].sum()))\", sales_frames())\n"
              "print(run.ok, run.isolated, repr(run.stdout))\n")
    env = {**os.environ, "SHELL_AGENT_LAB_BWRAP": "/nonexistent/bwrap"}
    root = str(__import__("pathlib").Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env, cwd=root)
    assert done.stdout.strip().splitlines()[-1] == "True False '33\\n'", done.stderr[-2000:]


def test_a_refused_program_never_asks(no_sandbox):
    gate = _Gate(True)
    run = program_runner(gate=gate, registry=_Registry())("import os\nos.system('true')", sales_frames())
    assert run.refused and gate.asked == []


def test_with_a_sandbox_nothing_asks(sandbox_available):
    gate = _Gate(False)
    run = program_runner(gate=gate, registry=_Registry())("print(int(df['units'].sum()))", sales_frames())
    assert run.ok and run.isolated and gate.asked == []
    assert run_program_in_kernel("print(1)", {}).stdout == "1\n"


def test_programs_from_many_threads_all_answer(sandbox):
    """Threads of a busy kernel (the panel's comm thread, a cell, a warm-up) running programs at
    once: each gets its own answer, none waits forever."""
    frames = {"df": pd.DataFrame({"x": list(range(100))})}
    results: dict[int, list[str]] = {}

    def worker(n: int) -> None:
        results[n] = [sandbox.run(f"print(int(df['x'].sum()) + {n})", frames, timeout=10.0)["stdout"]
                      for _ in range(5)]

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert {n: set(out) for n, out in results.items()} == {n: {f"{4950 + n}\n"} for n in range(4)}
