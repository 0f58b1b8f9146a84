"""Real servers for the engine tests: PostgreSQL (Debian's binaries, run as an unprivileged user
when the tests run as root, as CI does) and a local Spark Connect server (PySpark + Java 17)."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PostgresServer", "SparkServer", "free_port", "postgres_bin"]

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@dataclass
class PostgresServer:
    """A throw-away cluster on 127.0.0.1:port with password authentication.

    ``superuser`` / ``super_password`` own everything; ``analyst`` / ``analyst_password`` may
    read the ``warehouse`` database's tables only."""

    port: int = field(default_factory=free_port)
    super_password: str = "Sup3r-s3cret-pw"
    analyst_password: str = "An4lyst-s3cret-pw"
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="sal-pg-")))
    #: more server settings, e.g. "-c shared_buffers=2GB -c jit=off"
    options: str = ""
    _proc_user: str | None = None

    def __post_init__(self) -> None:
        self.bin = postgres_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL's server binaries are missing: sudo apt-get install postgresql "
                               "(make system-deps does it when run as root)")
        self.data = self.root / "data"
        if os.geteuid() == 0:          # initdb refuses root: the cluster belongs to 'nobody'
            self._proc_user = "nobody"
            os.chmod(self.root, 0o755)
            user = pwd.getpwnam("nobody")
            os.chown(self.root, user.pw_uid, user.pw_gid)

    def _run(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), user=self._proc_user, check=True, capture_output=True, text=True,
                              cwd=self.root, **kwargs)

    def url(self, user: str = "analyst", *, password: str | None = None, db: str = "warehouse") -> str:
        auth = f"{user}:{password}" if password is not None else user
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{db}"

    def start(self) -> "PostgresServer":
        pwfile = self.root / "pw"
        pwfile.write_text(self.super_password + "\n")
        if self._proc_user:
            user = pwd.getpwnam(self._proc_user)
            os.chown(pwfile, user.pw_uid, user.pw_gid)
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--pwfile", str(pwfile),
                  "-A", "scram-sha-256", "--no-sync", "-E", "UTF8", "--locale", "C")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "server.log"), "-w",
                  "-t", "60", "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                  "-c fsync=off -c full_page_writes=off -c synchronous_commit=off -c shared_buffers=64MB "
                  + self.options, "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")
        except subprocess.CalledProcessError:
            pass

    def restart(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "server.log"), "-w",
                  "-t", "60", "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off",
                  "start")

    def cleanup(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def admin(self, db: str = "warehouse"):
        import psycopg
        return psycopg.connect(self.url("postgres", password=self.super_password, db=db), autocommit=True)


@dataclass
class SparkServer:
    """A local Spark Connect server in its own process, requiring ``token``."""

    port: int = field(default_factory=free_port)
    token: str = "sp4rk-t0ken-s3cret"
    driver_memory: str = "1g"
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="sal-spark-")))
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"sc://localhost:{self.port}/;token={self.token}"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    def start(self, timeout: float = 180) -> "SparkServer":
        # a Spark Connect client in this process marks the environment as "connect mode"; the
        # server is classic PySpark, so those marks stay out of its environment
        env = {k: v for k, v in os.environ.items()
               if k not in ("SPARK_REMOTE", "SPARK_LOCAL_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "MASTER")}
        env["SPARK_CONNECT_AUTHENTICATE_TOKEN"] = self.token
        self.log = open(self.root / "server.log", "w")
        self.proc = subprocess.Popen([sys.executable, str(HERE / "spark_server.py"), str(self.port),
                                      str(self.warehouse), self.driver_memory], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env, text=True, cwd=self.root)
        deadline = time.monotonic() + timeout
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if line.strip() != "ready" or time.monotonic() > deadline:
            self.stop()
            log = (self.root / "server.log").read_text(errors="replace")[-3000:]
            shutil.rmtree(self.root, ignore_errors=True)
            raise RuntimeError(f"the Spark Connect server did not start:\n{log}")
        return self

    def client(self):
        from pyspark.sql import SparkSession
        return SparkSession.builder.remote(self.url).create()

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(60)
        except (subprocess.TimeoutExpired, OSError):
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
