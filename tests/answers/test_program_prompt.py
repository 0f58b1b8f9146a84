"""The program prompt, the preamble that reads messy columns, and the program made to leave the
user's frames alone."""
from __future__ import annotations

import numpy as np
import pytest
import pandas as pd

from shell_agent_lab.answers.spec import read_spec
from shell_agent_lab.answers.program_prompt import (FrameView, extract_code, own_frames, preamble, program_prompt,
                                                    repaired, with_preamble)

VIEW = FrameView("df", 3, [("Price (USD)", "str"), ("When", "str"), ("Grade", "str"), ("n", "int64")],
                 {"Price (USD)": ["$1,200.50", "-"], "n": ["1", "2"]},
                 {"Price (USD)": {"text_numbers": True, "missing": ["-"]}, "When": {"date_format": "%m/%d/%Y"},
                  "Grade": {"missing": ["-", "n/a"]}})
FRAME = pd.DataFrame({"Price (USD)": ["$1,200.50", "-", "630308[495000-801000]"],
                      "When": ["01/02/2023", "x", "03/04/2021"], "Grade": ["A", "-", "n/a"], "n": [1, 2, 3]})


def test_the_prompt_lists_exact_names_values_and_the_print_form():
    q = "Mean price? @p[value] (rounded to 2 decimal places)"
    text = program_prompt([VIEW], q, read_spec(q))
    # a text column of numbers is shown as the program finds it: float64, with the file's writing
    assert "- 'Price (USD)' (float64, read from text like '$1,200.50'); '-' in the file are NaN" in text
    assert "- 'When' (datetime64, read from text)" in text
    assert "- 'Grade' (str); '-', 'n/a' in the file are NaN" in text
    assert "- 'n' (int64): 1, 2" in text                       # numbers shown as numbers
    assert "already read as float64 and datetime64" in text
    assert preamble([VIEW]) not in text                        # it runs before the program, unseen
    # what is the same for every question comes first; the question and its form last
    assert text.index("- 'n' (int64)") < text.index("Question: Mean price?")
    # the program hands back its values by name; the product rounds them as asked
    assert text.endswith("Finish with exactly this line, each value computed in the code:\n"
                         "answer = {'p': p}  # p: a number")


@pytest.mark.parametrize("parts, line", [
    # a part named like the frame: bound as the frame's name, it lost the frame for the lines after
    ("@year[yyyy] @arrests[n]", "answer = {'year': year, 'arrests': arrests_value}"),
    # a built-in, a keyword, a module the program uses: each bound under another name
    ("@max[value] @class[name] @np[n]", "answer = {'max': max_value, 'class': class_value, 'np': np_value}"),
])
def test_a_part_named_like_what_the_program_reads_is_bound_to_another_variable(parts, line):
    view = FrameView("arrests", 2, [("year", "int64")], {"year": ["2000", "2001"]})
    q = f"Which year had the most arrests, and how many? Format: {parts}"
    text = program_prompt([view], q, read_spec(q))
    assert text.split("\n")[-1].split("  #")[0] == line


def test_a_frame_with_clean_columns_is_not_said_to_be_converted():
    view = FrameView("df", 2, [("n", "int64")], {"n": ["1", "2"]})
    text = program_prompt([view], "Total n?", read_spec("Total n?"))
    assert "already read as" not in text and "Question: Total n?" in text


def test_the_preamble_reads_text_numbers_dates_and_markers_on_a_view():
    code = own_frames(with_preamble("print(round(df['Price (USD)'].mean(), 2), df['When'].dt.year.max(), "
                                    "df['Grade'].notna().sum())", preamble([VIEW])), ["df"])
    before = FRAME.copy(deep=True)
    out: list[str] = []
    exec(code, {"df": FRAME, "pd": pd, "np": np, "print": lambda *a: out.append(" ".join(map(str, a)))})
    assert out == ["315754.25 2023.0 1"]           # footnote marks dropped; '-' and 'n/a' missing
    pd.testing.assert_frame_equal(FRAME, before)


