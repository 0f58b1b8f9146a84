"""The red-team corpus (redteam.py) against the operating system's boundary: every program runs
in the sandbox *without* the program check, as an attacker who found the check's gaps would
have it, and must leave the kernel, its frames, its files and its sockets as they were; the
kernel answers after each. The same corpus then goes through ``run_program`` (check, then
sandbox), as the answer path runs it."""
from __future__ import annotations

import atexit
import builtins
import decimal
import gc
import hashlib
import json
import math
import os
import random
import secrets
import signal
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from shell_agent_lab.answers.program_run import run_program
from shell_agent_lab.sandbox import SandboxError

from .conftest import Listener
from .redteam import CLASSES, CORPUS

pytestmark = pytest.mark.timeout(600)

TOKEN = "tok-" + secrets.token_hex(12)
_OUTSIDE = ("/tmp/pwned-sandbox", "/dev/shm/pwned-sandbox", str(Path.home() / "pwned-sandbox"), "/pwned")


def _frames() -> dict[str, pd.DataFrame]:
    df = pd.DataFrame({"sales": [120.5, 80.0, 95.25, 130.0, 60.0, 150.0, 210.0, 115.5],
                       "units": [3, 2, 2, 4, 1, 4, 6, 3],
                       "segment": ["A", "B", "A", "B", "A", "B", "A", "B"],
                       "region": ["EU", "US", "EU", "US", "US", "EU", "EU", "US"]})
    df.attrs["source"] = "sales.csv"
    other = pd.DataFrame({"label": pd.Categorical(["x", "y", "x"]), "when": pd.date_range("2024-01-01", periods=3)},
                         index=pd.Index(["r1", "r2", "r3"], name="row"))
    return {"df": df, "other": other}


def _frame_state(frames: dict[str, pd.DataFrame]) -> dict:
    return {name: {"copy": f.copy(deep=True), "index": np.array(f.index, dtype=object).copy(),
                   "columns": list(f.columns), "attrs": json.dumps(f.attrs), "index_name": f.index.name,
                   "columns_name": f.columns.name, "dtypes": f.dtypes.to_dict(),
                   "flags": f.flags.allows_duplicate_labels} for name, f in frames.items()}


def _assert_frames(frames: dict[str, pd.DataFrame], before: dict) -> None:
    for name, f in frames.items():
        b = before[name]
        pd.testing.assert_frame_equal(f, b["copy"], check_exact=True)
        assert list(np.array(f.index, dtype=object)) == list(b["index"])
        assert list(f.columns) == b["columns"] and json.dumps(f.attrs) == b["attrs"]
        assert f.index.name == b["index_name"] and f.columns.name == b["columns_name"]
        assert f.dtypes.to_dict() == b["dtypes"] and f.flags.allows_duplicate_labels == b["flags"]
        if isinstance(f.get("label"), pd.Series):
            assert list(f["label"].cat.categories) == ["x", "y"]


def _kernel_state() -> dict:
    import threading as th

    return {
        "modules": {name: id(sys.modules.get(name)) for name in ("json", "math", "os", "pandas", "numpy", "random")},
        "path": list(sys.path), "cwd": os.getcwd(), "environ": dict(os.environ),
        "pd options": [pd.get_option("display.max_rows"), pd.get_option("display.precision")],
        "np random": [np.random.get_state()[1].tobytes(), id(np.random.mtrand._rand)],
        "random": [random.getstate(), random.random], "math": [math.pi, math.e, math.tau],
        "attrs": [np.mean, pd.DataFrame.sum, hasattr(pd.DataFrame, "foo"), hasattr(pd.DataFrame, "pwned"),
                  stats.ttest_ind],
        "warnings": list(warnings.filters), "np err": [np.geterr(), np.get_printoptions()["precision"]],
        "limits": [sys.getrecursionlimit(), gc.isenabled()], "sigint": signal.getsignal(signal.SIGINT),
        "streams": [sys.stdout, sys.stderr, sys.excepthook, th.excepthook],
        "builtins": [builtins.print, builtins.len], "decimal": decimal.getcontext().prec,
        "atexit": atexit._ncallbacks(),
    }


