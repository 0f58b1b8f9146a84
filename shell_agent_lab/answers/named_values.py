"""A value of the data that the question names and the program never selects; a column the
question names in backticks that the program never reads.

"How many records from JFK in July …" over a table whose ``origin`` column holds ``JFK``;
"Among Adelie penguins, compare …" over one whose ``species`` holds ``Adelie``; "grow between
1952 and 2007" over one whose ``year`` holds both. A small model often computes over every
row and leaves such a filter out: the program runs, its values fit their kinds, and the
answer is wrong. What shows it is the data, not the question's words: a value of a text
column (or a whole number of three digits or more, of a column of whole numbers), written in
the question as the data writes it, that the program never mentions, in a column it never
reads. Such a program goes back once, told which value and column; the run that selects the
rows is preferred to one that does not.

A column named in backticks (`` `colour` ``) is the question's own syntax for a column: a
program that never reads it (it took the release rate over all rows where the question asked
for it per `` `colour` ``) goes back the same way. A name that is also a frame's is not read as
a column (`` `co2` `` may be either).

Not read as such a value: one the question names only as an answer it allows (``"yes" or
"no"``), a value that is also a column's name, one at the start of a sentence (its capital
says nothing there) unless it is written with more capitals than a word's first, a value in
small letters that is not quoted, values of a column the answer names a value of (the
question may name the candidates), and values of columns with more than 200 distinct values
(free text, ids).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Collection, Mapping

from .column_values import distinct_values
from .spec import without_tokens

__all__ = ["LeftOut", "NamedInQuestion", "named_in", "left_out"]

#: columns with more distinct values than this are not read
_MAX_DISTINCT = 200
#: values shorter than this are not looked for (single letters are words and codes alike)
_SHORTEST = 2
#: whole numbers from this size up are looked for (a year, a code; not a count or a threshold's digits)
_WHOLE_FROM = 100
#: marks a value in small letters is quoted with
_QUOTES = frozenset({"'", '"', "`", "\u2018", "\u2019", "\u201c", "\u201d"})
#: a name in backticks
_QUOTED = re.compile(r"`([^`\n]{1,80})`")


@dataclass(frozen=True)
class LeftOut:
    """A value the question names, of ``column`` in ``frame``, that the program never selects."""

    #: None: the question names the column itself, in backticks
    value: str | int | None
    column: str
    frame: str

    @property
    def told(self) -> str:
        if self.value is None:
            return (f"the question names column {self.column!r} of {self.frame}, but the program never reads it: "
                    f"compute what the question asks of {self.column!r} from that column")
        return (f"the question names {self.value!r}, a value of column {self.column!r}, but the program never uses "
                f"that column or that value: if the question is about those rows, keep only them first "
                f"({self.frame}[{self.frame}[{self.column!r}] == {self.value!r}]) and compute from them")


def _texts(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The program's constants as text (folded: strings, and whole numbers written) and the
    attribute names it reads."""
    texts = {str(n.value).casefold() for n in ast.walk(tree) if isinstance(n, ast.Constant)
             and isinstance(n.value, (str, int)) and not isinstance(n.value, bool)}
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    return texts, attributes


def _kind(series: Any) -> str:
    """"text" for a text column, "whole" for one of whole numbers, "" for the others."""
    dtype = str(getattr(series, "dtype", ""))
    if dtype in ("object", "str", "string", "category"):
        return "text"
    return "whole" if dtype.lower().startswith(("int", "uint")) else ""


def _candidates(frame: Any, column: str, kind: str) -> list[str | int]:
    """The values of a column that are looked for in a question."""
    distinct = distinct_values(frame, column, _MAX_DISTINCT)
    if kind == "text":
        return [v for v in distinct or () if isinstance(v, str) and len(v.strip()) >= _SHORTEST]
    return [int(v) for v in distinct or () if abs(int(v)) >= _WHOLE_FROM]


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'`*(")
    return not before or before[-1] in ".!?:\n"


