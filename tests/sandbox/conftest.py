"""Fixtures for the sandbox tests: a sandbox of the test's own (not the process-wide one), the
frames, and the watched state an attack must leave alone."""
from __future__ import annotations

import socket

import pytest

from shell_agent_lab.sandbox import ProgramSandbox, status


@pytest.fixture(scope="session")
def sandbox_available():
    found = status()
    if not found:
        pytest.fail(f"the sandbox is not available here: {found.reason} (make test installs bubblewrap)")
    return found


@pytest.fixture(scope="module")
def sandbox(sandbox_available):
    box = ProgramSandbox()
    yield box
    box.close()


class Listener:
    """A TCP port (and the same UDP port) and a Unix socket the kernel listens on. Nothing
    accepts in the background: :meth:`drain` takes whatever arrived since it was last called
    (a connection waits in the backlog until then), so no arrival can be missed or late."""

    def __init__(self, unix_path: str) -> None:
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.unix_path = unix_path
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(unix_path)
        self.unix.listen(64)
        for s in (self.tcp, self.udp, self.unix):
            s.setblocking(False)

    def drain(self) -> list[str]:
        """What arrived: one entry per connection or datagram."""
        arrived: list[str] = []
        for sock, name in ((self.tcp, "tcp"), (self.unix, "unix")):
            while True:
                try:
                    conn, _ = sock.accept()
                except (BlockingIOError, InterruptedError):
                    break
                arrived.append(name)
                conn.close()
        while True:
            try:
                self.udp.recvfrom(100)
            except (BlockingIOError, InterruptedError):
                break
            arrived.append("udp")
        return arrived

    def close(self) -> None:
        for s in (self.tcp, self.udp, self.unix):
            s.close()
