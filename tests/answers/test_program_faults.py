"""The hint a failed program gets comes from the exception's type and attributes, the failing
line's syntax and the objects it names: the same slip gets the same hint whatever the message
says, and a line that names the culprit gets a hint that names it too."""
from __future__ import annotations

import pandas as pd
import pytest

from shell_agent_lab.answers._program_faults import failing_line, fault_hint

PENGUINS = pd.DataFrame({"species": ["Adelie", "Gentoo", "Adelie"], "island": ["A", "B", "A"],
                         "bill_length_mm": [39.1, 47.5, 40.3], "sex": ["male", "female", None]})


def run(source: str, frames=None):
    frames = {"penguins": PENGUINS} if frames is None else frames
    scope = {"pd": pd, **{k: v.copy() for k, v in frames.items()}}
    try:
        exec(compile(source, "<program>", "exec"), scope)
    except Exception as exc:
        return exc, fault_hint(exc, frames, source, scope)
    raise AssertionError("the program ran")


def test_a_key_that_a_groupby_moved_into_the_index_says_so():
    exc, hint = run("means = penguins.groupby(['island', 'species'])[['bill_length_mm']].mean()\n"
                    "best = means['species']")
    assert isinstance(exc, KeyError)
    assert hint.startswith("'species' is the index of means here, not a column")
    assert "means.reset_index()" in hint


def test_one_true_or_false_used_as_a_row_mask():
    exc, hint = run("big = penguins[penguins['bill_length_mm'].count() >= 2]")
    assert isinstance(exc, KeyError)
    assert hint.startswith("that comparison (penguins['bill_length_mm'].count() >= 2) gave one True or False")
    assert "frame.groupby('g').filter(lambda rows: len(rows) >= n)" in hint


def test_a_whole_columns_sum_compared_to_pick_a_group_is_told_to_rank_per_group():
    # "which island has the most bill length in total", written over the whole column
    exc, hint = run("answer = penguins['island'].loc[penguins['bill_length_mm'].sum() == "
                    "penguins['bill_length_mm'].sum().max()]")
    assert isinstance(exc, KeyError)
    assert "penguins['bill_length_mm'].sum() == penguins['bill_length_mm'].sum().max()" in hint
    assert "frame.groupby('g')['x'].sum(), then .idxmax()" in hint


def test_a_key_a_frame_the_program_made_lacks_names_that_frames_columns():
    weather = pd.DataFrame({"date": pd.to_datetime(["2014-01-02", "2014-02-03", "2014-02-04"]),
                            "precipitation": [1.0, 2.0, 3.0]})
    exc, hint = run("monthly = weather.groupby(weather['date'].dt.month)['precipitation'].sum().reset_index()\n"
                    "month = monthly['month'].max()", {"weather": weather})
    assert isinstance(exc, KeyError)
    assert hint.startswith("monthly has no column 'month'; its columns are: date, precipitation")


def test_a_key_of_another_frame_and_a_near_miss():
    _, hint = run("sub = penguins[['island']]\nprint(sub['species'])")
    assert hint.startswith("'species' is a column of penguins but not of sub, whose columns are: island")
    _, hint = run("print(penguins['bill_length'])")
    assert hint == "no column 'bill_length'; the nearest: 'bill_length_mm'"


