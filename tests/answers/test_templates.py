"""The answer line is written in the form the question shows, whatever that form is."""
from __future__ import annotations

import json

import pytest

from shell_agent_lab.answers.compose import compose, finish
from shell_agent_lab.answers.forms import form_of
from shell_agent_lab.answers.spec import LINE, PROSE, read_spec
from shell_agent_lab.answers.templates import DEFAULT, read_template
from shell_agent_lab.answers.values import take_values
from shell_agent_lab.answers.write import write_answer

Q = "What is the mean sale price?"

#: (instruction, the answer line written for 1234.5)
FORMS = [
    ("Give the final answer on a last line as Answer: <value>.", "Answer: 1234.5"),
    ("End your reply with a line of the form `Answer: <value>`.", "Answer: 1234.5"),
    ("Write exactly one final line `Answer: {answer}`, where {answer} is the number.", "Answer: 1234.5"),
    ("Last line: Answer: <value>", "Answer: 1234.5"),
    ("Put your final answer within \\boxed{}.", "\\boxed{1234.5}"),
    ("Write the result as `\\boxed{<number>}`.", "\\boxed{1234.5}"),
    ("Wrap the final answer in <answer></answer> tags.", "<answer>1234.5</answer>"),
    ("Reply with <result>your value</result> at the end.", "<result>1234.5</result>"),
    ("Finish with FINAL ANSWER: <your answer>", "FINAL ANSWER: 1234.5"),
    ("Close with `Final Answer: [value]`.", "Final Answer: 1234.5"),
    ("End with a line `#### <number>`.", "#### 1234.5"),
    ("State it as \"Result = {value}\" on its own line.", "Result = 1234.5"),
    ("Respond with 'Mean price: <amount>' only.", "Mean price: 1234.5"),
    ("Put it on a line “ANSWER => <value>”.", "ANSWER => 1234.5"),
    ("Use the form `**Answer:** <value>`.", "**Answer:** 1234.5"),
    ("The last line should be of the form 'ANSWER: $ANSWER' (without quotes).", "ANSWER: 1234.5"),
    ("State it as 'Final Answer: The final answer is $ANSWER'.", "Final Answer: The final answer is 1234.5"),
    ("Your reply should end with 'The mean is X dollars' where X is the number.", "The mean is 1234.5 dollars"),
    ("End with 'ANSWER: ' followed by the value.", "ANSWER: 1234.5"),
    ("Answer in the form RESULT=<value>", "RESULT=1234.5"),
    ("Format your final answer as: Result = <value>", "Result = 1234.5"),
    ("Finish with 'TOTAL = ' and the value.", "TOTAL = 1234.5"),
    ("Finish with 'TOTAL=' and the value.", "TOTAL=1234.5"),
    ("Finish with: Final answer: ___", "Final answer: 1234.5"),
    ("Write `Total: {{ value }}` last.", "Total: 1234.5"),
    ("Your response should end with 'The answer is X.' where X is the answer.", "The answer is 1234.5."),
    # a task-list item's box is the line's opening, whether a placeholder follows it or not
    ("Close with a ticked item `- [x] ` and the value after it.", "- [x] 1234.5"),
    ("Last line: `* [ ] <value>`.", "* [ ] 1234.5"),
    # quoted words that open the line and end in a comma take the value after them
    ("Finish with one closing sentence that begins with the words \"In short,\" and then states only the result.",
     "In short, 1234.5"),
    ("Close with one line of R code, e.g. final_result <- ... ;", "final_result <- 1234.5"),
    # a quoted slot in a line of code, with the keywords in capitals beside it
    ("End with one SQL line, written as SELECT '...' AS answer_value; with the result inside the quotes.",
     "SELECT '1234.5' AS answer_value"),
    # a lower-case keyword of the language the instruction names opens its line of code, and the
    # semicolon that ends the statement is part of it
    ("End with one line of JavaScript, const answer = ...; whose right-hand side is the result.",
     "const answer = 1234.5;"),
    ("Finish with a Rust line: let answer = ...;", "let answer = 1234.5;"),
    ("Close, in Scala, with: val answer = ...", "val answer = 1234.5"),
]


@pytest.mark.parametrize("instruction, opening", [
    # no language named, or the keyword is the sentence's own word: the label opens the form
    ("Close with let result = ...; in code.", "result = "),
    ("End with answer = ...; in JavaScript.", "answer = "),
    ("Then write answer = ... at the very end.", "answer = "),
])
def test_a_word_before_the_label_is_kept_only_as_a_named_languages_keyword_opening_the_code(instruction, opening):
    found = read_template(f"{Q} {instruction}")
    assert found is not None and found.opening == opening


