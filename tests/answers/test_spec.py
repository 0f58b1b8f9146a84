"""The answer spec: read once from the question, the same however the answer instruction is worded,
and no value a program computed is ever dropped from the answer."""
from __future__ import annotations

import json

import pytest

from shell_agent_lab.answers.spec import LINE, PARTS, PROSE, read_spec, with_columns
from shell_agent_lab.answers.values import take_values
from shell_agent_lab.answers.write import NOT_COMPUTED, retry_message, write_answer, write_part

# -- one question, many wordings of its answer instruction ------------------------------------
LINE_QUESTIONS = [
    "How many distinct borrowers show up in this loans export?",
    "Is average consumption different for the E7 tariff than for STD, by Welch's t-test?",
    "Which InsuranceType has the highest median CopayAmount?",
    "Which three site_code values account for the biggest total billing? Largest first.",
    "What is the slope of bill on kWh by ordinary least squares?",
    "Which player scored the most total points across all seasons?",
]

LINE_WORDINGS = [
    "{q} End with a line Answer: <value>",
    "{q} Close with a final line `Answer: <value>`.",
    "{q} End your reply with one line `Answer: <value>`: True or False for a yes/no question, several values "
    "comma-separated inside [ ].",
    "{q} Finish with `Answer: <value>`, a number, a name or a list, whichever fits.",
    "{q} Answer: ...",
    "{q}\n\nReply with the final line in the form Answer: [your answer].",
    "{q} Give the answer as `Answer: <value>` (a yes/no question takes yes or no; a list takes commas).",
]


def _shape(spec):
    return [(p.name, p.kind, p.decimals, p.allowed) for p in spec.parts]


@pytest.mark.parametrize("question", LINE_QUESTIONS)
def test_the_spec_is_the_same_however_the_answer_line_is_worded(question):
    specs = [read_spec(w.format(q=question)) for w in LINE_WORDINGS]
    assert {s.style for s in specs} == {LINE}
    # a wording that describes the format (placeholders, a menu of kinds) fixes no kind; a yes/no
    # question (its grammar, not the wording) holds yes or no
    kind = "yesno" if question.startswith("Is ") else "any"
    assert all(_shape(s) == [("answer", kind, None, ())] for s in specs), [_shape(s) for s in specs]
    # with no instruction at all it is prose with the same one part
    assert _shape(read_spec(question)) == [("answer", kind, None, ())] and read_spec(question).style == PROSE


CLOSED_WORDINGS = [
    "Run the chi-square test. Put the result in the form @chi_sq[value] @dof[value], with chi_sq to 2 decimals; "
    "dof as an integer.",
    "Run the chi-square test.\nFormat: @chi_sq[value] @dof[value], with chi_sq to 2 decimals; dof as an integer.\n"
    "Write each part as `@name[value]`.",
    "Run the chi-square test. Answer each part in the form `@name[value]`: @chi_sq[chi_sq_value] @dof[dof_value] "
    'where "chi_sq_value" is a number rounded to 2 decimal places and "dof_value" is an integer.',
    "Run the chi-square test. End your answer with @chi_sq[value] (rounded to two decimal places) and @dof[value] "
    "(a whole number).",
    "Run the chi-square test; report @chi_sq[value] to 2 dp and @dof[value] as a whole number.",
    "Run the chi-square test. Use `@part_name[value]` for each value asked: @chi_sq[…] to 2 decimals and "
    "@dof[…] as an integer; True or False for a yes/no part.",
]


def test_the_parts_are_the_same_however_the_format_is_worded():
    for wording in CLOSED_WORDINGS:
        spec = read_spec(wording)
        assert spec.style == PARTS, wording
        assert _shape(spec) == [("chi_sq", "number", 2, ()), ("dof", "count", 0, ())], wording


@pytest.mark.parametrize("question, parts", [
    ('Test normality. @normality_test[normality_test] @p_value[p_value] where "normality_test" is "normal" or '
     '"not normal" and "p_value" is rounded to 4 decimals. Answer every part as `@name[value]`.',
     [("normality_test", "label", None, ("normal", "not normal")), ("p_value", "number", 4, ())]),
    ("Which of SystolicBP, HeartRateBpm and BmiValue moves most? Close with a final line `Answer: <the column name>`.",
     [("answer", "label", None, ("SystolicBP", "HeartRateBpm", "BmiValue"))]),
    ("Is it significant? Close with a final line reading `Answer: yes` or `Answer: no`.",
     [("answer", "yesno", None, ())]),
    ("Slope? Close with a final line `Answer: <the number>`, to 4 decimals.", [("answer", "number", 4, ())]),
    # the words after a placeholder are a rule of the format, as in an instruction given for every
    # answer ("…, a list as comma-separated values"); the placeholder names several things
    ("Top sites? Close with a final line `Answer: <three site codes>`, separated by commas.",
     [("answer", "list", None, ())]),
    ("Top stores? Close with a final line `Answer: <two store numbers>`, separated by commas.",
     [("answer", "list", None, ())]),
    ("Which has gaps? End with `Answer: <the column names>`.", [("answer", "list", None, ())]),
    ("What is it? End with `Answer: <the status>`.", [("answer", "any", None, ())]),
    ("How many? Close with a final line `Answer: <the count>`, a whole number.", [("answer", "count", 0, ())]),
])
def test_explicit_syntax_is_read_as_written(question, parts):
    assert _shape(read_spec(question)) == parts


