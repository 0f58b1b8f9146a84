"""The kernel's side of the sandbox: start it, ship frames, run programs, and end it when it
stops answering.

One sandbox process per kernel, started on first use (or ahead of it, by :meth:`warm`), is
reused by every program; a lock keeps one request on the channel at a time. The process is
started through ``subprocess`` (fork and exec at once, so the kernel's threads cannot leave a
lock held in it) with only its end of the socket pair: none of the kernel's descriptors, files
or sockets exist inside. When a reply does not come within the program's time limit and a
margin, the whole sandbox is killed (its process group) and the next program starts a new one.
"""
from __future__ import annotations

import logging
import os
import queue
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping
from typing import Any, Callable

from . import _channel, _launch
from ._frames import Held, hold, pack

__all__ = ["SandboxError", "ProgramSandbox", "RUNTIME", "HELPERS"]

#: the modules a program runs with, imported inside by name (the sandbox imports none of them
#: here: they belong to the layer above, which names them)
RUNTIME = "shell_agent_lab.answers._program_outcome"
HELPERS = "shell_agent_lab.answers.least_squares"

log = logging.getLogger(__name__)

#: seconds the sandbox may take to start (loading numpy, pandas and scipy on a busy machine)
_START_SECONDS = 60.0
#: seconds past a program's own limit before the sandbox counts as stuck
_MARGIN = 5.0
#: what the sandbox must refuse before it is used (each must raise PermissionError inside)
_PROBES = {
    "a socket": "import socket\nsocket.socket()",
    "a new process": "import os\nos.fork()",
    "a file write": "open('/dev/shm-probe', 'w')",
}


class SandboxError(Exception):
    """The sandbox could not be started or stopped answering (one line, for the user)."""


