"""The answer form read from a question, and the answer written from what a program printed."""
from __future__ import annotations

import pytest

from shell_agent_lab.answers.compose import NOT_COMPUTED, compose, format_value
from shell_agent_lab.answers.numbers import humane_numbers
from shell_agent_lab.answers.forms import Slot, read_form


@pytest.mark.parametrize("question, slots", [
    ('What is the mean fare? @mean_fare[mean_fare_value] where "mean_fare_value" is a float rounded to two '
     'decimal places.', [("mean_fare", "number", 2)]),
    ("Which region sells most? End your answer with @region[value] (the region's name) and @revenue[value] "
     "(rounded to 2 decimal places).", [("region", "text", None), ("revenue", "number", 2)]),
    ('Is the difference significant? @p_value[p], @significant[yes_or_no] where "p" is a number rounded to four '
     'decimal places and "yes_or_no" is "Yes" or "No".', [("p_value", "number", 4), ("significant", "bool", None)]),
    ("How many rows are there? @rows[value] (a whole number)", [("rows", "integer", 0)]),
    ("Share of late orders? @late[value] (a percentage from 0 to 100, rounded to 1 decimal place)",
     [("late", "percent", 1)]),
    ("The top three? @top[value] (a comma-separated list)", [("top", "list", None)]),
    ("Chi-square? Put the result in the form @chi_sq[value] @dof[value], with chi_sq to 2 decimals; dof as an "
     "integer.", [("chi_sq", "number", 2), ("dof", "integer", 0)]),
    ("Fit y = a + b * x. Put the result in the form @b[value] @a[value] @r2[value], with b to 4 decimals; a to 3 "
     "decimals; r2 to 4 decimals.", [("b", "number", 4), ("a", "number", 3), ("r2", "number", 4)]),
    ("Fit y = a + b * x. Put the result in the form @b[value] @a[value], both to 4 decimals.",
     [("b", "any", 4), ("a", "number", 4)]),
])
def test_closed_form_slots(question, slots):
    form = read_form(question)
    assert form.style == "closed"
    assert [(s.name, s.kind, s.decimals) for s in form.slots] == slots


# the kind is read from the answer's own description (its placeholder and sentence), never from the
# question's other words: a plain `Answer: <value>` line holds any value, written as its type says
@pytest.mark.parametrize("question, kind, decimals", [
    ("How many customers churned? End with a line Answer: <value>", "any", None),
    ("How many customers churned? End with a line Answer: <the count>, a whole number.", "integer", 0),
    # a yes/no question by its grammar (an auxiliary verb first), whatever the line says
    ("Does the mean exceed 5? Reply yes or no. End with a final line `Answer: <value>`.", "bool", None),
    ("What share of orders were returned, as a percentage rounded to 1 decimal? Finish with Answer: <value>",
     "any", 1),
    ("Which carrier is slowest? End with a line Answer: <value>", "any", None),
    ("Which carrier is slowest? End with a line Answer: <the carrier's name>", "text", None),
    ("List the three busiest stations, comma-separated. End with a line Answer: <value>", "any", None),
    ("Do the means differ, by Welch's t-test at the 5% significance level? Close with a final line reading "
     "`Answer: yes` or `Answer: no`.", "bool", None),                  # a 5% level is a value, not the form
    ("What is the 75th percentile of fare, to 2 decimals? End with a line Answer: <value>", "any", 2),
    # what follows the placeholder is a rule of the format, the same for every answer: the
    # placeholder's own words ("two codes": names) and a clause naming it say what this one holds
    ("Which two codes occur most often? Close with a final line `Answer: <two codes>`, separated by commas.", "list",
     None),
    ("How many rows? Write the final answer between <answer> and </answer> tags, a list as comma-separated values.",
     "any", None),
    ("How many rows? End your reply with one line `Answer: <value>`: a number without units.", "any", None),
    ("How many rows? End with `Answer: <value>` where value is a whole number.", "integer", 0),
    ("Is it above 5? Write one final line `Answer: {answer}`, where {answer} is yes or no.", "bool", None),
])
def test_answer_line(question, kind, decimals):
    form = read_form(question)
    assert form.style == "line"
    assert (form.slots[0].kind, form.slots[0].decimals) == (kind, decimals)


def test_free_question_has_no_slots():
    form = read_form("Which region has the highest revenue?")
    assert form.style == "free" and form.slots == ()


def test_values_are_rounded_as_asked_not_retyped():
    form = read_form("Mean? @mean[value] (rounded to 2 decimal places) and @p[value] (rounded to 4 decimal places)"
                     " and @n[value] (a whole number)")
    out = compose(form, "working...\n@mean[0.081333]\n@p[1.068182e-16]\n@n[2081990.35981308]")
    assert out.complete
    assert "@mean[0.08]" in out.text and "@p[0.0000]" in out.text and "@n[2081990]" in out.text
    assert "working..." in out.text