def test_a_metasyntactic_part_alone_is_a_part():
    assert read_spec("Which player? Answer as @name[value].").names == ("name",)


def test_a_yes_no_vocabulary_is_read_from_a_menu_without_fixing_the_kind():
    spec = read_spec("How does it compare with 5? End your reply with one line `Answer: <value>`: True or False "
                     "for a yes/no question, several values comma-separated inside [ ].")
    assert spec.parts[0].kind == "any" and spec.parts[0].truth == "True"
    assert write_answer(spec, take_values(spec, {"answer": True})).text == "Answer: True"
    assert write_answer(spec, take_values(spec, {"answer": 15})).text == "Answer: 15"


# -- no computed value is dropped -------------------------------------------------------------
VALUES = [15, 15.0, 0.034567, "LeBron James", True, ["a", "b"], {"x": 1, "y": 2.5}, "2023-04-01"]


#: answer instructions written after the spec reader was, none of them in its tests before
OTHER_WORDINGS = [
    "{q} Respond with just the number.", "{q} Reply in one sentence.",
    "{q} Give your answer as JSON: {{\"answer\": <value>}}.", "{q} Format your final answer as: Result = <value>",
    "{q} Output only the value, nothing else.", "{q} Your final line must be '#### <answer>'",
    "{q} Conclude with 'So the answer is: <answer>'.", "{q} Wrap the answer in double square brackets, like [[42]].",
    "{q} Please answer with True/False or a number as appropriate.", "{q} End with: FINAL=<value>",
    "{q} Give the answer in the form ANSWER[<value>].", "{q} Put the answer in a ```answer fenced block.",
    "{q} Answer format -> value only (no units, no words).", "{q} Write 'Answer is: ' then the value.",
    "{q} (answer on the last line, prefixed by =>)", "{q} Return a python dict literal {{'answer': ...}}.",
    "{q} Put your response after 'RESULT:' in capitals.", "{q} Use the template: «answer: …»",
]


@pytest.mark.parametrize("wording", LINE_WORDINGS + ["{q}"] + OTHER_WORDINGS)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_no_computed_value_is_dropped_whatever_the_wording(wording, value):
    for question in LINE_QUESTIONS:
        spec = read_spec(wording.format(q=question))
        out = write_answer(spec, take_values(spec, {"answer": value}))
        assert NOT_COMPUTED not in out.text and out.complete
        written = write_part(value, spec.parts[0]).text
        # as written, or as the JSON object some wordings show writes it
        assert written and (written in out.text or json.dumps(written) in out.text
                            or json.dumps(value) in out.text), out.text


@pytest.mark.parametrize("wording", CLOSED_WORDINGS)
@pytest.mark.parametrize("chi_sq, dof", [(12.3456, 3), ("not a number", 2.5), (True, "three")])
def test_no_computed_part_is_dropped_even_of_the_wrong_kind(wording, chi_sq, dof):
    spec = read_spec(wording)
    out = write_answer(spec, take_values(spec, {"answer": {"chi_sq": chi_sq, "dof": dof}}))
    assert NOT_COMPUTED not in out.text
    assert "@chi_sq[" in out.text and "@dof[" in out.text


def test_a_value_of_the_wrong_kind_is_shown_with_one_line_of_why():
    spec = read_spec("Chi-square? Put the result in the form @chi_sq[value] @dof[value], with chi_sq to 2 decimals; "
                     "dof as an integer.")
    out = write_answer(spec, take_values(spec, {"answer": {"chi_sq": 7.81472, "dof": 2.5}}))
    assert out.text == "Note: @dof[…]: 2.5 is not a whole number.\n@chi_sq[7.81]\n@dof[2.5]"


def test_values_are_taken_by_name_spelled_differently_or_in_order():
    spec = read_spec("Fit it. Put the result in the form @slope[value] @r2[value], both to 3 decimals.")
    assert take_values(spec, {"answer": {"Slope": 1.23456, "R2": 0.5}}).values == {"slope": 1.23456, "r2": 0.5}
    assert take_values(spec, {"answer": {"b": 1.0, "r_squared": 0.5}}).values == {"slope": 1.0, "r2": 0.5}
    assert take_values(spec, {"answer": [1.0, 0.5]}).values == {"slope": 1.0, "r2": 0.5}
    assert take_values(spec, {"slope": 1.0, "r2": 0.5}).values == {"slope": 1.0, "r2": 0.5}   # top-level names
    printed = take_values(spec, {}, "@slope[1.0]\n@r2[0.5]")       # an older program: its printed parts
    assert printed.values == {"slope": "1.0", "r2": "0.5"} and printed.source == "printed"
    # bound by name: what it printed is shown, not read
    assert take_values(spec, {"answer": {"slope": 2.0}}, "@r2[0.5]").missing == {
        "r2": "the program set no value for r2"}


def test_rounding_asked_in_a_format_line_is_applied():
    spec = read_spec("Format: @mean_x[mean_x] where \"mean_x\" is a number rounded to 2 decimals.")
    assert write_answer(spec, take_values(spec, {"answer": 6.30669})).text == "@mean_x[6.31]"


