"""A column name a program spells almost right is spelled as the frame has it; values and
ambiguous names are left alone."""
from __future__ import annotations

import pandas as pd
import pytest

from shell_agent_lab.answers.column_names import spelled_as_columns
from shell_agent_lab.answers.program_run import run_program

COLUMNS = ["Performance (1-5)", "Satisfaction (1–10)", "distance.km", "Unit Price (USD)", "Größe (cm)",
           "wait.min", "wait_min"]


@pytest.mark.parametrize("written, column", [
    ("df['Satisfaction (1-10)']", "df['Satisfaction (1–10)']"),             # the en dash typed as a hyphen
    ("df[['distance_km', 'Unit Price (USD)']]", "df[['distance.km', 'Unit Price (USD)']]"),
    ("df.groupby('unit price (usd)')['DISTANCE.KM'].mean()", "df.groupby('Unit Price (USD)')['distance.km'].mean()"),
    ("df.dropna(subset=['größe (cm)'])", "df.dropna(subset=['Größe (cm)'])"),
    ("df.sort_values(by='Distance km')", "df.sort_values(by='distance.km')"),
])
def test_near_spellings_used_as_columns_are_respelled(written, column):
    code, changed = spelled_as_columns(f"x = {written}\nprint(x)", COLUMNS)
    assert code == f"x = {column}\nprint(x)" and changed


@pytest.mark.parametrize("code", [
    "x = df[df['distance.km'] == 'distance_km']",      # a value compared with is data, not a name
    "x = df['wait.min'].isin(['Wait Min'])",
    "x = df['waitmin']",                               # wait.min and wait_min both read so: not ours to choose
    "x = df['tip.amount']",                            # no column near it: the runner says which there are
    "x = df[",                                         # does not parse: left to the check
])
def test_values_ambiguous_and_unknown_names_are_left_alone(code):
    assert spelled_as_columns(code, COLUMNS) == (code, {})


def test_a_respelled_program_runs():
    frame = pd.DataFrame({"Satisfaction (1–10)": [3, 9, 7]})
    code, _ = spelled_as_columns("print(df['Satisfaction (1-10)'].max())", frame.columns)
    assert run_program(code, {"df": frame}).stdout == "9\n"
