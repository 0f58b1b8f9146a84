"""SQLite connection handling: WAL, busy timeout, one connection per thread, error mapping."""
from __future__ import annotations

import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from . import _schema
from .errors import StoreCorruptError, StoreError

DB_NAME = "shell_agent_lab.sqlite3"
BUSY_TIMEOUT_S = 30.0
CLOSE_WAIT_S = 10.0


def _corrupt(path: Path, exc: BaseException) -> StoreCorruptError:
    return StoreCorruptError(
        f"{path} cannot be read as a shell-agent-lab database ({exc}); it was left untouched — "
        f"move it aside (for example rename it to {path.name}.broken) to start a fresh store, "
        "or restore it from a backup"
    )


@contextmanager
def translate_errors(path: Path) -> Iterator[None]:
    """Map sqlite3 failures to store errors that name the file and the way out."""
    try:
        yield
    except StoreError:
        raise
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise StoreError(
                f"{path} stayed locked by another process for {BUSY_TIMEOUT_S:.0f}s; try again"
            ) from exc
        if "disk is full" in text or "disk I/O" in text:
            raise StoreError(
                f"could not write to the data directory {path.parent} ({text}): the disk is full, a file "
                "size limit was reached or the files are not writable; free some space (or check its "
                "permissions) and try again — what was saved before is kept"
            ) from exc
        if "unable to open" in text or "readonly" in text:
            raise StoreError(f"cannot open {path} for writing ({text}); check its permissions") from exc
        if "malformed" in text or "not a database" in text:
            raise _corrupt(path, exc) from exc
        raise
    except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise
    except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
        raise _corrupt(path, exc) from exc


def _begin_immediate(conn: sqlite3.Connection) -> None:
    """``BEGIN IMMEDIATE``, waiting for another process's write in short steps.

    SQLite's own busy handler sleeps 1, 2, 5, 10 … 100 ms between tries, so a write queued behind
    another kernel's (which holds the lock for well under a millisecond) often waits tens of
    milliseconds for nothing. Here the wait is polled every 0.2–2 ms, up to the same timeout.
    """
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        _until_free(lambda: conn.execute("BEGIN IMMEDIATE"), most=0.002)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")


def _until_free(step, most: float) -> object:
    """``step()`` again after each "locked"/"busy" failure, pausing 0.2 ms doubling up to ``most``
    seconds, until it succeeds or ``BUSY_TIMEOUT_S`` has passed (then the last failure is raised)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    pause = 0.0002
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, most)


def _switch_to_wal(conn: sqlite3.Connection) -> str:
    """``PRAGMA journal_mode = WAL``. On a fresh file another process may be switching it or
    writing its schema at the same moment; SQLite then answers "locked" at once, without its busy
    handler (the switch needs the file to itself), so the switch is tried again until it is free."""
    return str(_until_free(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0], most=0.05))


class Database:
    """One SQLite file shared by threads (a connection each) and processes (WAL + locks)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        # transactions in flight on any thread; close() waits for them, because closing a
        # connection another thread is using can crash the interpreter
        self._active = 0
        self._idle = threading.Condition(self._lock)
        self.rollback_hooks: list = []
        self._write_lock = threading.Lock()  # called after any write transaction rolls back
        if path.exists() and not os.access(path, os.R_OK | os.W_OK):
            raise StoreError(f"{path} is not readable and writable by this user; fix its permissions")
        if not path.exists():
            fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
            os.close(fd)
        conn = self.connection()
        with translate_errors(path):
            try:
                _schema.migrate(conn)
            except RuntimeError as exc:
                raise StoreError(f"{path}: {exc}") from exc
        self._tighten_permissions()

    def _tighten_permissions(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(self.path) + suffix)
            try:
                if p.exists() and (p.stat().st_mode & 0o777) != 0o600:
                    os.chmod(p, 0o600)
            except OSError:  # pragma: no cover - owned by someone else
                pass

    def _open(self) -> sqlite3.Connection:
        with translate_errors(self.path):
            conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                mode = _switch_to_wal(conn)
                if mode.lower() != "wal":
                    raise StoreError(f"{self.path}: could not switch to WAL mode (got {mode!r})")
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("PRAGMA foreign_keys = ON")
            except BaseException:
                conn.close()
                raise
        return conn

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        if self._closed:
            raise StoreError("the store is closed; open it again with Store.open()")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    @contextmanager
    def _in_use(self) -> Iterator[None]:
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed; open it again with Store.open()")
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    self._idle.notify_all()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction (see :meth:`_write`)."""
        with self._in_use(), self._write() as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent snapshot for several statements."""
        with self._in_use(), self._read() as conn:
            yield conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on error.

        A ``write`` opened while this thread already holds one joins it: the outermost block
        commits or rolls back everything.
        """
        conn = self.connection()
        if getattr(self._local, "depth", 0) > 0:
            self._local.depth += 1
            try:
                yield conn
            finally:
                self._local.depth -= 1
            return
        # threads of this process queue here instead of in SQLite's sleeping busy handler
        if not self._write_lock.acquire(timeout=BUSY_TIMEOUT_S):
            raise StoreError(
                f"another thread held the write lock on {self.path} for {BUSY_TIMEOUT_S:.0f}s; try again"
            )
        try:
            with translate_errors(self.path):
                _begin_immediate(conn)
                self._local.depth = 1
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    # the block or the COMMIT failed: undo, and let caches drop what they saw
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    for hook in self.rollback_hooks:
                        hook()
                    raise
                finally:
                    self._local.depth = 0
        finally:
            self._write_lock.release()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self.connection()
        with translate_errors(self.path):
            if conn.in_transaction:  # nested inside a write on this thread
                yield conn
                return
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            drained = self._idle.wait_for(lambda: self._active == 0, timeout=CLOSE_WAIT_S)
            conns, self._connections = self._connections, []
        if not drained:
            # a transaction is still running on another thread: leave its connection to the
            # garbage collector rather than pull it out from under that thread
            mine = getattr(self._local, "conn", None)
            conns = [mine] if mine is not None else []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:  # pragma: no cover
                pass
        self._local = threading.local()
