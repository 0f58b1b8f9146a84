/**
 * The side panel: follows the active notebook and its kernel, shows a clear connection state,
 * and hosts the tabs once the kernel-side agent answered the handshake.
 */
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';
import { ProtocolClient, ProtocolError, payload } from './client';
import { h, setChildren } from './dom';
import { AgentState, CommandMessage, Commands, DataSharing, EventMessage, HelloResult, OpName, Ops, PROTOCOL_VERSION } from './protocol.generated';
import { Applied, applyInsertCell, applySyncCells, applyUndo, watchNotebook } from './cells';
import { ChatTab } from './tabs/chat';
import { DataTab } from './tabs/data';
import { FindingsTab } from './tabs/findings';
import { MemoryTab } from './tabs/memory';
import { SessionsTab } from './tabs/sessions';
import { SettingsTab } from './tabs/settings';
import { PanelPrefs, Tab, TabHost, describeError } from './tabs/base';

/** Connection states, exposed as `data-state` on the panel and on `#sal-status`. */
export type PanelState =
  | 'no-notebook'
  | 'kernel-starting'
  | 'kernel-dead'
  | 'connecting'
  | 'extension-missing'
  | 'backend-unreachable'
  | 'ready';

export interface Preferences extends PanelPrefs {
  autoLoadExtension: boolean;
  defaultTab: string;
  requestTimeoutSeconds: number;
}

export const DEFAULT_PREFERENCES: Preferences = {
  autoLoadExtension: false,
  defaultTab: 'chat',
  showToolArguments: true,
  requestTimeoutSeconds: 30
};

/** Metadata key in the notebook that keeps the session's stable key across renames. */
export const METADATA_KEY = 'shell_agent_lab';
export const LOAD_EXTENSION_CODE = '%load_ext shell_agent_lab';
const SUBSHELL_SETTLE_MS = 500;
const NO_NOTEBOOK = 'Open a notebook: the panel works with the active notebook’s kernel.';
const STARTING = new Set<Kernel.Status>(['starting', 'restarting', 'autorestarting', 'unknown']);

/** Resolve once the kernel left its starting states (or after two minutes). */
function settled(kernel: Kernel.IKernelConnection): Promise<void> {
  return new Promise(resolve => {
    const done = () => {
      kernel.statusChanged.disconnect(check);
      window.clearTimeout(timer);
      resolve();
    };
    const check = () => {
      if (!STARTING.has(kernel.status)) {
        done();
      }
    };
    const timer = window.setTimeout(done, 120_000);
    kernel.statusChanged.connect(check);
    check();
  });
}
/** The kernel's title for a session nobody has named yet */
const DEFAULT_SESSION_TITLE = 'New Session';

const UNREACHABLE = /unreachable|could not reach|connection|refused|did not answer|timed? ?out|name resolution/i;

