"""``operation``: one typed analysis operation as a tool the agent can offer.

The descriptor's parameters are the operation's shape with free-text names (tool parameters are
fixed when the tool is registered); the handler checks the arguments against the schema of the
table they name (:func:`.operation_schema`, columns as enums of its real names) before anything
runs, so an invented column comes back as a one-line error listing the real ones.
"""
from __future__ import annotations

from typing import Any

from ...tools.registry import ToolContext, ToolDescriptor, ToolError, ToolResult
from .._tooling import engine_of, guarded, has_engine
from ._spec import CORRELATIONS, DATE_PARTS, DERIVED, FILTER_OPS, MEASURES, OPS, TESTS
from ._tables import tables_of
from .run import run_compiled
from .compile import compile_operation
from .schema import operation_schema, schema_problems

__all__ = ["operation_tools", "TOOL_PARAMETERS"]

_NAME = {"type": "string", "description": "A column name exactly as listed."}
_OPERAND = {"anyOf": [{"type": "string"}, {"type": "object"}],
            "description": "A column name, or {derived: " + "|".join(DERIVED) + ", a: column, b: column}."}
_KEY = {"anyOf": [{"type": "string"}, {"type": "object"}],
        "description": "A column name, {date_part: " + "|".join(DATE_PARTS) + ", column}, {bins: [edges], column} "
                       "or {derived, a, b}."}

#: the registered parameters: every operation's fields in one object
TOOL_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "op": {"type": "string", "enum": list(OPS)},
        "table": {"type": "string", "description": "Table or DataFrame name."},
        "measures": {"type": "array", "items": {"type": "object", "properties": {
            "fn": {"type": "string", "enum": list(MEASURES)}, "column": _OPERAND,
            "ddof": {"type": "integer", "enum": [0, 1]}}, "required": ["fn"]},
            "description": "aggregate: what to compute."},
        "group_by": {"anyOf": [{"type": "array", "items": _KEY}, {"type": "string"}, {"type": "object"}],
                     "description": "aggregate: a list of up to 3 keys; distribution: one key."},
        "filters": {"type": "array", "items": {"type": "object", "properties": {
            "column": _NAME, "op": {"type": "string", "enum": list(FILTER_OPS)},
            "value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"},
                                {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}}]}}, "required": ["column", "op"]}},
        "order": {"type": "string", "enum": ["desc", "asc"], "description": "aggregate: by the first measure."},
        "limit": {"type": "integer"},
        "distinct": {"type": "boolean", "description": "aggregate: list the distinct group_by values."},
        "column": _OPERAND,
        "quantiles": {"type": "array", "items": {"type": "number"}},
        "method": {"type": "string", "enum": [*CORRELATIONS, "zscore", "iqr"]},
        "x": _OPERAND, "y": _OPERAND,
        "test": {"type": "string", "enum": list(TESTS)},
        "by": _KEY,
        "levels": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}},
        "other": _NAME,
        "mu": {"type": "number"},
        "yates": {"type": "boolean"},
        "threshold": {"type": "number"}, "k": {"type": "number"},
        "ddof": {"type": "integer", "enum": [0, 1]},
        "output": {"type": "string", "enum": ["count", "list"]},
        "columns": {"type": "array", "items": _NAME},
        "markers": {"type": "boolean", "description": "missing: count text markers like 'n/a' as missing."},
    },
    "required": ["op", "table"],
}


@guarded
def _operation(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    engine = engine_of(ctx)
    table = args.get("table")
    if not isinstance(table, str) or not table.strip():
        raise ToolError("'table' is required: a table or DataFrame name.")
    tables = tables_of(engine, [table.strip()])
    call = {**args, "table": tables[0].name}
    problems = schema_problems(call, operation_schema(tables))
    if problems:
        raise ToolError("; ".join(problems[:4]))
    compiled = compile_operation(call, tables)
    result = run_compiled(engine, compiled, cancel=ctx.cancel)
    data: dict[str, Any] = {"sql": [result.sql]} if result.kind == "sql" else {}
    return ToolResult(result.text, data=data)


def operation_tools() -> list[ToolDescriptor]:
    return [ToolDescriptor(
        "operation", "Compute one typed analysis operation on a table: aggregate (count, sum, mean, median, "
        "min, max, std, var by groups, date parts or bins, with filters, order and limit), distribution, "
        "correlation, test (t-tests, chi-square, ANOVA, normality), outliers, regression, missing values, "
        "duplicates. Column names must be the table's own.",
        TOOL_PARAMETERS, _operation, available=has_engine, source="analysis")]
