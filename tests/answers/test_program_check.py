"""The static check of model-written pandas programs (shell_agent_lab.answers.program_check)."""
from __future__ import annotations

import re

import pytest

from shell_agent_lab.answers.program_check import MAX_NODES, MAX_SOURCE_CHARS, check_program

from .hostile_programs import HOSTILE
from .legit_programs import LEGIT

GIVEN = {"df", "targets"}


def test_the_corpora_are_large_enough():
    assert len(HOSTILE) >= 40
    assert len(LEGIT) >= 15


@pytest.mark.parametrize("label,source,expected", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_program_is_refused_or_left_to_the_runtime_layer(label, source, expected):
    problems = check_program(source.replace("{tmp}", "/tmp/x"), given=GIVEN)
    if expected == "refused":
        assert problems, f"{label}: the check let it through"
        assert all(isinstance(p, str) and p for p in problems)
    else:
        # these exercise the run-time guards and the time limit: the check must let them
        # through, or the runner tests would not be testing what they claim
        assert problems == [], f"{label}: {problems}"


@pytest.mark.parametrize("label,source,expected", LEGIT, ids=[lg[0] for lg in LEGIT])
def test_analyst_program_passes(label, source, expected):
    assert check_program(source, given=GIVEN) == []


def test_refusal_names_the_line_and_the_remedy():
    problems = check_program("x = 1\ny = 2\nimport os\n", given={"df"})
    assert problems == ["line 3: imports are limited to pandas, numpy, scipy, math, statistics, "
                        "datetime, re, collections, functools, fractions: remove `import os`"]


def test_write_to_the_given_frame_says_to_copy():
    [problem] = check_program("df['x'] = 1", given={"df"})
    assert problem.startswith("line 1: `df[…]` changes the given frame `df`")
    assert "df.copy()" in problem


def test_rebinding_to_a_new_frame_ends_the_protection():
    assert check_program("df = df.assign(y=1)\ndf['x'] = df['y'] + 1", given={"df"}) == []
    assert check_program("d = df.copy()\nd.index.name = 'k'\nd.attrs['a'] = 1",
                         given={"df"}) == []


def test_a_branch_that_may_keep_the_original_keeps_it_protected():
    source = "if len(df) > 3:\n    df = df.copy()\nelse:\n    pass\ndf['x'] = 1"
    assert check_program(source, given={"df"})
    both = "if len(df) > 3:\n    df = df.copy()\nelse:\n    df = df.head()\ndf['x'] = 1"
    assert check_program(both, given={"df"}) == []


def test_a_write_in_a_loop_after_the_loop_rebinds_is_seen():
    source = "d = df.copy()\nfor i in range(2):\n    d['x'] = i\n    d = df\n"
    assert any("line 3" in p for p in check_program(source, given={"df"}))


def test_mutating_methods_are_fine_on_own_objects():
    source = "cols = df.columns.tolist()\ncols.append('x')\nseen = {}\nseen.update(a=1)"
    assert check_program(source, given={"df"}) == []


def test_unknown_name_lists_the_given_frames():
    [problem] = check_program("print(sales.sum())", given={"df", "other"})
    assert problem == ("line 1: `sales` is not defined (given frames: `df`, `other`; "
                       "import modules explicitly)")


def test_forbidden_builtin_gives_the_reason():
    [problem] = check_program("x = getattr(df, 'a')", given={"df"})
    assert problem == "line 1: `getattr` is not available: use `obj.name` with a literal name"


def test_column_named_like_a_refused_attribute_gets_the_bracket_hint():
    [problem] = check_program("print(df.query.sum())", given={"df"})
    assert "write `df['query']`" in problem


def test_text_writers_without_a_path_are_allowed():
    assert check_program("print(df.to_csv(index=False))\nprint(df.to_string())\n"
                         "print(df.to_json(orient='records'))", given={"df"}) == []


def test_inplace_false_is_allowed_and_true_is_not():
    assert check_program("d = df.dropna(inplace=False)", given={"df"}) == []
    assert check_program("d = df.copy()\nd.dropna(inplace=True)", given={"df"})


def test_syntax_error_is_reported_with_its_line():
    [problem] = check_program("x = 1\nif x\n", given={"df"})
    assert problem.startswith("line 2: syntax error")


def test_source_and_node_caps():
    [long] = check_program("#" * (MAX_SOURCE_CHARS + 1), given={"df"})
    assert "keep it under 6,000" in long
    wide = "a = 1\nx = [" + ",".join("-a" for _ in range(MAX_NODES // 3)) + "]"
    assert len(wide) < MAX_SOURCE_CHARS
    [nodes] = check_program(wide, given={"df"})
    assert "syntax nodes" in nodes


def test_problem_list_is_capped():
    problems = check_program("\n".join(f"open('x{i}')" for i in range(20)), given={"df"})
    assert len(problems) == 9
    assert problems[-1].startswith("… and 12 more")


def test_allowed_imports():
    source = ("import pandas as pd\nimport numpy as np\nimport scipy.stats as st\n"
              "from scipy import stats\nfrom scipy.stats import pearsonr\nimport math\n"
              "import statistics\nimport re\nfrom datetime import datetime, timedelta\n"
              "from collections import Counter, defaultdict\nimport functools\n"
              "from numpy.random import default_rng\nimport numpy.linalg as la\n")
    assert check_program(source, given=set()) == []


def test_the_docs_page_shows_the_messages_the_check_gives():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "programs.md").read_text("utf-8")
    write = check_program("import pandas as pd\nx = 1\ndf['x'] = 1", given={"df"})
    imports = check_program("import os", given={"df"})
    assert write[0] in page and imports[0] in page


def test_the_docs_page_lists_the_allowed_standard_modules():
    from pathlib import Path

    from shell_agent_lab.answers._program_rules import STDLIB_MODULES

    page = (Path(__file__).resolve().parents[2] / "docs" / "programs.md").read_text("utf-8")
    listed = page.split("from the standard library", 1)[1].split("\n-", 1)[0]
    assert set(re.findall(r"`(\w+)`", listed)) == set(STDLIB_MODULES)
    for name in STDLIB_MODULES:
        assert check_program(f"import {name}", given=set()) == []


def test_augmented_numbers_taken_from_a_frame_are_fine():
    assert check_program("m = df.shape[0]\nm -= 1\ndef f(n):\n    n += 1\n    return n",
                         given={"df"}) == []
    assert check_program("df += 1", given={"df"})
    assert check_program("import numpy as np\nt = np.typecodes\nt |= {}", given={"df"})


@pytest.mark.parametrize("source", [
    "import numpy as np\nrng = np.random.default_rng(0)\nx = rng.integers(0, 10 ** 9, 5)",
    "import numpy as np\nx = np.full((3,), 10 ** 9)",
    "import numpy as np\nx = np.arange(0, 10 ** 9, 10 ** 8)",
    "x = list(range(10 ** 9, 10 ** 9 + 5))",
    "print(df[df['sales'] > 10 ** 12])",
])
def test_large_numbers_that_are_not_sizes_are_fine(source):
    assert check_program(source, given={"df"}) == []


@pytest.mark.parametrize("source", [
    "import numpy as np\nx = np.arange(10 ** 9)",
    "import numpy as np\nrng = np.random.default_rng(0)\nx = rng.normal(0, 1, size=10 ** 9)",
    "import numpy as np\nx = np.ones((10 ** 5, 10 ** 5))",
    "x = range(0, 10 ** 12, 2)",
    "import pandas as pd\nx = pd.date_range('2020', periods=10 ** 10)",
])
def test_constant_sizes_too_large_are_refused(source):
    [problem] = check_program(source, given={"df"})
    assert "would build" in problem and problem.startswith("line ")
