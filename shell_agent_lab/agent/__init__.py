"""The kernel-side agent: state machine, tool loop and slash commands (see docs/contracts.md)."""
from ._types import AgentState, Reply, SendResult, ToolActivity
from .agent import Agent, AgentBusyError
from .commands import CommandResult, register_command
from .factory import build_agent

__all__ = ["Agent", "AgentBusyError", "AgentState", "Reply", "SendResult", "ToolActivity",
           "CommandResult", "register_command", "build_agent"]
