/** Data: the session's connections, loaded tables and live DataFrames with their columns and row counts. */
import { h, setChildren } from '../dom';
import { Connection, EventMessage, Table } from '../protocol.generated';
import { Tab, TabHost, guarded } from './base';

export class DataTab implements Tab {
  readonly name = 'data';
  readonly label = 'Data';
  readonly node: HTMLElement;

  constructor(private readonly host: TabHost) {
    this._list = h('div', { class: 'sal-list', id: 'sal-data-list' });
    this.node = h(
      'div',
      { class: 'sal-tab sal-data', 'data-tab': 'data' },
      h('div', { class: 'sal-toolbar' }, h('button', { class: 'sal-button', type: 'button', id: 'sal-data-refresh', onclick: () => void guarded(this.host, () => this.refresh()) }, 'Refresh')),
      this._list
    );
  }

  clear(): void {
    setChildren(this._list);
  }

  async refresh(): Promise<void> {
    const result = await this.host.request('data_list', {});
    const connections = (result.connections ?? []).map(c => this._connection(c));
    if (!result.tables.length && !connections.length) {
      setChildren(this._list, h('div', { class: 'sal-empty' }, 'No tables yet. Create a DataFrame in the notebook or ask the assistant to load a file.'));
      return;
    }
    setChildren(this._list, ...connections, ...result.tables.map(t => this._card(t)));
  }

  /** A read-only connection: name, engine, redacted URL, and its tables or why they cannot be read. */
  private _connection(c: Connection): HTMLElement {
    const state = c.error ? c.error : `${(c.tables ?? []).length} tables`;
    return h(
      'div',
      { class: 'sal-connection', 'data-connection': c.name, 'data-kind': c.kind },
      h('span', { class: 'sal-table-name' }, c.name),
      h('span', { class: 'sal-badge' }, c.kind === 'spark' ? 'Spark' : 'PostgreSQL'),
      h('code', { class: 'sal-connection-url' }, c.url),
      h('span', { class: c.error ? 'sal-connection-error' : 'sal-connection-tables' }, ` ${state}`)
    );
  }

  onEvent(ev: EventMessage): void {
    if (ev.event === 'data_updated' || ev.event === 'session_changed' || ev.event === 'turn_finished') {
      void guarded(this.host, () => this.refresh());
    }
  }

  private _card(table: Table): HTMLElement {
    const rows = table.rows === null ? '? rows' : `${table.rows.toLocaleString()} rows`;
    return h(
      'details',
      { class: 'sal-table', 'data-table': table.name, 'data-kind': table.kind },
      h(
        'summary',
        {},
        h('span', { class: 'sal-table-name' }, table.name),
        h('span', { class: 'sal-badge' }, table.kind === 'dataframe' ? 'DataFrame' : 'table'),
        h('span', { class: 'sal-table-rows', 'data-rows': table.rows ?? '' }, ` ${rows} × ${table.columns.length} columns`)
      ),
      h('ul', { class: 'sal-columns' }, ...table.columns.map(c => h('li', {}, h('code', {}, c.name), ' ', h('span', { class: 'sal-type' }, c.type))))
    );
  }

  private _list: HTMLElement;
}
