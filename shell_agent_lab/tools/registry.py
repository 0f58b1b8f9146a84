"""One descriptor per tool: the single source for the model's tool list, the approval
default, what the panel lists, and dispatch.

Handlers receive a :class:`ToolContext` (the session's services, injected by the agent)
and the parsed arguments; they return a :class:`ToolResult` or a plain string, or raise
:class:`ToolError` for a failure the model should see and react to.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Protocol

from ..llm.types import ToolSpec
from ..tool_names import canonical_tool_name

__all__ = [
    "Category", "ToolDescriptor", "ToolContext", "ToolResult", "ToolError", "ToolRegistry",
    "canonical_tool_name", "Ask", "ModelCallError", "ToolStore", "ToolEngine", "ToolSettings",
]

Category = Literal["read", "write", "execute"]
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class ToolError(Exception):
    """A tool failure the model sees as the tool's result (status ``error``)."""


class ModelCallError(ToolError):
    """The model call a tool made through :attr:`ToolContext.ask` failed; the text is the
    backend's one-line error."""


class ToolStore(Protocol):
    """The session's store as tool handlers use it (``store.Store``)."""

    findings: Any
    objects: Any
    global_memory: Any
    session_memory: Any

    def list_records(self, *args: Any, **kwargs: Any) -> list[Any]: ...

    def count_user_records(self, session_id: str) -> int: ...


class ToolEngine(Protocol):
    """The session's analysis engine as tool handlers use it (``analysis.AnalysisEngine``)."""

    settings: Any

    def tables(self) -> list[Any]: ...

    def has_data(self) -> bool: ...

    def query(self, *args: Any, **kwargs: Any) -> Any: ...


class ToolSettings(Protocol):
    """The resolved settings as tool handlers use them (``config.ShellAgent``)."""

    run_python_timeout: float | None


class Ask(Protocol):
    """One model call without tools, returning the reply text (``response_format``: a JSON
    schema the reply must match, where the backend supports structured output). A failed call
    raises :class:`ModelCallError`."""

    def __call__(self, system: str, user: str, *, response_format: dict[str, Any] | None = None,
                 temperature: float | None = None) -> str: ...


@dataclass
class ToolResult:
    content: str
    status: Literal["success", "error"] = "success"
    #: structured extras for front doors: {"tables": [DataFrame], "charts": [vega spec],
    #: "sql": [str], "findings": [id], "report": {...}} — never sent to the model
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolContext:
    """What a handler may use. The agent fills in what the session has."""

    session_id: str
    store: ToolStore | None = None    # shell_agent_lab.store.Store
    engine: ToolEngine | None = None  # shell_agent_lab.analysis engine for the session
    publish: Callable[[str, dict], None] = lambda type, data: None
    cancel: threading.Event = field(default_factory=threading.Event)
    tool_call_id: str = ""
    turn_id: str = ""
    private: bool = False
    auto_extract: bool = True
    work_dir: Any = None              # pathlib.Path of the session's work directory
    namespace: dict[str, Any] | None = None   # the kernel's user namespace, when there is one
    settings: ToolSettings | None = None   # resolved settings (caps, limits)
    clock: Callable[[], Any] | None = None
    #: the approval decision for this call, when one was asked (e.g. action "insert_cell")
    decision: Any = None
    #: guard-wraps untrusted text a tool sends to the model itself (e.g. analyze_data windows)
    wrap: Callable[[str], str] = lambda text: text
    #: one model call for the tools that need the model (analyze_data, analyze_text); built by
    #: the agent's loop from the session's backend, None when there is no model
    ask: Ask | None = None

    def progress(self, detail: str, current: int | None = None, total: int | None = None) -> None:
        self.publish("tool_progress", {"tool_call_id": self.tool_call_id, "turn_id": self.turn_id,
                                       "detail": detail, "current": current, "total": total})


Handler = Callable[[ToolContext, dict[str, Any]], "ToolResult | str"]


def _always(_ctx: ToolContext) -> bool:
    return True


@dataclass(frozen=True)
class ToolDescriptor:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    category: Category = "read"
    #: ask a human before running (overridable per tool)
    approval_default: bool = False
    #: how the approval prompt presents the arguments: "sql_preview", "analysis_plan", "code", or None
    dialog: str | None = None
    #: whether the tool is offered in this context (e.g. remember_fact only without auto-extraction)
    available: Callable[[ToolContext], bool] = _always
    #: where it came from: "builtin", "analysis", "python", "script", "mcp"
    source: str = "builtin"
    #: its run is long work the user asked for (a table read window by window): the time it runs
    #: does not count against the question's budget (``ShellAgent.question_budget``)
    own_time: bool = False

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"tool name {self.name!r} must be snake_case ([a-z][a-z0-9_]*)")
        if self.category not in ("read", "write", "execute"):
            raise ValueError(f"tool {self.name!r}: category must be read, write or execute")

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters)


class ToolRegistry:
    """Thread-safe set of descriptors; listing order is always sorted by name."""

    def __init__(self, descriptors: list[ToolDescriptor] | None = None) -> None:
        self._lock = threading.Lock()
        self._tools: dict[str, ToolDescriptor] = {}
        for d in descriptors or []:
            self.register(d)

    def register(self, descriptor: ToolDescriptor, *, replace: bool = True) -> None:
        with self._lock:
            if not replace and descriptor.name in self._tools:
                raise ValueError(f"a tool named {descriptor.name!r} is already registered")
            self._tools[descriptor.name] = descriptor

    def unregister(self, name: str) -> bool:
        with self._lock:
            return self._tools.pop(canonical_tool_name(name), None) is not None

    def get(self, name: str) -> ToolDescriptor | None:
        with self._lock:
            return self._tools.get(canonical_tool_name(name))

    def all(self) -> list[ToolDescriptor]:
        with self._lock:
            return [self._tools[k] for k in sorted(self._tools)]

    def available(self, ctx: ToolContext, disabled: frozenset[str] = frozenset()) -> list[ToolDescriptor]:
        return [d for d in self.all() if d.name not in disabled and d.available(ctx)]

    def specs(self, ctx: ToolContext, disabled: frozenset[str] = frozenset()) -> list[ToolSpec]:
        return [d.spec() for d in self.available(ctx, disabled)]