class ProgramSandbox:
    """A sandbox process and the frames it holds."""

    def __init__(self, *, command: Callable[[int], list[str]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._command = command
        self._clock = clock
        self._lock = threading.RLock()
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._held: dict[str, Held] = {}
        self.starts = 0
        self.shipped = 0

    # -- life --------------------------------------------------------------------------
    def warm(self) -> None:
        """Start the sandbox now if it is not running (from a thread, while the model writes)."""
        try:
            with self._lock:
                self._ensure()
        except SandboxError as exc:
            log.info("the program sandbox did not start: %s", exc)

    def _ensure_started(self) -> None:
        """Start the sandbox (raising :class:`SandboxError` when it cannot be)."""
        with self._lock:
            self._ensure()

    def close(self) -> None:
        with self._lock:
            self._stop()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def _ensure(self) -> socket.socket:
        if self._sock is not None and self._process is not None and self._process.poll() is None:
            return self._sock
        self._stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            if self._command is not None:
                argv = self._command(theirs.fileno())
            else:
                bwrap = _launch.bwrap_path()
                if not bwrap:
                    raise SandboxError("bubblewrap (bwrap) is not installed")
                argv = _launch.command(theirs.fileno(), bwrap=bwrap)
            process = _spawn(argv, theirs.fileno())
        except OSError as exc:
            ours.close()
            raise SandboxError(f"the sandbox could not be started: {exc}") from None
        finally:
            theirs.close()
        threading.Thread(target=_drain, args=(process,), name="sandbox-stderr", daemon=True).start()
        self._process, self._sock = process, ours
        self.starts += 1
        try:
            ready, _ = _channel.receive(ours, deadline=self._clock() + _START_SECONDS)
        except (_channel.ChannelClosed, _channel.ChannelTimeout) as exc:
            self._stop()
            raise SandboxError(f"the sandbox did not start ({exc})") from None
        if ready.get("op") != "ready":
            self._stop()
            raise SandboxError("the sandbox started wrongly")
        for what, source in _PROBES.items():
            probe = self._request({"op": "run", "source": source, "frames": {}, "timeout": 10,
                                   "runtime": RUNTIME, "helpers_module": HELPERS}, 30.0)
            if "PermissionError" not in str(probe.get("error")):
                self._stop()
                raise SandboxError(f"the sandbox did not refuse {what}; programs are not run in it")
        return ours

    def _stop(self) -> None:
        process, sock = self._process, self._sock
        self._process = self._sock = None
        self._held.clear()
        if sock is not None:
            sock.close()
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                process.kill()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                log.warning("the sandbox process %s did not end", process.pid)

    # -- requests ----------------------------------------------------------------------
    def _request(self, message: dict[str, Any], seconds: float, fds: list[int] | tuple[int, ...] = ()
                 ) -> dict[str, Any]:
        sock = self._sock
        if sock is None:
            raise SandboxError("the sandbox is not running")
        try:
            _channel.send(sock, message, fds)
            reply, extra = _channel.receive(sock, deadline=self._clock() + seconds, max_bytes=8 << 20)
        except _channel.ChannelTimeout:
            self._stop()
            raise SandboxError("the sandbox stopped answering and was ended") from None
        except (_channel.ChannelClosed, OSError) as exc:
            self._stop()
            raise SandboxError(f"the sandbox ended unexpectedly ({exc})") from None
        for fd in extra:                       # the sandbox never sends descriptors: dropped
            os.close(fd)
        return reply

    def _ship(self, frames: Mapping[str, Any]) -> dict[str, str]:
        """Each frame's key in the sandbox, shipping those it does not hold as they are now."""
        keys: dict[str, str] = {}
        for name, frame in frames.items():
            held = self._held.get(name)
            if held is not None and held.matches(frame):
                keys[name] = held.key
                continue
            fresh = hold(frame)
            shipment = pack(frame, fresh.key)
            try:
                reply = self._request(shipment.message, _START_SECONDS, [shipment.fd])
            finally:
                os.close(shipment.fd)
            self.shipped += 1
            if reply.get("op") != "loaded":
                raise SandboxError(f"the frame {name!r} could not be loaded in the sandbox: {reply.get('error')}")
            if held is not None:
                self._request({"op": "forget", "keys": [held.key]}, 30.0)
            self._held[name] = fresh
            keys[name] = fresh.key
        return keys

    def run(self, source: str, frames: Mapping[str, Any], *, helpers: Mapping[str, str] | None = None,
            timeout: float = 20.0, max_output: int = 20000, memory_mb: int = 4096,
            runtime: str = RUNTIME, helpers_module: str = HELPERS) -> dict[str, Any]:
        """Run ``source`` with ``frames`` bound to their names; the result as plain data
        (``ok``, ``stdout``, ``error``, ``values``, ``warnings``, ``timed_out``, ``seconds``).
        ``runtime`` names the module that words the result, ``helpers_module`` the one whose
        ``STAND_INS_BY_NAME`` the ``helpers`` are taken from (both of this package, imported
        inside). Raises :class:`SandboxError` when the sandbox itself failed."""
        with self._lock:
            self._ensure()
            keys = self._ship(frames)
            reply = self._request({"op": "run", "source": source, "frames": keys, "helpers": dict(helpers or {}),
                                   "timeout": timeout, "max_output": max_output, "memory_mb": memory_mb,
                                   "runtime": runtime, "helpers_module": helpers_module},
                                  timeout + _MARGIN)
        if reply.get("op") != "result":
            raise SandboxError(f"the sandbox could not run the program: {reply.get('error')}")
        return reply


_SPAWNS: "queue.Queue[tuple[list[str], int, list[Any], threading.Event]]" = queue.Queue()
_SPAWNER: threading.Thread | None = None
_SPAWNER_LOCK = threading.Lock()


def _spawn(argv: list[str], fd: int) -> subprocess.Popen[bytes]:
    """Start the sandbox from a thread that lives as long as the kernel. bubblewrap's
    ``--die-with-parent`` is the kernel's parent-death signal, which Linux sends when the
    *thread* that started the process ends: started from a passing thread (a warm-up), the
    sandbox would be killed as soon as that thread returned."""
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None or not _SPAWNER.is_alive():
            _SPAWNER = threading.Thread(target=_spawner, name="sandbox-spawner", daemon=True)
            _SPAWNER.start()
    box: list[Any] = []
    done = threading.Event()
    _SPAWNS.put((argv, fd, box, done))
    done.wait()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def _spawner() -> None:
    while True:
        argv, fd, box, done = _SPAWNS.get()
        try:
            box.append(subprocess.Popen(argv, pass_fds=[fd], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, start_new_session=True))
        except BaseException as exc:  # handed to the caller, which says it in one line
            box.append(exc)
        done.set()


def _drain(process: subprocess.Popen[bytes]) -> None:
    """The sandbox's standard error, into the log (bounded lines), until it closes."""
    stream = process.stderr
    if stream is None:
        return
    for n, line in enumerate(stream):
        if n < 200:
            log.info("sandbox: %s", line.decode(errors="replace").rstrip()[:500])