def test_the_preamble_is_not_run_twice_when_the_program_repeats_it():
    first = preamble([VIEW])
    assert with_preamble(first + "\nprint(1)", first) == first + "\nprint(1)"
    assert with_preamble("print(1)", first) == first + "\nprint(1)"
    assert with_preamble("print(1)", "") == "print(1)"


def test_reloads_of_the_given_frame_are_dropped_and_writes_go_to_a_view():
    code = own_frames("import pandas as pd\ndf = pd.read_csv('x.csv')\ndf['y'] = df['n'] * 2\nprint(df['y'].sum())",
                      ["df"])
    assert "read_csv" not in code and code.startswith("import pandas as pd\ndf_view = df.copy(deep=False)")
    assert "df_view['y'] = df_view['n'] * 2" in code
    assert own_frames("print(df['n'].sum())", ["df"]) == "print(df['n'].sum())"      # reads stay as written


def test_a_given_frame_made_up_from_typed_in_values_is_dropped_and_the_real_one_used():
    made_up = ("import pandas as pd\narrests = pd.DataFrame({\n    'year': [2002, 1999, 2002],\n"
               "    'released': ['Yes', 'No', 'Yes'],\n})\nanswer = arrests['year'].value_counts().idxmax()")
    code = own_frames(made_up, ["arrests"])
    assert code == "import pandas as pd\nanswer = arrests['year'].value_counts().idxmax()"
    # a frame of its own from typed-in values, or one made from the given frame, stays
    own = "lookup = pd.DataFrame({'code': ['M', 'F'], 'sex': ['Male', 'Female']})\nanswer = len(lookup)"
    assert own_frames(own, ["arrests"]) == own
    derived = "arrests = pd.DataFrame(arrests.values, columns=['a', 'b'])\nanswer = len(arrests)"
    assert "pd.DataFrame(arrests.values" in own_frames(derived, ["arrests"])


def test_the_code_block_is_taken_from_the_reply():
    assert extract_code("Sure:\n```python\nprint(1)\n```\nDone.") == "print(1)"
    assert extract_code("print(df.shape)") == "print(df.shape)"
    assert extract_code("The answer is 4.") is None


def test_an_answer_name_written_as_an_assignment_target_is_repaired():
    code = "@night = df['h'].isin([22, 23]).sum()\nprint(f\"@night[{night}]\")"
    assert repaired(code) == "night = df['h'].isin([22, 23]).sum()\nprint(f\"@night[{night}]\")"
    assert repaired("@property\ndef f(): pass") == "@property\ndef f(): pass"      # a decorator stays
    assert repaired("x = a @ b") == "x = a @ b"


# -- where a streamed program is done -------------------------------------------------------------

def test_a_program_is_done_once_its_answer_is_bound_and_only_a_tail_follows():
    from shell_agent_lab.answers.program_prompt import answer_bound_at

    reply = "```python\nimport pandas as pd\nn = len(df)\nanswer = {'n': n, 'mean': df['x'].mean()}"
    assert answer_bound_at(reply) is None                      # the line may go on
    assert answer_bound_at(reply + "\n") is None               # what follows is not written yet
    for tail in ("  # n: a whole number", "\nprint(answer)", "\n```", "\n\n# the answer\n"):
        assert answer_bound_at(reply + tail) == len(reply), tail
    # a statement over several lines is done when its brackets close
    open_dict = "```python\nanswer = {\n    'a': 1,\n"
    assert answer_bound_at(open_dict) is None
    assert answer_bound_at(open_dict + "}\n```") == len(open_dict) + 1
    # a '#' inside a string is not a comment
    assert answer_bound_at("```python\nanswer = df['Item #'].sum()") is None
    assert answer_bound_at("```python\nanswer = df['Item #'].sum()\n```") == len("```python\nanswer = df['Item #'].sum()")
    # a later binding that only a tail follows is where it is done
    twice = "```python\nanswer = s.median()\nanswer = int(answer)\nprint(answer)"
    assert answer_bound_at(twice) == twice.index("\nprint")


