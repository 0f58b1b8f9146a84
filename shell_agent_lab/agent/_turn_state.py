"""What one turn is given and what it has done so far, shared by its stages.

:class:`TurnEnv` is everything injected into a turn (store, backend, tools, gate, settings), so
the turn runs the same under the magic, the side panel and the tests. :class:`TurnState` is
what the turn has found out and done, set when it starts and read by each stage: the spec read
once, the way the message goes, the deadline, the results the answer's numbers may come from,
the calls made and the notes waiting for the next request.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from ..answers.spec import AnswerSpec
from ..llm.cpu_load import LoadWatch
from ..llm.types import Backend
from ..tools.approval import ApprovalGate
from ..tools.registry import ToolEngine, ToolRegistry, ToolSettings
from ._budget import Deadline
from ._route import Route

__all__ = ["TurnEnv", "TurnStore", "TurnContext", "TurnState", "Stopped", "OutOfTime", "check_stop"]


class TurnStore(Protocol):
    """The store as a turn uses it (``store.Store``); tools get it as ``ToolContext.store``."""

    findings: Any
    objects: Any
    global_memory: Any
    session_memory: Any

    def append_record(self, session_id: str, role: str, content: str, **fields: Any) -> Any: ...

    def session_dir(self, session_id: str) -> Path: ...

    def list_records(self, *args: Any, **kwargs: Any) -> list[Any]: ...

    def count_user_records(self, session_id: str) -> int: ...


class TurnContext(Protocol):
    """What builds each request's messages (``context.ContextBuilder``)."""

    def build(self, session_id: str, **options: Any) -> Any: ...

    def clean_reply(self, session_id: str, text: str) -> str: ...


@dataclass
class TurnEnv:
    store: TurnStore
    session: Any                         # store Session
    builder: TurnContext
    backend: Backend
    registry: ToolRegistry
    gate: ApprovalGate
    publish: Callable[[str, dict], None]
    cancel: threading.Event
    turn_id: str
    max_rounds: int = 10
    max_args_bytes: int = 1024 * 1024
    disabled: frozenset[str] = frozenset()
    auto_extract: bool = True
    engine: ToolEngine | None = None
    namespace: dict[str, Any] | None = None
    settings: ToolSettings | None = None
    clock: Callable[[], Any] | None = None
    budget: Any = None
    #: put the tables' schema in the system prompt (small local models need it)
    schema_in_prompt: bool = False
    #: the tool set offered: "full" (every available tool) or "compact" (the core tools plus
    #: the tool of the way the message goes; small local models read a short list better and faster)
    tool_set: str = "full"
    #: a question about the data must be answered from a tool call on its first round (small
    #: local models otherwise answer follow-up questions from nothing)
    require_tool_first: bool = False
    #: how a data question is answered first: "program" (the model writes a pandas program the
    #: product checks, runs and composes the answer from) or "tools" (the tool loop)
    answer_strategy: str = "tools"
    #: seconds a program may run
    program_timeout: float = 30.0
    #: seconds the whole question may take (``ShellAgent.question_budget``); 0: no limit
    question_budget: float = 0.0
    #: what the model may read of the data: "rows", "aggregates" or "schema" (see ``sharing``)
    data_sharing: str = "rows"
    #: where neither the question's form nor a name it gives decides the way a message goes
    #: (``_route``), the model is asked, under a schema of the ways; False: data questions go
    #: the answer way and other messages the reply way without asking
    route_by_model: bool = True
    #: set by the loop: whether a model answer was recorded (drives extraction and titles)
    answered: bool = field(default=False, init=False)


@dataclass
class TurnState:
    """One turn's findings so far (a new one for every message)."""

    message: str
    #: the answer the question asks for, read once (every stage takes it from here)
    spec: AnswerSpec
    deadline: Deadline
    load: LoadWatch
    #: the way the message goes (chosen when the loop starts)
    route: Route
    #: the message and the results (and call arguments) the answer's numbers may come from
    evidence: list[str]
    #: (tool, content) of every call that succeeded, for an answer when the time runs out
    results: list[tuple[str, str]] = field(default_factory=list)
    #: the errors of the programs that ran and computed nothing (said when the time runs out)
    programs_failed: list[str] = field(default_factory=list)
    #: notes for the next request (a tool that keeps failing, calls dropped from a long reply)
    pending_notes: list[str] = field(default_factory=list)
    #: calls made (by name and arguments), tools offered in the last request, tools called
    done_calls: set[str] = field(default_factory=set)
    offered: set[str] = field(default_factory=set)
    called: set[str] = field(default_factory=set)
    #: tools the next request must choose from (a tool the message named and the reply skipped)
    require: set[str] = field(default_factory=set)
    #: the tools the message asked for, while not all of them have been called
    asked_for: set[str] | None = None
    #: the next request must answer (a format note was sent)
    answer_next: bool = False
    #: calls per tool in this turn
    counts: dict[str, int] = field(default_factory=dict)
    #: model replies received
    replies: int = 0
    #: call ids given out in this turn
    seen_ids: set[str] = field(default_factory=set)
    #: the tables' schema as last put in the prompt (None: to be read again)
    schema: str | None = None
    #: a tool changed the data (tables added, replaced or dropped)
    data_changed: bool = False
    #: the tables before a batch of analysis calls (None: no such batch running)
    data_baseline: tuple[Any, ...] | None = None


class Stopped(Exception):
    """The user stopped the turn."""


class OutOfTime(Exception):
    """The question's time budget is spent."""


def check_stop(cancel: threading.Event, deadline: Deadline, *, budget: bool = True) -> None:
    """Raise :class:`Stopped` when the user stopped the turn, :class:`OutOfTime` when ``budget``
    and the question's time is spent."""
    if cancel.is_set():
        raise Stopped()
    if budget and deadline.spent():
        raise OutOfTime()