def test_a_slot_nothing_computed_says_so_and_holds_no_number():
    form = read_form("Mean and region? @mean[value] (rounded to 2 decimal places) and @region[value] (its name)")
    out = compose(form, "@region[West]")
    assert not out.complete and "@mean" in " ".join(out.missing)
    assert f"@mean: {NOT_COMPUTED}" in out.text and "@mean[" not in out.text


def test_failure_answers_every_slot_could_not_compute():
    form = read_form("Is it significant? Answer yes or no. End with a line Answer: <value>")
    out = compose(form, "", failure="column 'Wins' does not exist")
    assert out.text.endswith(f"Answer: {NOT_COMPUTED} (column 'Wins' does not exist)")
    assert "Yes" not in out.text and "No" not in out.text.split("(")[0]


def test_answer_line_from_the_only_value_printed():
    form = read_form("How many orders were late? End with a line Answer: <value>")
    assert compose(form, "41.0\n").text == "Answer: 41"


@pytest.mark.parametrize("raw, slot, written", [
    ("np.float64(3.14159)", Slot("x", "number", 2), "3.14"),
    ("True", Slot("x", "bool", truth="yes"), "Yes"),
    ("no", Slot("x", "bool", truth="True"), "False"),
    ("no", Slot("x", "bool", truth="true"), "false"),
    ("['North', 'South']", Slot("x", "list"), "North, South"),
    ("Index(['a', 'b'], dtype='object')", Slot("x", "list"), "a, b"),
    ("$1,234.567", Slot("x", "number", 1), "1234.6"),
    ("-0.0001", Slot("x", "number", 2), "0.00"),
    ("'West'", Slot("x", "text"), "West"),
    ("12.0", Slot("x", "any"), "12"),
    ("0.123456789", Slot("x", "any"), "0.123457"),
    ("maybe", Slot("x", "bool"), None),
    ("n/a", Slot("x", "number", 2), None),
    ("nan", Slot("x", "number", 2), None),
])
def test_format_value(raw, slot, written):
    assert format_value(raw, slot) == written


def test_prose_numbers_are_written_as_a_person_would():
    assert humane_numbers("smokers 32050.23183153285, others 8434.268297856199, r=0.98765") == \
        "smokers 32,050.23, others 8,434.27, r=0.988"
    assert humane_numbers("@x[3.14159265]") == "@x[3.14159265]"      # a closed-form slot is not prose


def test_prose_tidy_leaves_code_alone():
    text = "Mean 3.14159265.\n```sql\nSELECT 3.14159265\n```\nand `x = 2.7182818`"
    assert humane_numbers(text) == "Mean 3.14.\n```sql\nSELECT 3.14159265\n```\nand `x = 2.7182818`"


def test_finish_rounds_the_model_slots_and_refuses_ungrounded_ones():
    from shell_agent_lab.answers.compose import finish

    form = read_form("Mean and r? @mean[value] (rounded to 2 decimal places) and @r[value] (rounded to 3 decimal places)")
    out = finish(form, "The mean is high. @mean[51032080.7130] @r[0.987]", computed=True,
                 grounded=lambda raw: raw != "0.987")
    assert "@mean[51032080.71]" in out.text
    assert "@r[" not in out.text and "@r: could not compute (no computed result holds 0.987)" in out.text


def test_finish_after_failed_calls_states_no_category():
    from shell_agent_lab.answers.compose import finish

    form = read_form("Which diagnosis is most common? End with a line Answer: <value>")
    out = finish(form, "Answer: Alzheimers", computed=False)
    assert out.text == "Answer: could not compute (no computation succeeded)"


def test_a_part_without_instructions_keeps_a_name_as_written():
    form = read_form("Which source converts best, and its mean order value? End your answer with @source[value] "
                     "(the traffic source) and @average[value] (rounded to 2 decimal places).")
    out = compose(form, "@source[google]\n@average[85.2961]")
    assert out.complete and out.text == "@source[google]\n@average[85.30]"


def test_slots_filled_from_result_tables_without_a_model():
    import pandas as pd

    from shell_agent_lab.answers.compose import compose_from_frames

    form = read_form("Top region and its revenue? @region[value] (its name) and @revenue[value] "
                     "(rounded to 2 decimal places)")
    one_row = pd.DataFrame({"region": ["West"], "revenue": [38988.123]})
    assert compose_from_frames(form, [one_row], why="x").text == "@region[West]\n@revenue[38988.12]"
    line = read_form("How many orders? End with a line Answer: <value>")
    assert compose_from_frames(line, [pd.DataFrame({"n": [41]})], why="x").text == "Answer: 41"
    many = pd.DataFrame({"region": ["West", "East"], "revenue": [1.0, 2.0]})
    assert compose_from_frames(form, [many], why="not settled").missing == {
        "@region[…]": "not settled", "@revenue[…]": "not settled"}
    assert compose_from_frames(read_form("Which region?"), [one_row], why="x") is None


