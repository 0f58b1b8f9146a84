"""One constrained request for the operation that answers a question, then the operation run.

The model is asked through an ``ask`` callable (``ToolContext.ask``:
``ask(system, user, *, response_format=None, temperature=None) -> str``), with the operation
schema as the response format, so a server that holds output to a schema returns a valid
operation over real columns. A reply that still does not fit (a server without constrained
output) is sent back with what is wrong, up to ``attempts`` requests in all.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..prompt_schema import schema_text
from ._tables import TableColumns, tables_of
from .compile import OperationError, compile_operation
from .prompt import Problem, operation_prompt, parse_operation
from .run import OperationResult, run_compiled
from .schema import operation_schema

__all__ = ["ask_operation", "SYSTEM"]

#: the system message of the request
SYSTEM = ("You turn a question about data into exactly one analysis operation, written as one JSON "
          "object. Use only the tables and columns listed.")


def ask_operation(ask: Callable[..., str], engine: Any, question: str, *,
                  tables: Sequence[TableColumns] | None = None, attempts: int = 2,
                  cancel: threading.Event | None = None) -> OperationResult:
    """The operation the model picks for ``question`` over the engine's tables, run; raises
    :class:`OperationError` when no attempt gives an operation that compiles (the last problem
    is the message). The result's ``args`` are the operation (a rerun cell passes them again)."""
    listed = list(tables) if tables is not None else tables_of(engine)
    schema = operation_schema(listed)
    user = operation_prompt(question, schema_text(engine))
    problem = ""
    for _ in range(max(1, attempts)):
        text = ask(SYSTEM, user + (f"\n(Your last reply was refused: {problem}. Send a corrected operation.)"
                                   if problem else ""), response_format=schema, temperature=0.0)
        args = parse_operation(text, schema)
        if isinstance(args, Problem):
            problem = args.message
            continue
        try:
            compiled = compile_operation(args, listed)
        except OperationError as exc:
            problem = str(exc)
            continue
        return run_compiled(engine, compiled, cancel=cancel)
    raise OperationError(f"the model gave no usable operation: {problem}")
