// GENERATED from shell_agent_lab/notebook/protocol.json by
// labextension/scripts/gen_protocol_types.py. Do not edit by hand: edit the schema and regenerate.
/* eslint-disable */

export const PROTOCOL_VERSION = 1;
export const COMM_TARGET = "shell_agent_lab";

export type Connection = {
  name: string;
  kind: "postgresql" | "spark";
  url: string;
  tables?: Array<string>;
  error?: string;
};

export type Id = string | number;

export type Timestamp = string | null;

export type RequestMessage = {
  v: 1;
  id: string;
  op: string;
  args: { [key: string]: unknown };
};

export type ResponseMessage = {
  v: 1;
  id: string;
  ok: true;
  result: { [key: string]: unknown };
} | {
  v: 1;
  id: string | null;
  ok: false;
  error: ErrorInfo;
};

export type ErrorInfo = {
  code: "bad_request" | "unknown_op" | "version_mismatch" | "not_found" | "private_session" | "busy" | "no_agent" | "unsupported" | "internal";
  message: string;
};

export type EventMessage = {
  v: 1;
  event: string;
  data: { [key: string]: unknown };
  session_id: string | null;
  seq: number;
};

export type AgentState = "READY" | "BUSY" | "EXTRACTING" | "QUEUED";

export type Session = {
  id: string;
  title: string;
  notebook_path: string | null;
  private: boolean;
  profile: string | null;
  key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  current: boolean;
};

export type ChatRecord = {
  id: Id;
  seq: number;
  role: "user" | "assistant" | "tool" | "system";
  content: string;
  tool_name: string | null;
  tool_call_id: string | null;
  status: string | null;
  created_at: Timestamp;
};

export type MemoryEntry = {
  id: Id;
  scope: "global" | "session";
  fact: string;
  native_fact: string;
  category: string;
  source: string;
  trust: "user-stated" | "derived";
  state: string;
  relevance: number;
  touch_count: number;
  tool_originated: boolean;
  created_at: Timestamp;
};

export type Finding = {
  id: Id;
  content: string;
  tags: Array<string>;
  severity: "critical" | "high" | "medium" | "low" | "info" | null;
  source: string;
  tool_originated: boolean;
  created_at: Timestamp;
};

export type Column = {
  name: string;
  type: string;
};

export type Table = {
  name: string;
  kind: "table" | "dataframe";
  rows: number | null;
  columns: Array<Column>;
};

export type ToolSetting = {
  name: string;
  category: string;
  default: "ask" | "allow";
  override: "ask" | "allow" | "deny" | null;
};

export type Profile = {
  name: string;
  backend: string;
  model: string | null;
};

export type Settings = {
  profile: string | null;
  model: string | null;
  profiles: Array<Profile>;
  tools: Array<ToolSetting>;
  auto_extraction: boolean;
  data_sharing?: DataSharing;
};

export type Deleted = {
  deleted: number;
};

export type CommandMessage = {
  v: 1;
  command: string;
  args: { [key: string]: unknown };
};

export type DataSharing = {
  level: "rows" | "aggregates" | "schema";
  explicit: boolean;
  remote: boolean;
  destination: string;
  text: string;
};

export type AgentCellMeta = {
  source_cell: string | null;
  step: number;
  turn: string;
  run?: boolean;
  [key: string]: unknown;
};

export type CellChange = {
  turn: string;
  inserted: Array<string>;
  replaced: Array<{
    id: string;
    source: string;
    metadata: { [key: string]: unknown };
    after_id?: string | null;
  }>;
  removed: Array<{
    id: string;
    source: string;
    metadata: { [key: string]: unknown };
    after_id?: string | null;
  }>;
};

/** Handshake: checks the protocol version and binds the panel to the notebook's session. */
export type HelloArgs = {
  protocol: number;
  client?: string;
  notebook_path?: string | null;
  session_key?: string | null;
};
export type HelloResult = {
  protocol: number;
  version: string;
  session: Session;
  state: AgentState;
  ops: Array<string>;
  events: Array<string>;
  data_sharing?: DataSharing;
};

/** Send one chat message (or a slash command) to the notebook's agent; the reply streams as events. */
export type SendArgs = {
  message: string;
};
export type SendResult = {
  phase: "started" | "completed" | "queued" | "command" | "error";
  text: string | null;
  error: string | null;
};

