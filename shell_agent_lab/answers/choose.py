"""The model's part of a composed answer: which computed value fills which slot (pure).

When a result holds several values (a statistic and its p-value, grouped rows), the model is
asked only to pick, for each slot the question asks for, one of the values the result holds:
a JSON schema whose properties are the slots and whose values are enums of those values. The
digits are then copied and rounded by :func:`~.compose.compose`, never retyped.
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Mapping, Sequence

from .forms import CLOSED, AnswerForm

__all__ = ["candidates", "choice_schema", "choice_prompt", "parse_choice"]

_MAX_CANDIDATES = 60


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list, tuple, set)):
        return None
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return repr(value)
    text = str(value).strip()
    return text or None


def candidates(values: Mapping[str, Any], rows: Iterable[Mapping[str, Any]] = ()) -> list[str]:
    """The distinct values a result holds, as text (numbers at full precision), at most 60."""
    out: list[str] = []
    for value in list(values.values()) + [v for row in rows for v in row.values()]:
        text = _text(value)
        if text is not None and text not in out:
            out.append(text)
        if len(out) >= _MAX_CANDIDATES:
            break
    return out


def _keys(form: AnswerForm) -> list[str]:
    if form.style == CLOSED:
        return [s.name for s in form.slots]
    return ["answer"]


def choice_schema(form: AnswerForm, options: Sequence[str]) -> dict[str, Any]:
    """The schema of a choice: each slot one of ``options``."""
    keys = _keys(form)
    return {"title": "answer_values", "type": "object",
            "properties": {k: {"type": "string", "enum": list(options)} for k in keys},
            "required": keys, "additionalProperties": False}


def choice_prompt(question: str, result: str, form: AnswerForm) -> str:
    keys = ", ".join(_keys(form))
    return (f"Question: {question.strip()}\n\nWhat was computed for it:\n{result.strip()}\n\n"
            f"For each of {keys}, choose the computed value that answers it. Reply with JSON only.")


def parse_choice(text: str, form: AnswerForm, options: Sequence[str]) -> dict[str, str] | None:
    """The chosen value of each slot, or None when the reply is not a valid choice."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    chosen = {}
    for key in _keys(form):
        pick = value.get(key)
        if not isinstance(pick, str) or pick not in options:
            return None
        chosen[key] = pick
    return chosen
