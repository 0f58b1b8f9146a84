"""How busy the machine is, and with what: the CPU other processes use while the model works.

:class:`LoadWatch` takes a snapshot of every process's CPU time (``psutil``) when asked
(:meth:`LoadWatch.sample`, e.g. on each heartbeat of a model request) and says, from the first
snapshot to the last, how many cores processes other than ours used and which one used the
most. "Ours" is this process, its children and the shared model servers this process talks to
(their work is the answer being computed, not a neighbour's). Reading every process takes a
few milliseconds, so nothing samples unless a request is slow enough to have a heartbeat.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

__all__ = ["Busy", "LoadWatch", "Snapshot", "process_snapshot", "our_pids", "BUSY_CORES"]

#: cores other processes must use on average for the machine to count as busy
BUSY_CORES = 0.5

#: pid -> (process name, CPU seconds so far)
Snapshot = Mapping[int, tuple[str, float]]


@dataclass(frozen=True)
class Busy:
    """What other processes used between two snapshots."""

    #: cores used on average by processes other than ours
    cores: float
    #: cores of the machine
    total: int
    #: the busiest other process: name, pid and cores it used on average
    top_name: str = ""
    top_pid: int = 0
    top_cores: float = 0.0

    def describe(self) -> str:
        """``the machine was busy: other processes used 1.0 of its 2 cores, most of it python (pid 42)``"""
        text = f"the machine was busy: other processes used {self.cores:.1f} of its {self.total} cores"
        if self.top_name and self.top_cores >= BUSY_CORES / 2:
            text += f", most of it {self.top_name} (pid {self.top_pid})"
        return text


def process_snapshot() -> dict[int, tuple[str, float]]:
    """Every readable process's name and CPU seconds (user + system); empty without psutil."""
    try:
        import psutil
    except ImportError:
        return {}
    found: dict[int, tuple[str, float]] = {}
    for proc in psutil.process_iter(["name", "cpu_times"]):
        info = proc.info
        times = info.get("cpu_times")
        if times is None:
            continue  # gone or not ours to read
        found[proc.pid] = (str(info.get("name") or "?"), float(times.user + times.system))
    return found


def our_pids() -> set[int]:
    """This process, its descendants and the shared model servers it uses."""
    pids = {os.getpid()}
    try:
        import psutil

        pids.update(child.pid for child in psutil.Process().children(recursive=True))
    except Exception:  # psutil missing, or a child gone while listed
        pass
    from .llama_client import server_pids

    pids.update(server_pids())
    return pids


class LoadWatch:
    """Snapshots of the machine's CPU use during one wait; :meth:`busy` compares the first and
    the last."""

    def __init__(self, *, snapshot: Callable[[], Snapshot] = process_snapshot,
                 ours: Callable[[], Iterable[int]] = our_pids,
                 clock: Callable[[], float] = time.monotonic, cores: int | None = None) -> None:
        self._snapshot = snapshot
        self._ours = ours
        self._clock = clock
        self.cores = cores or os.cpu_count() or 1
        self._first: tuple[float, Snapshot] | None = None
        self._last: tuple[float, Snapshot] | None = None

    def sample(self) -> None:
        """Take a snapshot now (never raises: a machine that cannot be read is not busy)."""
        try:
            taken = (self._clock(), self._snapshot())
        except Exception:
            return
        if self._first is None:
            self._first = taken
        else:
            self._last = taken

    def busy(self) -> Busy | None:
        """What others used between the first and the last snapshot, when that is at least
        :data:`BUSY_CORES`; None when it was less or fewer than two snapshots were taken."""
        if self._first is None or self._last is None:
            return None
        (start, before), (end, after) = self._first, self._last
        seconds = end - start
        if seconds <= 0:
            return None
        try:
            ours = set(self._ours())
        except Exception:
            ours = {os.getpid()}
        used: dict[int, tuple[str, float]] = {}
        for pid, (name, cpu) in after.items():
            if pid in ours:
                continue
            # a process that started meanwhile counts from zero; a reused pid is a new process
            earlier = before.get(pid)
            spent = cpu - earlier[1] if earlier is not None and earlier[0] == name and cpu >= earlier[1] else cpu
            if spent > 0:
                used[pid] = (name, spent / seconds)
        cores = sum(share for _, share in used.values())
        if cores < BUSY_CORES:
            return None
        top_pid, (top_name, top_cores) = max(used.items(), key=lambda item: item[1][1])
        return Busy(cores=min(cores, float(self.cores)), total=self.cores, top_name=top_name,
                    top_pid=top_pid, top_cores=top_cores)