@pytest.mark.parametrize("instruction, line", FORMS)
def test_the_answer_line_is_written_in_the_form_the_question_shows(instruction, line):
    spec = read_spec(f"{Q} {instruction}")
    assert spec.style == LINE
    out = write_answer(spec, take_values(spec, {"answer": 1234.5}))
    assert out.text.splitlines()[-1] == line
    assert out.values == {"Answer:": "1234.5"}


@pytest.mark.parametrize("instruction, line", FORMS)
def test_a_reply_written_in_the_form_is_read_back_and_rewritten_once(instruction, line):
    form = form_of(read_spec(f"{Q} {instruction}"))
    reply = f"The mean over all rows.\n{line.replace('1234.5', '1234.4999')}"
    out = finish(form, reply, computed=True)
    assert out.values == {"Answer:": "1234.4999"}
    assert out.text.splitlines()[-1] == line.replace("1234.5", "1234.4999")
    assert out.text.count(line.replace("1234.5", "1234.4999")) == 1
    printed = compose(form, f"over 1460 rows\n{line}")
    assert printed.values == {"Answer:": "1234.5"} and printed.text.count(line) == 1


def test_a_printed_line_in_the_form_is_not_shown_twice():
    spec = read_spec(f"{Q} Put your final answer within \\boxed{{}}.")
    out = write_answer(spec, take_values(spec, {"answer": 180921.2}), printed="mean over 1460 rows\n\\boxed{180921.2}")
    assert out.text == "mean over 1460 rows\n\\boxed{180921.2}"


def test_a_value_the_program_printed_in_the_form_is_written_in_it_once():
    spec = read_spec(f"{Q} End with one SQL line, written as SELECT '...' AS answer_value; with the result inside.")
    for printed in ("SELECT 1234.5 AS answer_value;", "SELECT '1234.5' AS answer_value"):
        out = write_answer(spec, take_values(spec, {}, printed=printed))
        assert out.text.splitlines()[-1] == "SELECT '1234.5' AS answer_value"
    spec = read_spec(f"{Q} Wrap the final answer in <answer></answer> tags.")
    assert write_answer(spec, take_values(spec, {"answer": "<answer>12</answer>"})).text.endswith("<answer>12</answer>")


@pytest.mark.parametrize("instruction", [
    "Reply with 'yes' or 'no' ONLY.",                          # capitals beside quoted words, no slot
    "Write '...' if nothing was found, else the VALUE.",        # a quoted ellipsis alone
])
def test_quotes_and_capitals_without_markup_make_no_form_of_code(instruction):
    assert read_template(f"{Q} {instruction}") is None


def test_a_form_without_the_word_answer_still_reads_the_kind_it_describes():
    spec = read_spec("Is the mean price above 200000? Reply `Verdict: <yes or no>` on the last line.")
    assert spec.style == LINE and spec.parts[0].kind == "yesno"
    assert write_answer(spec, take_values(spec, {"answer": False})).text == "Verdict: No"
    spec = read_spec("What is the mean price? End with `#### <number rounded to 2 decimals>`.")
    assert spec.parts[0].decimals == 2
    assert write_answer(spec, take_values(spec, {"answer": 180921.19589})).text == "#### 180921.20"


def test_a_sentence_that_only_shows_the_form_is_not_asked_of_the_program():
    spec = read_spec(f"{Q} Put your final answer within \\boxed{{}}.")
    assert spec.asked == Q


def test_nothing_computed_is_said_in_the_form_too():
    spec = read_spec(f"{Q} Wrap the final answer in <answer></answer> tags.")
    out = write_answer(spec, take_values(spec, {}))
    assert out.text.startswith("<answer>could not compute") and out.text.endswith("</answer>")


@pytest.mark.parametrize("question", [
    "What is the mean of df[\"price\"]?",
    "How many rows have status '<NA>'?",
    "What share of rows have `category` equal to \"A [old]\"?",
    "Which `region` has the highest `df['sales']`?",
    "Give \"The answer is <value>\" please.",            # words before it, not a label: no form read
    "Plot `price` against `area`.",
    "What does `{x}` stand for in the template column?",
    "Count the rows where `note` is `<empty>`.",
    "Is 'US' more common than 'UK' in `country`, counting US rows once?",   # a value, not a symbol
    "How many rows have `price` above $100 and `code` equal to 'AB'? Count AB once.",
])
def test_brackets_inside_a_question_are_no_form(question):
    assert read_template(question) is None
    assert read_spec(question).style == PROSE
    assert read_spec(question).template == DEFAULT


