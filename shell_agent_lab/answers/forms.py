"""The answer form as the tool loop, the operation path and the choice schema use it: the
answer spec (:mod:`.spec`) seen as slots (pure).

The question is read once, by :func:`.spec.read_spec`; :func:`form_of` only renames what the
spec holds (``count`` is an ``integer`` slot, ``label`` a ``text`` one, ``yesno`` a ``bool``).
"""
from __future__ import annotations

from dataclasses import dataclass

from .spec import LINE, PARTS, AnswerSpec, read_spec
from .templates import DEFAULT, Template

__all__ = ["Slot", "AnswerForm", "read_form", "form_of", "FREE", "CLOSED", "ANSWER_LINE"]

#: the three styles: named parts, one ``Answer:`` line, or free prose
FREE = "free"
CLOSED = "closed"
ANSWER_LINE = "line"

_KINDS = {"count": "integer", "label": "text", "yesno": "bool", "date": "text"}


@dataclass(frozen=True)
class Slot:
    """One value the answer must state. ``name`` is the closed-form name ("" for the answer line)."""

    name: str
    kind: str = "any"           # number | integer | percent | bool | text | list | any
    decimals: int | None = None
    #: how a yes/no value is written: "yes" (Yes/No) or as the question spells it (``Part.truth``)
    truth: str = "yes"
    placeholder: str = ""
    #: the values the question allows, as it writes them
    options: tuple[str, ...] = ()

    def label(self) -> str:
        return f"@{self.name}[…]" if self.name else "Answer:"


@dataclass(frozen=True)
class AnswerForm:
    style: str                  # closed | line | free
    slots: tuple[Slot, ...] = ()
    #: precision the question states for numbers in general (free style and unnamed values)
    decimals: int | None = None
    #: the answer line's form (``Answer: …``, ``\boxed{…}``)
    template: Template = DEFAULT
    #: the named slots are written as one object (``{"mean": 1.5}``)
    as_object: bool = False


def form_of(spec: AnswerSpec) -> AnswerForm:
    """``spec`` as slots."""
    if spec.style == PARTS:
        style = CLOSED
    elif spec.style == LINE:
        style = ANSWER_LINE
    else:
        return AnswerForm(FREE, (), spec.decimals)
    slots = []
    for part in spec.parts:
        kind = "percent" if part.kind == "number" and part.percent else _KINDS.get(part.kind, part.kind)
        slots.append(Slot(part.name if style == CLOSED else "", kind, part.decimals, part.truth, "", part.allowed))
    return AnswerForm(style, tuple(slots), spec.decimals, spec.template, spec.as_object)


def read_form(question: str) -> AnswerForm:
    """The form ``question`` asks its answer in (for callers that hold no spec)."""
    return form_of(read_spec(question))
