"""The process inside the sandbox: it holds the frames the kernel shipped, and runs each
program in a process of its own, forked from it, under resource limits and a system-call filter.

It is started by :mod:`._launch` inside bubblewrap with the standard library, numpy, pandas and
scipy loaded, and stays single-threaded (one BLAS thread), so forking it is safe. One program
at a time: ``run`` forks a child that closes everything it inherited but the pipe its result
goes back on, caps its memory, CPU time and file sizes, installs the filter, runs the program
on shallow copies of the frames and writes one JSON object. The parent reads that object within
the time limit, kills the child when the limit passes, and says how the child ended.
"""
from __future__ import annotations

import ctypes
import json
import mmap
import os
import pickle
import resource
import select
import signal
import socket
import sys
import time
import warnings
from typing import Any

from shell_agent_lab.sandbox import _channel

_PR_SET_DUMPABLE = 4
#: seconds a child is given past its time limit to stop by itself (the limit raised inside)
_GRACE = 1.0
#: bytes of result a child may write (its printed text is capped before that)
_MAX_RESULT = 4 << 20
_FD_LIMIT = 256


class _Stopped(BaseException):
    """The time limit, raised in the program by the interval timer."""


def main(fd: int) -> None:
    sock = socket.socket(fileno=fd)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)   # no other process of the sandbox may read or trace it
    import numpy as np  # noqa: F401 - loaded once here, shared by every child
    import pandas as pd  # noqa: F401
    try:
        import scipy.stats  # noqa: F401
    except Exception:
        pass
    from shell_agent_lab.sandbox import _seccomp
    try:
        program_filter: bytes | None = _seccomp.compile_filter()     # built once, installed per program
    except Exception:
        program_filter = None          # each program's process then fails closed (exit 71)
    frames: dict[str, Any] = {}
    _channel.send(sock, {"op": "ready", "pid": os.getpid(), "threads": len(os.listdir("/proc/self/task"))})
    while True:
        try:
            message, fds = _channel.receive(sock)
        except _channel.ChannelClosed:
            return
        op = message.get("op")
        try:
            if op == "frame":
                _load(frames, message, fds)
                reply: dict[str, Any] = {"op": "loaded", "key": message["key"]}
            elif op == "forget":
                for key in message.get("keys", []):
                    frames.pop(key, None)
                reply = {"op": "forgot"}
            elif op == "run":
                reply = _run(sock, frames, message, program_filter)
            elif op == "exit":
                return
            else:
                reply = {"op": "error", "error": f"unknown request {op!r}"}
        except Exception as exc:  # a request that failed is answered, the process goes on
            reply = {"op": "error", "error": f"{type(exc).__name__}: {exc}"}
        finally:
            for extra in fds:
                try:
                    os.close(extra)
                except OSError:
                    pass
        _channel.send(sock, reply)


def _load(frames: dict[str, Any], message: dict[str, Any], fds: list[int]) -> None:
    """A frame from its memory file: the pickled structure first, then its buffers, mapped
    read-only and used in place (numpy arrays over the shared pages: no copy)."""
    if len(fds) != 1:
        raise ValueError("a frame comes with one memory file")
    size = int(message["size"])
    view = memoryview(mmap.mmap(fds[0], size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)) if size else memoryview(b"")
    head = int(message["head"])
    buffers = [view[int(start):int(start) + int(length)] for start, length in message["buffers"]]
    frames[message["key"]] = pickle.loads(view[:head], buffers=buffers)


def _run(sock: socket.socket, frames: dict[str, Any], message: dict[str, Any],
         program_filter: bytes | None) -> dict[str, Any]:
    timeout = float(message.get("timeout", 20.0))
    read_end, write_end = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:                                  # the program's process: never returns
        code = 70
        try:
            os.close(read_end)
            _child(sock, frames, message, write_end, program_filter)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    data, finished = _read_result(read_end, started + timeout + _GRACE)
    os.close(read_end)
    if not finished:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    seconds = round(time.monotonic() - started, 3)
    if not finished:
        return {"op": "result", "ok": False, "timed_out": True, "seconds": seconds,
                "error": f"stopped after {timeout:g} s (time limit): compute less, or use vectorised pandas "
                         "operations instead of Python loops"}
    try:
        result = json.loads(data) if data else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        return {"op": "result", "ok": False, "seconds": seconds, "error": _ended(status)}
    result.update(op="result", seconds=seconds)
    return result