def test_a_number_for_a_name_is_retried_with_the_column_that_names_it():
    spec = with_columns(read_spec("Which player scored the most total points across all seasons?"),
                        {"PLAYER_ID": "int64", "PLAYER_NAME": "object", "PTS": "int64"})
    part = spec.parts[0]
    assert (part.kind, part.column) == ("label", "PLAYER_NAME")
    taken = take_values(spec, {"answer": 2818})
    told = retry_message(spec, taken)
    assert told is not None and "which player" in told and "'PLAYER_NAME'" in told and "2818" in told
    out = write_answer(spec, taken)
    assert "2818" in out.text and "is a number where a name" in out.text     # shown, never dropped
    assert retry_message(spec, take_values(spec, {"answer": "LeBron James"})) is None


def test_a_year_column_keeps_a_which_question_open():
    spec = with_columns(read_spec("Which season had the most points?"), {"SEASON": "int64", "PTS": "int64"})
    assert spec.parts[0].kind == "any"


def test_the_questions_own_sentences_do_not_describe_a_part():
    spec = read_spec("Some rows are exact duplicates of another row. How many rows remain after dropping them? "
                     "End your answer with @rows[value] (a whole number).")
    assert _shape(spec) == [("rows", "count", 0, ())]


def test_a_precision_said_of_other_parts_never_rounds_a_code():
    spec = read_spec("Which row has the highest points per game? Put the result in the form @player[value] "
                     "@ppg[value], with player as the PlayerCode; ppg to 2 decimals.")
    assert _shape(spec) == [("player", "any", None, ()), ("ppg", "number", 2, ())]
    out = write_answer(spec, take_values(spec, {"answer": {"player": 2544, "ppg": 27.1234}}))
    assert out.text == "@player[2544]\n@ppg[27.12]"


def test_open_kinds_asked_of_the_model_are_held_to_the_schema():
    from shell_agent_lab.answers.spec_model import ask_kinds, kinds_schema, with_model_kinds

    spec = read_spec("Which player scored most? Close with a final line `Answer: <value>`.")
    assert kinds_schema(spec)["properties"]["answer"]["enum"][-1] == "any"
    asked = ask_kinds(spec, "q", lambda prompt, schema: '{"answer": "label"}')
    assert asked.parts[0].kind == "label" and asked.source == "model"
    for reply in ('{"answer": "person"}', '{"other": "label"}', "label", '["label"]'):
        assert with_model_kinds(spec, reply) == spec                   # not held to the schema: unchanged

    def broken(prompt, schema):
        raise RuntimeError("no model")

    assert ask_kinds(spec, "q", broken) == spec
    closed = read_spec("Chi? Put the result in the form @chi_sq[value], with chi_sq to 2 decimals.")
    assert ask_kinds(closed, "q", broken) == closed                    # nothing open: never asked


def test_a_sentence_that_only_describes_a_format_is_not_asked_of_the_program():
    from shell_agent_lab.answers.program_prompt import FrameView, program_prompt

    menu = read_spec("Which day of the week sees the most checkouts? End your reply with one line `Answer: <value>`: "
                     "True or False for a yes/no question, several values comma-separated inside [ ].")
    assert menu.asked == "Which day of the week sees the most checkouts?"
    text = program_prompt([FrameView("df", 1, [("d", "str")])], "ignored", menu)
    assert "Question: Which day of the week sees the most checkouts?\n" in text and "True or False" not in text
    said = read_spec("How many? Close with a final line `Answer: <the count>`, a whole number.")
    assert said.asked == ""                                   # it says what the answer is: kept
    template = read_spec("Run the test.\nFormat: @chi_sq[value], to 2 decimals.\nWrite each part as `@name[value]`.")
    assert template.asked == "Run the test.\nFormat: @chi_sq[value], to 2 decimals."


@pytest.mark.parametrize("placeholder, kind", [("<the weekday, e.g. Tuesday>", "label"),
                                               ("<the day, e.g. 2023-01-31>", "date"),
                                               ("<the year, e.g. 2021>", "any"), ("<the weekday>", "any")])
def test_an_example_value_says_the_kind_by_its_own_type(placeholder, kind):
    spec = read_spec(f"Which day sees the most checkouts? Close with a final line `Answer: {placeholder}`.")
    assert spec.parts[0].kind == kind


@pytest.mark.parametrize("holder, kind", [("orders that name two shops", "any"), ("how many orders name it", "count"),
                                          ("how many", "count"), ("the shop's name", "label"),
                                          ("shop names, comma-separated", "list")])
def test_name_as_a_verb_names_no_kind_and_how_many_asks_for_a_count(holder, kind):
    spec = read_spec(f"Tally the orders. Hand in @orders_counted[{holder}].")
    assert spec.parts[0].kind == kind


# -- prose: what the program printed, the value added only when the print lacks it -----------
def test_a_prose_answer_that_states_the_value_is_not_repeated():
    spec = read_spec("What is the average body mass of Gentoo penguins, in grams?")
    out = write_answer(spec, take_values(spec, {"answer": 5076.01626}),
                       "The average body mass of Gentoo penguins is 5076.02 grams.")
    assert out.text == "The average body mass of Gentoo penguins is 5076.02 grams."
    assert "5076.01626" in out.values.values()        # the value itself is still kept


def test_a_prose_answer_that_lacks_the_value_gets_it():
    spec = read_spec("What is the average body mass of Gentoo penguins, in grams?")
    out = write_answer(spec, take_values(spec, {"answer": 5076.01626}), "Done computing the mean.")
    assert out.text.endswith("Answer: 5076.01626")
    near = write_answer(spec, take_values(spec, {"answer": 0.5}), "There are 1 or 2 kinds.")
    assert near.text.endswith("Answer: 0.5")             # a whole number in passing states no 0.5


