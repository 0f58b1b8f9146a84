"""The thread that cancels a running remote query on Stop or once its time is up."""
from __future__ import annotations

import threading
import time
from typing import Callable

__all__ = ["start_watch"]


def start_watch(cancel_query: Callable[[], None], timeout: float | None, cancel: threading.Event | None,
                done: threading.Event, timed_out: threading.Event, *, grace: float = 0.0,
                name: str = "query-watch") -> threading.Thread | None:
    """Call ``cancel_query`` when ``cancel`` is set, or ``grace`` seconds after ``timeout`` (then
    ``timed_out`` is set too); stops when ``done`` is set. None when there is nothing to watch."""
    if cancel is None and not (timeout and timeout > 0):
        return None
    deadline = time.monotonic() + timeout + grace if timeout and timeout > 0 else None

    def watch() -> None:
        while not done.wait(0.05):
            if cancel is not None and cancel.is_set():
                cancel_query()
                return
            if deadline is not None and time.monotonic() >= deadline:
                timed_out.set()
                cancel_query()
                return

    thread = threading.Thread(target=watch, name=name, daemon=True)
    thread.start()
    return thread
