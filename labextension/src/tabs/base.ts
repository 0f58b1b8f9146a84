/** What every tab gets from the panel: typed requests, events and a place to report errors. */
import { DataSharing, EventMessage, OpName, Ops } from '../protocol.generated';

export interface PanelPrefs {
  showToolArguments: boolean;
}

export interface TabHost {
  /** `id` names the request (else the client makes one up). */
  request<K extends OpName>(op: K, args: Ops[K]['args'], timeoutMs?: number, id?: string): Promise<Ops[K]['result']>;
  /** Show a one-line message (kind 'error' stays until the next action). */
  notify(message: string, kind?: 'info' | 'error'): void;
  prefs(): PanelPrefs;
  /** Show where the session's requests go and at which data-sharing level (the status line). */
  showDataSharing?(status: DataSharing | undefined): void;
}

export interface Tab {
  readonly name: string;
  readonly label: string;
  readonly node: HTMLElement;
  /** Reload everything from the kernel. */
  refresh(): Promise<void>;
  /** React to a pushed event (refresh what it invalidates). */
  onEvent(event: EventMessage): void;
  /** Forget the previous notebook's content. */
  clear(): void;
}

/** Turn a failed request into a message for the status line. */
export function describeError(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}

/** Run `fn`, reporting failures through `host.notify`. */
export async function guarded(host: TabHost, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    host.notify(describeError(err), 'error');
  }
}
