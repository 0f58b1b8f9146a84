"""Typed analysis operations: a model fills one operation's arguments under a JSON schema built
from the actual tables, code compiles it to DuckDB SQL (or a SciPy call on rows SQL reads), runs
it, and the notebook gets the cell that computes the same number.

* :func:`operation_schema` — the schema (columns as enums of real names) for a response format.
* :func:`compile_operation` — arguments to a :class:`Compiled` (SQL, definitions, the cell).
* :func:`run_operation` / :func:`run_compiled` — run on the session engine, an :class:`OperationResult`.
* :func:`operation_prompt` / :func:`parse_operation` — the pure parts of asking a model for one;
  :func:`ask_operation` — one constrained request through an ``ask`` callable, then the run.
* :func:`operation_tools` — the ``operation`` tool descriptor.
"""
from __future__ import annotations

from .ask import ask_operation
from ._tables import ColumnInfo, TableColumns, tables_of
from .compile import Compiled, OperationError, compile_operation
from .prompt import Problem, operation_prompt, parse_operation
from .run import OperationResult, format_value, run_compiled, run_operation
from .schema import operation_schema, schema_problems
from .tool import operation_tools

__all__ = ["ColumnInfo", "TableColumns", "tables_of", "Compiled", "OperationError", "compile_operation",
           "operation_schema", "schema_problems", "OperationResult", "run_operation", "run_compiled",
           "format_value", "operation_prompt", "parse_operation", "Problem", "operation_tools", "ask_operation"]
