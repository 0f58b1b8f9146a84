"""Wire types of the side-panel protocol and the agent's events, GENERATED from
``shell_agent_lab/notebook/protocol.json`` by ``labextension/scripts/gen_protocol_types.py``.
Do not edit by hand: edit the schema and regenerate (a test fails when this file is stale).
"""
from __future__ import annotations

import sys
from typing import Any, Literal, TypeAlias, TypedDict

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:  # pragma: no cover
    from typing_extensions import NotRequired

__all__ = [
    'PROTOCOL_VERSION',
    'COMM_TARGET',
    'OP_NAMES',
    'EVENT_NAMES',
    'EVENT_FIELDS',
    'COMMAND_NAMES',
    'AbortArgs',
    'AbortResult',
    'AgentCellMeta',
    'AgentState',
    'ApprovalRequestEvent',
    'ApprovalResolvedEvent',
    'ApproveArgs',
    'ApproveResult',
    'AssistantTextEvent',
    'CellChange',
    'CellChangeRemovedItem',
    'CellChangeReplacedItem',
    'CellsChangedArgs',
    'CellsChangedResult',
    'ChatRecord',
    'Column',
    'CommandMessage',
    'CommandResultEvent',
    'Connection',
    'DataListArgs',
    'DataListResult',
    'DataSharing',
    'DataSharingEvent',
    'DataUpdatedEvent',
    'Deleted',
    'ErrorInfo',
    'EventMessage',
    'ExtractionDoneEvent',
    'ExtractionStartedEvent',
    'Finding',
    'FindingsAddArgs',
    'FindingsAddResult',
    'FindingsDeleteArgs',
    'FindingsDeleteResult',
    'FindingsListArgs',
    'FindingsListResult',
    'FindingsPinArgs',
    'FindingsPinResult',
    'FindingsUpdatedEvent',
    'GlobalMemoryUpdatedEvent',
    'HelloArgs',
    'HelloResult',
    'HistoryArgs',
    'HistoryResult',
    'Id',
    'InsertCellCommand',
    'MemoryDeleteArgs',
    'MemoryDeleteResult',
    'MemoryDemoteArgs',
    'MemoryDemoteResult',
    'MemoryEditArgs',
    'MemoryEditResult',
    'MemoryEntry',
    'MemoryListArgs',
    'MemoryListResult',
    'MemoryPinArgs',
    'MemoryPinResult',
    'ModelWaitEvent',
    'NotebookCellsArgs',
    'NotebookCellsArgsCellsItem',
    'NotebookCellsResult',
    'ObjectsAttachArgs',
    'ObjectsAttachResult',
    'ObjectsAttachResultObject',
    'Profile',
    'ProfileChangedEvent',
    'QuestionBudgetSpentEvent',
    'QueueClearedEvent',
    'QueueDispatchedEvent',
    'QueuedEvent',
    'RecordsUpdatedEvent',
    'RequestMessage',
    'ResponseMessage',
    'ResponseMessage1',
    'ResponseMessage2',
    'RetryBackoffEvent',
    'SendArgs',
    'SendResult',
    'Session',
    'SessionChangedEvent',
    'SessionMemoryUpdatedEvent',
    'SessionRenamedEvent',
    'SessionsDeleteArgs',
    'SessionsDeleteResult',
    'SessionsExportArgs',
    'SessionsExportResult',
    'SessionsImportArgs',
    'SessionsImportResult',
    'SessionsListArgs',
    'SessionsListResult',
    'SessionsRenameArgs',
    'SessionsRenameResult',
    'Settings',
    'SettingsGetArgs',
    'SettingsGetResult',
    'SettingsSetArgs',
    'SettingsSetResult',
    'StateChangedEvent',
    'StreamTokenEvent',
    'SyncCellsCommand',
    'SyncCellsCommandCellsItem',
    'Table',
    'Timestamp',
    'ToolEndEvent',
    'ToolProgressEvent',
    'ToolSetting',
    'ToolStartEvent',
    'TurnFinishedEvent',
    'TurnStartedEvent',
    'UndoCellsArgs',
    'UndoCellsCommand',
    'UndoCellsResult',
]

