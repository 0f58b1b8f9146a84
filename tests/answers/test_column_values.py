"""Computed values read against the data: a label part tied to a column holds one of that
column's values (the tie from the format's syntax and the data's column names), and a text that
is a named column's values joined end to end is no answer."""
from __future__ import annotations

import pandas as pd
import pytest

from shell_agent_lab.answers.column_values import column_members, columns_named, joined_column, off_column
from shell_agent_lab.answers.spec import read_spec, with_columns
from shell_agent_lab.answers.values import Taken
from shell_agent_lab.answers.write import retry_message, write_answer

COLUMNS = {"released": "str", "colour": "str", "year": "int64", "region": "str", "gender": "str",
           "age": "int64", "age_group": "str", "day": "str", "payment_type": "str", "room_type": "str",
           "PLAYER_NAME": "str", "PLAYER_TEAM": "str", "PTS": "int64"}
FRAMES = {"arrests": pd.DataFrame({"released": ["Yes", "No", "Yes"], "colour": ["White", "Black", None],
                                   "region": ["M", "S", "M"]})}


def _tied(question: str) -> dict[str, tuple[str, str]]:
    return {p.name: (p.kind, p.column) for p in with_columns(read_spec(question), COLUMNS).parts}


def test_a_part_is_tied_by_a_columns_whole_name_only():
    # the placeholder, the part's own name, a label's last word
    assert _tied("Format: @higher_group[colour] @gap[value]") == {"higher_group": ("label", "colour"),
                                                                 "gap": ("any", "")}
    assert _tied("Format: @region[code] where code is as written in the data")["region"] == ("label", "region")
    assert _tied("Format: @older_gender[label] @age_gap[a number]")["older_gender"] == ("label", "gender")
    assert _tied("Format: @age_group[label]")["age_group"] == ("label", "age_group")
    # a word shared with several columns ties nothing: 'type' is a word of two of them
    assert _tied("Format: @most_common_type[label]")["most_common_type"] == ("label", "")
    assert _tied("Format: @most_common_payment[label]")["most_common_payment"] == ("label", "")
    # a column of numbers ties nothing, and the part keeps its kind
    assert _tied("Format: @mean_age[age]")["mean_age"] == ("any", "")
    assert _tied("Format: @best_year[label]")["best_year"] == ("label", "")
    # a placeholder that is one word of a text column, or a plural of it: not a whole name
    assert _tied("Format: @span[days]")["span"] == ("any", "")
    assert _tied("Format: @winner[name]") == {"winner": ("label", "")}
    # a prose question's subject, as before: the column that reads as the name
    assert _tied("Which player scored the most points?") == {"answer": ("label", "PLAYER_NAME")}


def test_a_value_outside_its_column_is_named_with_the_columns_values():
    spec = with_columns(read_spec("Format: @higher_group[colour] @top_region[region]"), COLUMNS)
    off = off_column(spec, Taken({"higher_group": "Yes", "top_region": " m "}), FRAMES)
    assert list(off) == ["higher_group"]
    assert off["higher_group"].note == "'Yes' is not a value of column 'colour' (it holds 'White', 'Black')"
    assert retry_message(spec, Taken({"higher_group": "Yes", "top_region": "M"}), off) == (
        "higher_group: 'Yes' is not a value of column 'colour' (it holds 'White', 'Black'); bind the value "
        "of 'colour' the question asks for, read from that column.")
    written = write_answer(spec, Taken({"higher_group": "Yes", "top_region": "M"}), "", off).text
    assert written == ("Note: @higher_group[…]: 'Yes' is not a value of column 'colour' (it holds 'White', "
                       "'Black').\n@higher_group[Yes]\n@top_region[M]")
    assert off_column(spec, Taken({"higher_group": "white"}), FRAMES) == {}
    # several names pass when each is a value; numbers and yes/no are the kind check's to judge
    assert off_column(spec, Taken({"higher_group": ["White", "Black"]}), FRAMES) == {}
    assert off_column(spec, Taken({"higher_group": "White, Black"}), FRAMES) == {}
    assert off_column(spec, Taken({"higher_group": "White, Green"}), FRAMES) != {}
    assert off_column(spec, Taken({"higher_group": 2818}), FRAMES) == {}
    assert off_column(spec, Taken({"higher_group": True}), FRAMES) == {}
    # a column the program reads as dates or numbers is not the frame's text: not checked
    assert off_column(spec, Taken({"higher_group": "2024-07-01 00:00:00"}), FRAMES, converted={"colour"}) == {}
    # a column no frame has: nothing to check
    assert off_column(spec, Taken({"higher_group": "Yes"}), {"other": pd.DataFrame({"x": [1]})}) == {}
    assert column_members(FRAMES, "nope") is None


