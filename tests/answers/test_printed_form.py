"""The answer's form read from the print line a model writes for it."""
from __future__ import annotations

import pytest

from shell_agent_lab.answers.printed_form import form_from_example, form_from_print, wants_form
from shell_agent_lab.answers.spec import read_spec
from shell_agent_lab.answers.templates import DEFAULT

# instructions written for these tests, each with the line a model wrote for it
FORMS = [
    ("Which player scored most? State it inside square-bracketed double colons, like ::[answer]::.",
     '```python\nprint(f"::[{answer}]::")\n```', "::[LeBron James]::"),
    ("What is the maximum height? Your last line should read FINAL -> followed by the value.",
     'print("FINAL ->", answer)', "FINAL -> 7"),
    ("Which season had most points? End with the answer wrapped in a <final> element.",
     "print(f'<final>{answer}</final>')", "<final>7</final>"),
    ("How many teams? Close with a TOML table [result] holding value = your answer.",
     'print(f"[result]\\nvalue = {answer}")', "[result]\nvalue = 7"),
    ("Which three players? Put them after an arrow => on the last line, separated by semicolons.",
     "print('=>', ';'.join(answer))", "=> 7"),
    ("How many rows? Give it as a fenced block: ```text\n<the number>\n``` and nothing more.",
     'print(f"```text\\n{str(answer)}\\n```")', "```text\n7\n```"),
    ("Which team? Reply with the name between two pipes.", "print('|', answer, '|', sep='')", "|7|"),
    ("Which team? End with a heading `### Verdict` and the answer on the line below it.",
     "x = 1\nprint(f'{x} rows')\nprint('### Verdict')\nprint(answer)\nanswer_text = str(answer)", "### Verdict\n7"),
    ("Which team? Close with the answer between two tildes.", "print('~', end='')\nprint(answer, end='~')", "~7~"),
    # text joined to the value by +, over two lines
    ("Which team? End with the word Verdict alone on a line and, under it, an equals sign, a space and the team.",
     'print("Verdict\\n= " + str(answer))', "Verdict\n= 7"),
    ("How many? Close with a fenced tsv block: the header count, then the number below it.",
     "print('```tsv\\ncount\\n' + str(answer) + '\\n```')", "```tsv\ncount\n7\n```"),
]


@pytest.mark.parametrize("question, reply, written", FORMS)
def test_the_text_around_the_printed_value_is_the_form(question, reply, written):
    form = form_from_print(reply, question)
    assert form is not None and form.write("LeBron James" if "::" in written else "7") == written


@pytest.mark.parametrize("reply", [
    "print(answer)",                                   # no form
    'print(f"The mean height is {answer:.2f} cm.")',   # "cm" is in no instruction: a sentence made up
    'print(f"The mean height is {answer}")',           # the question said again, not its instruction
    'print(f"{answer} and {answer}")',                 # the value twice
    'print(f"{answer} {total}")',                      # another value
    'print(round(answer, 2))',                         # an expression, not text around the value
    'print("=> " + str(answer) + unit)',               # another name joined to it
    'print("=> " + str(answer) * 2)',
    'print(f"Answer 12: {answer}")',                   # a number the question never wrote
    "this is not python (",
    "",
])
def test_no_form_is_read_from_what_only_the_model_adds(reply):
    assert form_from_print(reply, "What is the mean height? Answer with the value only.") is None


def test_the_last_print_is_the_form_with_the_prints_of_text_right_before_it():
    reply = 'x = 1\nprint(x)\nprint(f"=> {answer}")'
    assert form_from_print(reply, "Mean? Write it after => please.").write("3") == "=> 3"
    # a print of anything else ends the form: the sentence before it is no part of it
    reply = 'print(f"The mean is {x}")\nprint("=>")\nprint(answer)'
    assert form_from_print(reply, "Mean? Write it after => please.").write("3") == "=>\n3"


def test_only_a_prose_question_of_more_than_one_sentence_asks_for_a_form():
    assert wants_form(read_spec("What is the mean? Close with it in a TOML table."))
    assert not wants_form(read_spec("What is the mean price?"))
    # a form the syntax shows is written as shown, with no request
    shown = read_spec("What is the mean? End with `Result: <value>`.")
    assert shown.template != DEFAULT and not wants_form(shown)
    assert not wants_form(read_spec("What is the mean? Format: @mean[value]."))


def test_the_program_is_asked_to_print_a_form_asked_in_words_and_a_sentence_otherwise():
    from shell_agent_lab.answers.program_prompt import answer_instruction

    assert "in the form the question asks for" in answer_instruction(read_spec("What is the mean? Close with it in bold."))
    assert "one short sentence" in answer_instruction(read_spec("What is the mean price?"))


HEADING = "Which team? Finish with a heading `## Result` and the answer alone on the line below it."
FENCED = "Which team? Close with a TOML block (```toml ... ```) whose key `value` holds the answer."
QUOTED = "Which team? End with a line that starts with `> ` and holds the answer."


def _reply(after: str) -> str:
    return f"```python\nanswer = df['team'].mode()[0]\nprint(answer)\n```\n\n{after}"


@pytest.mark.parametrize("question, after, written, bracketed", [
    (HEADING, "## Result\nLAL", "## Result\n7", False),
    (HEADING, "## Result: 12.5", "## Result: 7", False),
    (HEADING, "## Result\nThe team with most points is LAL", "## Result\n7", False),
    (FENCED, "```toml\nvalue = [1.5, 2.5]\n```", "```toml\nvalue = 7\n```", True),
    (FENCED, "Some words first.\n\n```toml\nvalue = 'LAL'\n```", "```toml\nvalue = 7\n```", False),
    (QUOTED, "> `LAL`", "> 7", False),
    (QUOTED, "> no", "> 7", False),
])
def test_a_form_the_model_shows_after_its_program_is_read_around_its_guessed_value(question, after, written, bracketed):
    shown = form_from_example(_reply(after), question)
    assert shown is not None and shown.template.write("7") == written and shown.bracketed is bracketed


