"""Whether a SELECT computes aggregates or lists records, read from DuckDB's own syntax tree.

A query is an aggregate when its outermost SELECT (every branch of a set operation) has at
least one aggregate function outside a window, and every other output column is a GROUP BY
expression or a constant; ``SELECT * FROM cte`` over such a query counts too. Aggregates that
hand back individual values (``list``, ``string_agg``, ``arg_max``, ``any_value``, ``first``, and
``min``/``max``: the extremes are one record's value, often the most telling one) do not count. Anything the parser refuses, or that this reading does not recognise, is records:
the safe answer.
"""
from __future__ import annotations

import functools
import json
import threading
from typing import Any

import duckdb

__all__ = ["is_aggregate_sql", "sharing_label"]

#: aggregates whose value is one row's value or the rows themselves
_REVEALING = frozenset({
    "list", "array_agg", "string_agg", "group_concat", "listagg", "histogram", "any_value", "first",
    "last", "arbitrary", "arg_max", "arg_min", "argmax", "argmin", "max_by", "min_by", "arg_max_null",
    "arg_min_null", "approx_top_k", "mode", "bitstring_agg", "list_distinct", "array_distinct",
    "min", "max", "fmin", "fmax",
})
_lock = threading.Lock()
_connection: list[duckdb.DuckDBPyConnection] = []


def _con() -> duckdb.DuckDBPyConnection:
    """A private in-memory connection that holds no data (the caller holds ``_lock``)."""
    if not _connection:
        _connection.append(duckdb.connect())
    return _connection[0]


@functools.lru_cache(maxsize=1)
def _aggregates() -> frozenset[str]:
    with _lock:
        rows = _con().execute("SELECT DISTINCT function_name FROM duckdb_functions() "
                              "WHERE function_type = 'aggregate'").fetchall()
    return frozenset(r[0].lower() for r in rows) | {"count_star"}


@functools.lru_cache(maxsize=256)
def _tree(sql: str) -> dict[str, Any] | None:
    with _lock:
        try:
            row = _con().execute("SELECT json_serialize_sql(?)", [sql]).fetchone()
        except duckdb.Error:
            return None
    if row is None:
        return None
    tree = json.loads(row[0])
    if tree.get("error") or len(tree.get("statements") or ()) != 1:
        return None
    return tree["statements"][0].get("node")


def _has_aggregate(expr: Any) -> bool:
    if isinstance(expr, list):
        return any(_has_aggregate(e) for e in expr)
    if not isinstance(expr, dict):
        return False
    cls = expr.get("class")
    if cls in ("WINDOW", "SUBQUERY"):
        return False
    if cls in ("FUNCTION", "AGGREGATE"):
        name = str(expr.get("function_name") or "").lower()
        if name in _REVEALING:
            return False
        if name in _aggregates():
            return True
    return any(_has_aggregate(v) for k, v in expr.items() if isinstance(v, (dict, list)))


def _reveals(expr: Any) -> bool:
    """An aggregate that hands back individual values (anywhere in the expression)."""
    if isinstance(expr, list):
        return any(_reveals(e) for e in expr)
    if not isinstance(expr, dict):
        return False
    if expr.get("class") in ("FUNCTION", "AGGREGATE") and str(expr.get("function_name") or "").lower() in _REVEALING:
        return True
    return any(_reveals(v) for v in expr.values() if isinstance(v, (dict, list)))


def _plain(expr: Any) -> Any:
    """An expression without its position and alias (to compare an output with a GROUP BY key)."""
    if isinstance(expr, dict):
        return {k: _plain(v) for k, v in expr.items() if k not in ("query_location", "query_location_length", "alias")}
    if isinstance(expr, list):
        return [_plain(e) for e in expr]
    return expr


def _node_aggregate(node: Any, ctes: dict[str, Any], depth: int = 0) -> bool:
    if not isinstance(node, dict) or depth > 8:
        return False
    own = {}
    for entry in (node.get("cte_map") or {}).get("map") or ():
        value = entry.get("value") or {} if isinstance(entry, dict) else {}
        own[entry.get("key")] = value.get("query_node") or (value.get("query") or {}).get("node")
    ctes = {**ctes, **{k: v for k, v in own.items() if k}}
    kind = node.get("type")
    if kind == "SET_OPERATION_NODE":
        return _node_aggregate(node.get("left"), ctes, depth + 1) and _node_aggregate(node.get("right"), ctes, depth + 1)
    if kind != "SELECT_NODE":
        return False
    outputs = node.get("select_list") or []
    groups = [_plain(g) for g in node.get("group_expressions") or ()]
    # GROUP BY an output's alias: that output is the key
    keyed = [_plain(e) for e in outputs
             if e.get("alias") and {"class": "COLUMN_REF", "type": "COLUMN_REF", "column_names": [e["alias"]]} in groups]
    groups += keyed
    if _reveals(outputs):
        return False
    if any(_has_aggregate(e) for e in outputs):
        return all(_has_aggregate(e) or _plain(e) in groups or e.get("class") == "CONSTANT"
                   or (e.get("class") == "COLUMN_REF" and any(_plain(e) == g for g in groups))
                   for e in outputs)
    # SELECT * / columns FROM an aggregate subquery or CTE (no filter that lists records: any)
    source = node.get("from_table") or {}
    if groups or not outputs or not all(e.get("class") in ("STAR", "COLUMN_REF", "CONSTANT") for e in outputs):
        return False
    if source.get("type") == "SUBQUERY":
        return _node_aggregate((source.get("subquery") or {}).get("node"), ctes, depth + 1)
    if source.get("type") == "BASE_TABLE" and not source.get("schema_name") and source.get("table_name") in ctes:
        return _node_aggregate(ctes[source["table_name"]], ctes, depth + 1)
    return False


def is_aggregate_sql(sql: str) -> bool:
    """Whether ``sql`` computes aggregates (see the module docstring); False when unsure."""
    try:
        return _node_aggregate(_tree(sql.strip().rstrip(";")), {})
    except Exception:       # a tree this reading does not know: records
        return False


def sharing_label(sql: str, rows: int, columns: list[str], max_rows: int) -> dict[str, Any]:
    """The ``ToolResult.data["sharing"]`` label of a query's result (see :mod:`shell_agent_lab.sharing`)."""
    from ..sharing import label

    kind = "aggregate" if rows <= max_rows and is_aggregate_sql(sql) else "records"
    return label(kind, rows=rows, columns=columns)
