"""When the shared llama.cpp server saves its KV cache and when it stops (pure decisions).

The daemon polls every ``poll`` seconds: how many processes hold a live lease, and llama.cpp's
``GET /slots`` (per slot: ``id_task``, the last task it ran, and ``is_processing``).
:func:`observe` folds one poll into a :class:`Watch`; :func:`should_save` and
:func:`should_stop` decide:

- activity: a slot is processing, or a slot's ``id_task`` changed since the last poll
  (slot saves and restores leave ``id_task`` alone, so saving is not activity);
- save slot 0 once the server has been quiet for ``save_after`` seconds after activity (and at
  exit), so a crash loses at most the last burst;
- stop when no live client has been seen for ``grace`` seconds AND no request ran for
  ``idle_timeout`` seconds AND nothing is processing: never while a request is in flight.

Times are seconds from any monotonic clock; nothing here reads one.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

__all__ = ["IdlePolicy", "Watch", "begin", "observe", "saved", "should_save", "should_stop",
           "ENV_IDLE_TIMEOUT", "ENV_GRACE"]

ENV_IDLE_TIMEOUT = "SHELL_AGENT_LAB_LLAMA_IDLE_TIMEOUT"
ENV_GRACE = "SHELL_AGENT_LAB_LLAMA_GRACE"

Slots = Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class IdlePolicy:
    """How long the server outlives its clients and its last request (seconds)."""

    idle_timeout: float = 600.0
    grace: float = 60.0
    poll: float = 2.0
    save_after: float = 30.0
    #: on SIGTERM, how long a request in flight may still run before the server stops anyway
    drain_timeout: float = 120.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            if getattr(self, field.name) < 0:
                raise ValueError(f"{field.name} must not be negative")
        if self.poll <= 0:
            raise ValueError("poll must be positive")

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> IdlePolicy:
        """Defaults, with ``SHELL_AGENT_LAB_LLAMA_IDLE_TIMEOUT`` / ``_GRACE`` (seconds) applied."""
        changes: dict[str, float] = {}
        for name, key in (("idle_timeout", ENV_IDLE_TIMEOUT), ("grace", ENV_GRACE)):
            raw = env.get(key, "").strip()
            if raw:
                try:
                    changes[name] = float(raw)
                except ValueError:
                    raise ValueError(f"{key}={raw!r} is not a number of seconds") from None
        return cls(**changes)

    def to_args(self) -> list[str]:
        """The daemon's command-line options for this policy."""
        return [part for field in dataclasses.fields(self)
                for part in (f"--{field.name.replace('_', '-')}", repr(getattr(self, field.name)))]


@dataclass(frozen=True)
class Watch:
    """What the daemon knows from its polls so far."""

    last_client: float
    last_activity: float
    #: live leases at the last poll (the starting client holds one before the server starts)
    clients: int = 1
    #: (slot id, id_task) per slot at the last readable poll; None before the first one
    tasks: tuple[tuple[int, Any], ...] | None = None
    busy: bool = False
    #: activity since slot 0 was last saved
    dirty: bool = False


def begin(now: float, slots: Slots | None = None) -> Watch:
    """A fresh watch: the starting client and the start itself count as recent. ``slots`` is
    the server's first ``/slots``, taken before any client could send a request."""
    return Watch(last_client=now, last_activity=now, tasks=_tasks(slots) if slots is not None else None)


def _tasks(slots: Slots) -> tuple[tuple[int, Any], ...]:
    return tuple(sorted((int(slot.get("id", index)), slot.get("id_task"))
                        for index, slot in enumerate(slots)))


def observe(watch: Watch, now: float, *, clients: int, slots: Slots | None) -> Watch:
    """Fold one poll in. ``slots`` None means ``/slots`` did not answer: nothing learnt of them."""
    last_client = now if clients > 0 else watch.last_client
    if slots is None:
        return dataclasses.replace(watch, last_client=last_client, clients=clients)
    tasks = _tasks(slots)
    busy = any(bool(slot.get("is_processing")) for slot in slots)
    active = busy or (watch.tasks is not None and tasks != watch.tasks)
    return Watch(last_client=last_client, last_activity=now if active else watch.last_activity,
                 clients=clients, tasks=tasks, busy=busy, dirty=watch.dirty or active)


def saved(watch: Watch) -> Watch:
    return dataclasses.replace(watch, dirty=False)


def should_save(watch: Watch, now: float, policy: IdlePolicy) -> bool:
    return watch.dirty and not watch.busy and now - watch.last_activity >= policy.save_after


def should_stop(watch: Watch, now: float, policy: IdlePolicy) -> bool:
    return (not watch.busy and watch.clients == 0 and now - watch.last_client >= policy.grace
            and now - watch.last_activity >= policy.idle_timeout)
