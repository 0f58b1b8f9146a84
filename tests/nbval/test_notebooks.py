"""Every example notebook runs under nbval against its recorded outputs, offline.

Each notebook runs in its own nbval process with ``SHELL_AGENT_LAB_CASSETTE`` pointing at its
cassette (the model is replayed; a request the cassette has not seen fails the run) and a data
directory shared within its group, in order, so Global Memory stated in one notebook is there
in the next. Every output is compared; volatile text (ids, dates, temporary paths) goes
through ``sanitize.cfg``. Re-record with ``tests/nbval/record.py`` (see docs/recording.md).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebooks_src import GROUPS, NOTEBOOKS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
SANITIZE = Path(__file__).resolve().parent / "sanitize.cfg"

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(600)]


def _nbval(name: str, data_dir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "SHELL_AGENT_LAB_"))}
    env.update({"SHELL_AGENT_LAB_DATA_DIR": str(data_dir), "SHELL_AGENT_LAB_REPLAY": "replay",
                "SHELL_AGENT_LAB_REPLAY_MATCH": "conversation",
                "SHELL_AGENT_LAB_CASSETTE": str(NB_DIR / "cassettes" / f"{name}.json")})
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
           "--nbval-sanitize-with", str(SANITIZE), "--nbval-cell-timeout", "300",
           "--rootdir", str(NB_DIR), str(NB_DIR / f"{name}.ipynb")]
    return subprocess.run(cmd, cwd=NB_DIR, env=env, capture_output=True, text=True, timeout=580)


def test_every_notebook_is_in_a_group_and_committed():
    grouped = [n for g in GROUPS for n in g]
    assert sorted(grouped) == sorted(NOTEBOOKS)
    on_disk = sorted(p.stem for p in NB_DIR.glob("*.ipynb"))
    assert on_disk == sorted(NOTEBOOKS)
    for name in NOTEBOOKS:
        assert (NB_DIR / "cassettes" / f"{name}.json").is_file(), f"{name} has no cassette"


@pytest.mark.parametrize("group", GROUPS, ids=["+".join(g) for g in GROUPS])
def test_notebooks_match_their_recorded_outputs(group, tmp_path):
    for name in group:
        result = _nbval(name, tmp_path / "data")
        tail = (result.stdout + result.stderr)[-6000:]
        assert result.returncode == 0, f"{name}.ipynb failed under nbval:\n{tail}"
        assert " passed" in result.stdout and "failed" not in result.stdout, tail