def test_a_yes_no_value_is_stated_only_by_the_whole_word():
    # "No" inside "not" states nothing: the sentence below never says which way it came out
    spec = read_spec("Were there more arrests in 2002 than in 1997?")
    out = write_answer(spec, take_values(spec, {"answer": False}), "There were not more arrests in 2002 than in 1997")
    assert out.text == "There were not more arrests in 2002 than in 1997\n\nAnswer: No"
    said = write_answer(spec, take_values(spec, {"answer": False}), "No, there were fewer arrests in 2002.")
    assert said.text == "No, there were fewer arrests in 2002."


def test_a_long_text_cut_short_is_stated_by_the_text_it_was_cut_from():
    spec = read_spec("How many houses have central air?")
    joined = "Y" * 2500
    out = write_answer(spec, take_values(spec, {"answer": joined[:2000] + " …"}), f"Houses with central air: {joined}")
    assert out.text == f"Houses with central air: {joined}"
    cut = write_answer(spec, take_values(spec, {"answer": "N" + joined[:1999] + " …"}), f"Houses with central air: {joined}")
    assert cut.text.endswith("…")                         # another text's start states nothing


@pytest.mark.parametrize("printed", [
    "The three most populous countries are: ['China', 'India', 'United States']",   # a list
    "The three most populous countries are: ('China', 'India', 'United States')",   # a tuple
    "The three most populous countries are: ['China' 'India' 'United States']",     # a numpy array
])
def test_a_computed_list_printed_by_python_is_written_as_the_answer_writes_it(printed):
    spec = read_spec("What were the three most populous countries in 2007, largest first?")
    out = write_answer(spec, take_values(spec, {"answer": ["China", "India", "United States"]}), printed)
    assert out.text == "The three most populous countries are: China, India, United States"


def test_a_printed_list_that_is_not_the_computed_value_is_left_as_printed():
    spec = read_spec("Which years had more than 100 arrests?")
    out = write_answer(spec, take_values(spec, {"answer": [1997, 2002]}), "Candidates: [1996, 1997, 2002]")
    assert out.text == "Candidates: [1996, 1997, 2002]"        # its numbers are all there


@pytest.mark.parametrize("question,value,printed", [
    # the answer writes these items otherwise than printed (a leading zero, a percent sign)
    ("Which zip codes have the most sales?", ["02134", "02139"], "Top zip codes: ['02134', '02139']"),
    ("Which rates are offered?", ["12%", "5%"], "Rates: ['12%', '5%']"),
    # the list is inside a call, another list or a subscript
    ("What were the three most populous countries?", ["China", "India", "United States"],
     "Top: Index(['China', 'India', 'United States'], dtype='object', name='country')"),
    ("Which years had more than 100 arrests?", [1997, 2002], "Pairs: [[1997, 2002], [2003, 2004]]"),
    ("Which sizes are most common?", [5], "The top (5) of df[5]: 5 penguins"),
])
def test_a_printed_list_is_rewritten_only_where_it_stands_alone_as_the_answer_writes_it(question, value, printed):
    spec = read_spec(question)
    assert write_answer(spec, take_values(spec, {"answer": value}), printed).text.startswith(printed)


def test_a_one_item_tuple_is_rewritten_as_python_prints_it():
    spec = read_spec("Which years had more than 100 arrests?")
    assert write_answer(spec, take_values(spec, {"answer": [1997]}), "Years: (1997,)").text == "Years: 1997"


@pytest.mark.parametrize("printed", [
    "The most common species is 'Adelie'.", "Adelie's count is the largest.", "Yes-Adelie, then Gentoo.",
    "最常见的物种是Adelie",
])
def test_a_name_beside_quotes_hyphens_or_other_scripts_is_stated(printed):
    spec = read_spec("What is the most common species?")
    assert write_answer(spec, take_values(spec, {"answer": "Adelie"}), printed).text == printed


def test_a_name_inside_a_longer_word_is_not_stated():
    spec = read_spec("Which country had the highest rate?")
    out = write_answer(spec, take_values(spec, {"answer": "Mali"}), "It is Somalia.")
    assert out.text == "It is Somalia.\n\nAnswer: Mali"


def test_a_printed_series_keeps_its_lines_and_states_its_values():
    spec = read_spec("How many penguins of each species are there?")
    printed = "species\nAdelie       152\nGentoo       124\nChinstrap     68\nName: count, dtype: int64\n"
    out = write_answer(spec, take_values(spec, {"answer": {"Adelie": 152, "Gentoo": 124, "Chinstrap": 68}}), printed)
    assert out.text == "```text\nspecies\nAdelie       152\nGentoo       124\nChinstrap     68\n```"


