"""The tool calls of one turn: each call checked, approved, run and recorded, with what the turn
keeps of its result (the evidence an answer's numbers may come from, tables, charts, SQL, cells
to insert), and the calls that are not run (a repeat, no time left, arguments that could not be
decoded) answered in the records all the same.
"""
from __future__ import annotations

import json
import logging
import re
from typing import Any

from ..llm.errors import ToolArgumentsError
from ..llm.lenient import extract_tool_calls
from ..llm.types import ToolCall
from ..sharing import model_view, record_meta
from ..tools.approval import rejection_text
from ..tools.registry import ToolContext, ToolError, ToolResult
from . import _context
from ._answer_routes import short_summary
from ._arguments import argument_problem
from ._ask import tool_ask
from ._batch import SAME_CALL_TEXT
from ._loopguard import REPEATED_CALL_NOTE, LoopDetector
from ._rawcalls import strip_raw_calls
from ._turn_state import TurnEnv, TurnState, check_stop
from ._types import Reply, ToolActivity

__all__ = ["ToolRuns", "call_key", "serialise_calls"]

log = logging.getLogger(__name__)

#: the footer of a result the model saw only in part (see analysis.tools_data)
_LISTING = re.compile(r"\(\d[\d,]* rows; first \d[\d,]* shown\)")


