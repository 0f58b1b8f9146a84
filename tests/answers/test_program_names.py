"""The one rule for following a program's names back to their values: bound exactly once, by a
plain assignment of the name alone; and the ``answer = {…}`` entries."""
from __future__ import annotations

import ast

import pytest

from shell_agent_lab.answers.program_names import answer_entries, bound_once


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
