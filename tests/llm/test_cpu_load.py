"""The machine's load as a slow model request sees it: who else used the CPU, and how much."""
from __future__ import annotations

from shell_agent_lab.llm.cpu_load import BUSY_CORES, Busy, LoadWatch, process_snapshot


class Machine:
    """Processes' CPU seconds and a clock that move only when a test says so."""

    def __init__(self, **procs: tuple[str, float]) -> None:
        self.now = 100.0
        self.procs = {int(pid[1:]): value for pid, value in procs.items()}

    def run(self, seconds: float, **used: float) -> None:
        self.now += seconds
        for pid, cores in used.items():
            name, cpu = self.procs[int(pid[1:])]
            self.procs[int(pid[1:])] = (name, cpu + cores * seconds)

    def watch(self, ours=(1,), cores=2) -> LoadWatch:
        return LoadWatch(snapshot=lambda: dict(self.procs), ours=lambda: set(ours),
                         clock=lambda: self.now, cores=cores)


def test_a_neighbour_spinning_on_one_core_is_named():
    m = Machine(p1=("python", 5.0), p2=("duckdb", 0.0), p3=("bash", 1.0))
    watch = m.watch(ours=(1,))
    watch.sample()
    m.run(10, p1=1.9, p2=0.95, p3=0.02)        # our own work (the kernel, the model server) is not counted
    watch.sample()
    busy = watch.busy()
    assert busy is not None and busy.top_name == "duckdb" and busy.top_pid == 2
    assert abs(busy.cores - 0.97) < 0.01 and busy.total == 2
    assert busy.describe() == ("the machine was busy: other processes used 1.0 of its 2 cores, "
                               "most of it duckdb (pid 2)")


def test_a_quiet_machine_or_one_snapshot_is_not_busy():
    m = Machine(p1=("python", 0.0), p2=("bash", 0.0))
    watch = m.watch()
    watch.sample()
    assert watch.busy() is None                  # nothing to compare yet
    m.run(10, p1=2.0, p2=BUSY_CORES / 2)
    watch.sample()
    assert watch.busy() is None


def test_a_process_started_meanwhile_counts_from_zero_and_a_reused_pid_is_new():
    m = Machine(p1=("python", 0.0), p7=("old", 500.0))
    watch = m.watch()
    watch.sample()
    m.procs[7] = ("make", 0.0)                   # pid 7 now names another process
    m.procs[9] = ("cc1", 0.0)
    m.run(4, p7=0.5, p9=0.75)
    watch.sample()
    busy = watch.busy()
    assert busy is not None and busy.top_name == "cc1" and abs(busy.cores - 1.25) < 1e-9


def test_many_small_neighbours_make_a_busy_machine_without_naming_one():
    assert "most of it" not in Busy(cores=1.2, total=2, top_name="a", top_pid=3, top_cores=0.1).describe()


def test_an_unreadable_machine_is_never_busy():
    def broken():
        raise OSError("no /proc")

    watch = LoadWatch(snapshot=broken, ours=set, clock=lambda: 0.0, cores=2)
    watch.sample()
    watch.sample()
    assert watch.busy() is None


def test_the_real_snapshot_sees_this_process():
    import os

    snap = process_snapshot()
    assert os.getpid() in snap and snap[os.getpid()][1] > 0
