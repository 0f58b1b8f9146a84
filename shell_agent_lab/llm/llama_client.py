"""A process's handle on the shared llama.cpp server of its data directory.

:meth:`LlamaServer.start` returns the URL of the server that runs the wanted model with the
wanted context size, starting one when there is none (records: :mod:`.llama_state`):

1. take the data directory's lock (``models/servers.lock``), then a lease for this process;
2. reuse the recorded server when it is ready, its pid is alive (with the recorded start time),
   it runs the same model bytes, context size, engine and package version, and ``/health``
   answers;
3. otherwise replace the record: a live server that no longer fits is told to stop (SIGTERM;
   it finishes a request in flight first), and a new daemon (:mod:`.llama_daemon`) is started
   detached and awaited until it records itself ready. Other processes wait on the lock
   meanwhile, then find it: two kernels starting at once get one server.

:meth:`LlamaServer.stop` (and :func:`stop_all_servers`, run at exit) only drops this process's
lease: the server stops by itself once no client is left and no request ran for a while
(:mod:`.llama_policy`). :meth:`LlamaServer.shutdown` and :func:`shutdown_servers` stop it now.
A daemon that cannot start is one line naming the reason and its log file.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Mapping

from .._version import __version__
from ..paths import data_dir, ensure_private_dir
from .errors import ConfigurationError, UnreachableError
from .llama_engine import default_threads
from .llama_http import Http, HttpFailure, UrllibHttp
from .llama_policy import IdlePolicy
from .llama_state import (ModelSpec, ServerPaths, ServerState, drop_lease, exclusive, pid_alive,
                          read_state, remove_state, take_lease)

__all__ = ["LlamaServer", "Spawn", "spawn_detached", "shared_server", "stop_all_servers",
           "shutdown_servers", "server_pids"]

#: starts the daemon's command line with its stderr appended to the log; returns the server's pid
Spawn = Callable[[list[str], Path, Mapping[str, str]], int]

_LOG_KEEP = 1024 * 1024
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def spawn_detached(argv: list[str], log: Path, env: Mapping[str, str]) -> int:
    """Run ``argv`` (the daemon with ``--detach``) in a new session; the pid it prints."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=fd,
                                env=dict(env), cwd=str(log.parent), start_new_session=True)
    finally:
        os.close(fd)
    out, _ = proc.communicate(timeout=60)
    text = out.decode("ascii", "replace").strip()
    if proc.returncode != 0 or not text.isdigit():
        raise OSError(f"the daemon's launcher exited with status {proc.returncode}")
    return int(text)


def _last_line(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, path.stat().st_size - 4096))
            lines = handle.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1].strip()[:300] if lines else ""


def _rotate(log: Path) -> None:
    with contextlib.suppress(OSError):
        if log.stat().st_size > _LOG_KEEP:
            os.replace(log, log.with_name(log.name + ".1"))


