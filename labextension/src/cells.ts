/**
 * The kernel's `insert_cell` command applied to the panel's own notebook: the assistant's cells
 * go below the cell that asked (in order: each after the one inserted before it for the same
 * cell), or below the active cell; they run when asked to; an accepted /fix replaces the cell.
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { Commands, NotebookCellsArgs } from './protocol.generated';

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

const TEXT_LIMIT = 4000;

function cut(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT - 1)}…` : text;
}

function joined(value: unknown): string {
  return Array.isArray(value) ? value.join('') : typeof value === 'string' ? value : '';
}

/** The notebook's cells as the kernel's read_notebook tool reads them (text outputs, errors). */
export function notebookCells(panel: NotebookPanel): NotebookCellsArgs['cells'] {
  return panel.content.widgets.map((cell, i) => {
    const model = cell.model;
    let output = '';
    let error = '';
    if (model.type === 'code') {
      for (const out of (model as ICodeCellModel).outputs.toJSON()) {
        if (out.output_type === 'stream') {
          output += joined(out.text);
        } else if (out.output_type === 'error') {
          error += `${String(out.ename)}: ${String(out.evalue)}`;
        } else {
          const data = (out.data ?? {}) as Record<string, unknown>;
          output += joined(data['text/plain']) + '\n';
        }
      }
    }
    const kind = model.type === 'code' || model.type === 'markdown' ? model.type : 'raw';
    return { index: i + 1, kind, source: cut(model.sharedModel.getSource()), output: cut(output.trim()), error: cut(error), id: model.id };
  });
}

/** Send the notebook's cells to the kernel now and after edits and runs (debounced); returns a stop function. */
export function watchNotebook(panel: NotebookPanel, send: (cells: NotebookCellsArgs['cells']) => void, delayMs = 1500): () => void {
  let timer: number | undefined;
  const schedule = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      if (!panel.isDisposed && panel.content.model) {
        send(notebookCells(panel));
      }
    }, delayMs);
  };
  const onExecuted = (_: unknown, args: { notebook: unknown }) => {
    if (args.notebook === panel.content) {
      schedule();
    }
  };
  panel.content.model?.contentChanged.connect(schedule);
  NotebookActions.executed.connect(onExecuted);
  schedule();
  return () => {
    window.clearTimeout(timer);
    panel.content.model?.contentChanged.disconnect(schedule);
    NotebookActions.executed.disconnect(onExecuted);
  };
}