def test_attribute_errors_are_read_from_the_object_and_the_name():
    _, hint = run("i = penguins['bill_length_mm'].idxmax()\nprint(i.species)")
    assert "idxmax()/idxmin() give a row's index label" in hint
    # a whole-column reduction before a Series method: the number came too early, group first
    _, hint = run("best = penguins['bill_length_mm'].sum().idxmax()")
    assert hint.startswith("that is already one number (")
    assert "a reduction such as .sum() or .mean() over the whole column came before .idxmax()" in hint
    assert "frame.groupby('label_column')['value_column'].sum().idxmax()" in hint
    _, hint = run("top = penguins['bill_length_mm'].mean().nlargest(2)")
    assert ".nlargest()" in hint and "group by the label column first" in hint
    # a label used as a row, a number's own method on a Python float: not that slip
    _, hint = run("i = penguins['bill_length_mm'].idxmax()\nprint(i.loc)")
    assert "idxmax()/idxmin() give a row's index label" in hint
    _, hint = run("print(penguins['bill_length_mm'].idxmax().name)")
    assert "group by" not in (hint or "")
    _, hint = run("share = len(penguins) / 3\nprint(share.round(2))")
    assert "group by" not in (hint or "")
    _, hint = run("print(penguins.Species)")
    assert hint == "no column 'Species'; the nearest: 'species' (write frame['column'])"
    _, hint = run("print(penguins['bill_length_mm'].zscore())")
    assert hint.startswith("a Series has no zscore: use stats.zscore")
    _, hint = run("print(pd.ols(1, 2))")
    assert "stats.linregress(x, y)" in hint
    _, hint = run("print(pd.read_cvs('x'))")
    assert hint.startswith("pandas has no read_cvs; the nearest: 'read_csv'")
    _, hint = run("print(penguins['species'].dt.year)")
    assert "pd.to_datetime(frame['column'], errors='coerce')" in hint
    _, hint = run("print(penguins['bill_length_mm'].str.len())")
    assert hint == "that column holds float64 values, not text: .str works on text columns only"


def test_a_column_written_as_a_bare_name():
    _, hint = run("print(bill_length_mm.mean())")
    assert hint == "'bill_length_mm' is a column, not a variable: write penguins['bill_length_mm']"


def test_unpacking_a_call_names_what_it_gives():
    stats = pytest.importorskip("scipy.stats")
    source = "from scipy import stats\nt, p, df = stats.ttest_ind([1, 2, 3], [2, 3, 5])"
    exc, hint = run(source)
    assert isinstance(exc, ValueError)
    assert hint == ("ttest_ind gives statistic, pvalue: write `t, p = stats.ttest_ind([1, 2, 3], [2, 3, 5])`, "
                    "then compute df from them on a line of its own")
    _, hint = run("from scipy import stats\nt = stats.ttest_ind([1, 2, 3], [2, 3, 5], equal_var=False)\n"
                  "a, b, c, d = stats.ttest_ind([1, 2, 3], [2, 3, 5])")
    assert hint == ("ttest_ind gives statistic, pvalue: write `a, b = stats.ttest_ind([1, 2, 3], [2, 3, 5])`, "
                    "then compute c, d from them on lines of their own")
    _, hint = run("import numpy as np\nslope, intercept, r2 = np.polyfit([1, 2, 3], [2, 4, 7], deg=1)")
    assert hint.endswith("write `slope, intercept = np.polyfit([1, 2, 3], [2, 4, 7], deg=1)`, "
                         "then compute r2 from them on a line of its own")
    _, hint = run("from scipy import stats\nslope, intercept = stats.linregress([1, 2, 3], [2, 4, 7])")
    assert hint == ("linregress gives slope, intercept, rvalue, pvalue, stderr: unpack exactly those, or keep "
                    "the result and read its fields")                  # too few names: which field each meant is unknown
    del stats


def test_type_errors_name_the_precedence_slip_and_the_text_columns():
    _, hint = run("print(penguins[penguins['island'] == 'A' & penguins['bill_length_mm'] > 40])")
    assert hint.startswith("& and | bind tighter than ==")
    _, hint = run("print(penguins.groupby('island').mean())")
    assert hint.startswith("text columns (penguins: species, island, sex) cannot be averaged or summed")
    _, hint = run("print(penguins['species'].sum() / 3)")
    assert "compare it with a value first" in hint


def test_no_hint_when_nothing_specific_is_known_and_the_line_is_found():
    exc, hint = run("x = 1\ny = {}\nprint(y[3])")
    assert hint is None
    assert failing_line(exc, "x = 1\ny = {}\nprint(y[3])")[0] == 3
    # the same exception with its message rewritten gets the same hint: the words are not read
    exc, _ = run("print(penguins['bill_length'])")
    exc.args = ("something else entirely",)
    assert fault_hint(exc, {"penguins": PENGUINS}, "print(penguins['bill_length'])", {}) is None
    exc, hint = run("print(penguins.Species)")
    exc.args = ("reworded",)
    assert fault_hint(exc, {"penguins": PENGUINS}, "print(penguins.Species)", {}) == hint


