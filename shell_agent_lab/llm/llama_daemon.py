"""The shared llama.cpp server's own process: ``python -m shell_agent_lab.llm.llama_daemon``.

Started detached by the first client that needs it (:mod:`.llama_client`), it

1. records itself in ``server.json`` as *starting* (its pid and start time, the client's token);
2. loads the model (``--engine llama``: xllamacpp; ``--engine fake``: :mod:`.llama_fake`),
   listening on 127.0.0.1 only, and restores slot 0 from ``kv/<key>.slot`` when there is one;
3. records itself as *ready* with its port, or as *failed* with a one-line reason and exits;
4. polls every ``--poll`` seconds: live leases and ``/slots``, folded by :mod:`.llama_policy`,
   which says when to save slot 0 (after a burst of requests) and when to stop;
5. stops when idle, on SIGTERM / SIGINT, or when ``server.json`` names another server.
   Idle, it retires under the data directory's lock (so no client picks it up halfway) and only
   after a fresh look at ``/slots`` shows nothing in flight. On a signal it first removes its
   record (new clients start another server), lets a request in flight finish (at most
   ``--drain-timeout`` seconds), then saves slot 0 and exits.

The log (stderr, which the client points at ``server.log``) has events only — start, load
time, restore, save, stop — never prompts or replies.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from .._version import __version__
from .llama_engine import Engine, EngineConfig, EngineError, start_llama
from .llama_http import Http, HttpFailure, UrllibHttp
from .llama_policy import IdlePolicy, Watch, begin, observe, saved, should_save, should_stop
from .llama_state import (ModelSpec, ServerPaths, ServerState, exclusive, live_leases,
                          process_start, read_state, remove_state, write_state)

__all__ = ["Daemon", "main"]

log = logging.getLogger("shell_agent_lab.llama_daemon")

StartEngine = Callable[[EngineConfig], Engine]
_LOCK_WAIT = 10.0


def _engines() -> dict[str, StartEngine]:
    from .llama_fake import start_fake

    return {"llama": start_llama, "fake": start_fake}


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__


class Daemon:
    """One server's life, from load to exit (the process around it is :func:`main`)."""

    def __init__(self, *, paths: ServerPaths, spec: ModelSpec, n_threads: int, engine: str,
                 token: str, policy: IdlePolicy, start_engine: StartEngine | None = None,
                 http: Http | None = None, clock: Callable[[], float] = time.monotonic,
                 version: str = __version__) -> None:
        self.paths = paths
        self.spec = spec
        self.n_threads = n_threads
        self.engine_name = engine
        self.token = token
        self.policy = policy
        self._start_engine = start_engine or _engines()[engine]
        self._http = http or UrllibHttp()
        self._clock = clock
        self._version = version
        self._stop = threading.Event()
        self._clients: list[int] | None = None
        self.url = ""

    def request_stop(self, *_: Any) -> None:
        """Signal handler: stop after the request in flight (if any)."""
        self._stop.set()

    # -- records ---------------------------------------------------------------------------------
    def _record(self, status: str, *, port: int | None = None, error: str = "") -> None:
        current = read_state(self.paths.state)
        if current is not None and current.token != self.token:
            return  # another server is recorded now: never overwrite it
        write_state(self.paths.state, ServerState(
            pid=os.getpid(), token=self.token, status=status, model=self.spec.path,
            fingerprint=self.spec.fingerprint, n_ctx=self.spec.n_ctx,
            n_parallel=self.spec.n_parallel, version=self._version, engine=self.engine_name,
            pid_start=process_start(os.getpid()), port=port, error=error))

    def _owns_record(self) -> bool:
        current = read_state(self.paths.state)
        return current is not None and current.token == self.token

    # -- the server ------------------------------------------------------------------------------
    def _slots(self) -> list[dict[str, Any]] | None:
        try:
            slots = self._http.get(f"{self.url}/slots", timeout=30.0)
        except HttpFailure as exc:
            log.warning("could not read /slots: %s", exc)
            return None
        return slots if isinstance(slots, list) else None

    def _poll(self, watch: Watch) -> tuple[Watch, bool]:
        """One look at the leases and the slots; the bool says whether ``/slots`` answered."""
        slots = self._slots()
        clients = live_leases(self.paths.clients)
        if clients != self._clients:
            log.info("clients: %s", ", ".join(map(str, clients)) or "none")
            self._clients = clients
        return observe(watch, self._clock(), clients=len(clients), slots=slots), slots is not None

    def _restore(self) -> None:
        path = self.paths.kv_dir / self.paths.kv_name
        if not path.is_file():
            return
        started = self._clock()
        try:
            answer = self._http.post(f"{self.url}/slots/0?action=restore",
                                     {"filename": self.paths.kv_name}, timeout=120.0)
        except HttpFailure as exc:
            log.warning("could not restore slot 0 from %s (%s); removing it", path, exc)
            path.unlink(missing_ok=True)
            return
        log.info("restored slot 0 from %s: %s tokens in %.2f s", path, answer.get("n_restored"),
                 self._clock() - started)

    def _save(self) -> None:
        partial = f"{self.paths.kv_name}.{os.getpid()}.partial"  # two servers may save at once
        started = self._clock()
        try:
            answer = self._http.post(f"{self.url}/slots/0?action=save", {"filename": partial},
                                     timeout=120.0)
            os.replace(self.paths.kv_dir / partial, self.paths.kv_dir / self.paths.kv_name)
        except (HttpFailure, OSError) as exc:
            log.warning("could not save slot 0: %s", exc)
            (self.paths.kv_dir / partial).unlink(missing_ok=True)
            return
        log.info("saved slot 0: %s tokens in %.2f s", answer.get("n_saved"), self._clock() - started)

    # -- life --------------------------------------------------------------------------------------
    def run(self) -> int:
        self.paths.kv_dir.mkdir(parents=True, exist_ok=True)
        self._record("starting")
        log.info("starting %s engine: model=%s n_ctx=%d n_parallel=%d threads=%d version=%s",
                 self.engine_name, Path(self.spec.path).name, self.spec.n_ctx, self.spec.n_parallel,
                 self.n_threads, self._version)
        started = self._clock()
        try:
            engine = self._start_engine(EngineConfig(
                model=Path(self.spec.path), n_ctx=self.spec.n_ctx, n_parallel=self.spec.n_parallel,
                n_threads=self.n_threads, slot_dir=self.paths.kv_dir))
        except (EngineError, OSError) as exc:
            log.error("could not start: %s", _one_line(exc))
            self._record("failed", error=_one_line(exc))
            return 1
        self.url = engine.url
        try:
            log.info("listening on %s (loaded in %.1f s; barrier spin %s)", self.url,
                     self._clock() - started, os.environ.get("GOMP_SPINCOUNT") or
                     os.environ.get("OMP_WAIT_POLICY") or "default")
            self._restore()
            watch = begin(self._clock(), self._slots())
            self._record("ready", port=int(self.url.rsplit(":", 1)[1]))
            reason, watch = self._watch(watch)
            self._retire(reason, watch)
        finally:
            engine.close()
            log.info("stopped")
        return 0

    def _watch(self, watch: Watch) -> tuple[str, Watch]:
        """Poll until it is time to stop; says why (idle | signal | replaced) and what it saw."""
        while not self._stop.wait(self.policy.poll):
            watch, _ = self._poll(watch)
            if not watch.busy and not self._owns_record():
                return "replaced", watch
            now = self._clock()
            if should_save(watch, now, self.policy):
                self._save()
                watch = saved(watch)
            if should_stop(watch, now, self.policy) and self._retire_if_idle(watch):
                return "idle", watch
        return "signal", watch

    def _retire_if_idle(self, watch: Watch) -> bool:
        """Under the lock, look again; when still idle, save slot 0 and remove the record."""
        try:
            with exclusive(self.paths.lock, _LOCK_WAIT):
                watch, answered = self._poll(watch)
                if not answered or not should_stop(watch, self._clock(), self.policy):
                    return False
                log.info("idle: no client for %.0f s and no request for %.0f s; stopping",
                         self._clock() - watch.last_client, self._clock() - watch.last_activity)
                if watch.dirty:
                    self._save()
                remove_state(self.paths.state, self.token)
                return True
        except TimeoutError:
            return False  # someone is starting a server: look again at the next poll

    def _retire(self, reason: str, watch: Watch) -> None:
        if reason == "idle":
            return
        if reason == "replaced":
            log.info("another server is recorded for this model now; stopping")
        else:
            log.info("asked to stop")
            try:
                with exclusive(self.paths.lock, _LOCK_WAIT):
                    remove_state(self.paths.state, self.token)
            except TimeoutError:
                remove_state(self.paths.state, self.token)
        watch = self._drain(watch)
        if watch.dirty:
            self._save()

    def _drain(self, watch: Watch) -> Watch:
        """Wait (bounded) until no slot is processing."""
        deadline = self._clock() + self.policy.drain_timeout
        watch, _ = self._poll(watch)
        while watch.busy and self._clock() < deadline:
            time.sleep(min(0.1, self.policy.poll))
            watch, _ = self._poll(watch)
        if watch.busy:
            log.warning("a request was still running after %.0f s; stopping anyway",
                        self.policy.drain_timeout)
        return watch