# -- a "where …" that describes several parts: each part takes only its own clause --------------
@pytest.mark.parametrize("question,expected", [
    ("Which region spends most, and how much? Format: @region[name] @spend[value], where name is the region "
     "as written in the data and value is a number rounded to two decimal places.",
     [("region", "label", None), ("spend", "number", 2)]),
    ("Is the link significant? Format: @r_a[value] @r_b[value] @ok[answer], where both correlations are "
     "rounded to three decimals and answer is \"yes\" or \"no\".",
     [("r_a", "any", 3), ("r_b", "any", 3), ("ok", "yesno", None)]),
    ("Count and average them. Format: @k[n] @avg[value], n an integer, value rounded to 2 decimals.",
     [("k", "count", 0), ("avg", "number", 2)]),
    ("Fit the line. Format: @grade[value] @fit[value] -- grade rounded to 4 decimal places and fit "
     "(the coefficient of determination) rounded to 3 decimal places.",
     [("grade", "number", 4), ("fit", "number", 3)]),
    ("Which shade leads, and by how much? Format: @leader[shade] @gap[value] where shade is written as in "
     "the data and value is a percentage rounded to 2 decimal places.",
     [("leader", "label", None), ("gap", "number", 2)]),
])
def test_each_part_takes_its_own_clause_of_a_shared_where(question, expected):
    assert [(p.name, p.kind, p.decimals) for p in read_spec(question).parts] == expected


@pytest.mark.parametrize("question, kind", [
    ("Were there more arrests in 2002 than in 1997?", "yesno"),
    ("is there a correlation between age and years married? Answer: <value>", "yesno"),
    ("Do union members earn significantly more? End your reply with a line of the form `Answer: <value>`.", "yesno"),
    ("Could Torque be normally distributed? Put your final answer within \\boxed{}.", "yesno"),
    ("Is the mean or the median price higher?", "any"),            # alternatives: it asks which
    ("And is that share lower than it is for blood group A?", "yesno"),   # a follow-up, joined by "And"
    ("So, were there more arrests in 2002?", "yesno"),
    ("And which of them is larger?", "any"),
    ("Is there any missing value in `age`? How many?", "any"),   # the question asked last counts
    ("How many rows are there?", "any"),
])
def test_a_yes_no_question_is_read_from_its_grammar_and_only_its_last_question_counts(question, kind):
    assert read_spec(question).parts[0].kind == kind


def test_a_yes_no_answer_of_the_wrong_kind_is_shown_and_goes_back_once():
    spec = read_spec("Do union members earn significantly more than non-members? Give the final answer on a last "
                     "line as Answer: <value>.")
    taken = take_values(spec, {"answer": 2.162897})
    assert write_answer(spec, taken).text.endswith("Answer: 2.162897")          # shown, never dropped
    assert "asks for yes or no" in (retry_message(spec, taken) or "")
    assert write_answer(spec, take_values(spec, {"answer": True})).text == "Answer: Yes"
    # a name where yes or no was asked (the state the question before named) goes back too
    spec = read_spec("And was that state's unemployment rate above the average? End with `Answer: <value>`.")
    taken = take_values(spec, {"answer": "WYOMING"})
    assert write_answer(spec, taken).text.endswith("Answer: WYOMING")
    assert "asks for yes or no" in (retry_message(spec, taken) or "")


@pytest.mark.parametrize("wording, written", [
    ("End your reply with one line `Answer: <value>`: True or False for a yes/no question, several values "
     "comma-separated inside [ ].", "Answer: [Compton, Hollywood]"),
    ("Last line: Answer: <value>, a list written inside ().", "Answer: (Compton, Hollywood)"),
    ("Give the final answer on a last line as Answer: <value>.", "Answer: Compton, Hollywood"),
    ("Reply with the final line in the form Answer: [your answer].", "Answer: Compton, Hollywood"),
])
def test_a_list_is_written_inside_the_brackets_the_instruction_shows(wording, written):
    spec = read_spec(f"Which areas had the most incidents? {wording}")
    assert write_answer(spec, take_values(spec, {"answer": ["Compton", "Hollywood"]})).text == written
    assert write_answer(spec, take_values(spec, {"answer": 3})).text == "Answer: 3"        # one value: as it is


def test_a_column_of_values_where_one_number_was_asked_is_shown_with_a_note_and_goes_back_once():
    spec = read_spec("Format: @n_polls[n] @mean_lead[value] where value is rounded to 2 decimals")
    column = [5.08 + i for i in range(233)]
    taken = take_values(spec, {"answer": {"n_polls": 233, "mean_lead": column}})
    out = write_answer(spec, taken)
    assert "Note: @mean_lead[…]: 233 values where a number was asked." in out.text
    assert "@mean_lead[5.08, 6.08, " in out.text                          # shown, never dropped
    told = retry_message(spec, taken) or ""
    assert told.startswith("mean_lead came out as 233 values (5.08, 6.08, 7.08, …)") and len(told) < 200
    # a few numbers for a part described as numbers: a note, no retry
    few = take_values(spec, {"answer": {"n_polls": 2, "mean_lead": [1.5, 2.5]}})
    assert retry_message(spec, few) is None


def test_a_column_of_names_where_one_name_was_asked_is_shown_with_a_note_and_goes_back_once():
    spec = read_spec("Which hitter had the most hits? Give @best_hitter[name] @hits[count].")
    names = [f"Player {i}" for i in range(322)]
    taken = take_values(spec, {"answer": {"best_hitter": names, "hits": 238}})
    out = write_answer(spec, taken)
    assert "322 values where a name was asked" in out.text
    assert "Player 0, Player 1, " in out.text                              # shown, never dropped
    assert (retry_message(spec, taken) or "").startswith("best_hitter came out as 322 values")
    # the few names a question may ask for stay as they are, with no retry
    few = take_values(spec, {"answer": {"best_hitter": ["Don Mattingly", "Kirby Puckett"], "hits": 238}})
    assert retry_message(spec, few) is None


