/**
 * The kernel's `insert_cell` command applied to the panel's own notebook: the assistant's cells
 * go below the cell that asked (in order: each after the one inserted before it for the same
 * cell), or below the active cell; they run when asked to; an accepted /fix replaces the cell.
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { Commands } from './protocol.generated';

/** asking cell id -> the id of the last cell inserted below it, per notebook */
const lastBelow = new WeakMap<NotebookPanel, Map<string, string>>();

function indexOf(panel: NotebookPanel, id: string | null | undefined): number {
  if (!id) {
    return -1;
  }
  return panel.content.widgets.findIndex(cell => cell.model.id === id);
}

/** Apply one `insert_cell` command; returns what to tell the user. */
export function applyInsertCell(panel: NotebookPanel, args: Commands['insert_cell']): string {
  const notebook = panel.content;
  const asking = args.after_cell_id ?? null;
  if (args.replace) {
    const at = indexOf(panel, asking);
    if (at < 0) {
      return 'The cell to replace is no longer in this notebook.';
    }
    const model = notebook.widgets[at].model;
    model.sharedModel.setSource(args.code);
    if (model.type === 'code') {
      // the error shown belonged to the old source
      (model as ICodeCellModel).outputs.clear();
      (model as ICodeCellModel).executionCount = null;
    }
    notebook.activeCellIndex = at;
    return 'Replaced the cell with the proposed one.';
  }
  let below = lastBelow.get(panel);
  if (!below) {
    below = new Map();
    lastBelow.set(panel, below);
  }
  let anchor = asking ? indexOf(panel, below.get(asking)) : -1;
  if (anchor < 0) {
    anchor = indexOf(panel, asking);
  }
  if (anchor >= 0) {
    notebook.activeCellIndex = anchor;
  }
  notebook.deselectAll();
  NotebookActions.insertBelow(notebook);
  const cell = notebook.activeCell;
  if (!cell) {
    return 'Could not insert the cell.';
  }
  cell.model.sharedModel.setSource(args.code);
  if (asking) {
    below.set(asking, cell.model.id);
  }
  if (args.run) {
    // queued behind the cell that is still running; the outputs are saved with the notebook
    void NotebookActions.run(notebook, panel.sessionContext);
    return 'Inserted and ran a cell below.';
  }
  return 'Inserted a cell below (not run).';
}
