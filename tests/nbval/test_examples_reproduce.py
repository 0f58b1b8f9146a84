"""CI: every example notebook passes the reproducibility check — Run All in a fresh kernel
without a model reproduces every number the assistant stated in it."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebooks_src import NOTEBOOKS  # noqa: E402

from shell_agent_lab.notebook.replay_check import replay_check  # noqa: E402

NB_DIR = Path(__file__).resolve().parents[2] / "notebooks"

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_the_example_notebook_reproduces_every_stated_number(name):
    report = replay_check(NB_DIR / f"{name}.ipynb", timeout=300)
    assert report.ok, f"{name}.ipynb:\n{report.markdown()}"


def test_the_examples_state_numbers_the_check_compares():
    # the check is not vacuous: the data questions' answers carry numbers it compared
    report = replay_check(NB_DIR / "quickstart.ipynb", timeout=300)
    assert report.checked >= 4