class LlamaServer:
    """This process's handle on the shared server of one model and context size."""

    def __init__(self, model_path: Path, *, n_ctx: int = 8192, n_threads: int | None = None,
                 n_parallel: int = 1, models_dir: Path | None = None, engine: str = "llama",
                 policy: IdlePolicy | None = None, start_timeout: float = 300.0,
                 spawn: Spawn = spawn_detached, http: Http | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self.n_parallel = n_parallel
        self.models_dir = Path(models_dir) if models_dir else None
        self.engine = engine
        try:
            self.policy = policy or IdlePolicy.from_env(os.environ)
        except ValueError as exc:
            raise ConfigurationError(str(exc), hint="Give the idle times in seconds, e.g. 600") from exc
        self.start_timeout = start_timeout
        self._spawn = spawn
        self._http = http or UrllibHttp()
        self._sleep = sleep
        self._clock = clock
        self._state: ServerState | None = None
        self._paths: ServerPaths | None = None
        self._lock = threading.Lock()

    # -- what this process knows -------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True once :meth:`start` found or started a server (until :meth:`stop` / :meth:`forget`)."""
        return self._state is not None

    @property
    def url(self) -> str | None:
        state = self._state
        return state.url if state is not None else None

    @property
    def pid(self) -> int | None:
        state = self._state
        return state.pid if state is not None else None

    @property
    def log_path(self) -> Path | None:
        return self._paths.log if self._paths is not None else None

    def healthy(self) -> bool:
        """The server this process uses still runs and answers ``/health``."""
        state = self._state
        return state is not None and pid_alive(state.pid, state.pid_start) and self._answers(state.url)

    # -- life ------------------------------------------------------------------------------------
    def start(self) -> str:
        """Find or start the server; its base URL, e.g. ``http://127.0.0.1:41234``."""
        with self._lock:
            if self._state is not None:
                return self._state.url
            if not self.model_path.is_file():
                raise ConfigurationError(f"model file {self.model_path} does not exist",
                                         hint="Point the profile's model_path at a .gguf file")
            spec = ModelSpec.of_file(self.model_path, n_ctx=self.n_ctx, n_parallel=self.n_parallel)
            root = ensure_private_dir(self.models_dir or data_dir() / "models")
            paths = ServerPaths(root, spec.key)
            ensure_private_dir(paths.dir.parent)
            ensure_private_dir(paths.dir)
            try:
                with exclusive(paths.lock, self.start_timeout + 30.0, sleep=self._sleep, clock=self._clock):
                    take_lease(paths.clients)
                    self._paths = paths
                    state = read_state(paths.state)
                    if state is None or not self._usable(state, spec):
                        if state is not None:
                            self._retire(state, paths)
                        state = self._launch(spec, paths)
            except TimeoutError as exc:
                raise UnreachableError(f"the embedded model server's lock {paths.lock} stayed taken",
                                       hint=f"see {paths.log}", retryable=False) from exc
            self._state = state
            return state.url

    def forget(self, url: str | None = None) -> None:
        """The server went away: the next :meth:`start` finds or starts one (keeps the lease).
        With ``url``, only when that is still the server this handle knows."""
        with self._lock:
            if self._state is not None and (url is None or self._state.url == url):
                self._state = None

    def stop(self) -> None:
        """Drop this process's lease; the server keeps running for the others (it stops by
        itself when idle)."""
        with self._lock:
            self._state = None
            if self._paths is not None:
                drop_lease(self._paths.clients)

    def shutdown(self, timeout: float = 30.0) -> bool:
        """Stop the server now (SIGTERM, then wait up to ``timeout``); True when it is gone."""
        with self._lock:
            paths = self._paths
            self._state = None
        if paths is None:
            return True
        drop_lease(paths.clients)
        return _terminate(paths.state, timeout, self._sleep, self._clock)

    # -- inside the lock -----------------------------------------------------------------------------
    def _answers(self, url: str) -> bool:
        try:
            self._http.get(f"{url}/health", timeout=5.0)
        except HttpFailure:
            return False
        return True

    def _usable(self, state: ServerState, spec: ModelSpec) -> bool:
        return (state.serves(spec, __version__, self.engine) and pid_alive(state.pid, state.pid_start)
                and self._answers(state.url))

    def _retire(self, state: ServerState, paths: ServerPaths) -> None:
        """Remove a record that does not fit; tell its server to stop when it still runs."""
        remove_state(paths.state, state.token)
        if state.pid_start is not None and state.pid != os.getpid() and pid_alive(state.pid, state.pid_start):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(state.pid, signal.SIGTERM)  # it lets a request in flight finish, then exits

    def _failure(self, reason: str, paths: ServerPaths) -> UnreachableError:
        return UnreachableError(f"the embedded model server could not start: {reason}",
                                hint=f"see {paths.log}", retryable=False)

    def _await_exit(self, pid: int, timeout: float = 5.0) -> None:
        deadline = self._clock() + timeout
        while pid_alive(pid) and self._clock() < deadline:
            self._sleep(0.02)

    def _launch(self, spec: ModelSpec, paths: ServerPaths) -> ServerState:
        token = secrets.token_hex(8)
        _rotate(paths.log)
        argv = [sys.executable, "-m", "shell_agent_lab.llm.llama_daemon", "--detach",
                "--models-dir", str(paths.root), "--model", spec.path, "--fingerprint", spec.fingerprint,
                "--n-ctx", str(spec.n_ctx), "--n-parallel", str(spec.n_parallel),
                "--n-threads", str(self.n_threads), "--engine", self.engine, "--token", token,
                *self.policy.to_args()]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        try:
            pid = self._spawn(argv, paths.log, env)
        except (OSError, subprocess.SubprocessError) as exc:
            raise self._failure(" ".join(str(exc).split()), paths) from exc
        deadline = self._clock() + self.start_timeout
        while True:
            state = read_state(paths.state)
            if state is not None and state.token == token:
                if state.status == "ready" and self._answers(state.url):
                    return state
                if state.status == "failed":
                    self._await_exit(pid)  # it writes why, then exits: report once it is gone
                    raise self._failure(state.error, paths)
            if not pid_alive(pid):
                state = read_state(paths.state)
                if state is not None and state.token == token and state.status == "failed":
                    raise self._failure(state.error, paths)
                raise self._failure(f"it exited while starting ({_last_line(paths.log) or 'no log'})", paths)
            if self._clock() >= deadline:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)
                remove_state(paths.state, token)
                raise self._failure(f"it did not answer within {self.start_timeout:.0f} s", paths)
            self._sleep(0.05)


