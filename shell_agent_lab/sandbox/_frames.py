"""The frames a program reads, shipped to the sandbox once and kept there while they do not
change.

A frame travels as a pickle (protocol 5) whose array buffers are written, out of band, into a
sealed memory file: the sandbox maps that file read-only and numpy's arrays are built over its
pages, so the data is written once and never copied again, however many programs read it. The
kernel keeps nothing of it but a shallow copy.

That shallow copy is how a change is seen without reading the data. Under pandas' Copy-on-Write
(always on from pandas 3), a frame whose blocks another frame still references copies a block
before writing into it; so while the copy is held, any write to the user's frame gives it new
block arrays, and comparing the arrays' identities with those shipped tells whether the data
changed. A new or renamed column, a new index, another frame bound to the name: all change the
signature too. Without Copy-on-Write the frame is shipped again for every program.
"""
from __future__ import annotations

import fcntl
import itertools
import os
import pickle
import weakref
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Shipment", "pack", "Held", "hold"]

_ALIGN = 64
_keys = itertools.count(1)
_SEALS = getattr(fcntl, "F_SEAL_SEAL", 1) | getattr(fcntl, "F_SEAL_SHRINK", 2) | \
    getattr(fcntl, "F_SEAL_GROW", 4) | getattr(fcntl, "F_SEAL_WRITE", 8)


@dataclass
class Shipment:
    """A frame packed into a memory file: the descriptor and the message that describes it."""

    fd: int
    message: dict[str, Any]


def pack(frame: Any, key: str) -> Shipment:
    """``frame`` as a sealed memory file: the pickled structure, then each buffer aligned."""
    buffers: list[pickle.PickleBuffer] = []
    head = pickle.dumps(frame, protocol=5, buffer_callback=buffers.append)
    fd = os.memfd_create("shell-agent-lab-frame", os.MFD_CLOEXEC | getattr(os, "MFD_ALLOW_SEALING", 2))
    try:
        spans: list[list[int]] = []
        with os.fdopen(os.dup(fd), "wb", buffering=0) as out:
            out.write(head)
            offset = len(head)
            for buffer in buffers:
                raw = buffer.raw()
                pad = (-offset) % _ALIGN
                if pad:
                    out.write(b"\0" * pad)
                    offset += pad
                spans.append([offset, raw.nbytes])
                _write_all(out, raw)
                offset += raw.nbytes
        try:
            fcntl.fcntl(fd, getattr(fcntl, "F_ADD_SEALS", 1033), _SEALS)
        except OSError:
            pass                      # a kernel without sealing: the sandbox maps it read-only all the same
    except BaseException:
        os.close(fd)
        raise
    return Shipment(fd, {"op": "frame", "key": key, "size": offset, "head": len(head), "buffers": spans})


def _write_all(out: Any, raw: memoryview) -> None:
    view = raw.cast("B") if raw.format != "B" or raw.ndim != 1 else raw
    while view:
        written = out.write(view[: 1 << 30])
        view = view[written:]


def _signature(frame: Any) -> tuple[Any, ...] | None:
    """What changes when the frame's data, labels or shape do (see the module's doc)."""
    if not _copy_on_write():
        return None
    try:
        blocks = tuple(id(block.values) for block in frame._mgr.blocks)
    except AttributeError:
        return None
    index, columns = frame.index, getattr(frame, "columns", None)
    return (type(frame), frame.shape, blocks, id(index), tuple(map(repr, index.names)),
            id(columns), None if columns is None else tuple(map(repr, columns.names)),
            tuple(map(str, getattr(frame, "dtypes", ()))))


def _copy_on_write() -> bool:
    if int(pd.__version__.split(".")[0]) >= 3:
        return True
    try:
        return bool(pd.get_option("mode.copy_on_write"))
    except Exception:
        return False


@dataclass
class Held:
    """A frame the sandbox holds: its key there, and what tells whether the user's frame is
    still the one shipped."""

    key: str
    frame: Any                          # a weak reference to the user's frame
    signature: tuple[Any, ...] | None
    keep: list[Any] = field(default_factory=list)   # the shallow copy and the block arrays

    def matches(self, frame: Any) -> bool:
        if self.signature is None or self.frame() is not frame:
            return False
        return _signature(frame) == self.signature


def hold(frame: Any) -> Held:
    """A new key for ``frame`` and what :meth:`Held.matches` compares later."""
    key = f"f{next(_keys)}"
    try:
        ref = weakref.ref(frame)
    except TypeError:
        return Held(key, lambda: None, None)
    signature = _signature(frame)
    keep: list[Any] = []
    if signature is not None:
        keep = [frame.copy(deep=False), [block.values for block in frame._mgr.blocks], frame.index]
    return Held(key, ref, signature, keep)