export class SidePanel extends Widget implements TabHost {
  constructor(private readonly tracker: INotebookTracker) {
    super();
    this.id = 'shell-agent-lab-panel';
    this.title.label = 'Assistant';
    this.title.caption = 'shell-agent-lab: chat, memory, findings and data of the active notebook';
    this.addClass('sal-panel');
    this.node.dataset.state = 'no-notebook';

    this._tabs = [
      new ChatTab(this),
      new MemoryTab(this),
      new FindingsTab(this),
      new DataTab(this),
      new SessionsTab(this),
      new SettingsTab(this)
    ];
    this._statusNode = h('div', { class: 'sal-status', id: 'sal-status', 'data-state': 'no-notebook', role: 'status' });
    this._sessionNode = h('span', { class: 'sal-session-name', id: 'sal-session-title' });
    this._agentBadge = h('span', { class: 'sal-badge sal-agent-state', id: 'sal-agent-state', 'data-agent-state': '' });
    this._kernelBadge = h('span', { class: 'sal-badge sal-kernel', id: 'sal-kernel-status', 'data-kernel': '' });
    this._sharingBadge = h('span', { class: 'sal-badge sal-data-sharing', id: 'sal-data-sharing', 'data-level': '', 'data-remote': '' });
    this._sharingBadge.hidden = true;
    this._notice = h('div', { class: 'sal-notice', id: 'sal-notice', 'data-kind': '' });
    this._backendNode = h('div', { class: 'sal-backend', id: 'sal-backend-status', 'data-state': 'ok', role: 'alert' });
    this._undoButton = h(
      'button',
      {
        class: 'sal-button sal-undo-cells',
        id: 'sal-undo-cells',
        type: 'button',
        hidden: true,
        title: 'Undo the assistant’s last change to the notebook: remove the cells it inserted, restore the cells it replaced',
        onclick: () => void this.undoCells()
      },
      'Undo cells'
    );
    this._nav = h('nav', { class: 'sal-nav', role: 'tablist' });
    this._body = h('div', { class: 'sal-body', id: 'sal-body' });
    for (const tab of this._tabs) {
      this._nav.append(
        h('button', { class: 'sal-tab-button', type: 'button', role: 'tab', 'data-tab-button': tab.name, id: `sal-tab-${tab.name}`, onclick: () => this.showTab(tab.name) }, tab.label)
      );
      tab.node.hidden = true;
      this._body.append(tab.node);
    }
    this.node.append(
      h('header', { class: 'sal-header' }, this._sessionNode, this._agentBadge, this._kernelBadge, this._sharingBadge),
      this._statusNode,
      this._backendNode,
      this._nav,
      this._body,
      h('div', { class: 'sal-cell-actions', id: 'sal-cell-actions' }, this._undoButton),
      this._notice
    );
    this.showTab(DEFAULT_PREFERENCES.defaultTab);

    this._setState('no-notebook', NO_NOTEBOOK);
    tracker.currentChanged.connect(() => this._follow(), this);
    this._follow();
  }

  /** Current connection state (also in `data-state`). */
  get state(): PanelState {
    return this._state;
  }

  setPreferences(prefs: Preferences): void {
    const firstLoad = !this._prefsLoaded;
    this._prefs = prefs;
    this._prefsLoaded = true;
    if (firstLoad) {
      this.showTab(prefs.defaultTab);
    }
  }

  prefs(): PanelPrefs {
    return this._prefs;
  }

  showTab(name: string): void {
    const tab = this._tabs.find(t => t.name === name) ?? this._tabs[0];
    this._active = tab;
    for (const t of this._tabs) {
      t.node.hidden = t !== tab;
    }
    for (const button of Array.from(this._nav.children) as HTMLElement[]) {
      button.setAttribute('aria-selected', button.dataset.tabButton === tab.name ? 'true' : 'false');
    }
    this.node.dataset.tab = tab.name;
  }

  request<K extends OpName>(op: K, args: Ops[K]['args'], timeoutMs?: number, id?: string): Promise<Ops[K]['result']> {
    if (!this._client || this._state !== 'ready') {
      return Promise.reject(new ProtocolError('closed', 'Not connected to the notebook kernel.'));
    }
    return this._client.request(op, args, timeoutMs, id);
  }

  notify(message: string, kind: 'info' | 'error' = 'info'): void {
    this._notice.textContent = message;
    this._notice.dataset.kind = kind;
    window.clearTimeout(this._noticeTimer);
    if (kind === 'info') {
      this._noticeTimer = window.setTimeout(() => {
        this._notice.textContent = '';
        this._notice.dataset.kind = '';
      }, 6000);
    }
  }

  /** Undo cells: the kernel sends back the assistant's last change to the notebook, reverted here. */
  async undoCells(): Promise<void> {
    try {
      const result = await this.request('undo_cells', {});
      if (!result.undone) {
        this.notify(result.text);
      }
    } catch (err) {
      this.notify(describeError(err), 'error');
    }
  }

