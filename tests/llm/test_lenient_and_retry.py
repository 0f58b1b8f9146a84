from __future__ import annotations

import json
import threading

import pytest

from shell_agent_lab.llm.arguments import parse_tool_arguments, schema_errors
from shell_agent_lab.llm.errors import (BadResponseError, CancelledError, ConfigurationError,
                                        RateLimitedError, ToolArgumentsError, UnreachableError)
from shell_agent_lab.llm.lenient import extract_tool_calls
from shell_agent_lab.llm.retry import RetryPolicy, call_with_retry, is_retryable
from shell_agent_lab.llm.types import ChatOptions, ToolSpec

SQL = ToolSpec("run_sql", "Run SQL", {
    "type": "object", "properties": {"sql": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["sql"]})
DATE = ToolSpec("resolve_date", "Resolve a date", {"type": "object", "properties": {"expr": {"type": "string"}}})
TOOLS = [SQL, DATE]


def ids():
    counter = iter(range(1, 100))
    return lambda: f"id{next(counter)}"


# -- lenient parsing -----------------------------------------------------------------------

def test_tagged_call_is_extracted_and_stripped():
    text = 'Let me check.\n<tool_call>\n{"name": "run_sql", "arguments": {"sql": "select 1"}}\n</tool_call>'
    result = extract_tool_calls(text, TOOLS, new_id=ids())
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [("id1", "run_sql", {"sql": "select 1"})]
    assert result.text == "Let me check."


def test_tools_tag_with_list_and_unclosed_tag():
    text = '<tools>[{"name": "run_sql", "arguments": {"sql": "a"}}, {"name": "resolve_date", "parameters": {"expr": "today"}}]</tools>'
    result = extract_tool_calls(text, TOOLS)
    assert [c.name for c in result.tool_calls] == ["run_sql", "resolve_date"]
    assert result.text == ""
    unclosed = extract_tool_calls('<tool_call>{"name": "run_sql", "arguments": {"sql": "b"}}', TOOLS)
    assert unclosed.tool_calls[0].arguments == {"sql": "b"}


def test_fenced_call_with_string_arguments():
    args = json.dumps({"sql": "select count(*) from t"})
    text = f'Here:\n```json\n{{"name": "run_sql", "arguments": {json.dumps(args)}}}\n```\nDone.'
    result = extract_tool_calls(text, TOOLS)
    assert result.tool_calls[0].arguments == {"sql": "select count(*) from t"}
    assert result.text == "Here:\n\nDone."


def test_bare_object_and_openai_function_shape():
    text = 'I will call {"function": {"name": "run-sql", "arguments": "{\\"sql\\": \\"x\\"}"}} now'
    result = extract_tool_calls(text, TOOLS)
    assert result.tool_calls[0].name == "run_sql"
    assert result.text == "I will call  now"


def test_schema_violations_are_left_in_text():
    text = '<tool_call>{"name": "run_sql", "arguments": {"limit": "ten"}}</tool_call>'
    result = extract_tool_calls(text, TOOLS)
    assert result.tool_calls == []
    assert result.text == text
    assert "missing required 'sql'" in result.rejected[0]
    assert "expected integer" in result.rejected[0]


def test_unknown_tool_and_plain_json_untouched():
    text = 'The row is {"name": "Alice", "age": 3} and {"a": 1}'
    result = extract_tool_calls(text, TOOLS)
    assert result.tool_calls == [] and result.text == text
    assert extract_tool_calls(text, []).text == text


def test_schema_errors_types():
    schema = {"type": "object", "properties": {"n": {"type": ["integer", "null"]},
                                               "tags": {"type": "array", "items": {"type": "string"}},
                                               "mode": {"enum": ["a", "b"]}},
              "additionalProperties": False}
    assert schema_errors({"n": None, "tags": ["x"], "mode": "a"}, schema) == []
    problems = schema_errors({"n": True, "tags": [1], "mode": "c", "z": 0}, schema)
    assert len(problems) == 4


# -- arguments ----------------------------------------------------------------------------

def test_parse_arguments_rules():
    assert parse_tool_arguments("") == {}
    assert parse_tool_arguments('{"a": 1}') == {"a": 1}
    with pytest.raises(ToolArgumentsError, match="not valid JSON") as info:
        parse_tool_arguments("{oops", tool_name="run_sql", tool_call_id="c1")
    assert info.value.tool_call_id == "c1" and isinstance(info.value, BadResponseError)
    with pytest.raises(ToolArgumentsError, match="JSON object"):
        parse_tool_arguments("[1]")
    with pytest.raises(ToolArgumentsError, match="over the 1048576-byte cap"):
        parse_tool_arguments('{"a": "' + "x" * (1024 * 1024) + '"}')


# -- retry --------------------------------------------------------------------------------

def test_policy_delay_grows_and_is_capped():
    policy = RetryPolicy(base_delay=5, max_delay=12, jitter=1)
    assert policy.delay(1, lambda: 0.5) == 5
    assert policy.delay(2, lambda: 0.5) == 10
    assert policy.delay(3, lambda: 0.5) == 12
    assert policy.delay(1, lambda: 1.0) == 6
    assert policy.delay(1, lambda: 0.0) == 4


def test_retry_until_success_reports_each_backoff():
    seen, slept = [], []
    outcomes = [RateLimitedError("429 slow down"), UnreachableError("refused"), "ok"]

    def attempt():
        item = outcomes.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    result = call_with_retry(attempt, policy=RetryPolicy(base_delay=1, jitter=0),
                             options=ChatOptions(on_retry=seen.append),
                             sleep=lambda d, c: slept.append(d))
    assert result == "ok"
    assert [(i.attempt, i.max_attempts, i.delay) for i in seen] == [(1, 3, 1.0), (2, 3, 2.0)]
    assert slept == [1.0, 2.0]
    assert "429" in seen[0].error


def test_retry_gives_up_with_clear_message():
    calls = []

    def attempt():
        calls.append(1)
        raise BadResponseError("server error 500", retryable=True)

    with pytest.raises(BadResponseError, match="gave up after 3 attempts"):
        call_with_retry(attempt, policy=RetryPolicy(base_delay=0, jitter=0), sleep=lambda d, c: None)
    assert len(calls) == 3


def test_non_retryable_raises_at_once():
    calls = []

    def attempt():
        calls.append(1)
        raise ConfigurationError("bad key")

    with pytest.raises(ConfigurationError):
        call_with_retry(attempt, sleep=lambda d, c: None)
    assert calls == [1]
    assert not is_retryable(BadResponseError("400"))
    assert is_retryable(RuntimeError("503 unavailable"))


def test_cancel_during_backoff():
    cancel = threading.Event()

    def attempt():
        raise UnreachableError("refused")

    def sleep(delay, event):
        cancel.set()

    with pytest.raises(CancelledError):
        call_with_retry(attempt, options=ChatOptions(cancel=cancel), sleep=sleep)
