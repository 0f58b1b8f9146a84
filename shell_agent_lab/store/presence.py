"""Which processes have a session open, and which turns were cut off by a killed process.

Both facts live in the session's directory as small files held under POSIX record locks
(``fcntl.lockf``). The kernel holds the lock while it has the session open or runs a turn; the
operating system drops it when that process ends, SIGKILL included. So:

* ``open.lock`` — every process that has the session open holds a shared lock on it. A write
  lock that cannot be taken means another process has the session open (:func:`open_elsewhere`);
  deleting the session is then refused.
* ``turns/<pid>-<token>.json`` — written and write-locked when a turn starts, removed when it
  ends. A marker whose lock can be taken belongs to a process that died mid-turn
  (:func:`dead_turns`); the store then records that turn as interrupted.

POSIX locks belong to the process, and closing *any* descriptor of a file drops all of the
process's locks on it; so each process keeps one descriptor per file, shared by every holder
in it (reference counted), and never probes a file it holds itself.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["SessionHold", "TurnMarker", "DeadTurn", "hold", "open_elsewhere", "begin_turn", "dead_turns"]

OPEN_FILE = "open.lock"
TURNS_DIR = "turns"

_lock = threading.Lock()
_held: dict[str, list[int]] = {}        # path -> [fd, holders in this process]
_markers: set[str] = set()              # turn markers this process wrote


def _busy(exc: OSError) -> bool:
    return exc.errno in (errno.EACCES, errno.EAGAIN)


class SessionHold:
    """This process has a session open until :meth:`release` (idempotent)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._released = False

    def release(self) -> None:
        key = str(self.path)
        with _lock:
            if self._released:
                return
            self._released = True
            entry = _held.get(key)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] > 0:
                return
            del _held[key]
        os.close(entry[0])      # closing drops the lock


def hold(session_dir: Path) -> SessionHold:
    """Take a shared lock on ``session_dir/open.lock`` for this process (waits out a probe)."""
    path = Path(session_dir) / OPEN_FILE
    key = str(path)
    with _lock:
        entry = _held.get(key)
        if entry is not None:
            entry[1] += 1
            return SessionHold(path)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH)
        except OSError:
            os.close(fd)
            raise
        _held[key] = [fd, 1]
    return SessionHold(path)


def open_elsewhere(session_dir: Path) -> bool:
    """Whether another process holds ``session_dir`` open (this process's own holds do not count)."""
    path = Path(session_dir) / OPEN_FILE
    key = str(path)
    with _lock:
        entry = _held.get(key)
        if entry is not None:
            # ours too: upgrade our descriptor's lock and step back down (atomic for POSIX locks)
            try:
                fcntl.lockf(entry[0], fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if _busy(exc):
                    return True
                raise
            fcntl.lockf(entry[0], fcntl.LOCK_SH)
            return False
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if _busy(exc):
                return True
            raise
        finally:
            os.close(fd)
        return False


class TurnMarker:
    """A turn in progress; :meth:`end` removes the marker (idempotent)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def end(self) -> None:
        with _lock:
            fd, self._fd = self._fd, None
            _markers.discard(str(self.path))
        if fd is None:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(fd)


def begin_turn(session_dir: Path, info: dict[str, Any]) -> TurnMarker:
    """Write and lock a marker for a turn of this process (``info`` is kept in it as JSON)."""
    folder = Path(session_dir) / TURNS_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"{os.getpid()}-{secrets.token_hex(4)}.json"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX)
        os.write(fd, json.dumps(info).encode())
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    with _lock:
        _markers.add(str(path))
    return TurnMarker(path, fd)


@dataclass
class DeadTurn:
    """The marker of a turn whose process ended before the turn did; held locked until
    :meth:`discard` (so two processes never record the same turn twice)."""

    path: Path
    info: dict[str, Any]
    fd: int

    def discard(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self.fd)

    def keep(self) -> None:
        """Leave the marker for a later look (recording the turn failed)."""
        os.close(self.fd)


def dead_turns(session_dir: Path) -> list[DeadTurn]:
    """The markers under ``session_dir`` whose process is gone, each locked for the caller."""
    folder = Path(session_dir) / TURNS_DIR
    try:
        names = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except (FileNotFoundError, NotADirectoryError):
        return []
    found: list[DeadTurn] = []
    for path in names:
        with _lock:
            if str(path) in _markers:
                continue
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if _busy(exc):
                continue            # its turn is still running in another process
            raise
        if not path.exists():       # another process recorded it and removed it meanwhile
            os.close(fd)
            continue
        try:
            info = json.loads(os.pread(fd, 1 << 16, 0) or b"{}")
        except ValueError:
            info = {}
        found.append(DeadTurn(path, info if isinstance(info, dict) else {}, fd))
    return found
