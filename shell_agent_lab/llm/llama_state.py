"""The records of a shared llama.cpp server in the data directory: who runs it, who uses it.

Layout under ``<data dir>/models/``::

    servers.lock                    flock, held to start, replace or retire a server
    servers/<key>/server.json       the server: pid, port, model, n_ctx, n_parallel, version, status
    servers/<key>/server.log        the daemon's log (0600): starts, stops, slot saves; no prompts
    servers/<key>/clients/<pid>     one lease per process using the server (holds its start time)
    kv/<key>.slot                   slot 0's KV cache as llama.cpp saved it, restored on start

``<key>`` names the model's bytes and the context: ``<fingerprint>-ctx<n_ctx>-par<n_parallel>``,
so every kernel of a data directory that runs the same model with the same context size shares
one server. The fingerprint is the sha256 of the file's size and its first and last MiB (cheap
for a 1 GB model, and it tells any two GGUF files apart: the header holds the metadata).

A process is identified by its pid *and* its start time (``/proc/<pid>/stat``), so a pid reused
by an unrelated process is not mistaken for a server or a client; a zombie counts as dead.
Nothing here starts processes or speaks HTTP.
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

__all__ = [
    "STATE_FORMAT", "ModelSpec", "ServerState", "ServerPaths", "fingerprint", "read_state",
    "write_state", "remove_state", "process_start", "pid_alive", "take_lease", "drop_lease",
    "live_leases", "exclusive",
]

#: bumped when server.json changes shape; a state of another format is stale
STATE_FORMAT = 1
_EDGE = 1024 * 1024


def fingerprint(path: Path) -> str:
    """sha256 over the file's size, first MiB and last MiB (hex)."""
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode() + b"\0")
    with open(path, "rb") as handle:
        digest.update(handle.read(_EDGE))
        if size > _EDGE:
            handle.seek(max(_EDGE, size - _EDGE))
            digest.update(handle.read(_EDGE))
    return digest.hexdigest()


@dataclass(frozen=True)
class ModelSpec:
    """What a client asks for: which model, with which context size and parallel slots."""

    path: str
    fingerprint: str
    n_ctx: int
    n_parallel: int = 1

    @classmethod
    def of_file(cls, path: Path, *, n_ctx: int, n_parallel: int = 1) -> ModelSpec:
        resolved = Path(path).resolve()
        return cls(str(resolved), fingerprint(resolved), n_ctx, n_parallel)

    @property
    def key(self) -> str:
        return f"{self.fingerprint[:16]}-ctx{self.n_ctx}-par{self.n_parallel}"


@dataclass(frozen=True)
class ServerState:
    """The content of ``server.json``. ``status``: starting | ready | failed."""

    pid: int
    token: str
    status: str
    model: str
    fingerprint: str
    n_ctx: int
    n_parallel: int
    version: str
    engine: str = "llama"
    pid_start: str | None = None
    port: int | None = None
    error: str = ""
    format: int = STATE_FORMAT

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def serves(self, spec: ModelSpec, version: str, engine: str) -> bool:
        """True when this server runs ``spec``'s model bytes and sizes, from this version."""
        return (self.format == STATE_FORMAT and self.status == "ready" and self.port is not None
                and self.fingerprint == spec.fingerprint and self.n_ctx == spec.n_ctx
                and self.n_parallel == spec.n_parallel and self.version == version
                and self.engine == engine)


@dataclass(frozen=True)
class ServerPaths:
    """Where the records of one server (``key``) live under a models directory."""

    root: Path
    key: str

    @property
    def lock(self) -> Path:
        return self.root / "servers.lock"

    @property
    def dir(self) -> Path:
        return self.root / "servers" / self.key

    @property
    def state(self) -> Path:
        return self.dir / "server.json"

    @property
    def log(self) -> Path:
        return self.dir / "server.log"

    @property
    def clients(self) -> Path:
        return self.dir / "clients"

    @property
    def kv_dir(self) -> Path:
        return self.root / "kv"

    @property
    def kv_name(self) -> str:
        """The saved slot's file name inside :attr:`kv_dir` (llama.cpp takes a bare name)."""
        return f"{self.key}.slot"


# -- server.json ---------------------------------------------------------------------------------

def read_state(path: Path) -> ServerState | None:
    """The recorded server, or None when there is none or the file is not a state we can read."""
    try:
        raw = json.loads(path.read_text("utf-8"))
        names = {f.name for f in dataclasses.fields(ServerState)}
        return ServerState(**{k: v for k, v in raw.items() if k in names})
    except (OSError, ValueError, TypeError):
        return None


def write_state(path: Path, state: ServerState) -> None:
    """Replace ``path`` atomically with ``state`` (0600)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(dataclasses.asdict(state), out)
    os.replace(tmp, path)


def remove_state(path: Path, token: str | None = None) -> bool:
    """Remove the state file (only when it still carries ``token``, if given)."""
    if token is not None:
        current = read_state(path)
        if current is None or current.token != token:
            return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        return True
    return False


# -- processes -----------------------------------------------------------------------------------

def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), or None when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None  # field 22 of stat(5), after pid and comm


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:][:1] in ("Z", "X")


def pid_alive(pid: int, start: str | None = None) -> bool:
    """True when ``pid`` runs (not a zombie) and, when ``start`` is given, started then."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: alive, but not ours to judge further
    if _zombie(pid):
        return False
    if start is not None:
        now = process_start(pid)
        return now is None or now == start
    return True


# -- leases --------------------------------------------------------------------------------------

def take_lease(clients: Path, pid: int | None = None) -> Path:
    """Record ``pid`` (this process by default) as a client of the server."""
    pid = os.getpid() if pid is None else pid
    clients.mkdir(mode=0o700, parents=True, exist_ok=True)
    lease = clients / str(pid)
    fd = os.open(lease, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(process_start(pid) or "")
    return lease


def drop_lease(clients: Path, pid: int | None = None) -> None:
    with contextlib.suppress(FileNotFoundError):
        (clients / str(os.getpid() if pid is None else pid)).unlink()


def live_leases(clients: Path, alive: Callable[[int, str | None], bool] = pid_alive) -> list[int]:
    """Pids holding a lease whose process still runs; the leases of dead processes are removed."""
    found: list[int] = []
    try:
        entries = list(clients.iterdir())
    except FileNotFoundError:
        return found
    for lease in entries:
        if not lease.name.isdigit():
            continue
        try:
            start = lease.read_text().strip() or None
        except FileNotFoundError:
            continue
        if alive(int(lease.name), start):
            found.append(int(lease.name))
        else:
            with contextlib.suppress(FileNotFoundError):
                lease.unlink()
    return sorted(found)


# -- the lock ------------------------------------------------------------------------------------

@contextlib.contextmanager
def exclusive(path: Path, timeout: float, *, sleep: Callable[[float], None] = time.sleep,
              clock: Callable[[], float] = time.monotonic) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path``; TimeoutError after ``timeout`` seconds of waiting.

    The kernel releases the lock when the holder dies, so a crashed starter never wedges others.
    """
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = clock() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if clock() >= deadline:
                    raise TimeoutError(f"{path} stayed locked for {timeout:.0f} s") from None
                sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
