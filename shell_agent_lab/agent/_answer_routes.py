"""The answer routes a data question takes before the tool loop: a pandas program written by the
model and run in the sandbox (:mod:`._program_path`), or one typed operation
(:mod:`._operation_path`). Each takes the turn's typed state (:class:`RouteTurn`: the spec read
once, the deadline, where to record) and says whether it answered; when neither does, the tool
loop answers.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager

from ..answers.numbers import humane_numbers
from ..answers.printed_form import Form, wants_form
from ..answers.spec import AnswerSpec
from ..context.builder import last_question, refers_back
from ..sharing import COMPUTED_ANSWER, scrub_error
from ._answer_form import earlier_form, form_meta
from ._budget import Deadline, DeadlineEvent
from ._route import Route
from ._summaries import result_summary
from ._types import Reply

__all__ = ["RouteTurn", "answered_by_program", "answered_by_operation", "tables_of",
           "short_summary"]

log = logging.getLogger(__name__)

#: characters of a step's one-line summary
_SUMMARY_CHARS = 200


def short_summary(text: str) -> str:
    return result_summary(text, _SUMMARY_CHARS)


def tables_of(engine: Any) -> list[Any]:
    """The session's tables (none when the engine cannot list them)."""
    if engine is None:
        return []
    try:
        return list(engine.tables())
    except Exception:
        log.debug("could not list tables", exc_info=True)
        return []


@dataclass
class RouteTurn:
    """What a route needs of the turn."""

    env: Any                                   # the turn's TurnEnv
    sid: str
    reply: Reply
    message: str
    spec: AnswerSpec                           # read once on the turn
    deadline: Deadline
    evidence: list[str]                        # results the answer's numbers may come from
    heartbeat: Callable[[], ContextManager[Any]]
    check_cancel: Callable[..., None]          # ``budget=False``: the user's stop only
    route: Route                               # the way the message goes (``_route``)
    #: the errors of the programs that ran and computed nothing (said when the time runs out)
    failed: list[str] = field(default_factory=list)


