"""One user turn: record the message, then ask the model and run its tool calls, round by round.

Everything is injected through :class:`TurnEnv`, so the loop runs the same under the magic,
the side panel and the tests. The loop never holds the agent's lock.
"""
from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from ..llm.errors import CancelledError, LLMError, ToolArgumentsError
from ..llm.cpu_load import LoadWatch
from ..llm.lenient import extract_tool_calls
from ..context.prompt import COMPACT_BASE_PROMPT
from ..llm.types import Backend, ChatOptions, Message, Response, RetryInfo, ToolCall
from ..sharing import model_view, record_meta
from ..tools.approval import ApprovalGate, rejection_text
from ..tools.registry import ToolContext, ToolEngine, ToolError, ToolRegistry, ToolResult, ToolSettings
from . import _context
from ._ask import tool_ask
from ._arguments import argument_problem
from ._batch import MAX_CALLS_PER_REPLY, SAME_CALL_TEXT, cap_note, plan_batch
from ._budget import Deadline, DeadlineEvent, late_answer, seconds_clock
from ._rawcalls import strip_raw_calls
from ._loopguard import (ANSWER_NOTE, EMPTY_REPLY_NOTE, FAKE_RESULT_NOTE, PROMISE_NOTE, REPEATED_CALL_NOTE,
                         LoopDetector, correct_rounding, format_note, grounding_note, missing_templates,
                         named_tool_note, written_query,
                         imitates_tool_result, promises_next_step, strip_fake_result,
                         ungrounded_numbers)
from ..answers.numbers import humane_numbers
from ..answers.spec import PARTS, AnswerSpec, read_spec
from ._summaries import result_summary
from ._tool_sets import ANSWER_SCHEMA, answer_text, call_schema, compact_tools, first_call_tools
from ._types import Reply, ToolActivity
from ._route import ANSWER, REPLY, Route, choose_route, tools_of
from ._answer_routes import RouteTurn, answered_by_program, short_summary as _summary, tables_of as _tables

__all__ = ["TurnEnv", "TurnStore", "TurnContext", "run_turn", "MAX_ROUNDS_TEXT", "CANCELLED_TEXT",
           "MAX_CALLS_PER_REPLY", "CALL_TOKENS", "ANSWER_TOKENS", "OUT_OF_TIME_RESULT"]

log = logging.getLogger(__name__)

MAX_ROUNDS_TEXT = "(Max tool rounds reached)"
CANCELLED_TEXT = "(Cancelled)"
#: output tokens of a request that must call a tool, and of any other (compact tool set, i.e. the
#: small local models): the embedded model's recorded calls take at most ~120 tokens and its
#: answers at most ~110 (notebooks/cassettes), so these leave 3-5x room while a runaway reply
#: ends within seconds instead of minutes
CALL_TOKENS = 400
ANSWER_TOKENS = 600
#: output tokens of the route's choice ({"way": "create_chart"} is about ten)
ROUTE_TOKENS = 32
#: the result recorded for a call the question's time budget left no time to run
OUT_OF_TIME_RESULT = "Not run: the time for this question ran out."
#: seconds between two ``model_wait`` events while a model request runs
_HEARTBEAT_SECONDS = 5.0


@dataclass
class _Progress:
    """What a running model request has produced so far (None: not streamed, unknown)."""

    tokens: int | None = None


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


class _Cancelled(Exception):
    pass


class _OutOfTime(Exception):
    """The question's time budget is spent."""


def _replay_meta(response: Response) -> dict[str, Any] | None:
    """Provider data the next request must send back (e.g. Gemini thought signatures)."""
    if not response.extra:
        return None
    try:
        json.dumps(response.extra)
    except (TypeError, ValueError):
        return None
    return {"extra": dict(response.extra)}


#: calls of one tool in one question after which the compact set's next reply must answer
_MAX_CALLS_OF_ONE_TOOL = 4
#: the footer of a result the model saw only in part (see analysis.tools_data)
_LISTING = re.compile(r"\(\d[\d,]* rows; first \d[\d,]* shown\)")