def _named_at(value: str, text: str) -> list[tuple[int, int]]:
    """Where ``text`` writes ``value`` as a whole (not inside a longer word) where it reads as
    the data's: a number; a capitalised value where its capital can be told from a sentence's;
    a value in small letters only in quotes (unquoted it is a word like any other: "no age
    recorded" names no ``no`` of a ``survived`` column)."""
    capitals = sum(ch.isupper() for ch in value)
    lower = not capitals and not value.strip().lstrip("-").isdigit()
    spans = []
    for m in re.finditer(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)", text):
        if lower:
            if text[m.start() - 1:m.start()] in _QUOTES and text[m.end():m.end() + 1] in _QUOTES:
                spans.append(m.span())
        elif not _sentence_start(text, m.start()) or capitals > 1 or not value[:1].isupper():
            spans.append(m.span())
    return spans


def _inside_longer(spans: list[tuple[int, int]], every: list[tuple[int, int]]) -> bool:
    """Whether each of ``spans`` lies within a longer one of ``every`` (the spans of all values
    named; a value's own are no longer than it): "GDP" in "a GDP per capita under 1000" is part
    of the value ``GDP per capita`` there, not a value of its own."""
    return all(any(a <= start and end <= b and b - a > end - start for a, b in every) for start, end in spans)


@dataclass(frozen=True)
class NamedInQuestion:
    """What a question names of the data, read once for a question over its frames; each
    program written for it is then checked against it (:meth:`left_out`)."""

    #: (frame, column) of each column named in backticks
    columns: tuple[tuple[str, str], ...] = ()
    #: each value the question names, with the (frame, column)s that hold it
    values: tuple[tuple[str | int, tuple[tuple[str, str], ...]], ...] = ()
    #: columns the answer names a value of: a program need not select their values
    answered: frozenset[str] = frozenset()

    def left_out(self, code: str) -> LeftOut | None:
        """The first column named in backticks that ``code`` never reads; else the first value
        named that ``code`` never selects: neither the value nor a column holding it appears in
        the program."""
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError):
            return None
        texts, attributes = _texts(tree)

        def read(column: str) -> bool:
            return column.casefold() in texts or column in attributes

        for frame, column in self.columns:
            if not read(column):
                return LeftOut(None, column, frame)
        for value, holders in self.values:
            folded = str(value).casefold()
            if any(read(c) or c in self.answered for _, c in holders) or any(folded in t for t in texts):
                continue
            return LeftOut(value, holders[0][1], holders[0][0])
        return None


def named_in(question: str, frames: Mapping[str, Any], *, allowed: Collection[str] = (),
             answered: Collection[str] = ()) -> NamedInQuestion:
    """The columns of ``frames`` that ``question`` names in backticks (not a frame's name), and
    the values of their columns (text, or whole numbers from 100 up) it names as the data writes
    them. ``allowed``: answers the question lists (never such a value); ``answered``: columns
    the answer names a value of."""
    text = without_tokens(question)      # a format's tokens describe the answer, not the rows
    columns = [(frame_name, quoted) for quoted in dict.fromkeys(_QUOTED.findall(text)) if quoted not in frames
               for frame_name, frame in frames.items() if quoted in getattr(frame, "columns", ())]
    skip = {a.casefold() for a in allowed}
    names = {str(c).casefold() for f in frames.values() for c in getattr(f, "columns", ())}
    holding: dict[str | int, list[tuple[str, str]]] = {}     # value → the (frame, column)s that hold it
    for frame_name, frame in frames.items():
        for column in getattr(frame, "columns", ()):
            try:
                kind = _kind(frame[column]) if isinstance(column, str) else ""
            except Exception:
                continue
            for value in _candidates(frame, column, kind) if kind else ():
                holding.setdefault(value, []).append((frame_name, column))
    spans = {value: _named_at(str(value), text) for value in holding
             if str(value).casefold() not in skip and str(value).casefold() not in names}
    spans = {value: at for value, at in spans.items() if at}
    every = [span for at in spans.values() for span in at]
    values = tuple((value, tuple(holding[value])) for value, at in spans.items() if not _inside_longer(at, every))
    return NamedInQuestion(tuple(columns), values, frozenset(answered))


def left_out(question: str, code: str, frames: Mapping[str, Any], *, allowed: Collection[str] = (),
             answered: Collection[str] = ()) -> LeftOut | None:
    """:meth:`NamedInQuestion.left_out` of ``code`` for what ``question`` names of ``frames``
    (:func:`named_in`): read afresh each call; a turn reads the question once."""
    return named_in(question, frames, allowed=allowed, answered=answered).left_out(code)
