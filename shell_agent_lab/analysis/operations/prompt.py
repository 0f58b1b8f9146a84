"""The pure parts of asking a model for one operation: the prompt, and reading its reply.

An agent-side caller sends :func:`operation_prompt` with the schema as the response format
(``ChatOptions(response_format=operation_schema(tables))``); a server that holds output to the
schema returns one valid operation. :func:`parse_operation` reads the reply and checks it
against the same schema (a server without constrained output may return anything), giving the
arguments or a :class:`Problem` to send back.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .schema import schema_problems

__all__ = ["operation_prompt", "parse_operation", "Problem"]


@dataclass(frozen=True)
class Problem:
    """Why a reply is not a usable operation (one line for the model)."""

    message: str

    def __str__(self) -> str:
        return self.message


_GUIDE = """\
Answer the question with ONE operation, as a JSON object. Use the table and column names exactly as listed.
Operations ("op"):
- aggregate: measures [{"fn": count|count_distinct|sum|mean|median|min|max|std|var, "column": ..., "ddof": 1}],
  group_by [column | {"date_part": year|quarter|month|year_month|date|weekday|hour|time_of_day, "column": date column}
  | {"bins": [edges], "column": ...} | {"derived": sum|difference|ratio|product, "a": ..., "b": ...}],
  filters [{"column", "op": =|!=|<|<=|>|>=|in|not_in|between|contains|is_null|not_null, "value"}],
  order desc|asc (by the first measure), limit, distinct (list the group_by values).
  A count of rows is {"fn": "count"}. std/var take ddof: 1 = sample (pandas), 0 = population (numpy).
- distribution: "column" (mean, median, quantiles, std/var both ddofs, skewness, kurtosis), optional "group_by".
- correlation: "x", "y", "method" pearson|spearman|kendall; without "y": the column most correlated with x.
- test: "test" welch|student|paired|one_sample|chi_square|anova|shapiro|normaltest, "column";
  "by" splits groups (welch, student, anova; the second category for chi_square), "levels" picks two groups,
  "other" the second column (paired), "mu" (one_sample), "yates" (chi_square).
- outliers: "column", "method" zscore ("threshold", default 3) | iqr ("k", default 1.5), "output" count|list.
- regression: "x", "y" (slope, intercept, r_squared of y on x).
- missing: per-column missing counts and shares ("columns" optional).
- duplicates: duplicate rows ("columns" for a subset), "output" count|list.
Example: {"op": "aggregate", "table": "sales", "measures": [{"fn": "sum", "column": "amount"}],
"group_by": ["region"], "order": "desc", "limit": 1}"""


def operation_prompt(question: str, schema_text: str) -> str:
    """The user message that asks for one operation answering ``question`` over the tables
    ``schema_text`` describes (the prompt's schema block, :func:`.prompt_schema.schema_text`)."""
    data = schema_text.strip() or "(no tables)"
    return f"{_GUIDE}\n\nData:\n{data}\n\nQuestion: {' '.join(str(question).split())}\nOperation JSON:"


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def _json_object(text: str) -> Any:
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    start = stripped.find("{")
    if start < 0:
        raise ValueError("no JSON object")
    value, _ = json.JSONDecoder().raw_decode(stripped[start:])
    return value


def parse_operation(text: str, schema: Mapping[str, Any]) -> dict[str, Any] | Problem:
    """The operation in a model's reply, checked against ``schema``; a :class:`Problem` (what
    to fix, one line) when it is not JSON or does not fit. A reply wrapped as a tool call
    (``{"name": "operation", "arguments": {...}}``) is unwrapped."""
    try:
        value = _json_object(text or "")
    except ValueError:
        return Problem("the reply is not a JSON object; send one operation as JSON, e.g. "
                       '{"op": "aggregate", "table": "...", "measures": [{"fn": "count"}]}.')
    if isinstance(value, dict) and "op" not in value and isinstance(value.get("arguments"), dict):
        value = value["arguments"]
    if not isinstance(value, dict):
        return Problem(f"the reply is a JSON {type(value).__name__}; send one operation object.")
    problems = schema_problems(value, schema)
    if problems:
        return Problem("invalid operation: " + "; ".join(problems[:4]))
    return value