  /** Load the IPython extension into the active kernel, then connect. */
  async loadExtension(): Promise<void> {
    const kernel = this._panel?.sessionContext.session?.kernel;
    if (!kernel) {
      return;
    }
    this._setState('connecting', 'Loading shell_agent_lab into the kernel…');
    try {
      await kernel.requestExecute({ code: LOAD_EXTENSION_CODE, silent: true, store_history: false }).done;
    } catch (err) {
      this._setState('extension-missing', `Loading failed: ${describeError(err)}`);
      return;
    }
    await this.reconnect();
  }

  /** Drop the current comm and run the handshake again. */
  async reconnect(): Promise<void> {
    await this._connect();
  }

  dispose(): void {
    this._client?.dispose();
    this._client = null;
    super.dispose();
  }

  // ---- following the active notebook -------------------------------------------------------

  private _follow(): void {
    const panel = this.tracker.currentWidget;
    if (panel === this._panel) {
      return;
    }
    if (this._panel) {
      this._panel.sessionContext.statusChanged.disconnect(this._onKernelStatus, this);
      this._panel.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
      this._panel.sessionContext.iopubMessage.disconnect(this._onIopub, this);
    }
    this._panel = panel;
    this._autoLoaded.clear();
    if (panel) {
      panel.sessionContext.statusChanged.connect(this._onKernelStatus, this);
      panel.sessionContext.kernelChanged.connect(this._onKernelChanged, this);
      panel.sessionContext.iopubMessage.connect(this._onIopub, this);
    }
    void this._connect();
  }

  private _onKernelChanged(): void {
    void this._connect();
  }

  private _onKernelStatus(_: unknown, status: Kernel.Status): void {
    this._kernelBadge.dataset.kernel = status;
    this._kernelBadge.textContent = `kernel ${status}`;
    this.node.dataset.kernel = status;
    if (status === 'dead') {
      this._dropClient();
      this._setState('kernel-dead', 'The kernel died. Restart it from the Kernel menu; the panel reconnects on its own.');
    } else if (status === 'starting' || status === 'restarting' || status === 'autorestarting') {
      this._dropClient();
      this._setState('kernel-starting', 'The kernel is starting…');
    } else if (status === 'idle' && !this._connecting) {
      if (this._state === 'kernel-starting' || this._state === 'kernel-dead') {
        void this._connect();
      }
    }
  }

  /** A cell finished (the idle whose parent is an execute request, never the panel's own comm
   * messages): it may have run `%load_ext shell_agent_lab`, so a panel that found no extension
   * looks again, and a look under way is followed by another once it ends. A cell can finish
   * at any point of a look (comm messages are answered while a cell executes), so no look is
   * taken as the last one; the panel's looks are comm messages and start no new one. */
  private _onIopub(_: unknown, msg: KernelMessage.IMessage): void {
    if (msg.header.msg_type !== 'status') {
      return;
    }
    const state = (msg.content as KernelMessage.IStatusMsg['content']).execution_state;
    const parent = (msg.parent_header as Partial<KernelMessage.IHeader> | undefined)?.msg_type;
    if (state !== 'idle' || parent !== 'execute_request') {
      return;
    }
    if (this._connecting) {
      this._lookAgain = true;
    } else if (this._state === 'extension-missing') {
      void this._connect(true);
    }
  }

  private _dropClient(): void {
    this._generation++;
    if (this._client) {
      this._client.dispose();
      this._lastClose = Date.now();
    }
    this._client = null;
  }

  private async _connect(quiet = false): Promise<void> {
    this._connecting = true;
    try {
      do {
        this._lookAgain = false;
        await this._connectOnce(quiet);
        quiet = true;
        // a cell that finished during the look may have loaded the extension: look once more
      } while (this._lookAgain && this._state === 'extension-missing');
    } finally {
      this._connecting = false;
    }
  }

