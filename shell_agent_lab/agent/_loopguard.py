"""Loop detection: three errors in a row from the same tool earn one corrective note."""
from __future__ import annotations

import re
from collections import deque

__all__ = ["LoopDetector", "EMPTY_REPLY_NOTE", "FAKE_RESULT_NOTE", "imitates_tool_result"]

EMPTY_REPLY_NOTE = ("Note: your previous reply was empty. Tell the user in one or two sentences what "
                    "the tool calls found.")
FAKE_RESULT_NOTE = ("Note: your previous reply made up a tool result instead of calling a tool. To get "
                    "data, call a tool such as query_sql; to act, call the tool the user asked for.")
_FAKE_RESULT = re.compile(r"^\s*<tool_response>", re.IGNORECASE)


def imitates_tool_result(text: str) -> bool:
    """A reply that opens with a ``<tool_response>`` block: a small model writing the result of a
    call it never made (invented numbers), instead of making the call."""
    return bool(_FAKE_RESULT.match(text))


class LoopDetector:
    """Keeps the last three (tool, status) outcomes of one user turn."""

    def __init__(self, window: int = 3) -> None:
        self._window = window
        self._trace: deque[tuple[str, str]] = deque(maxlen=window)

    def record(self, tool: str, status: str) -> str | None:
        """Add one outcome; returns the note to send once when the tool keeps failing."""
        self._trace.append((tool, status))
        if len(self._trace) < self._window:
            return None
        names = {name for name, _ in self._trace}
        if len(names) == 1 and all(s == "error" for _, s in self._trace):
            self._trace.clear()   # one-shot per stretch of failures
            return (f"Note: `{tool}` has returned an error {self._window} times in a row. Do not retry it "
                    "with small variations. Take a clearly different approach: inspect the inputs or the "
                    "data first, try another tool, or ask the user for clarification.")
        return None
