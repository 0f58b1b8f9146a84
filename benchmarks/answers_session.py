"""Run one benchmark session: a fresh kernel, a notebook built on the fly, one ``%%agent`` cell per
question, then what the session store and the cassette recorded about it.

The kernel is the ``python3`` kernel of this environment, started by nbclient in the folder of
the CSV files. Its environment names:

* ``SHELL_AGENT_LAB_DATA_DIR`` — the run's data directory (shared by every kernel of a run, so
  they share the embedded model server and its ``models/`` folder), or a fresh one per kernel
  whose ``models`` links to the shared one;
* ``SHELL_AGENT_LAB_CASSETTE`` = ``<cassettes>/<session>.json`` with ``SHELL_AGENT_LAB_REPLAY``
  ``record`` or ``replay`` and ``SHELL_AGENT_LAB_REPLAY_MATCH=conversation``: every request and
  its usage is recorded, and a recorded run replays without a model;
* ``SHELL_AGENT_LAB_CASSETTE_SOURCE`` — the profile to record from (default: the embedded model);
* ``JPY_SESSION_NAME`` — a notebook path unique to the run, so the kernel opens a session of
  its own in the store, found again afterwards by that path.

A question cell that runs past the time limit is interrupted once (SIGINT, as the Stop button
does) and marked as timed out; a kernel that does not come back within a grace period more is
given up on, and its remaining questions count as errors.
"""
from __future__ import annotations

import json
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from benchmarks.answers_outputs import TurnRecord, answer_text, cell_error, prompt_tokens, turn_facts
from benchmarks.answers_questions import Question

__all__ = ["SessionPlan", "RunSettings", "CellResult", "SessionResult", "plan_sessions", "run_session",
           "notebook_for", "prune_earlier_runs"]

_GRACE = 60.0           # seconds an interrupted cell may take to stop before the kernel is given up


@dataclass(frozen=True)
class SessionPlan:
    """One kernel's worth of questions, all about one file, loaded as the variable ``frame``."""

    name: str                                  # e.g. "sales_orders-1"
    file: str
    questions: tuple[Any, ...]                 # any set's questions: each has id, file and prompt
    frame: str = "df"


