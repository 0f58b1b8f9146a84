/**
 * The panel's end of the `shell_agent_lab` comm: typed requests with ids, one response each,
 * and pushed events. Wire types come from protocol.generated.ts (generated from the schema).
 */
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { Signal, ISignal } from '@lumino/signaling';
import {
  COMMAND_NAMES,
  COMM_TARGET,
  CommandMessage,
  EVENT_NAMES,
  EventMessage,
  ErrorInfo,
  Events,
  EventName,
  OpName,
  Ops,
  PROTOCOL_VERSION,
  ResponseMessage
} from './protocol.generated';

/** The request message for `op`, exactly as sent on the wire. */
export interface TypedRequest<K extends OpName> {
  v: typeof PROTOCOL_VERSION;
  id: string;
  op: K;
  args: Ops[K]['args'];
}

/** Build one request message (pure; checked against the schema by the protocol-agreement test). */
export function buildRequest<K extends OpName>(id: string, op: K, args: Ops[K]['args']): TypedRequest<K> {
  return { v: PROTOCOL_VERSION, id, op, args };
}

/** A pushed event narrowed to its name. */
export interface TypedEvent<E extends EventName> {
  event: E;
  data: Events[E];
  session_id: string | null;
  seq: number;
}

/** The payload of `ev`, typed by its name (the caller has checked `ev.event === name`). */
export function payload<E extends EventName>(ev: EventMessage, name: E): Events[E] {
  if (ev.event !== name) {
    throw new Error(`expected a '${name}' event, got '${ev.event}'`);
  }
  return ev.data as unknown as Events[E];
}

/** Why the comm could not be used. */
export type FailureKind = 'extension-missing' | 'backend-unreachable' | 'closed';

/** An error answer from the kernel, or a local failure (timeout, closed comm). */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorInfo['code'] | 'timeout' | 'closed',
    message: string
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

interface Pending {
  resolve: (value: any) => void;
  reject: (reason: ProtocolError) => void;
  timer: number;
}

/** One comm to one kernel. */
export class ProtocolClient {
  constructor(
    private readonly kernel: Kernel.IKernelConnection,
    private readonly timeoutMs: () => number
  ) {}

  /** Events pushed by the kernel (the agent's event bus). */
  get event(): ISignal<this, EventMessage> {
    return this._event;
  }

  /** Commands the kernel asks the panel to run on the notebook (no reply is sent). */
  get command(): ISignal<this, CommandMessage> {
    return this._command;
  }

  /** Emitted once when the comm closes; the argument says why. */
  get closed(): ISignal<this, FailureKind> {
    return this._closed;
  }

  get isOpen(): boolean {
    return this._comm !== null && !this._isClosed;
  }

  /**
   * Open the comm. Resolves when the kernel accepted it; rejects with `extension-missing` when the
   * kernel closed it (no `shell_agent_lab` target registered).
   */
  async open(): Promise<void> {
    const comm = this.kernel.createComm(COMM_TARGET);
    this._comm = comm;
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => this._onMessage(msg.content.data as any);
    comm.onClose = () => this._onClose(this._helloDone ? 'closed' : 'extension-missing');
    // JupyterLab 4.6 + ipykernel 7 route comm traffic through a per-target subshell that starts
    // asynchronously: wait for it so every message (and reply) uses the same thread.
    const started = (comm as any).subshellStarted as Promise<unknown> | undefined;
    const k = this.kernel as any;
    if (started && k.supportsSubshells && k.commsOverSubshells !== 'disabled') {
      await Promise.race([started, new Promise(resolve => window.setTimeout(resolve, 3000))]);
    }
    await comm.open({ client: 'shell-agent-lab panel', protocol: PROTOCOL_VERSION }).done;
  }

  /**
   * Send `op` and wait for its response (rejects with ProtocolError). `id` names the request when
   * the caller needs it (a late `command_result` event carries the id of its `send`).
   */
  request<K extends OpName>(op: K, args: Ops[K]['args'], timeoutMs?: number, id?: string): Promise<Ops[K]['result']> {
    if (!this._comm || this._isClosed) {
      return Promise.reject(new ProtocolError('closed', 'The connection to the kernel is closed.'));
    }
    id = id ?? `${Date.now().toString(36)}-${(this._counter++).toString(36)}`;
    const message = buildRequest(id, op, args);
    return new Promise<Ops[K]['result']>((resolve, reject) => {
      const timer = window.setTimeout(() => {
        this._pending.delete(id);
        reject(new ProtocolError('timeout', `The kernel did not answer '${op}' in time.`));
      }, timeoutMs ?? this.timeoutMs());
      this._pending.set(id, { resolve, reject, timer });
      try {
        this._comm!.send(message as any);
      } catch (err) {
        window.clearTimeout(timer);
        this._pending.delete(id);
        reject(new ProtocolError('closed', `Could not send '${op}': ${err}`));
      }
    });
  }

  /** Mark the handshake as done (a later close is then a plain close, not a missing extension). */
  markReady(): void {
    this._helloDone = true;
  }

  dispose(): void {
    if (this._comm && !this._isClosed && !this.kernel.isDisposed) {
      try {
        this._comm.close();
      } catch {
        /* the kernel may already be gone */
      }
    }
    this._failAll(new ProtocolError('closed', 'The panel disconnected.'));
    this._isClosed = true;
    Signal.clearData(this);
  }

  private _onMessage(data: any): void {
    if (!data || data.v !== PROTOCOL_VERSION) {
      console.warn('shell-agent-lab: ignoring a message of another protocol version', data);
      return;
    }
    if (typeof data.command === 'string') {
      if ((COMMAND_NAMES as ReadonlyArray<string>).includes(data.command)) {
        this._command.emit(data as CommandMessage);
      }
      return;
    }
    if (typeof data.event === 'string') {
      if ((EVENT_NAMES as ReadonlyArray<string>).includes(data.event)) {
        this._event.emit(data as EventMessage);
      }
      return;
    }
    const response = data as ResponseMessage;
    const pending = response.id ? this._pending.get(response.id) : undefined;
    if (!pending) {
      if (!response.ok) {
        console.warn('shell-agent-lab: kernel error without request', response.error);
      }
      return;
    }
    this._pending.delete(response.id as string);
    window.clearTimeout(pending.timer);
    if (response.ok) {
      pending.resolve(response.result);
    } else {
      pending.reject(new ProtocolError(response.error.code, response.error.message));
    }
  }

  private _onClose(kind: FailureKind): void {
    if (this._isClosed) {
      return;
    }
    this._isClosed = true;
    this._failAll(
      new ProtocolError(
        'closed',
        kind === 'extension-missing'
          ? 'shell_agent_lab is not loaded in this kernel.'
          : 'The kernel closed the connection.'
      )
    );
    this._closed.emit(kind);
  }

  private _failAll(error: ProtocolError): void {
    for (const pending of this._pending.values()) {
      window.clearTimeout(pending.timer);
      pending.reject(error);
    }
    this._pending.clear();
  }

  private _comm: Kernel.IComm | null = null;
  private _isClosed = false;
  private _helloDone = false;
  private _counter = 0;
  private _pending = new Map<string, Pending>();
  private _event = new Signal<this, EventMessage>(this);
  private _closed = new Signal<this, FailureKind>(this);
  private _command = new Signal<this, CommandMessage>(this);
}
