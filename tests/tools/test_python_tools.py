"""@tool: schemas from type hints and docstrings, argument checks, safe result conversion."""
from __future__ import annotations

import dataclasses
import enum
from typing import Literal, Optional

import pandas as pd
import pytest

from shell_agent_lab.tools.python_tools import describe_function, schema_for_annotation, tool
from shell_agent_lab.tools.registry import ToolContext, ToolError, ToolRegistry


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


@pytest.mark.parametrize("hint, expected", [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (bool, {"type": "boolean"}),
    (list[int], {"type": "array", "items": {"type": "integer"}}),
    (tuple[str, ...], {"type": "array", "items": {"type": "string"}}),
    (set[float], {"type": "array", "items": {"type": "number"}}),
    (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    (Optional[int], {"type": "integer"}),
    (int | None, {"type": "integer"}),
    (Literal["sum", "mean"], {"enum": ["sum", "mean"], "type": "string"}),
    (Color, {"enum": ["red", "blue"]}),
    (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    (Point, {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
             "required": ["x"]}),
])
def test_schema_for_common_hints(hint, expected):
    assert schema_for_annotation(hint) == expected


def test_google_docstring_gives_description_and_parameter_help():
    def revenue(region: str, year: int = 2024, metric: Literal["sum", "mean"] = "sum") -> float:
        """Revenue for a region.

        Longer explanation on a second paragraph.

        Args:
            region: Sales region, e.g. "EU".
            year: Fiscal year
                starting in April.
            metric: Aggregate to use.
        """
        return 0.0

    description, params = describe_function(revenue)
    assert description.startswith("Revenue for a region.")
    assert "second paragraph" in description
    assert params["required"] == ["region"]
    assert params["properties"]["region"] == {"type": "string", "description": 'Sales region, e.g. "EU".'}
    assert params["properties"]["year"]["description"] == "Fiscal year starting in April."
    assert params["properties"]["year"]["default"] == 2024
    assert params["properties"]["metric"]["enum"] == ["sum", "mean"]


def test_numpy_and_sphinx_docstrings():
    def a(x: int):
        """Do a.

        Parameters
        ----------
        x : int
            The x value.
        """

    def b(y: str):
        """Do b.

        :param y: The y value.
        """

    assert describe_function(a)[1]["properties"]["x"]["description"] == "The x value."
    assert describe_function(b)[1]["properties"]["y"]["description"] == "The y value."
    assert describe_function(b)[0] == "Do b."


def test_decorator_registers_and_keeps_function_callable():
    reg = ToolRegistry()

    @tool(registry=reg, category="write")
    def tag_rows(label: str) -> str:
        """Tag rows."""
        return f"tagged {label}"

    assert tag_rows("x") == "tagged x"
    d = reg.get("tag_rows")
    assert d is not None and d.source == "python"
    assert d.category == "write" and d.approval_default is True  # write asks by default
    assert d.handler(ToolContext("s"), {"label": "hot"}).content == "tagged hot"


def test_bare_decorator_defaults_to_read_without_approval():
    reg = ToolRegistry()

    @tool(registry=reg)
    def ping() -> str:
        return "pong"

    d = reg.get("ping")
    assert d.category == "read" and d.approval_default is False
    assert d.description == "Call the Python function ping."


def test_bad_arguments_and_exceptions_become_tool_errors():
    reg = ToolRegistry()

    @tool(registry=reg)
    def div(a: float, b: float) -> float:
        return a / b

    handler = reg.get("div").handler
    with pytest.raises(ToolError, match="missing required argument"):
        handler(ToolContext("s"), {"a": 1})
    with pytest.raises(ToolError, match="unknown argument"):
        handler(ToolContext("s"), {"a": 1, "b": 2, "c": 3})
    with pytest.raises(ToolError, match="ZeroDivisionError"):
        handler(ToolContext("s"), {"a": 1, "b": 0})


def test_results_are_converted_safely_and_capped():
    reg = ToolRegistry()

    @tool(registry=reg)
    def frame() -> pd.DataFrame:
        return pd.DataFrame({"a": range(200), "b": ["x"] * 200})

    @tool(registry=reg)
    def big() -> str:
        return "y" * 100_000

    @tool(registry=reg)
    def data() -> dict:
        return {"nan": float("nan"), "when": pd.Timestamp("2026-01-02"), "n": 3}

    r = reg.get("frame").handler(ToolContext("s"), {})
    assert "200 rows x 2 columns" in r.content and "(150 more rows)" in r.content
    assert isinstance(r.data["tables"][0], pd.DataFrame)
    capped = reg.get("big").handler(ToolContext("s"), {}).content
    assert len(capped) < 31_000 and "output truncated" in capped
    text = reg.get("data").handler(ToolContext("s"), {}).content
    assert '"nan": null' in text and "2026-01-02" in text
