"""Tools the model may call: one registry of descriptors, the approval gate, the builtins."""
from .approval import PENDING, ApprovalDecision, ApprovalGate, ApprovalRequest, rejection_text
from .builtin import builtin_tools
from .registry import ToolContext, ToolDescriptor, ToolError, ToolRegistry, ToolResult, canonical_tool_name

__all__ = [
    "ToolContext", "ToolDescriptor", "ToolError", "ToolRegistry", "ToolResult", "canonical_tool_name",
    "ApprovalGate", "ApprovalRequest", "ApprovalDecision", "PENDING", "rejection_text", "builtin_tools",
]
