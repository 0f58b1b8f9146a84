"""run_python: runs approved code in the namespace, captures and caps output, or hands it over as a cell."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from shell_agent_lab.tools.registry import ToolContext, ToolError
from shell_agent_lab.tools.run_python import execute_code, run_python_tool


def test_descriptor_is_execute_and_asks_first():
    d = run_python_tool()
    assert d.category == "execute" and d.approval_default is True and d.dialog == "code"


def test_runs_in_the_namespace_and_shows_trailing_value():
    ns = {"x": 20}
    out, ok = execute_code("y = x * 2\nprint('hello')\ny + 1", ns)
    assert ok and ns["y"] == 40
    assert out.splitlines() == ["hello", "41"]


def test_exception_becomes_tool_error_with_traceback_tail(tmp_path):
    ctx = ToolContext("s", namespace={}, work_dir=tmp_path)
    with pytest.raises(ToolError, match="NameError"):
        run_python_tool().handler(ctx, {"code": "undefined_name + 1"})
    assert ctx.namespace["WORK_DIR"] == str(tmp_path)


def test_syntax_error_is_reported():
    out, ok = execute_code("def (", {})
    assert not ok and out.startswith("SyntaxError")


def test_output_is_capped():
    out, ok = execute_code("for i in range(10000): print('x' * 50)", {}, limit=2000)
    assert ok and len(out) < 2200 and "output truncated" in out


def test_insert_cell_choice_runs_nothing():
    ns = {}
    ctx = ToolContext("s", namespace=ns, decision=SimpleNamespace(approved=True, action="insert_cell"))
    result = run_python_tool().handler(ctx, {"code": "boom = 1"})
    assert "boom" not in ns
    assert result.data["insert_cell"] == "boom = 1"
    assert "has not been executed" in result.content


def test_needs_a_namespace_and_code():
    with pytest.raises(ToolError, match="no notebook namespace"):
        run_python_tool().handler(ToolContext("s"), {"code": "1"})
    with pytest.raises(ToolError, match="non-empty"):
        run_python_tool().handler(ToolContext("s", namespace={}), {"code": "  "})
