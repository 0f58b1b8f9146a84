"""Decide whether a gated SELECT returns its rows in an order that can change between runs.

DuckDB runs hash aggregates, DISTINCT, joins, window functions and set operations on several
threads, so ``SELECT product, sum(x) FROM t GROUP BY product`` may list the products in a
different order every time. SQL allows that, but an analyst re-running a cell expects the same
table. A query whose outermost level has no ``ORDER BY`` and no ``LIMIT`` and is not a plain
scan of one table (whose storage order DuckDB keeps) therefore gets ``ORDER BY ALL`` appended:
its rows sorted by every column, left to right.

A top-level ``LIMIT`` without ``ORDER BY`` is left alone: which rows it picks is up to the query.

Pure: :func:`needs_stable_order` reads one tree from ``json_serialize_sql`` and touches nothing.
"""
from __future__ import annotations

from typing import Any

__all__ = ["needs_stable_order", "ORDER_SUFFIX"]

#: appended on its own line, so a trailing ``-- comment`` in the original cannot swallow it
ORDER_SUFFIX = "\nORDER BY ALL"

_ORDER_OR_LIMIT = frozenset({"ORDER_MODIFIER", "LIMIT_MODIFIER", "LIMIT_PERCENT_MODIFIER"})


def needs_stable_order(tree: dict[str, Any]) -> bool:
    """True when the statement's row order may vary between runs and may be fixed by sorting."""
    node = tree.get("node") if isinstance(tree, dict) else None
    if not isinstance(node, dict):
        return False
    if _modifier_types(node) & _ORDER_OR_LIMIT:
        return False
    return not _keeps_storage_order(node, _ctes(node, {}))


def _modifier_types(node: dict[str, Any]) -> set[str]:
    return {m.get("type") for m in node.get("modifiers") or [] if isinstance(m, dict)}


def _ctes(node: dict[str, Any], outer: dict[str, Any]) -> dict[str, Any]:
    """CTE name -> its query node, for the names visible inside ``node``."""
    visible = dict(outer)
    cte_map = node.get("cte_map")
    for entry in (cte_map.get("map") or []) if isinstance(cte_map, dict) else []:
        if not isinstance(entry, dict):
            continue
        key, value = entry.get("key"), entry.get("value")
        value = value if isinstance(value, dict) else {}
        query = value.get("query")   # older serialisations nest the node one level deeper
        inner = value.get("query_node") or (query.get("node") if isinstance(query, dict) else None)
        if isinstance(key, str) and isinstance(inner, dict):
            visible[key.lower()] = inner
    return visible


def _keeps_storage_order(node: dict[str, Any], ctes: dict[str, Any], depth: int = 0) -> bool:
    """True for a projection/filter of one stored table (or of such a subquery or CTE)."""
    if depth > 32:
        return False
    if "ORDER_MODIFIER" in _modifier_types(node):
        return True   # an inner ORDER BY fixes the order; DuckDB keeps it for the outer scan
    kind = node.get("type")
    if kind == "SET_OPERATION_NODE":
        children = node.get("children") or [c for c in (node.get("left"), node.get("right")) if c]
        return (node.get("setop_type") == "UNION" and bool(node.get("setop_all"))
                and all(isinstance(c, dict) and _keeps_storage_order(c, _ctes(c, ctes), depth + 1)
                        for c in children))
    if kind != "SELECT_NODE":
        return False
    if node.get("group_expressions") or node.get("aggregate_handling") not in (None, "STANDARD_HANDLING"):
        return False
    if "DISTINCT_MODIFIER" in _modifier_types(node) or _has_window(node.get("select_list")) \
            or node.get("qualify") is not None:
        return False
    source = node.get("from_table")
    if not isinstance(source, dict):
        return True
    source_kind = source.get("type")
    if source_kind in ("EMPTY", "EMPTY_FROM", "SHOW_REF", "EXPRESSION_LIST", None):
        return True
    if source_kind == "BASE_TABLE":
        name = str(source.get("table_name", "")).lower()
        if name in ctes:
            cte = ctes.pop(name)   # a CTE cannot see itself; this also stops any cycle
            return _keeps_storage_order(cte, _ctes(cte, ctes), depth + 1)
        return True
    if source_kind == "SUBQUERY":
        inner = (source.get("subquery") or {}).get("node")
        return isinstance(inner, dict) and _keeps_storage_order(inner, _ctes(inner, ctes), depth + 1)
    return False   # joins, PIVOT, table functions


def _has_window(value: Any) -> bool:
    if isinstance(value, list):
        return any(_has_window(v) for v in value)
    if not isinstance(value, dict):
        return False
    if value.get("class") == "WINDOW":
        return True
    return any(_has_window(v) for v in value.values() if isinstance(v, (dict, list)))