PROTOCOL_VERSION = 1
COMM_TARGET = 'shell_agent_lab'
OP_NAMES: tuple[str, ...] = ('hello', 'send', 'notebook_cells', 'abort', 'approve', 'history', 'memory_list', 'memory_pin', 'memory_demote', 'memory_edit', 'memory_delete', 'findings_list', 'findings_add', 'findings_pin', 'findings_delete', 'data_list', 'sessions_list', 'sessions_rename', 'sessions_delete', 'sessions_export', 'sessions_import', 'objects_attach', 'settings_get', 'settings_set', 'cells_changed', 'undo_cells')
#: every event of the agent's bus, in the schema's order
EVENT_NAMES: tuple[str, ...] = ('state_changed', 'turn_started', 'stream_token', 'assistant_text', 'turn_finished', 'command_result', 'tool_start', 'tool_progress', 'tool_end', 'retry_backoff', 'model_wait', 'question_budget_spent', 'approval_request', 'approval_resolved', 'queued', 'queue_cleared', 'queue_dispatched', 'extraction_started', 'extraction_done', 'records_updated', 'global_memory_updated', 'session_memory_updated', 'findings_updated', 'data_updated', 'session_changed', 'session_renamed', 'profile_changed', 'data_sharing')
#: event name -> the keys its payload always carries
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    'state_changed': ('state', 'previous'),
    'turn_started': ('turn_id', 'message'),
    'stream_token': ('turn_id', 'text'),
    'assistant_text': ('turn_id', 'text'),
    'turn_finished': ('turn_id', 'phase', 'text', 'error'),
    'command_result': ('request_id', 'phase', 'text', 'error'),
    'tool_start': ('turn_id', 'tool_call_id', 'name', 'arguments'),
    'tool_progress': ('turn_id', 'tool_call_id', 'name', 'detail', 'current', 'total'),
    'tool_end': ('turn_id', 'tool_call_id', 'name', 'status', 'summary'),
    'retry_backoff': ('attempt', 'max_attempts', 'delay', 'error'),
    'model_wait': ('turn_id', 'elapsed', 'budget'),
    'question_budget_spent': ('turn_id', 'budget', 'results'),
    'approval_request': ('request_id', 'tool_name', 'arguments', 'category', 'dialog', 'preview'),
    'approval_resolved': ('request_id', 'approved', 'feedback'),
    'queued': ('message', 'at', 'turn_id'),
    'queue_cleared': (),
    'queue_dispatched': ('message', 'turn_id'),
    'extraction_started': (),
    'extraction_done': ('success', 'error'),
    'records_updated': (),
    'global_memory_updated': (),
    'session_memory_updated': (),
    'findings_updated': (),
    'data_updated': (),
    'session_changed': ('session_id', 'title', 'private'),
    'session_renamed': ('session_id', 'title'),
    'profile_changed': ('profile', 'backend', 'model'),
    'data_sharing': ('level', 'destination', 'text'),
}
COMMAND_NAMES: tuple[str, ...] = ('insert_cell', 'sync_cells', 'undo_cells')


Connection = TypedDict('Connection', {
    'name': 'str',
    'kind': "Literal['postgresql', 'spark']",
    'url': 'str',
    'tables': 'NotRequired[list[str]]',
    'error': 'NotRequired[str]',
})

Id: TypeAlias = 'str | int'

Timestamp: TypeAlias = 'str | None'

RequestMessage = TypedDict('RequestMessage', {
    'v': 'Literal[1]',
    'id': 'str',
    'op': 'str',
    'args': 'dict[str, Any]',
})

ResponseMessage1 = TypedDict('ResponseMessage1', {
    'v': 'Literal[1]',
    'id': 'str',
    'ok': 'Literal[True]',
    'result': 'dict[str, Any]',
})

ResponseMessage2 = TypedDict('ResponseMessage2', {
    'v': 'Literal[1]',
    'id': 'str | None',
    'ok': 'Literal[False]',
    'error': 'ErrorInfo',
})

ResponseMessage: TypeAlias = 'ResponseMessage1 | ResponseMessage2'

ErrorInfo = TypedDict('ErrorInfo', {
    'code': "Literal['bad_request', 'unknown_op', 'version_mismatch', 'not_found', 'private_session', 'busy', 'no_agent', 'unsupported', 'internal']",
    'message': 'str',
})

