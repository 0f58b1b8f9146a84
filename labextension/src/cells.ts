/**
 * The kernel's cell commands applied to the panel's own notebook.
 *
 * `insert_cell`: a cell below the cell that asked (after the ones inserted before it for the same
 * cell), or below the active cell; run when asked to; an accepted /fix replaces the cell.
 * `sync_cells`: one answer's cells. The assistant's cells carry `metadata.shell_agent_lab` =
 * {source_cell, step, turn}: when the asking cell runs again its earlier cells are replaced in
 * place, extra ones removed, missing ones added; `/cells` only adds what is missing.
 * `undo_cells`: revert one change. Each change that names a `turn` is reported back to the
 * kernel (`cells_changed`), which keeps the last one for Undo cells.
 */
import type { ICodeCellModel, ICellModel } from '@jupyterlab/cells';
import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import type { PartialJSONObject } from '@lumino/coreutils';
import { AgentCellMeta, CellChange, Commands, NotebookCellsArgs } from './protocol.generated';

/** The metadata key and tag of the assistant's cells. */
export const CELL_META = 'shell_agent_lab';
export const CELL_TAG = 'shell-agent-lab';

/** What applying a command did: a line for the user, and the change to report (null: none). */
export interface Applied {
  text: string;
  change: CellChange | null;
}

type CellBefore = CellChange['replaced'][number];

/** asking cell id -> the id of the last cell inserted below it, per notebook */
const lastBelow = new WeakMap<NotebookPanel, Map<string, string>>();

function indexOf(panel: NotebookPanel, id: string | null | undefined): number {
  if (!id) {
    return -1;
  }
  return panel.content.widgets.findIndex(cell => cell.model.id === id);
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

function metaOf(model: ICellModel): Partial<AgentCellMeta> {
  const value = model.sharedModel.getMetadata(CELL_META);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Partial<AgentCellMeta>) : {};
}

function before(model: ICellModel, afterId?: string | null): CellBefore {
  const entry: CellBefore = {
    id: model.id,
    source: model.sharedModel.getSource(),
    metadata: JSON.parse(JSON.stringify(model.sharedModel.getMetadata() ?? {}))
  };
  if (afterId !== undefined) {
    entry.after_id = afterId;
  }
  return entry;
}

function clearOutputs(model: ICellModel): void {
  if (model.type === 'code') {
    (model as ICodeCellModel).outputs.clear();
    (model as ICodeCellModel).executionCount = null;
  }
}

/** Give a cell exactly `metadata` (keys it did not have are removed). */
function setAllMetadata(model: ICellModel, metadata: { [key: string]: unknown }): void {
  const shared = model.sharedModel;
  for (const key of Object.keys(shared.getMetadata() ?? {})) {
    if (!(key in metadata)) {
      shared.deleteMetadata(key);
    }
  }
  shared.setMetadata(metadata as PartialJSONObject);
}

function agentMetadata(existing: { [key: string]: unknown }, meta: AgentCellMeta): { [key: string]: unknown } {
  const tags = Array.isArray(existing.tags) ? (existing.tags as string[]) : [];
  return { ...existing, tags: tags.includes(CELL_TAG) ? tags : [...tags, CELL_TAG], [CELL_META]: meta };
}

/** Apply one `insert_cell` command. */
export function applyInsertCell(panel: NotebookPanel, args: Commands['insert_cell']): Applied {
  const notebook = panel.content;
  const asking = args.after_cell_id ?? null;
  const change: CellChange | null = args.turn ? { turn: args.turn, inserted: [], replaced: [], removed: [] } : null;
  if (args.replace) {
    const at = indexOf(panel, asking);
    if (at < 0) {
      return { text: 'The cell to replace is no longer in this notebook.', change: null };
    }
    const model = notebook.widgets[at].model;
    change?.replaced.push(before(model));
    model.sharedModel.setSource(args.code);
    clearOutputs(model); // the error shown belonged to the old source
    notebook.activeCellIndex = at;
    return { text: 'Replaced the cell with the proposed one.', change };
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
    return { text: 'Could not insert the cell.', change: null };
  }
  cell.model.sharedModel.setSource(args.code);
  change?.inserted.push(cell.model.id);
  if (asking) {
    below.set(asking, cell.model.id);
  }
  if (args.run) {
    // queued behind the cell that is still running; the outputs are saved with the notebook
    void NotebookActions.run(notebook, panel.sessionContext);
    return { text: 'Inserted and ran a cell below.', change };
  }
  return { text: 'Inserted a cell below (not run).', change };
}

/** A cell written before cells had metadata that opens with this answer's comment line. */
function isLegacy(model: ICellModel, mark: string | undefined): boolean {
  if (!mark || !mark.startsWith('#') || model.type !== 'code' || metaOf(model).source_cell) {
    return false;
  }
  const head = model.sharedModel.getSource().split('\n', 2);
  return head.includes(mark) || head.includes(`--${mark.slice(1)}`);
}

