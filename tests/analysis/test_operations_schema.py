"""The operation schema built from real tables: valid JSON Schema, instances the compiler
accepts, invented names refused (by jsonschema and by the package's own check); the prompt and
reply parsing; the ``operation`` tool."""
from __future__ import annotations

import json

import jsonschema
import pandas as pd
import pytest

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.analysis.operations import (Problem, TableColumns, compile_operation, operation_prompt,
                                                 operation_schema, parse_operation, schema_problems, tables_of)
from shell_agent_lab.analysis.prompt_schema import schema_text
from shell_agent_lab.tools.registry import ToolContext, ToolError

FRAME = pd.DataFrame({"region": ["n", "s", "n", "e", "s"], "amount": [1.5, 2.0, 4.0, None, 3.0],
                      "Price (USD)": ["$1,200", "$80", "n/a", "$5.50", "$7"],
                      "day": ["2024-01-02", "2024-02-03", "2024-02-04", "2024-03-05", "2024-03-09"]})
OTHER = pd.DataFrame({"city": ["a", "b"], "pop": [10, 20]})


@pytest.fixture(scope="module")
def engine():
    engine = AnalysisEngine(None, namespace=lambda: {"sales": FRAME, "towns": OTHER})
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def tables(engine):
    return tables_of(engine)


@pytest.fixture(scope="module")
def schema(tables):
    return operation_schema(tables)


@pytest.fixture(scope="module")
def validator(schema):
    """jsonschema's validator for the schema (checked once; ``jsonschema.validate`` checks the
    schema itself again on every call)."""
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


VALID = [
    {"op": "aggregate", "table": "sales", "measures": [{"fn": "sum", "column": "amount"}], "group_by": ["region"],
     "order": "desc", "limit": 1},
    {"op": "aggregate", "table": "sales", "measures": [{"fn": "mean", "column": "Price (USD)"},
                                                       {"fn": "std", "column": "amount", "ddof": 0}],
     "group_by": [{"date_part": "month", "column": "day"}], "filters": [{"column": "region", "op": "=", "value": "n"}]},
    {"op": "aggregate", "table": "sales", "measures": [{"fn": "count"}],
     "group_by": [{"bins": [0, 2, 5], "column": {"derived": "ratio", "a": "Price (USD)", "b": "amount"}}]},
    {"op": "distribution", "table": "sales", "column": "Price (USD)", "group_by": "region"},
    {"op": "correlation", "table": "sales", "x": "amount"},
    {"op": "test", "table": "sales", "test": "welch", "column": "amount", "by": "region", "levels": ["n", "s"]},
    {"op": "outliers", "table": "sales", "column": "amount", "method": "iqr", "k": 3},
    {"op": "regression", "table": "sales", "x": "amount", "y": "Price (USD)"},
    {"op": "missing", "table": "towns"},
    {"op": "duplicates", "table": "sales", "columns": ["region"], "output": "list"},
]

INVALID = [
    ({"op": "aggregate", "table": "sales", "column": "invented"}, "unexpected 'column'"),
    ({"op": "aggregate", "table": "sales", "measures": [{"fn": "sum", "column": "invented"}]}, "'invented'"),
    ({"op": "aggregate", "table": "sales", "measures": [{"fn": "mean", "column": "region"}]}, "'region'"),
    ({"op": "aggregate", "table": "sales", "group_by": ["pop"]}, "'pop'"),     # a column of the other table
    ({"op": "regression", "table": "sales", "x": "invented", "y": "amount"}, "'invented' is not one of"),
    ({"op": "distribution", "table": "towns", "column": "city"}, "'city'"),
    ({"op": "pivot", "table": "sales"}, "not an operation"),
    ({"op": "aggregate", "table": "sales", "measures": [{"fn": "avg", "column": "amount"}]},
     "fn: 'avg' is not one of 'count', 'count_distinct', 'min', 'max', 'sum', 'mean'"),
    ({"op": "missing", "table": "orders"}, "not a table"),
    ({"op": "aggregate", "table": "sales", "group_by": [{"date_part": "hour", "column": "region"}]}, "'region'"),
    ({"op": "aggregate", "table": "sales", "limit": 0}, "below"),
]


def test_the_schema_is_valid_json_schema_and_compact(schema, validator):
    assert len(json.dumps(schema)) < 12_000
    assert schema["$defs"]["c0"]["enum"] == ["region", "amount", "Price (USD)", "day"]
    assert schema["$defs"]["n0"]["enum"] == ["amount", "Price (USD)"]      # text numbers count as numbers
    assert schema["$defs"]["d0"]["enum"] == ["day"]
    assert "d1" not in schema["$defs"]       # towns has no dates: no date_part there


