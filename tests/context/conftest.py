from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Sequence

import pytest

from shell_agent_lab.llm.types import Backend, ChatOptions, Message, Response, ToolSpec
from shell_agent_lab.store import Store

T0 = datetime(2026, 4, 27, 8, 30, tzinfo=timezone.utc)


class Clock:
    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


class Session:
    """A real store with one session and a hand-driven clock (one minute per record)."""

    def __init__(self, store: Store, clock: Clock, *, private: bool = False) -> None:
        self.store = store
        self.clock = clock
        self.id = store.create_session(private=private).id

    def add(self, role: str, content: str, *, at: datetime | None = None, **kw: Any):
        if at is not None:
            self.clock.now = at
        record = self.store.append_record(self.id, role, content, **kw)
        self.clock.now += timedelta(minutes=1)
        return record

    def conversation(self, n: int, *, size: int = 40) -> None:
        for i in range(n):
            self.add("user" if i % 2 == 0 else "assistant", f"message {i} " + "lorem ipsum " * size)

    def age_session_fact(self, turns: int = 40) -> None:
        """Decay every Session Memory entry until it is archived."""
        for i in range(turns):
            self.store.session_memory.decay_all(self.id, 100 + i)


class CountingSummarizer(Backend):
    """Answers every request with a numbered summary and keeps what it was asked."""

    name = "fake"
    model = "summarizer"

    def __init__(self, text: str = "- topic: summary {n}") -> None:
        self.text = text
        self.requests: list[list[Message]] = []

    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        self.requests.append(list(messages))
        return Response(text=self.text.format(n=len(self.requests)))


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(tmp_path, clock):
    with Store.open(tmp_path / "data", clock=clock) as s:
        yield s


@pytest.fixture
def session(store, clock):
    return Session(store, clock)


@pytest.fixture
def summarizer():
    return CountingSummarizer()
