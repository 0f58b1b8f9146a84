"""Computed values read against the data they came from (pure: the frames are handed in).

* A label part tied to a text column (:attr:`~.spec.Part.column`) holds one of that column's
  values: a spec that knows a part is a value of ``colour`` can refuse ``'Yes'`` (a value of
  another column). Values are compared as text, case and outer spaces aside; a list of names
  passes when each is a value of the column.
* A text that is three or more values of a column the program names, written end to end
  (``'YYNY…'``: ``.sum()`` of a ``Y``/``N`` column joins its letters), is no answer to anything.
* A label bound to ``.max()`` or ``.min()`` of a text column (``state = d['state'].max()``)
  is the value that comes last or first in alphabetical order, whatever the question ranks by:
  the small model writes it for "which state has the highest rate" beside ``rate =
  d['rate'].max()``, two extremes of two columns from different rows (:func:`text_extremes`).
* A name or label bound to ``.idxmax()``/``.idxmin()`` of a column of a frame numbered by row
  (``towns[…]['density'].idxmax()``) is the row's number, not what the question asks which of
  (:func:`row_labels`).

Such a value is still shown, with a note for the reader, and earns the one retry a value of
clearly the wrong kind gets, with what to do for the model.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Any, Collection, Mapping

from .program_names import answer_entries, bound_once, column_of
from .spec import AnswerSpec
from .values import Taken

__all__ = ["Miss", "as_names", "column_members", "columns_named", "distinct_values", "joined_column", "off_column", "row_labels",
           "text_extremes", "unmatched_values"]

#: example values a note shows
_SHOWN = 4
#: a joined text is at least this long, and is looked for only up to this length
_MIN_JOINED = 8
_MAX_JOINED = 20_000
#: columns with more distinct values than this (free text, ids) are not looked at for joined text
_MAX_DISTINCT = 200
_NONE = 1 << 30


@dataclass(frozen=True)
class Miss:
    """A value that does not fit the data: ``note`` for the reader, ``told`` for the model."""

    note: str
    told: str
    #: what code can write instead, when it knows: (line, column, end column) of a one-line
    #: expression of the program (ast's offsets: UTF-8 bytes) and the text that replaces it
    rewrite: tuple[tuple[int, int, int], str] | None = None


def _text(value: Any) -> str:
    return str(value).strip().casefold()


def distinct_values(frame: Any, column: str, limit: int | None = None) -> list[Any] | None:
    """The distinct values of ``frame[column]`` (None when it has more than ``limit`` or
    cannot be read)."""
    try:
        series = frame[column]
        if limit is not None and series.head(10_000).nunique(dropna=True) > limit:
            return None
        values = list(series.dropna().unique())
    except Exception:
        return None
    return values if limit is None or len(values) <= limit else None


def column_members(frames: Mapping[str, Any], column: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """The values of ``column`` in the first frame that has it (as compared) and a few of them
    as written; None when no frame has it or it cannot be read."""
    for frame in frames.values():
        if column not in getattr(frame, "columns", ()):
            continue
        distinct = distinct_values(frame, column)
        if distinct is None:
            continue
        return frozenset(_text(v) for v in distinct), tuple(str(v) for v in distinct[:_SHOWN])
    return None


def _joined(text: str, members: frozenset[str]) -> bool:
    """Whether ``text`` is three or more of ``members`` written end to end; a text cut short
    (`` …``) may end inside one."""
    cut = text.endswith(" …")
    text = text[:-2] if cut else text
    if len(text) > _MAX_JOINED or text in members:
        return False
    lengths = sorted({len(m) for m in members if m})
    if not lengths:
        return False
    # fewest[i]: the fewest members that write text[:i] (_NONE: they cannot)
    fewest = [0] + [_NONE] * len(text)
    for i in range(len(text)):
        if fewest[i] == _NONE:
            continue
        for n in lengths:
            if i + n <= len(text) and text[i:i + n] in members:
                fewest[i + n] = min(fewest[i + n], fewest[i] + 1)
    # a text cut short may end inside a member: the fewest that write it up to there
    tail = range(max(0, len(text) - lengths[-1] + 1), len(text) + 1) if cut else (len(text),)
    best = min(fewest[k] for k in tail)
    return best != _NONE and best >= 3


def joined_column(value: Any, frames: Mapping[str, Any], named: Collection[str]) -> str | None:
    """The text column among ``named`` (the columns the program names) whose values ``value``
    is made of, three or more written end to end; None when it is not such a text, or when it
    is itself a value of one of them."""
    if not isinstance(value, str) or len(value) < _MIN_JOINED:
        return None
    candidates: list[tuple[str, frozenset[str]]] = []
    for frame in frames.values():
        for column in getattr(frame, "columns", ()):
            if column not in named or not isinstance(column, str):
                continue
            distinct = distinct_values(frame, column, _MAX_DISTINCT)
            if not distinct or not all(isinstance(v, str) for v in distinct):
                continue
            members = frozenset(distinct)
            if value.strip() in members:
                return None             # a value of the data is an answer, whatever else it is made of
            candidates.append((column, members))
    for column, members in candidates:
        if _joined(value, members):
            return column
    return None


def columns_named(code: str, columns: Collection[str]) -> set[str]:
    """The ``columns`` a program's code names as a string (``df['Central_Air']``,
    ``subset=['vote']``); none when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    known = set(columns)
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value in known}