# -- the process -----------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m shell_agent_lab.llm.llama_daemon",
                                     description="The shared llama.cpp server of a data directory.")
    parser.add_argument("--models-dir", type=Path, required=True)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--fingerprint", required=True)
    parser.add_argument("--n-ctx", type=int, required=True)
    parser.add_argument("--n-parallel", type=int, default=1)
    parser.add_argument("--n-threads", type=int, default=1)
    parser.add_argument("--engine", choices=("llama", "fake"), default="llama")
    parser.add_argument("--token", required=True)
    parser.add_argument("--detach", action="store_true",
                        help="fork, print the server's pid on stdout and return at once")
    defaults = IdlePolicy()
    for name in ("idle_timeout", "grace", "poll", "save_after", "drain_timeout"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=float, default=getattr(defaults, name))
    return parser


def _detach() -> None:
    """Fork: the parent prints the child's pid and exits; the child leaves the session.

    The client's intermediate process is gone at once, so the server is nobody's child: a
    kernel that terminates its children on shutdown does not take the shared server along.
    """
    pid = os.fork()
    if pid:
        sys.stdout.write(f"{pid}\n")
        sys.stdout.flush()
        os._exit(0)
    os.setsid()
    os.dup2(2, 1)  # stdout joins stderr in the log


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.detach:
        _detach()
    os.umask(0o077)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s [%(process)d] %(levelname)s %(message)s")
    spec = ModelSpec(str(args.model), args.fingerprint, args.n_ctx, args.n_parallel)
    daemon = Daemon(paths=ServerPaths(args.models_dir, spec.key), spec=spec,
                    n_threads=args.n_threads, engine=args.engine, token=args.token,
                    policy=IdlePolicy(idle_timeout=args.idle_timeout, grace=args.grace, poll=args.poll,
                                      save_after=args.save_after, drain_timeout=args.drain_timeout))
    signal.signal(signal.SIGTERM, daemon.request_stop)
    signal.signal(signal.SIGINT, daemon.request_stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    return daemon.run()


if __name__ == "__main__":
    sys.exit(main())
