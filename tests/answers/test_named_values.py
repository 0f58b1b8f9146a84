"""A value of the data that the question names and the program never selects."""
from __future__ import annotations

import pandas as pd
import pytest

from shell_agent_lab.answers.named_values import left_out

WEATHER = pd.DataFrame({"origin": ["JFK", "LGA", "EWR"] * 4, "month": [6, 7] * 6,
                        "temp": [90.0, 80.0, 86.0] * 4, "year": [2013] * 12})
PENGUINS = pd.DataFrame({"species": ["Adelie", "Gentoo", "Chinstrap"] * 2, "sex": ["male", "female"] * 3,
                         "island": ["Biscoe"] * 6, "mass": [3700, 5000, 3800, 3400, 5200, 3600]})
GAPMINDER = pd.DataFrame({"country": ["Chad", "Peru"] * 2, "year": [1952, 1952, 2007, 2007],
                          "pop": [1, 2, 3, 4]})
COUNT = "n = ((weather['month'] == 7) & (weather['temp'] > 85)).sum()\nanswer = {'n': n}"


@pytest.mark.parametrize("question, code, frames, found", [
    ("How many hourly records from JFK in July have a temperature above 85?", COUNT,
     {"weather": WEATHER}, ("JFK", "origin", "weather")),
    ("Among Adelie penguins, compare mass between males and females with a t-test.",
     "t = penguins[penguins['sex'] == 'male']['mass']", {"penguins": PENGUINS}, ("Adelie", "species", "penguins")),
    # a whole number of a column of whole numbers: a year
    ("By what percentage did the total population grow between 1952 and 2007?",
     "a = gapminder['pop'].sum()\nb = gapminder['pop'].sum()", {"gapminder": GAPMINDER}, (1952, "year", "gapminder")),
    # written with more capitals than a word's first: a code, even opening a sentence
    ("JFK in July: how many hot hours?", COUNT, {"weather": WEATHER}, ("JFK", "origin", "weather")),
])
def test_a_value_the_question_names_in_a_column_the_program_never_reads_is_found(question, code, frames, found):
    gap = left_out(question, code, frames)
    assert gap is not None and (gap.value, gap.column, gap.frame) == found
    if isinstance(gap.value, str):
        assert f"{gap.frame}[{gap.frame}[{gap.column!r}] == {gap.value!r}]" in gap.told
    else:
        assert f"{gap.frame}[{gap.frame}['year'] == 1952]" in gap.told      # a number, written as one


@pytest.mark.parametrize("question, code, answered, allowed", [
    # the program reads the column (it groups or selects by it as it means to)
    ("How many hot hours at JFK?", "n = weather[weather.origin == 'LGA'].shape[0]", (), ()),
    ("How many hot hours at JFK?", "n = weather.groupby('origin')['temp'].max()", (), ()),
    # it writes the value (a contains, a query string)
    ("How many hot hours at JFK?", "n = weather.query(\"origin_code == 'JFK'\").shape[0]", (), ()),
    # the answer names a value of that column: the question may name the candidates
    ("Is JFK or LGA hotter?", "n = weather['temp'].max()", ("origin",), ()),
    # an answer the question allows
    ("Answer JFK or other.", "n = weather['temp'].max()", (), ("JFK", "other")),
    # inside a longer word, a number's digits, a format's placeholder
    ("How many JFKs?", "n = weather['temp'].max()", (), ()),
    ("Round to 2013.5.", "n = weather['temp'].max()", (), ()),
    ("Format: @n[JFK count]", "n = weather['temp'].max()", (), ()),
    # a number below 100 (a threshold, a count, a month) is not looked for
    ("How many hours above 7?", "n = weather['temp'].max()", (), ()),
    # a word that opens a sentence says nothing by its capital
    ("Biscoe is where they live. Mean mass?", "n = penguins['mass'].mean()", (), ()),
])
def test_a_value_read_or_not_meant_as_rows_is_not_found(question, code, answered, allowed):
    frames = {"weather": WEATHER, "penguins": PENGUINS}
    assert left_out(question, code, frames, answered=answered, allowed=allowed) is None


