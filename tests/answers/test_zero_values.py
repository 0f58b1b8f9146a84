"""A part that came out exactly zero, read from the program that computed it."""
from __future__ import annotations

import pandas as pd
import pytest

from shell_agent_lab.answers.zero_values import zero_parts, zero_reasons


def test_only_numbers_that_are_exactly_zero_are_read():
    assert zero_parts({"a": 0, "b": 0.0, "c": -0.0, "no": False, "text": "0", "small": 1e-9,
                       "nan": float("nan"), "list": [0]}) == ["a", "b", "c"]


@pytest.mark.parametrize("code, sides", [
    # the filters for the two years left out: one expression written twice
    ("t1 = df['pop'].sum()\nt2 = df['pop'].sum()\ng = ((t2 / t1) - 1) * 100\nanswer = {'g': g}",
     "`t2` (`df['pop'].sum()`) and `t1` (`df['pop'].sum()`) are computed the same way"),
    # the highest rate less itself
    ("r = df.groupby('c')['v'].mean() * 100\nbest = r.idxmax()\ngap = r.max() - r[best]\n"
     "answer = {'best': best, 'gap': round(gap, 2)}",
     "`r.max()` and `r[best]` came out as the same value"),
    # a relative change written over its denominator, in the answer's own entry
    ("a = df['v'].mean()\nb = df['v'].mean()\nanswer = {'gap': (a - b) / b * 100}",
     "`a` (`df['v'].mean()`) and `b` (`df['v'].mean()`) are computed the same way"),
    # through numpy's rounding and a sign
    ("import numpy as np\nd = -(df['v'].max() - df['v'].max())\nanswer = {'gap': np.round(d, 1)}",
     "`df['v'].max()` and `df['v'].max()` are computed the same way"),
    # a method's rounding keeps the value it is called on
    ("d = df['v'].max() - df['w'].max()\nanswer = {'gap': d.round(2)}",
     "`df['v'].max()` and `df['w'].max()` came out as the same value"),
])
def test_a_difference_of_one_value_with_itself_is_named_by_its_sides(code, sides):
    [(part, miss)] = zero_reasons(code, ["gap" if "'gap'" in code else "g"]).items()
    assert sides in miss.note, miss.note
    assert miss.told.startswith(miss.note) and "compute each side" in miss.told


@pytest.mark.parametrize("code", [
    "n = df['v'].count()\nanswer = {'n': n}",                  # a count: nothing to compare
    "n = df['v'].sum() * 0\nanswer = {'n': n}",                # a product with a constant zero
    "n = 0\nfor x in df['v']:\n    n -= x - x\nanswer = {'n': n}",   # bound more than once
    "answer = {'n': 1 - 1}",                                   # constants only
    "answer = {'n': df['v'].max() + df['w'].min()}",
    "this is not python",
])
def test_a_zero_with_no_difference_behind_it_has_no_reason_of_this_kind(code):
    assert zero_reasons(code, ["n"]) == {}


def test_a_zero_count_over_a_text_no_row_holds_names_the_comparison():
    frame = pd.DataFrame({"colour": ["White", "Black", "White"], "v": [1, 2, 3]})
    code = "n = (df['colour'] == 'white').sum()\nanswer = {'n': n}"
    miss = zero_reasons(code, ["n"], {"df": frame})["n"]
    assert "compares column 'colour' with 'white', which is not one of its values (it holds 'White')" in miss.note
    assert miss.told.startswith("it came out 0 because") and miss.told.endswith("written exactly as it is there")
    # a column read as numbers by the preamble is not checked against its text
    assert zero_reasons(code, ["n"], {"df": frame}, converted={"colour"}) == {}
