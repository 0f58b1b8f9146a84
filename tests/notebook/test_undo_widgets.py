"""The Undo buttons beside an answer's cells and an accepted ``/fix``: they ask the kernel to
revert that change and say what happened; a change that is not the last one is refused."""
from __future__ import annotations

from types import SimpleNamespace

from shell_agent_lab.notebook._fix_widget import FixWidget
from shell_agent_lab.notebook._undo_widget import UndoCellsButton
from shell_agent_lab.notebook.cell_changes import begin_change, record_change, undo


def _runtime(taken):
    rt = SimpleNamespace(cell_change=None)
    rt.notebook_command = lambda command, args: taken.append((command, args)) or True
    return rt


def test_undo_cells_beside_an_answer_reverts_its_change_once():
    sent = []
    rt = _runtime(sent)
    begin_change(rt, "t1", lambda: True)
    record_change(rt, {"turn": "t1", "inserted": ["a", "b"], "replaced": [], "removed": []})
    button = UndoCellsButton("t1", lambda turn: undo(rt, turn))
    assert button.click() == "Undone: removed 2 cells."
    assert button.button.disabled and sent == [("undo_cells", {"turn": "t1", "inserted": ["a", "b"],
                                                               "replaced": [], "removed": []})]
    assert "Nothing to undo" in UndoCellsButton("t1", lambda turn: undo(rt, turn)).click()


def test_an_older_answers_button_does_not_undo_a_later_change():
    rt = _runtime([])
    begin_change(rt, "t1", lambda: True)
    record_change(rt, {"turn": "t1", "inserted": ["a"], "replaced": [], "removed": []})
    begin_change(rt, "t2", lambda: True)
    record_change(rt, {"turn": "t2", "inserted": ["b"], "replaced": [], "removed": []})
    button = UndoCellsButton("t1", lambda turn: undo(rt, turn))
    assert "Only the assistant's last change" in button.click() and not button.button.disabled
    assert rt.cell_change["turn"] == "t2"


def test_without_a_panel_the_change_stays_to_undo_later():
    rt = SimpleNamespace(cell_change=None, notebook_command=lambda command, args: False)
    begin_change(rt, "t1", lambda: True)
    record_change(rt, {"turn": "t1", "inserted": ["a"], "replaced": [], "removed": []})
    done, text = undo(rt)
    assert not done and "side panel" in text and rt.cell_change["inserted"] == ["a"]


def test_an_accepted_fix_can_be_undone_and_accepted_again():
    calls = []
    fix = {"cell_id": "c1", "original": "x = sales.amout", "fixed": "x = sales.amount"}
    widget = FixWidget(fix, lambda f, replace: calls.append(("insert", replace)) or "fix-1",
                       lambda turn: (calls.append(("undo", turn)) or True, "Undone: restored 1 cell."))
    assert widget.answer(replace=True)
    assert widget.accept.disabled and widget.undo_button.layout.display == ""
    assert widget.revert() == "Undone: restored 1 cell."
    assert calls == [("insert", True), ("undo", "fix-1")]
    assert not widget.accept.disabled and widget.undo_button.disabled
    assert widget.answer(replace=True) and not widget.undo_button.disabled        # accepted again: undoable again
