"""The answer written by code from computed results, in the form the question asks (pure).

A program (or a tool) computes; this module reads what it printed, finds each slot's value
(``@name[value]`` lines, an ``Answer:`` line, or the only value printed) and writes it in the
slot's form: rounded as asked, a whole number, Yes/No, a plain list. A slot that no computed
result fills says "could not compute" and why: never a number nobody computed.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from .forms import ANSWER_LINE, CLOSED, AnswerForm, Slot
from .numbers import humane_numbers
from .spec import truth_word
from .templates import Template, object_line, object_values

__all__ = ["Composed", "compose", "compose_from_frames", "finish", "format_value", "printed_parts", "NOT_COMPUTED", "SERIES_FOOTER"]

NOT_COMPUTED = "could not compute"

_PART = re.compile(r"@([A-Za-z_][\w.]*)\[([^\]\n]*)\]")
_LINE = re.compile(r"^\s*\**Answer\**\s*:\s*(.+?)\s*$", re.I | re.M)
_WRAPPED = re.compile(r"\b(?:np|numpy)\.(?:float|int|str_|bool_?|True_|False_)\w*\(\s*['\"]?(.*?)['\"]?\s*\)")
_NUMBER = re.compile(r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?$")
_TRUE = {"true", "yes", "y", "1", "1.0", "np.true_", "t"}
_FALSE = {"false", "no", "n", "0", "0.0", "np.false_", "f"}
#: a long decimal tail in prose: 32050.23183153285
_CODE = re.compile(r"```.*?(?:```|\Z)", re.S)


@dataclass(frozen=True)
class Composed:
    text: str
    #: slot label → the value written for it
    values: dict[str, str] = field(default_factory=dict)
    #: slots nothing computed, with the reason
    missing: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return not self.missing


def _unwrap(raw: Any) -> str:
    text = str(raw).strip()
    text = _WRAPPED.sub(lambda m: m.group(1), text)
    return text.strip().strip("`*").strip().strip("\"'").strip()


def _number(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, (int, float)):
        return float(raw)
    text = _unwrap(raw)
    text = re.sub(r"^[$€£¥]|[$€£¥%]$", "", text.replace(" ", "")).strip()
    if not text or not _NUMBER.match(text) or not re.search(r"\d", text):
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def plain_number(value: float, decimals: int | None = None) -> str:
    """``value`` as an answer writes it: at ``decimals`` places, else without a long tail."""
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if decimals is not None:
        text = f"{value:.{decimals}f}"
        return text[1:] if re.fullmatch(r"-0\.?0*", text) else text
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    if abs(value) >= 1:
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return f"{value:.6g}" if abs(value) >= 1e-4 else f"{value:.4e}"


def _listed(raw: str) -> list[str]:
    text = _unwrap(raw)
    m = re.match(r"^(?:Index|array|list)?\s*\(?\s*\[(.*)\]", text, re.S)
    if m:
        text = m.group(1)
    items = [_unwrap(p) for p in re.split(r",(?![^()]*\))", text)]
    return [i for i in items if i]


def format_value(raw: Any, slot: Slot) -> str | None:
    """``raw`` written in ``slot``'s form, or None when it cannot be read as that kind."""
    if raw is None:
        return None
    text = _unwrap(raw)
    if not text or text.lower() in ("nan", "none", "null", "<na>", "nat"):
        return None
    kind = slot.kind
    if kind == "bool":
        low = text.lower().rstrip(".!")
        low = low.split()[0] if low.split() else low
        if low in _TRUE:
            return truth_word(slot.truth, True)
        if low in _FALSE:
            return truth_word(slot.truth, False)
        return None
    if kind == "list":
        items = []
        for item in _listed(text):
            n = _number(item)
            items.append(plain_number(n, slot.decimals) if n is not None else item)
        return ", ".join(items) if items else None
    if slot.options:
        return _option(text, slot.options)
    number = _number(text)
    if kind == "integer":
        return str(int(round(number))) if number is not None else None
    if kind in ("number", "percent"):
        return plain_number(number, slot.decimals) if number is not None else None
    if number is not None and kind == "any":
        return plain_number(number, slot.decimals)
    return text


def _option(text: str, options: tuple[str, ...]) -> str | None:
    """``text`` as the one option it names (written as the question writes it), or None."""
    low = text.lower().strip(" .")
    for option in options:
        if low == option.lower():
            return option
    named = [o for o in options if re.search(rf"(?<![\w+\-/]){re.escape(o.lower())}(?![\w+\-/])", low)]
    return named[0] if len(named) == 1 else None


def _not_read(raw: Any, slot: Slot) -> str:
    """Why a printed value does not fill ``slot``."""
    if slot.options:
        return f"{_unwrap(raw)!r} is not one of {', '.join(slot.options)}"
    return f"{raw!r} is not {slot.kind}"


