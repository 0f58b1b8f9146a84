"""The values a program computed for the spec's parts, taken by name (pure).

A program ends by binding ``answer`` (``answer = {"mean": 3.2, "p": 0.04}``, or ``answer = 3.2``
for a one-part question); the runner hands its top-level variables back as JSON data
(``ProgramRun.values``). :func:`take_values` matches them to the spec's parts: by name, then by
a name spelled differently (``P-Value`` for ``p_value``), then by position when nothing matches
by name. Only a program that bound no ``answer`` (an older program, a recorded one) has its
printed ``@part[value]`` / ``Answer:`` lines read instead.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from .spec import LINE, AnswerSpec, Part
from .templates import object_values

__all__ = ["Taken", "take_values", "ANSWER_VARIABLE", "NAN_REASON"]

#: why a part bound as NaN has no value (a retry is told so, and told to drop missing values)
NAN_REASON = "it came out as NaN: the values it used hold missing values"

#: the variable a program binds its answer to
ANSWER_VARIABLE = "answer"

_PART = re.compile(r"@([A-Za-z_][\w.]*)\[([^\]\n]*)\]")
_LINE = re.compile(r"^\s*\**Answer\**\s*:\s*(.+?)\s*$", re.I | re.M)
_NAN = ("nan", "none", "null", "<na>", "nat")


@dataclass(frozen=True)
class Taken:
    """What was computed for each part: ``values`` (part name → JSON data, or the printed text
    of an older program), ``missing`` (part name → why there is none)."""

    values: dict[str, Any] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    #: "answer" (bound by name), "variables" (top-level names), "printed" (an older program)
    source: str = ANSWER_VARIABLE

    @property
    def any(self) -> bool:
        return bool(self.values)


def _key(name: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _is_nan(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _NAN) or (
        isinstance(value, float) and value != value)


def _by_parts(parts: tuple[Part, ...], answer: Any) -> dict[str, Any]:
    """``answer`` (a dict, a list, or one value) spread over ``parts``."""
    if len(parts) == 1:
        part = parts[0]
        if isinstance(answer, dict) and len(answer) > 1:
            named = {_key(k): v for k, v in answer.items()}
            if _key(part.name) in named:
                return {part.name: named[_key(part.name)]}
            return {part.name: answer}            # several named values for one part: all of them
        if isinstance(answer, dict) and len(answer) == 1:
            return {part.name: next(iter(answer.values()))}
        return {part.name: answer}
    out: dict[str, Any] = {}
    if isinstance(answer, dict):
        exact = {str(k): v for k, v in answer.items()}
        loose = {_key(k): v for k, v in answer.items()}
        for part in parts:
            if part.name in exact:
                out[part.name] = exact[part.name]
            elif _key(part.name) in loose:
                out[part.name] = loose[_key(part.name)]
        if not out and len(answer) == len(parts):          # named otherwise, in the asked order
            out = {p.name: v for p, v in zip(parts, answer.values())}
    elif isinstance(answer, (list, tuple)) and len(answer) == len(parts):
        out = {p.name: v for p, v in zip(parts, answer)}
    return out


def _printed(spec: AnswerSpec, printed: str) -> dict[str, Any]:
    """What an older program printed for the parts: ``@name[value]`` lines, the last
    ``Answer:`` line, or the one value it printed."""
    text = printed or ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    tokens = {m.group(1): m.group(2) for m in _PART.finditer(text)}
    shown = object_values(text) if spec.as_object else None
    if shown is not None:
        tokens.update({k: v for k, v in shown[0].items() if k not in tokens})
    answered = _LINE.findall(text) or (spec.template.values(text) if spec.style == LINE else [])
    out: dict[str, Any] = {}
    for part in spec.parts:
        if part.name in tokens:
            out[part.name] = tokens[part.name]
    if len(spec.parts) == 1 and spec.parts[0].name not in out:
        if answered:
            out[spec.parts[0].name] = answered[-1]
        elif len(lines) == 1 and not tokens:
            out[spec.parts[0].name] = lines[0]
    return out


def take_values(spec: AnswerSpec, values: Mapping[str, Any] | None, printed: str = "") -> Taken:
    """The computed value of each part of ``spec`` from a run's top-level ``values`` (and, only
    when it bound no ``answer``, from what it ``printed``)."""
    values = dict(values or {})
    found: dict[str, Any] = {}
    source = ANSWER_VARIABLE
    if ANSWER_VARIABLE in values:
        found = _by_parts(spec.parts, values[ANSWER_VARIABLE])
    if len(found) < len(spec.parts):
        named = {p.name: values[p.name] for p in spec.parts
                 if p.name not in found and p.name in values and p.name != ANSWER_VARIABLE}
        if named:
            found.update(named)
            source = "variables" if ANSWER_VARIABLE not in values else source
    if ANSWER_VARIABLE not in values and len(found) < len(spec.parts):
        for name, raw in _printed(spec, printed).items():
            if name not in found:
                found[name] = raw
                source = "printed"
    taken: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for part in spec.parts:
        if part.name not in found:
            missing[part.name] = (f"the program set no value for {part.name}" if ANSWER_VARIABLE in values
                                  else "the program bound no answer")
        elif _is_nan(found[part.name]):
            missing[part.name] = NAN_REASON
        else:
            taken[part.name] = found[part.name]
    return Taken(taken, missing, source)
