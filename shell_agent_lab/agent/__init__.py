"""The kernel-side agent: state machine, tool loop and slash commands (see docs/contracts.md)."""
from ._types import AgentState, Reply, SendResult, ToolActivity
from .agent import Agent, AgentBusyError
from .commands import CommandResult, register_command
from . import connection_commands as _connection_commands  # noqa: F401  (registers /connect, /disconnect)
from .factory import build_agent

__all__ = ["Agent", "AgentBusyError", "AgentState", "Reply", "SendResult", "ToolActivity",
           "CommandResult", "register_command", "build_agent"]
