"""The model seam: typed messages, one backend interface, and the backends.

Importing this package is cheap; SDK-backed classes load on first access::

    from shell_agent_lab.llm import select_backend, OpenAIBackend, ScriptedBackend
"""
from __future__ import annotations

import importlib
from typing import Any

from .errors import (BadResponseError, CancelledError, ConfigurationError, LLMError,
                     RateLimitedError, ToolArgumentsError, UnreachableError)
from .types import (Backend, Capabilities, ChatOptions, Message, Response, RetryInfo, ToolCall,
                    ToolSpec, Usage)

_LAZY = {
    "OpenAIBackend": "openai_backend", "GeminiBackend": "gemini_backend", "LocalBackend": "local",
    "ScriptedBackend": "scripted", "ReplayBackend": "replay", "Profile": "profiles",
    "select_backend": "selection", "RetryPolicy": "retry",
}

__all__ = [
    "Backend", "Capabilities", "ChatOptions", "Message", "Response", "RetryInfo", "ToolCall",
    "ToolSpec", "Usage", "LLMError", "ConfigurationError", "UnreachableError", "RateLimitedError",
    "BadResponseError", "ToolArgumentsError", "CancelledError", *_LAZY,
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
