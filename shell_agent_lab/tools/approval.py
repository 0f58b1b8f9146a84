"""The approval gate: which tool calls need a human, who answers, and what the model is told.

An approval guards a side effect or data leaving the machine. Resolution (first match wins):
the per-tool override → MCP tools (``mcp__`` prefix or source ``mcp``) and ``sandbox_`` tools ask
→ a read of the session's own data (:func:`reads_session_data`) runs without asking when its
result stays on this machine (:attr:`ApprovalGate.rows_go_to` is ``None``) and touches no
connection, unless the policy is ``"ask_all"`` → the descriptor's ``approval_default``.

When a call needs approval the gate applies ``policy``:

* ``"ask_all"`` — like ``"ask"``, and reads of session data ask even when nothing leaves;
* ``"approve"`` / ``"decline"`` — decided without asking; the decision carries a notice so the
  front door can print what was approved or declined;
* ``"ask"`` — the ``approver`` callable is asked. It returns an :class:`ApprovalDecision`, or
  :data:`PENDING` when it has shown the request to a human who will answer through
  :meth:`ApprovalGate.resolve` (a widget or the side panel), or ``None`` when no human can be
  reached (a headless run) — then the call is declined with a notice saying how to allow it.

Each request has its own slot: an answer for a request that is no longer waiting (a double
click, a stale prompt) is a no-op and never approves a later request.
"""
from __future__ import annotations

import itertools
import json
import logging
import re
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .registry import ToolDescriptor, canonical_tool_name

__all__ = [
    "ApprovalRequest", "ApprovalDecision", "ApprovalGate", "Approver", "PENDING",
    "REJECTED_TEXT", "rejection_text", "POLICIES", "reads_session_data", "destination_text",
]

log = logging.getLogger(__name__)

REJECTED_TEXT = "Tool execution rejected by user."
_PREVIEW_LIMIT = 4000
_ids = itertools.count(1)
POLICIES = ("ask", "ask_all", "approve", "decline")
#: reads whose input is a file or a server rather than the session's tables and DataFrames
_NOT_SESSION_READS = frozenset({"load_data"})


class _Pending:
    def __repr__(self) -> str:
        return "PENDING"


#: returned by an approver that showed the request to a human who answers via ``resolve``
PENDING: Any = _Pending()


@dataclass(frozen=True)
class ApprovalRequest:
    id: str
    tool_name: str
    arguments: dict[str, Any]
    category: str                 # read | write | execute
    dialog: str | None            # sql_preview | analysis_plan | code | None
    preview: str                  # what a human should look at (the SQL, the code, the arguments)
    #: where the call's result goes when it leaves this machine (the model's host), else ""
    destination: str = ""


@dataclass(frozen=True)
class ApprovalDecision:
    approved: bool
    feedback: str = ""
    #: a follow-up the front door may perform, e.g. "insert_cell" for code
    action: str | None = None
    #: shown to the user (not the model) when a policy decided instead of a human
    notice: str = ""


Approver = Callable[[ApprovalRequest], "ApprovalDecision | None | Any"]


def rejection_text(decision: ApprovalDecision) -> str:
    """What the model is told when a call was rejected (REFERENCE §1.2, verbatim)."""
    feedback = decision.feedback.strip()
    if not feedback:
        return REJECTED_TEXT
    return f"User rejected this operation.\nFeedback: {feedback}\nPlease revise your approach based on the feedback."


def destination_text(request: ApprovalRequest) -> str:
    """One line for the prompt when the call's rows leave this machine ("" when they do not)."""
    if not request.destination:
        return ""
    return (f"Its result rows go to the model at {request.destination}, off this machine "
            "(a model on this machine would not ask).")


def reads_session_data(descriptor: ToolDescriptor) -> bool:
    """A tool that only reads the session's own tables and live DataFrames (queries, statistics,
    descriptions, charts, a full-table analysis): no side effect, no file, no server."""
    return (descriptor.category == "read" and descriptor.source == "analysis"
            and canonical_tool_name(descriptor.name) not in _NOT_SESSION_READS)


