"""Rewriting object references after import gives objects fresh ids (pure)."""
from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["OBJECT_REF", "rewrite_text", "rewrite_json"]

#: an object id, optionally written as ``object:<id>``
OBJECT_REF = re.compile(r"\b(object:)?([a-f0-9]{32})\b")


def rewrite_text(text: str, mapping: Mapping[str, str]) -> str:
    """Replace every known old id in ``text`` by its new id, keeping an ``object:`` prefix."""
    if not mapping or not text:
        return text

    def _swap(match: re.Match[str]) -> str:
        new = mapping.get(match.group(2))
        return (match.group(1) or "") + new if new else match.group(0)

    return OBJECT_REF.sub(_swap, text)


def rewrite_json(value: Any, mapping: Mapping[str, str]) -> Any:
    """:func:`rewrite_text` applied to every string (keys included) inside a JSON value."""
    if isinstance(value, str):
        return rewrite_text(value, mapping)
    if isinstance(value, list):
        return [rewrite_json(v, mapping) for v in value]
    if isinstance(value, dict):
        return {rewrite_text(k, mapping): rewrite_json(v, mapping) for k, v in value.items()}
    return value
