"""One user turn, as stages: the message recorded and its answer spec read once, the way it goes
chosen (:mod:`._route`), an answer route tried (a program, an operation: :mod:`._answer_routes`),
then the tool loop: ask the model (:mod:`._model_request`), run its calls
(:mod:`._tool_runs`), announce what they changed (:mod:`._store_changes`), round by round, until
a reply is taken as the answer.

Everything is injected through :class:`TurnEnv`, so the loop runs the same under the magic,
the side panel and the tests. The loop never holds the agent's lock.
"""
from __future__ import annotations

import json
import logging
import re
from typing import Any

from ..llm.errors import CancelledError, LLMError, ToolArgumentsError
from ..llm.cpu_load import LoadWatch
from ..llm.types import Response, ToolCall
from ._batch import MAX_CALLS_PER_REPLY, SAME_CALL_TEXT, cap_note, plan_batch
from ._budget import Deadline, late_answer, seconds_clock
from ._loopguard import (ANSWER_NOTE, EMPTY_REPLY_NOTE, FAKE_RESULT_NOTE, PROMISE_NOTE,
                         LoopDetector, correct_rounding, format_note, grounding_note, missing_templates,
                         named_tool_note, written_query,
                         imitates_tool_result, promises_next_step, strip_fake_result,
                         ungrounded_numbers)
from ..answers.numbers import humane_numbers
from ..answers.spec import PARTS, read_spec
from . import _context
from ._tool_sets import answer_text
from ._types import Reply
from ._route import ANSWER, REPLY, Route, choose_route
from ._answer_routes import RouteTurn, answered_by_program, tables_of as _tables
from ._model_request import ANSWER_TOKENS, CALL_TOKENS, ModelRequests
from ._store_changes import StoreWatch
from ._tool_runs import ToolRuns, call_key, serialise_calls
from ._turn_state import OutOfTime, Stopped, TurnContext, TurnEnv, TurnState, TurnStore, check_stop

__all__ = ["TurnEnv", "TurnStore", "TurnContext", "run_turn", "MAX_ROUNDS_TEXT", "CANCELLED_TEXT",
           "MAX_CALLS_PER_REPLY", "CALL_TOKENS", "ANSWER_TOKENS", "OUT_OF_TIME_RESULT"]

log = logging.getLogger(__name__)

MAX_ROUNDS_TEXT = "(Max tool rounds reached)"
CANCELLED_TEXT = "(Cancelled)"
#: the result recorded for a call the question's time budget left no time to run
OUT_OF_TIME_RESULT = "Not run: the time for this question ran out."
#: calls of one tool in one question after which the compact set's next reply must answer
_MAX_CALLS_OF_ONE_TOOL = 4


def _replay_meta(response: Response) -> dict[str, Any] | None:
    """Provider data the next request must send back (e.g. Gemini thought signatures)."""
    if not response.extra:
        return None
    try:
        json.dumps(response.extra)
    except (TypeError, ValueError):
        return None
    return {"extra": dict(response.extra)}