AMES = {"ames": pd.DataFrame({"Central_Air": ["Y", "Y", "N", "Y"], "Street": ["Pave", "Grvl", "Pave", "Pave"],
                              "Code": ["MA", "NA", "GE", "RS"], "Dept": ["MANAGERS", "SALES", "HR", "IT"]})}


def test_a_named_text_column_summed_is_named_for_any_part():
    """``.sum()`` of a column of 'Y'/'N' joins the letters: never an answer, whatever the part."""
    spec = read_spec("How many houses have central air conditioning?")
    off = off_column(spec, Taken({"answer": "YYNYYYYNYY"}), AMES, named={"Central_Air"})
    assert off["answer"].note == "'YYNYYYYNYY' is the values of column 'Central_Air' written end to end"
    assert retry_message(spec, Taken({"answer": "YYNYYYYNYY"}), off) == (
        "the answer: 'YYNYYYYNYY' is the values of column 'Central_Air' written end to end (.sum() of a text "
        "column joins its text): compare the column with the value asked about first, then count or sum the "
        "matches.")
    # a text the runner cut short
    assert joined_column("PaveGrvlPavePa …", AMES, {"Street"}) == "Street"
    # only the columns the program names are looked at
    assert off_column(spec, Taken({"answer": "YYNYYYYNYY"}), AMES, named={"Street"}) == {}
    # a value of a named column is an answer, whatever it is made of (MA+NA+GE+RS)
    assert joined_column("MANAGERS", AMES, {"Code", "Dept"}) is None
    for fine in ("Pave", "YY", "Gravel road", 3, ["Y", "N"]):
        assert off_column(spec, Taken({"answer": fine}), AMES, named={"Central_Air", "Street"}) == {}


def test_the_columns_a_program_names():
    code = "d = ames.dropna(subset=['Street'])\nanswer = (d['Central_Air'] == 'Y').sum()"
    assert columns_named(code, ["Central_Air", "Street", "Code"]) == {"Central_Air", "Street"}
    assert columns_named("answer = (", ["Street"]) == set()


def test_a_text_compared_with_a_column_that_never_holds_it_is_named_with_what_the_column_holds():
    from shell_agent_lab.answers.column_values import unmatched_values

    said = unmatched_values("n = (arrests['released'] == 'yes').sum()", FRAMES)
    assert said is not None and "'yes', which is not one of its values (it holds 'Yes')" in said
    said = unmatched_values("f = arrests[arrests['colour'].isin(['White', 'Blue'])]", FRAMES)
    assert said is not None and "'Blue'" in said and "'White', 'Black'" in said
    assert "'Mid'" in (unmatched_values("x = arrests[~arrests.region.eq('M') | ('Mid' != arrests['region'])]", FRAMES)
                       or "")
    # values it holds, a column it does not have, a column of numbers, one the program converts
    for code in ("n = (arrests['released'] == 'Yes').sum()", "n = arrests[arrests['nope'] == 'x']",
                 "n = arrests[arrests['colour'] != 'Black']", "n = (arrests['released'] > 'A').sum()",
                 "this is not python ("):
        assert unmatched_values(code, FRAMES) is None, code
    ages = {"p": pd.DataFrame({"age": [1, 2], "when": ["2020-01-01", "2021-01-01"]})}
    assert unmatched_values("x = p[p['age'] == '3']", ages) is None
    assert unmatched_values("x = p[p['when'] == '2020']", ages, converted={"when"}) is None


_RATES = pd.DataFrame({"state": ["Alabama", "Vermont", "Wyoming"], "year": [1936, 1936, 1950],
                       "rate": [10.0, 3670.2, 5.0]})


@pytest.mark.parametrize("code, told", [
    ("state = d['state'].max()\nrate = d['rate'].max()\nanswer = {'state': state, 'rate': rate}",
     "row = d.loc[d['rate'].idxmax()], then read each value from it (row['state'])"),
    ("answer = {'state': str(d['state'].min()), 'rate': d['rate'].min()}",
     "row = d.loc[d['rate'].idxmin()], then read each value from it (row['state'])"),
    ("answer = {'state': d['state'].max()}",
     "row = d.loc[d['<the column it ranks by>'].idxmax()], then read each value from it (row['state'])"),
    # the year taken as its own extreme too: read from the row the rate ranks, not ranked by
    ("answer = {'state': d['state'].max(), 'year': d['year'].max(), 'rate': d['rate'].max()}",
     "row = d.loc[d['rate'].idxmax()], then read each value from it (row['state'], row['year'])"),
])
def test_a_label_taken_as_the_alphabetical_extreme_of_its_column_goes_back(code, told):
    from shell_agent_lab.answers.column_values import text_extremes

    spec = with_columns(read_spec("Which state and year has the highest rate, and what is it? Format: @state[name] "
                                  "@year[four-digit year] @rate[the rate, one decimal place]"),
                        {"state": "str", "rate": "float64"})
    found = text_extremes(spec, code, {"d": _RATES})
    assert list(found) == ["state"] and "alphabetically" in found["state"].note
    assert found["state"].told.endswith(told)