def _read_result(fd: int, deadline: float) -> tuple[bytes, bool]:
    parts: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return b"".join(parts), False
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(parts), True
        size += len(chunk)
        if size > _MAX_RESULT:
            return b"", True
        parts.append(chunk)


def _ended(status: int) -> str:
    """One line for a child that left no result."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGXCPU:
            return "stopped: it used more CPU time than its limit allows"
        if number in (signal.SIGKILL,):
            return "stopped: it was ended (most likely it took more memory than a program may use)"
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        return f"the program crashed ({name}); the notebook is unaffected: compute it another way"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    if code == 71:
        return "the program could not be restricted, so it was not run"
    return f"the program ended without a result (exit status {code})"


def _child(sock: socket.socket, frames: dict[str, Any], message: dict[str, Any], out: int,
           program_filter: bytes | None) -> None:
    """Close, limit, filter, then run the program and write its result to ``out``."""
    sock.close()
    null = os.open("/dev/null", os.O_RDWR)
    for std in (0, 1, 2):
        os.dup2(null, std)
    os.closerange(3, out)
    os.closerange(out + 1, 1 << 16)
    timeout = float(message.get("timeout", 20.0))
    try:
        _limit(int(message.get("memory_mb", 4096)), timeout)
        from shell_agent_lab.sandbox import _seccomp
        if program_filter is None:
            raise RuntimeError("no system-call filter")
        _seccomp.install(program_filter)
    except Exception:
        os._exit(71)
    result = _execute(frames, message, timeout)
    data = json.dumps(result, allow_nan=False, default=str).encode()
    view = memoryview(data)
    while view:
        written = os.write(out, view)
        view = view[written:]


def _limit(memory_mb: int, timeout: float) -> None:
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    mapped = int(fields.get("VmSize", "0 kB").split()[0]) * 1024
    cap = mapped + memory_mb * (1 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    cpu = int(timeout) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (_FD_LIMIT, _FD_LIMIT))


def _module(name: str) -> Any:
    """A module of this package the caller named (the program's runtime, its stand-ins)."""
    import importlib

    if not name.startswith("shell_agent_lab."):
        raise ValueError(f"not a module of this package: {name!r}")
    return importlib.import_module(name)


def _execute(frames: dict[str, Any], message: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Run the program. The caller names its runtime: a module with ``PROGRAM_FILENAME``,
    ``Capture`` (its standard output), ``describe``, ``error_line``, ``small_values`` and ``warning_lines``."""
    outcome = _module(message["runtime"])
    given = {name: frames[key].copy(deep=False) for name, key in message.get("frames", {}).items()}
    scope: dict[str, Any] = {"__name__": "__program__", **given}
    helpers = message.get("helpers") or {}
    if helpers:
        offered = _module(message["helpers_module"]).STAND_INS_BY_NAME
        scope.update({alias: offered[name] for alias, name in helpers.items() if name in offered})
    capture = outcome.Capture(int(message.get("max_output", 20000)))
    sys.stdout = sys.stderr = capture
    error, timed_out, line = None, False, None

    def stop(signum: int, frame: Any) -> None:
        raise _Stopped

    signal.signal(signal.SIGALRM, stop)
    recorded: list[warnings.WarningMessage] = []
    try:
        code = compile(message["source"], outcome.PROGRAM_FILENAME, "exec")
    except (SyntaxError, ValueError, RecursionError) as exc:
        return {"ok": False, "stdout": "", "error": f"the program could not be compiled: {exc}"}
    with warnings.catch_warnings(record=True) as recorded:
        warnings.simplefilter("default")
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            exec(code, scope)  # noqa: S102 - inside the sandbox, in a process of its own
        except _Stopped:
            timed_out = True
            error = (f"stopped after {timeout:g} s (time limit): compute less, or use vectorised pandas "
                     "operations instead of Python loops")
        except BaseException as exc:  # the program's own error: one line for the model
            error = outcome.describe(exc, given, message["source"], scope)
            line = outcome.error_line(exc)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    # a program that failed still hands back what it bound before the failing line
    values = outcome.small_values(scope, set(given) | set(helpers))
    return {"ok": error is None, "stdout": capture.text(), "error": error, "values": values,
            "warnings": outcome.warning_lines(recorded), "timed_out": timed_out, "line": line}


if __name__ == "__main__":
    main(int(sys.argv[1]))
