/** Sessions: every session on disk; rename, delete, export and import. */
import { confirmButton, h, setChildren, shortDateTime } from '../dom';
import { EventMessage, Session } from '../protocol.generated';
import { Tab, TabHost, guarded } from './base';

const EXPORT_TIMEOUT_MS = 120_000;

export class SessionsTab implements Tab {
  readonly name = 'sessions';
  readonly label = 'Sessions';
  readonly node: HTMLElement;

  constructor(private readonly host: TabHost) {
    this._list = h('div', { class: 'sal-list', id: 'sal-sessions-list' });
    this._file = h('input', { type: 'file', id: 'sal-sessions-import-file', accept: '.zip,.salbundle,application/zip', hidden: true });
    this._file.addEventListener('change', () => void this._import());
    this.node = h(
      'div',
      { class: 'sal-tab sal-sessions', 'data-tab': 'sessions' },
      h(
        'div',
        { class: 'sal-toolbar' },
        h('button', { class: 'sal-button', type: 'button', id: 'sal-sessions-refresh', onclick: () => void guarded(this.host, () => this.refresh()) }, 'Refresh'),
        h('button', { class: 'sal-button', type: 'button', id: 'sal-sessions-import', onclick: () => this._file.click() }, 'Import…'),
        this._file
      ),
      this._list
    );
  }

  clear(): void {
    setChildren(this._list);
  }

  async refresh(): Promise<void> {
    const result = await this.host.request('sessions_list', {});
    if (!result.sessions.length) {
      setChildren(this._list, h('div', { class: 'sal-empty' }, 'No sessions on disk.'));
      return;
    }
    setChildren(this._list, ...result.sessions.map(s => this._row(s)));
  }

  onEvent(ev: EventMessage): void {
    if (ev.event === 'session_renamed' || ev.event === 'session_changed') {
      void guarded(this.host, () => this.refresh());
    }
  }

  private _row(session: Session): HTMLElement {
    const title = h('span', { class: 'sal-session-title' }, session.title);
    const row = h(
      'div',
      { class: 'sal-entry sal-session', 'data-session-id': session.id, 'data-current': session.current ? 'true' : 'false' },
      h(
        'div',
        { class: 'sal-entry-body' },
        h('div', {}, session.private ? h('span', { class: 'sal-lock', title: 'Private session' }, '🔒 ') : null, title, session.current ? h('span', { class: 'sal-badge sal-current' }, 'this notebook') : null),
        h(
          'div',
          { class: 'sal-meta' },
          h('span', { class: 'sal-path' }, session.notebook_path ?? 'no notebook'),
          h('span', { class: 'sal-date' }, `created ${shortDateTime(session.created_at)} · updated ${shortDateTime(session.updated_at)}`)
        )
      ),
      h(
        'span',
        { class: 'sal-actions' },
        h('button', { class: 'sal-button sal-rename', type: 'button', onclick: () => this._rename(session, title) }, 'Rename'),
        h('button', { class: 'sal-button sal-export', type: 'button', onclick: () => void this._export(session) }, 'Export'),
        session.current
          ? null
          : confirmButton('Delete', () => 'Delete for good?', () => void this._delete(session), { class: 'sal-button sal-danger sal-delete' })
      )
    );
    return row;
  }

  private _rename(session: Session, title: HTMLElement): void {
    const input = h('input', { type: 'text', class: 'sal-rename-input', value: session.title });
    const save = h('button', { class: 'sal-button sal-primary sal-rename-save', type: 'button' }, 'Save');
    save.addEventListener('click', () =>
      guarded(this.host, async () => {
        const value = input.value.trim();
        if (!value) {
          this.host.notify('A title cannot be empty.', 'error');
          return;
        }
        await this.host.request('sessions_rename', { session_id: session.id, title: value });
        await this.refresh();
      })
    );
    title.replaceWith(h('span', { class: 'sal-row' }, input, save));
    input.focus();
  }

  private async _delete(session: Session): Promise<void> {
    await guarded(this.host, async () => {
      await this.host.request('sessions_delete', { session_id: session.id });
      this.host.notify(`Deleted “${session.title}”.`);
      await this.refresh();
    });
  }

  private async _export(session: Session): Promise<void> {
    await guarded(this.host, async () => {
      const result = await this.host.request('sessions_export', { session_id: session.id }, EXPORT_TIMEOUT_MS);
      const bytes = Uint8Array.from(atob(result.data_base64), c => c.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([bytes], { type: result.mime_type }));
      const link = h('a', { href: url, download: result.filename });
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
      this.host.notify(`Exported ${result.filename} (${result.size.toLocaleString()} bytes).`);
    });
  }

  private async _import(): Promise<void> {
    const file = this._file.files?.[0];
    this._file.value = '';
    if (!file) {
      return;
    }
    await guarded(this.host, async () => {
      const buffer = new Uint8Array(await file.arrayBuffer());
      let binary = '';
      for (let i = 0; i < buffer.length; i += 0x8000) {
        binary += String.fromCharCode(...buffer.subarray(i, i + 0x8000));
      }
      const result = await this.host.request('sessions_import', { filename: file.name, data_base64: btoa(binary) }, EXPORT_TIMEOUT_MS);
      this.host.notify(`Imported “${result.session.title}”.`);
      await this.refresh();
    });
  }

  private _list: HTMLElement;
  private _file: HTMLInputElement;
}
