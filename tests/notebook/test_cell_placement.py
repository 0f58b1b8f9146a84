"""Where an answer's cells go in a notebook driven without a frontend (``nbrun.place_cells``): the
asking cell's earlier cells are replaced in place, extra ones removed, missing ones added — the
same rules the side panel follows for ``sync_cells``."""
from __future__ import annotations

import nbformat

from shell_agent_lab.notebook.cells import CELL_TAG, META_KEY, AgentCell, CellSet, question_line
from shell_agent_lab.notebook.nbrun import new_agent_cell, place_cells

MARK = question_line("Which region leads?")


def _nb(*sources):
    cells = []
    for i, item in enumerate(sources):
        cell = item if not isinstance(item, str) else nbformat.v4.new_code_cell(item)
        cell.id = cell.get("id") if not isinstance(item, str) else f"c{i}"
        cells.append(cell)
    return cells


def _set(*codes, source="c0", turn="t2"):
    return CellSet(source, turn, MARK, tuple(AgentCell("sql", f"%%agent_sql\n--{MARK[1:]}\n{c}") for c in codes))


def _earlier(code, step, source="c0", turn="t1", cell_id=None):
    cell = new_agent_cell(f"%%agent_sql\n--{MARK[1:]}\n{code}",
                          meta={"source_cell": source, "step": step, "turn": turn})
    cell.id = cell_id or f"old{step}"
    return cell


def _codes(cells):
    return [c.source.splitlines()[-1] for c in cells]


def test_the_first_time_the_cells_go_below_the_cell_that_wrote_them_with_their_metadata():
    cells = _nb("%agent Which region leads?", "%agent /cells", "print('next')")
    placed = place_cells(cells, 1, _set("SELECT 1", "SELECT 2"))
    assert _codes(cells) == ["%agent Which region leads?", "%agent /cells", "SELECT 1", "SELECT 2", "print('next')"]
    assert [c.metadata[META_KEY] for c in placed] == [{"source_cell": "c0", "step": 1, "turn": "t2"},
                                                      {"source_cell": "c0", "step": 2, "turn": "t2"}]
    assert all(c.metadata["tags"] == [CELL_TAG] for c in placed)


def test_running_again_replaces_the_earlier_cells_in_place_keeping_their_ids():
    cells = _nb("%agent Which region leads?", "%agent /cells", _earlier("SELECT old", 1), "print('next')")
    place_cells(cells, 1, _set("SELECT new"))
    assert _codes(cells) == ["%agent Which region leads?", "%agent /cells", "SELECT new", "print('next')"]
    assert cells[2].id == "old1" and cells[2].metadata[META_KEY]["turn"] == "t2"
    place_cells(cells, 1, _set("SELECT new", turn="t3"))                       # and again: still one
    assert len(cells) == 4 and cells[2].metadata[META_KEY]["turn"] == "t3"


def test_extra_earlier_cells_go_and_missing_ones_come_after_the_previous_step():
    cells = _nb("%agent Which region leads?", _earlier("SELECT a", 1), _earlier("SELECT b", 2),
                _earlier("SELECT c", 3), "print('next')")
    place_cells(cells, 0, _set("SELECT x"))
    assert _codes(cells) == ["%agent Which region leads?", "SELECT x", "print('next')"]
    place_cells(cells, 0, _set("SELECT x", "SELECT y"))
    assert _codes(cells) == ["%agent Which region leads?", "SELECT x", "SELECT y", "print('next')"]


def test_another_questions_cells_are_left_alone():
    cells = _nb("%agent Which region leads?", _earlier("SELECT mine", 1),
                "%agent Other?", _earlier("SELECT theirs", 1, source="c2", cell_id="other"))
    place_cells(cells, 0, _set("SELECT new"))
    assert _codes(cells) == ["%agent Which region leads?", "SELECT new", "%agent Other?", "SELECT theirs"]


def test_cells_written_before_cells_had_metadata_are_recognised_by_their_comment_line():
    legacy = [nbformat.v4.new_code_cell(f"%%agent_sql\n--{MARK[1:]}\nSELECT old") for _ in range(3)]
    for i, cell in enumerate(legacy):
        cell.metadata["tags"] = [CELL_TAG]
        cell.id = f"legacy{i}"
    cells = _nb("%agent Which region leads?", "%agent /cells", *legacy, "print('next')")
    place_cells(cells, 1, _set("SELECT new"))
    assert _codes(cells) == ["%agent Which region leads?", "%agent /cells", "SELECT new", "print('next')"]
    assert cells[2].id == "legacy0" and cells[2].metadata[META_KEY]["source_cell"] == "c0"