  private async _connectOnce(quiet: boolean): Promise<void> {
    this._dropClient();
    const generation = this._generation;
    // JupyterLab releases a comm target's subshell asynchronously after a close: let that
    // finish so the new comm does not inherit a subshell the kernel is deleting
    const wait = this._lastClose + SUBSHELL_SETTLE_MS - Date.now();
    if (wait > 0) {
      await new Promise(resolve => window.setTimeout(resolve, wait));
    }
    const stale = () => generation !== this._generation;
    const panel = this._panel;
    if (!panel) {
      this._sessionNode.textContent = '';
      this._setState('no-notebook', NO_NOTEBOOK);
      return;
    }
    this._sessionNode.textContent = panel.context.path;
    if (!quiet) {
      this._setState('kernel-starting', 'Waiting for the kernel…');
    }
    try {
      await panel.sessionContext.ready;
    } catch {
      /* handled below: no kernel */
    }
    if (stale()) {
      return;
    }
    const kernel = panel.sessionContext.session?.kernel;
    if (!kernel) {
      this._setState('kernel-starting', 'This notebook has no kernel yet. Select one (Kernel → Change Kernel).');
      return;
    }
    this._kernelBadge.textContent = `kernel ${kernel.status}`;
    this._kernelBadge.dataset.kernel = kernel.status;
    this.node.dataset.kernel = kernel.status;
    if (kernel.status === 'dead') {
      this._setState('kernel-dead', 'The kernel died. Restart it from the Kernel menu; the panel reconnects on its own.');
      return;
    }
    if (STARTING.has(kernel.status)) {
      this._setState('kernel-starting', 'The kernel is starting…');
      await settled(kernel);
      if (stale()) {
        return;
      }
      const now = kernel.status as Kernel.Status;
      if (now === 'dead') {
        this._setState('kernel-dead', 'The kernel died. Restart it from the Kernel menu; the panel reconnects on its own.');
        return;
      }
      if (STARTING.has(now)) {
        this._setState('kernel-starting', 'The kernel is still starting…');
        return;
      }
    }
    if (!quiet) {
      this._setState('connecting', 'Connecting to the kernel…');
    }
    const client = new ProtocolClient(kernel, () => this._prefs.requestTimeoutSeconds * 1000);
    this._client = client;
    let hello: HelloResult;
    try {
      await client.open();
      if (stale()) {
        return;
      }
      hello = await client.request(
        'hello',
        { protocol: PROTOCOL_VERSION, client: 'jupyterlab', notebook_path: panel.context.path, session_key: this._sessionKey(panel) }
      );
    } catch (err) {
      if (stale()) {
        return;
      }
      this._failed(err, kernel);
      return;
    }
    if (stale()) {
      return;
    }
    client.markReady();
    client.event.connect((_, ev) => this._onEvent(ev), this);
    client.command.connect((_, cmd) => this._onCommand(panel, cmd), this);
    this._stopWatching?.();
    this._stopWatching = watchNotebook(panel, cells => {
      if (!stale()) {
        client.request('notebook_cells', { cells }).catch(() => undefined); // the kernel's history serves meanwhile
      }
    });
    client.closed.connect(() => {
      if (!stale()) {
        this._client = null;
        this._lastClose = Date.now();
        this._setState('backend-unreachable', 'The kernel closed the connection. Press Retry, or restart the kernel.');
      }
    }, this);
    this._setSession(hello.session.title, hello.session.private);
    this._setAgentState(hello.state);
    this.showDataSharing(hello.data_sharing);
    this._setState('ready', '');
    await this._refreshAll();
  }