class _Turn:
    def __init__(self, env: TurnEnv) -> None:
        self.env = env
        self.sid = env.session.id
        self.reply = Reply(turn_id=env.turn_id)
        self.loop_guard = LoopDetector()
        self.stores = StoreWatch(env.store, self.sid, env.publish, self.reply)

    def _check_cancel(self, budget: bool = True) -> None:
        check_stop(self.env.cancel, self.state.deadline, budget=budget)

    def _out_of_time(self) -> None:
        """The budget is spent: answer from the tools' results so far (never a number of its own)."""
        env, state = self.env, self.state
        state.load.sample()
        busy = state.load.busy()
        if busy is not None:
            log.info("question budget spent on a busy machine: %s", busy)
        text = late_answer(state.deadline.budget, state.results, started=state.replies > 0,
                           busy=busy.describe() if busy is not None else "", failed=state.programs_failed)
        env.store.append_record(self.sid, "assistant", text)
        self.reply.text = text
        env.publish("question_budget_spent", {"turn_id": env.turn_id, "budget": state.deadline.budget,
                                              "results": len(state.results),
                                              "busy": busy.describe() if busy is not None else None})

    # -- the stages ---------------------------------------------------------------------------
    def run(self, message: str) -> Reply:
        env = self.env
        record = env.store.append_record(self.sid, "user", message)
        marker = _begin_turn(env.store, self.sid, record)
        env.publish("records_updated", {})
        spec = self.reply.spec = read_spec(message)
        self.state = TurnState(message=message, spec=spec,
                               deadline=Deadline(env.question_budget, seconds_clock(env.clock)),
                               load=LoadWatch(), route=Route(REPLY, "fallback"), evidence=[message])
        self.tools = ToolRuns(env, self.state, self.reply, self.loop_guard)
        self.model = ModelRequests(env, self.state, self.reply, self.tools.context)
        try:
            _context.run_lifecycle(env.store, self.sid, message)
            self.state.route = self._choose_route()
            if not answered_by_program(self._routed()):   # or by one operation, as configured
                self._loop()
        except OutOfTime:
            self._out_of_time()
        except (Stopped, CancelledError):
            if not env.cancel.is_set() and self.state.deadline.spent():
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
            self.stores.publish_changes()
            self.tools.check_data()
            if self.state.data_changed:
                env.publish("data_updated", {})
            env.publish("records_updated", {})
        return self.reply

    def _choose_route(self) -> Route:
        """The way this turn's message goes (``_route``): asked of the model only with the compact
        tool set or a program strategy, where the way decides what runs and what is offered."""
        env, state = self.env, self.state
        tables = [t.name for t in _tables(env.engine)]
        if env.tool_set != "compact" and env.answer_strategy not in ("program", "operation"):
            return Route(ANSWER if tables else REPLY, "fallback")
        tools = env.registry.specs(self.tools.context(), env.disabled)
        ask = self.model.ask_route if env.route_by_model else None
        route = choose_route(state.message, state.spec, tools=tools, tables=tables, ask=ask)
        log.info("route: %s (%s)", route.way, route.source)
        return route

    def _routed(self) -> RouteTurn:
        """What an answer route (a program, an operation) needs of this turn."""
        state = self.state
        return RouteTurn(env=self.env, sid=self.sid, reply=self.reply, message=state.message, spec=state.spec,
                         deadline=state.deadline, evidence=state.evidence, heartbeat=self.model.heartbeat,
                         check_cancel=self._check_cancel, route=state.route,
                         failed=state.programs_failed)

    def _first_choice(self) -> str | None:
        """"required" when the turn must start with a tool: its message goes the answer way, or
        names a tool that acts on what the data shows (the answer is found first)."""
        route = self.state.route
        if not self.env.require_tool_first:
            return None
        return "required" if route.answers or route.data_first else None

    def _refusal(self, text: str, retried: set[str]) -> tuple[str, str] | None:
        """Why a reply without tool calls is not taken as the answer yet: (kind, note), or None.

        Each kind is sent back once per turn; the retry must call a tool."""
        state = self.state
        if "promise" not in retried and promises_next_step(text):
            return "promise", PROMISE_NOTE
        named = sorted(n for n in state.offered if n not in state.called
                       and re.search(rf"\b{re.escape(n)}\b", state.message))
        if "named" not in retried and named:
            state.require = set(named)
            state.asked_for = set(named)
            return "named", named_tool_note(named)
        asked = state.spec.names if state.spec.style == PARTS and not state.spec.as_object else ()
        unfilled = missing_templates(asked, text) if state.called else []
        if "format" not in retried and self.env.tool_set == "compact" and unfilled:
            state.answer_next = True
            return "format", format_note(unfilled)
        if "ground" not in retried and self.env.tool_set == "compact" and _tables(self.env.engine):
            loose = ungrounded_numbers(text, state.evidence)
            if loose:
                return "ground", grounding_note(loose)
        return None

    def _finish(self, text: str) -> str:
        """The answer's slots written in the form the question asks, from computed values only."""
        from ..answers.compose import finish
        from ..answers.forms import form_of

        form = form_of(self.state.spec)
        if form.style == "free":
            return finish(form, text, computed=True).text
        computed = any(a.status == "success" for a in self.reply.tool_activity)
        sources = self.state.evidence

        def grounded(raw: str) -> bool:
            return not ungrounded_numbers(raw, sources)

        return finish(form, text, computed=computed, grounded=grounded).text

    def _answer(self, text: str, response: Response) -> None:
        """Take ``text`` as the turn's answer: rounded as the results were, in the asked form."""
        env, state = self.env, self.state
        if env.tool_set == "compact":
            text = correct_rounding(text, state.evidence[1:])
        text = self._finish(text)
        text = humane_numbers(text, precision=state.spec.precision)
        env.store.append_record(self.sid, "assistant", text, meta=_replay_meta(response))
        self.reply.text = text
        env.answered = True

    def _loop(self) -> None:
        """The tool loop: ask, run the calls, until a reply is taken as the answer."""
        env, state = self.env, self.state
        retried: set[str] = set()
        notes: list[str] = []
        choice = self._first_choice()
        for _ in range(env.max_rounds):
            self._check_cancel()
            try:
                response = self.model.ask(notes, choice, first=not self.reply.tool_activity)
            except ToolArgumentsError as exc:
                # the model's call could not be decoded: it sees the problem as the tool's result
                self._check_cancel()
                notes = self.tools.report_bad_call(exc)
                continue
            self._check_cancel(budget=False)   # a reply that arrived is used, even at the deadline
            answering, notes, choice = choice == "none", [], None
            text = env.builder.clean_reply(self.sid, response.text or "")
            if answering and not response.tool_calls:
                text = answer_text(text)
            if not response.tool_calls and env.tool_set == "compact" and "query_sql" in state.offered:
                sql = written_query(text)
                if sql is not None:        # the query it wrote out is the call it meant to make
                    response.tool_calls = [ToolCall(id="", name="query_sql", arguments={"sql": sql})]
                    text = ""
            if not response.tool_calls and text.strip():
                # a call written out as text is the call it meant, or is dropped: never the answer
                response.tool_calls, text = self.tools.calls_in_text(text)
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
                    notes, choice = [note], ("none" if state.answer_next else "required")
                    state.answer_next = False
                    continue
                if text.strip():
                    self._answer(text, response)
                    return
                if "empty" in retried:
                    self.reply.text = ""
                    return
                retried.add("empty")
                notes = [EMPTY_REPLY_NOTE]
                continue
            notes, must_answer = self._run_calls(response, text)
            if must_answer:
                # it has its results (or did what was asked, or keeps calling one tool): the next
                # reply must answer
                choice, notes = "none", [*notes, ANSWER_NOTE]
                state.asked_for = None
        self.reply.text = MAX_ROUNDS_TEXT

    def _run_calls(self, response: Response, text: str) -> tuple[list[str], bool]:
        """Record the reply and run its calls; the notes for the next request, and whether the
        next reply must answer."""
        env, state = self.env, self.state
        batch = plan_batch(response.tool_calls, call_key)
        response.tool_calls = batch.kept
        self.tools.give_ids(response.tool_calls)
        env.store.append_record(self.sid, "assistant", text, tool_calls=serialise_calls(response.tool_calls),
                                meta=_replay_meta(response))
        env.answered = True
        if text.strip():
            env.publish("assistant_text", {"turn_id": env.turn_id, "text": text})
        repeated = 0
        for index, call in enumerate(response.tool_calls):
            self._check_cancel(budget=False)
            if index in batch.same_as or state.deadline.spent():
                # the same call earlier in this reply (its result is there), or no time left:
                # answered without running it
                self.tools.answer_unrun(call, SAME_CALL_TEXT if index in batch.same_as else OUT_OF_TIME_RESULT)
                repeated += index in batch.same_as
                continue
            repeated += self.tools.run(call)
            state.counts[call.name] = state.counts.get(call.name, 0) + 1
        if batch.dropped:
            state.pending_notes.append(cap_note(batch))
        env.publish("records_updated", {})
        self.stores.publish_changes()
        self.tools.check_data()
        notes, state.pending_notes = state.pending_notes, []
        done_asked = state.asked_for is not None and state.asked_for <= state.called
        over_used = env.tool_set == "compact" and max(state.counts.values(), default=0) >= _MAX_CALLS_OF_ONE_TOOL
        return notes, bool(repeated == len(response.tool_calls) or batch.same_as or done_asked or over_used)


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
