from __future__ import annotations

from typing import Sequence

import pytest

from shell_agent_lab.llm.types import Backend, ChatOptions, Message, Response, ToolSpec

from .fakes import FakeStore


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
def store(tmp_path):
    return FakeStore(tmp_path / "data")


@pytest.fixture
def summarizer():
    return CountingSummarizer()