  private _failed(err: unknown, kernel: Kernel.IKernelConnection): void {
    this._client?.dispose();
    this._client = null;
    this._lastClose = Date.now();
    const code = err instanceof ProtocolError ? err.code : 'internal';
    if (code === 'closed') {
      this._setState('extension-missing', 'shell_agent_lab is not loaded in this kernel.');
      const key = kernel.id;
      if (this._prefs.autoLoadExtension && !this._autoLoaded.has(key)) {
        this._autoLoaded.add(key);
        void this.loadExtension();
      }
    } else if (code === 'timeout') {
      this._setState(
        'backend-unreachable',
        'The kernel accepted the connection but shell_agent_lab did not answer. If a cell is stuck, interrupt it; otherwise restart the kernel and run %load_ext shell_agent_lab.'
      );
    } else if (code === 'version_mismatch') {
      this._setState('backend-unreachable', `${describeError(err)} Install the same shell-agent-lab version in the kernel and the server, then reload the page.`);
    } else {
      this._setState('backend-unreachable', `The assistant could not start in this kernel: ${describeError(err)} Fix the configuration (see the cell output of %load_ext shell_agent_lab), then press Retry.`);
    }
  }

  private _sessionKey(panel: NotebookPanel): string | null {
    const model = panel.content.model;
    if (!model) {
      return null;
    }
    const meta = (model.getMetadata(METADATA_KEY) ?? {}) as { session_key?: string };
    if (typeof meta.session_key === 'string' && meta.session_key) {
      return meta.session_key;
    }
    const key = crypto.randomUUID().replace(/-/g, '');
    model.setMetadata(METADATA_KEY, { ...meta, session_key: key });
    return key;
  }

  private async _refreshAll(): Promise<void> {
    await Promise.all(
      this._tabs.map(async tab => {
        try {
          await tab.refresh();
        } catch (err) {
          if (!(err instanceof ProtocolError && err.code === 'unsupported')) {
            this.notify(`${tab.label}: ${describeError(err)}`, 'error');
          }
        }
      })
    );
  }

  private _onEvent(ev: EventMessage): void {
    if (ev.event === 'state_changed') {
      this._setAgentState(payload(ev, 'state_changed').state);
    } else if (ev.event === 'session_changed') {
      const d = payload(ev, 'session_changed');
      this._setSession(d.title, d.private);
    } else if (ev.event === 'data_sharing') {
      // said once per session, before the first request leaves the machine
      const d = payload(ev, 'data_sharing');
      this._setDataSharing(d.level, d.text, true);
      this.notify(d.text);
    } else if (ev.event === 'session_renamed') {
      const d = payload(ev, 'session_renamed');
      if (d.session_id === ev.session_id) {
        this._setSession(d.title, this.node.dataset.private === 'true');
      }
    }
    this._trackBackend(ev);
    for (const tab of this._tabs) {
      tab.onEvent(ev);
    }
  }

  /** The model endpoint's health, from retries and turn results: say how to fix it. */
  private _trackBackend(ev: EventMessage): void {
    let error: string;
    if (ev.event === 'retry_backoff') {
      error = payload(ev, 'retry_backoff').error ?? '';
    } else if (ev.event === 'turn_finished') {
      error = payload(ev, 'turn_finished').error ?? '';
    } else {
      return;
    }
    if (error && UNREACHABLE.test(error)) {
      this._backendNode.dataset.state = 'unreachable';
      setChildren(
        this._backendNode,
        h('strong', {}, 'The model endpoint is unreachable. '),
        h('span', { class: 'sal-backend-error' }, error),
        h('div', {}, 'Start the model server (or check the network and API key), or pick another profile in the Settings tab or with %agent /profile. Stop cancels the waiting turn.')
      );
    } else if (ev.event === 'turn_finished' && !error) {
      this._backendNode.dataset.state = 'ok';
      setChildren(this._backendNode);
    }
  }

  /** The kernel asks for something done to this panel's notebook. */
  private _onCommand(panel: NotebookPanel, cmd: CommandMessage): void {
    if (panel.isDisposed || !panel.content.model) {
      return;
    }
    let applied: Applied;
    if (cmd.command === 'insert_cell') {
      applied = applyInsertCell(panel, cmd.args as unknown as Commands['insert_cell']);
    } else if (cmd.command === 'sync_cells') {
      applied = applySyncCells(panel, cmd.args as unknown as Commands['sync_cells']);
    } else if (cmd.command === 'undo_cells') {
      applied = { text: applyUndo(panel, cmd.args as unknown as Commands['undo_cells']), change: null };
    } else {
      return;
    }
    this.notify(applied.text);
    if (applied.change && this._client) {
      // the kernel keeps the last change for Undo cells
      this._client.request('cells_changed', applied.change).catch(err => this.notify(`Undo cells will not know this change: ${describeError(err)}`, 'error'));
    }
  }

