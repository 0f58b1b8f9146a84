"""The wall-clock budget of one question (``ShellAgent.question_budget``).

:class:`Deadline` reads an injected clock (a ``datetime`` or seconds; tests pass a fake one),
:class:`DeadlineEvent` is the cancel handle a model request gets: set when the user cancels
or when the budget is spent, so every backend (which already watches its cancel event between
stream chunks and retries) stops at the deadline. :func:`late_answer` is what the turn says
when the time is up: only what the tools returned, never a number of its own.
"""
from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any, Callable, Sequence

from ..answers.write import short_error

__all__ = ["Deadline", "DeadlineEvent", "late_answer", "seconds_clock"]

_WAIT_SLICE = 0.05
_RESULT_CHARS = 800
_RESULTS_SHOWN = 3


def seconds_clock(clock: Callable[[], Any] | None) -> Callable[[], float]:
    """Seconds from ``clock`` (a ``datetime`` or a number); the monotonic clock when None."""
    if clock is None:
        return time.monotonic

    def now() -> float:
        value = clock()
        return value.timestamp() if isinstance(value, datetime) else float(value)

    return now


class Deadline:
    """``budget`` seconds from now (0 or less: none)."""

    def __init__(self, budget: float, now: Callable[[], float]) -> None:
        self.budget = float(budget or 0)
        self.now = now
        self.started = now()
        self.at = self.started + self.budget if self.budget > 0 else None

    @property
    def elapsed(self) -> float:
        return max(0.0, self.now() - self.started)

    def remaining(self) -> float | None:
        """Seconds left (None: no budget)."""
        return None if self.at is None else max(0.0, self.at - self.now())

    def extend(self, seconds: float) -> None:
        """Move the deadline ``seconds`` later (time the question did not spend working, such as
        waiting for a person to approve a call)."""
        if self.at is not None and seconds > 0:
            self.at += seconds

    def spent(self) -> bool:
        return self.at is not None and self.now() >= self.at


class DeadlineEvent(threading.Event):
    """Set when ``parent`` is set or ``deadline`` is spent (checked on every ``is_set``)."""

    def __init__(self, parent: threading.Event, deadline: Deadline) -> None:
        super().__init__()
        self._parent = parent
        self._deadline = deadline

    def is_set(self) -> bool:
        return super().is_set() or self._parent.is_set() or self._deadline.spent()

    def wait(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = _WAIT_SLICE if end is None else min(_WAIT_SLICE, end - time.monotonic())
            if left <= 0:
                return False
            super().wait(left)
        return True


def _tried(failed: Sequence[str]) -> str:
    """What the programs that ran did, in a clause: how many computed nothing, and the last one's
    error in a few words."""
    last = short_error(failed[-1]) if failed and failed[-1].strip() else ""
    said = f" ({'the last: ' if len(failed) > 1 else ''}{last})" if last else ""
    if len(failed) == 1:
        return f"the program the model wrote computed no answer{said}; it is in the cell below"
    return f"the {len(failed)} programs the model wrote computed no answer{said}; they are in the cells below"


def late_answer(budget: float, results: Sequence[tuple[str, str]], *, started: bool,
                busy: str = "", failed: Sequence[str] = ()) -> str:
    """The reply of a question whose time ran out: the tools' results so far, or what could not
    be done. ``results``: (tool name, result text) of the calls that succeeded, in order;
    ``busy``: what kept the machine busy meanwhile (``Busy.describe()``), when it was;
    ``failed``: the errors of the programs that ran and computed nothing."""
    setting = f"the {budget:g} s set by ShellAgent.question_budget"
    more = f"allow more time, e.g. `%config ShellAgent.question_budget = {max(180, int(budget * 2))}`"
    if not results:
        what = (_tried(failed) if failed else "the model had not finished its first reply" if not started
                else "no tool call had returned a result yet")
        if busy:
            return (f"I could not answer in time ({setting}): {what}, because {busy}. Ask again "
                    f"when it is done, or {more}.")
        return f"I could not answer in time ({setting}): {what}. Ask a narrower question, or {more}."
    shown = list(results)[-_RESULTS_SHOWN:]
    why = f"; {busy}" if busy else ""
    parts = [f"Time ran out ({setting}{why}) before a full answer was written. What the tools returned:"]
    for name, text in shown:
        body = text.strip()
        if len(body) > _RESULT_CHARS:
            body = body[:_RESULT_CHARS].rstrip() + "\n…"
        parts.append(f"**{name}**\n```\n{body}\n```")
    return "\n\n".join(parts)