@pytest.mark.parametrize("reply", [
    "```python\nanswer = {}\nanswer['n'] = 3\n",            # bound empty, filled in after
    "```python\nanswer = 'No'\nif p < 0.05:\n    answer = 'Yes'\n```",   # changed after
    "```python\nanswer = s.median()\nanswer = int(answer)\n",
    "```python\nanswer = None\nfor x in df['a']:\n",
    "```python\ndef f():\n    answer = 1\n",                 # not the program's own binding
    "```python\nprint(answer == 3)\n```",
    "Finish with: answer = {'a': a}\n```python\nx = 1\n",   # quoted above the program
])
def test_an_answer_not_yet_bound_for_good_is_not_done(reply):
    from shell_agent_lab.answers.program_prompt import answer_bound_at

    assert answer_bound_at(reply) is None


def _recorded_replies() -> list[str]:
    """Program replies the embedded model wrote for the benchmark sets and the example notebooks
    (every distinct one recorded when this was written)."""
    import json
    from pathlib import Path

    return json.loads((Path(__file__).parent / "recorded_program_replies.json").read_text())


def test_cutting_recorded_programs_where_they_are_done_drops_no_code():
    """What follows the place a recorded reply is done is only comments, prints and the fence,
    and the program is found in what is kept."""
    from shell_agent_lab.answers.program_prompt import answer_bound_at, extract_code

    replies = _recorded_replies()
    cut = 0
    for text in replies:
        end = answer_bound_at(text)
        if end is None:
            continue
        cut += 1
        after = [line.strip() for line in text[end:].split("```")[0].splitlines()[1:]]
        assert all(not line or line.startswith(("#", "print(")) for line in after), after
        assert extract_code(text[:end]) is not None
    assert len(replies) >= 300 and cut >= len(replies) // 2


def test_a_reply_read_in_pieces_is_done_where_the_whole_reply_is():
    """Streamed (a few characters at a time) or whole (a recording), the program kept is the same."""
    from shell_agent_lab.answers.program_prompt import answer_bound_at

    for text in _recorded_replies():
        whole = answer_bound_at(text)
        streamed = next((found for size in range(1, len(text) + 1, 3)
                         if (found := answer_bound_at(text[:size])) is not None), None)
        if streamed is None:
            streamed = answer_bound_at(text)
        assert streamed == whole, text


@pytest.mark.parametrize("question, told", [
    # the question says which word is which: the program applies that rule and binds the word
    ('Are a and b independent? Format: @chi2[x] @independent[verdict]; verdict is "no" if the p-value '
     'is below 0.05 and "yes" otherwise.', "independent: 'yes' or 'no'"),
    ("Is the difference significant? Format: @significant[yes/no]", "significant: 'yes' or 'no'"),
    # asked as True or False, the program binds a boolean
    ("Is the difference significant? Format: @significant[True or False]", "significant: True or False"),
])
def test_a_yes_no_part_is_asked_in_the_words_the_question_writes_it(question, told):
    text = program_prompt([VIEW], question, read_spec(question))
    assert told in text.split("\n")[-1]


def test_a_block_closes_at_a_fence_opening_a_line_or_else_where_the_code_ends():
    # a program that prints a fence of its own is read whole
    assert extract_code('```python\nprint("```yaml")\nprint(answer)\n```') == 'print("```yaml")\nprint(answer)'
    # a block closed at the end of its last line of code is read too
    assert extract_code("```python\nanswer = 1\nprint(answer)```\nDone.") == "answer = 1\nprint(answer)"


def test_a_stray_indent_before_a_statement_is_aligned_with_the_line_before():
    from shell_agent_lab.answers.program_prompt import repaired

    code = ("x = f['a'].isna()\n# the table\n table = pd.crosstab(f['c'], x)\nfor k in table:\n"
            "    y = k\n      z = y\nanswer = {'t': (\n    1)}")
    assert repaired(code) == ("x = f['a'].isna()\n# the table\ntable = pd.crosstab(f['c'], x)\nfor k in table:\n"
                              "    y = k\n    z = y\nanswer = {'t': (\n    1)}")
    # a line that goes on the one before, a block's body, and code that parses: as written
    for kept in ("if x:\n    y = 1", "y = (1 +\n      2)", "def f():\nreturn 1", " x = 1"):
        assert repaired(kept) == kept
