"""A label part tied to a column holds one of that column's values: the tie comes from the
format's syntax and the data's column names, the check from the column's values."""
from __future__ import annotations

import pandas as pd

from shell_agent_lab.answers.column_values import column_members, off_column
from shell_agent_lab.answers.spec import read_spec, with_columns
from shell_agent_lab.answers.values import Taken

COLUMNS = {"released": "str", "colour": "str", "year": "int64", "region": "str", "gender": "str",
           "age_group": "str", "PLAYER_NAME": "str", "PLAYER_TEAM": "str", "PTS": "int64"}
FRAMES = {"arrests": pd.DataFrame({"released": ["Yes", "No", "Yes"], "colour": ["White", "Black", None],
                                   "region": ["M", "S", "M"]})}


def _tied(question: str) -> dict[str, str]:
    return {p.name: p.column for p in with_columns(read_spec(question), COLUMNS).parts}


def test_a_label_is_tied_by_its_placeholder_its_name_or_its_names_last_word():
    assert _tied("Which group is released more often? Format: @higher_group[colour] @gap[value]") == \
        {"higher_group": "colour", "gap": ""}
    assert _tied("Format: @region[code] where code is as written in the data")["region"] == "region"
    assert _tied("Format: @older_gender[label] @age_gap[a number]") == {"older_gender": "gender", "age_gap": ""}
    # a placeholder that only says "a name" ties nothing; a word of a number column neither
    assert _tied("Format: @winner[name]") == {"winner": ""}
    assert _tied("Format: @best_year[label]") == {"best_year": ""}
    # the part's whole name over a column that only shares a word with it
    assert _tied("Format: @age_group[label]")["age_group"] == "age_group"
    # a prose question's subject, as before: the column that reads as the name
    assert _tied("Which player scored the most points?") == {"answer": "PLAYER_NAME"}


def test_a_value_outside_its_column_is_named_with_the_columns_values():
    spec = with_columns(read_spec("Format: @higher_group[colour] @top_region[region]"), COLUMNS)
    off = off_column(spec, Taken({"higher_group": "Yes", "top_region": " m "}), FRAMES)
    assert off == {"higher_group": "'Yes' is not a value of column 'colour' (it holds 'White', 'Black')"}
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


def test_a_text_column_summed_is_named_for_any_part():
    """``.sum()`` of a column of 'Y'/'N' joins the letters: never an answer, whatever the part."""
    frames = {"ames": pd.DataFrame({"Central_Air": ["Y", "Y", "N", "Y"], "Street": ["Pave", "Grvl", "Pave", "Pave"]})}
    spec = read_spec("How many houses have central air conditioning?")
    off = off_column(spec, Taken({"answer": "YYNYYYYNYY"}), frames)
    assert off["answer"].startswith("'YYNYYYYNYY' is the values of column 'Central_Air' written end to end")
    assert "compare the column with the value asked about first" in off["answer"]
    # a text the runner cut short, a longer member's values, and what is no such text
    assert "Street" in off_column(spec, Taken({"answer": "PaveGrvlPavePa …"}), frames)["answer"]
    for fine in ("Pave", "YY", "Gravel road", 3, ["Y", "N"]):
        assert off_column(spec, Taken({"answer": fine}), frames) == {}