def test_a_value_that_is_also_a_column_name_or_of_a_free_text_column_is_not_looked_for():
    frame = pd.DataFrame({"kind": ["temp", "other"] * 2, "temp": [1.0, 2.0, 3.0, 4.0],
                          "note": [f"note {i}" for i in range(4)]})
    assert left_out("What is the mean temp?", "m = f['temp'].mean()", {"f": frame}) is None
    many = pd.DataFrame({"id": [f"Z{i:04d}" for i in range(300)], "v": range(300)})
    assert left_out("What is v for Z0007?", "m = f['v'].max()", {"f": many}) is None
    assert left_out("not python (", "this is not python (", {"f": frame}) is None


def test_a_value_in_small_letters_counts_only_in_quotes():
    titanic = pd.DataFrame({"survived": ["no", "yes"] * 3, "sex": ["male", "female"] * 3,
                            "age": [1.0, None, 3.0, 4.0, None, 6.0]})
    code = "n = titanic['age'].isna().sum()"
    assert left_out("How many passengers have no age recorded?", code, {"titanic": titanic}) is None
    gap = left_out('How many passengers with survived "no" have no age recorded?', code, {"titanic": titanic})
    assert gap is not None and (gap.value, gap.column) == ("no", "survived")
    gap = left_out("Mean age where sex is `female`?", code, {"titanic": titanic})
    assert gap is not None and (gap.value, gap.column) == ("female", "sex")


def test_a_value_also_held_by_a_column_the_program_reads_is_taken_as_selected_there():
    arrests = pd.DataFrame({"released": ["Yes", "No"] * 3, "employed": ["No", "Yes", "Yes"] * 2,
                            "colour": ["White", "Black", "Black"] * 2})
    code = "r = arrests['released'].value_counts(normalize=True)"
    assert left_out('What share were released (released equal to "Yes")?', code, {"arrests": arrests}) is None


def test_a_column_the_question_names_in_backticks_and_the_program_never_reads_is_found():
    co2 = pd.DataFrame({"date": pd.to_datetime(["1960-01-03", "1960-01-10", "1961-01-01"]),
                        "co2": [316.0, None, None], "station": ["MLO"] * 3})
    counts = "y = co2['date'].dt.year.value_counts(dropna=False)\ntotal = y.sum()"
    gap = left_out("How many weekly `co2` readings are missing?", counts, {"co2": co2})
    assert gap is None                                   # `co2` names the frame too: not read as a column
    readings = co2.rename(columns={"co2": "ppm"})
    gap = left_out("How many weekly `ppm` readings are missing?", counts, {"co2": readings})
    assert gap is not None and (gap.value, gap.column, gap.frame) == (None, "ppm", "co2")
    assert gap.told.startswith("the question names column 'ppm' of co2, but the program never reads it")
    assert left_out("How many weekly `ppm` readings are missing?", "n = co2['ppm'].isna().sum()",
                    {"co2": readings}) is None
    assert left_out("How many weekly `ppm` readings are missing?", "n = co2.ppm.isna().sum()",
                    {"co2": readings}) is None
    assert left_out("How many `rows`?", counts, {"co2": readings}) is None      # not a column


def test_a_value_written_inside_a_longer_one_the_question_names_is_the_longer_one():
    """"a GDP per capita under 1000" names ``GDP per capita``, not ``GDP``: the program is told to
    keep the per-capita rows, never the GDP rows; a question that names both names both."""
    gdp = pd.DataFrame({"country": ["A", "A", "B", "B"], "description": ["GDP", "GDP per capita"] * 2,
                        "year_2020": [9e9, 800.0, 7e9, 1200.0]})
    code = "answer = len(gdp[gdp['year_2020'] < 1000])"
    missed = left_out("how many countries had a GDP per capita under 1000 dollars in 2020", code, {"gdp": gdp})
    assert missed is not None and (missed.value, missed.column) == ("GDP per capita", "description")
    both = left_out("Is GDP above 1e9 where GDP per capita is under 1000?", code, {"gdp": gdp})
    assert both is not None and both.value in ("GDP", "GDP per capita")
    read = "answer = len(gdp[(gdp['description'] == 'GDP per capita') & (gdp['year_2020'] < 1000)])"
    assert left_out("how many countries had a GDP per capita under 1000 dollars in 2020", read, {"gdp": gdp}) is None