def test_the_default_form_is_the_answer_label():
    spec = read_spec("What is the mean? Put the result on a final line that starts with 'Answer:'.")
    assert spec.style == LINE and spec.template.opening == "Answer: "
    assert write_answer(spec, take_values(spec, {"answer": 3})).text == "Answer: 3"


def test_named_parts_are_not_a_line_form():
    spec = read_spec("Format: @mean[value] @median[value], both rounded to 2 decimals.")
    assert [p.name for p in spec.parts] == ["mean", "median"]
    assert read_template("Answer as `@mean[value]`") is None


# -- named parts shown as one object ------------------------------------------------------------
OBJECT_QUESTIONS = [
    'What are the mean and median price? Return JSON like {"mean": <number rounded to 2 decimals>, "median": <number>}.',
    "What are the mean and median price? Answer as {'mean': '<value, 2 decimals>', 'median': '<value>'}",
    'What are the mean and median price? Reply with a JSON object:\n{\n  "mean": "a number to 2 decimals",\n'
    '  "median": 0.0\n}',
]


@pytest.mark.parametrize("question", OBJECT_QUESTIONS)
def test_parts_shown_as_an_object_are_written_as_one(question):
    spec = read_spec(question)
    assert spec.as_object and spec.names == ("mean", "median")
    assert spec.parts[0].decimals == 2
    out = write_answer(spec, take_values(spec, {"answer": {"mean": 180921.19589, "median": 163000}}),
                       printed='{"mean": 180921.19589, "median": 163000}')
    assert out.text == '{"mean": 180921.20, "median": 163000}'
    assert json.loads(out.text) == {"mean": 180921.2, "median": 163000}


def test_an_object_holds_text_booleans_lists_and_null_for_what_nothing_computed():
    spec = read_spec('Is the test significant, which groups differ and what is F? Return '
                     '{"significant": <true or false>, "groups": <list of names>, "f": <number>, "region": "<name>"}')
    out = write_answer(spec, take_values(spec, {"answer": {"significant": True, "groups": ["a", "b"], "region": "West"}}))
    *notes, line = out.text.splitlines()
    assert json.loads(line) == {"significant": True, "groups": ["a", "b"], "f": None, "region": "West"}
    assert notes == ["@f: could not compute (the program set no value for f)"]


def test_an_object_in_a_reply_is_read_back_and_rewritten_in_the_asked_precision():
    form = form_of(read_spec(OBJECT_QUESTIONS[0]))
    out = finish(form, 'From the query:\n```json\n{"x": 1}\n```\n{"mean": 180921.19589, "median": 163000}',
                 computed=True)
    assert out.text.splitlines()[-1] == '{"mean": 180921.20, "median": 163000}'
    assert out.values == {"@mean[…]": "180921.20", "@median[…]": "163000"}
    assert compose(form, '{"mean": 1.234, "median": 2}').text == '{"mean": 1.23, "median": 2}'


@pytest.mark.parametrize("question", [
    'Map {"M": "Male", "F": "Female"} and count the rows of each.',
    "Recode `smoker` with {'yes': 1, 'no': 0}, then give the mean.",
    "Recode {'y': 'yes', 'n': 'no'} and count.",
    'What is the mean of the field {"a": 1}?',
])
def test_a_mapping_shown_in_a_question_is_not_the_answers_form(question):
    assert not read_spec(question).as_object


def test_a_value_that_opens_with_the_forms_label_is_written_under_it_once():
    from shell_agent_lab.answers.templates import DEFAULT, Template

    assert Template("```yaml\nresult: ", "\n```").write("result: ['a', 'b']") == "```yaml\nresult: ['a', 'b']\n```"
    assert Template("```yaml\nresult: ", "\n```").write("Result: 20.66%") == "```yaml\nresult: 20.66%\n```"
    assert DEFAULT.write("Answer: 5") == "Answer: 5"
    # a value that only starts with the label's word is a value: no label to drop
    assert Template("Total: ").write("Totally 5") == "Total: Totally 5"
    assert Template("<b>").write("<b> x") == "<b><b> x"