@pytest.mark.parametrize("question, answer, name", [
    ("Which three towns had the most rain?", {"answer": []}, "the answer"),
    ("Which states lost people, and how many are there? Give @states[a, b, …] @count[n].",
     {"answer": {"states": {}, "count": 4}}, "states"),
])
def test_an_empty_result_is_written_as_none_with_a_note_and_goes_back_once(question, answer, name):
    spec = read_spec(question)
    taken = take_values(spec, answer)
    out = write_answer(spec, taken)
    assert "no values (an empty result)" in out.text
    assert any(line.endswith(("none", "[none]")) for line in out.text.splitlines())
    assert (retry_message(spec, taken) or "").startswith(f"{name} came out empty")


def test_a_printed_table_where_values_were_asked_is_shown_with_a_note_and_goes_back_once():
    table = ("         date  site  pm25\n240 2011-06-01  0015  31.2\n256 2011-06-21  0015  30.9\n"
             "268 2011-07-03  0015  29.8")
    for question in ("Give me the three months with the highest average PM2.5, worst first.",
                     "Which month was worst? Give @worst_month[name] @peak[x]."):
        spec = read_spec(question)
        taken = take_values(spec, {"answer": table} if "@" not in question else
                            {"answer": {"worst_month": table, "peak": 31.2}})
        out = write_answer(spec, taken)
        assert "a table of 4 lines where" in out.text and "2011-06-21" in out.text       # shown, never dropped
        assert "came out as a printed table of 4 lines" in (retry_message(spec, taken) or "")
    spec = read_spec("Which month was worst?")
    assert retry_message(spec, take_values(spec, {"answer": "June\n"})) is None        # one line is a value


@pytest.mark.parametrize("question", [
    "Who has won the race more often than anyone else, counting every division?",
    "And whose winning time was the fastest? End with one line of JavaScript, const answer = ...;",
    "who won most often Finish with a chat-style slash command: /answer, a space, then the result.",
])
def test_a_question_asking_who_asks_for_a_name_and_a_count_there_goes_back_once(question):
    spec = read_spec(question)
    assert spec.parts[0].kind == "label"
    taken = take_values(spec, {"answer": 10})
    assert "10 is a number where a name was asked" in write_answer(spec, taken).text     # shown, never dropped
    assert retry_message(spec, taken)
    assert retry_message(spec, take_values(spec, {"answer": "Clarence DeMar"})) is None


@pytest.mark.parametrize("question", ["How many winners who ran in the rain were from Japan?",
                                      "Which runner was fastest, and who coached them? Give the time."])
def test_who_inside_a_question_that_does_not_open_with_it_asks_for_no_name(question):
    assert read_spec(question).parts[0].kind != "label"


def test_a_date_where_a_name_was_asked_is_shown_with_a_note_and_goes_back_once():
    spec = read_spec("Which month was dirtiest, and on how many dates? @dirtiest_month[month name] @dates[integer]")
    taken = take_values(spec, {"answer": {"dirtiest_month": "2011-06-21 00:00:00", "dates": 360}})
    out = write_answer(spec, taken)
    assert "2011-06-21 00:00:00 is a date where a name was asked" in out.text and "@dates[360]" in out.text
    assert "dirtiest_month came out as the date 2011-06-21 00:00:00" in (retry_message(spec, taken) or "")
    fine = take_values(spec, {"answer": {"dirtiest_month": "July", "dates": 360}})
    assert retry_message(spec, fine) is None
    dated = read_spec("On which day was it worst? @worst_day[YYYY-MM-DD]")     # a date asked is a date
    assert retry_message(dated, take_values(dated, {"answer": {"worst_day": "2011-06-21"}})) is None
    # a part tied to a column of dates names its value by the date: "which month" over months
    months = with_columns(read_spec("Which month had the highest revenue?"), {"month": "str", "revenue": "float64"})
    assert months.parts[0].column == "month" and months.parts[0].kind == "label"
    assert retry_message(months, take_values(months, {"answer": "2024-07-01 00:00:00"})) is None


def test_a_list_of_one_name_repeated_goes_back_asking_for_different_ones():
    spec = read_spec("Which three countries gained the most?\nFormat: @top_3[country1, country2, country3]")
    told = retry_message(spec, take_values(spec, {"answer": {"top_3": ["Oman", "Oman", "Oman"]}})) or ""
    assert "came out as one name 3 times ('Oman')" in told and "3 different ones" in told
    out = write_answer(spec, take_values(spec, {"answer": {"top_3": ["Oman", "Oman", "Oman"]}}))
    assert "Oman, Oman, Oman" in out.text                                   # shown, never dropped
    for fine in (["Oman", "Chad", "Oman"], ["Oman"], [1.0, 1.0]):
        assert retry_message(spec, take_values(spec, {"answer": {"top_3": fine}})) is None


def test_parts_bound_by_position_from_a_calls_fields_go_back_saying_which_field_each_got():
    spec = read_spec("Is vote independent of sex? Format: @chi2[value] @dof[n] @independent[yes/no], n an integer")
    code = ("chi2, dof, independent, _ = chi2_contingency(table)\n"
            "answer = {'chi2': chi2, 'dof': dof, 'independent': independent}")
    taken = take_values(spec, {"answer": {"chi2": 70.61, "dof": 3.1564e-15, "independent": 3}})
    told = retry_message(spec, taken, code=code) or ""
    assert "dof came out as 3.1564e-15" in told
    assert ("chi2_contingency gives chi2, p, dof, expected, in that order, so dof is its p; independent is its "
            "dof: write `chi2, p, dof, expected = chi2_contingency(table)`, then bind dof, independent from those "
            "fields.") in told
    right = take_values(spec, {"answer": {"chi2": 70.61, "dof": 3, "independent": "no"}})
    assert retry_message(spec, right, code=code) is None          # fitting values: nothing to say
    assert "in that order" not in (retry_message(spec, taken) or "")   # no code, no fields