def _terminate(state_path: Path, timeout: float, sleep: Callable[[float], None],
               clock: Callable[[], float]) -> bool:
    state = read_state(state_path)
    if state is None or not pid_alive(state.pid, state.pid_start):
        return True
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(state.pid, signal.SIGTERM)
    deadline = clock() + timeout
    while pid_alive(state.pid, state.pid_start):
        if clock() >= deadline:
            return False
        sleep(0.05)
    return True


def shutdown_servers(models_dir: Path | None = None, timeout: float = 30.0) -> bool:
    """Stop every shared server recorded under ``models_dir`` (default: the data directory's)
    now; True when all of them are gone."""
    root = Path(models_dir) if models_dir else data_dir(create=False) / "models"
    done = True
    for state_path in sorted((root / "servers").glob("*/server.json")):
        done = _terminate(state_path, timeout, time.sleep, time.monotonic) and done
    return done


# -- this process's handles -------------------------------------------------------------------------

_servers: dict[tuple[object, ...], LlamaServer] = {}
_servers_lock = threading.Lock()


def shared_server(model_path: Path, *, n_ctx: int, n_threads: int | None = None, n_parallel: int = 1,
                  models_dir: Path, engine: str = "llama", policy: IdlePolicy | None = None) -> LlamaServer:
    """This process's one handle per model, context size and data directory."""
    key = (str(Path(model_path).resolve()), n_ctx, n_parallel, str(Path(models_dir).resolve()), engine, policy)
    with _servers_lock:
        server = _servers.get(key)
        if server is None:
            server = _servers[key] = LlamaServer(Path(model_path), n_ctx=n_ctx, n_threads=n_threads,
                                                 n_parallel=n_parallel, models_dir=models_dir,
                                                 engine=engine, policy=policy)
        return server


def server_pids() -> set[int]:
    """The pids of the shared servers this process's handles use (found or started)."""
    with _servers_lock:
        servers = list(_servers.values())
    return {pid for pid in (server.pid for server in servers) if pid is not None}


def stop_all_servers() -> None:
    """Drop this process's leases (run at exit); servers other processes use keep running."""
    with _servers_lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all_servers)