  private _setSession(title: string, isPrivate: boolean): void {
    // until the session has a title of its own (never, with titles off), the notebook's name
    const name = this._panel?.context.path.split('/').pop()?.replace(/\.ipynb$/, '');
    const shown = title === DEFAULT_SESSION_TITLE && name ? name : title;
    this._sessionNode.textContent = `${isPrivate ? '🔒 ' : ''}${shown}`;
    this.node.dataset.private = String(isPrivate);
  }

  /** The status line's data-sharing badge: the level, where requests go in its tooltip. */
  showDataSharing(status: DataSharing | undefined): void {
    if (!status) {
      this._sharingBadge.hidden = true;
      return;
    }
    this._setDataSharing(status.level, status.text, status.remote);
  }

  private _setDataSharing(level: string, text: string, remote: boolean): void {
    this._sharingBadge.hidden = false;
    this._sharingBadge.textContent = remote ? `${level} → remote` : `${level} · local`;
    this._sharingBadge.title = text;
    this._sharingBadge.dataset.level = level;
    this._sharingBadge.dataset.remote = String(remote);
  }

  private _setAgentState(state: AgentState): void {
    this._agentBadge.textContent = state.toLowerCase();
    this._agentBadge.dataset.agentState = state;
  }

  private _setState(state: PanelState, message: string): void {
    this._state = state;
    this.node.dataset.state = state;
    this._statusNode.dataset.state = state;
    const actions: HTMLElement[] = [];
    if (state === 'extension-missing') {
      actions.push(h('button', { class: 'sal-button sal-primary', type: 'button', id: 'sal-load-ext', onclick: () => void this.loadExtension() }, 'Load shell_agent_lab in this kernel'));
      message += ' Press the button, or run %load_ext shell_agent_lab in a cell.';
    }
    if (state === 'backend-unreachable' || state === 'extension-missing') {
      actions.push(h('button', { class: 'sal-button', type: 'button', id: 'sal-retry', onclick: () => void this.reconnect() }, 'Retry'));
    }
    setChildren(this._statusNode, message ? h('span', { class: 'sal-status-text' }, message) : null, ...actions);
    const ready = state === 'ready';
    if (!ready) {
      this._backendNode.dataset.state = 'ok';
      setChildren(this._backendNode);
    }
    this._nav.hidden = !ready;
    this._body.hidden = !ready;
    this._undoButton.hidden = !ready;
    if (!ready && state !== 'connecting') {
      for (const tab of this._tabs) {
        tab.clear();
      }
    }
    this._active.node.hidden = !ready;
  }

  private _tabs: Tab[];
  private _active!: Tab;
  private _panel: NotebookPanel | null = null;
  private _client: ProtocolClient | null = null;
  private _stopWatching: (() => void) | null = null;
  private _generation = 0;
  private _connecting = false;
  private _lookAgain = false;
  private _lastClose = 0;
  private _state: PanelState = 'no-notebook';
  private _prefs: Preferences = { ...DEFAULT_PREFERENCES };
  private _prefsLoaded = false;
  private _autoLoaded = new Set<string>();
  private _noticeTimer = 0;
  private _statusNode: HTMLElement;
  private _sessionNode: HTMLElement;
  private _agentBadge: HTMLElement;
  private _kernelBadge: HTMLElement;
  private _sharingBadge: HTMLElement;
  private _notice: HTMLElement;
  private _backendNode: HTMLElement;
  private _nav: HTMLElement;
  private _body: HTMLElement;
  private _undoButton: HTMLElement;
}