/** Apply one `sync_cells` command: the answer's cells, in place of its earlier ones. */
export function applySyncCells(panel: NotebookPanel, args: Commands['sync_cells']): Applied {
  const notebook = panel.content;
  const shared = notebook.model!.sharedModel;
  const n = args.cells.length;
  const source = args.source_cell;
  const members = notebook.widgets
    .map(w => w.model)
    .filter(m => (source !== null && m.type === 'code' && metaOf(m).source_cell === source) || isLegacy(m, args.mark));
  const byStep = new Map<number, ICellModel>();
  for (const m of members) {
    const step = metaOf(m).step;
    if (typeof step === 'number' && !byStep.has(step)) {
      byStep.set(step, m);
    }
  }
  for (const m of members) {
    // cells without a step (older notebooks) fill the free steps in order
    if (typeof metaOf(m).step !== 'number' && ![...byStep.values()].includes(m)) {
      const free = Array.from({ length: n }, (_, i) => i + 1).find(s => !byStep.has(s));
      if (free !== undefined) {
        byStep.set(free, m);
      }
    }
  }
  const kept = members.filter(m => [...byStep.entries()].some(([s, c]) => c === m && s >= 1 && s <= n));
  const change: CellChange = { turn: args.turn, inserted: [], replaced: [], removed: [] };
  const idIndex = (id: string) => notebook.widgets.findIndex(w => w.model.id === id);
  let below = source !== null ? idIndex(source) : -1;
  if (below < 0) {
    below = notebook.activeCellIndex;
  }
  const toRun: string[] = [];
  let previous: string | null = null;
  let unchanged = 0;
  for (const [i, cell] of args.cells.entries()) {
    const step = i + 1;
    const meta: AgentCellMeta = { source_cell: source, step, turn: args.turn, ...(cell.run ? {} : { run: false }) };
    const old = byStep.get(step);
    if (old && (args.mode === 'missing' || (old.sharedModel.getSource() === cell.code && metaOf(old).turn === args.turn))) {
      previous = old.id; // already there: kept as it is
      unchanged++;
      continue;
    }
    if (old) {
      const sameCode = old.sharedModel.getSource() === cell.code;
      const queued = old.type === 'code' && (old as ICodeCellModel).executionState === 'running';
      const entry = before(old);
      change.replaced.push(entry);
      old.sharedModel.setMetadata(agentMetadata(entry.metadata, meta) as PartialJSONObject);
      if (!sameCode) {
        old.sharedModel.setSource(cell.code);
      }
      // a cell already waiting to run with this code runs fresh anyway: leave it in the queue
      if (!(sameCode && queued)) {
        clearOutputs(old);
        if (cell.run) {
          toRun.push(old.id);
        }
      }
      previous = old.id;
      continue;
    }
    let at: number;
    if (previous !== null) {
      at = idIndex(previous) + 1;
    } else if (kept.length) {
      at = idIndex(kept[0].id);
    } else {
      at = below >= 0 ? below + 1 : notebook.widgets.length;
    }
    const ycell = shared.insertCell(at, {
      cell_type: 'code',
      source: cell.code,
      metadata: agentMetadata({}, meta) as any
    });
    const id = ycell.getId();
    change.inserted.push(id);
    if (cell.run) {
      toRun.push(id);
    }
    previous = id;
  }
  if (args.mode === 'replace') {
    // earlier cells beyond this answer's: last first, so each remembers the cell it followed
    const extras = members.filter(m => !kept.includes(m)).reverse();
    const removed: CellBefore[] = [];
    for (const m of extras) {
      const at = idIndex(m.id);
      if (at < 0) {
        continue;
      }
      let prior = at - 1;
      while (prior >= 0 && change.inserted.includes(notebook.widgets[prior].model.id)) {
        prior--;
      }
      removed.unshift(before(m, prior >= 0 ? notebook.widgets[prior].model.id : null));
      shared.deleteCell(at);
    }
    change.removed.push(...removed);
  }
  const run = notebook.widgets.filter(w => toRun.includes(w.model.id));
  if (run.length) {
    // queued behind the cell that is still running; the outputs are saved with the notebook
    void NotebookActions.runCells(notebook, run, panel.sessionContext);
  }
  const parts: string[] = [];
  if (change.inserted.length) {
    parts.push(`inserted ${plural(change.inserted.length, 'cell')}`);
  }
  if (change.replaced.length) {
    parts.push(`replaced ${plural(change.replaced.length, 'earlier cell')}`);
  }
  if (change.removed.length) {
    parts.push(`removed ${plural(change.removed.length, 'earlier cell')}`);
  }
  const text = parts.length
    ? `The answer's cells: ${parts.join(', ')}.`
    : unchanged
      ? 'The answer’s cells are already in the notebook.'
      : 'The answer has no cells.';
  return { text, change: parts.length ? change : null };
}

/** Apply one `undo_cells` command: revert the change it describes. */
export function applyUndo(panel: NotebookPanel, change: CellChange): string {
  const notebook = panel.content;
  const shared = notebook.model!.sharedModel;
  const idIndex = (id: string | null | undefined) => (id ? notebook.widgets.findIndex(w => w.model.id === id) : -1);
  let removed = 0;
  for (const id of change.inserted) {
    const at = idIndex(id);
    if (at >= 0) {
      shared.deleteCell(at);
      removed++;
    }
  }
  let restored = 0;
  for (const entry of change.replaced) {
    const at = idIndex(entry.id);
    if (at < 0) {
      continue;
    }
    const model = notebook.widgets[at].model;
    if (model.sharedModel.getSource() !== entry.source) {
      model.sharedModel.setSource(entry.source);
      clearOutputs(model); // the outputs belonged to the other source
    }
    setAllMetadata(model, entry.metadata);
    restored++;
  }
  let back = 0;
  for (const entry of change.removed) {
    const after = idIndex(entry.after_id);
    const at = entry.after_id ? (after >= 0 ? after + 1 : notebook.widgets.length) : 0;
    shared.insertCell(at, { cell_type: 'code', source: entry.source, metadata: entry.metadata as any });
    back++;
  }
  const parts = [
    removed ? `removed ${plural(removed, 'cell')}` : '',
    restored ? `restored ${plural(restored, 'cell')}` : '',
    back ? `put back ${plural(back, 'cell')}` : ''
  ].filter(Boolean);
  return parts.length ? `Undid the assistant's last change: ${parts.join(', ')}.` : 'Nothing left to undo in this notebook.';
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