def call_key(call: ToolCall) -> str:
    """A call by its tool and arguments (two calls with the same key do the same)."""
    try:
        return call.name + json.dumps(call.arguments, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return call.name + repr(call.arguments)


def serialise_calls(calls: list[ToolCall]) -> list[dict[str, Any]]:
    return [{"id": c.id, "name": c.name, "arguments": c.arguments, **({"extra": c.extra} if c.extra else {})}
            for c in calls]


class ToolRuns:
    """Runs one turn's calls; ``loop_guard`` notices a tool that keeps failing."""

    def __init__(self, env: TurnEnv, state: TurnState, reply: Reply, loop_guard: LoopDetector) -> None:
        self.env = env
        self.state = state
        self.reply = reply
        self.loop_guard = loop_guard
        self.sid: str = env.session.id

    def context(self, call_id: str = "", name: str = "") -> ToolContext:
        """What a tool is handed (and what lists the tools available to this turn)."""
        env = self.env

        def publish(type_: str, data: dict[str, Any]) -> None:
            if type_ == "tool_progress" and name and "name" not in data:
                data = {**data, "name": name}
            env.publish(type_, data)

        work_dir = None
        try:
            work_dir = env.store.session_dir(self.sid) / "work"
        except Exception:
            pass
        return ToolContext(session_id=self.sid, store=env.store, engine=env.engine,
                           publish=publish, cancel=env.cancel, tool_call_id=call_id, turn_id=env.turn_id,
                           private=bool(env.session.private), auto_extract=env.auto_extract, work_dir=work_dir,
                           namespace=env.namespace, settings=env.settings, clock=env.clock,
                           wrap=_context.wrap_untrusted,
                           ask=tool_ask(env.backend, env.cancel, sharing=env.data_sharing))

    def run(self, call: ToolCall) -> bool:
        """Run one call; True when it repeated a call already made (and was not run again)."""
        env, state = self.env, self.state
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
        activity.summary = short_summary(result.content)
        meta = record_meta(result.data)
        seen = model_view(call.name, result.content or "", meta, env.data_sharing, status=result.status)
        if result.status != "error" and result.content:
            state.results.append((call.name, result.content))
        if not _LISTING.search(seen):
            # a number read off a long listing of rows is not an answer to a question about them
            state.evidence.append(seen)
        try:
            state.evidence.append(json.dumps(call.arguments, ensure_ascii=False, default=str))
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
            state.pending_notes.append(note)
        return result.content == REPEATED_CALL_NOTE

    def _execute(self, call: ToolCall, activity: ToolActivity) -> ToolResult:
        env, state = self.env, self.state
        ctx = self.context(call.id, call.name)
        descriptor = env.registry.get(call.name)
        if descriptor is None or descriptor.name in env.disabled or not descriptor.available(ctx):
            names = ", ".join(d.name for d in env.registry.available(ctx, env.disabled)) or "none"
            return ToolResult(f"Error: there is no tool named {call.name!r} here. Available tools: {names}",
                              status="error")
        key = call_key(call)
        if key in state.done_calls and descriptor.category == "read":
            return ToolResult(REPEATED_CALL_NOTE, status="error")
        state.done_calls.add(key)
        state.called.add(call.name)
        if descriptor.source == "analysis" and state.data_baseline is None:
            state.data_baseline = self.data_fingerprint()
        problem = argument_problem(call, descriptor.parameters, env.max_args_bytes)
        if problem:
            return ToolResult(f"Error: {problem}", status="error")
        deadline = state.deadline
        asked = deadline.now()
        decision = env.gate.check(descriptor, call.arguments, cancel=env.cancel)
        deadline.extend(deadline.now() - asked)   # a person's time to decide is not the turn's
        activity.notice = decision.notice
        if not decision.approved:
            activity.status = "rejected"
            return ToolResult(rejection_text(decision), status="error")
        check_stop(env.cancel, deadline)
        ctx.decision = decision
        began = deadline.now()
        try:
            out = descriptor.handler(ctx, dict(call.arguments))
        except ToolError as exc:
            return ToolResult(f"Error: {exc}", status="error")
        except Exception as exc:  # a broken tool is reported to the model, never ends the turn
            log.exception("tool %s failed", call.name)
            return ToolResult(f"Error: {call.name} failed: {type(exc).__name__}: {exc}", status="error")
        finally:
            if descriptor.own_time:          # long work asked for: not the question's time
                deadline.extend(deadline.now() - began)
        if isinstance(out, str):
            return ToolResult(out)
        if isinstance(out, ToolResult):
            return out
        return ToolResult(json.dumps(out, default=str, ensure_ascii=False))

    def give_ids(self, calls: list[ToolCall]) -> None:
        """Every call of the turn gets its own id (some local servers send none, or reuse "0")."""
        seen = self.state.seen_ids
        for call in calls:
            if not call.id or call.id in seen:
                call.id = f"call-{self.env.turn_id}-{len(seen) + 1}"
            seen.add(call.id)

    def answer_unrun(self, call: ToolCall, text: str) -> None:
        """Record ``text`` as the result of a call that is not run (every recorded call has one)."""
        self.env.store.append_record(self.sid, "tool", text, tool_name=call.name, tool_call_id=call.id,
                                     status="success" if text == SAME_CALL_TEXT else "error")

    def calls_in_text(self, text: str) -> tuple[list[ToolCall], str]:
        """Calls written out in the reply's text, of any tool available (not only those offered
        this round); what cannot be taken as a call is removed from the text."""
        env = self.env
        try:
            specs = env.registry.specs(self.context(), env.disabled)
        except Exception:
            log.debug("could not list the tools", exc_info=True)
            specs = []
        found = extract_tool_calls(text, specs)
        return found.tool_calls, strip_raw_calls(found.text)

    def report_bad_call(self, exc: ToolArgumentsError) -> list[str]:
        """A call whose arguments could not be decoded: recorded with the problem as its result,
        which the model reads next round. Returns the notes for that round."""
        env = self.env
        call = ToolCall(id=exc.tool_call_id or f"call-{env.turn_id}-bad", name=exc.tool_name or "unknown")
        env.store.append_record(self.sid, "assistant", "", tool_calls=serialise_calls([call]))
        activity = ToolActivity(tool_call_id=call.id, name=call.name, arguments={}, status="error",
                                summary=short_summary(exc.message))
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
            self.state.data_changed = True

    def data_fingerprint(self) -> tuple[Any, ...]:
        engine = self.env.engine
        if engine is None:
            return ()
        try:
            return tuple((t.name, t.kind, t.rows, tuple(map(tuple, t.columns))) for t in engine.tables())
        except Exception:
            log.debug("could not list tables", exc_info=True)
            return ()

    def check_data(self) -> None:
        """After a batch that used analysis tools: did the tables change?"""
        state = self.state
        if state.data_baseline is None:
            return
        if self.data_fingerprint() != state.data_baseline:
            state.data_changed = True
            state.schema = None
        state.data_baseline = None