def _pieces(value: Any) -> list[str] | None:
    """The names a value states (one, or each item of a list or a comma-separated text); None
    for what is not a name (a number, yes/no, a mapping)."""
    if isinstance(value, (int, float, dict)) or value is None:      # bool is an int
        return None
    if isinstance(value, (list, tuple)):
        return [_text(v) for v in value] if all(isinstance(v, str) for v in value) else None
    text = _text(value)
    return [text] if text else None


def _outside(value: Any, frames: Mapping[str, Any], column: str) -> Miss | None:
    """A label tied to ``column`` whose value is not one of the column's values."""
    pieces = _pieces(value)
    found = column_members(frames, column) if pieces else None
    if not pieces or found is None:
        return None
    members, shown = found
    if _text(value) in members or all(p in members for p in pieces) or (
            len(pieces) == 1 and all(p.strip() in members for p in pieces[0].split(","))):
        return None
    examples = ", ".join(repr(v) for v in shown) + (", …" if len(members) > len(shown) else "")
    note = f"{value!r} is not a value of column {column!r} (it holds {examples})"
    return Miss(note, f"{note}; bind the value of {column!r} the question asks for, read from that column")


def as_names(spec: AnswerSpec, taken: Taken, frames: Mapping[str, Any], converted: Collection[str] = ()) -> Taken:
    """``taken`` with each number of a part tied to a text column that the column holds as a name
    written as that name: family ``185`` of a ``family`` column holding ``'185'`` and ``'136A'``
    is a name, not a row label or a count (the program read the column as text, pandas may not)."""
    values = dict(taken.values)
    for part in spec.parts:
        value = values.get(part.name)
        if not part.column or part.column in converted or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if isinstance(value, float) and not value.is_integer():
            continue
        found = column_members(frames, part.column)
        text = str(int(value))
        if found is not None and _text(text) in found[0]:
            values[part.name] = text
    return replace(taken, values=values) if values != taken.values else taken


def off_column(spec: AnswerSpec, taken: Taken, frames: Mapping[str, Any], *,
               named: Collection[str] = (), converted: Collection[str] = ()) -> dict[str, Miss]:
    """Each part whose computed value does not fit the data (part name → what did not fit).
    ``named``: the columns the program's code names (a joined text is looked for in those);
    ``converted``: text columns the program reads as numbers or dates, whose values as the
    program sees them are not the frame's text (not checked)."""
    out: dict[str, Miss] = {}
    readable = {c for c in named if c not in converted}
    for part in spec.parts:
        if part.name not in taken.values:
            continue
        value = taken.values[part.name]
        if part.column and part.column not in converted:
            miss = _outside(value, frames, part.column)
            if miss is not None:
                out[part.name] = miss
            continue
        joined = joined_column(value, frames, readable)
        if joined is not None:
            shown = repr(value[:24] + "…" if len(value) > 24 else value)
            out[part.name] = Miss(
                f"{shown} is the values of column {joined!r} written end to end",
                f"{shown} is the values of column {joined!r} written end to end (.sum() of a text column joins "
                "its text): compare the column with the value asked about first, then count or sum the matches")
    return out