/** The panel's notebook as the assistant's read_notebook tool sees it: each cell's source, text output and error (sent after edits and runs, truncated by the panel). */
export type NotebookCellsArgs = {
  cells: Array<{
    index: number;
    kind: "code" | "markdown" | "raw";
    source: string;
    output?: string;
    error?: string;
    id?: string | null;
  }>;
};
export type NotebookCellsResult = {
  cells: number;
};

/** Stop the running turn and clear the queue. */
export type AbortArgs = { [key: string]: never };
export type AbortResult = {
  aborted: boolean;
};

/** Answer a pending approval request. */
export type ApproveArgs = {
  request_id: string;
  approved: boolean;
  feedback?: string;
  action?: "insert_cell";
};
export type ApproveResult = {
  resolved: boolean;
};

/** The session's conversation (Records, oldest first) and the agent's state. */
export type HistoryArgs = { [key: string]: never };
export type HistoryResult = {
  records: Array<ChatRecord>;
  state: AgentState;
  pending_approvals: Array<{ [key: string]: unknown }>;
};

/** Global Memory, this session's Memory and the suggestions waiting for a Pin. */
export type MemoryListArgs = { [key: string]: never };
export type MemoryListResult = {
  global: Array<MemoryEntry>;
  session: Array<MemoryEntry>;
  suggestions: Array<MemoryEntry>;
  private: boolean;
};

/** Pin a Session Memory entry into Global Memory. */
export type MemoryPinArgs = {
  entry_id: Id;
  category: "preference" | "decision";
};
export type MemoryPinResult = {
  entry: MemoryEntry;
};

/** Move a Global Memory entry into this session's Memory. */
export type MemoryDemoteArgs = {
  entry_id: Id;
};
export type MemoryDemoteResult = {
  entry: MemoryEntry;
};

/** Edit the text or category of one entry. */
export type MemoryEditArgs = {
  scope: "global" | "session";
  entry_id: Id;
  fact?: string;
  category?: string;
};
export type MemoryEditResult = {
  entry: MemoryEntry;
};

/** Delete entries (bulk). */
export type MemoryDeleteArgs = {
  scope: "global" | "session";
  ids: Array<Id>;
};
export type MemoryDeleteResult = Deleted;

/** This session's Findings, newest first. */
export type FindingsListArgs = { [key: string]: never };
export type FindingsListResult = {
  findings: Array<Finding>;
};

/** Record a Finding by hand. */
export type FindingsAddArgs = {
  content: string;
  tags?: Array<string>;
};
export type FindingsAddResult = {
  finding: Finding | null;
  duplicate: boolean;
};

/** Pin a Finding into Global Memory. */
export type FindingsPinArgs = {
  finding_id: Id;
  category: "preference" | "decision";
};
export type FindingsPinResult = {
  entry: MemoryEntry;
};

/** Delete Findings (bulk). */
export type FindingsDeleteArgs = {
  ids: Array<Id>;
};
export type FindingsDeleteResult = Deleted;

/** Loaded tables and live DataFrames of the session, and its read-only connections (their tables are among the tables, named connection.table). */
export type DataListArgs = { [key: string]: never };
export type DataListResult = {
  tables: Array<Table>;
  connections?: Array<Connection>;
};

/** All sessions on disk, newest first. */
export type SessionsListArgs = { [key: string]: never };
export type SessionsListResult = {
  sessions: Array<Session>;
  current: string | null;
};

/** Rename a session. */
export type SessionsRenameArgs = {
  session_id: string;
  title: string;
};
export type SessionsRenameResult = {
  session: Session;
};

/** Delete a session and everything it owns (not the current one). */
export type SessionsDeleteArgs = {
  session_id: string;
};
export type SessionsDeleteResult = Deleted;

/** Export a session as a bundle (base64 bytes). */
export type SessionsExportArgs = {
  session_id: string;
};
export type SessionsExportResult = {
  filename: string;
  mime_type: string;
  data_base64: string;
  size: number;
};

/** Import a bundle exported before; returns the new session. */
export type SessionsImportArgs = {
  filename: string;
  data_base64: string;
};
export type SessionsImportResult = {
  session: Session;
};

