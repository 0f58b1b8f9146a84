"""Column names a program spells almost right, spelled as the frame has them (pure).

A small model retypes a column's name from the prompt and slips on what it cannot see or does
not expect: an en dash typed as a hyphen (``'Satisfaction (1–10)'``), a changed case, a dot or
a space typed as an underscore (``'distance_km'`` for ``'distance.km'``). Where a name is used
as a column — inside ``frame[...]`` or given to a method that takes column names — and it is
not one, but exactly one column of the frames reads the same once such differences are set
aside, the program is given that column's name. Values (``== 'Drug B'``, ``isin([...])``) are
never touched, nor a name that is a column, nor one that could be either of two.
"""
from __future__ import annotations

import ast
import re
import unicodedata
from typing import Iterable

__all__ = ["spelled_as_columns"]

#: methods whose string arguments (positional or these keywords) are column names
_TAKES_COLUMNS = frozenset({"groupby", "sort_values", "drop_duplicates", "dropna", "set_index", "pivot_table",
                            "pivot", "melt", "nlargest", "nsmallest", "value_counts", "duplicated", "drop",
                            "rename_axis", "explode", "reindex"})
_COLUMN_KEYWORDS = frozenset({"by", "subset", "columns", "index", "values", "on", "left_on", "right_on",
                              "id_vars", "value_vars", "x", "y", "column", "keys"})
_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")
_QUOTES = dict.fromkeys(map(ord, "‘’′"), "'") | dict.fromkeys(map(ord, "“”″"), '"')


def _close(name: str) -> str:
    """Case, dashes, quotes and runs of spaces set aside."""
    text = unicodedata.normalize("NFKC", name).translate(_DASHES).translate(_QUOTES)
    return " ".join(text.casefold().split())


def _loose(name: str) -> str:
    """Only the letters and digits, case set aside."""
    return "".join(ch for ch in _close(name) if ch.isalnum())


def _as_columns(node: ast.AST) -> list[ast.Constant]:
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    return [i for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def _used_as_columns(tree: ast.AST) -> list[ast.Constant]:
    found: list[ast.Constant] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            found += _as_columns(node.slice)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TAKES_COLUMNS:
            for arg in node.args:
                found += _as_columns(arg)
            for kw in node.keywords:
                if kw.arg in _COLUMN_KEYWORDS:
                    found += _as_columns(kw.value)
    return found


def _match(name: str, columns: list[str]) -> str | None:
    for key in (_close, _loose):
        hits = {c for c in columns if key(c) == key(name)}
        if len(hits) == 1:
            return hits.pop()
        if hits:
            return None          # two columns read the same: not ours to choose
    return None


def spelled_as_columns(code: str, columns: Iterable[str]) -> tuple[str, dict[str, str]]:
    """``code`` with each name it uses as a column and that is one column's near spelling
    replaced by that column's name; and what was replaced (as written → the column)."""
    names = [str(c) for c in columns]
    known = set(names)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, {}
    lines = code.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []
    changed: dict[str, str] = {}
    for const in _used_as_columns(tree):
        value = str(const.value)
        if value in known or not value.strip():
            continue
        column = _match(value, names)
        if column is None or const.end_lineno != const.lineno or const.end_col_offset is None:
            continue
        edits.append((const.lineno, const.col_offset, const.end_col_offset, repr(column)))
        changed[value] = column
    for lineno, start, end, text in sorted(set(edits), reverse=True):
        raw = lines[lineno - 1].encode("utf-8")       # ast offsets count UTF-8 bytes
        lines[lineno - 1] = (raw[:start] + text.encode("utf-8") + raw[end:]).decode("utf-8")
    return "".join(lines), changed