EventMessage = TypedDict('EventMessage', {
    'v': 'Literal[1]',
    'event': 'str',
    'data': 'dict[str, Any]',
    'session_id': 'str | None',
    'seq': 'int',
})

AgentState: TypeAlias = "Literal['READY', 'BUSY', 'EXTRACTING', 'QUEUED']"

Session = TypedDict('Session', {
    'id': 'str',
    'title': 'str',
    'notebook_path': 'str | None',
    'private': 'bool',
    'profile': 'str | None',
    'key': 'str | None',
    'created_at': 'Timestamp',
    'updated_at': 'Timestamp',
    'current': 'bool',
})

ChatRecord = TypedDict('ChatRecord', {
    'id': 'Id',
    'seq': 'int',
    'role': "Literal['user', 'assistant', 'tool', 'system']",
    'content': 'str',
    'tool_name': 'str | None',
    'tool_call_id': 'str | None',
    'status': 'str | None',
    'created_at': 'Timestamp',
})

MemoryEntry = TypedDict('MemoryEntry', {
    'id': 'Id',
    'scope': "Literal['global', 'session']",
    'fact': 'str',
    'native_fact': 'str',
    'category': 'str',
    'source': 'str',
    'trust': "Literal['user-stated', 'derived']",
    'state': 'str',
    'relevance': 'float',
    'touch_count': 'int',
    'tool_originated': 'bool',
    'created_at': 'Timestamp',
})

Finding = TypedDict('Finding', {
    'id': 'Id',
    'content': 'str',
    'tags': 'list[str]',
    'severity': "Literal['critical', 'high', 'medium', 'low', 'info', None]",
    'source': 'str',
    'tool_originated': 'bool',
    'created_at': 'Timestamp',
})

Column = TypedDict('Column', {
    'name': 'str',
    'type': 'str',
})

Table = TypedDict('Table', {
    'name': 'str',
    'kind': "Literal['table', 'dataframe']",
    'rows': 'int | None',
    'columns': 'list[Column]',
})

ToolSetting = TypedDict('ToolSetting', {
    'name': 'str',
    'category': 'str',
    'default': "Literal['ask', 'allow']",
    'override': "Literal['ask', 'allow', 'deny', None]",
})

Profile = TypedDict('Profile', {
    'name': 'str',
    'backend': 'str',
    'model': 'str | None',
})

Settings = TypedDict('Settings', {
    'profile': 'str | None',
    'model': 'str | None',
    'profiles': 'list[Profile]',
    'tools': 'list[ToolSetting]',
    'auto_extraction': 'bool',
    'data_sharing': 'NotRequired[DataSharing]',
})

Deleted = TypedDict('Deleted', {
    'deleted': 'int',
})

CommandMessage = TypedDict('CommandMessage', {
    'v': 'Literal[1]',
    'command': 'str',
    'args': 'dict[str, Any]',
})

DataSharing = TypedDict('DataSharing', {
    'level': "Literal['rows', 'aggregates', 'schema']",
    'explicit': 'bool',
    'remote': 'bool',
    'destination': 'str',
    'text': 'str',
})

AgentCellMeta = TypedDict('AgentCellMeta', {
    'source_cell': 'str | None',
    'step': 'int',
    'turn': 'str',
    'run': 'NotRequired[bool]',
})

CellChangeReplacedItem = TypedDict('CellChangeReplacedItem', {
    'id': 'str',
    'source': 'str',
    'metadata': 'dict[str, Any]',
    'after_id': 'NotRequired[str | None]',
})

CellChangeRemovedItem = TypedDict('CellChangeRemovedItem', {
    'id': 'str',
    'source': 'str',
    'metadata': 'dict[str, Any]',
    'after_id': 'NotRequired[str | None]',
})

CellChange = TypedDict('CellChange', {
    'turn': 'str',
    'inserted': 'list[str]',
    'replaced': 'list[CellChangeReplacedItem]',
    'removed': 'list[CellChangeRemovedItem]',
})