@pytest.mark.parametrize("value, written", [(2002.0, "2002"), (2002, "2002"), (31.0, "31"), (2002.5, "2002.5"),
                                            ("2002-03-04 00:00:00", "2002-03-04")])
def test_a_date_part_computed_as_a_whole_float_is_written_whole(value, written):
    for text in ("In which year were the most arrests made?\nFormat: @year[yyyy] @n[count]",
                 # the decimals said of the other parts are not the year's
                 "In which year?\nFormat: @year[yyyy] @n[n] @pct[pct] -- yyyy and n are integers, pct is rounded "
                 "to 1 decimal."):
        spec = read_spec(text)
        assert spec.parts[0].kind == "date" and spec.parts[0].decimals is None
        assert write_part(value, spec.parts[0]).text == written


@pytest.mark.parametrize("text, kind, allowed", [
    ("@relationship[positive, negative or none]", "label", ("positive", "negative", "none")),
    ("Which class fares best?\nFormat: @class[1, 2 or 3], @rate[percentage, two decimals]", "label", ("1", "2", "3")),
    ("@strength[strong or weak]", "label", ("strong", "weak")),
    ("@ports[port1, port2, port3]", "list", ()),
    ("@top[name_1, name_2]", "list", ()),
    ("@missing_columns[col_a, col_b] listed alphabetically", "list", ()),
    # choices of several words, apart by " or " or " / "
    ("@conclusion[reject or fail to reject]", "label", ("reject", "fail to reject")),
    ("@normality[normal / not normal]", "label", ("normal", "not normal")),
    ("@trend[rising / falling / flat]", "label", ("rising", "falling", "flat")),
    # not alternatives: a description, a bound, names of one column, a yes/no, a unit
    ("@which[the name or the code]", "label", ()),
    ("@speed[km/h]", "any", ()),
    ("@n[5 or more]", "any", ()),
    ("@rate[percentage, two decimals]", "number", ()),
    ("@pair[height, weight]", "any", ()),
    ("@ok[yes or no]", "yesno", ()),
])
def test_a_placeholder_of_alternatives_lists_the_allowed_values(text, kind, allowed):
    part = read_spec(text).parts[0]
    assert (part.kind, part.allowed) == (kind, allowed)


def test_a_value_outside_the_placeholders_alternatives_is_shown_and_said():
    spec = read_spec("@relationship[positive, negative or none]")
    out = write_answer(spec, take_values(spec, {"answer": {"relationship": "unclear"}}))
    assert "unclear" in out.text and NOT_COMPUTED not in out.text
    assert write_part("Negative", spec.parts[0]).text == "negative"


def test_a_clause_naming_several_placeholders_describes_each_and_a_turned_down_percentage_is_none():
    text = ("What is the mean ratio for each status?\nAnswer Format: @ratio_good[x] @ratio_bad[y], with x and y "
            "as decimal fractions (not percentages) to 3 places.")
    parts = read_spec(text).parts
    assert [(p.kind, p.decimals, p.percent) for p in parts] == [("number", 3, False)] * 2
    text = "Which shares?\nFormat: @a[value] @b[value] @c[value], with a, b and c as percentages to 1 decimal."
    assert [(p.decimals, p.percent) for p in read_spec(text).parts] == [(1, True)] * 3
    # a clause about one of them says nothing of the others
    text = "Format: @n[n] @share[s] -- n is an integer; s as a percentage."
    n, share = read_spec(text).parts
    assert (n.kind, n.percent, share.percent) == ("count", False, True)


def test_a_row_mask_bound_as_the_answer_goes_back_to_be_reduced():
    spec = read_spec("Before 1940, was the anomaly ever above zero?")
    mask = {row: row == 7 for row in range(60)}
    told = retry_message(spec, take_values(spec, {"answer": mask})) or ""
    assert "one True/False for each of 60 rows" in told and ".any()" in told
    assert "60 rows" in (retry_message(spec, take_values(spec, {"answer": list(mask.values())})) or "")
    # True/False per named group, a few truths, or numbers per row: not a row mask
    for value in ({"West": True, "East": False}, [True, False, True], {row: float(row) for row in range(60)}):
        assert "True/False for each" not in (retry_message(spec, take_values(spec, {"answer": value})) or "")


def test_a_row_mask_bound_for_a_count_is_the_count_of_the_rows_it_selects():
    spec = read_spec("How many samples lie above the upper fence?\nFormat: @high_outliers[integer]")
    mask = [row % 5 == 0 for row in range(60)]
    taken = take_values(spec, {"answer": {"high_outliers": mask}})
    assert retry_message(spec, taken) is None
    out = write_answer(spec, taken)
    assert out.text.splitlines()[-1] == "@high_outliers[12]" and "one per row" in out.text
    assert write_answer(spec, take_values(spec, {"answer": {"high_outliers": dict(enumerate(mask))}})).values == {
        "@high_outliers[…]": "12"}


