"""Run a blocking SDK call on a worker thread so the caller can cancel it or give up on time.

The SDKs block inside socket reads: a server that hangs before its headers or in the middle
of a stream would otherwise hold the caller until a read timeout. Here the producer runs on
a daemon thread and hands items over a queue; the caller waits in short slices, watching
``cancel`` and a per-attempt deadline. When the caller stops (cancelled, out of time, or its
own ``on_item`` raised: a reply complete early, a loop cut short) it marks the response closed
(through the :class:`Closer` the producer registered); a producer that reads a response closes
it from its own thread at its next item (``emit`` raises there, out of the producer's
``with``), and the caller waits briefly for that, so the server
has seen the close before the next request reaches it. A worker with no response open yet
(waiting for headers) is left to finish on its own.
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable

from .errors import CancelledError, UnreachableError

__all__ = ["Closer", "pump"]

_POLL = 0.05
#: seconds a reader that stopped early waits for the worker to close the connection: a request
#: sent before the server saw the close waited behind the whole abandoned reply (llama.cpp)
_CLOSE_WAIT = 1.0


class _ReaderGone(Exception):
    """Raised in the producer by ``emit`` once the reader has stopped."""


class Closer:
    """Holds the close function of the in-flight response; closing early is remembered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._close: Callable[[], Any] | None = None
        self.closed = False

    @property
    def opened(self) -> bool:
        """A response is open (its close function registered)."""
        with self._lock:
            return self._close is not None

    def set(self, close: Callable[[], Any]) -> None:
        with self._lock:
            self._close = close
            closed = self.closed
        if closed:
            _quietly(close)

    def close(self) -> None:
        with self._lock:
            self.closed = True
            close = self._close
        if close is not None:
            _quietly(close)


def _quietly(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except Exception:  # closing a broken connection may itself fail; nothing to do
        pass


def pump(produce: Callable[[Callable[[Any], None], Closer], None], *,
         on_item: Callable[[Any], None], cancel: threading.Event | None, timeout: float,
         timeout_error: Callable[[], Exception] = lambda: UnreachableError("request timed out"),
         clock: Callable[[], float] = time.monotonic) -> None:
    """Run ``produce(emit, closer)`` on a worker; call ``on_item`` here for each emitted item.

    Raises what the producer raised, :class:`CancelledError` when ``cancel`` is set, or
    ``timeout_error()`` when ``timeout`` seconds pass before the producer finishes.
    """
    items: "queue.Queue[tuple[str, Any]]" = queue.Queue()
    closer = Closer()

    finished = threading.Event()

    def emit(item: Any) -> None:
        if closer.closed:
            raise _ReaderGone()      # leaves the producer's loop, closing what it reads
        items.put(("item", item))

    def run() -> None:
        try:
            produce(emit, closer)
        except _ReaderGone:
            pass
        except BaseException as exc:  # handed to the caller's thread
            items.put(("error", exc))
        else:
            items.put(("done", None))
        finally:
            finished.set()

    worker = threading.Thread(target=run, name="model-request", daemon=True)
    worker.start()
    deadline = clock() + timeout
    try:
        while True:
            if cancel is not None and cancel.is_set():
                raise CancelledError("request cancelled")
            remaining = deadline - clock()
            if remaining <= 0:
                raise timeout_error()
            try:
                kind, value = items.get(timeout=min(_POLL, remaining) if cancel is not None else remaining)
            except queue.Empty:
                continue
            if kind == "item":
                on_item(value)
            elif kind == "done":
                return
            else:
                raise value
    except BaseException as exc:
        closer.close()
        if closer.opened and not isinstance(exc, UnreachableError):   # a hung server may never let it end
            finished.wait(_CLOSE_WAIT)
        raise