/** Attach a file the user picked (a UTF-8 text document, or a PNG, JPEG, GIF or WebP image) to this session; the next message carries it. */
export type ObjectsAttachArgs = {
  filename: string;
  data_base64: string;
};
export type ObjectsAttachResult = {
  object: {
    id: string;
    type: string;
    mime_type: string;
    name: string;
    size: number;
  };
  text: string;
};

/** The session's profile, model, per-tool approvals and auto-extraction. */
export type SettingsGetArgs = { [key: string]: never };
export type SettingsGetResult = Settings;

/** Change the session's profile or model, approval overrides, auto-extraction or data sharing (null: the default). */
export type SettingsSetArgs = {
  profile?: string;
  model?: string;
  approvals?: { [key: string]: "ask" | "allow" | "deny" | null };
  auto_extraction?: boolean;
  data_sharing?: "rows" | "aggregates" | "schema" | null;
};
export type SettingsSetResult = Settings;

/** The panel tells the kernel what it changed in the notebook for a command that named a `turn` (sync_cells, insert_cell with `turn`). The kernel keeps the last change per notebook (a later change of the same turn adds to it) for Undo cells. */
export type CellsChangedArgs = CellChange;
export type CellsChangedResult = {
  kept: boolean;
};

/** Undo cells: revert the assistant's last change to the notebook (the `undo_cells` command goes to the panel, then the change is forgotten). With `turn`, only when the last change is that one. */
export type UndoCellsArgs = {
  turn?: string | null;
};
export type UndoCellsResult = {
  undone: boolean;
  text: string;
};

/** Request arguments and response result of every op. */
export interface Ops {
  hello: { args: HelloArgs; result: HelloResult };
  send: { args: SendArgs; result: SendResult };
  notebook_cells: { args: NotebookCellsArgs; result: NotebookCellsResult };
  abort: { args: AbortArgs; result: AbortResult };
  approve: { args: ApproveArgs; result: ApproveResult };
  history: { args: HistoryArgs; result: HistoryResult };
  memory_list: { args: MemoryListArgs; result: MemoryListResult };
  memory_pin: { args: MemoryPinArgs; result: MemoryPinResult };
  memory_demote: { args: MemoryDemoteArgs; result: MemoryDemoteResult };
  memory_edit: { args: MemoryEditArgs; result: MemoryEditResult };
  memory_delete: { args: MemoryDeleteArgs; result: MemoryDeleteResult };
  findings_list: { args: FindingsListArgs; result: FindingsListResult };
  findings_add: { args: FindingsAddArgs; result: FindingsAddResult };
  findings_pin: { args: FindingsPinArgs; result: FindingsPinResult };
  findings_delete: { args: FindingsDeleteArgs; result: FindingsDeleteResult };
  data_list: { args: DataListArgs; result: DataListResult };
  sessions_list: { args: SessionsListArgs; result: SessionsListResult };
  sessions_rename: { args: SessionsRenameArgs; result: SessionsRenameResult };
  sessions_delete: { args: SessionsDeleteArgs; result: SessionsDeleteResult };
  sessions_export: { args: SessionsExportArgs; result: SessionsExportResult };
  sessions_import: { args: SessionsImportArgs; result: SessionsImportResult };
  objects_attach: { args: ObjectsAttachArgs; result: ObjectsAttachResult };
  settings_get: { args: SettingsGetArgs; result: SettingsGetResult };
  settings_set: { args: SettingsSetArgs; result: SettingsSetResult };
  cells_changed: { args: CellsChangedArgs; result: CellsChangedResult };
  undo_cells: { args: UndoCellsArgs; result: UndoCellsResult };
}
export type OpName = keyof Ops;
export const OP_NAMES: ReadonlyArray<OpName> = ["hello", "send", "notebook_cells", "abort", "approve", "history", "memory_list", "memory_pin", "memory_demote", "memory_edit", "memory_delete", "findings_list", "findings_add", "findings_pin", "findings_delete", "data_list", "sessions_list", "sessions_rename", "sessions_delete", "sessions_export", "sessions_import", "objects_attach", "settings_get", "settings_set", "cells_changed", "undo_cells"];