#: a printed Series' footer ("Name: units, dtype: float64"): pandas talking, not an answer
SERIES_FOOTER = re.compile(r"^\s*(?:Name: .*, )?(?:Length: \d+, )?dtype: \w+\s*$")


def printed_parts(printed: str) -> tuple[dict[str, str], str | None]:
    """The ``@name[value]`` parts (last one of each name wins) and the last ``Answer:`` line."""
    parts: dict[str, str] = {}
    for m in _PART.finditer(printed or ""):
        parts[m.group(1)] = m.group(2)
    lines = _LINE.findall(printed or "")
    return parts, (lines[-1] if lines else None)


def _only_value(printed: str) -> str | None:
    """The value a program printed when it printed just one (one non-empty line)."""
    lines = [ln.strip() for ln in (printed or "").splitlines() if ln.strip()]
    return lines[0] if len(lines) == 1 else None


def _body(printed: str, limit: int = 20, template: Template | None = None) -> str:
    """What the program printed besides its answer lines (context for the reader)."""
    kept = [ln.rstrip() for ln in (printed or "").splitlines()
            if ln.strip() and not _PART.search(ln) and not _LINE.match(ln)
            and not (template is not None and template.holds(ln))]
    if len(kept) > limit:
        kept = kept[:limit] + [f"… ({len(kept) - limit} more lines)"]
    return "\n".join(kept)


def compose(form: AnswerForm, printed: str, *, values: Mapping[str, Any] | None = None,
            failure: str | None = None) -> Composed:
    """The answer to a question asked in ``form``, written from what a program ``printed`` and
    its top-level ``values``; ``failure`` is why nothing was computed (every slot then says so)."""
    values = values or {}
    parts, line = printed_parts(printed)
    written: dict[str, str] = {}
    missing: dict[str, str] = {}
    why = failure or "the computation printed no value for it"
    if form.style == CLOSED:
        lines = []
        pairs: list[tuple[str, str | None, Any]] = []
        unfilled: list[str] = []
        in_object = object_values(printed) if form.as_object else None
        for name, raw_value in (in_object[0].items() if in_object is not None else ()):
            parts.setdefault(name, str(raw_value))
        for slot in form.slots:
            raw = parts.get(slot.name)
            if raw is None and slot.name in values:
                raw = values[slot.name]
            if raw is None and len(form.slots) == 1:
                raw = line if line is not None else _only_value(printed)
                printed = printed if line is not None else ""
            value = None if failure else format_value(raw, slot)
            if value is None:
                missing[slot.label()] = why if raw is None or failure else _not_read(raw, slot)
                unfilled.append(f"@{slot.name}: {NOT_COMPUTED} ({missing[slot.label()]})")
                lines.append(unfilled[-1])
                pairs.append((slot.name, None, None))
            else:
                written[slot.label()] = value
                lines.append(f"@{slot.name}[{value}]")
                pairs.append((slot.name, value, raw))
        body = _body(printed) if not failure else ""
        if form.as_object:
            lines = unfilled + [object_line(pairs)]
            body = "\n".join(ln for ln in body.splitlines() if object_values(ln) is None)
        return Composed("\n".join(x for x in (body, "\n".join(lines)) if x), written, missing)
    if form.style == ANSWER_LINE:
        slot = form.slots[0]
        shown = form.template.values(printed) if line is None else []
        line = shown[-1] if shown else line
        raw = line if line is not None else _only_value(printed)
        if raw is None and "answer" in values:
            raw = values["answer"]
        value = None if failure else format_value(raw, slot)
        body = _body(printed, template=form.template) if not failure and line is not None else ""
        if value is None:
            missing["Answer:"] = why if raw is None or failure else _not_read(raw, slot)
            return Composed("\n".join(x for x in (body, form.template.write(
                f"{NOT_COMPUTED} ({missing['Answer:']})")) if x), written, missing)
        written["Answer:"] = value
        return Composed("\n".join(x for x in (body, form.template.write(value)) if x), written, missing)
    if failure:
        return Composed(f"I could not compute the answer: {failure}", {}, {"answer": failure})
    # a printed Series' footer ("Name: units, dtype: float64") is pandas talking, not the answer
    printed = "".join(ln for ln in (printed or "").splitlines(keepends=True) if not SERIES_FOOTER.match(ln))
    text = humane_numbers(printed.strip(), decimals=form.decimals)
    if not text:
        return Composed(f"I could not compute the answer: {why}", {}, {"answer": why})
    return Composed(text, {}, {})


