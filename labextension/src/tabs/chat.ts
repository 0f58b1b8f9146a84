/** Chat: the session's conversation, streaming replies, tool activity, approvals, queue and Stop. */
import { payload } from '../client';
import { h, setChildren } from '../dom';
import { AgentState, ChatRecord, EventMessage, Events } from '../protocol.generated';
import { Tab, TabHost, guarded } from './base';
import { sqlOf, summarizeResult } from '../toolsummary';

type ApprovalRequest = Events['approval_request'];

/** The kernel refuses larger attachments too (the object store's limit); say so before sending. */
const ATTACH_MAX_BYTES = 50 * 1024 * 1024;
const ATTACH_TIMEOUT_MS = 120_000;

export class ChatTab implements Tab {
  readonly name = 'chat';
  readonly label = 'Chat';
  readonly node: HTMLElement;

  constructor(private readonly host: TabHost) {
    this._log = h('div', { class: 'sal-chat-log', id: 'sal-chat-log', 'aria-live': 'polite' });
    this._approvals = h('div', { class: 'sal-approvals', id: 'sal-approvals' });
    this._activity = h('div', { class: 'sal-queue', id: 'sal-chat-activity', 'data-state': 'idle' });
    this._input = h('textarea', {
      class: 'sal-chat-input',
      id: 'sal-chat-input',
      rows: 3,
      placeholder: 'Ask about your data…',
      title: 'Enter sends, Shift+Enter starts a new line; /help lists the commands'
    });
    this._input.addEventListener('keydown', (ev: KeyboardEvent) => {
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        void this.send();
      }
    });
    this._send = h('button', { class: 'sal-button sal-primary', id: 'sal-chat-send', type: 'button', onclick: () => void this.send() }, 'Send');
    this._stop = h('button', { class: 'sal-button', id: 'sal-chat-stop', type: 'button', disabled: true, onclick: () => void this.stop() }, 'Stop');
    this._fix = h(
      'button',
      { class: 'sal-button', id: 'sal-chat-fix', type: 'button', title: 'Ask for a fix of the last cell that failed; you see it before it changes anything', onclick: () => void this.fix() },
      'Fix error'
    );
    this._fixActions = h(
      'div',
      { class: 'sal-fix-actions', id: 'sal-fix-actions', hidden: true },
      h('button', { class: 'sal-button sal-primary', id: 'sal-fix-accept', type: 'button', title: 'Replace the failing cell with the proposed one', onclick: () => void this.applyFix('accept') }, 'Accept fix'),
      h('button', { class: 'sal-button', id: 'sal-fix-insert', type: 'button', title: 'Put the proposed cell below the failing one', onclick: () => void this.applyFix('insert') }, 'Insert below')
    );
    this._file = h('input', { type: 'file', id: 'sal-chat-attach-file', multiple: true, hidden: true });
    this._file.addEventListener('change', () => void this.attach());
    this._attachButton = h(
      'button',
      { class: 'sal-button', id: 'sal-chat-attach', type: 'button', title: 'Attach a text document or an image (PNG, JPEG, GIF, WebP) to your next message', onclick: () => this._file.click() },
      'Attach file…'
    );
    this._attached = h('div', { class: 'sal-chat-attachments', id: 'sal-chat-attachments', hidden: true });
    this.node = h(
      'div',
      { class: 'sal-tab sal-chat', 'data-tab': 'chat' },
      this._log,
      this._approvals,
      this._activity,
      this._attached,
      this._fixActions,
      h('div', { class: 'sal-chat-compose' }, this._input, h('div', { class: 'sal-chat-buttons' }, this._send, this._stop, this._attachButton, this._fix, this._file))
    );
  }

  clear(): void {
    this._clearAttached();
    setChildren(this._log);
    setChildren(this._approvals);
    this._turns.clear();
    this._tools.clear();
    this._awaiting.clear();
    this._setState('READY');
  }

  async refresh(): Promise<void> {
    const history = await this.host.request('history', {});
    setChildren(this._log, ...history.records.map(r => this._recordNode(r)));
    this._turns.clear();
    this._tools.clear();
    setChildren(this._approvals);
    for (const raw of history.pending_approvals) {
      this._showApproval(raw as unknown as ApprovalRequest);
    }
    this._setState(history.state);
    this._scroll();
  }

  async send(): Promise<void> {
    const message = this._input.value.trim();
    if (!message) {
      return;
    }
    this._input.value = '';
    // a send that outlasts the kernel's quick wait (e.g. /fix) answers `started`; its outcome then
    // comes as a `command_result` event naming this request
    const id = `send-${Date.now().toString(36)}-${(this._sendCounter++).toString(36)}`;
    this._awaiting.add(id);
    await guarded(this.host, async () => {
      try {
        const result = await this.host.request('send', { message }, undefined, id);
        if (result.phase !== 'started') {
          this._awaiting.delete(id);
        }
        if (result.phase !== 'error' && result.phase !== 'command') {
          this._clearAttached(); // the message carried them
        }
        this._showSendResult(result.phase, result.text, result.error, message);
      } catch (err) {
        this._awaiting.delete(id);
        throw err;
      }
    });
  }

  /** What a `send` answered, in its response or later as `command_result`. */
  private _showSendResult(phase: string, text: string | null, error: string | null, message?: string): void {
    if (phase === 'queued') {
      this._activity.dataset.state = 'queued';
      this._activity.textContent = message ? `Queued: “${message}” runs after memory extraction finishes.` : 'Queued: your message runs after memory extraction finishes.';
    } else if (phase === 'command' && text) {
      this._log.append(h('div', { class: 'sal-msg sal-msg-command', 'data-role': 'command' }, h('pre', {}, text)));
      this._scroll();
    } else if (phase === 'error') {
      this.host.notify(error || 'The message was refused.', 'error');
    }
  }

  /** /fix: the assistant proposes a corrected cell (its answer shows here); then accept or insert it. */
  async fix(): Promise<void> {
    this._input.value = '/fix';
    await this.send();
    this._fixActions.hidden = false;
  }

  async applyFix(action: 'accept' | 'insert'): Promise<void> {
    this._input.value = `/fix ${action}`;
    await this.send();
    this._fixActions.hidden = true;
  }

  /** Send the picked files' bytes to the kernel; they go with the next message. */
  async attach(): Promise<void> {
    const files = Array.from(this._file.files ?? []);
    this._file.value = '';
    for (const file of files) {
      if (file.size > ATTACH_MAX_BYTES) {
        this.host.notify(`${file.name} is larger than 50 MB; attach a smaller file.`, 'error');
        continue;
      }
      await guarded(this.host, async () => {
        const buffer = new Uint8Array(await file.arrayBuffer());
        let binary = '';
        for (let i = 0; i < buffer.length; i += 0x8000) {
          binary += String.fromCharCode(...buffer.subarray(i, i + 0x8000));
        }
        const result = await this.host.request('objects_attach', { filename: file.name, data_base64: btoa(binary) }, ATTACH_TIMEOUT_MS);
        const o = result.object;
        this._attached.append(
          h('span', { class: 'sal-chip', 'data-object-id': o.id, 'data-type': o.type, title: `${o.mime_type}, ${o.size.toLocaleString()} bytes` }, `${o.type === 'image' ? '🖼' : '📄'} ${o.name}`)
        );
        this._attached.hidden = false;
        this.host.notify(result.text);
      });
    }
  }

  private _clearAttached(): void {
    setChildren(this._attached);
    this._attached.hidden = true;
  }

  async stop(): Promise<void> {
    await guarded(this.host, async () => {
      await this.host.request('abort', {});
    });
  }

  onEvent(ev: EventMessage): void {
    switch (ev.event) {
      case 'state_changed':
        this._setState(payload(ev, 'state_changed').state);
        break;
      case 'turn_started': {
        const d = payload(ev, 'turn_started');
        this._log.append(this._bubble('user', d.message));
        this._turnNode(d.turn_id);
        break;
      }
      case 'stream_token': {
        const d = payload(ev, 'stream_token');
        const turn = this._turnNode(d.turn_id);
        turn.text.textContent = (turn.text.textContent ?? '') + d.text;
        turn.node.dataset.streaming = 'true';
        break;
      }
      case 'assistant_text': {
        const d = payload(ev, 'assistant_text');
        this._turnNode(d.turn_id).text.textContent = d.text;
        break;
      }
      case 'turn_finished': {
        const d = payload(ev, 'turn_finished');
        const turn = this._turnNode(d.turn_id);
        delete turn.node.dataset.streaming;
        turn.node.dataset.phase = d.phase;
        if (d.text) {
          turn.text.textContent = d.text;
        }
        if (d.error) {
          turn.node.append(h('div', { class: 'sal-msg-error', 'data-role': 'error' }, d.error));
        }
        this._turns.delete(d.turn_id);
        break;
      }
      case 'command_result': {
        const d = payload(ev, 'command_result');
        if (this._awaiting.delete(d.request_id)) {
          this._showSendResult(d.phase, d.text, d.error);
        }
        break;
      }
      case 'tool_start': {
        const d = payload(ev, 'tool_start');
        this._toolNode(d.turn_id, d.tool_call_id, d.name, d.arguments);
        break;
      }
      case 'tool_progress': {
        const d = payload(ev, 'tool_progress');
        const tool = this._toolNode(d.turn_id, d.tool_call_id, d.name, undefined);
        const counts = d.total ? ` ${d.current ?? 0}/${d.total}` : '';
        tool.detail.textContent = `${d.detail ?? ''}${counts}`;
        if (d.total) {
          tool.progress.max = d.total;
          tool.progress.value = d.current ?? 0;
          tool.progress.hidden = false;
        }
        break;
      }
      case 'tool_end': {
        const d = payload(ev, 'tool_end');
        const tool = this._toolNode(d.turn_id, d.tool_call_id, d.name, undefined);
        tool.node.dataset.status = d.status;
        tool.progress.hidden = true;
        tool.detail.textContent = d.summary ? d.summary : d.status;
        break;
      }
      case 'retry_backoff': {
        const d = payload(ev, 'retry_backoff');
        this._activity.dataset.state = 'retry';
        this._activity.textContent = `Model busy or unreachable; retry ${d.attempt}/${d.max_attempts} in ${Math.round(d.delay)} s…`;
        break;
      }
      case 'model_wait': {
        const d = payload(ev, 'model_wait');
        if (this._state === 'BUSY') {
          this._activity.dataset.state = 'busy';
          const tokens = typeof d.tokens === 'number' ? `, ${d.tokens} token${d.tokens === 1 ? '' : 's'} so far` : '';
          this._activity.textContent = `Still working (${d.elapsed} s${tokens})…`;
        }
        break;
      }
      case 'approval_request':
        this._showApproval(payload(ev, 'approval_request'));
        break;
      case 'approval_resolved': {
        const id = payload(ev, 'approval_resolved').request_id;
        this._approvals.querySelector(`[data-request-id="${CSS.escape(id)}"]`)?.remove();
        break;
      }
      case 'queued':
        this._activity.dataset.state = 'queued';
        this._activity.textContent = `Queued: “${payload(ev, 'queued').message}” runs after memory extraction finishes.`;
        break;
      case 'queue_cleared':
      case 'queue_dispatched':
        this._setState(this._state);
        break;
      case 'extraction_started':
        this._activity.dataset.state = 'extracting';
        this._activity.textContent = 'Updating memory from the last turn…';
        break;
      case 'extraction_done':
        this._setState(this._state === 'EXTRACTING' ? 'READY' : this._state);
        break;
      case 'session_changed':
        void guarded(this.host, () => this.refresh());
        break;
      default:
        break;
    }
    this._scroll();
  }

  private _setState(state: AgentState): void {
    this._state = state;
    const busy = state === 'BUSY';
    this.node.dataset.agentState = state;
    this._stop.disabled = state === 'READY';
    this._send.textContent = busy || state === 'EXTRACTING' ? 'Queue' : 'Send';
    if (state === 'QUEUED') {
      this._activity.dataset.state = 'queued';
      if (!this._activity.textContent?.startsWith('Queued')) {
        this._activity.textContent = 'Queued: your message runs after memory extraction finishes.';
      }
    } else if (state === 'EXTRACTING') {
      this._activity.dataset.state = 'extracting';
      this._activity.textContent = 'Updating memory from the last turn…';
    } else if (busy) {
      this._activity.dataset.state = 'busy';
      this._activity.textContent = 'Working…';
    } else {
      this._activity.dataset.state = 'idle';
      this._activity.textContent = '';
    }
  }

  private _recordNode(record: ChatRecord): HTMLElement {
    if (record.role === 'tool') {
      const node = h(
        'div',
        { class: 'sal-tool', 'data-role': 'tool', 'data-status': record.status ?? 'done' },
        h('span', { class: 'sal-tool-name' }, `⚙ ${record.tool_name ?? 'tool'}`),
        h('span', { class: 'sal-tool-detail' }, summarizeResult(record.content, 120))
      );
      return node;
    }
    return this._bubble(record.role, record.content);
  }

  private _bubble(role: string, text: string): HTMLElement {
    return h('div', { class: `sal-msg sal-msg-${role}`, 'data-role': role }, h('div', { class: 'sal-msg-text' }, text));
  }

  private _turnNode(turnId: string): { node: HTMLElement; text: HTMLElement } {
    let turn = this._turns.get(turnId);
    if (!turn) {
      const text = h('div', { class: 'sal-msg-text' });
      const node = h('div', { class: 'sal-msg sal-msg-assistant', 'data-role': 'assistant', 'data-turn-id': turnId }, text);
      this._log.append(node);
      turn = { node, text };
      this._turns.set(turnId, turn);
    }
    return turn;
  }

  private _toolNode(
    turnId: string,
    callId: string,
    name: string,
    args: unknown
  ): { node: HTMLElement; detail: HTMLElement; progress: HTMLProgressElement } {
    let tool = this._tools.get(callId);
    if (!tool) {
      const detail = h('span', { class: 'sal-tool-detail' }, 'running…');
      const progress = h('progress', { class: 'sal-tool-progress' });
      progress.hidden = true;
      const node = h(
        'div',
        { class: 'sal-tool', 'data-role': 'tool', 'data-tool-call-id': callId, 'data-status': 'running' },
        h('span', { class: 'sal-tool-name' }, `⚙ ${name}`),
        detail,
        progress
      );
      if (args !== undefined && this.host.prefs().showToolArguments) {
        node.title = JSON.stringify(args, null, 2);
      }
      const sql = sqlOf(args);
      if (sql) {
        node.append(h('details', { class: 'sal-tool-sql' }, h('summary', {}, 'SQL'), h('pre', {}, sql)));
      }
      const turn = this._turns.get(turnId);
      if (turn) {
        turn.node.before(node);
      } else {
        this._log.append(node);
      }
      tool = { node, detail, progress };
      this._tools.set(callId, tool);
    }
    return tool;
  }

  private _showApproval(req: ApprovalRequest): void {
    const id = String(req.request_id);
    if (this._approvals.querySelector(`[data-request-id="${CSS.escape(id)}"]`)) {
      return;
    }
    const feedback = h('input', { class: 'sal-approval-feedback', type: 'text', placeholder: 'Feedback for the model (optional)' });
    const answer = (approved: boolean, insertOnly = false) =>
      guarded(this.host, async () => {
        await this.host.request('approve', { request_id: id, approved, feedback: feedback.value, ...(insertOnly ? { action: 'insert_cell' as const } : {}) });
        card.remove();
      });
    const preview = req.preview ?? JSON.stringify(req.arguments, null, 2);
    const card = h(
      'div',
      { class: 'sal-approval', 'data-request-id': id, 'data-tool': req.tool_name },
      h('div', { class: 'sal-approval-title' }, `Allow ${req.tool_name}?`, h('span', { class: 'sal-badge' }, req.category)),
      req.dialog ? h('div', { class: 'sal-approval-dialog' }, req.dialog) : null,
      req.destination ? h('div', { class: 'sal-approval-destination' }, `Its result rows go to the model at ${req.destination}, off this machine.`) : null,
      h('pre', { class: 'sal-approval-preview' }, preview),
      feedback,
      h(
        'div',
        { class: 'sal-row' },
        h('button', { class: 'sal-button sal-primary sal-approve', type: 'button', onclick: () => void answer(true) }, 'Approve'),
        req.dialog === 'code'
          ? h('button', { class: 'sal-button sal-insert-only', type: 'button', title: 'Do not run it now; put it in a new cell below', onclick: () => void answer(true, true) }, 'Insert only')
          : null,
        h('button', { class: 'sal-button sal-reject', type: 'button', onclick: () => void answer(false) }, 'Reject')
      )
    );
    this._approvals.append(card);
  }

  private _scroll(): void {
    this._log.scrollTop = this._log.scrollHeight;
  }

  private _log: HTMLElement;
  private _approvals: HTMLElement;
  private _activity: HTMLElement;
  private _input: HTMLTextAreaElement;
  private _send: HTMLButtonElement;
  private _stop: HTMLButtonElement;
  private _file: HTMLInputElement;
  private _attachButton: HTMLButtonElement;
  private _fix: HTMLButtonElement;
  private _fixActions: HTMLElement;
  private _attached: HTMLElement;
  private _state: AgentState = 'READY';
  private _sendCounter = 0;
  private _awaiting = new Set<string>(); // ids of sends answered `started` whose command_result may follow
  private _turns = new Map<string, { node: HTMLElement; text: HTMLElement }>();
  private _tools = new Map<string, { node: HTMLElement; detail: HTMLElement; progress: HTMLProgressElement }>();
}