def _tree(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        stat = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
        out[str(path.relative_to(folder))] = f"{stat.st_mode:o}:{stat.st_size}:{stat.st_mtime_ns}:{digest}"
    return out


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notebook")
    (folder / "secret.txt").write_text(f"{TOKEN}\n")
    (folder / "notes.ipynb").write_text("{}")
    listener = Listener(str(tmp_path_factory.mktemp("sock") / "kernel.sock"))
    os.environ["SECRET_TOKEN"] = TOKEN
    yield {"folder": folder, "listener": listener}
    os.environ.pop("SECRET_TOKEN", None)
    listener.close()


def _source(template: str, stage: dict) -> str:
    folder = stage["folder"]
    return (template.replace("{tmp}", str(folder)).replace("{secret}", str(folder / "secret.txt"))
            .replace("{port}", str(stage["listener"].port)).replace("{unix}", stage["listener"].unix_path)
            .replace("{kernel}", str(os.getpid())).replace("{home}", str(Path.home())).replace("{token}", TOKEN))


def _attack(run_it, template: str, stage: dict, monkeypatch) -> tuple[str, dict]:
    """Run one program and check everything outside the boundary; the outcome's kind."""
    monkeypatch.chdir(stage["folder"])
    frames = _frames()
    before_frames, before_kernel = _frame_state(frames), _kernel_state()
    before_files = _tree(stage["folder"])
    stage["listener"].drain()
    threads = threading.active_count()
    outcome = run_it(_source(template, stage), frames)
    _assert_frames(frames, before_frames)
    after_kernel = _kernel_state()
    assert after_kernel == before_kernel, [k for k in before_kernel if after_kernel[k] != before_kernel[k]]
    assert _tree(stage["folder"]) == before_files, "a file changed in the notebook's folder"
    assert not [p for p in _OUTSIDE if os.path.lexists(p)], "a file appeared outside"
    assert stage["listener"].drain() == [], "a connection reached the kernel"
    assert TOKEN not in json.dumps(outcome, default=str), "the secret came back"
    assert threading.active_count() <= threads + 1, "threads were left running in the kernel"
    return outcome


@pytest.mark.parametrize("kind,label,template", CORPUS, ids=[f"{k}: {label}" for k, label, _ in CORPUS])
def test_the_boundary_holds_without_the_check(kind, label, template, sandbox, stage, monkeypatch):
    def run_it(source, frames):
        try:
            return sandbox.run(source, frames, timeout=2.0, memory_mb=512)
        except SandboxError as exc:          # the program ended the sandbox itself: the kernel goes on
            return {"ok": False, "error": f"sandbox: {exc}"}

    _attack(run_it, template, stage, monkeypatch)
    # the kernel still answers, and so does a sandbox (a new one, if the program ended it)
    reply = sandbox.run("print(int(df['units'].sum()))", _frames(), timeout=10.0)
    assert reply["ok"] and reply["stdout"] == "25\n", reply


@pytest.mark.parametrize("kind,label,template", CORPUS[::7], ids=[f"{k}: {label}" for k, label, _ in CORPUS[::7]])
def test_the_answer_paths_runner_holds(kind, label, template, sandbox, stage, monkeypatch):
    def run_it(source, frames):
        run = run_program(source, frames, timeout=2.0, sandbox=sandbox, memory_mb=512)
        return {"ok": run.ok, "stdout": run.stdout, "error": run.error, "values": run.values}

    _attack(run_it, template, stage, monkeypatch)


def test_the_corpus_covers_every_class():
    assert len(CORPUS) >= 150
    assert {k for k, _, _ in CORPUS} == set(CLASSES)
    assert all(sum(1 for k, _, _ in CORPUS if k == c) >= 8 for c in CLASSES)


@pytest.mark.parametrize("template", [
    "open('{tmp}/pwned', 'w').write('x')",
    "df.loc[0, 'sales'] = -1",
    "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).close()",
    "print(open('{secret}').read())",
    "import numpy as np\nnp.random.seed(1)",
])
def test_the_checks_see_a_breach_when_there_is_no_boundary(template, stage, monkeypatch):
    """The same checks, around a program run in this process with nothing in the way, fail:
    the corpus' assertions can tell a breach from a refusal."""
    state = np.random.get_state()

    def in_process(source, frames):
        out: list[str] = []
        scope = {**frames, "print": lambda *a, **k: out.append(" ".join(map(str, a)))}
        exec(source, scope)  # noqa: S102 - the point of this test
        return {"stdout": "\n".join(out)}

    try:
        with pytest.raises(AssertionError):
            _attack(in_process, template, stage, monkeypatch)
    finally:
        np.random.set_state(state)
        for leftover in stage["folder"].glob("pwned*"):
            leftover.unlink()
