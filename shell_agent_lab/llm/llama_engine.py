"""The llama.cpp server as the daemon runs it: ``xllamacpp`` on 127.0.0.1, a free port.

``cache_prompt`` (on by default) keeps each slot's prompt in its KV cache, so any client whose
request starts with the same tokens reuses them; ``slot_save_path`` lets the daemon save slot 0
to a file and restore it after a restart (``POST /slots/0?action=save|restore``).

Threads on a busy machine: llama.cpp (the OpenMP build ``xllamacpp`` ships) splits every step
of a token over ``n_threads`` threads that meet at a barrier after each step, hundreds of times
per token. By default a thread that arrives first spins there for GOMP's 300,000 iterations
(milliseconds) before it sleeps. On a quiet machine the others arrive within microseconds; when
another process has taken a core, the thread sharing that core is descheduled and the one that
arrived spins for its whole wait, holding the other core instead of letting the late thread run
there. :func:`prepare_threads` caps the spin (:data:`BARRIER_SPIN`) before the library loads:
long enough for a quiet machine's barrier, short enough that a waiting thread soon gives its
core to the late one. The threads thereby follow the free cores at run time, with no restart.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, MutableMapping, Protocol

__all__ = ["EngineConfig", "Engine", "EngineError", "start_llama", "llama_params", "CACHE_RAM_MIB",
           "BARRIER_SPIN", "MAX_THREADS", "prepare_threads", "default_threads"]

#: MiB of host memory llama.cpp may keep for prompts other than the slot's own
CACHE_RAM_MIB = 256
#: iterations a llama.cpp thread spins at a barrier before it sleeps: GOMP's default is 300,000,
#: and 1,000 is what GOMP itself uses when it knows the threads outnumber the cores (measured in
#: docs/performance.md: as fast as 300,000 on a quiet machine, 30-80x faster beside a busy process)
BARRIER_SPIN = 1_000
#: threads beyond this gain little for a 1.5B model and take cores from the notebook's own work
MAX_THREADS = 4
_SPIN_SETTINGS = ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")


def _quota_cores(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int | None:
    """Whole cores of the cgroup's CPU quota (``"200000 100000"`` is 2), None without one."""
    try:
        quota, period = cpu_max.read_text().split()[:2]
        return max(1, math.ceil(int(quota) / int(period)))
    except (OSError, ValueError):
        return None  # no cgroup v2 file, or "max": no quota


def default_threads(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """llama.cpp threads for this machine: the cores this process may run on (its affinity and
    its container's CPU quota), at most :data:`MAX_THREADS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    quota = _quota_cores(cpu_max)
    if quota is not None:
        cores = min(cores, quota)
    return max(1, min(MAX_THREADS, cores))


def prepare_threads(environ: MutableMapping[str, str] | None = None) -> bool:
    """Cap the barrier spin (:data:`BARRIER_SPIN`) unless the environment already sets GOMP's
    spin or wait policy; True when it did. Takes effect only when the OpenMP runtime has not
    been loaded yet in this process (the daemon calls it before it loads the model)."""
    environ = os.environ if environ is None else environ
    if any(environ.get(name) for name in _SPIN_SETTINGS):
        return False
    environ["GOMP_SPINCOUNT"] = str(BARRIER_SPIN)
    return True


class EngineError(Exception):
    """The server could not start; ``str()`` is one line saying why."""


@dataclass(frozen=True)
class EngineConfig:
    model: Path
    n_ctx: int
    n_parallel: int
    n_threads: int
    #: llama.cpp's ``slot_save_path``: where slot files are saved and restored by bare name
    slot_dir: Path


class Engine(Protocol):
    url: str

    def close(self) -> None: ...


class _LlamaEngine:
    def __init__(self, server: Any) -> None:
        self._server = server
        self.url = str(server.listening_address).rstrip("/")

    def close(self) -> None:
        server, self._server = self._server, None
        del server  # the server's destructor joins its loop and closes the socket


def start_llama(config: EngineConfig) -> Engine:
    """Load the model and listen; raises :class:`EngineError` with the reason."""
    prepare_threads()
    try:
        import xllamacpp
    except ImportError as exc:
        raise EngineError("xllamacpp is not installed (pip install 'shell-agent-lab[local]')") from exc
    params = llama_params(config, xllamacpp)
    try:
        return _LlamaEngine(xllamacpp.Server(params))
    except Exception as exc:
        raise EngineError(f"llama.cpp could not load {config.model.name}: {' '.join(str(exc).split())}") from exc


def llama_params(config: EngineConfig, xllamacpp: Any) -> Any:
    """llama.cpp's server parameters for ``config`` (``xllamacpp`` is the module)."""
    params = xllamacpp.CommonParams()
    params.model.path = str(config.model)
    params.n_ctx = config.n_ctx
    params.n_parallel = config.n_parallel
    params.cpuparams.n_threads = config.n_threads
    params.cpuparams_batch.n_threads = config.n_threads
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port
    params.use_jinja = True  # native tools need the model's chat template
    params.verbosity = -1  # llama.cpp's own log stays quiet: no prompts in the log file
    params.warmup = False
    params.cache_prompt = True
    # llama.cpp keeps earlier prompts' KV in RAM beyond the slot (8 GiB by default): one server for
    # every notebook must not grow with them; 256 MiB still holds a few notebooks' prefixes
    params.cache_ram_mib = CACHE_RAM_MIB
    params.endpoint_slots = True
    params.slot_save_path = str(config.slot_dir).rstrip(os.sep) + os.sep
    return params
