"""Prompt rendering: sanitising, trust tags, 16 KiB budget and exact elision counts."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from shell_agent_lab.store.render import (
    BUDGET_BYTES,
    clean_text,
    memory_line,
    render_block,
    sanitize,
    trust_tag,
)


@pytest.mark.parametrize(
    "text,cap,expected",
    [
        ("line1\nline2", 100, "line1 line2"),
        ("a\x00b", 100, "ab"),
        ("tab\there\r\n", 100, "tab here"),
        ("bell\x07 and del\x7f", 100, "bell and del"),
        ("  padded  ", 100, "padded"),
        ("é" * 10, 4, "éééé"),
        ("日本語テキスト", 3, "日本語"),
    ],
)
def test_sanitize(text, cap, expected):
    assert sanitize(text, cap) == expected


def test_clean_text_keeps_newlines_and_tabs_only():
    assert clean_text("a\tb\nc\x00d\x1b[31m\r") == "a\tb\ncd[31m"


@pytest.mark.parametrize(
    "source,scope,tag",
    [
        ("user_turn", "global", "[user-stated]"),
        ("manual", "global", "[user-stated]"),
        ("promoted_from_finding", "global", "[user-stated]"),
        ("promoted_from_session_memory", "global", "[user-stated]"),
        ("assistant_turn", "global", "[derived]"),
        ("tool_call", "global", "[derived]"),
        ("", "global", "[derived]"),
        ("user_turn", "session", "[user-stated]"),
        ("manual", "session", "[derived]"),
        ("assistant_turn", "session", "[derived]"),
    ],
)
def test_trust_tags(source, scope, tag):
    assert trust_tag(source, scope=scope) == tag


def test_memory_line_shape():
    when = datetime(2026, 2, 16, tzinfo=timezone.utc)
    line = memory_line("User prefers Go", "ユーザーはGoを好む", "preference", "user_turn", when, scope="global")
    assert line == "- [user-stated] [preference] User prefers Go (ユーザーはGoを好む) (learned 2026-02-16)\n"
    same = memory_line("x\ny", "x y", "fact", "", None, scope="session")
    assert same == "- [derived] [fact] x y\n"


def test_budget_stops_at_first_overflow_with_exact_count():
    lines = [f"- {i:03d} " + "x" * 95 + "\n" for i in range(300)]  # 102 bytes each
    out = render_block(lines, len(lines), "({n} earlier facts elided to fit budget)")
    fit = BUDGET_BYTES // 102
    assert out.startswith(f"({300 - fit} earlier facts elided to fit budget)\n")
    assert len(out.encode()) <= BUDGET_BYTES + 200
    assert out.count("\n") == fit + 1


def test_no_marker_when_everything_fits_and_empty_when_nothing():
    assert render_block(["- a\n"], 1, "({n} x)") == "- a\n"
    assert render_block([], 0, "({n} x)") == ""
