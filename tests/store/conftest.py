"""Fixtures for store tests: a real SQLite store in the per-test data dir, with a steady clock."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from shell_agent_lab.store import Caps, Store


class StepClock:
    """Starts at a fixed instant and moves forward one second per reading."""

    def __init__(self, start: datetime = datetime(2026, 2, 16, 9, 0, tzinfo=timezone.utc)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now

    def jump(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def open_store(_isolated_data_dir, clock):
    opened: list[Store] = []

    def _open(caps: Caps | None = None, **kw) -> Store:
        store = Store.open(_isolated_data_dir, clock=kw.pop("clock", clock), caps=caps)
        opened.append(store)
        return store

    yield _open
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store) -> Store:
    return open_store()


@pytest.fixture
def session(store):
    return store.create_session(title="Sales review")
