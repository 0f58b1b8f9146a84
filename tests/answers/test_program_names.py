"""The one rule for following a program's names back to their values: bound exactly once, by a
plain assignment of the name alone; the ``answer = {…}`` entries; and a statement's slice (it,
with what it is computed from), which tells a failed statement kept unchanged in a new program."""
from __future__ import annotations

import ast

import pytest

from shell_agent_lab.answers.program_names import answer_entries, bound_once, slice_at, slices


def _bound(code: str) -> dict[str, str]:
    return {name: ast.unparse(value) for name, value in bound_once(ast.parse(code)).items()}


def test_names_bound_once_by_a_plain_assignment_are_followed():
    code = ("total = df['pop'].sum()\nshare: float = total / 2\ndf['x'] = 1\n"
            "answer = {'share': share}")
    assert _bound(code) == {"total": "df['pop'].sum()", "share": "total / 2",
                            "answer": "{'share': share}"}


@pytest.mark.parametrize("second", [
    "total = 0",                                  # assigned twice
    "total += 1",                                 # augmented
    "for total in range(3):\n    pass",           # a loop's target
    "xs = [total for total in range(3)]",         # a comprehension's target
    "total, n = 1, 2",                            # one of a tuple's targets
    "a = b = total = 3",                          # one of a chain's targets
    "with open('f') as total:\n    pass",         # a with's alias
    "if (total := 3):\n    pass",                 # a walrus
    "import total",                               # an import
    "from m import x as total",
    "def total():\n    return 1",                 # a function
    "try:\n    pass\nexcept ValueError as total:\n    pass",
])
def test_a_name_bound_any_other_way_as_well_is_not_followed(second):
    code = f"total = df['pop'].sum()\n{second}\nanswer = {{'t': total}}"
    assert "total" not in _bound(code)


def test_a_chain_binds_each_of_its_names():
    assert _bound("a = b = df['x'].mean()") == {"a": "df['x'].mean()", "b": "df['x'].mean()"}


def test_the_answer_entries_are_read_by_part_name():
    tree = ast.parse("m = 1\nanswer = {'mean': m, 'p': round(p, 2), 3: 'x'}\nother = {'q': 1}")
    assert {k: ast.unparse(v) for k, v in answer_entries(tree).items()} == {"mean": "m", "p": "round(p, 2)"}
    assert answer_entries(ast.parse("answer = 3.2")) == {}


FAILED = "import pandas as pd\ntop = df.groupby('g')['y'].mean()\nn = len(df)\nbest = top['x']\nanswer = {'best': best}"


def test_a_statement_kept_with_all_it_reads_has_the_same_slice():
    failing = slice_at(FAILED, 4)                     # best = top['x']
    # other statements changed, reordered or added: the slice is the same
    again = "top = df.groupby('g')['y'].mean()\nbest = top['x']\nk = 3\nanswer = {'best': best, 'k': k}"
    assert failing is not None and failing in slices(again)


@pytest.mark.parametrize("changed", [
    "top = df.groupby('g')['y'].median()\nbest = top['x']",                       # what it reads, anew
    "df['y'] = df['y'] * 2\ntop = df.groupby('g')['y'].mean()\nbest = top['x']",   # the frame changed first
    "df.loc[0, 'g'] = 'x'\ntop = df.groupby('g')['y'].mean()\nbest = top['x']",
    "top = df.groupby('g')['y'].mean()\ntop.index = ['x'] * len(top)\nbest = top['x']",
    "top = df.groupby('g')['y'].mean()\ntop.rename(str.lower)\nbest = top['x']",    # a method call on it
    "from x import top\nbest = top['x']",                                         # an import binds it
    "top = df.groupby('g')['y'].mean()\nbest = top['X']",                         # the statement itself
])
def test_a_statement_whose_inputs_changed_has_another_slice(changed):
    assert slice_at(FAILED, 4) not in slices(changed)


def test_a_name_a_missing_import_left_unbound_is_bound_by_the_import_added():
    failed = "r = np.log(df['y']).mean()"
    assert slice_at(failed, 1) not in slices("import numpy as np\nr = np.log(df['y']).mean()")


def test_a_line_inside_a_compound_statement_is_the_whole_statement():
    code = "rows = []\nfor k in ks:\n    rows.append(d[k])\nanswer = {'n': len(rows)}"
    assert slice_at(code, 3) == slice_at(code, 2) and slice_at(code, 3) in slices(code)
    assert slice_at(code, 9) is None and slice_at("x = (", 1) is None and slices("x = (") == set()