HelloArgs = TypedDict('HelloArgs', {
    'protocol': 'int',
    'client': 'NotRequired[str]',
    'notebook_path': 'NotRequired[str | None]',
    'session_key': 'NotRequired[str | None]',
})

HelloResult = TypedDict('HelloResult', {
    'protocol': 'int',
    'version': 'str',
    'session': 'Session',
    'state': 'AgentState',
    'ops': 'list[str]',
    'events': 'list[str]',
    'data_sharing': 'NotRequired[DataSharing]',
})

SendArgs = TypedDict('SendArgs', {
    'message': 'str',
})

SendResult = TypedDict('SendResult', {
    'phase': "Literal['started', 'completed', 'queued', 'command', 'error']",
    'text': 'str | None',
    'error': 'str | None',
})

NotebookCellsArgsCellsItem = TypedDict('NotebookCellsArgsCellsItem', {
    'index': 'int',
    'kind': "Literal['code', 'markdown', 'raw']",
    'source': 'str',
    'output': 'NotRequired[str]',
    'error': 'NotRequired[str]',
    'id': 'NotRequired[str | None]',
})

NotebookCellsArgs = TypedDict('NotebookCellsArgs', {
    'cells': 'list[NotebookCellsArgsCellsItem]',
})

NotebookCellsResult = TypedDict('NotebookCellsResult', {
    'cells': 'int',
})

AbortArgs: TypeAlias = 'dict[str, Any]'

AbortResult = TypedDict('AbortResult', {
    'aborted': 'bool',
})

ApproveArgs = TypedDict('ApproveArgs', {
    'request_id': 'str',
    'approved': 'bool',
    'feedback': 'NotRequired[str]',
    'action': "NotRequired[Literal['insert_cell']]",
})

ApproveResult = TypedDict('ApproveResult', {
    'resolved': 'bool',
})

HistoryArgs: TypeAlias = 'dict[str, Any]'

HistoryResult = TypedDict('HistoryResult', {
    'records': 'list[ChatRecord]',
    'state': 'AgentState',
    'pending_approvals': 'list[dict[str, Any]]',
})

MemoryListArgs: TypeAlias = 'dict[str, Any]'

MemoryListResult = TypedDict('MemoryListResult', {
    'global': 'list[MemoryEntry]',
    'session': 'list[MemoryEntry]',
    'suggestions': 'list[MemoryEntry]',
    'private': 'bool',
})

MemoryPinArgs = TypedDict('MemoryPinArgs', {
    'entry_id': 'Id',
    'category': "Literal['preference', 'decision']",
})

MemoryPinResult = TypedDict('MemoryPinResult', {
    'entry': 'MemoryEntry',
})

MemoryDemoteArgs = TypedDict('MemoryDemoteArgs', {
    'entry_id': 'Id',
})

MemoryDemoteResult = TypedDict('MemoryDemoteResult', {
    'entry': 'MemoryEntry',
})

MemoryEditArgs = TypedDict('MemoryEditArgs', {
    'scope': "Literal['global', 'session']",
    'entry_id': 'Id',
    'fact': 'NotRequired[str]',
    'category': 'NotRequired[str]',
})

MemoryEditResult = TypedDict('MemoryEditResult', {
    'entry': 'MemoryEntry',
})

MemoryDeleteArgs = TypedDict('MemoryDeleteArgs', {
    'scope': "Literal['global', 'session']",
    'ids': 'list[Id]',
})

MemoryDeleteResult: TypeAlias = 'Deleted'

FindingsListArgs: TypeAlias = 'dict[str, Any]'

FindingsListResult = TypedDict('FindingsListResult', {
    'findings': 'list[Finding]',
})

FindingsAddArgs = TypedDict('FindingsAddArgs', {
    'content': 'str',
    'tags': 'NotRequired[list[str]]',
})

FindingsAddResult = TypedDict('FindingsAddResult', {
    'finding': 'Finding | None',
    'duplicate': 'bool',
})

FindingsPinArgs = TypedDict('FindingsPinArgs', {
    'finding_id': 'Id',
    'category': "Literal['preference', 'decision']",
})

FindingsPinResult = TypedDict('FindingsPinResult', {
    'entry': 'MemoryEntry',
})