#: a comparison the program makes of a column with a text: ``df['c'] == 'x'``, ``!=``
_EQUALITY = (ast.Eq, ast.NotEq)


def _compared(tree: ast.AST) -> list[tuple[str, list[str]]]:
    """(column, texts) for each place the code compares a column, named as a string, with texts:
    ``f['c'] == 'x'``, ``'x' != f['c']``, ``f['c'].isin(['x', 'y'])``, ``f['c'].eq('x')``."""
    def column(node: ast.AST) -> str | None:
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return node.slice.value
        return None

    def texts(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return []

    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _EQUALITY):
            left, right = node.left, node.comparators[0]
            for a, b in ((left, right), (right, left)):
                name, said = column(a), texts(b) if isinstance(b, ast.Constant) else []
                if name is not None and said:
                    found.append((name, said))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args \
                and node.func.attr in ("isin", "eq", "ne"):
            name = column(node.func.value)
            said = texts(node.args[0])
            if name is not None and said:
                found.append((name, said))
    return found


def unmatched_values(code: str, frames: Mapping[str, Any], *, converted: Collection[str] = ()) -> str | None:
    """What the program compares a text column with that is not one of the column's values
    (``df['Indicator Name'] == 'Fertility rate, total (births per 1,000 people)'`` where the
    column holds ``'Fertility rate, total (births per woman)'``): such a comparison selects no
    rows, which is why a mean comes out NaN or an ``idxmax`` finds nothing. None when every text
    compared is a value. Columns the program reads as numbers or dates (``converted``) are not
    checked: their values as the program sees them are not the frame's text."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for name, said in _compared(tree):
        if name in converted:
            continue
        for frame in frames.values():
            if name not in getattr(frame, "columns", ()):
                continue
            distinct = distinct_values(frame, name)
            if not distinct or not all(isinstance(v, str) for v in distinct):
                break
            exact = set(distinct)
            absent = [s for s in said if s not in exact]
            if absent:
                folded = {v.casefold(): v for v in distinct}
                close = [folded[s.casefold()] for s in absent if s.casefold() in folded]
                shown = ", ".join(repr(v) for v in (close or distinct[:_SHOWN]))
                more = ", …" if not close and len(distinct) > _SHOWN else ""
                return (f"the program compares column {name!r} with {absent[0]!r}, which is not one of its "
                        f"values (it holds {shown}{more}), so no row matches it: compare with a value the column "
                        "holds, written exactly as it is there")
            break
    return None


#: calls that keep what they are given (``str(x)``), followed to the expression inside
_KEEPING = frozenset({"str"})


def _extreme_of(node: ast.expr, bound: Mapping[str, ast.expr], depth: int = 0) -> tuple[str, str, str] | None:
    """(the frame's source text, the column, "max" or "min") of ``<frame>['c'].max()`` (or
    ``.min()``), followed back through names bound once and ``str(…)``; None otherwise."""
    if depth > 4:
        return None
    if isinstance(node, ast.Name) and node.id in bound:
        return _extreme_of(bound[node.id], bound, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _KEEPING and len(node.args) == 1:
        return _extreme_of(node.args[0], bound, depth + 1)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("max", "min")
            and not node.args and not node.keywords):
        return None
    picked = column_of(node.func.value)
    return (*picked, node.func.attr) if picked is not None else None


def _is_text(frames: Mapping[str, Any], column: str) -> bool:
    """Whether the first frame that has ``column`` holds text there (not numbers or dates)."""
    import pandas as pd

    for frame in frames.values():
        if column in getattr(frame, "columns", ()):
            try:
                dtype = frame[column].dtype
                return bool(pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype))
            except (TypeError, ValueError, AttributeError):
                return False
    return False


def _bindings(code: str) -> tuple[dict[str, ast.expr], dict[str, ast.expr]] | None:
    """The ``answer = {…}`` entries of ``code`` (part name → value expression) and the names it
    binds once; None when it does not parse."""
    try:
        tree = ast.parse(code)
        return answer_entries(tree), bound_once(tree)
    except (SyntaxError, ValueError, RecursionError):
        return None


def text_extremes(spec: AnswerSpec, code: str, frames: Mapping[str, Any]) -> dict[str, Miss]:
    """Each label part the program binds to ``.max()``/``.min()`` of a text column of the data
    (part name → what did not fit): the alphabetically last or first value, not the value of the
    row a number ranks highest. The retry is shown how to take that row, with the number a
    sibling part takes the extreme of when there is one."""
    parsed = _bindings(code)
    if parsed is None:
        return {}
    entries, bound = parsed
    extremes = {name: _extreme_of(value, bound) for name, value in entries.items()}
    out: dict[str, Miss] = {}
    kinds = {p.name: p.kind for p in spec.parts}
    for part in spec.parts:
        found = extremes.get(part.name)
        if part.kind != "label" or found is None or not _is_text(frames, found[1]):
            continue
        text, column, which = found
        # the number it ranks by: a sibling number part's extreme first (a year is a date, not a rank)
        siblings = sorted(((n, e) for n, e in extremes.items() if n != part.name and e is not None
                           and e[0] == text and not _is_text(frames, e[1])),
                          key=lambda item: kinds.get(item[0]) != "number")
        ranked = siblings[0][1][1] if siblings else None
        by = repr(ranked) if ranked else "'<the column it ranks by>'"
        where = "last" if which == "max" else "first"
        read = [column, *(e[1] for _, e in siblings if e[1] != ranked)]
        note = (f"{part.name} is .{which}() of the text column {column!r}: its alphabetically {where} value, "
                "not the one of the row the question ranks")
        out[part.name] = Miss(note, f"{note}; take that row first, row = {text}.loc[{text}[{by}].idx{which}()], "
                                    "then read each value from it (" + ", ".join(f"row[{c!r}]" for c in read) + ")")
    return out


#: what makes a frame's rows labelled by something other than their number
_RELABELLED = frozenset({"groupby", "set_index", "pivot", "pivot_table", "crosstab", "value_counts", "resample",
                         "unstack", "stack", "transpose", "T", "agg", "aggregate"})
#: a subject that asks for the row itself: its number is the answer
_ROW_WORDS = frozenset({"row", "rows", "index", "record", "records"})


def _row_label_of(node: ast.expr, bound: Mapping[str, ast.expr],
                  depth: int = 0) -> tuple[str, str, str, str, ast.expr] | None:
    """(the frame's name, the frame's source text, the column, "idxmax" or "idxmin", the call) of
    ``<frame …>['c'].idxmax()``, followed back through names bound once and ``int(…)``/``str(…)``,
    where the frame is a name the rows of which keep their numbers (filters, sorts; not a
    group-by or a new index); None otherwise."""
    if depth > 4:
        return None
    if isinstance(node, ast.Name) and node.id in bound:
        return _row_label_of(bound[node.id], bound, depth + 1)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "str")
            and len(node.args) == 1):
        return _row_label_of(node.args[0], bound, depth + 1)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("idxmax", "idxmin")
            and not node.args):
        return None
    picked = column_of(node.func.value)
    if picked is None:
        return None
    frame = node.func.value.value  # type: ignore[attr-defined]
    if any(isinstance(n, ast.Attribute) and n.attr in _RELABELLED for n in ast.walk(frame)):
        return None
    root: ast.expr = frame
    while isinstance(root, (ast.Subscript, ast.Attribute, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value       # towns.sort_values(…)[…] → towns
    return (root.id, picked[0], picked[1], node.func.attr, node) if isinstance(root, ast.Name) else None


def _numbers(value: Any) -> bool:
    """Whether ``value`` is a list of whole numbers (no truth values): what row numbers are."""
    return (isinstance(value, (list, tuple)) and bool(value)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


#: what turns an index into a list of its labels, as written around ``….index``
_LISTED = frozenset({"tolist", "to_list", "values", "to_numpy", "unique"})


def _index_of(node: ast.expr, bound: Mapping[str, ast.expr], depth: int = 0) -> ast.Attribute | None:
    """The ``<frame …>.index`` a value is read from, followed back through names bound once,
    ``list(…)``/``sorted(…)`` and ``.tolist()``; None otherwise."""
    if depth > 4:
        return None
    if isinstance(node, ast.Name) and node.id in bound:
        return _index_of(bound[node.id], bound, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "sorted") and node.args:
        return _index_of(node.args[0], bound, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _LISTED and not node.args:
        return _index_of(node.func.value, bound, depth + 1)
    if isinstance(node, ast.Attribute) and node.attr in _LISTED:
        return _index_of(node.value, bound, depth + 1)
    return node if isinstance(node, ast.Attribute) and node.attr == "index" else None


def _kept_rows(code: str, node: ast.expr, bound: Mapping[str, ast.expr], frames: Mapping[str, Any],
               named: set[str]) -> Miss | None:
    """What did not fit in a list of numbers read from ``<frame …>.index`` where the frame's rows
    are numbered 0, 1, 2, … and nothing relabelled them (a filter keeps the numbers): the numbers
    of the rows kept, not the names or values asked. Code reads them from the column that names
    the rows when the data has one."""
    import pandas as pd

    index = _index_of(node, bound)
    name = _rows_of(index.value, bound, frames) if index is not None else None
    frame = frames.get(name) if name is not None else None
    if index is None or frame is None or not isinstance(getattr(frame, "index", None), pd.RangeIndex):
        return None
    # a frame of the data the program binds anew (``towns = towns.set_index(…)``) is its own
    stored = {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if name in stored and name not in bound:
        return None
    rows = ast.get_source_segment(code, index.value) or ""
    naming = _naming_column(frame, *sorted(named))
    note = "the numbers of the rows the program kept (a frame's .index), not the values asked"
    if naming is None or not rows or index.lineno != index.end_lineno:
        return Miss(note, f"{note}; read what the question asks from those rows' columns, not their numbers")
    read = f"{rows}[{naming!r}]"
    rewrite = ((index.lineno, index.col_offset, index.end_col_offset or 0), read)
    return Miss(note, f"{note}; read them from the column that names the rows: {read}", rewrite)


#: the methods that keep a frame's rows with their numbers (some of them, in some order)
_KEEPS_ROWS = frozenset({"sort_values", "sort_index", "head", "tail", "nlargest", "nsmallest", "dropna", "query",
                         "copy", "drop_duplicates", "fillna", "assign", "astype", "where", "mask", "isin"})


def _rows_of(node: ast.expr, bound: Mapping[str, ast.expr], frames: Mapping[str, Any], depth: int = 0) -> str | None:
    """The name of the frame of the data whose rows ``node`` keeps, their numbers with them
    (filters, sorts, selections of columns; names bound once followed back), or None when
    something relabels them (a group-by, a new index) or the rows are no frame's."""
    if depth > 4 or any(isinstance(n, ast.Attribute) and n.attr in _RELABELLED for n in ast.walk(node)):
        return None
    root: ast.expr = node
    while isinstance(root, (ast.Subscript, ast.Attribute, ast.Call)):
        if isinstance(root, ast.Call) and not (isinstance(root.func, ast.Attribute) and root.func.attr in _KEEPS_ROWS):
            return None                    # a reduction (.mean()) is indexed by what it reduced over
        root = root.func if isinstance(root, ast.Call) else root.value       # towns.sort_values(…)[…] → towns
    if not isinstance(root, ast.Name):
        return None
    if root.id in bound:
        value = bound[root.id]
        read = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr.startswith("read_")
        if root.id in frames and read:
            return root.id                 # ``nox = pd.read_csv(…)``: the data's frame, as given
        return _rows_of(value, bound, frames, depth + 1)
    return root.id if root.id in frames else None