@pytest.mark.parametrize("holder, allowed", [
    ('longer tail on the "left" or the "right"', ("left", "right")),
    ('write "related" if p < 0.05, else "unrelated"', ("related", "unrelated")),
    ('either "means differ" or "no difference"', ("means differ", "no difference")),
    ('one of "independent", "not independent"', ("independent", "not independent")),
    ('"positive" or "negative" if significant, "none" if not', ("positive", "negative", "none")),
])
def test_values_a_placeholder_quotes_are_the_values_to_choose_from(holder, allowed):
    spec = read_spec(f"Is it so? Format: @r[r to 3 decimals] @verdict[{holder}]")
    verdict = spec.parts[1]
    assert (verdict.kind, verdict.allowed) == ("label", allowed)


def test_one_quoted_value_or_a_quoted_kind_word_is_no_choice():
    for holder in ('a column name such as "price"', '"integer"'):
        part = read_spec(f"Which? Format: @pick[{holder}]").parts[0]
        assert not part.allowed, part


def test_quoted_values_listed_with_an_article_between_them_are_choices():
    part = read_spec('Which side? Format: @tail[side], "left" or the "right"').parts[0]
    assert part.allowed == ("left", "right")


_R_LINE = ("Close with one line of R code that assigns the result to final_result using the arrow operator, "
           "e.g. final_result <- ... ; write TRUE or FALSE for a yes/no question and several values as c(...).")


def test_a_form_shown_after_e_g_is_written_without_the_abbreviation():
    for shown in ("e.g. final_result <- ...", "i.e. RESULT = <value>", "E.g. `Result: <value>`"):
        spec = read_spec(f"What is the mean weight? End with one line, {shown}.")
        opening = spec.template.opening
        assert not opening.lower().startswith(("eg", "ie", "e.g", "i.e")), (shown, opening)
        assert opening.strip() in shown, (shown, opening)


def test_truth_words_in_capitals_and_a_list_made_by_a_call_are_written_as_shown():
    yes_no = read_spec(f"Do smokers' babies weigh less? {_R_LINE}")
    assert yes_no.parts[0].kind == "yesno" and yes_no.parts[0].truth == "TRUE"
    assert write_answer(yes_no, take_values(yes_no, {"answer": True})).text.strip().endswith("final_result <- TRUE")
    several = read_spec(f"Which three teams pay the most? {_R_LINE}")
    assert several.list_marks == ("c(", ")")
    text = write_answer(several, take_values(several, {"answer": ["Bos", "NY", "Atl"]})).text
    assert text.strip().splitlines()[-1] == "final_result <- c(Bos, NY, Atl)"


def test_truth_words_written_in_title_case_stay_in_title_case():
    spec = read_spec("Is it normal? End with `Answer: <value>`, True or False.")
    assert spec.parts[0].truth == "True"
    assert write_part(False, spec.parts[0]).text == "False"


@pytest.mark.parametrize("question, subject", [
    ("Which three countries had the largest GDP per capita?", "countries"),
    ("Give the three 1986 teams with the highest average 1987 salary, best paid first.", "teams"),
    ("List the top 5 species by count.", "species"),
    ("Which player scored the most points?", "player"),
    # a count inside the question asks for no things by it
    ("How many of the ten teams won more than half their games?", ""),
    ("What is the mean of the 3 largest values?", ""),
])
def test_the_things_a_question_counts_are_what_it_asks_which_of(question, subject):
    assert read_spec(question).parts[0].subject == subject


def test_names_asked_for_each_with_the_number_it_was_ranked_by_are_written_as_the_names():
    spec = with_columns(read_spec("Which three countries had the largest GDP?"), {"country": "str", "gdp": "float64"})
    assert (spec.parts[0].kind, spec.parts[0].column) == ("label", "country")
    out = write_answer(spec, take_values(spec, {"answer": {"US": 21.4, "China": 14.3, "Japan": 5.1}}))
    assert out.text.splitlines()[-1] == "Answer: US, China, Japan"
    assert "US: 21.4, China: 14.3, Japan: 5.1" in out.text          # the numbers are shown beside
    # an open part keeps the mapping as it is
    spec = read_spec("What is the mean GDP per region?")
    assert write_answer(spec, take_values(spec, {"answer": {"West": 2.5, "East": 1.5}})).text.endswith("West: 2.5, East: 1.5")


@pytest.mark.parametrize("question, items", [
    ("Rank the four modes by how many travellers chose them, most popular first.", 4),
    ("Which 5 players scored the most points?", 5),
    ("Give the three 1986 teams with the most wins.", 3),
    ("List the top 3 states by output.", 3),
    ("Which 1986 teams won?", None),                    # a year, not a count of them
    ("How many of the five regions are above 5?", None),  # a count asked: one number
    ("What is the mean price?", None),
])
def test_how_many_values_a_question_counts_is_read_with_its_part(question, items):
    assert read_spec(question).parts[0].items == items


def test_another_number_of_values_than_the_question_counts_is_shown_and_goes_back_once():
    spec = read_spec("Rank the four modes by how many travellers chose them, most popular first.")
    taken = take_values(spec, {"answer": "air"})
    out = write_answer(spec, taken)
    assert "air" in out.text and "1 value where 4 were asked" in out.text              # shown, never dropped
    assert "came out as 1 value (air), but the question asks for 4" in (retry_message(spec, taken) or "")
    four = take_values(spec, {"answer": ["train", "car", "air", "bus"]})
    assert retry_message(spec, four) is None and "were asked" not in write_answer(spec, four).text