@pytest.mark.parametrize("args", VALID, ids=lambda a: a["op"])
def test_valid_operations_pass_both_checks_and_compile(schema, validator, tables, args):
    validator.validate(args)
    assert schema_problems(args, schema) == []
    compile_operation(args, tables)


@pytest.mark.parametrize("args, problem", INVALID, ids=lambda a: json.dumps(a)[:40] if isinstance(a, dict) else a)
def test_invented_names_and_wrong_shapes_are_refused(schema, validator, args, problem):
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(args)
    found = schema_problems(args, schema)
    assert found and problem in "; ".join(found)


def test_a_refused_column_names_the_real_ones(schema):
    (line,) = schema_problems({"op": "aggregate", "table": "sales",
                               "measures": [{"fn": "sum", "column": "revenue"}]}, schema)
    assert "'revenue' is not one of 'amount', 'Price (USD)'" in line


def test_a_table_without_columns_is_left_out_and_no_table_is_an_error():
    with pytest.raises(ValueError):
        operation_schema([TableColumns("empty")])


def test_the_prompt_names_the_operations_and_the_data(engine):
    text = operation_prompt("Which region sells most?", schema_text(engine))
    assert text.endswith("Question: Which region sells most?\nOperation JSON:")
    assert "aggregate:" in text and "ddof" in text and '"Price (USD)" VARCHAR (numbers stored as text' in text


def test_parse_operation_reads_checks_and_unwraps(schema):
    good = VALID[0]
    assert parse_operation(json.dumps(good), schema) == good
    assert parse_operation("Here:\n```json\n" + json.dumps(good) + "\n```", schema) == good
    assert parse_operation(json.dumps({"name": "operation", "arguments": good}), schema) == good
    bad = parse_operation('{"op": "aggregate", "table": "sales", "column": "invented"}', schema)
    assert isinstance(bad, Problem) and "invalid operation" in str(bad)
    assert isinstance(parse_operation("the answer is 4", schema), Problem)
    assert isinstance(parse_operation("[1, 2]", schema), Problem)


def test_the_operation_tool_checks_runs_and_reports_its_sql(engine):
    from shell_agent_lab.analysis import analysis_tools

    tool = {d.name: d for d in analysis_tools()}["operation"]
    ctx = ToolContext(session_id="s", engine=engine)
    result = tool.handler(ctx, {"op": "aggregate", "table": "SALES", "measures": [{"fn": "sum", "column": "amount"}]})
    assert "sum(amount) = 10.5" in result.content and result.data["sql"][0].startswith("SELECT sum(\"amount\")")
    with pytest.raises(ToolError, match="'invented' is not one of 'amount', 'Price \\(USD\\)'"):
        tool.handler(ctx, {"op": "aggregate", "table": "sales", "measures": [{"fn": "sum", "column": "invented"}]})
    with pytest.raises(ToolError, match="unknown table"):
        tool.handler(ctx, {"op": "missing", "table": "orders"})
    scipy = tool.handler(ctx, {"op": "correlation", "table": "sales", "x": "amount", "y": "Price (USD)"})
    assert "pearson_r(amount, Price (USD)) = " in scipy.content and scipy.data == {}
    assert tool.parameters["type"] == "object" and set(tool.parameters["required"]) == {"op", "table"}
    jsonschema.Draft202012Validator.check_schema(tool.parameters)
    registered = jsonschema.Draft202012Validator(tool.parameters)
    for args in VALID:       # every operation fits the registered parameters too
        registered.validate(args)


def test_ask_operation_sends_the_schema_and_sends_a_refused_reply_back(engine):
    import threading

    from shell_agent_lab.agent._ask import tool_ask
    from shell_agent_lab.analysis.operations import ask_operation
    from shell_agent_lab.llm.scripted import ScriptedBackend, reply

    good = {"op": "aggregate", "table": "sales", "measures": [{"fn": "mean", "column": "Price (USD)"}]}
    backend = ScriptedBackend([reply('{"op": "aggregate", "table": "sales", "measures": '
                                     '[{"fn": "mean", "column": "price"}]}'), reply(json.dumps(good))])
    result = ask_operation(tool_ask(backend, threading.Event()), engine, "Average price?")
    assert result.values["mean(Price (USD))"] == pytest.approx((1200 + 80 + 5.5 + 7) / 4)
    assert result.args == good and result.cell.startswith("%%agent_sql\n")
    first, second = backend.requests
    assert first.options.response_format["anyOf"] and first.options.temperature == 0
    assert "Question: Average price?" in first.last_user
    assert "refused" in second.last_user and "'price' is not one of" in second.last_user


def test_ask_operation_gives_up_with_the_last_problem(engine):
    from shell_agent_lab.analysis.operations import OperationError, ask_operation

    with pytest.raises(OperationError, match="no usable operation: the reply is not a JSON object"):
        ask_operation(lambda system, user, **kw: "The answer is 42.", engine, "Average price?", attempts=2)