def test_a_key_of_the_frame_asked_of_one_column_picked_from_it_says_so_not_that_the_frame_lacks_it():
    _, hint = run("m = penguins['bill_length_mm'].groupby('species').mean()")
    assert hint.startswith("'species' is a column of penguins, but the line asks for it of something made from "
                           "penguins that lacks it"), hint
    assert "penguins.groupby('species')['column']" in hint


RATES = pd.DataFrame({"Country Name": ["Aruba", "Chad", "Peru"], "1960": [4.8, 6.2, 6.9],
                      "2011": [1.7, float("nan"), 2.5], "Indicator": [None, None, None]})


@pytest.mark.parametrize("line", [
    "worst = rates[rates['change'] < 0].idxmax()[0]",
    "worst = rates.loc[rates['change'] < 0].idxmin()",
    "worst = rates.idxmax()",
])
def test_idxmax_of_a_whole_frame_says_to_select_the_column_to_rank(line):
    exc, hint = run("rates['change'] = (rates['2011'] - rates['1960']) / rates['1960'] * 100\n" + line,
                    {"rates": RATES})
    assert isinstance(exc, (ValueError, TypeError))
    method = "idxmin" if "idxmin" in line else "idxmax"
    assert f".{method}() ranks every column of a frame" in hint
    assert f"frame.loc[rows, 'value_column'].{method}()" in hint


def test_idxmax_of_one_column_gets_no_whole_frame_hint():
    exc, hint = run("worst = rates.loc[rates['2011'] > 9, '2011'].idxmax()", {"rates": RATES})
    assert isinstance(exc, ValueError)
    assert hint is None or "ranks every column" not in hint


CO2 = pd.DataFrame({"date": pd.to_datetime(["1960-01-03", "1960-06-05", "1961-01-01"]), "co2": [316.0, 318.5, 317.2]})


def test_resampling_a_frame_indexed_by_row_numbers_names_its_date_column():
    exc, hint = run("yearly = co2['co2'].resample('YE').mean()", {"co2": CO2})
    assert isinstance(exc, TypeError)
    assert hint.startswith("resample needs dates in the index, and co2's index is row numbers")
    assert "co2.set_index('date')['value_column'].resample('YE').mean()" in hint
    assert "co2.groupby(co2['date'].dt.year)" in hint


def test_resampling_a_frame_with_no_dates_says_to_read_them():
    frame = CO2.assign(date=CO2["date"].dt.strftime("%Y-%m-%d"))
    exc, hint = run("yearly = co2.resample('YE')['co2'].mean()", {"co2": frame})
    assert isinstance(exc, TypeError)
    assert "no column of co2 holds dates yet" in hint


HEIGHTS = pd.DataFrame({"sex": ["Male", "Female", "Male"], "height": ["70", "5' 4\"", "64.5"]})


@pytest.mark.parametrize("line", [
    "tall = heights[heights['height'].astype(float) >= 50]",                  # ValueError
    "tall = heights[pd.to_numeric(heights['height']) >= 50]",                 # ValueError
    "n = ((heights['height'] >= 50) & (heights['height'] <= 84)).sum()",      # TypeError
])
def test_a_text_column_read_as_numbers_is_told_to_coerce_naming_what_it_holds(line):
    exc, hint = run(line, {"heights": HEIGHTS})
    assert isinstance(exc, (ValueError, TypeError))
    assert hint == ("'height' is a text column (it holds '5\\' 4\"'): read it as numbers with "
                    "pd.to_numeric(heights['height'], errors='coerce'), which makes every entry that is not a number NaN")


def test_a_series_asked_for_what_its_dt_or_str_accessor_holds_is_told_where():
    dated = pd.DataFrame({"when": pd.to_datetime(["2014-01-02", "2014-02-03"]), "said": ["1990-05-01", "x"]})
    _, hint = run("first = dated['when'].date.min()", {"dated": dated})
    assert hint == "a Series has no date: each value's date is series.dt.date"
    _, hint = run("first = dated['said'].year.min()", {"dated": dated})
    assert hint.startswith("a Series has no year: each value's year is series.dt.year (this one holds text")
    _, hint = run("print(penguins['species'].upper())")
    assert hint == "a Series has no upper: each text value's upper is series.str.upper()"
    _, hint = run("print(penguins['species'].no_such_thing)")
    assert hint is None
