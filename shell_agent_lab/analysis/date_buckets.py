"""Month, year and week buckets written so DuckDB computes them quickly.

``date_trunc('month', order_date)`` is how analysts (and models) bucket dates, and DuckDB 2.0
computes it about three times slower than the same value from day arithmetic: 0.115 s against
0.037 s over 12.6 M dates, which made grouping by region and month take 0.19 s instead of
0.11 s. For a call whose part is ``month``, ``year`` or ``week`` and whose argument is a plain
column, :func:`faster_date_buckets` writes the query again with that call replaced by

    CASE WHEN typeof(c) IN ('DATE', 'TIMESTAMP') AND isfinite(c)
         THEN CAST(CAST(c AS DATE) - CAST(day(c) - 1 AS INTEGER) AS TIMESTAMP)
         ELSE date_trunc('month', c) END

(``dayofyear`` for years, ``isodow`` for ISO weeks, which start on Monday as DuckDB's do). For a
finite ``DATE`` or ``TIMESTAMP`` the arithmetic gives exactly ``date_trunc``'s value; every
other type (``TIMESTAMP WITH TIME ZONE``, whose buckets follow the session time zone, or
nanosecond timestamps) and infinite values take the original call (``typeof`` is decided when
the query is bound, so the test costs nothing per row). The engine runs the new text only when
it binds to exactly the original's column types, and reports the original's text and column
names.

Pure: reads one tree from ``json_serialize_sql`` and the text it was made from.
"""
from __future__ import annotations

from typing import Any

__all__ = ["faster_date_buckets"]

_FUNCTIONS = frozenset({"date_trunc", "datetrunc"})
#: part -> how many days to step back from the date to the bucket's first day
_OFFSETS = {
    "month": "day({c}) - 1", "months": "day({c}) - 1",
    "year": "dayofyear({c}) - 1", "years": "dayofyear({c}) - 1",
    "week": "isodow({c}) - 1", "weeks": "isodow({c}) - 1",
}
_TEMPLATE = ("(CASE WHEN typeof({c}) IN ('DATE', 'TIMESTAMP') AND isfinite({c}) "
             "THEN CAST(CAST({c} AS DATE) - CAST({offset} AS INTEGER) AS TIMESTAMP) "
             "ELSE date_trunc('{part}', {c}) END)")


def faster_date_buckets(tree: dict[str, Any], text: str) -> str | None:
    """``text`` with each eligible ``date_trunc`` call rewritten, or None when there is none.

    ``tree`` is the statement's serialised syntax tree; its byte offsets locate the calls. A
    statement with an eligible call inside a select item that has no alias is left alone: that
    item's column name is the text of its expression, and it can surface in the data
    (``DESCRIBE``, ``UNPIVOT``, ``to_json`` of a row), not only as a header the engine could
    put back."""
    data = text.encode("utf-8")
    found = _Found()
    _collect(tree, data, found, 0, named=True)
    if found.blocked or not found.spans:
        return None
    spans = sorted(found.spans)
    out, last = [], 0
    for start, end, replacement in spans:
        if start < last:   # overlapping spans cannot come from column arguments; stay safe
            return None
        out.append(data[last:start])
        out.append(replacement.encode("utf-8"))
        last = end
    out.append(data[last:])
    return b"".join(out).decode("utf-8")


class _Found:
    def __init__(self) -> None:
        self.spans: list[tuple[int, int, str]] = []
        self.blocked = False


def _collect(node: Any, data: bytes, found: _Found, depth: int, *, named: bool) -> None:
    if depth > 200:
        found.blocked = True
        return
    if isinstance(node, list):
        for item in node:
            _collect(item, data, found, depth + 1, named=named)
        return
    if not isinstance(node, dict):
        return
    rewrite = _rewrite(node, data)
    if rewrite is not None:
        if named:
            found.spans.append(rewrite)
        else:
            found.blocked = True
        return
    for key, value in node.items():
        if key == "select_list" and isinstance(value, list):
            for item in value:   # an item without an alias is named after its expression's text
                unnamed = isinstance(item, dict) and not item.get("alias")
                _collect(item, data, found, depth + 1, named=named and not unnamed)
        elif isinstance(value, (dict, list)):
            _collect(value, data, found, depth + 1, named=named)


def _span(node: dict[str, Any], data: bytes) -> tuple[int, int] | None:
    start, length = node.get("query_location"), node.get("query_location_length")
    if not isinstance(start, int) or not isinstance(length, int) or start < 0 or length <= 0 \
            or start + length > len(data):
        return None
    return start, start + length


def _rewrite(node: dict[str, Any], data: bytes) -> tuple[int, int, str] | None:
    if node.get("class") != "FUNCTION" or str(node.get("function_name", "")).lower() not in _FUNCTIONS:
        return None
    if node.get("schema") or node.get("catalog") or node.get("distinct") or node.get("filter") is not None \
            or node.get("export_state") or (node.get("order_bys") or {}).get("orders"):
        return None
    arguments = node.get("arguments") or []
    if len(arguments) != 2 or any(not isinstance(a, dict) or a.get("name") for a in arguments):
        return None
    part_node, column = arguments[0].get("expression"), arguments[1].get("expression")
    if not isinstance(part_node, dict) or part_node.get("type") != "VALUE_CONSTANT":
        return None
    literal = part_node.get("literal") or {}
    if literal.get("kind") != "STRING" or not isinstance(literal.get("text"), str):
        return None
    part = literal["text"].strip().lower()
    if part not in _OFFSETS or not isinstance(column, dict) or column.get("class") != "COLUMN_REF":
        return None
    call, ref = _span(node, data), _span(column, data)
    if call is None or ref is None or not (call[0] <= ref[0] and ref[1] <= call[1]):
        return None
    try:
        ref_text = data[ref[0]:ref[1]].decode("utf-8")
        call_text = data[call[0]:call[1]].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not call_text.lower().startswith(str(node.get("function_name", "")).lower()):
        return None   # the offsets do not point at this call
    offset = _OFFSETS[part].format(c=ref_text)
    canonical = part.rstrip("s")
    return call[0], call[1], _TEMPLATE.format(c=ref_text, offset=offset, part=canonical)
