"""The turn's requests to the model: the tool loop's request (messages built from the records,
the tools offered, the form the reply is held to), the route's choice, and the heartbeat that
shows a long request is still working.

Nothing here decides what the turn does with a reply; :mod:`._loop` does.
"""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..context.prompt import COMPACT_BASE_PROMPT
from ..llm.types import ChatOptions, Message, Response, RetryInfo
from ..tools.registry import ToolContext
from ._answer_routes import tables_of
from ._budget import DeadlineEvent
from ._route import tools_of
from ._tool_sets import ANSWER_SCHEMA, call_schema, compact_tools, first_call_tools
from ._turn_state import TurnEnv, TurnState
from ._types import Reply

__all__ = ["ModelRequests", "Progress", "CALL_TOKENS", "ANSWER_TOKENS", "ROUTE_TOKENS"]

#: output tokens of a request that must call a tool, and of any other (compact tool set, i.e. the
#: small local models): the embedded model's recorded calls take at most ~120 tokens and its
#: answers at most ~110 (notebooks/cassettes), so these leave 3-5x room while a runaway reply
#: ends within seconds instead of minutes
CALL_TOKENS = 400
ANSWER_TOKENS = 600
#: output tokens of the route's choice ({"way": "create_chart"} is about ten)
ROUTE_TOKENS = 32
#: seconds between two ``model_wait`` events while a model request runs
HEARTBEAT_SECONDS = 5.0


@dataclass
class Progress:
    """What a running model request has produced so far (None: not streamed, unknown)."""

    tokens: int | None = None


class ModelRequests:
    """Requests of one turn. ``tool_context()`` is the context the offered tools are listed in."""

    def __init__(self, env: TurnEnv, state: TurnState, reply: Reply,
                 tool_context: Callable[[], ToolContext]) -> None:
        self.env = env
        self.state = state
        self.reply = reply
        self._tool_context = tool_context

    def cancel_handle(self) -> threading.Event:
        """The request's cancel event: the user's Stop, and the question's deadline when it has one."""
        env, deadline = self.env, self.state.deadline
        return DeadlineEvent(env.cancel, deadline) if deadline.at is not None else env.cancel

    def on_retry(self, info: RetryInfo) -> None:
        self.env.publish("retry_backoff", {"attempt": info.attempt, "max_attempts": info.max_attempts,
                                           "delay": info.delay, "error": info.error})

    def ask(self, notes: list[str], tool_choice: str | None = None, *, first: bool = False) -> Response:
        """The tool loop's request: the records as messages, with ``notes`` for this round, and
        the tools of the way the message goes. ``tool_choice`` "required" (a call) or "none" (an
        answer) holds the reply to that, by a schema where the server cannot be told."""
        env, state = self.env, self.state
        schema = None
        if env.schema_in_prompt:
            if state.schema is None:
                from ..analysis.prompt_schema import schema_text   # analysis is optional: lazily

                state.schema = schema_text(env.engine, tables=tables_of(env.engine), sharing=env.data_sharing)
            schema = state.schema
        built = env.builder.build(env.session.id, budget=env.budget, summarizer=env.backend, notes=list(notes),
                                  data_schema=schema,
                                  base_prompt=COMPACT_BASE_PROMPT if env.tool_set == "compact" else None,
                                  history="turn" if env.tool_set == "compact" else "full",
                                  sharing=env.data_sharing)
        self.reply.prompt_tokens.append(built.stats.get("total_tokens", 0))
        tools = env.registry.specs(self._tool_context(), env.disabled)
        if env.tool_set == "compact":
            tools = compact_tools(tools, tools_of(state.route.way))
        state.offered = {t.name for t in tools}
        response_format = None
        must_call = tool_choice == "required" and bool(tools)
        if not tools:
            tool_choice = None
        elif tool_choice and not getattr(env.backend.capabilities, "tool_choice", True):
            # the server cannot be told to call a tool (or not to), but it can be held to a
            # schema: one whose only instances are calls of the offered tools, or an answer
            candidates = first_call_tools(tools) if first else tools
            if state.require:
                candidates = [t for t in tools if t.name in state.require] or candidates
            response_format = call_schema(candidates) if tool_choice == "required" else ANSWER_SCHEMA
            tool_choice = None
        state.require = set()

        max_tokens = None
        if env.tool_set == "compact":   # small local models: a runaway reply ends early
            max_tokens = CALL_TOKENS if must_call else ANSWER_TOKENS
        options = ChatOptions(cancel=self.cancel_handle(), on_retry=self.on_retry, tool_choice=tool_choice,
                              response_format=response_format, max_output_tokens=max_tokens)
        with self.heartbeat() as progress:
            if env.backend.capabilities.streaming:
                progress.tokens = 0

                def on_text(piece: str) -> None:
                    if piece:
                        progress.tokens = (progress.tokens or 0) + 1   # a server chunk is a token
                        env.publish("stream_token", {"turn_id": env.turn_id, "text": piece})
                response = env.backend.stream(built.messages, tools, on_text=on_text, options=options)
            else:
                response = env.backend.chat(built.messages, tools, options=options)
        state.replies += 1
        return response

    def ask_route(self, system: str, user: str, schema: dict[str, Any]) -> str:
        """The route's choice (``_route.choose_route``'s ``ask``): greedy, under ``schema``."""
        options = ChatOptions(cancel=self.cancel_handle(), temperature=0.0, response_format=schema,
                              max_output_tokens=ROUTE_TOKENS, on_retry=self.on_retry)
        with self.heartbeat():
            response = self.env.backend.chat([Message("system", system), Message("user", user)], options=options)
        return (response.text or "").strip()

    @contextlib.contextmanager
    def heartbeat(self) -> Iterator[Progress]:
        """While a model request runs: a ``model_wait`` event every few seconds with the seconds
        the question has taken and, when the reply is streamed, the tokens received so far, so a
        long prompt or a slow reply shows it is still working. Each beat also samples the
        machine's CPU use (``LoadWatch``): a budget spent on a busy machine says so."""
        env, state, done, progress = self.env, self.state, threading.Event(), Progress()

        def beat() -> None:
            while not done.wait(HEARTBEAT_SECONDS):
                env.publish("model_wait", {"turn_id": env.turn_id, "elapsed": int(state.deadline.elapsed),
                                           "budget": state.deadline.budget or None,
                                           "tokens": progress.tokens})
                if not done.is_set():
                    state.load.sample()

        worker = threading.Thread(target=beat, name="model-wait", daemon=True)
        worker.start()
        try:
            yield progress
        finally:
            done.set()
