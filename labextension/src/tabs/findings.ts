/** Findings: severity filter, search, add, Pin, delete and bulk delete. */
import { confirmButton, h, setChildren, shortDate } from '../dom';
import { EventMessage, Finding, Id } from '../protocol.generated';
import { Tab, TabHost, guarded } from './base';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];

export class FindingsTab implements Tab {
  readonly name = 'findings';
  readonly label = 'Findings';
  readonly node: HTMLElement;

  constructor(private readonly host: TabHost) {
    this._severity = h('select', { id: 'sal-findings-severity', 'aria-label': 'Severity' }, h('option', { value: '' }, 'all severities'), ...SEVERITIES.map(s => h('option', { value: s }, s)));
    this._search = h('input', { id: 'sal-findings-search', type: 'search', placeholder: 'Search findings' });
    this._severity.addEventListener('change', () => this._render());
    this._search.addEventListener('input', () => this._render());
    this._list = h('div', { class: 'sal-list', id: 'sal-findings-list' });
    this._newText = h('input', { id: 'sal-findings-new', type: 'text', placeholder: 'Note a finding by hand' });
    this.node = h(
      'div',
      { class: 'sal-tab sal-findings', 'data-tab': 'findings' },
      h(
        'div',
        { class: 'sal-toolbar' },
        this._severity,
        this._search,
        confirmButton('Delete selected', () => `Delete ${this._selectedIds().length} findings?`, () => void this._deleteSelected(), { id: 'sal-findings-delete-selected' })
      ),
      h(
        'div',
        { class: 'sal-row' },
        this._newText,
        h('button', { class: 'sal-button', type: 'button', id: 'sal-findings-add', onclick: () => void this._add() }, 'Add')
      ),
      this._list
    );
  }

  clear(): void {
    this._findings = [];
    setChildren(this._list);
  }

  async refresh(): Promise<void> {
    const result = await this.host.request('findings_list', {});
    this._findings = result.findings;
    this._render();
  }

  onEvent(ev: EventMessage): void {
    if (ev.event === 'findings_updated' || ev.event === 'session_changed') {
      void guarded(this.host, () => this.refresh());
    }
  }

  private _render(): void {
    const severity = this._severity.value;
    const needle = this._search.value.trim().toLowerCase();
    const shown = this._findings.filter(
      f => (!severity || f.severity === severity) && (!needle || f.content.toLowerCase().includes(needle) || f.tags.some(t => t.toLowerCase().includes(needle)))
    );
    this.node.dataset.count = String(shown.length);
    if (!shown.length) {
      setChildren(this._list, h('div', { class: 'sal-empty' }, this._findings.length ? 'No finding matches.' : 'No findings in this session yet.'));
      return;
    }
    setChildren(this._list, ...shown.map(f => this._row(f)));
  }

  private _row(finding: Finding): HTMLElement {
    const picker = h('select', { class: 'sal-pin-category', 'aria-label': 'Category' }, h('option', { value: 'decision' }, 'decision'), h('option', { value: 'preference' }, 'preference'));
    return h(
      'div',
      { class: 'sal-entry', 'data-finding-id': String(finding.id), 'data-severity': finding.severity ?? '' },
      h('input', { type: 'checkbox', class: 'sal-select', 'aria-label': 'Select' }),
      h(
        'div',
        { class: 'sal-entry-body' },
        h('span', { class: 'sal-entry-text' }, finding.content),
        h(
          'div',
          { class: 'sal-meta' },
          finding.severity ? h('span', { class: `sal-badge sal-sev-${finding.severity}` }, finding.severity) : null,
          ...finding.tags.filter(t => t !== finding.severity).map(t => h('span', { class: 'sal-badge sal-tag' }, t)),
          h('span', { class: 'sal-date' }, `${finding.source} · ${shortDate(finding.created_at)}`)
        )
      ),
      h(
        'span',
        { class: 'sal-actions' },
        picker,
        h('button', {
          class: 'sal-button sal-pin', type: 'button', title: 'Pin into Global Memory',
          onclick: () => void guarded(this.host, async () => {
            await this.host.request('findings_pin', { finding_id: finding.id, category: picker.value as 'decision' | 'preference' });
            this.host.notify('Pinned into Global Memory.');
          })
        }, '★ Pin'),
        h('button', {
          class: 'sal-button sal-delete', type: 'button',
          onclick: () => void guarded(this.host, async () => {
            await this.host.request('findings_delete', { ids: [finding.id] });
            await this.refresh();
          })
        }, 'Delete')
      )
    );
  }

  private async _add(): Promise<void> {
    const content = this._newText.value.trim();
    if (!content) {
      this.host.notify('Type the finding first.', 'error');
      return;
    }
    await guarded(this.host, async () => {
      const result = await this.host.request('findings_add', { content });
      if (result.duplicate) {
        this.host.notify('That finding is already recorded.');
      }
      this._newText.value = '';
      await this.refresh();
    });
  }

  private _selectedIds(): Id[] {
    return Array.from(this._list.querySelectorAll<HTMLElement>('.sal-entry'))
      .filter(r => (r.querySelector('.sal-select') as HTMLInputElement).checked)
      .map(r => {
        const raw = r.dataset.findingId ?? '';
        return /^\d+$/.test(raw) ? Number(raw) : raw;
      });
  }

  private async _deleteSelected(): Promise<void> {
    const ids = this._selectedIds();
    if (!ids.length) {
      this.host.notify('Select findings first.', 'error');
      return;
    }
    await guarded(this.host, async () => {
      const result = await this.host.request('findings_delete', { ids });
      this.host.notify(`Deleted ${result.deleted} findings.`);
      await this.refresh();
    });
  }

  private _findings: Finding[] = [];
  private _severity: HTMLSelectElement;
  private _search: HTMLInputElement;
  private _list: HTMLElement;
  private _newText: HTMLInputElement;
}