FindingsDeleteArgs = TypedDict('FindingsDeleteArgs', {
    'ids': 'list[Id]',
})

FindingsDeleteResult: TypeAlias = 'Deleted'

DataListArgs: TypeAlias = 'dict[str, Any]'

DataListResult = TypedDict('DataListResult', {
    'tables': 'list[Table]',
    'connections': 'NotRequired[list[Connection]]',
})

SessionsListArgs: TypeAlias = 'dict[str, Any]'

SessionsListResult = TypedDict('SessionsListResult', {
    'sessions': 'list[Session]',
    'current': 'str | None',
})

SessionsRenameArgs = TypedDict('SessionsRenameArgs', {
    'session_id': 'str',
    'title': 'str',
})

SessionsRenameResult = TypedDict('SessionsRenameResult', {
    'session': 'Session',
})

SessionsDeleteArgs = TypedDict('SessionsDeleteArgs', {
    'session_id': 'str',
})

SessionsDeleteResult: TypeAlias = 'Deleted'

SessionsExportArgs = TypedDict('SessionsExportArgs', {
    'session_id': 'str',
})

SessionsExportResult = TypedDict('SessionsExportResult', {
    'filename': 'str',
    'mime_type': 'str',
    'data_base64': 'str',
    'size': 'int',
})

SessionsImportArgs = TypedDict('SessionsImportArgs', {
    'filename': 'str',
    'data_base64': 'str',
})

SessionsImportResult = TypedDict('SessionsImportResult', {
    'session': 'Session',
})

ObjectsAttachArgs = TypedDict('ObjectsAttachArgs', {
    'filename': 'str',
    'data_base64': 'str',
})

ObjectsAttachResultObject = TypedDict('ObjectsAttachResultObject', {
    'id': 'str',
    'type': 'str',
    'mime_type': 'str',
    'name': 'str',
    'size': 'int',
})

ObjectsAttachResult = TypedDict('ObjectsAttachResult', {
    'object': 'ObjectsAttachResultObject',
    'text': 'str',
})

SettingsGetArgs: TypeAlias = 'dict[str, Any]'

SettingsGetResult: TypeAlias = 'Settings'

SettingsSetArgs = TypedDict('SettingsSetArgs', {
    'profile': 'NotRequired[str]',
    'model': 'NotRequired[str]',
    'approvals': "NotRequired[dict[str, Literal['ask', 'allow', 'deny', None]]]",
    'auto_extraction': 'NotRequired[bool]',
    'data_sharing': "NotRequired[Literal['rows', 'aggregates', 'schema', None]]",
})

SettingsSetResult: TypeAlias = 'Settings'

CellsChangedArgs: TypeAlias = 'CellChange'

CellsChangedResult = TypedDict('CellsChangedResult', {
    'kept': 'bool',
})

UndoCellsArgs = TypedDict('UndoCellsArgs', {
    'turn': 'NotRequired[str | None]',
})

UndoCellsResult = TypedDict('UndoCellsResult', {
    'undone': 'bool',
    'text': 'str',
})

StateChangedEvent = TypedDict('StateChangedEvent', {
    'state': 'AgentState',
    'previous': 'AgentState',
})

TurnStartedEvent = TypedDict('TurnStartedEvent', {
    'turn_id': 'str',
    'message': 'str',
})

StreamTokenEvent = TypedDict('StreamTokenEvent', {
    'turn_id': 'str',
    'text': 'str',
})

AssistantTextEvent = TypedDict('AssistantTextEvent', {
    'turn_id': 'str',
    'text': 'str',
})

TurnFinishedEvent = TypedDict('TurnFinishedEvent', {
    'turn_id': 'str',
    'phase': 'str',
    'text': 'str | None',
    'error': 'str | None',
})

CommandResultEvent = TypedDict('CommandResultEvent', {
    'request_id': 'str',
    'phase': "Literal['completed', 'queued', 'command', 'error']",
    'text': 'str | None',
    'error': 'str | None',
})

ToolStartEvent = TypedDict('ToolStartEvent', {
    'turn_id': 'str',
    'tool_call_id': 'str',
    'name': 'str',
    'arguments': 'Any',
})

