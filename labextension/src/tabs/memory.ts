/** Memory: Global and Session entries with trust and lifecycle badges; Pin, demote, edit, bulk delete. */
import { confirmButton, h, setChildren, shortDate } from '../dom';
import { EventMessage, Id, MemoryEntry } from '../protocol.generated';
import { Tab, TabHost, guarded } from './base';

const PIN_CATEGORIES = ['decision', 'preference'] as const;

export class MemoryTab implements Tab {
  readonly name = 'memory';
  readonly label = 'Memory';
  readonly node: HTMLElement;

  constructor(private readonly host: TabHost) {
    this._global = h('div', { class: 'sal-list', id: 'sal-memory-global' });
    this._session = h('div', { class: 'sal-list', id: 'sal-memory-session' });
    this._suggestions = h('div', { class: 'sal-list', id: 'sal-memory-suggestions' });
    this._privateNote = h('div', { class: 'sal-note', id: 'sal-memory-private', hidden: true }, '🔒 Private session: nothing here reaches Global Memory, and Pin is off.');
    this.node = h(
      'div',
      { class: 'sal-tab sal-memory', 'data-tab': 'memory' },
      h(
        'div',
        { class: 'sal-toolbar' },
        h('button', { class: 'sal-button', type: 'button', id: 'sal-memory-refresh', onclick: () => void guarded(this.host, () => this.refresh()) }, 'Refresh'),
        confirmButton('Delete selected', () => `Delete ${this._selected().length} entries?`, () => void this._deleteSelected(), { id: 'sal-memory-delete-selected' })
      ),
      this._privateNote,
      h('h3', { class: 'sal-section' }, 'Global Memory', h('small', {}, ' — every notebook')),
      this._global,
      h('h3', { class: 'sal-section' }, 'Suggestions waiting for a Pin'),
      this._suggestions,
      h('h3', { class: 'sal-section' }, 'Session Memory', h('small', {}, ' — this notebook')),
      this._session
    );
  }

  clear(): void {
    setChildren(this._global);
    setChildren(this._session);
    setChildren(this._suggestions);
  }

  async refresh(): Promise<void> {
    const memory = await this.host.request('memory_list', {});
    this._private = memory.private;
    this._privateNote.hidden = !memory.private;
    this._fill(this._global, memory.global, 'No global memory yet.');
    this._fill(this._suggestions, memory.suggestions, 'No suggestions.');
    this._fill(this._session, memory.session, 'No session memory yet.');
  }

  onEvent(ev: EventMessage): void {
    if (['global_memory_updated', 'session_memory_updated', 'session_changed', 'extraction_done'].includes(ev.event)) {
      void guarded(this.host, () => this.refresh());
    }
  }

  private _fill(list: HTMLElement, entries: MemoryEntry[], empty: string): void {
    if (!entries.length) {
      setChildren(list, h('div', { class: 'sal-empty' }, empty));
      return;
    }
    setChildren(list, ...entries.map(e => this._row(e)));
  }

  private _row(entry: MemoryEntry): HTMLElement {
    const id = String(entry.id);
    const text = h('span', { class: 'sal-entry-text' }, entry.fact);
    const actions = h('span', { class: 'sal-actions' });
    if (entry.scope === 'session') {
      const picker = h('select', { class: 'sal-pin-category', 'aria-label': 'Category' }, ...PIN_CATEGORIES.map(c => h('option', { value: c }, c)));
      const pin = h('button', { class: 'sal-button sal-pin', type: 'button', disabled: this._private, title: 'Pin into Global Memory' }, '★ Pin');
      pin.addEventListener('click', () =>
        guarded(this.host, async () => {
          await this.host.request('memory_pin', { entry_id: entry.id, category: picker.value as 'decision' | 'preference' });
          this.host.notify('Pinned into Global Memory.');
          await this.refresh();
        })
      );
      actions.append(picker, pin);
    } else {
      actions.append(
        h('button', {
          class: 'sal-button sal-demote', type: 'button', title: 'Move into this session only',
          onclick: () => void guarded(this.host, async () => {
            await this.host.request('memory_demote', { entry_id: entry.id });
            await this.refresh();
          })
        }, 'Demote')
      );
    }
    actions.append(
      h('button', { class: 'sal-button sal-edit', type: 'button', onclick: () => this._edit(entry, row, text) }, 'Edit'),
      h('button', {
        class: 'sal-button sal-delete', type: 'button',
        onclick: () => void guarded(this.host, async () => {
          await this.host.request('memory_delete', { scope: entry.scope, ids: [entry.id] });
          await this.refresh();
        })
      }, 'Delete')
    );
    const row = h(
      'div',
      { class: 'sal-entry', 'data-entry-id': id, 'data-scope': entry.scope, 'data-state': entry.state },
      h('input', { type: 'checkbox', class: 'sal-select', 'aria-label': 'Select' }),
      h(
        'div',
        { class: 'sal-entry-body' },
        text,
        h(
          'div',
          { class: 'sal-meta' },
          h('span', { class: `sal-badge sal-trust-${entry.trust}`, 'data-trust': entry.trust }, entry.trust),
          h('span', { class: `sal-badge sal-state-${entry.state}` }, entry.state),
          h('span', { class: 'sal-badge' }, entry.category),
          h('meter', { class: 'sal-relevance', min: 0, max: 1, value: entry.relevance, title: `relevance ${entry.relevance.toFixed(2)}` }),
          h('span', { class: 'sal-date' }, shortDate(entry.created_at))
        )
      ),
      actions
    );
    return row;
  }

  private _edit(entry: MemoryEntry, row: HTMLElement, text: HTMLElement): void {
    const input = h('input', { class: 'sal-edit-input', type: 'text', value: entry.fact });
    const save = h('button', { class: 'sal-button sal-primary sal-edit-save', type: 'button' }, 'Save');
    const editor = h('div', { class: 'sal-row sal-editor' }, input, save);
    save.addEventListener('click', () =>
      guarded(this.host, async () => {
        const fact = input.value.trim();
        if (!fact) {
          this.host.notify('The text cannot be empty.', 'error');
          return;
        }
        await this.host.request('memory_edit', { scope: entry.scope, entry_id: entry.id, fact });
        await this.refresh();
      })
    );
    text.replaceWith(editor);
    input.focus();
    row.dataset.editing = 'true';
  }

  private _selected(): Array<{ id: Id; scope: 'global' | 'session' }> {
    const rows = Array.from(this.node.querySelectorAll<HTMLElement>('.sal-entry'));
    return rows
      .filter(r => (r.querySelector('.sal-select') as HTMLInputElement).checked)
      .map(r => ({ id: this._idOf(r), scope: r.dataset.scope as 'global' | 'session' }));
  }

  private _idOf(row: HTMLElement): Id {
    const raw = row.dataset.entryId ?? '';
    return /^\d+$/.test(raw) ? Number(raw) : raw;
  }

  private async _deleteSelected(): Promise<void> {
    const chosen = this._selected();
    if (!chosen.length) {
      this.host.notify('Select entries first.', 'error');
      return;
    }
    await guarded(this.host, async () => {
      for (const scope of ['global', 'session'] as const) {
        const ids = chosen.filter(c => c.scope === scope).map(c => c.id);
        if (ids.length) {
          await this.host.request('memory_delete', { scope, ids });
        }
      }
      this.host.notify(`Deleted ${chosen.length} entries.`);
      await this.refresh();
    });
  }

  private _global: HTMLElement;
  private _session: HTMLElement;
  private _suggestions: HTMLElement;
  private _privateNote: HTMLElement;
  private _private = false;
}
