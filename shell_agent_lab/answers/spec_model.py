"""The kinds of a spec's open parts asked of the model under a JSON schema (pure: the prompt,
the schema, and the check of the reply; the call is the caller's).

Where the question's words leave a part's kind open (``any``), the model may be asked which kind
each open part is, with its reply held to a schema whose only values are the spec's kinds. The
reply is checked: a kind outside the schema, a part not asked about, or a reply that is not
JSON leaves the spec as it was. A part stays ``any`` unless the model names a kind for it.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Callable

from .spec import KINDS, AnswerSpec, Part

__all__ = ["open_parts", "kinds_schema", "kinds_prompt", "with_model_kinds", "ask_kinds"]

_TITLE = "answer_kinds"
_MEANING = {"number": "a measured or computed quantity", "count": "a whole number of things",
            "label": "a name, code or category", "yesno": "yes or no", "list": "several values",
            "date": "a date or time", "any": "cannot tell"}


def open_parts(spec: AnswerSpec) -> tuple[Part, ...]:
    """The parts whose kind the question's words left open."""
    return tuple(p for p in spec.parts if p.kind == "any" and not p.allowed)


def kinds_schema(spec: AnswerSpec) -> dict[str, Any]:
    """The JSON schema of the reply: each open part one of the spec's kinds."""
    names = [p.name for p in open_parts(spec)]
    return {"title": _TITLE, "type": "object",
            "properties": {n: {"type": "string", "enum": list(KINDS)} for n in names},
            "required": names, "additionalProperties": False}


def kinds_prompt(question: str, spec: AnswerSpec) -> str:
    names = ", ".join(p.name for p in open_parts(spec))
    kinds = "; ".join(f"{k}: {_MEANING[k]}" for k in KINDS)
    return (f"Question: {question.strip()}\n\nFor each of {names}: what kind of value does the question ask "
            f"for? Kinds: {kinds}. Reply with JSON only.")


def with_model_kinds(spec: AnswerSpec, reply: str) -> AnswerSpec:
    """``spec`` with the kinds a model ``reply`` names for its open parts, when the reply holds
    to the schema; ``spec`` unchanged otherwise."""
    try:
        data = json.loads(reply)
    except (TypeError, ValueError):
        return spec
    asked = {p.name for p in open_parts(spec)}
    if not isinstance(data, dict) or not asked or set(data) != asked:
        return spec
    if not all(isinstance(v, str) and v in KINDS for v in data.values()):
        return spec
    parts = tuple(replace(p, kind=data[p.name], decimals=0 if data[p.name] == "count" else p.decimals)
                  if p.name in asked else p for p in spec.parts)
    return replace(spec, parts=parts, source="model")


def ask_kinds(spec: AnswerSpec, question: str, ask: Callable[[str, dict[str, Any]], str]) -> AnswerSpec:
    """``spec`` with its open parts' kinds asked of the model through ``ask(prompt, schema)``;
    any failure of the call leaves the spec as it was (open parts stay ``any``)."""
    if not open_parts(spec):
        return spec
    try:
        reply = ask(kinds_prompt(question, spec), kinds_schema(spec))
    except Exception:
        return spec
    return with_model_kinds(spec, reply)
