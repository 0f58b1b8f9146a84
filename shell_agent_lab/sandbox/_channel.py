"""Messages between the kernel and the sandbox: JSON objects over a ``SOCK_SEQPACKET`` Unix
socket pair, with file descriptors (the frames' memory files) passed alongside.

A message is one or more records: the first carries an 8-byte length, the first bytes of the
JSON text and any descriptors; the rest carry the remaining bytes. Sequenced packets keep each
record whole and in order, so a reader never sees half a record or another message's bytes.
Only JSON crosses: nothing the sandbox sends is ever unpickled by the kernel. This module uses
the standard library alone (the sandbox imports it by path, before anything else).
"""
from __future__ import annotations

import array
import json
import select
import socket
import struct
import time
from typing import Any

__all__ = ["ChannelClosed", "ChannelTimeout", "send", "receive", "RECORD"]

#: bytes per record (well under a Unix socket's default send buffer)
RECORD = 60_000
_HEAD = struct.Struct("<Q")
_MAX_FDS = 64


class ChannelClosed(Exception):
    """The other end closed the channel (or sent a broken message)."""


class ChannelTimeout(Exception):
    """No whole message arrived before the deadline."""


def send(sock: socket.socket, message: dict[str, Any], fds: list[int] | tuple[int, ...] = ()) -> None:
    """Send ``message`` (JSON-able) with ``fds`` attached to its first record."""
    data = json.dumps(message, allow_nan=False, separators=(",", ":")).encode()
    first = _HEAD.pack(len(data)) + data[:RECORD]
    if fds:
        sock.sendmsg([first], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        sock.sendall(first)
    for start in range(RECORD, len(data), RECORD):
        sock.sendall(data[start:start + RECORD])


def receive(sock: socket.socket, *, deadline: float | None = None,
            max_bytes: int = 64 << 20) -> tuple[dict[str, Any], list[int]]:
    """The next message and the descriptors that came with it. ``deadline`` is a
    ``time.monotonic()`` instant; ``max_bytes`` refuses a message claiming more."""
    first, fds = _record(sock, deadline, with_fds=True)
    if len(first) < _HEAD.size:
        _close(fds)
        raise ChannelClosed("the channel closed" if not first else "a broken record")
    (size,) = _HEAD.unpack_from(first)
    if size > max_bytes:
        _close(fds)
        raise ChannelClosed(f"a message of {size} bytes (at most {max_bytes})")
    parts = [first[_HEAD.size:]]
    got = len(parts[0])
    while got < size:
        chunk, _ = _record(sock, deadline, with_fds=False)
        if not chunk:
            _close(fds)
            raise ChannelClosed("the channel closed inside a message")
        parts.append(chunk)
        got += len(chunk)
    try:
        message = json.loads(b"".join(parts)[:size])
    except ValueError as exc:
        _close(fds)
        raise ChannelClosed(f"a message that is not JSON: {exc}") from None
    if not isinstance(message, dict):
        _close(fds)
        raise ChannelClosed("a message that is not a JSON object")
    return message, fds


def _record(sock: socket.socket, deadline: float | None, *, with_fds: bool) -> tuple[bytes, list[int]]:
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            raise ChannelTimeout("no reply in time")
    space = socket.CMSG_SPACE(_MAX_FDS * array.array("i").itemsize) if with_fds else 0
    try:
        data, ancillary, _flags, _addr = sock.recvmsg(RECORD + _HEAD.size, space)
    except OSError as exc:
        raise ChannelClosed(f"the channel failed: {exc}") from None
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            received = array.array("i")
            received.frombytes(payload[: len(payload) - (len(payload) % received.itemsize)])
            fds.extend(received)
    return data, fds


def _close(fds: list[int]) -> None:
    import os

    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