def _naming_column(frame: Any, *subjects: str, measured: str = "") -> str | None:
    """The column that names ``frame``'s rows for ``subjects``: one whose name holds a subject
    ("year" for "which year", or for a part named ``peak_year``), else the text column with the
    most different values, when nine rows in ten have a value of their own there (names, not
    categories)."""
    import pandas as pd

    words = {w for s in subjects for w in (s, s[:-1] if s.endswith("s") else s)} - {""}
    for column in frame.columns:
        if isinstance(column, str) and column != measured and words & set(column.lower().replace("-", "_").split("_")):
            return column
    best: tuple[int, str] | None = None
    for column in frame.columns:
        try:
            series = frame[column]
            text = pd.api.types.is_string_dtype(series.dtype) or pd.api.types.is_object_dtype(series.dtype)
            distinct = int(series.nunique()) if text and isinstance(column, str) else 0
        except (TypeError, ValueError, AttributeError):
            continue
        if distinct > 1 and 10 * distinct >= 9 * len(series) and (best is None or distinct > best[0]):
            best = (distinct, column)
    return best[1] if best is not None else None


def row_labels(spec: AnswerSpec, code: str, taken: Taken, frames: Mapping[str, Any]) -> dict[str, Miss]:
    """Each part the program binds to ``.idxmax()``/``.idxmin()`` of a column of a frame whose
    rows are numbered 0, 1, 2, … (part name → what did not fit), unless the part asks for the
    row itself: the value is the row's number (``380``), which is neither a thing the question
    names ("which municipality") nor a value of the row ("the year of the peak", 177 where 1947
    was asked). The retry is shown how to read the value from that row, with the column that
    names the rows, or holds the part's subject, when the data has one. A list of numbers read
    from such a frame's ``.index`` after a filter (``towns[towns['density'] > 1500].index``) is
    the rows' numbers in the same way (:func:`_kept_rows`)."""
    import pandas as pd

    parsed = _bindings(code)
    if parsed is None:
        return {}
    entries, bound = parsed
    if len(spec.parts) == 1 and spec.parts[0].name not in entries and "answer" in bound:
        entries = {spec.parts[0].name: bound["answer"]}
    out: dict[str, Miss] = {}
    for part in spec.parts:
        value = taken.values.get(part.name)
        named = {part.subject} if part.subject else set(part.name.lower().split("_")) - {""}
        if named & _ROW_WORDS:
            continue
        if _numbers(value) and part.name in entries:
            kept = _kept_rows(code, entries[part.name], bound, frames, named)
            if kept is not None:
                out[part.name] = kept
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        found = _row_label_of(entries[part.name], bound) if part.name in entries else None
        frame = frames.get(found[0]) if found is not None else None
        if found is None or frame is None or not isinstance(getattr(frame, "index", None), pd.RangeIndex):
            continue
        _, text, column, which, call = found
        naming = part.column or _naming_column(frame, *sorted(named), measured=column)
        shown = repr(naming) if naming else "'<the column that names the rows>'"
        asked = (f"a {part.subject}" if part.subject else
                 "the name asked for" if part.kind == "label" else f"the {part.name.replace('_', ' ')} asked for")
        note = f"{value} is the number of the row .{which}() found in {column!r}, not {asked}"
        read = f"{text}.loc[{text}[{column!r}].{which}(), {shown}]"
        one_line = naming and call.lineno == call.end_lineno and call.end_col_offset is not None
        rewrite = ((call.lineno, call.col_offset, call.end_col_offset or 0), read) if one_line else None
        out[part.name] = Miss(note, f"{note}; read it from that row: {read}", rewrite)
    return out
