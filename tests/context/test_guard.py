"""Guard envelopes, nonce rotation and reply cleaning."""
from __future__ import annotations

import re

import pytest

from shell_agent_lab.context import Budget, ContextBuilder, TagCollision, new_tag, wrap
from shell_agent_lab.context.guard import clean_reply, strip_think_tags


def test_tags_are_user_data_and_32_hex_and_unique():
    tags = {new_tag() for _ in range(100)}
    assert len(tags) == 100
    assert all(re.fullmatch(r"user_data_[0-9a-f]{32}", t) for t in tags)
    assert re.fullmatch(r"probe_[0-9a-f]{32}", new_tag("probe"))


def test_wrap_is_verbatim():
    assert wrap("user_data_deadbeef", "hello world") == \
        "<user_data_deadbeef>hello world</user_data_deadbeef>"
    assert wrap("t", "") == "<t></t>"
    assert wrap("t1", "<b>&amp;'\"\n") == "<t1><b>&amp;'\"\n</t1>"


@pytest.mark.parametrize("data", ["x user_data_ab y", "</user_data_ab>", "<user_data_ab>"])
def test_wrap_fails_closed_on_the_tag_name(data):
    with pytest.raises(TagCollision):
        wrap("user_data_ab", data)


def test_only_user_and_tool_content_is_wrapped(session):
    session.add("user", "question")
    session.add("assistant", "answer")
    session.add("tool", "result", tool_name="query_sql")
    built = ContextBuilder(session.store).build(session.id, budget=Budget(), summarizer=None)
    wrapped = [m.role for m in built.messages[1:] if "<user_data_" in m.content]
    assert wrapped == ["user", "user"]  # the orphan tool result is folded into user text
    assert built.messages[2].content == "answer"


def test_tag_is_stable_across_builds(session):
    session.add("user", "question")
    builder = ContextBuilder(session.store)
    contents = {builder.build(session.id, budget=Budget(), summarizer=None).messages[-1].content
                for _ in range(5)}
    assert len(contents) == 1


@pytest.mark.parametrize("leak", ["<{tag}>", "</{tag}>", "just {tag} here"])
def test_tag_rotates_when_user_or_tool_content_contains_it(session, leak):
    session.add("user", "question")
    builder = ContextBuilder(session.store)
    tag = builder.guard_tag(session.id)
    session.add("tool", leak.format(tag=tag), tool_name="read_file")
    built = builder.build(session.id, budget=Budget(), summarizer=None)
    new = builder.guard_tag(session.id)
    assert new != tag
    assert built.stats["guard_rotations"] == 1
    question, leaked = built.messages[1:]
    assert question.content.endswith(f"<{new}>question</{new}>")
    assert leaked.content.endswith(f"</{new}>")


def test_assistant_content_never_rotates_the_tag(session):
    builder = ContextBuilder(session.store)
    tag = builder.guard_tag(session.id)
    session.add("assistant", f"I saw <{tag}> somewhere")
    builder.build(session.id, budget=Budget(), summarizer=None)
    assert builder.guard_tag(session.id) == tag


def test_reset_mints_a_new_tag(session):
    builder = ContextBuilder(session.store)
    tag = builder.guard_tag(session.id)
    builder.reset_guard(session.id)
    assert builder.guard_tag(session.id) != tag


def test_clean_reply_strips_only_guard_and_think_tags(session):
    builder = ContextBuilder(session.store)
    tag = builder.guard_tag(session.id)
    reply = f"<think>plan</think>Result: <{tag}>42</{tag}> rows <b>bold</b>"
    assert builder.clean_reply(session.id, reply) == "Result: 42 rows <b>bold</b>"


@pytest.mark.parametrize("text, expected", [
    ("<think>a</think>Answer", "Answer"),
    ("<thinking>a\nb</thinking>\nAnswer", "Answer"),
    ("<reasoning>x</reasoning>A<reflection>y</reflection>B", "AB"),
    ("Answer<think>never closed", "Answer"),
    ("<THINK>x</THINK>ok", "ok"),
    ("Use `<think>` tags like `<think>x</think>`.", "Use `<think>` tags like `<think>x</think>`."),
    ("```\n<think>code</think>\n```\nok", "```\n<think>code</think>\n```\nok"),
    ("stray thoughts</think>Answer", "Answer"),
    ("<|channel>thought hidden<channel|>Answer", "Answer"),
    ("No tags at all", "No tags at all"),
])
def test_think_stripping(text, expected):
    assert strip_think_tags(text) == expected


def test_any_guard_envelope_is_stripped_from_replies():
    other = new_tag()
    assert clean_reply(f"a<{other}>b</{other}>c") == "abc"