def _names_a_connection(arguments: Mapping[str, Any], connections: frozenset[str]) -> bool:
    """Whether any argument mentions ``<connection>.`` (a connection's table): such a read
    reaches a server, so it asks as before. A mention inside a string literal asks too."""
    if not connections:
        return False
    text = " ".join(str(value) for value in arguments.values())
    return any(re.search(rf'(?<![\w.])"?{re.escape(name)}"?\s*\.', text, re.IGNORECASE)
               for name in connections)


def _preview(descriptor: ToolDescriptor, arguments: Mapping[str, Any]) -> str:
    if descriptor.dialog == "sql_preview" and isinstance(arguments.get("sql"), str):
        text = arguments["sql"]
    elif descriptor.dialog == "code" and isinstance(arguments.get("code"), str):
        text = arguments["code"]
    elif descriptor.dialog == "analysis_plan" and isinstance(arguments.get("prompt"), str):
        table = arguments.get("table")
        text = arguments["prompt"] + (f"\n(table: {table})" if table else "")
    else:
        text = json.dumps(dict(arguments), indent=2, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > _PREVIEW_LIMIT:
        text = text[:_PREVIEW_LIMIT] + f"\n… ({len(text) - _PREVIEW_LIMIT} more characters)"
    return text


def _how_to_allow(tool: str) -> str:
    return (f'allow it with `%config ShellAgent.approval_policy = "approve"` or for this tool only '
            f'with `%config ShellAgent.approval_overrides = {{"{tool}": False}}`')


@dataclass
class _Slot:
    request: ApprovalRequest
    done: threading.Event = field(default_factory=threading.Event)
    decision: ApprovalDecision | None = None


class ApprovalGate:
    """Thread-safe: ``check`` runs on the turn's thread, ``resolve`` on any thread."""

    def __init__(self, overrides: Mapping[str, bool] | None = None, policy: str = "ask", *,
                 approver: Approver | None = None,
                 publish: Callable[[str, dict], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._slots: dict[str, _Slot] = {}
        self.overrides = overrides or {}
        self.policy = policy
        #: where the model that reads tool results runs: None on this machine (or rows are not
        #: shared with it), else its host. Set by the agent for each turn from the backend; until
        #: then unknown, so reads ask.
        self.rows_go_to: str | None = "the model"
        #: names of the session's connections (a read naming one reaches a server and asks)
        self.connections: frozenset[str] = frozenset()
        self.approver = approver
        self._publish = publish or (lambda type, data: None)

    # -- configuration (read live from settings by the agent) --------------------------------
    @property
    def overrides(self) -> dict[str, bool]:
        return dict(self._overrides)

    @overrides.setter
    def overrides(self, value: Mapping[str, bool]) -> None:
        self._overrides = {canonical_tool_name(k): bool(v) for k, v in value.items()}

    @property
    def policy(self) -> str:
        return self._policy

    @policy.setter
    def policy(self, value: str) -> None:
        if value not in POLICIES:
            raise ValueError(f'approval policy must be "ask", "ask_all", "approve" or "decline", got {value!r}')
        self._policy = value

    # -- resolution -------------------------------------------------------------------------
    def required(self, descriptor: ToolDescriptor, arguments: Mapping[str, Any] | None = None) -> bool:
        """Whether calling this tool (with ``arguments``, when known) asks first."""
        name = canonical_tool_name(descriptor.name)
        if name in self._overrides:
            return self._overrides[name]
        if name.startswith("mcp__") or descriptor.source == "mcp" or name.startswith("sandbox_"):
            return True
        if descriptor.approval_default and self.stays_here(descriptor, arguments or {}):
            return False
        return bool(descriptor.approval_default)

    def stays_here(self, descriptor: ToolDescriptor, arguments: Mapping[str, Any]) -> bool:
        """A read of session data whose result stays on this machine (policy ``"ask_all"``: never)."""
        return (self._policy != "ask_all" and self.rows_go_to is None and reads_session_data(descriptor)
                and not _names_a_connection(arguments, self.connections))

    def check(self, descriptor: ToolDescriptor, arguments: Mapping[str, Any], *,
              cancel: threading.Event | None = None) -> ApprovalDecision:
        """Decide one call: approve freely, by policy, or by asking (blocks until answered)."""
        if not self.required(descriptor, arguments):
            return ApprovalDecision(True)
        leaves = reads_session_data(descriptor) and self.rows_go_to is not None
        request = ApprovalRequest(
            id=f"apr-{next(_ids)}-{secrets.token_hex(4)}", tool_name=descriptor.name,
            arguments=dict(arguments), category=descriptor.category, dialog=descriptor.dialog,
            preview=_preview(descriptor, arguments), destination=(self.rows_go_to or "") if leaves else "")
        policy = self._policy
        if policy == "approve":
            return self._announce(request, ApprovalDecision(
                True, notice=f"Approved `{descriptor.name}` by policy (approval_policy = \"approve\"):\n"
                             f"{request.preview}"))
        if policy == "decline":
            return self._announce(request, ApprovalDecision(
                False, notice=f"Declined `{descriptor.name}` by policy (approval_policy = \"decline\"); "
                              + _how_to_allow(descriptor.name)))
        return self._ask(request, cancel)

    def resolve(self, request_id: str, approved: bool, feedback: str = "", action: str | None = None) -> bool:
        """Answer a waiting request. Returns False (and does nothing) if none is waiting under that id."""
        decision = ApprovalDecision(bool(approved), feedback or "", action)
        with self._lock:
            slot = self._slots.pop(request_id, None)
            if slot is None or slot.done.is_set():
                return False
            slot.decision = decision
            slot.done.set()
        self._publish("approval_resolved", {"request_id": request_id, "approved": decision.approved,
                                            "feedback": decision.feedback})
        return True

    def cancel_all(self, feedback: str = "") -> int:
        """Reject every waiting request (used by abort). Returns how many were waiting."""
        with self._lock:
            ids = list(self._slots)
        return sum(self.resolve(i, False, feedback) for i in ids)

    def pending(self) -> list[ApprovalRequest]:
        with self._lock:
            return [s.request for s in self._slots.values()]

    # -- internals --------------------------------------------------------------------------
    def _announce(self, request: ApprovalRequest, decision: ApprovalDecision) -> ApprovalDecision:
        self._publish("approval_resolved", {"request_id": request.id, "approved": decision.approved,
                                            "feedback": decision.feedback, "notice": decision.notice,
                                            "tool_name": request.tool_name})
        return decision

    def _ask(self, request: ApprovalRequest, cancel: threading.Event | None) -> ApprovalDecision:
        slot = _Slot(request)
        with self._lock:
            self._slots[request.id] = slot
        self._publish("approval_request", {"request_id": request.id, "tool_name": request.tool_name,
                                           "arguments": request.arguments, "category": request.category,
                                           "dialog": request.dialog, "preview": request.preview,
                                           "destination": request.destination})
        answer: Any = None
        if self.approver is not None:
            try:
                answer = self.approver(request)
            except Exception:  # an approver that breaks must not approve anything
                log.exception("approver failed for %s", request.tool_name)
                answer = ApprovalDecision(False, notice=f"The approval prompt for `{request.tool_name}` failed; "
                                                        "the call was not run.")
        if isinstance(answer, ApprovalDecision):
            with self._lock:
                current = self._slots.pop(request.id, None)
            if current is None and slot.decision is not None:
                return slot.decision          # someone (the panel) answered first
            self._publish("approval_resolved", {"request_id": request.id, "approved": answer.approved,
                                                "feedback": answer.feedback})
            return answer
        if answer is None and not slot.done.is_set():
            with self._lock:
                current = self._slots.pop(request.id, None)
            if current is not None:
                return self._announce(request, ApprovalDecision(
                    False, notice=f"`{request.tool_name}` needs approval and no one can answer here; "
                                  + _how_to_allow(request.tool_name)))
        # PENDING (or an answer that raced in): wait for resolve() or cancellation
        while not slot.done.wait(0.05 if cancel is not None else None):
            if cancel is not None and cancel.is_set():
                self.resolve(request.id, False)
        assert slot.decision is not None
        return slot.decision
