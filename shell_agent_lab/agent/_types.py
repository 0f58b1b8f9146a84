"""What a turn returns: :class:`Reply` (the magic) and :class:`SendResult` (every front door)."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["AgentState", "Reply", "SendResult", "ToolActivity", "Phase"]


class AgentState(str, enum.Enum):
    """Ready: idle. Busy: a turn runs. Extracting: memory extraction runs in the background
    (a send is queued). Queued: extracting, with one message waiting to be sent."""

    READY = "READY"
    BUSY = "BUSY"
    EXTRACTING = "EXTRACTING"
    QUEUED = "QUEUED"

    def __str__(self) -> str:
        return self.value


Phase = Literal["completed", "queued", "command", "error", "started"]


@dataclass
class ToolActivity:
    tool_call_id: str
    name: str
    arguments: dict[str, Any]
    status: str = "running"           # running | success | error | rejected
    summary: str = ""
    notice: str = ""                   # what an approval policy decided, for the user
    #: what the call ran, for cells that reproduce it: {"sql": [...], "code": [...], "charts": [...]}
    ran: dict[str, Any] = field(default_factory=dict)


@dataclass
class Reply:
    """One turn's outcome. ``error`` is a one-line message when the turn failed."""

    text: str = ""
    tables: list[Any] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)
    sql: list[str] = field(default_factory=list)
    #: code the user chose to receive as new cells instead of running it (run_python)
    cells: list[str] = field(default_factory=list)
    new_findings: list[Any] = field(default_factory=list)
    memory_changes: list[dict[str, Any]] = field(default_factory=list)
    tool_activity: list[ToolActivity] = field(default_factory=list)
    error: str | None = None
    turn_id: str = ""
    #: set when the reply came from a slash command
    command: Any = None
    #: the estimated prompt tokens of each model request of the turn
    prompt_tokens: list[int] = field(default_factory=list)
    #: the answer the turn's question asks for (``answers.spec.AnswerSpec``), read once by the turn
    spec: Any = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def __str__(self) -> str:
        return self.text if self.error is None else f"Error: {self.error}"


@dataclass
class SendResult:
    """Authoritative answer to ``Agent.send``; events are supplementary.

    ``phase``: ``completed`` (the turn ran; ``reply`` holds it), ``queued`` (held until
    extraction ends; ``queued_at``), ``command`` (a slash command ran; ``cmd_result``),
    ``error`` (refused or failed; ``error_message``), ``started`` (``wait=False``: the turn
    runs in the background; ``turn_id``).
    """

    phase: Phase
    content: str = ""
    reply: Reply | None = None
    cmd_result: Any = None
    queued_at: float | None = None
    error_message: str = ""
    turn_id: str = ""
