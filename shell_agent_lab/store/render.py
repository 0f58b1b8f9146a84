"""Rendering memory and findings into system-prompt blocks (pure functions).

Every block is at most ``BUDGET_BYTES`` (16 KiB) of UTF-8, lists entries newest first, stops at the
first line that would overflow, and opens with an exact-count elision marker when lines were left
out. Text is sanitised: newlines and tabs become spaces, other control characters are removed, and
long text is cut to a rune cap.
"""
from __future__ import annotations

from datetime import datetime
from typing import Iterable, Iterator

__all__ = [
    "BUDGET_BYTES",
    "FACT_RUNES",
    "CATEGORY_RUNES",
    "FINDING_RUNES",
    "sanitize",
    "clean_text",
    "trust_tag",
    "memory_line",
    "finding_line",
    "render_block",
    "created_label",
]

BUDGET_BYTES = 16 * 1024
FACT_RUNES = 300
CATEGORY_RUNES = 30
FINDING_RUNES = 500

_USER_STATED_GLOBAL = frozenset(
    {"user_turn", "manual", "promoted_from_session_memory", "promoted_from_finding"}
)
_USER_STATED_SESSION = frozenset({"user_turn"})

_SPACE_CONTROLS = {ord("\n"): " ", ord("\r"): " ", ord("\t"): " "}
_DROP = {c: None for c in list(range(0x00, 0x20)) + [0x7F] + list(range(0x80, 0xA0))}
_DROP.update({0x2028: " ", 0x2029: " "})
_SANITIZE_TABLE = {**_DROP, **_SPACE_CONTROLS}
_CLEAN_TABLE = {k: v for k, v in _DROP.items() if k not in (0x09, 0x0A)}
_CLEAN_TABLE[0x0D] = None


def sanitize(text: str, max_runes: int) -> str:
    """One line: newline/CR/tab → space, other control characters removed, cut, trimmed."""
    out = text.translate(_SANITIZE_TABLE)
    if max_runes > 0 and len(out) > max_runes:
        out = out[:max_runes]
    return out.strip()


def clean_text(text: str) -> str:
    """What the store keeps: control characters except tab and newline removed, trimmed."""
    return text.translate(_CLEAN_TABLE).strip()


def trust_tag(source: str, *, scope: str = "global") -> str:
    """``[user-stated]`` for user-authored sources, ``[derived]`` for everything else."""
    allowed = _USER_STATED_GLOBAL if scope == "global" else _USER_STATED_SESSION
    return "[user-stated]" if source in allowed else "[derived]"


def memory_line(
    fact: str, native_fact: str, category: str, source: str, created_at: datetime | str | None, *,
    scope: str, suggested: bool = False,
) -> str:
    """``- <trust> [<category>] [suggested]? <fact> (<native>) (learned YYYY-MM-DD)\\n``."""
    clean_fact = sanitize(fact, FACT_RUNES)
    mark = " [suggested]" if suggested else ""
    line = f"- {trust_tag(source, scope=scope)} [{sanitize(category, CATEGORY_RUNES)}]{mark} {clean_fact}"
    native = sanitize(native_fact, FACT_RUNES)
    if native and native != clean_fact:
        line += f" ({native})"
    if created_at:  # a datetime, or stored ISO text whose first 10 characters are the date
        day = created_at[:10] if isinstance(created_at, str) else created_at.strftime("%Y-%m-%d")
        line += f" (learned {day})"
    return line + "\n"


def created_label(when: datetime) -> str:
    """``YYYY-MM-DD (Weekday)``."""
    return when.strftime("%Y-%m-%d (%A)")


def finding_line(content: str, label: str) -> str:
    """``- [derived] [<label>] <content>\\n``."""
    return f"- [derived] [{sanitize(label, 40)}] {sanitize(content, FINDING_RUNES)}\n"


def render_block(
    lines_newest_first: Iterable[str], total: int, marker: str, budget: int = BUDGET_BYTES
) -> str:
    """Join lines newest first until the next would overflow ``budget`` bytes.

    ``total`` is the number of lines that could have been rendered; when fewer fit, the block
    starts with ``marker.format(n=<left out>)``. Returns ``""`` when ``total`` is 0.
    """
    if total <= 0:
        return ""
    kept: list[str] = []
    used = 0
    iterator: Iterator[str] = iter(lines_newest_first)
    for line in iterator:
        size = len(line.encode("utf-8"))
        if used + size > budget:
            break
        kept.append(line)
        used += size
    elided = total - len(kept)
    if elided > 0:
        kept.insert(0, marker.format(n=elided) + "\n")
    return "".join(kept)