@pytest.mark.parametrize("code", [
    "state = d.loc[d['rate'].idxmax(), 'state']\nanswer = {'state': state, 'rate': d['rate'].max()}",
    "answer = {'state': d['year'].max(), 'rate': d['rate'].max()}",        # a number column's extreme
    "answer = {'state': d['state'].mode()[0]}",
    "answer = {'state': d['state'",
])
def test_other_labels_are_not_read_as_extremes(code):
    from shell_agent_lab.answers.column_values import text_extremes

    spec = read_spec("Which state has the highest rate, and what is it? Format: @state[name] @rate[x]")
    assert text_extremes(spec, code, {"d": _RATES}) == {}


def test_a_number_its_text_column_holds_as_a_name_is_that_name():
    """Family ``185`` of a ``family`` column holding ``'185'`` and ``'136A'`` is a name: it is
    written as the column writes it, with no "a number where a name was asked" note or retry."""
    from shell_agent_lab.answers.column_values import as_names
    from shell_agent_lab.answers.spec import read_spec, with_columns
    from shell_agent_lab.answers.values import take_values
    from shell_agent_lab.answers.write import retry_message, write_answer
    frames = {"g": pd.DataFrame({"family": ["1", "185", "136A"], "children": [3, 15, 2]})}
    spec = with_columns(read_spec("Which family has the most children? @largest_family[family]"),
                        {"family": "str", "children": "int64"})
    assert spec.parts[0].column == "family"
    taken = as_names(spec, take_values(spec, {"answer": {"largest_family": 185}}), frames)
    assert taken.values == {"largest_family": "185"}
    assert retry_message(spec, taken) is None and "number where" not in write_answer(spec, taken).text
    # a number the column does not hold, or a column read as numbers, stays a number (and is flagged)
    other = as_names(spec, take_values(spec, {"answer": {"largest_family": 2}}), frames)
    assert other.values == {"largest_family": 2} and retry_message(spec, other)
    assert as_names(spec, taken, frames, converted={"family"}) is taken


#: rows numbered 0, 1, …; names of their own but for one (two Hamiltons, as Ontario has)
_TOWNS = pd.DataFrame({"name": ["Ajax", "Brampton", "Toronto", "Hamilton", "Hamilton", "Barrie", "Oshawa", "Guelph",
                                "Milton", "Whitby"],
                       "status": ["town", "city", "city", "city", "township", "city", "city", "city", "town", "town"],
                       "year": list(range(2001, 2011)),
                       "density": [1900.5, 2469.0, 4427.8, 509.1, 12.0, 1428.3, 1027.0, 1511.1, 372.0, 1269.1]})


@pytest.mark.parametrize("question, code, read", [
    ("Apart from Toronto, which municipality had the highest population density?",
     "answer = towns[towns['name'] != 'Toronto']['density'].idxmax()",
     "towns[towns['name'] != 'Toronto'].loc[towns[towns['name'] != 'Toronto']['density'].idxmax(), 'name']"),
    ("Which year was the least dense?",
     "row = towns.sort_values('year')['density'].idxmin()\nanswer = int(row)",
     "towns.sort_values('year').loc[towns.sort_values('year')['density'].idxmin(), 'year']"),
    ("What is the densest town? Format: @densest[name] @density[x]",
     "answer = {'densest': towns['density'].idxmax(), 'density': towns['density'].max()}",
     "towns.loc[towns['density'].idxmax(), 'name']"),
    # not a name but a value of the row: the year of the peak, read from the column of years
    ("When was the density at its peak? Give @max_density_year[yyyy] and @max_density[x].",
     "answer = {'max_density_year': towns['density'].idxmax(), 'max_density': towns['density'].max()}",
     "towns.loc[towns['density'].idxmax(), 'year']"),
])
def test_a_row_number_bound_for_which_thing_it_is_goes_back_to_read_the_name(question, code, read):
    from shell_agent_lab.answers.column_values import row_labels
    from shell_agent_lab.answers.values import take_values

    spec = read_spec(question)
    first = spec.parts[0].name
    taken = take_values(spec, {"answer": {first: 2, spec.parts[-1].name: 4427.8} if "@" in question else 1})
    found = row_labels(spec, code, taken, {"towns": _TOWNS})
    name = spec.parts[0].name
    assert list(found) == [name] and "is the number of the row" in found[name].note
    assert found[name].told.endswith(read)
    assert found[name].told in (retry_message(spec, taken, found) or "")