/** Payload (`data`) of every pushed event. */
export interface Events {
  state_changed: {
    state: AgentState;
    previous: AgentState;
    [key: string]: unknown;
  };
  turn_started: {
    turn_id: string;
    message: string;
    [key: string]: unknown;
  };
  stream_token: {
    turn_id: string;
    text: string;
    [key: string]: unknown;
  };
  assistant_text: {
    turn_id: string;
    text: string;
    [key: string]: unknown;
  };
  turn_finished: {
    turn_id: string;
    phase: string;
    text: string | null;
    error: string | null;
    [key: string]: unknown;
  };
  command_result: {
    request_id: string;
    phase: "completed" | "queued" | "command" | "error";
    text: string | null;
    error: string | null;
  };
  tool_start: {
    turn_id: string;
    tool_call_id: string;
    name: string;
    arguments: unknown;
    [key: string]: unknown;
  };
  tool_progress: {
    turn_id: string;
    tool_call_id: string;
    name: string;
    detail: string | null;
    current: number | null;
    total: number | null;
    [key: string]: unknown;
  };
  tool_end: {
    turn_id: string;
    tool_call_id: string;
    name: string;
    status: string;
    summary: string | null;
    [key: string]: unknown;
  };
  retry_backoff: {
    attempt: number;
    max_attempts: number;
    delay: number;
    error: string | null;
    [key: string]: unknown;
  };
  model_wait: {
    turn_id: string;
    elapsed: number;
    budget: number | null;
    tokens?: number | null;
    [key: string]: unknown;
  };
  question_budget_spent: {
    turn_id: string;
    budget: number;
    results: number;
    busy?: string | null;
    [key: string]: unknown;
  };
  approval_request: {
    request_id: string;
    tool_name: string;
    arguments: unknown;
    category: string;
    dialog: string | null;
    preview: string | null;
    destination?: string;
    [key: string]: unknown;
  };
  approval_resolved: {
    request_id: string;
    approved: boolean;
    feedback: string | null;
    notice?: string;
    tool_name?: string;
    [key: string]: unknown;
  };
  queued: {
    message: string;
    at: number;
    turn_id: string;
    [key: string]: unknown;
  };
  queue_cleared: { [key: string]: unknown };
  queue_dispatched: {
    message: string;
    turn_id: string;
    [key: string]: unknown;
  };
  extraction_started: { [key: string]: unknown };
  extraction_done: {
    success: boolean;
    error: string | null;
    [key: string]: unknown;
  };
  records_updated: { [key: string]: unknown };
  global_memory_updated: { [key: string]: unknown };
  session_memory_updated: { [key: string]: unknown };
  findings_updated: { [key: string]: unknown };
  data_updated: { [key: string]: unknown };
  session_changed: {
    session_id: string;
    title: string;
    private: boolean;
    [key: string]: unknown;
  };
  session_renamed: {
    session_id: string;
    title: string;
    [key: string]: unknown;
  };
  profile_changed: {
    profile: string | null;
    backend: string | null;
    model: string | null;
    [key: string]: unknown;
  };
  data_sharing: {
    level: "rows" | "aggregates" | "schema";
    destination: string;
    backend?: string;
    model?: string;
    text: string;
    [key: string]: unknown;
  };
}
export type EventName = keyof Events;
export const EVENT_NAMES: ReadonlyArray<EventName> = ["state_changed", "turn_started", "stream_token", "assistant_text", "turn_finished", "command_result", "tool_start", "tool_progress", "tool_end", "retry_backoff", "model_wait", "question_budget_spent", "approval_request", "approval_resolved", "queued", "queue_cleared", "queue_dispatched", "extraction_started", "extraction_done", "records_updated", "global_memory_updated", "session_memory_updated", "findings_updated", "data_updated", "session_changed", "session_renamed", "profile_changed", "data_sharing"];

/** Arguments of every command the kernel may ask the panel to run. */
export interface Commands {
  insert_cell: {
    code: string;
    run?: boolean;
    after_cell_id?: string | null;
    replace?: boolean;
    turn?: string | null;
  };
  sync_cells: {
    source_cell: string | null;
    turn: string;
    mode: "replace" | "missing";
    mark?: string;
    cells: Array<{
      code: string;
      step: number;
      run: boolean;
      kind?: string;
    }>;
  };
  undo_cells: CellChange;
}
export type CommandName = keyof Commands;
export const COMMAND_NAMES: ReadonlyArray<CommandName> = ["insert_cell", "sync_cells", "undo_cells"];
