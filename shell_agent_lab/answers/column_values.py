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

__all__ = ["column_members", "joined_column", "off_column"]

#: example values a note shows
_SHOWN = 4
#: a joined text: at least this long, at most this long to check, of a column with at most
#: this many distinct values
_MIN_JOINED = 8
_MAX_JOINED = 20_000
_MAX_DISTINCT = 1_000
_NONE = 1 << 30


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


def _joined(text: str, members: frozenset[str], longest: int) -> bool:
    """Whether ``text`` is three or more of ``members`` written end to end (what ``.sum()`` of a
    text column gives); a text cut short (`` …``) may end inside one."""
    cut = text.endswith(" …")
    text = text[:-2] if cut else text
    if len(text) > _MAX_JOINED or text in members:
        return False
    # fewest[i]: the fewest members that write text[:i] (_NONE: they cannot)
    fewest = [0] + [_NONE] * len(text)
    for i in range(len(text)):
        if fewest[i] == _NONE:
            continue
        for j in range(i + 1, min(len(text), i + longest) + 1):
            if text[i:j] in members:
                fewest[j] = min(fewest[j], fewest[i] + 1)
    # a text cut short may end inside a member: the fewest that write it up to there
    tail = range(max(0, len(text) - longest + 1), len(text) + 1) if cut else (len(text),)
    best = min(fewest[k] for k in tail)
    return best != _NONE and best >= 3


def joined_column(value: Any, frames: Mapping[str, Any]) -> str | None:
    """The text column whose values ``value`` is made of, written end to end (three or more:
    ``'YYNY…'`` is ``frame['flag'].sum()`` over a column of ``'Y'``/``'N'``); None when it is
    not such a text."""
    if not isinstance(value, str) or len(value) < _MIN_JOINED:
        return None
    for frame in frames.values():
        for column in getattr(frame, "columns", ()):
            try:
                series = frame[column]
                if not (series.dtype == object or str(series.dtype).startswith(("str", "string", "category"))):
                    continue
                distinct = series.dropna().astype(str).unique()
            except Exception:
                continue
            if not 0 < len(distinct) <= _MAX_DISTINCT:
                continue
            members = frozenset(v for v in distinct if v)
            if members and _joined(value, members, max(len(v) for v in members)):
                return str(column)
    return None


def off_column(spec: AnswerSpec, taken: Taken, frames: Mapping[str, Any],
               converted: Collection[str] = ()) -> dict[str, str]:
    """For each part whose computed value does not fit the data: a text that is a column's
    values joined end to end (any part), or, for a label part tied to a column, a value that is
    not among that column's values. What did not fit, in a few words (part name → note). A
    ``converted`` column (text the program reads as numbers or dates) is not checked: its
    values as the program sees them are not the frame's text."""
    out: dict[str, str] = {}
    for part in spec.parts:
        if part.name not in taken.values:
            continue
        joined = joined_column(taken.values[part.name], frames)
        if joined is not None:
            text = str(taken.values[part.name])
            out[part.name] = (f"{text[:24] + '…' if len(text) > 24 else text!r} is the values of column {joined!r} "
                              "written end to end (.sum() of a text column joins its text): compare the column "
                              "with the value asked about first, then count or sum the matches")
            continue
        if not part.column or part.column in converted:
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
