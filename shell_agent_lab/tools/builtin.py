"""Builtin tools: ``resolve_date`` and ``remember_fact``.

``resolve_date`` turns an English relative date into a calendar date, so the model never does
date arithmetic itself. ``remember_fact`` stores one fact the model was asked to keep; it is
offered only while automatic extraction is off (extraction does the same job otherwise).
"""
from __future__ import annotations

import calendar
import re
from datetime import date, datetime
from datetime import timedelta
from typing import Any

from ..sharing import label
from .registry import ToolContext, ToolDescriptor, ToolError, ToolResult

__all__ = ["builtin_tools", "resolve_date", "RESOLVE_DATE", "REMEMBER_FACT"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                 "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_RELATIVE = re.compile(r"^(?P<n>\d{1,5}|[a-z]+)\s+(?P<unit>day|week|month|year)s?\s+(?P<dir>ago|from now|later|hence)$")
_WEEKDAY = re.compile(r"^(?P<dir>last|next)\s+(?P<day>[a-z]+)$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MAX_YEARS = 1000


def _add_months(d: date, months: int) -> date:
    total = d.year * 12 + (d.month - 1) + months
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise ToolError("the resulting date is out of range")
    day = min(d.day, calendar.monthrange(year, month + 1)[1])
    return date(year, month + 1, day)


def resolve_date(expression: str, reference: date) -> date:
    """Resolve ``expression`` relative to ``reference``. Raises :class:`ToolError` when unknown.

    Accepted (English, case-insensitive): ``today``, ``yesterday``, ``tomorrow``,
    ``last|next <weekday>`` (strictly before / after the reference day),
    ``N days|weeks|months|years ago|from now`` (N a number or a small number word; month
    arithmetic clamps to the month's last day).
    """
    expr = " ".join(expression.strip().lower().split())
    if not expr:
        raise ToolError("expression is empty; try 'yesterday', 'last friday' or '3 weeks ago'")
    if expr in ("today", "now"):
        return reference
    if expr == "yesterday":
        return reference - timedelta(days=1)
    if expr == "tomorrow":
        return reference + timedelta(days=1)
    m = _WEEKDAY.match(expr)
    if m and m["day"] in _WEEKDAYS:
        target = _WEEKDAYS.index(m["day"])
        if m["dir"] == "last":
            delta = (reference.weekday() - target) % 7 or 7
            return reference - timedelta(days=delta)
        delta = (target - reference.weekday()) % 7 or 7
        return reference + timedelta(days=delta)
    m = _RELATIVE.match(expr)
    if m:
        raw = m["n"]
        n = int(raw) if raw.isdigit() else _NUMBER_WORDS.get(raw)
        if n is not None:
            sign = -1 if m["dir"] == "ago" else 1
            unit = m["unit"]
            limit = {"day": _MAX_YEARS * 366, "week": _MAX_YEARS * 53, "month": _MAX_YEARS * 12,
                     "year": _MAX_YEARS}[unit]
            if n > limit:
                raise ToolError(f"{n} {unit}s is too far; use at most {limit}")
            try:
                if unit == "day":
                    return reference + timedelta(days=sign * n)
                if unit == "week":
                    return reference + timedelta(weeks=sign * n)
                return _add_months(reference, sign * n * (12 if unit == "year" else 1))
            except OverflowError:
                raise ToolError("the resulting date is out of range") from None
    raise ToolError(
        f"cannot resolve {expression!r}; use today, yesterday, tomorrow, last|next <weekday>, "
        "or N days|weeks|months|years ago|from now (English only)")


def _today(ctx: ToolContext) -> date:
    now = ctx.clock() if ctx.clock is not None else datetime.now().astimezone()
    return now.date() if isinstance(now, datetime) else now


def _resolve_date_handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    ref_text = args.get("reference_date")
    if ref_text:
        if not isinstance(ref_text, str) or not _ISO_DATE.match(ref_text.strip()):
            raise ToolError(f"reference_date must be YYYY-MM-DD, got {ref_text!r}")
        try:
            reference = date.fromisoformat(ref_text.strip())
        except ValueError:
            raise ToolError(f"reference_date {ref_text!r} is not a real date") from None
    else:
        reference = _today(ctx)
    result = resolve_date(str(args.get("expression", "")), reference)
    return ToolResult(f"{result.isoformat()} ({result.strftime('%A')})",
                      data={"date": result.isoformat(), "reference_date": reference.isoformat(),
                            "sharing": label("schema")})


RESOLVE_DATE = ToolDescriptor(
    name="resolve_date",
    description=("Convert a relative date expression into a calendar date (YYYY-MM-DD and weekday). "
                 "Use it instead of computing dates yourself. English expressions only: today, "
                 "yesterday, tomorrow, last <weekday>, next <weekday>, N days|weeks|months|years "
                 "ago, N days|weeks|months|years from now."),
    parameters={
        "type": "object",
        "properties": {
            "expression": {"type": "string", "description": "e.g. 'last friday', '3 weeks ago'"},
            "reference_date": {"type": "string",
                               "description": "YYYY-MM-DD to count from; defaults to today"},
        },
        "required": ["expression"],
    },
    handler=_resolve_date_handler,
    category="read",
)


# -- remember_fact ----------------------------------------------------------------------------
_CATEGORIES = ("preference", "decision", "fact", "context")
_GLOBAL = ("preference", "decision")
_MAX_FACT = 2000


def _last_user_text(ctx: ToolContext) -> str:
    if ctx.store is None:
        return ""
    try:
        records = ctx.store.list_records(ctx.session_id)
    except Exception:
        return ""
    return next((r.content for r in reversed(records) if r.role == "user"), "")


def _remember_fact_handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    fact = " ".join(str(args.get("fact") or "").split())
    category = str(args.get("category") or "").strip().lower()
    if not fact:
        raise ToolError("fact is empty; pass one short sentence to remember")
    if len(fact) > _MAX_FACT:
        raise ToolError(f"fact is too long ({len(fact)} characters, at most {_MAX_FACT}); shorten it")
    if category not in _CATEGORIES:
        raise ToolError(f"category must be one of {', '.join(_CATEGORIES)}, got {category!r}")
    from ..context.extraction import is_self_referential, stated_by_user

    if is_self_referential(fact):
        raise ToolError("facts about the assistant, the model, its tools or its output format are not "
                        "stored; remember something about the user or their data instead")
    if ctx.store is None:
        raise ToolError("no store is available in this session")
    turn = ctx.store.count_user_records(ctx.session_id)
    if category in _GLOBAL:
        if ctx.private:
            raise ToolError(f"this is a private session: {category} facts are not saved across sessions; "
                            "use category 'fact' or 'context' to keep it for this session only")
        if stated_by_user(fact, "", _last_user_text(ctx)):
            result = ctx.store.global_memory.add(fact, category, source="tool_call", turn=turn)
            ctx.publish("global_memory_updated", {})
            verb = "Remembered" if result.created else "Already remembered"
            return ToolResult(f"{verb} for all sessions ({category}): {result.entry.fact}",
                              data={"sharing": label("schema"), "memory": [{"scope": "global", "category": category,
                                                "fact": result.entry.fact, "created": result.created}]})
        # not in the user's own words this turn: keep it for this session, pinnable by the user
        result = ctx.store.session_memory.add(ctx.session_id, fact, category, source="tool_call",
                                              tool_originated=True, turn=turn, suggested=True)
        ctx.publish("session_memory_updated", {})
        return ToolResult(f"Kept for this session as a suggestion ({category}); the user can pin it "
                          f"to remember it everywhere: {result.entry.fact}",
                          data={"sharing": label("schema"), "memory": [{"scope": "session", "category": category,
                                            "fact": result.entry.fact, "created": result.created}]})
    result = ctx.store.session_memory.add(ctx.session_id, fact, category, source="tool_call", turn=turn)
    ctx.publish("session_memory_updated", {})
    verb = "Remembered" if result.created else "Already remembered"
    return ToolResult(f"{verb} for this session ({category}): {result.entry.fact}",
                      data={"sharing": label("schema"), "memory": [{"scope": "session", "category": category,
                                        "fact": result.entry.fact, "created": result.created}]})


def _without_auto_extract(ctx: ToolContext) -> bool:
    return not ctx.auto_extract


REMEMBER_FACT = ToolDescriptor(
    name="remember_fact",
    description=("Remember one fact the user asked you to keep. Categories: preference and decision "
                 "(about the user, kept across sessions), fact and context (about this session's "
                 "work). Do not store facts about yourself, your tools or your output format."),
    parameters={
        "type": "object",
        "properties": {
            "fact": {"type": "string", "description": "one short sentence, e.g. 'Fiscal year starts in April'"},
            "category": {"type": "string", "enum": list(_CATEGORIES)},
        },
        "required": ["fact", "category"],
    },
    handler=_remember_fact_handler,
    category="write",
    available=_without_auto_extract,
)


def builtin_tools() -> list[ToolDescriptor]:
    """The builtin descriptors, for registering in a :class:`ToolRegistry`."""
    from .read_notebook import read_notebook_tool

    return [REMEMBER_FACT, RESOLVE_DATE, read_notebook_tool()]
