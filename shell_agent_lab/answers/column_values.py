"""Whether a label part tied to a text column (:attr:`~.spec.Part.column`) holds one of that
column's values (pure: the frames are handed in).

A spec that knows a part is a value of column ``colour`` can refuse ``'Yes'`` (a value of
another column) or a row label: such a value is still shown, with a note, and earns the one
retry a value of clearly the wrong kind gets. Values are compared as text, case and outer
spaces aside; a list of several names passes when each of them is a value of the column.
"""
from __future__ import annotations

from typing import Any, Collection, Mapping

from .spec import AnswerSpec
from .values import Taken

__all__ = ["column_members", "off_column"]

#: example values a note shows
_SHOWN = 4


def _text(value: Any) -> str:
    return str(value).strip().casefold()


def column_members(frames: Mapping[str, Any], column: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """The values of ``column`` in the first frame that has it (as compared) and a few of them
    as written; None when no frame has it or it cannot be read."""
    for frame in frames.values():
        try:
            if column not in getattr(frame, "columns", ()):
                continue
            distinct = frame[column].dropna().unique()
        except Exception:
            continue
        shown = tuple(str(v) for v in distinct[:_SHOWN])
        return frozenset(_text(v) for v in distinct), shown
    return None


def _pieces(value: Any) -> list[str] | None:
    """The names a value states (one, or each item of a list or a comma-separated text); None
    for what is not a name (a number, yes/no, a mapping)."""
    if isinstance(value, bool) or isinstance(value, (int, float, dict)) or value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_text(v) for v in value] if all(isinstance(v, str) for v in value) else None
    text = _text(value)
    return [text] if text else None


def off_column(spec: AnswerSpec, taken: Taken, frames: Mapping[str, Any],
               converted: Collection[str] = ()) -> dict[str, str]:
    """For each label part tied to a column whose computed value is not among that column's
    values: what did not fit, in a few words (part name → note). A ``converted`` column (text
    the program reads as numbers or dates) is not checked: its values as the program sees them
    are not the frame's text."""
    out: dict[str, str] = {}
    for part in spec.parts:
        if not part.column or part.name not in taken.values or part.column in converted:
            continue
        pieces = _pieces(taken.values[part.name])
        if not pieces:
            continue
        found = column_members(frames, part.column)
        if found is None:
            continue
        members, shown = found
        whole = _text(taken.values[part.name])
        if whole in members or all(p in members for p in pieces) or (
                len(pieces) == 1 and all(p.strip() in members for p in pieces[0].split(","))):
            continue
        examples = ", ".join(repr(v) for v in shown) + (", …" if len(members) > len(shown) else "")
        out[part.name] = (f"{taken.values[part.name]!r} is not a value of column {part.column!r} "
                          f"(it holds {examples})")
    return out
