"""Parsing what follows %agent / %%agent into typed arguments."""
import pytest

from shell_agent_lab.notebook import args as A


def test_plain_message_keeps_its_text_verbatim():
    assert A.parse_line("  which regions grew in Q3?  ") == A.Ask("which regions grew in Q3?")


def test_options_before_the_message():
    got = A.parse_line("--profile work --no-stream --timeout=30 why did 'sales' drop?")
    assert got == A.Ask("why did 'sales' drop?", profile="work", stream=False, timeout=30.0)


def test_double_dash_ends_options():
    assert A.parse_line("-- --profile is a word here").message == "--profile is a word here"


def test_quotes_inside_a_message_are_not_parsed():
    assert A.parse_line("what's up with \"x").message == "what's up with \"x"


@pytest.mark.parametrize("line, fragment", [
    ("", "nothing to ask"),
    ("--profile", "--profile needs a value"),
    ("--timeout soon hi", "--timeout needs a number"),
    ("--timeout -1 hi", "positive"),
    ("--bogus hi", "unknown option --bogus"),
    ("/nope", "unknown command /nope"),
    ("/pin", "exactly one"),
    ("/pin f-1 --category fact", "preference or decision"),
    ("/forget", "one or more"),
    ("/session", "needs a name"),
    ("/import", "path"),
    ("/help me", "takes no arguments"),
    ("/sql x", "query number"),
    ("/model a b", "at most one"),
    ("/export 'unclosed", "check the quotes"),
    ("--profile work /help", "apply to messages"),
])
def test_bad_input_gives_one_actionable_line(line, fragment):
    with pytest.raises(A.UsageError) as info:
        A.parse_line(line)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message


def test_commands_parse_to_typed_values():
    assert A.parse_line("/help") == A.Command("help")
    assert A.parse_line("/PIN f-20260101-001 --category preference") == A.Pin("f-20260101-001", "preference")
    assert A.parse_line("/pin s12 preference") == A.Pin("s12", "preference")
    assert A.parse_line("/forget f-1 s2 g3") == A.Forget(("f-1", "s2", "g3"))
    assert A.parse_line("/session Q3 review") == A.SessionSwitch("Q3 review")
    assert A.parse_line("/export 'my dir/out.shellagent'") == A.Export("my dir/out.shellagent")
    assert A.parse_line("/export") == A.Export(None)
    assert A.parse_line("/import b.shellagent") == A.Import("b.shellagent")
    assert A.parse_line("/model gpt-4o-mini") == A.Choice("model", "gpt-4o-mini")
    assert A.parse_line("/profile") == A.Choice("profile", None)
    assert A.parse_line("/sql 2") == A.Sql(2)


def test_every_command_in_the_brief_is_known():
    for name in ("help", "findings", "memory", "data", "sessions", "session", "private", "model", "profile",
                 "pin", "forget", "export", "import", "reset", "stop", "sql"):
        assert name in A.COMMANDS


def test_cell_options_on_the_first_line_and_message_below():
    got = A.parse_cell("--no-stream", "Summarise df.\nThen chart revenue by month?\n")
    assert got == A.Ask("Summarise df.\nThen chart revenue by month?", stream=False)


def test_cell_first_line_text_joins_the_body():
    assert A.parse_cell("Look at df", "and explain.").message == "Look at df\nand explain."


def test_empty_cell_is_a_usage_error():
    with pytest.raises(A.UsageError, match="empty"):
        A.parse_cell("--no-stream", "\n\n")


def test_cell_with_a_command():
    assert A.parse_cell("", "/findings\n") == A.Command("findings")