def plan_sessions(questions: Sequence[Question], size: int = 5) -> list[SessionPlan]:
    """Group the questions by file (in the order given) and split each file's into sessions of at
    most ``size`` questions, as even as possible (9 → 5 + 4)."""
    by_file: dict[str, list[Question]] = {}
    for q in questions:
        by_file.setdefault(q.file, []).append(q)
    plans = []
    for file, qs in by_file.items():
        count = -(-len(qs) // size)
        base, extra = divmod(len(qs), count)
        start = 0
        for index in range(count):
            end = start + base + (1 if index < extra else 0)
            plans.append(SessionPlan(f"{file.removesuffix('.csv')}-{index + 1}", file, tuple(qs[start:end])))
            start = end
    return plans


@dataclass(frozen=True)
class RunSettings:
    files_dir: Path
    data_dir: Path
    cassettes: Path
    mode: str = "record"                       # "record" or "replay"
    source: str | None = None                  # profile JSON or name to record from
    timeout: float = 300.0                     # seconds per question
    run_id: str = "run"
    per_kernel_data: bool = False
    memory: bool = False
    kernel_name: str = "python3"
    env: Mapping[str, str] = field(default_factory=dict)
    #: ``KEY = VALUE`` settings of ShellAgent for every kernel (``--config``)
    config: Sequence[str] = ()


@dataclass
class CellResult:
    question: str
    seconds: float
    text: str = ""
    error: str | None = None
    timed_out: bool = False
    stuck: bool = False                        # the kernel did not come back: the session ends here


@dataclass
class SessionResult:
    plan: SessionPlan
    start_seconds: float = 0.0                 # kernel start + setup cell
    cells: list[CellResult] = field(default_factory=list)
    turns: list[TurnRecord | None] = field(default_factory=list)
    tokens: list[list[int]] = field(default_factory=list)
    peak_rss: dict[str, int] = field(default_factory=dict)
    error: str | None = None


def notebook_for(plan: SessionPlan, config: Sequence[str] = ()) -> nbformat.NotebookNode:
    """The session's notebook: a setup cell loading the file as ``plan.frame`` (``config`` adds
    ``%config ShellAgent.…`` lines), then one ``%%agent`` cell per question."""
    if not plan.frame.isidentifier():
        raise ValueError(f"{plan.name}: not a variable name: {plan.frame!r}")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    setup = (f"import pandas as pd\n{plan.frame} = pd.read_csv({plan.file!r})\n"
             "%load_ext shell_agent_lab\n%config ShellAgent.approval_policy = \"approve\"")
    setup += "".join(f"\n%config ShellAgent.{line}" for line in config)
    nb.cells.append(nbformat.v4.new_code_cell(setup))
    for q in plan.questions:
        cell = nbformat.v4.new_code_cell(f"%%agent\n{q.prompt}")
        cell.metadata["answers_question"] = q.id
        nb.cells.append(cell)
    for index, cell in enumerate(nb.cells):
        cell.id = f"{plan.name[:20]}-{index:02d}"
    return nb


def _notebook_path(settings: RunSettings, plan: SessionPlan) -> Path:
    return settings.files_dir / f"answers-{settings.run_id}-{plan.name}.ipynb"


def _kernel_data_dir(settings: RunSettings, plan: SessionPlan) -> Path:
    if not settings.per_kernel_data:
        return settings.data_dir
    fresh = settings.data_dir / "kernels" / settings.run_id / plan.name
    fresh.mkdir(parents=True, exist_ok=True)
    models = settings.data_dir / "models"
    models.mkdir(parents=True, exist_ok=True)
    link = fresh / "models"
    if not link.exists():
        link.symlink_to(models, target_is_directory=True)
    return fresh


def _kernel_env(settings: RunSettings, plan: SessionPlan, data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "SHELL_AGENT_LAB_"))}
    env.update({"SHELL_AGENT_LAB_DATA_DIR": str(data_dir),
                "SHELL_AGENT_LAB_CASSETTE": str(settings.cassettes / f"{plan.name}.json"),
                "SHELL_AGENT_LAB_REPLAY": settings.mode,
                "SHELL_AGENT_LAB_REPLAY_MATCH": "conversation",
                "JPY_SESSION_NAME": str(_notebook_path(settings, plan)),
                "PYTHONUNBUFFERED": "1"})
    if settings.source:
        env["SHELL_AGENT_LAB_CASSETTE_SOURCE"] = settings.source
    env.update(settings.env)
    return env


