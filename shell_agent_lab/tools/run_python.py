"""``run_python``: code the model proposes, run in the notebook's namespace after approval.

The tool is in the execute category and asks for approval by default; the approval prompt
may also answer "insert as a cell" (``ApprovalDecision.action == "insert_cell"``), in which
case nothing runs and the code is handed to the notebook as a new cell for the user to read
and run. Output (stdout, stderr, the value of a trailing expression) is captured and capped.
"""
from __future__ import annotations

import ast
import contextlib
import io
import threading
import traceback
from typing import Any

from ._convert import cap_text, to_text
from .registry import ToolContext, ToolDescriptor, ToolError, ToolResult

__all__ = ["run_python_tool", "execute_code", "MAX_OUTPUT_CHARS"]

MAX_OUTPUT_CHARS = 20_000
_exec_lock = threading.Lock()

_DESCRIPTION = (
    "Run Python code in the user's notebook kernel, with access to its variables (DataFrames "
    "and modules already imported). Use it for transformations SQL cannot express. The user "
    "reviews the code first and may run it or insert it as a new cell instead. Files you write "
    "belong in the session's work directory, given as the variable WORK_DIR."
)


class _Capture(io.TextIOBase):
    """A text sink that keeps at most ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        kept = sum(len(p) for p in self.parts)
        if kept < self.limit:
            self.parts.append(text[: self.limit - kept])
        self.size += len(text)
        return len(text)

    def text(self) -> str:
        out = "".join(self.parts)
        if self.size > self.limit:
            out += f"\n... [output truncated: {self.size} characters in all]"
        return out


def execute_code(code: str, namespace: dict[str, Any], *, limit: int = MAX_OUTPUT_CHARS) -> tuple[str, bool]:
    """Run ``code`` in ``namespace``; return (captured output, ok)."""
    try:
        tree = ast.parse(code, mode="exec")
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg} (line {exc.lineno})", False
    trailing = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        trailing = ast.Expression(tree.body.pop().value)
    out = _Capture(limit)
    ok = True
    with _exec_lock, contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            exec(compile(tree, "<agent-code>", "exec"), namespace)  # noqa: S102 - approved by the user
            if trailing is not None:
                value = eval(compile(trailing, "<agent-code>", "eval"), namespace)  # noqa: S307
                if value is not None:
                    namespace["_"] = value
                    print(to_text(value, limit))
        except BaseException:  # noqa: BLE001 - reported to the model, including SystemExit
            ok = False
            print(traceback.format_exc(limit=-3).rstrip())
    return cap_text(out.text(), limit), ok


def _handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    code = args.get("code")
    if not isinstance(code, str) or not code.strip():
        raise ToolError("'code' must be a non-empty string of Python")
    decision = getattr(ctx, "decision", None)
    if decision is not None and getattr(decision, "action", None) == "insert_cell":
        return ToolResult(
            "The user chose to insert this code as a new notebook cell instead of running it now. "
            "It has not been executed; do not assume its results.",
            data={"insert_cell": code},
        )
    if ctx.namespace is None:
        raise ToolError("there is no notebook namespace to run code in (run_python needs a kernel)")
    if ctx.work_dir is not None:
        ctx.namespace.setdefault("WORK_DIR", str(ctx.work_dir))
    output, ok = execute_code(code, ctx.namespace)
    if not ok:
        raise ToolError(output or "the code raised an exception")
    return ToolResult(output or "(ran without output)", data={"code": [code]})


def run_python_tool() -> ToolDescriptor:
    return ToolDescriptor(
        name="run_python",
        description=_DESCRIPTION,
        parameters={"type": "object", "properties": {
            "code": {"type": "string", "description": "Python source to run in the notebook kernel"}},
            "required": ["code"]},
        handler=_handler,
        category="execute",
        approval_default=True,
        dialog="code",
        source="builtin",
    )
