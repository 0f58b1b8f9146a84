"""A data question answered by one typed operation (the operation path): the model fills the
operation's arguments under a JSON schema of the real columns (an invented name cannot be
written), code compiles and runs it, the model picks which computed value fills which slot
(again under a schema: one of the values computed), and code writes the answer."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from ..analysis.operations import OperationError, ask_operation
from ..answers.choose import candidates, choice_prompt, choice_schema, parse_choice
from ..answers.compose import Composed
from ..answers.numbers import humane_numbers
from ..answers.forms import FREE, form_of
from ..answers.spec import AnswerSpec, read_spec
from ..answers.values import Taken
from ..answers.write import write_answer
from ..tools.registry import ModelCallError
from ._ask import tool_ask
from ._types import ToolActivity

__all__ = ["OPERATION_TOOL", "OperationOutcome", "answer_by_operation", "record_operation"]

log = logging.getLogger(__name__)

OPERATION_TOOL = "operation"
_SYSTEM = "You pick, for each value a question asks for, the computed value that answers it."


@dataclass
class OperationOutcome:
    composed: Composed | None = None
    result: Any = None
    error: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)


def _listing(result: Any) -> str:
    """The result as the chooser reads it: its value lines, without the statement."""
    lines = [ln for ln in (result.text or "").splitlines() if ln.strip()]
    return "\n".join(ln for ln in lines if not ln.lstrip().upper().startswith(("SELECT", "SQL:", "--")))[:3000]


def answer_by_operation(*, backend: Any, engine: Any, question: str, cancel: Any,
                        spec: AnswerSpec | None = None) -> OperationOutcome:
    spec = spec if spec is not None else read_spec(question)
    form = form_of(spec)
    ask = tool_ask(backend, cancel)
    outcome = OperationOutcome()
    if ask is None:
        outcome.error = "no model"
        return outcome
    try:
        result = ask_operation(ask, engine, question, cancel=cancel)
    except (OperationError, ModelCallError) as exc:
        outcome.error = str(exc)
        return outcome
    outcome.result = result
    listing = _listing(result)
    if form.style == FREE:
        outcome.composed = Composed(humane_numbers(listing))
        return outcome
    options = candidates(result.values, result.rows)
    if not options:
        why = "the operation computed no value"
        outcome.composed = write_answer(spec, Taken({}, {p.name: why for p in spec.parts}))
        return outcome
    keys = [s.name for s in form.slots] if form.style == "closed" else ["answer"]
    if len(options) == 1 and len(keys) == 1:
        chosen: dict[str, str] | None = {keys[0]: options[0]}
    else:
        try:
            text = ask(_SYSTEM, choice_prompt(question, listing, form),
                       response_format=choice_schema(form, options), temperature=0.0)
        except ModelCallError as exc:
            outcome.error = str(exc)
            return outcome
        chosen = parse_choice(text, form, options)
    if chosen is None:
        outcome.error = "no valid choice of computed values"
        return outcome
    # the chosen values, by part name (an Answer: line's one part is "answer")
    outcome.composed = write_answer(spec, Taken(dict(chosen)))
    return outcome


def record_operation(env: Any, sid: str, reply: Any, outcome: OperationOutcome, call_id: str) -> None:
    """Keep the operation's run in the records and the reply (its step line and its cell)."""
    result = outcome.result
    arguments = dict(result.args)
    env.store.append_record(sid, "assistant", "", tool_calls=[{"id": call_id, "name": OPERATION_TOOL,
                                                                "arguments": arguments}])
    env.store.append_record(sid, "tool", result.text, tool_name=OPERATION_TOOL, tool_call_id=call_id,
                            status="success")
    lines = [ln for ln in _listing(result).splitlines() if ln.strip()]
    reply.tool_activity.append(ToolActivity(
        tool_call_id=call_id, name=OPERATION_TOOL, arguments=arguments, status="success",
        summary=(lines[0][:200] if lines else "ran"), ran={"sql": [result.sql]} if result.kind == "sql" else {}))