class _MemorySampler:
    """Peak RSS of the kernel's process tree and of the model server(s) of its data directory
    (a process whose command line mentions llama and that directory), sampled twice a second."""

    def __init__(self, pid: int, data_dir: Path) -> None:
        import psutil

        self._psutil = psutil
        self._pid = pid
        self._marker = str(data_dir)
        self.peak = {"kernel_tree": 0, "model_server": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="answers-memory", daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        ps = self._psutil
        try:
            kernel = ps.Process(self._pid)
            tree = [kernel] + kernel.children(recursive=True)
        except ps.Error:
            tree = []
        kernel_rss = sum(self._rss(p) for p in tree)
        server_rss = 0
        for proc in ps.process_iter(["pid", "cmdline"]):
            cmdline = " ".join(proc.info.get("cmdline") or []).lower()
            if proc.info["pid"] != os.getpid() and "llama" in cmdline and self._marker.lower() in cmdline:
                server_rss += self._rss(proc)
        self.peak["kernel_tree"] = max(self.peak["kernel_tree"], kernel_rss)
        self.peak["model_server"] = max(self.peak["model_server"], server_rss)

    def _rss(self, proc: Any) -> int:
        try:
            return int(proc.memory_info().rss)
        except self._psutil.Error:
            return 0

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(0.5)

    def stop(self) -> dict[str, int]:
        self._stop.set()
        self._thread.join(timeout=5)
        return dict(self.peak)


def _run_cell(client: NotebookClient, cell: Any, index: int, timeout: float, pid: int | None) -> CellResult:
    fired = threading.Event()

    def interrupt() -> None:
        fired.set()
        if pid:
            try:
                os.kill(pid, signal.SIGINT)
            except OSError:
                pass

    timer = threading.Timer(timeout, interrupt)
    timer.daemon = True
    question = cell.metadata.get("answers_question", "")
    started = time.perf_counter()
    timer.start()
    try:
        client.execute_cell(cell, index)
    except CellTimeoutError:        # the interrupt did not stop it: the kernel is given up on
        return CellResult(question, time.perf_counter() - started, answer_text(cell.get("outputs", [])),
                          f"the cell did not stop within {_GRACE:.0f} s of its interrupt", timed_out=True, stuck=True)
    finally:
        timer.cancel()
    seconds = time.perf_counter() - started
    outputs = cell.get("outputs", [])
    return CellResult(question, seconds, answer_text(outputs), cell_error(outputs), fired.is_set())


def run_session(plan: SessionPlan, settings: RunSettings) -> SessionResult:
    """Ask the plan's questions in one fresh kernel; read back the store and the cassette."""
    result = SessionResult(plan)
    data_dir = _kernel_data_dir(settings, plan)
    nb = notebook_for(plan, settings.config)
    client = NotebookClient(nb, timeout=int(settings.timeout + _GRACE), kernel_name=settings.kernel_name,
                            allow_errors=True, interrupt_on_timeout=False,
                            resources={"metadata": {"path": str(settings.files_dir)}})
    sampler = None
    started = time.perf_counter()
    try:
        with client.setup_kernel(env=_kernel_env(settings, plan, data_dir)):
            pid = getattr(client.km.provisioner, "pid", None) if client.km else None
            if settings.memory and pid:
                sampler = _MemorySampler(pid, data_dir)
            client.execute_cell(nb.cells[0], 0)
            result.start_seconds = time.perf_counter() - started
            setup_error = cell_error(nb.cells[0].get("outputs", []))
            if setup_error:
                result.error = f"setup cell: {setup_error}"
            for index, cell in enumerate(nb.cells[1:], 1):
                result.cells.append(_run_cell(client, cell, index, settings.timeout, pid))
                if result.cells[-1].stuck:
                    result.error = f"{result.cells[-1].question}: {result.cells[-1].error}"
                    break
    except (CellTimeoutError, DeadKernelError) as exc:
        result.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        if sampler is not None:
            result.peak_rss = sampler.stop()
    asked = {c.question for c in result.cells}
    for q in plan.questions:
        if q.id not in asked:
            result.cells.append(CellResult(q.id, 0.0, "", result.error or "not run"))
    prompts = [q.prompt for q in plan.questions]
    result.turns = turn_facts(_session_records(data_dir, _notebook_path(settings, plan)), prompts)
    result.tokens = prompt_tokens(_interactions(settings.cassettes / f"{plan.name}.json"), prompts)
    return result


def _session_records(data_dir: Path, notebook: Path) -> list[Any]:
    from shell_agent_lab.store import Store

    if not data_dir.exists():
        return []
    store = Store.open(data_dir)
    try:
        session = store.find_session(str(notebook))
        return store.list_records(session.id) if session is not None else []
    finally:
        store.close()


def _interactions(cassette: Path) -> list[Mapping[str, Any]]:
    if not cassette.exists():
        return []
    return list(json.loads(cassette.read_text(encoding="utf-8")).get("interactions") or [])


def prune_earlier_runs(data_dir: Path, files_dir: Path) -> int:
    """Forget earlier benchmark runs in ``data_dir``: their sessions in the shared store (their
    notebooks are ``files_dir/answers-*``) and their per-kernel data directories. The assembled
    model in ``models/`` stays. Returns how many sessions went."""
    import shutil

    from shell_agent_lab.store import Store

    if not data_dir.exists():
        return 0
    shutil.rmtree(data_dir / "kernels", ignore_errors=True)
    store = Store.open(data_dir)
    try:
        prefix = str(files_dir / "answers-")
        earlier = [s for s in store.list_sessions() if (s.notebook_path or "").startswith(prefix)]
        for session in earlier:
            store.delete_session(session.id)
        return len(earlier)
    finally:
        store.close()