def finish(form: AnswerForm, text: str, *, computed: bool, grounded: Any = None) -> Composed:
    """A model's own answer ``text`` with its slots written in the form asked: each value
    rounded as asked; a slot with no value, or whose number no computed result holds
    (``grounded(raw)`` is False), or any slot when nothing was ``computed`` (every tool call
    failed), says "could not compute" instead. Free prose gets its long numbers tidied."""
    if form.style not in (CLOSED, ANSWER_LINE):
        return Composed(humane_numbers(text, decimals=form.decimals))
    written: dict[str, str] = {}
    missing: dict[str, str] = {}

    def judge(slot: Slot, raw: str | None) -> str | None:
        if raw is None:
            missing[slot.label()] = "the answer gave no value for it"
            return None
        if not computed:
            missing[slot.label()] = "no computation succeeded"
            return None
        value = format_value(raw, slot)
        if value is None:
            missing[slot.label()] = _not_read(raw, slot)
            return None
        if grounded is not None and _number(raw) is not None and not grounded(_unwrap(raw)):
            missing[slot.label()] = f"no computed result holds {_unwrap(raw)}"
            return None
        written[slot.label()] = value
        return value

    out = _CODE.sub("", text or "").strip()      # a program or query shown is not the answer's slots
    if form.style == CLOSED and form.as_object:
        in_reply = object_values(out)
        given = {k: str(v) for k, v in in_reply[0].items()} if in_reply is not None else {}
        pairs: list[tuple[str, str | None, object]] = [
            (slot.name, judge(slot, given.get(slot.name)), given.get(slot.name)) for slot in form.slots]
        before = out[:in_reply[1][0]] if in_reply is not None else out
        after = out[in_reply[1][1]:] if in_reply is not None else ""
        notes = [f"@{slot.name}: {NOT_COMPUTED} ({missing[slot.label()]})" for slot in form.slots
                 if slot.label() in missing]
        text_out = "\n".join(x for x in (before.rstrip(), "\n".join(notes), object_line(pairs) + after.rstrip()) if x)
        return Composed(text_out, written, missing)
    if form.style == CLOSED:
        parts, _ = printed_parts(out)
        tail = []
        for slot in form.slots:
            value = judge(slot, parts.get(slot.name))
            pattern = re.compile(rf"@{re.escape(slot.name)}\[[^\]\n]*\]")
            if value is not None:
                written_part = f"@{slot.name}[{value}]"
                out = pattern.sub(lambda _m: written_part, out)
            elif pattern.search(out):
                out = pattern.sub(f"@{slot.name}: {NOT_COMPUTED} ({missing[slot.label()]})", out)
            else:
                tail.append(f"@{slot.name}: {NOT_COMPUTED} ({missing[slot.label()]})")
        out = "\n".join(x for x in (out.rstrip(), "\n".join(tail)) if x)
        return Composed(out, written, missing)
    slot = form.slots[0]
    _, line = printed_parts(out)
    shown = form.template.values(out) if line is None else []
    value = judge(slot, shown[-1] if shown else line)
    if shown:
        body = "\n".join(ln for ln in out.splitlines() if not form.template.holds(ln)).rstrip()
    else:
        body = _LINE.sub("", out).rstrip() if line is not None else out.rstrip()
    final = form.template.write(value if value is not None else f"{NOT_COMPUTED} ({missing['Answer:']})")
    return Composed("\n".join(x for x in (body, final) if x), written, missing)


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def compose_from_frames(form: AnswerForm, frames: Any, *, why: str) -> Composed | None:
    """The slots of ``form`` filled from result tables alone, without a model choosing (what a
    model that never saw the values can still be answered with): a one-row result's columns fill
    the slots of the same name, and a lone remaining value fills a lone remaining slot. A slot
    left open says "could not compute" and ``why``. None for free prose."""
    if form.style not in (CLOSED, ANSWER_LINE):
        return None
    values: dict[str, Any] = {}
    singles: list[Any] = []
    for frame in frames or ():
        try:
            rows, cols = frame.shape
        except Exception:
            continue
        if rows == 1:
            row = frame.iloc[0].tolist()
            for column, value in zip(frame.columns, row):
                values.setdefault(_key(column), value)
            if cols == 1:
                singles.append(row[0])
    slots = list(form.slots)
    chosen: dict[str, Any] = {}
    for slot in slots:
        if slot.name and _key(slot.name) in values:
            chosen[slot.label()] = values.pop(_key(slot.name))
    open_slots = [s for s in slots if s.label() not in chosen]
    remaining = singles if singles else list(values.values())
    if len(open_slots) == 1 and len(remaining) == 1:
        chosen[open_slots[0].label()] = remaining[0]
    if form.style == CLOSED:
        printed = "\n".join(f"@{s.name}[{chosen[s.label()]}]" for s in slots if s.label() in chosen)
    else:
        printed = f"Answer: {chosen['Answer:']}" if "Answer:" in chosen else ""
    return compose(form, printed) if printed else compose(form, "", failure=why)
