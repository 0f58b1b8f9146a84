"""Parsing --attach / --image and /attach, /objects."""
from __future__ import annotations

import pytest

from shell_agent_lab.notebook import args as A


def test_attach_and_image_options_before_the_message():
    ask = A.parse_line('--image chart.png --attach "Q1 review.txt" --attach=notes.md What changed?')
    assert ask == A.Ask("What changed?", attach=("Q1 review.txt", "notes.md"), images=("chart.png",))
    ask = A.parse_line("--no-stream --attach='my notes.md' why?")
    assert (ask.attach, ask.stream, ask.message) == (("my notes.md",), False, "why?")


def test_cell_magic_takes_them_on_the_first_line():
    ask = A.parse_cell("--attach notes.md", "Summarise the notes.\n")
    assert (ask.attach, ask.message) == (("notes.md",), "Summarise the notes.")


@pytest.mark.parametrize("line,message", [
    ("--attach", "--attach needs a file path"),
    ("--image= what?", "--image needs a file path"),
    ('--attach "open.md what?', "closing quote is missing"),
    ('--attach "a.md"what?', "put a space after the quoted path"),
    ("--attach notes.md", "nothing to ask about the attachment"),
])
def test_usage_errors_are_one_line(line, message):
    with pytest.raises(A.UsageError, match=message) as info:
        A.parse_line(line)
    assert "\n" not in str(info.value)


def test_attach_and_objects_commands():
    assert A.parse_line('/attach notes.md "two words.png"') == A.Attach(("notes.md", "two words.png"))
    assert A.parse_line("/objects") == A.Objects()
    assert A.parse_line("/objects delete abc123 def456") == A.Objects(("abc123", "def456"))
    with pytest.raises(A.UsageError, match="/attach needs one or more file paths"):
        A.parse_line("/attach")
    with pytest.raises(A.UsageError, match="/objects takes nothing or 'delete ID"):
        A.parse_line("/objects delete")
    with pytest.raises(A.UsageError, match="/objects takes nothing"):
        A.parse_line("/objects remove x")
