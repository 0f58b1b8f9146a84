"""Every example notebook runs under nbval against its recorded outputs, offline — the way an
nbval user runs them: ``pytest --nbval notebooks/`` from the checkout.

``notebooks/conftest.py`` gives each notebook's kernel its cassette (the model is replayed; a
request the cassette has not seen fails the run) and a data directory shared within its group,
in order, so Global Memory stated in one notebook is there in the next. Every output is
compared; volatile text (ids, dates, temporary paths) goes through ``sanitize.cfg``. Re-record
with ``tests/nbval/record.py`` (see docs/recording.md).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebooks_src import GROUPS, NOTEBOOKS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(600)]


def _nbval(data_dir: Path, *paths: str) -> subprocess.CompletedProcess:
    """``pytest --nbval PATHS`` from the checkout, with none of this process's settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "SHELL_AGENT_LAB_"))}
    env["SHELL_AGENT_LAB_NBVAL_DATA"] = str(data_dir)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
           "--nbval-cell-timeout", "300", *paths]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=580)


def test_every_notebook_is_in_a_group_and_committed():
    grouped = [n for g in GROUPS for n in g]
    assert sorted(grouped) == sorted(NOTEBOOKS)
    on_disk = sorted(p.stem for p in NB_DIR.glob("*.ipynb"))
    assert on_disk == sorted(NOTEBOOKS)
    for name in NOTEBOOKS:
        assert (NB_DIR / "cassettes" / f"{name}.json").is_file(), f"{name} has no cassette"


def test_pytest_nbval_notebooks_replays_every_notebook(tmp_path):
    result = _nbval(tmp_path / "data", "notebooks/")
    tail = (result.stdout + result.stderr)[-6000:]
    assert result.returncode == 0, f"pytest --nbval notebooks/ failed:\n{tail}"
    cells = sum(sum(1 for c in json.loads((NB_DIR / f"{n}.ipynb").read_text())["cells"] if c["cell_type"] == "code")
                for n in NOTEBOOKS)
    assert f"{cells} passed" in result.stdout and "failed" not in result.stdout, tail
    # each group had its own data directory, in which the notebooks ran in order
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == sorted(g[0] for g in GROUPS)


def test_each_notebook_gets_its_own_cassette(tmp_path):
    """A copy of the checkout with the quickstart only: it passes with its cassette, and fails
    with another notebook's cassette under its name."""
    nbs, tests = tmp_path / "notebooks", tmp_path / "tests" / "nbval"
    (nbs / "cassettes").mkdir(parents=True)
    tests.mkdir(parents=True)
    for name in ("conftest.py", "quickstart.ipynb", "sales.csv"):
        shutil.copy(NB_DIR / name, nbs / name)
    for name in ("notebooks_src.py", "sanitize.cfg"):
        shutil.copy(Path(__file__).with_name(name), tests / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "SHELL_AGENT_LAB_"))}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-cell-timeout",
           "120", "notebooks/"]
    runs = {}
    for source in ("quickstart", "dataframe_chart"):
        shutil.copy(NB_DIR / "cassettes" / f"{source}.json", nbs / "cassettes" / "quickstart.json")
        runs[source] = subprocess.run(cmd, cwd=tmp_path, env={**env, "SHELL_AGENT_LAB_NBVAL_DATA": str(tmp_path / source)},
                                      capture_output=True, text=True, timeout=580)
    assert runs["quickstart"].returncode == 0, runs["quickstart"].stdout[-3000:]
    assert runs["dataframe_chart"].returncode != 0 and "failed" in runs["dataframe_chart"].stdout
