"""System prompt assembly: sections, standing instructions, byte stability, snapshots.

Snapshots live in ``tests/context/snapshots/``. After an intended prompt change, regenerate
them with ``SHELL_AGENT_LAB_UPDATE_SNAPSHOTS=1 pytest tests/context/test_prompt.py`` and review
the diff.
"""
from __future__ import annotations

from shell_agent_lab.llm.types import system_prompt_of

import os
import re
from pathlib import Path

import pytest

from shell_agent_lab.context import Budget, ContextBuilder
from shell_agent_lab.context.prompt import (
    FINDINGS_HEADER, GLOBAL_HEADER, RULES_INTRO, SESSION_HEADER, RulesFile, normalise_rules,
)

SNAPSHOTS = Path(__file__).parent / "snapshots"
SCHEMA = "orders (table, 120 rows): id INTEGER, region VARCHAR, amount DOUBLE\n" \
         "df (dataframe, 3 rows): a BIGINT, b VARCHAR"


def _check_snapshot(name: str, text: str) -> None:
    text = re.sub(r"user_data_[0-9a-f]{32}", "user_data_<NONCE>", text)
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("SHELL_AGENT_LAB_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no snapshot {path.name}; run with SHELL_AGENT_LAB_UPDATE_SNAPSHOTS=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (f"the rendered prompt differs from {path.name}; if intended, "
                              "regenerate with SHELL_AGENT_LAB_UPDATE_SNAPSHOTS=1 and review")


def _fill_memory(session) -> None:
    store = session.store
    store.global_memory.add("User prefers plotly for charts", "preference", source="user_turn")
    store.global_memory.set("Fiscal year starts in April", "decision")
    store.session_memory.add(session.id, "The orders table covers 2025", "fact", source="user_turn")
    store.session_memory.add(session.id, "User wants to always auto-approve DROP", "decision",
                             source="assistant_turn", suggested=True)
    store.findings.add(session.id, "Region North had an outlier week (amount 99999)",
                       tags=("high", "orders"))


def test_empty_memory_prompt_snapshot(session):
    _check_snapshot("system_prompt_empty", ContextBuilder(session.store).system_prompt(session.id))


def test_full_prompt_snapshot(session):
    _fill_memory(session)
    (session.store.data_dir / "system_rules.md").write_text("Answer in British English.\r\n\r\n\r\n")
    prompt = ContextBuilder(session.store).system_prompt(session.id, data_schema=SCHEMA)
    _check_snapshot("system_prompt_full", prompt)


def test_sections_in_order_and_empty_ones_omitted(session):
    builder = ContextBuilder(session.store)
    empty = builder.system_prompt(session.id)
    for header in (GLOBAL_HEADER, SESSION_HEADER, FINDINGS_HEADER, RULES_INTRO):
        assert header not in empty
    _fill_memory(session)
    (session.store.data_dir / "system_rules.md").write_text("Be brief.\n")
    full = builder.system_prompt(session.id, data_schema=SCHEMA)
    positions = [full.index(h) for h in (RULES_INTRO, "orders (table", GLOBAL_HEADER,
                                         SESSION_HEADER, FINDINGS_HEADER)]
    assert positions == sorted(positions)
    assert "<system_rules>\nBe brief.\n</system_rules>" in full


def test_no_clock_in_the_prompt_and_bytes_stable_across_turns(session, clock):
    from datetime import timedelta

    _fill_memory(session)
    builder = ContextBuilder(session.store)
    first = builder.system_prompt(session.id, data_schema=SCHEMA)
    clock.now += timedelta(days=2, hours=3)
    session.add("user", "next question")
    built = builder.build(session.id, budget=Budget(), summarizer=None, data_schema=SCHEMA)
    # sent as two system messages: the fixed part (the same in every notebook), then schema and memory
    assert built.system_prompt == first and system_prompt_of(built.messages) == first
    assert first.startswith(built.messages[0].content) and "orders" not in built.messages[0].content
    assert "Current date" not in first and "Time:" not in first


def test_prompt_changes_when_memory_changes(session):
    builder = ContextBuilder(session.store)
    before = builder.system_prompt(session.id)
    session.store.global_memory.add("User prefers plotly", "preference", source="user_turn")
    after = builder.system_prompt(session.id)
    assert before != after and "User prefers plotly" in after


def test_rules_file_hot_reloads_on_change(tmp_path):
    path = tmp_path / "system_rules.md"
    rules = RulesFile(path)
    assert rules.text() == ""
    path.write_text("one\r\ntwo\r\n\r\n")
    assert rules.text() == "one\ntwo\n"
    path.write_text("three, longer\n")
    assert rules.text() == "three, longer\n"
    path.unlink()
    assert rules.text() == ""


@pytest.mark.parametrize("raw, expected", [
    ("a\r\nb", "a\nb\n"), ("a\rb\n\n\n", "a\nb\n"), ("\n\n", ""), ("\ufeffx", "x\n"), ("", ""),
])
def test_rules_are_normalised(raw, expected):
    assert normalise_rules(raw) == expected


def test_schema_and_session_sections_are_wrapped_as_data(session):
    _fill_memory(session)
    builder = ContextBuilder(session.store)
    prompt = builder.system_prompt(session.id, data_schema=SCHEMA)
    tag = builder.guard_tag(session.id)
    assert f"<{tag}>\norders (table" in prompt
    session_part = prompt[prompt.index(SESSION_HEADER):prompt.index(FINDINGS_HEADER)]
    assert f"<{tag}>" in session_part and "[suggested]" in session_part
    global_part = prompt[prompt.index(GLOBAL_HEADER):prompt.index(SESSION_HEADER)]
    assert "<user_data_" not in global_part


def test_schema_containing_the_tag_rotates_it(session):
    builder = ContextBuilder(session.store)
    tag = builder.guard_tag(session.id)
    prompt = builder.system_prompt(session.id, data_schema=f"t: {tag} VARCHAR")
    assert builder.guard_tag(session.id) != tag
    assert f"<{builder.guard_tag(session.id)}>" in prompt


def test_oversized_rules_are_cut_with_a_clear_message(tmp_path):
    from shell_agent_lab.context.prompt import RULES_MAX_BYTES

    path = tmp_path / "system_rules.md"
    path.write_text("é" * RULES_MAX_BYTES)          # 2 bytes each: twice the limit
    rules = RulesFile(path)
    text = rules.text()
    assert len(text.encode()) <= RULES_MAX_BYTES + 1
    assert "\ufffd" not in text                      # never a half character
    assert "shorten it" in rules.error and "\n" not in rules.error


def test_extraction_and_compaction_prompt_snapshots(session, summarizer):
    from shell_agent_lab.context import Extractor
    from shell_agent_lab.llm.scripted import ScriptedBackend

    session.store.global_memory.set("User prefers plotly for charts", "preference")
    session.add("user", "Load sales.csv please")
    session.add("assistant", "Loaded 120 rows.")
    backend = ScriptedBackend(["NONE"])
    Extractor(session.store).run(session.id, backend, private=False)
    request = backend.last_request.messages
    _check_snapshot("extraction_request", "\n---\n".join(f"{m.role}:\n{m.content}" for m in request))

    session.conversation(40)
    ContextBuilder(session.store).build(session.id, budget=Budget(max_context_tokens=3000),
                                        summarizer=summarizer)
    _check_snapshot("compaction_system_prompt", summarizer.requests[0][0].content)
