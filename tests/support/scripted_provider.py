"""A recording OpenAI-compatible server that answers like a model following a plan.

:class:`ScriptedProvider` is :class:`~tests.support.fake_model_servers.FakeOpenAIServer` with its
replies computed from each request: background calls (title, memory extraction, summaries, a
tool's own question) get fixed text; a turn makes the planned tool calls of its question (the
plan is keyed by a word of the question), one per request, then answers in words without
numbers. Every request is recorded in ``requests``, so a test can grep what was sent.
"""
from __future__ import annotations

import threading
from typing import Any

from tests.support.fake_model_servers import FakeOpenAIServer, RecordedRequest, Reply

__all__ = ["ScriptedProvider", "FINAL_TEXT"]

FINAL_TEXT = "Here is what the tools computed; the values are in the results."


class ScriptedProvider(FakeOpenAIServer):
    """Answers each request from its content: background calls (title, extraction, summaries,
    a tool's own question) get fixed text; the main loop makes the planned calls of the question,
    then answers in words without numbers."""

    def __init__(self, plan: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__()
        self.plan = plan
        self._local = threading.local()

    def route(self, handler: Any, request: RecordedRequest) -> None:
        self._local.request = request
        super().route(handler, request)

    def _next(self) -> Any:
        body = self._local.request.json or {}
        messages = body.get("messages") or []
        system = str(messages[0].get("content") or "") if messages else ""
        if not body.get("tools"):
            if system.startswith("Write a short title"):
                return Reply(text="Customer spending")
            if "extract" in system.lower() or "memory" in system.lower():
                return Reply(text="fact|turn-1|The user studies customer spending by city|")
            return Reply(text="- the user explored the customers table")
        last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
        question = str(messages[last_user].get("content") or "").lower()
        done = {m.get("tool_call_id") for m in messages[last_user:] if m.get("role") == "tool"}
        calls = next((c for key, c in self.plan.items() if key in question), [])
        for planned in calls:
            if planned["id"] not in done:
                return Reply(tool_calls=[planned])
        return Reply(text=FINAL_TEXT)
