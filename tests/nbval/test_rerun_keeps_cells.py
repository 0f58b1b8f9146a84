"""A recorded example notebook run again (its cassette replayed, as a Run All) keeps its cells:
each answer's cells are replaced in place, never written a second time."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from shell_agent_lab.notebook.cells import CELL_TAG, META_KEY
from shell_agent_lab.notebook.nbrun import execute, temporary_environ

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(600)]


def _agent_cells(nb):
    return [c for c in nb.cells if CELL_TAG in c.metadata.get("tags", [])]


def test_running_the_recorded_quickstart_twice_keeps_one_copy_of_each_answers_cells(tmp_path):
    nb = nbformat.read(NB_DIR / "quickstart.ipynb", as_version=4)
    ids = [c.id for c in nb.cells]
    recorded = [(c.source, c.metadata[META_KEY]["source_cell"], c.metadata[META_KEY]["step"]) for c in _agent_cells(nb)]
    assert recorded and all(source for _, source, _ in recorded)          # the recording carries the metadata
    env = {"SHELL_AGENT_LAB_DATA_DIR": None, "SHELL_AGENT_LAB_REPLAY": "replay",
           "SHELL_AGENT_LAB_REPLAY_MATCH": "conversation",
           "SHELL_AGENT_LAB_CASSETTE": str(NB_DIR / "cassettes" / "quickstart.json")}
    turns = []
    for run in range(2):
        with temporary_environ({**env, "SHELL_AGENT_LAB_DATA_DIR": str(tmp_path / f"data{run}")}):
            execute(nb, cwd=NB_DIR, timeout=300)
        assert [c.id for c in nb.cells] == ids
        cells = _agent_cells(nb)
        assert [(c.source, c.metadata[META_KEY]["source_cell"], c.metadata[META_KEY]["step"]) for c in cells] == recorded
        assert all(c.outputs and c.execution_count for c in cells)      # fresh outputs
        turns.append({c.metadata[META_KEY]["turn"] for c in cells})
    assert turns[0].isdisjoint(turns[1])                                  # each run wrote its own turn