@pytest.mark.parametrize("instruction, written", [
    ("Wrap the final result in BBCode tags, [result]...[/result], with nothing else between them.", "[result]7[/result]"),
    ("Terminate with a header-style line X-Result: ... . For a number write digits only.", "X-Result: 7"),
    ("Cite it as a footnote placed after everything else: [^ans]: <your value>", "[^ans]: 7"),
    ("Somewhere after your working, include <<< SLOT >>> with SLOT replaced by the result itself.", "<<< 7 >>>"),
    ("Close with an INI section that holds one line, value = ..., giving the result.", "value = 7"),
    ("Finish the way this example finishes:\n\n(final 42)", "(final 7)"),
    ("Also put it in an HTML comment at the very end, written as <!-- result: ... -->", "<!-- result: 7 -->"),
    # a fenced block shows the form on lines of its own: not a quote that hides it
    ("End like this:\n\n```\n[[ ... ]]\n```", "[[ 7 ]]"),
    # an example line on its own is the form, words and a closing full stop too
    ("If the count were 42, your last line would read:\nTally closed at 42.", "Tally closed at 7."),
    # an aside in parentheses after the slot is the sentence's, not the form's
    ("Finish with a setting line, of the form total='...' (the value alone inside the quotes).", "total='7'"),
    # an example line given inside a sentence is the form, its number where the value goes
    ("Finish with a chat-style slash command on a line of its own: /answer, a space, then the result, "
     "for example /answer 42.", "/answer 7"),
    ("Give the answer after the marker `RESULT >>>`, for example: RESULT >>> 42", "RESULT >>> 7"),
    ("End with the tag, e.g. [n=42], on its own line.", "[n=7]"),
    # a word in capitals that a colon follows is the label, not the slot, an example after it
    ("End with an Org-mode keyword line: #+RESULT: then a space and the result, for example #+RESULT: 42",
     "#+RESULT: 7"),
])
def test_a_slot_written_bare_with_markup_beside_it_is_the_form(instruction, written):
    form = read_template(f"How many rows are there? {instruction}")
    assert form is not None and form.write("7") == written


@pytest.mark.parametrize("instruction, written", [
    ("Finish with one C preprocessor line, #define ANSWER followed by the result.", "#define ANSWER 7"),
    ("Close with a reStructuredText field-list line, :value: followed by a space and the result, "
     "as in :value: 42 (several items go on that line).", ":value: 7"),
    ("Put the result last, on a line that opens with %%result: and nothing else.", "%%result: 7"),
    ("End on a line of its own made of #+begin_result RESULT and the value.", "#+begin_result RESULT 7"),
])
def test_a_line_described_by_its_syntax_with_no_slot_is_the_form(instruction, written):
    form = read_template(f"How many rows are there? {instruction}")
    assert form is not None and form.write("7") == written


@pytest.mark.parametrize("text", [
    # a marked word alone is a name, not a line's syntax; marks around words enclose them
    "What is the mean of the %change column per region?",
    "How many rows carry the #urgent tag?",
    "Load /data/sales.csv and count the rows.",
    "**Note:** the table is weekly. How many weeks are there?",
    "Hide the final result in spoiler bars, ||like so||, with only the result between the bars.",
    "Which rows have #N/A? in the status?",
])
def test_no_line_syntax_from_names_paths_or_enclosing_marks(text):
    assert read_template(text) is None


@pytest.mark.parametrize("text", [
    "Compare the sales in Q1, Q2, ... and Q4. Which quarter is highest?",
    "What is the mean of <price> per region?",
    "Use the GDP column; GDP is in dollars. Which country has the most?",
    "Close with a fenced ```yaml ... ``` block holding the answer.",
    "List the five largest values, highest first.",
    # an example that is a value alone, or one with no markup, shows no form
    "Round it to one decimal, for example 42.5.",
    "Give it in kilometres, such as 5 km.",
])
def test_no_form_from_a_slot_among_the_sentences_own_words_or_inside_quotes(text):
    assert read_template(text) is None


def test_truth_words_are_written_as_the_question_spells_them():
    ask = "Is the mean above 5? End with one line of JavaScript, const answer = ...; with true or false."
    spec = read_spec(ask)
    out = write_answer(spec, take_values(spec, {"answer": True}))
    assert out.text.splitlines()[-1] == "const answer = true;"
    for spelled, word in (("True or False", "False"), ("TRUE or FALSE", "FALSE"), ("true or false", "false")):
        spec = read_spec(f"Is the mean above 5? End with `Answer: <value>`, {spelled}.")
        assert write_answer(spec, take_values(spec, {"answer": False})).text.splitlines()[-1] == f"Answer: {word}"