def _call_key(call: ToolCall) -> str:
    try:
        return call.name + json.dumps(call.arguments, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return call.name + repr(call.arguments)


def _serialise_calls(calls: list[ToolCall]) -> list[dict[str, Any]]:
    return [{"id": c.id, "name": c.name, "arguments": c.arguments, **({"extra": c.extra} if c.extra else {})}
            for c in calls]


class _Turn:
    # the state of one run (set at the start of ``run``)
    _pending_notes: list[str]
    _data_changed: bool
    _data_baseline: tuple | None
    _schema: str | None
    _seen_ids: set[str]
    _message: str
    #: the answer the question asks for, read once (every stage takes it from here)
    _spec: AnswerSpec
    _evidence: list[str]
    _done_calls: set[str]
    _offered: set[str]
    _called: set[str]
    _require: set[str]
    _asked_for: set[str] | None
    _answer_next: bool
    _counts: dict[str, int]
    _deadline: Deadline
    _load: LoadWatch
    _results: list[tuple[str, str]]
    _replies: int

    def __init__(self, env: TurnEnv) -> None:
        self.env = env
        self.sid = env.session.id
        self.reply = Reply(turn_id=env.turn_id)
        self.loop_guard = LoopDetector()
        self._fingerprint = self._store_fingerprint()

    # -- helpers ------------------------------------------------------------------------------
    def _check_cancel(self, budget: bool = True) -> None:
        if self.env.cancel.is_set():
            raise _Cancelled()
        if budget and self._deadline.spent():
            raise _OutOfTime()

    def _out_of_time(self) -> None:
        """The budget is spent: answer from the tools' results so far (never a number of its own)."""
        env = self.env
        self._load.sample()
        busy = self._load.busy()
        if busy is not None:
            log.info("question budget spent on a busy machine: %s", busy)
        text = late_answer(self._deadline.budget, self._results, started=self._replies > 0,
                           busy=busy.describe() if busy is not None else "")
        env.store.append_record(self.sid, "assistant", text)
        self.reply.text = text
        env.publish("question_budget_spent", {"turn_id": env.turn_id, "budget": self._deadline.budget,
                                              "results": len(self._results),
                                              "busy": busy.describe() if busy is not None else None})

    def _tool_context(self, call_id: str = "", name: str = "") -> ToolContext:
        env = self.env

        def publish(type_: str, data: dict) -> None:
            if type_ == "tool_progress" and name and "name" not in data:
                data = {**data, "name": name}
            env.publish(type_, data)

        work_dir = None
        try:
            work_dir = env.store.session_dir(self.sid) / "work"
        except Exception:
            pass
        ctx = ToolContext(session_id=self.sid, store=env.store, engine=env.engine,
                          publish=publish, cancel=env.cancel, tool_call_id=call_id, turn_id=env.turn_id,
                          private=bool(env.session.private), auto_extract=env.auto_extract, work_dir=work_dir,
                          namespace=env.namespace, settings=env.settings, clock=env.clock,
                          wrap=_context.wrap_untrusted,
                          ask=tool_ask(env.backend, env.cancel, sharing=env.data_sharing))
        return ctx

    def _store_fingerprint(self) -> dict[str, tuple]:
        store, sid = self.env.store, self.sid
        out: dict[str, tuple] = {}
        for key, fn in (("findings", lambda: store.findings.list(sid)),
                        ("global", lambda: store.global_memory.list()),
                        ("session", lambda: store.session_memory.list(sid))):
            try:
                out[key] = tuple((e.id, getattr(e, "touch_count", 0), getattr(e, "fact", None) or
                                  getattr(e, "content", None), getattr(e, "state", None)) for e in fn())
            except Exception:
                out[key] = ()
        return out

    def _publish_store_changes(self) -> None:
        """After a batch of tool calls: tell listeners which stores changed, and note what is new."""
        before, after = self._fingerprint, self._store_fingerprint()
        self._fingerprint = after
        events = {"findings": "findings_updated", "global": "global_memory_updated",
                  "session": "session_memory_updated"}
        for key, event in events.items():
            if before.get(key) != after.get(key):
                self.env.publish(event, {})
        old_findings = {f[0] for f in before.get("findings", ())}
        new_ids = [f[0] for f in after.get("findings", ()) if f[0] not in old_findings]
        if new_ids:
            try:
                by_id = {f.id: f for f in self.env.store.findings.list(self.sid)}
                self.reply.new_findings.extend(by_id[i] for i in new_ids if i in by_id)
            except Exception:
                log.exception("could not list new findings")
        for scope in ("global", "session"):
            old = {e[0] for e in before.get(scope, ())}
            for entry in after.get(scope, ()):
                if entry[0] not in old:
                    self.reply.memory_changes.append({"scope": scope, "id": entry[0], "fact": entry[2],
                                                      "action": "added"})

    def _ask_model(self, notes: list[str], tool_choice: str | None = None, *, first: bool = False) -> Response:
        env = self.env
        schema = None
        if env.schema_in_prompt:
            if self._schema is None:
                from ..analysis.prompt_schema import schema_text   # analysis is optional: lazily

                self._schema = schema_text(env.engine, tables=_tables(env.engine), sharing=env.data_sharing)
            schema = self._schema
        built = env.builder.build(self.sid, budget=env.budget, summarizer=env.backend, notes=list(notes),
                                  data_schema=schema,
                                  base_prompt=COMPACT_BASE_PROMPT if env.tool_set == "compact" else None,
                                  history="turn" if env.tool_set == "compact" else "full",
                                  sharing=env.data_sharing)
        self.reply.prompt_tokens.append(built.stats.get("total_tokens", 0))
        ctx = self._tool_context()
        tools = env.registry.specs(ctx, env.disabled)
        if env.tool_set == "compact":
            tools = compact_tools(tools, tools_of(self._route.way))
        self._offered = {t.name for t in tools}
        response_format = None
        must_call = tool_choice == "required" and bool(tools)
        if not tools:
            tool_choice = None
        elif tool_choice and not getattr(env.backend.capabilities, "tool_choice", True):
            # the server cannot be told to call a tool (or not to), but it can be held to a
            # schema: one whose only instances are calls of the offered tools, or an answer
            candidates = first_call_tools(tools) if first else tools
            if self._require:
                candidates = [t for t in tools if t.name in self._require] or candidates
            response_format = call_schema(candidates) if tool_choice == "required" else ANSWER_SCHEMA
            tool_choice = None
        self._require = set()

        max_tokens = None
        if env.tool_set == "compact":   # small local models: a runaway reply ends early
            max_tokens = CALL_TOKENS if must_call else ANSWER_TOKENS
        cancel = DeadlineEvent(env.cancel, self._deadline) if self._deadline.at is not None else env.cancel
        options = ChatOptions(cancel=cancel, on_retry=self._on_retry, tool_choice=tool_choice,
                              response_format=response_format, max_output_tokens=max_tokens)
        with self._heartbeat() as progress:
            if env.backend.capabilities.streaming:
                progress.tokens = 0

                def on_text(piece: str) -> None:
                    if piece:
                        progress.tokens = (progress.tokens or 0) + 1   # a server chunk is a token
                        env.publish("stream_token", {"turn_id": env.turn_id, "text": piece})
                response = env.backend.stream(built.messages, tools, on_text=on_text, options=options)
            else:
                response = env.backend.chat(built.messages, tools, options=options)
        self._replies += 1
        return response

    @contextlib.contextmanager
    def _heartbeat(self) -> Iterator[_Progress]:
        """While a model request runs: a ``model_wait`` event every few seconds with the seconds
        the question has taken and, when the reply is streamed, the tokens received so far, so a
        long prompt or a slow reply shows it is still working. Each beat also samples the
        machine's CPU use (:class:`LoadWatch`): a budget spent on a busy machine says so."""
        env, done, progress = self.env, threading.Event(), _Progress()

        def beat() -> None:
            while not done.wait(_HEARTBEAT_SECONDS):
                env.publish("model_wait", {"turn_id": env.turn_id, "elapsed": int(self._deadline.elapsed),
                                           "budget": self._deadline.budget or None,
                                           "tokens": progress.tokens})
                if not done.is_set():
                    self._load.sample()

        worker = threading.Thread(target=beat, name="model-wait", daemon=True)
        worker.start()
        try:
            yield progress
        finally:
            done.set()

    # -- one tool call ------------------------------------------------------------------------
    def _run_call(self, call: ToolCall) -> bool:
        """Run one call; True when it repeated a call already made (and was not run again)."""
        env = self.env
        activity = ToolActivity(tool_call_id=call.id, name=call.name,
                                arguments=call.arguments if isinstance(call.arguments, dict) else {})
        self.reply.tool_activity.append(activity)
        env.publish("tool_start", {"turn_id": env.turn_id, "tool_call_id": call.id, "name": call.name,
                                   "arguments": activity.arguments})
        result = self._execute(call, activity)
        if result.status == "error" and activity.status == "running":
            activity.status = "error"
        elif activity.status == "running":
            activity.status = "success"
        activity.summary = _summary(result.content)
        meta = record_meta(result.data)
        seen = model_view(call.name, result.content or "", meta, env.data_sharing, status=result.status)
        if result.status != "error" and result.content:
            self._results.append((call.name, result.content))
        if not _LISTING.search(seen):
            # a number read off a long listing of rows is not an answer to a question about them
            self._evidence.append(seen)
        try:
            self._evidence.append(json.dumps(call.arguments, ensure_ascii=False, default=str))
        except (TypeError, ValueError):
            pass
        env.store.append_record(self.sid, "tool", result.content, tool_name=call.name, tool_call_id=call.id,
                                status=result.status, meta=meta)
        self._collect(result)
        activity.ran = {k: list(v) for k, v in (result.data or {}).items() if k in ("sql", "code", "charts") and v}
        env.publish("tool_end", {"turn_id": env.turn_id, "tool_call_id": call.id, "name": call.name,
                                 "status": activity.status, "summary": activity.summary})
        note = self.loop_guard.record(call.name, result.status)
        if note:
            self._pending_notes.append(note)
        return result.content == REPEATED_CALL_NOTE

    def _execute(self, call: ToolCall, activity: ToolActivity) -> ToolResult:
        env = self.env
        ctx = self._tool_context(call.id, call.name)
        descriptor = env.registry.get(call.name)
        if descriptor is None or descriptor.name in env.disabled or not descriptor.available(ctx):
            names = ", ".join(d.name for d in env.registry.available(ctx, env.disabled)) or "none"
            return ToolResult(f"Error: there is no tool named {call.name!r} here. Available tools: {names}",
                              status="error")
        key = _call_key(call)
        if key in self._done_calls and descriptor.category == "read":
            return ToolResult(REPEATED_CALL_NOTE, status="error")
        self._done_calls.add(key)
        self._called.add(call.name)
        if descriptor.source == "analysis" and self._data_baseline is None:
            self._data_baseline = self._data_fingerprint()
        problem = argument_problem(call, descriptor.parameters, env.max_args_bytes)
        if problem:
            return ToolResult(f"Error: {problem}", status="error")
        asked = self._deadline.now()
        decision = env.gate.check(descriptor, call.arguments, cancel=env.cancel)
        self._deadline.extend(self._deadline.now() - asked)   # a person's time to decide is not the turn's
        activity.notice = decision.notice
        if not decision.approved:
            activity.status = "rejected"
            return ToolResult(rejection_text(decision), status="error")
        self._check_cancel()
        ctx.decision = decision
        began = self._deadline.now()
        try:
            out = descriptor.handler(ctx, dict(call.arguments))
        except ToolError as exc:
            return ToolResult(f"Error: {exc}", status="error")
        except Exception as exc:  # a broken tool is reported to the model, never ends the turn
            log.exception("tool %s failed", call.name)
            return ToolResult(f"Error: {call.name} failed: {type(exc).__name__}: {exc}", status="error")
        finally:
            if descriptor.own_time:          # long work asked for: not the question's time
                self._deadline.extend(self._deadline.now() - began)
        if isinstance(out, str):
            return ToolResult(out)
        if isinstance(out, ToolResult):
            return out
        return ToolResult(json.dumps(out, default=str, ensure_ascii=False))

    def _unique_ids(self, calls: list[ToolCall]) -> None:
        """Every call of the turn gets its own id (some local servers send none, or reuse "0")."""
        for n, call in enumerate(calls):
            if not call.id or call.id in self._seen_ids:
                call.id = f"call-{self.env.turn_id}-{len(self._seen_ids) + 1}"
            self._seen_ids.add(call.id)

    def _answer_unrun(self, call: ToolCall, text: str) -> None:
        """Record ``text`` as the result of a call that is not run (every recorded call has one)."""
        self.env.store.append_record(self.sid, "tool", text, tool_name=call.name, tool_call_id=call.id,
                                     status="success" if text == SAME_CALL_TEXT else "error")

    def _calls_in_text(self, text: str) -> tuple[list[ToolCall], str]:
        """Calls written out in the reply's text, of any tool available (not only those offered
        this round); what cannot be taken as a call is removed from the text."""
        env = self.env
        try:
            specs = env.registry.specs(self._tool_context(), env.disabled)
        except Exception:
            log.debug("could not list the tools", exc_info=True)
            specs = []
        found = extract_tool_calls(text, specs)
        return found.tool_calls, strip_raw_calls(found.text)

    def _report_bad_call(self, exc: ToolArgumentsError) -> list[str]:
        env = self.env
        call = ToolCall(id=exc.tool_call_id or f"call-{env.turn_id}-bad", name=exc.tool_name or "unknown")
        env.store.append_record(self.sid, "assistant", "", tool_calls=_serialise_calls([call]))
        activity = ToolActivity(tool_call_id=call.id, name=call.name, arguments={}, status="error",
                                summary=_summary(exc.message))
        self.reply.tool_activity.append(activity)
        env.publish("tool_start", {"turn_id": env.turn_id, "tool_call_id": call.id, "name": call.name,
                                   "arguments": {}})
        env.store.append_record(self.sid, "tool", f"Error: {exc.message}. Call the tool again with one valid "
                                "JSON object as its arguments.", tool_name=call.name, tool_call_id=call.id,
                                status="error")
        env.publish("tool_end", {"turn_id": env.turn_id, "tool_call_id": call.id, "name": call.name,
                                 "status": "error", "summary": activity.summary})
        note = self.loop_guard.record(call.name, "error")
        return [note] if note else []

    def _collect(self, result: ToolResult) -> None:
        data = result.data or {}
        self.reply.tables.extend(data.get("tables") or ())
        self.reply.charts.extend(data.get("charts") or ())
        self.reply.sql.extend(data.get("sql") or ())
        if data.get("insert_cell"):
            self.reply.cells.append(str(data["insert_cell"]))
        if data.get("data_changed"):
            self._data_changed = True

    def _data_fingerprint(self) -> tuple:
        engine = self.env.engine
        if engine is None:
            return ()
        try:
            return tuple((t.name, t.kind, t.rows, tuple(map(tuple, t.columns))) for t in engine.tables())
        except Exception:
            log.debug("could not list tables", exc_info=True)
            return ()

    def _check_data(self) -> None:
        """After a batch that used analysis tools: did the tables change?"""
        if self._data_baseline is None:
            return
        now = self._data_fingerprint()
        if now != self._data_baseline:
            self._data_changed = True
            self._schema = None
        self._data_baseline = None

    # -- the loop -----------------------------------------------------------------------------
    def run(self, message: str) -> Reply:
        env = self.env
        record = env.store.append_record(self.sid, "user", message)
        marker = _begin_turn(env.store, self.sid, record)
        env.publish("records_updated", {})
        self._pending_notes = []
        self._data_changed = False
        self._data_baseline = None
        self._schema = None
        self._seen_ids = set()
        self._message = message
        self._spec = self.reply.spec = read_spec(message)
        self._route = Route(REPLY, "fallback")       # chosen when the loop starts
        self._evidence = [message]
        self._done_calls = set()
        self._offered = set()
        self._called = set()
        self._require = set()
        self._asked_for = None
        self._answer_next = False
        self._counts = {}
        self._results = []
        self._replies = 0
        self._deadline = Deadline(env.question_budget, seconds_clock(env.clock))
        self._load = LoadWatch()
        try:
            _context.run_lifecycle(env.store, self.sid, message)
            self._loop()
        except _OutOfTime:
            self._out_of_time()
        except (_Cancelled, CancelledError):
            if not env.cancel.is_set() and self._deadline.spent():
                self._out_of_time()        # the model request was stopped at the deadline
            else:
                self.reply.text = CANCELLED_TEXT
        except LLMError as exc:
            self.reply.error = str(exc)
        except Exception as exc:  # the turn ends with a clear error; the user's message is kept
            log.exception("turn failed")
            self.reply.error = f"{type(exc).__name__}: {exc}"
        finally:
            if marker is not None:
                marker.end()
            self._publish_store_changes()
            self._check_data()
            if self._data_changed:
                env.publish("data_updated", {})
            env.publish("records_updated", {})
        return self.reply

    def _first_choice(self) -> str | None:
        """"required" when this turn's message goes the answer way, or names a tool while there
        is data (\"… record it with promote_finding\": the answer is found first), and must start
        with a tool."""
        if not self.env.require_tool_first:
            return None
        named = self._route.source == "tool name" and bool(_tables(self.env.engine))
        return "required" if self._route.answers or named else None

    def _choose_route(self) -> Route:
        """The way this turn's message goes (``_route``): asked of the model only with the compact
        tool set or a program strategy, where the way decides what runs and what is offered."""
        env = self.env
        tables = [t.name for t in _tables(env.engine)]
        if env.tool_set != "compact" and env.answer_strategy not in ("program", "operation"):
            return Route(ANSWER if tables else REPLY, "fallback")
        tools = env.registry.specs(self._tool_context(), env.disabled)
        ask = self._route_ask if env.route_by_model else None
        route = choose_route(self._message, self._spec, tools=tools, tables=tables, ask=ask)
        log.info("route: %s (%s)", route.way, route.source)
        return route

    def _on_retry(self, info: RetryInfo) -> None:
        self.env.publish("retry_backoff", {"attempt": info.attempt, "max_attempts": info.max_attempts,
                                           "delay": info.delay, "error": info.error})

    def _route_ask(self, system: str, user: str, schema: dict) -> str:
        env = self.env
        cancel = DeadlineEvent(env.cancel, self._deadline) if self._deadline.at is not None else env.cancel
        options = ChatOptions(cancel=cancel, temperature=0.0, response_format=schema,
                              max_output_tokens=ROUTE_TOKENS, on_retry=self._on_retry)
        with self._heartbeat():
            response = env.backend.chat([Message("system", system), Message("user", user)], options=options)
        return (response.text or "").strip()

    def _refusal(self, text: str, retried: set[str]) -> tuple[str, str] | None:
        """Why a reply without tool calls is not taken as the answer yet: (kind, note), or None.

        Each kind is sent back once per turn; the retry must call a tool."""
        if "promise" not in retried and promises_next_step(text):
            return "promise", PROMISE_NOTE
        named = sorted(n for n in self._offered if n not in self._called
                       and re.search(rf"\b{re.escape(n)}\b", self._message))
        if "named" not in retried and named:
            self._require = set(named)
            self._asked_for = set(named)
            return "named", named_tool_note(named)
        asked = self._spec.names if self._spec.style == PARTS else ()
        unfilled = missing_templates(asked, text) if self._called else []
        if "format" not in retried and self.env.tool_set == "compact" and unfilled:
            self._answer_next = True
            return "format", format_note(unfilled)
        if "ground" not in retried and self.env.tool_set == "compact" and _tables(self.env.engine):
            loose = ungrounded_numbers(text, self._evidence)
            if loose:
                return "ground", grounding_note(loose)
        return None

    def _finish(self, text: str) -> str:
        """The answer's slots written in the form the question asks, from computed values only."""
        from ..answers.compose import finish
        from ..answers.forms import form_of

        form = form_of(self._spec)
        if form.style == "free":
            return finish(form, text, computed=True).text
        computed = any(a.status == "success" for a in self.reply.tool_activity)
        sources = self._evidence

        def grounded(raw: str) -> bool:
            return not ungrounded_numbers(raw, sources)

        return finish(form, text, computed=computed, grounded=grounded).text

    def _routed(self) -> RouteTurn:
        """What an answer route (a program, an operation) needs of this turn."""
        return RouteTurn(env=self.env, sid=self.sid, reply=self.reply, message=self._message, spec=self._spec,
                         deadline=self._deadline, evidence=self._evidence, heartbeat=self._heartbeat,
                         check_cancel=self._check_cancel, route=self._route)

    def _loop(self) -> None:
        env = self.env
        self._route = self._choose_route()
        if answered_by_program(self._routed()):   # or by one operation, as configured
            return
        retried: set[str] = set()
        notes: list[str] = []
        choice = self._first_choice()
        for _ in range(env.max_rounds):
            self._check_cancel()
            try:
                response = self._ask_model(notes, choice, first=not self.reply.tool_activity)
            except ToolArgumentsError as exc:
                # the model's call could not be decoded: it sees the problem as the tool's result
                self._check_cancel()
                notes = self._report_bad_call(exc)
                continue
            self._check_cancel(budget=False)   # a reply that arrived is used, even at the deadline
            answering, notes, choice = choice == "none", [], None
            text = env.builder.clean_reply(self.sid, response.text or "")
            if answering and not response.tool_calls:
                text = answer_text(text)
            if not response.tool_calls and env.tool_set == "compact" and "query_sql" in self._offered:
                sql = written_query(text)
                if sql is not None:        # the query it wrote out is the call it meant to make
                    response.tool_calls = [ToolCall(id="", name="query_sql", arguments={"sql": sql})]
                    text = ""
            if not response.tool_calls and text.strip():
                # a call written out as text is the call it meant, or is dropped: never the answer
                response.tool_calls, text = self._calls_in_text(text)
            if not response.tool_calls:
                if imitates_tool_result(text):
                    text = strip_fake_result(text)   # never shown or kept: its numbers were invented
                    if "fake" not in retried:
                        retried.add("fake")
                        notes, choice = [FAKE_RESULT_NOTE], "required"
                        continue
                    text = "" if not text.strip() or promises_next_step(text) else text
                refusal = self._refusal(text, retried) if text.strip() else None
                if refusal is not None:
                    kind, note = refusal
                    retried.add(kind)
                    notes, choice = [note], ("none" if self._answer_next else "required")
                    self._answer_next = False
                    continue
                if text.strip():
                    if env.tool_set == "compact":
                        text = correct_rounding(text, self._evidence[1:])
                    text = self._finish(text)
                    text = humane_numbers(text, precision=self._spec.precision)
                    env.store.append_record(self.sid, "assistant", text, meta=_replay_meta(response))
                    self.reply.text = text
                    env.answered = True
                    return
                if "empty" in retried:
                    self.reply.text = ""
                    return
                retried.add("empty")
                notes = [EMPTY_REPLY_NOTE]
                continue
            batch = plan_batch(response.tool_calls, _call_key)
            response.tool_calls = batch.kept
            self._unique_ids(response.tool_calls)
            env.store.append_record(self.sid, "assistant", text, tool_calls=_serialise_calls(response.tool_calls),
                                    meta=_replay_meta(response))
            env.answered = True
            if text.strip():
                env.publish("assistant_text", {"turn_id": env.turn_id, "text": text})
            repeated = 0
            for index, call in enumerate(response.tool_calls):
                self._check_cancel(budget=False)
                if index in batch.same_as or self._deadline.spent():
                    # the same call earlier in this reply (its result is there), or no time left:
                    # answered without running it
                    self._answer_unrun(call, SAME_CALL_TEXT if index in batch.same_as else OUT_OF_TIME_RESULT)
                    repeated += index in batch.same_as
                    continue
                repeated += self._run_call(call)
                self._counts[call.name] = self._counts.get(call.name, 0) + 1
            if batch.dropped:
                self._pending_notes.append(cap_note(batch))
            env.publish("records_updated", {})
            self._publish_store_changes()
            self._check_data()
            notes, self._pending_notes = self._pending_notes, []
            done_asked = self._asked_for is not None and self._asked_for <= self._called
            over_used = env.tool_set == "compact" and max(self._counts.values(), default=0) >= _MAX_CALLS_OF_ONE_TOOL
            if repeated == len(response.tool_calls) or batch.same_as or done_asked or over_used:
                # it has its results (or did what was asked, or keeps calling one tool): the next
                # reply must answer
                choice, notes = "none", [*notes, ANSWER_NOTE]
                self._asked_for = None
        self.reply.text = MAX_ROUNDS_TEXT

def _begin_turn(store: Any, sid: str, record: Any) -> Any:
    """Mark the turn as running in this process, so a kernel killed mid-turn leaves it marked
    interrupted for the next one (None when the store cannot: the turn runs on regardless)."""
    begin = getattr(store, "begin_turn", None)
    if begin is None:
        return None
    try:
        return begin(sid, record.seq)
    except Exception:
        log.warning("could not mark the turn as running", exc_info=True)
        return None


def run_turn(env: TurnEnv, message: str) -> Reply:
    """Run one user turn to its end (text, error, cancellation or the round limit)."""
    return _Turn(env).run(message)
