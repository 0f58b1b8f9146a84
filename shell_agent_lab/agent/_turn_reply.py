"""The reply to one message, once its turn has started: from the model, or without it.

:func:`answer_turn` answers through the tool loop, unless the session's data cannot be read
here and the message asks about it (the model could only guess; the reason is the answer
then). At data-sharing level ``"schema"`` the model never saw the values, so its words are
completed from the results (a program's answer is composed from its printed results already).
:func:`reply_without_backend` records the message when no model could be reached and returns
the error. When the turn runs, and what follows it, is the agent's state machine's part.
"""
from __future__ import annotations

from typing import Any, Callable

from ._loop import run_turn
from ._turn_state import TurnEnv
from ._no_data import no_data_answer
from ._program_path import PROGRAM_TOOL
from ._sharing import compose_from_results
from ._types import Reply

__all__ = ["answer_turn", "reply_without_backend"]


def answer_turn(env: TurnEnv, message: str, engine_error: str | None,
                publish: Callable[[str, dict], None]) -> tuple[Reply, bool]:
    """The reply to ``message``, and whether the model's answer was recorded (not cancelled,
    no error): that is what a title and memory extraction follow."""
    blocked = no_data_answer(message, engine_error, env.engine, env.namespace)
    if blocked is not None:     # the data cannot be read here: the model could only guess
        env.store.append_record(env.session.id, "user", message)
        env.store.append_record(env.session.id, "assistant", blocked)
        publish("records_updated", {})
        return Reply(text=blocked), False
    reply = run_turn(env, message)
    computed = any(a.name == PROGRAM_TOOL for a in reply.tool_activity)
    if env.data_sharing == "schema" and reply.error is None and reply.text and not computed:
        # (a program's answer is composed from its printed results already)
        reply.text = compose_from_results(reply.text, reply.tables, message, spec=reply.spec)
    return reply, env.answered and reply.error is None and not env.cancel.is_set()


def reply_without_backend(store: Any, session: Any, message: str, error: BaseException,
                          publish: Callable[[str, dict], None]) -> Reply:
    """Record ``message`` in ``session`` and reply with why no model could answer it."""
    store.append_record(session.id, "user", message)
    publish("records_updated", {})
    return Reply(error=str(error).strip("'\""))