@pytest.mark.parametrize("question, code, frame", [
    # grouped first: the label is the group's
    ("Which status is densest?", "answer = towns.groupby('status')['density'].mean().idxmax()", _TOWNS),
    # the row itself is asked
    ("Which row has the highest density?", "answer = towns['density'].idxmax()", _TOWNS),
    # rows labelled by their names: the label is the name
    ("Which municipality is densest?", "answer = towns['density'].idxmax()", _TOWNS.set_index("name")),
    # a number asked, not which thing
    ("How dense is the densest municipality?", "answer = towns['density'].max()", _TOWNS),
    # the row's number is what a part named for the row asks
    ("Where is the peak? Give @peak_row[n].", "answer = {'peak_row': towns['density'].idxmax()}", _TOWNS),
])
def test_labels_that_are_no_row_numbers_are_left_alone(question, code, frame):
    from shell_agent_lab.answers.column_values import row_labels
    from shell_agent_lab.answers.values import take_values

    spec = read_spec(question)
    assert row_labels(spec, code, take_values(spec, {"answer": 2}), {"towns": frame}) == {}


@pytest.mark.parametrize("question, code, read, values", [
    ("List the municipalities denser than 1500.",
     "answer = towns[towns['density'] > 1500].index.tolist()",
     "towns[towns['density'] > 1500]['name']", ["Ajax", "Brampton", "Toronto", "Guelph"]),
    ("Which years were denser than 1500?",
     "dense = towns[towns['density'] > 1500]\nanswer = list(dense.index)",
     "dense['year']", [2001, 2002, 2003, 2008]),
    # the frame read again from a file the program names (it is given, not read)
    ("List the municipalities denser than 1500.",
     "import pandas as pd\ntowns = pd.read_csv('towns.csv')\nanswer = towns[towns['density'] > 1500].index.tolist()",
     "towns[towns['density'] > 1500]['name']", ["Ajax", "Brampton", "Toronto", "Guelph"]),
])
def test_row_numbers_listed_where_names_were_asked_go_back_to_read_them(question, code, read, values):
    from shell_agent_lab.answers.column_values import row_labels
    from shell_agent_lab.answers.program_repairs import spans_rewritten
    from shell_agent_lab.answers.values import take_values

    spec = read_spec(question)
    taken = take_values(spec, {"answer": [0, 1, 2, 7]})
    found = row_labels(spec, code, taken, {"towns": _TOWNS})
    assert list(found) == ["answer"] and "numbers of the rows" in found["answer"].note
    assert found["answer"].told.endswith(read) and found["answer"].rewrite is not None
    rewritten = spans_rewritten(code, [found["answer"].rewrite])
    scope: dict = {"towns": _TOWNS}
    # the same program, reading the names (the runner hands it the data a read names)
    exec(rewritten.replace("towns = pd.read_csv('towns.csv')", ""), scope)
    assert list(scope["answer"]) == values


@pytest.mark.parametrize("code, frame", [
    # grouped first: the index holds the groups' names
    ("answer = towns.groupby('status')['density'].mean().sort_values().index.tolist()", _TOWNS),
    # rows labelled by their names
    ("answer = towns[towns['density'] > 1500].index.tolist()", _TOWNS.set_index("name")),
    # the frame bound anew with an index of its own
    ("towns = towns.set_index('name')\nanswer = towns[towns['density'] > 1500].index.tolist()", _TOWNS),
    ("towns = towns.copy()\ntowns = towns.set_index('name')\nanswer = towns[towns['density'] > 1500].index.tolist()",
     _TOWNS),
    # a Series computed from the frame is indexed by what it computed over, not rows
    ("means = towns[['density', 'year']].mean()\nanswer = means[means > 1500].index.tolist()", _TOWNS),
])
def test_an_index_that_names_things_is_no_list_of_row_numbers(code, frame):
    from shell_agent_lab.answers.column_values import row_labels
    from shell_agent_lab.answers.values import take_values

    spec = read_spec("List the municipalities denser than 1500.")
    assert row_labels(spec, code, take_values(spec, {"answer": [0, 1]}), {"towns": frame}) == {}