def answered_by_program(turn: RouteTurn) -> bool:
    """Answer a data question with a pandas program first (see ``_program_path``); True when
    it answered."""
    env = turn.env
    if env.answer_strategy not in ("program", "operation"):
        return False
    if not turn.route.answers:
        return False          # a chart, a finding, a file, a named tool, a reply: the tool loop does it
    if env.answer_strategy == "operation":
        return answered_by_operation(turn)
    from ..answers.program_run import warm_up
    from ._program_runner import ProgramDeclined, program_runner
    from ._program_path import (PROGRAM_TOOL, answer_by_program, frames_for, program_failed, record_program,
                                step_summary)

    # the runner's first use loads scipy and takes stock of the modules: meanwhile the model writes
    threading.Thread(target=warm_up, name="program-warm-up", daemon=True).start()

    frames = frames_for(env.engine, env.namespace)
    if not frames:
        return False
    call_id = f"call-{env.turn_id}-program"

    def on_step(kind: str, data: dict[str, Any]) -> None:
        if kind == "program_start":
            env.publish("tool_start", {"turn_id": env.turn_id, "tool_call_id": call_id, "name": PROGRAM_TOOL,
                                       "arguments": {"code": data["code"]}})
        else:
            status = "error" if data.get("error") else "success"
            summary = step_summary(data.get("output") or "", data.get("error"))
            env.publish("tool_end", {"turn_id": env.turn_id, "tool_call_id": call_id, "name": PROGRAM_TOOL,
                                     "status": status, "summary": short_summary(summary)})

    context = ""
    rows_shared = getattr(env, "data_sharing", "rows") == "rows"
    if rows_shared and refers_back(turn.message):     # "And for 2021?": the earlier questions say what "that" is
        try:
            earlier = [r for r in env.store.list_records(turn.sid)][:-1]
            # the last question only: shown earlier answers (or several questions), the model
            # answered those again
            context = last_question(earlier)
        except Exception:
            log.debug("could not read the earlier questions", exc_info=True)
    shown_before = _form_before(turn)
    cancel = DeadlineEvent(env.cancel, turn.deadline) if turn.deadline.at is not None else env.cancel
    left = turn.deadline.remaining()
    timeout = env.program_timeout if left is None else max(1.0, min(env.program_timeout, left))
    # the sandbox runs the program; where there is none, a person approves each one (fail closed)
    runner = program_runner(gate=env.gate, registry=env.registry, cancel=env.cancel,
                            waited=turn.deadline.extend, clock=turn.deadline.now)
    try:
        with turn.heartbeat():
            outcome = answer_by_program(backend=env.backend, engine=env.engine, frames=frames,
                                        question=turn.message, spec=turn.spec, run_program=runner,
                                        cancel=cancel,
                                        on_step=on_step, context=context, timeout=timeout,
                                        values=rows_shared, scrub=None if rows_shared else scrub_error,
                                        earlier_form=shown_before)
    except ProgramDeclined as declined:
        turn.check_cancel()
        env.publish("tool_end", {"turn_id": env.turn_id, "tool_call_id": call_id, "name": PROGRAM_TOOL,
                                 "status": "rejected", "summary": short_summary(str(declined))})
        text = str(declined)
        env.store.append_record(turn.sid, "assistant", text)
        turn.reply.text = text
        env.answered = True
        return True
    ran = any(a.get("code") for a in outcome.attempts)
    live = {t.name for t in tables_of(env.engine) if t.kind == "dataframe"}
    if ran:
        # kept before the turn can end: a program cut off by the time is still a cell to run again
        record_program(env, turn.sid, turn.reply, outcome, call_id, list(frames),
                       tables=[n for n in frames if n not in live])
    if outcome.composed is None:
        turn.failed.extend(str(a.get("error") or a.get("note") or "") for a in outcome.attempts if a.get("code"))
    # with a value computed, only the user's stop ends the turn here: the time running out
    # during the last request does not throw the computed value away
    turn.check_cancel(budget=outcome.composed is None)
    if outcome.composed is None and not ran:
        log.info("the model wrote no program (%s); the tool loop answers", outcome.error)
        return False
    if outcome.composed is None:
        # the programs failed: said so in the form asked, with why and what to try. The tool
        # loop is not tried after them: on the held-out questions it answered none of the
        # questions whose programs had failed, and took 30-60 s to say so
        tried = sum(1 for a in outcome.attempts if a.get("code"))
        text = program_failed(turn.spec, outcome.error or "the program failed", tried)
    else:
        turn.evidence.append(outcome.output)
        text = humane_numbers(outcome.composed.text, precision=turn.spec.precision)
    meta: dict[str, Any] = dict(COMPUTED_ANSWER)
    if outcome.form is not None:
        meta["form"] = form_meta(outcome.form, turn.message)
    env.store.append_record(turn.sid, "assistant", text, meta=meta)
    turn.reply.text = text
    env.answered = True
    return True

def _form_before(turn: RouteTurn) -> Form | None:
    """The form an earlier answer of the session took for an instruction this question gives
    too, when the question asks its form in words (:func:`._answer_form.earlier_form`)."""
    if not wants_form(turn.spec):
        return None
    try:
        records = turn.env.store.list_records(turn.sid)
    except Exception:
        log.debug("could not read the earlier answers' forms", exc_info=True)
        return None
    return earlier_form([r.meta for r in records if r.role == "assistant" and r.meta], turn.message)


def answered_by_operation(turn: RouteTurn) -> bool:
    """Answer a data question with one typed operation (see ``_operation_path``)."""
    from ._operation_path import OPERATION_TOOL, answer_by_operation, record_operation

    env = turn.env
    call_id = f"call-{env.turn_id}-operation"
    cancel = DeadlineEvent(env.cancel, turn.deadline) if turn.deadline.at is not None else env.cancel
    env.publish("tool_start", {"turn_id": env.turn_id, "tool_call_id": call_id, "name": OPERATION_TOOL,
                               "arguments": {}})
    with turn.heartbeat():
        outcome = answer_by_operation(backend=env.backend, engine=env.engine, question=turn.message,
                                      cancel=cancel, spec=turn.spec)
    turn.check_cancel()
    ok = outcome.composed is not None and outcome.result is not None
    env.publish("tool_end", {"turn_id": env.turn_id, "tool_call_id": call_id, "name": OPERATION_TOOL,
                             "status": "success" if ok else "error", "summary": short_summary(outcome.error or "")})
    if not ok or outcome.composed is None:
        log.info("no operation answered (%s); the tool loop answers", outcome.error)
        return False
    record_operation(env, turn.sid, turn.reply, outcome, call_id)
    turn.evidence.append(outcome.result.text)
    text = outcome.composed.text
    env.store.append_record(turn.sid, "assistant", text)
    turn.reply.text = text
    env.answered = True
    return True