ToolProgressEvent = TypedDict('ToolProgressEvent', {
    'turn_id': 'str',
    'tool_call_id': 'str',
    'name': 'str',
    'detail': 'str | None',
    'current': 'int | None',
    'total': 'int | None',
})

ToolEndEvent = TypedDict('ToolEndEvent', {
    'turn_id': 'str',
    'tool_call_id': 'str',
    'name': 'str',
    'status': 'str',
    'summary': 'str | None',
})

RetryBackoffEvent = TypedDict('RetryBackoffEvent', {
    'attempt': 'int',
    'max_attempts': 'int',
    'delay': 'float',
    'error': 'str | None',
})

ModelWaitEvent = TypedDict('ModelWaitEvent', {
    'turn_id': 'str',
    'elapsed': 'int',
    'budget': 'float | None',
    'tokens': 'NotRequired[int | None]',
})

QuestionBudgetSpentEvent = TypedDict('QuestionBudgetSpentEvent', {
    'turn_id': 'str',
    'budget': 'float',
    'results': 'int',
    'busy': 'NotRequired[str | None]',
})

ApprovalRequestEvent = TypedDict('ApprovalRequestEvent', {
    'request_id': 'str',
    'tool_name': 'str',
    'arguments': 'Any',
    'category': 'str',
    'dialog': 'str | None',
    'preview': 'str | None',
    'destination': 'NotRequired[str]',
})

ApprovalResolvedEvent = TypedDict('ApprovalResolvedEvent', {
    'request_id': 'str',
    'approved': 'bool',
    'feedback': 'str | None',
    'notice': 'NotRequired[str]',
    'tool_name': 'NotRequired[str]',
})

QueuedEvent = TypedDict('QueuedEvent', {
    'message': 'str',
    'at': 'float',
    'turn_id': 'str',
})

QueueClearedEvent: TypeAlias = 'dict[str, Any]'

QueueDispatchedEvent = TypedDict('QueueDispatchedEvent', {
    'message': 'str',
    'turn_id': 'str',
})

ExtractionStartedEvent: TypeAlias = 'dict[str, Any]'

ExtractionDoneEvent = TypedDict('ExtractionDoneEvent', {
    'success': 'bool',
    'error': 'str | None',
})

RecordsUpdatedEvent: TypeAlias = 'dict[str, Any]'

GlobalMemoryUpdatedEvent: TypeAlias = 'dict[str, Any]'

SessionMemoryUpdatedEvent: TypeAlias = 'dict[str, Any]'

FindingsUpdatedEvent: TypeAlias = 'dict[str, Any]'

DataUpdatedEvent: TypeAlias = 'dict[str, Any]'

SessionChangedEvent = TypedDict('SessionChangedEvent', {
    'session_id': 'str',
    'title': 'str',
    'private': 'bool',
})

SessionRenamedEvent = TypedDict('SessionRenamedEvent', {
    'session_id': 'str',
    'title': 'str',
})

ProfileChangedEvent = TypedDict('ProfileChangedEvent', {
    'profile': 'str | None',
    'backend': 'str | None',
    'model': 'str | None',
})

DataSharingEvent = TypedDict('DataSharingEvent', {
    'level': "Literal['rows', 'aggregates', 'schema']",
    'destination': 'str',
    'backend': 'NotRequired[str]',
    'model': 'NotRequired[str]',
    'text': 'str',
})

InsertCellCommand = TypedDict('InsertCellCommand', {
    'code': 'str',
    'run': 'NotRequired[bool]',
    'after_cell_id': 'NotRequired[str | None]',
    'replace': 'NotRequired[bool]',
    'turn': 'NotRequired[str | None]',
})

SyncCellsCommandCellsItem = TypedDict('SyncCellsCommandCellsItem', {
    'code': 'str',
    'step': 'int',
    'run': 'bool',
    'kind': 'NotRequired[str]',
})

SyncCellsCommand = TypedDict('SyncCellsCommand', {
    'source_cell': 'str | None',
    'turn': 'str',
    'mode': "Literal['replace', 'missing']",
    'mark': 'NotRequired[str]',
    'cells': 'list[SyncCellsCommandCellsItem]',
})

UndoCellsCommand: TypeAlias = 'CellChange'