@pytest.mark.parametrize("question, after", [
    (HEADING, ""),                                          # nothing after the program
    (HEADING, "LAL"),                                       # a bare value shows no form
    (HEADING, "## Result"),                                 # the question's words only: no value
    (QUOTED, "The answer is `LAL`."),                       # a sentence of the model's own
    (QUOTED, "The computed answer is: 26.0"),
    (QUOTED, "This program groups the rows by team and counts them."),
    (FENCED, "```toml\nteams = ['LAL']\n```"),              # a key the question never named
    (HEADING, "## Result\n```\nLAL    10\nPHX     8\nName: team, dtype: int64\n```"),
])
def test_no_form_is_read_from_a_reply_that_shows_none(question, after):
    assert form_from_example(_reply(after), question) is None
    assert form_from_example(after, question) is None       # no program in the reply: nothing after it


def test_the_words_a_question_quotes_are_counted_where_a_form_leaves_them_out():
    from shell_agent_lab.answers.printed_form import words_missing
    from shell_agent_lab.answers.templates import Template

    def literals_missing(form, question):
        return len(words_missing(form, question))

    question = "Which team? Close with a block (```yaml ... ```) holding one key, `result`, e.g. `42`."
    assert literals_missing(Template("```yaml\nresult: ", "\n```"), question) == 0
    assert literals_missing(Template("```yaml\n", "\n```"), question) == 1          # the key left out
    assert literals_missing(Template("```\n", "\n```"), question) == 2
    # a quoted number is a sample value; the asking sentence's words are not an instruction's
    assert literals_missing(Template("> ", ""), "Which `team` won? End with a line starting with `> `.") == 0


@pytest.mark.parametrize("question, after, written", [
    (QUOTED, "> `answer`", "> 7"),                           # the program's name where the value goes
    (HEADING, "## Result\n{answer}", "## Result\n7"),
    (FENCED, "```toml\nvalue = <answer>\n```", "```toml\nvalue = 7\n```"),
])
def test_a_form_shown_with_the_programs_name_for_the_value_is_a_form(question, after, written):
    from shell_agent_lab.answers.printed_form import form_shown

    shown = form_from_example(_reply(after), question)
    assert shown is not None and shown.template.write("7") == written and not shown.bracketed
    # written out alone, as a reply to the request for the print line
    assert form_shown(after, question).template.write("7") == written


def test_the_request_for_the_form_names_the_quoted_words_the_forms_left_out():
    from shell_agent_lab.answers.printed_form import form_request, words_missing
    from shell_agent_lab.answers.templates import Template

    question = "Which team? Close with a block (```yaml ... ```) holding one key, `result`."
    assert words_missing(Template("```yaml\n", "\n```"), question) == ["result"]
    assert form_request([]).endswith("the form the question asks the answer to be given.")
    assert form_request(["result"]).endswith("given, writing `result` as the question does.")


@pytest.mark.parametrize("question, written", [
    ("How many? Finish on a line opening with ∴ and the count.", "∴ 42"),
    ("How many? Put it inside double braces like {{ this }}.", "{{42}}"),
    ("How many? Enclose it in guillemets « ».", "«42»"),
    ("How many? End with 【the number】 please.", "【42】"),
    ("How many? Write the arrow ⟹ then the value.", "⟹ 42"),
    # a doubled ASCII mark written on both sides of an example encloses the value
    ("How many? Hide it between spoiler bars, ||like so||, and nothing else.", "||42||"),
    ("How many? Mark it up as %%this%% on the last line.", "%%42%%"),
    # marks named in words, none written
    ("How many? The last thing you write is the count in double quotation marks.", '"42"'),
    ("How many? Wrap the number in square brackets at the very end.", "[42]"),
    ("How many? Close by putting it between two pipes.", "|42|"),
    ("How many? Give it inside double curly braces.", "{{42}}"),
    ("How many? Reply with the value, without quotes, in backticks.", "`42`"),
])
def test_the_marks_an_instruction_names_make_a_form(question, written):
    from shell_agent_lab.answers.printed_form import form_from_marks

    form = form_from_marks(question)
    assert form is not None and form.template.write("42") == written


@pytest.mark.parametrize("question", [
    "How many? Give the price in €.",                      # a currency is a unit
    "How many? The temperature in °C, one decimal.",       # beside a letter
    "How many? Write “yes” or “no”.",                       # quotes around words
    "How many? Use → or ⟹ before it.",                       # two marks: which one?
    "How many? Show it as RESULT >>> 42.",                  # an ASCII run is no mark of its own
    "How many? Just the number.",
    "How many? Do not put it in quotes.",                   # named only to be left out
    "How many? Use parentheses or brackets around it.",     # two marks named: which one?
    "How many? Show the || operator once.",                  # a doubled mark written once
])
def test_no_form_from_marks_that_make_none(question):
    from shell_agent_lab.answers.printed_form import form_from_marks

    assert form_from_marks(question) is None


def test_quotes_named_as_neither_double_nor_single_are_written_in_either():
    from shell_agent_lab.answers.printed_form import marks_missing
    from shell_agent_lab.answers.templates import Template

    assert marks_missing(Template("'", "'"), "How many? Put the count in quotes.") == []
    assert marks_missing(Template("'", "'"), "How many? Put the count in double quotes.") == ['"']
    assert marks_missing(Template('"', '"'), "How many? Put the count in double quotes.") == []