def test_a_printed_series_footer_is_not_part_of_the_answer():
    out = compose(read_form("What are the average units per product?"),
                  "Average units:\nproduct\nGadget    50.395833\nWidget    50.770833\nName: units, dtype: float64\n")
    assert out.text == "Average units:\nproduct\nGadget    50.40\nWidget    50.77"


@pytest.mark.parametrize("question, options", [
    ("Which part of the day has the most trips? Put the result in the form @daypart[value] @trips[value], with "
     "daypart as night, morning, afternoon or evening; trips as an integer.", ("night", "morning", "afternoon", "evening")),
    ("Give @tier[value], where tier is one of Gold, Silver or Bronze.", ("Gold", "Silver", "Bronze")),
    ("Which side wins? Close with a final line `Answer: <north or south>`.", ("north", "south")),
    ("Is it above 5? Close with a final line `Answer: yes` or `Answer: no`.", ()),
    ("Report @kind[value] as an integer or a float.", ()),
    ("Which region sells most? End your answer with @region[value] (the region's name).", ()),
    ("Of distance.km, duration.min and tip.amount, which moves most with fare.total? Put the result in the form "
     "@column[value] @r[value], with r to 4 decimals.", ("distance.km", "duration.min", "tip.amount")),
    ("Which of SystolicBP, HeartRateBpm and BmiValue moves most closely with DiastolicBP? Close with a final line "
     "`Answer: <the column name>`.", ("SystolicBP", "HeartRateBpm", "BmiValue")),
    ("Which of the columns north_kwh or south_kwh has the larger mean? Answer: <column>", ("north_kwh", "south_kwh")),
    ("Which of the stores in Leeds sold most? End your answer with @store[value].", ()),
    ("What is the correlation of price and quantity, which shows how they move? End your answer with @r[value].", ()),
    ("For each of north and south, which month sold most? End your answer with @month[value].", ()),
    ("Which of the regions, North or South, sold more? End your answer with @region[value].", ()),
    ("How do they compare. Among north_kwh and south_kwh, which has the larger mean? Answer: <column>",
     ("north_kwh", "south_kwh")),
])
def test_the_values_a_question_lists_are_the_only_ones_a_part_takes(question, options):
    form = read_form(question)
    assert form.slots[0].options == options


def test_the_answer_lines_own_alternatives_are_its_options():
    form = read_form("Which tariff uses more? Close with a final line `Answer: E7` or `Answer: STD`.")
    assert form.slots[0].options == ("E7", "STD")
    assert read_form("Is it above 5? End with Answer: True or Answer: False").slots[0].truth == "True"


def test_a_value_outside_the_listed_options_is_not_an_answer():
    form = read_form("Busiest? Put the result in the form @daypart[value] @trips[value], with daypart as night, "
                     "morning, afternoon or evening; trips as an integer.")
    assert compose(form, "@daypart[17]\n@trips[221]").missing == {
        "@daypart[…]": "'17' is not one of night, morning, afternoon, evening"}
    out = compose(form, "@daypart[Afternoon (12-18h)]\n@trips[221.0]")
    assert out.complete and out.text == "@daypart[afternoon]\n@trips[221]"
    from shell_agent_lab.answers.program_prompt import answer_instruction
    from shell_agent_lab.answers.spec import read_spec

    assert "daypart: one of 'night', 'morning', 'afternoon', 'evening'" in answer_instruction(read_spec(
        "Busiest? Put the result in the form @daypart[value] @trips[value], with daypart as night, morning, "
        "afternoon or evening; trips as an integer."))


def test_a_which_of_question_takes_one_of_the_names_it_lists_for_its_naming_part():
    form = read_form("Of distance.km, duration.min, wait.min and tip.amount, which has the largest absolute "
                     "correlation with fare.total, and what is it? Put the result in the form @column[value] "
                     "@r[value], with r to 4 decimals.")
    assert [s.options for s in form.slots] == [("distance.km", "duration.min", "wait.min", "tip.amount"), ()]
    assert compose(form, "@column[fare.total]\n@r[1.0]").missing == {
        "@column[…]": "'fare.total' is not one of distance.km, duration.min, wait.min, tip.amount"}
    assert compose(form, "@column[distance.km]\n@r[0.89984]").text == "@column[distance.km]\n@r[0.8998]"
    # two parts that could name something: which one the list is for is not guessed
    two = read_form("Of Leeds, York and Hull, which sold most, and to whom? Put the result in the form "
                    "@city[value] @buyer[value].")
    assert [s.options for s in two.slots] == [(), ()]
