"""Slips in a program that code can mend without asking the model again.

- **Grouped columns picked as a tuple.** ``df.groupby('a')['b', 'c']`` (pandas 2 takes a list
  only) is written ``df.groupby('a')[['b', 'c']]``.
- **Renamed keywords.** numpy 2 calls the interpolation of ``np.quantile`` and its kin
  ``method=`` (``interpolation=`` is gone); ``scipy.stats.iqr`` still calls it
  ``interpolation=``. A small model mixes the two up; :func:`mended_calls` writes each call
  the way its library spells it, before the program runs.
- **Changes made in place.** ``df.dropna(inplace=True)`` is written ``df = df.dropna()`` and
  ``df['a'].fillna(0, inplace=True)`` is written ``df['a'] = df['a'].fillna(0)``: the same result
  (the second one, under pandas 3's Copy-on-Write, is what the program meant and did not get).
- **A test's result unpacked into surplus names.** ``t, p, _ = ttest_ind(…)`` (two fields)
  would raise; the ``_`` past the fields, and names past them the program never reads, are
  dropped (:func:`fitted_unpacks`). A small model
  repeated the slip on its retry even when told the fields.
- **A grouping column passed as a sample.** ``f_oneway(df['income'], df['education'])``
  compares the incomes with the group labels themselves (it fails on text labels, and on
  numeric codes such as a class 1–3 it runs and answers wrongly). A test that compares groups
  is given the value column split by the grouping column
  (``f_oneway(*[g.dropna() for _, g in df.groupby('education')['income']])``), when the data
  shows which is which: the second column has a handful of distinct values, the first more
  (:func:`sampled_groups`). A two-sample test is mended only when there are two groups. A test
  given one number per group (``f_oneway(*df.groupby('g')['y'].mean())``, or those numbers as
  one sample, ``f_oneway(means)``) gets the groups' values the same way.
- **Yes/no columns used as numbers.** A text column holding only a yes/no pair (``Yes``/``No``,
  ``Y``/``N``, ``TRUE``/``FALSE``, ``t``/``f``) is summed or averaged as if it held booleans
  (``df['Converted'].mean()``), and the run fails on text arithmetic. :func:`flag_columns` finds
  such columns; when a run fails, the same program runs once more with the flag columns it names
  (and never compares with one of their values) read as booleans by the preamble, with no new
  request to the model.
- **A column grouped by another column's name.** ``f[mask]['price'].groupby('symbol')`` picks
  one column, then groups it by a name a Series does not have (``KeyError: 'symbol'``): written
  ``f[mask].groupby('symbol')['price']`` (:func:`series_grouped`), when ``symbol`` is a column of
  the data.
- **A mask written without its parentheses.** ``f['a'] == 'JFK' & (f['m'] == 7)`` compares
  ``f['a']`` with ``'JFK' & (…)`` (``&`` binds tighter than ``==``) and raises; with a number it
  runs as a bitwise and. Written as the two masks, ``(f['a'] == 'JFK') & (f['m'] == 7)``
  (:func:`masks_parenthesised`): the model repeated the slip on its retry, told the rule.
- **Frequency aliases pandas renamed.** ``resample('Y')``, ``'M'``, ``'Q'``, ``'H'``, ``'T'``
  (pandas 3 takes ``'YE'``, ``'ME'``, ``'QE'``, ``'h'``, ``'min'``): an alias the installed pandas
  does not parse, passed as a frequency (``resample``, ``asfreq``, ``rolling``, ``floor``/``ceil``/
  ``round`` of dates, ``freq=`` of ``date_range`` or ``Grouper``), is written with the name pandas
  gave it, when that name parses (:func:`offsets_respelled`). Under a pandas that still takes
  the old alias nothing changes. A small model wrote ``resample('Y')`` again on its retry, told
  the error.
- **Members pandas took away.** ``f['date'].dt.weekday_name``, ``.dt.week`` and ``.dt.weekofyear``,
  ``s.iteritems()``, ``s.is_monotonic`` (gone by pandas 2 or 3) are written as what the installed
  pandas offers instead (``.dt.day_name()``, ``.dt.isocalendar().week``, ``s.items()``,
  ``s.is_monotonic_increasing``) when it no longer has them (:func:`members_respelled`). A small
  model learnt them from older code; the run would stop at the first, with the parts after it
  not computed.
- **Rows kept by a count of their value.** ``f[f['state'].value_counts() >= 100]`` (or
  ``f.groupby('state').size()``, or a name bound to either) compares counts indexed by the
  column's values, not by the frame's rows, so pandas refuses the mask ("Unalignable boolean
  Series"). The counts are mapped onto the rows, ``f[f['state'].map(f['state'].value_counts())
  >= 100]``: each row kept when its value's count passes (:func:`counts_on_rows`). The model
  repeated the line on each retry, told the error.
- **A reduction bound to the last operand only.** ``a - b.mean()`` subtracts one mean from each
  of ``a``'s values, ``(m1) & (m2).sum()`` ands a mask with a count: method calls bind tighter
  than operators, and the program meant ``(a - b).mean()``. When a part asked as one value came
  out as many, the expressions it is computed from are written with the reduction over the
  whole operation (:func:`reduced_whole`) and the program runs again, with no new request.
- **A column exploded in place.** ``f['types'] = f['types'].str.split(',').explode()`` gives
  one row per item, indexed by the row each came from, and cannot be put back into the column
  (``cannot reindex on an axis with duplicate labels``). The frame itself takes the split and
  is exploded on the column, ``f = f.assign(types=f['types'].str.split(',')).explode('types')``
  (:func:`explodes_framed`): one row per item, the other columns repeated beside it. The model
  wrote the same line on both its retries, told the error.
- **A frame's name respelled.** ``Forbes.dropna(…)`` for the frame ``forbes``: a name the
  program reads and never binds, spelled as one given frame's name but for its case, is that
  frame (:func:`frames_respelled`).
- **A column written as a bare name.** ``f[race == '5k']`` names the column as if it were a
  variable: the program is refused (``race`` is not defined). When one frame is given, a name
  the program reads and never binds, that is no builtin and is one of that frame's columns, is
  written as the column, ``f['race']`` (:func:`bare_columns`). The model wrote the same line on
  its retry, told the name was not defined.
"""
from __future__ import annotations

import ast
import builtins
import functools
from typing import Any, Callable, Collection, Mapping, Sequence

from .program_check import bound_names
from .program_names import answer_entries, bound_once, column_of
from .values import ANSWER_VARIABLE

__all__ = ["mended_calls", "fitted_unpacks", "without_inplace", "flag_columns", "flags_used", "flag_conversion",
           "grouped_reductions", "sampled_groups", "distinct_counter", "reduced_whole", "spans_rewritten", "series_grouped", "masks_parenthesised",
           "offsets_respelled", "members_respelled", "counts_on_rows", "modules_respelled", "bare_columns", "explodes_framed", "frames_respelled",
           "GROUPS_AT_MOST"]

#: the names every program can read without binding them
_BUILTINS = frozenset(dir(builtins))

#: keyword → keyword, for calls whose function (the last name of the callee) is listed
_RENAMES: dict[str, dict[str, str]] = {
    **{f: {"interpolation": "method"} for f in ("quantile", "percentile", "nanquantile", "nanpercentile")},
    "iqr": {"method": "interpolation"},
}
#: how many values a call's result unpacks into, by the function's name (scipy.stats' tests
#: give a statistic and a p-value; chi2_contingency four fields; linregress five)
_FIELD_COUNT: dict[str, int] = {
    **{f: 2 for f in ("ttest_ind", "ttest_rel", "ttest_1samp", "pearsonr", "spearmanr", "kendalltau", "f_oneway",
                      "shapiro", "normaltest", "mannwhitneyu", "wilcoxon", "kruskal", "levene", "bartlett",
                      "ks_2samp", "kstest", "chisquare", "jarque_bera", "fisher_exact")},
    "chi2_contingency": 4, "linregress": 5,
}
#: the fields of the calls that give more than two, in order, as scipy names them
_FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "chi2_contingency": ("chi2", "p", "dof", "expected"),
    "linregress": ("slope", "intercept", "rvalue", "pvalue", "stderr"),
}
#: module names a numpy call is made through (``np.quantile``, not a Series' ``.quantile``)
_NUMPY = {"np", "numpy"}
#: yes/no pairs, compared lower-case: (the true one, the false one)
_PAIRS = (("yes", "no"), ("y", "n"), ("true", "false"), ("t", "f"))


def _callee(func: ast.expr) -> tuple[str, str]:
    """(the name of the object called through, the function's name): ``np.quantile`` →
    ``("np", "quantile")``, ``stats.iqr`` → ``("stats", "iqr")``, ``iqr`` → ``("", "iqr")``."""
    if isinstance(func, ast.Attribute):
        base = func.value
        return (base.id if isinstance(base, ast.Name) else "", func.attr)
    if isinstance(func, ast.Name):
        return ("", func.id)
    return ("", "")


def _is_groupby(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "groupby")


def mended_calls(code: str) -> tuple[str, list[str]]:
    """``code`` with each keyword its library renamed written the new way, and the columns of a
    grouping picked as a list (``df.groupby('a')['b', 'c']``, which pandas 2 stopped taking, is
    ``df.groupby('a')[['b', 'c']]``); and what changed (``["np.nanquantile: interpolation= →
    method="]``). Code that does not parse is returned as it is."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    edits: list[tuple[int, int, str, str]] = []      # (line, column, old, new)
    changed: list[str] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Subscript) and _is_groupby(node.value) and isinstance(node.slice, ast.Tuple)
                and node.slice.elts and node.slice.lineno == node.slice.end_lineno
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.slice.elts)):
            first, last = node.slice.elts[0], node.slice.elts[-1]
            edits.append((last.lineno, last.end_col_offset or 0, "", "]"))
            edits.append((first.lineno, first.col_offset, "", "["))
            changed.append("groupby(…)[a, b] → groupby(…)[[a, b]]")
        if not isinstance(node, ast.Call):
            continue
        base, name = _callee(node.func)
        renames = _RENAMES.get(name)
        if not renames:
            continue
        if name != "iqr" and base not in _NUMPY:       # a Series' or DataFrame's .quantile(interpolation=) is right
            continue
        present = {k.arg for k in node.keywords}
        for kw in node.keywords:
            new = renames.get(kw.arg or "")
            if new and new not in present:
                edits.append((kw.lineno, kw.col_offset, kw.arg or "", new))
                changed.append(f"{base + '.' if base else ''}{name}: {kw.arg}= → {new}=")
    if not edits:
        return code, []
    lines = code.split("\n")          # ast counts lines at "\n" only (splitlines also splits at \x0c, \u2028 …)
    for lineno, col, old, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        line = lines[lineno - 1]
        data = line.encode("utf-8")              # ast's offsets count UTF-8 bytes
        if data[col: col + len(old)].decode("utf-8", "replace") == old:
            lines[lineno - 1] = (data[:col] + new.encode("utf-8") + data[col + len(old):]).decode("utf-8")
    return "\n".join(lines), changed


def without_inplace(code: str) -> tuple[str, list[str]]:
    """``code`` with each statement ``X.method(…, inplace=True)`` written ``X = X.method(…)``
    (``X`` a name, an attribute or an item), and the methods so rewritten. Code that does not
    parse is returned as it is."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    lines = code.splitlines()
    edits: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        flagged = [k for k in call.keywords if k.arg == "inplace"]
        if len(flagged) != 1 or not (isinstance(flagged[0].value, ast.Constant) and flagged[0].value.value is True):
            continue
        if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, (ast.Name, ast.Attribute, ast.Subscript))):
            continue
        target = call.func.value
        kept = ast.Call(func=call.func, args=call.args, keywords=[k for k in call.keywords if k.arg != "inplace"])
        assign = ast.Assign(targets=[target], value=kept, lineno=node.lineno)
        edits.append((node, ast.unparse(assign)))
    changed = []
    for node, text in sorted(edits, key=lambda e: e[0].lineno, reverse=True):
        end = node.end_lineno or node.lineno
        indent = lines[node.lineno - 1][: node.col_offset]
        lines[node.lineno - 1: end] = [indent + text]
        changed.append(f"line {node.lineno}: inplace=True → assignment")
    return ("\n".join(lines), sorted(changed)) if edits else (code, [])


def fitted_unpacks(code: str) -> tuple[str, list[str]]:
    """``code`` with each unpacking of a call whose result has a known number of fields, and
    more targets than that where the surplus are ``_`` or names the program never reads, fitted
    to the fields (``t, p, _ = ttest_ind(…)`` or ``t, p, significant = …`` with ``significant``
    never read → ``t, p = …``): as written it would raise, and dropping names nothing reads
    changes nothing else. Too few names are padded with ``_`` when none of them is the name of
    another field than the one at its place (``chi2, p, dof = chi2_contingency(…)`` →
    ``chi2, p, dof, _ = …``); otherwise which field a name meant is not known
    (``chi2, p, expected = …`` would bind ``expected`` to the degrees of freedom) and the retry's
    hint says the fields. Names past the fields that are read are left to it too."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    edits: list[tuple[ast.expr, str]] = []
    changed: list[str] = []
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)
                and isinstance(node.targets[0], (ast.Tuple, ast.List))):
            continue
        target = node.targets[0]
        names = [e.id if isinstance(e, ast.Name) else None for e in target.elts]
        fields = _FIELD_COUNT.get(_callee(node.value.func)[1])
        if fields is None or None in names or len(names) == fields or target.lineno != target.end_lineno:
            continue
        callee = _callee(node.value.func)[1]
        if len(names) < fields:
            known = [f.lower() for f in _FIELD_NAMES.get(callee, ())]
            if not known or any(str(n).lower() in known and known.index(str(n).lower()) != i for i, n in enumerate(names)):
                continue
            edits.append((target, ", ".join([str(n) for n in names] + ["_"] * (fields - len(names)))))
            changed.append(f"line {node.lineno}: {callee} unpacked into {fields} names")
            continue
        if not all(n == "_" or n not in read for n in names[fields:]):
            continue
        kept = [n for n in names[:fields] if n is not None]
        edits.append((target, ", ".join(kept)))
        changed.append(f"line {node.lineno}: {_callee(node.value.func)[1]} unpacked into {fields} names")
    return (_replaced(code, edits), changed) if edits else (code, [])


def _replaced(code: str, edits: Sequence[tuple[ast.stmt | ast.expr, str]]) -> str:
    """``code`` with each one-line node of ``edits`` replaced by its text (ast's offsets count
    UTF-8 bytes), the last first so earlier offsets stay true."""
    lines = code.split("\n")
    for where, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        data = lines[where.lineno - 1].encode("utf-8")
        lines[where.lineno - 1] = (data[:where.col_offset] + text.encode("utf-8")
                                   + data[where.end_col_offset or 0:]).decode("utf-8")
    return "\n".join(lines)


def spans_rewritten(code: str, rewrites: Collection[tuple[tuple[int, int, int], str]]) -> str:
    """``code`` with each one-line span ``(line, column, end column)`` (ast's offsets) written as
    its text: what a check of the values read from the program can write instead."""
    class _At:
        def __init__(self, line: int, start: int, end: int) -> None:
            self.lineno, self.col_offset, self.end_col_offset = line, start, end

    return _replaced(code, [(_At(*span), text) for span, text in rewrites])  # type: ignore[misc]


def flag_columns(frame: Any, missing: Sequence[str]) -> dict[str, tuple[str, str]]:
    """The text columns of ``frame`` that hold a yes/no pair and nothing else (besides missing
    values and the ``missing`` markers, compared lower-case and trimmed): ``{column: (the value meaning true, the value meaning false)}``
    as the column writes them."""
    out: dict[str, tuple[str, str]] = {}
    markers = {m.strip().lower() for m in missing}
    for column in getattr(frame, "columns", []):
        if not isinstance(column, str):
            continue
        series = frame[column]
        if str(series.dtype) not in ("object", "str", "string") and not str(series.dtype).startswith("string"):
            continue
        try:
            values = {str(v).strip() for v in series.dropna().unique()[:50]}
        except Exception:               # unhashable cells: not a flag column
            continue
        values = {v for v in values if v.lower() not in markers and v != ""}
        if len(values) != 2:
            continue
        lower = {v.lower(): v for v in values}
        for yes, no in _PAIRS:
            if set(lower) == {yes, no}:
                out[column] = (lower[yes], lower[no])
                break
    return out


def _literals(tree: ast.AST) -> set[str]:
    return {n.value.strip().lower() for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def flags_used(code: str, flags: Mapping[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The flag columns ``code`` names as a string and never compares with one of their values
    (a program that writes ``== 'Yes'`` reads the column as text, and must keep it so)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    literals = _literals(tree)
    return {c: pair for c, pair in flags.items()
            if c.strip().lower() in literals and not ({pair[0].lower(), pair[1].lower()} & literals)}


def flag_conversion(ref: str, pair: tuple[str, str]) -> str:
    """The preamble's line that reads a flag column as booleans (missing stays missing)."""
    yes, no = pair
    return f"{ref} = {ref}.str.strip().map({{{yes!r}: True, {no!r}: False}}).astype('boolean')"



#: a reduction over one column, and what is then asked of its result as if it were per group
_REDUCTIONS = frozenset({"sum", "mean", "median", "count", "max", "min", "size", "nunique"})
_PER_LABEL = frozenset({"idxmax", "idxmin", "nlargest", "nsmallest"})
#: what makes a frame's column reduce per group, not to one number
_GROUPED = frozenset({"groupby", "resample", "rolling", "expanding", "pivot_table", "pivot", "crosstab"})


def grouped_reductions(code: str, label: str | None) -> tuple[str, list[str]]:
    """``code`` with each ``<frame>['value'].sum().idxmax()`` — one column reduced to one
    number, then asked for the label of its largest value, which always raises (a number has no
    ``idxmax``) — written per value of the ``label`` column the answer names
    (``<frame>.groupby('city')['value'].sum().idxmax()``), and where. ``label``: the text column
    the spec ties the answer to; without one, or when the reduced column is that column, the code
    is returned as it is (the retry's hint says what went wrong). ``.loc[mask, 'value']`` becomes
    ``.loc[mask].groupby(…)['value']``."""
    if not label:
        return code, []

    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PER_LABEL):
            return None
        reduced = node.func.value
        if not (isinstance(reduced, ast.Call) and isinstance(reduced.func, ast.Attribute)
                and reduced.func.attr in _REDUCTIONS and not reduced.args and not reduced.keywords):
            return None
        picked = reduced.func.value
        if not isinstance(picked, ast.Subscript) or picked.lineno != picked.end_lineno:
            return None
        key = picked.slice
        frame: ast.expr = picked.value
        if isinstance(key, ast.Tuple) and len(key.elts) == 2 and isinstance(frame, ast.Attribute) and frame.attr == "loc":
            rows, key = key.elts
            frame = ast.Subscript(value=frame, slice=rows)              # .loc[mask, 'v'] → .loc[mask]
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) or key.value == label:
            return None
        if any(isinstance(n, ast.Attribute) and n.attr in _GROUPED for n in ast.walk(frame)):
            return None                   # already per group: its result has labels
        return picked, f"{ast.unparse(frame)}.groupby({label!r})[{key.value!r}]"

    return _rewrite(code, edit, f"one column reduced, then asked per {label!r} → grouped by it")


def series_grouped(code: str, columns: Collection[str]) -> tuple[str, list[str]]:
    """``code`` with each ``<frame>['value'].groupby('g')`` — one column picked, then grouped by
    another column's name, which a Series never has (it raises ``KeyError: 'g'``) — written
    ``<frame>.groupby('g')['value']``, when ``g`` is one of the data's ``columns``; and where."""
    known = set(columns)

    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "groupby"
                and len(node.args) == 1 and not node.keywords):
            return None
        picked, by = node.func.value, node.args[0]
        if not (isinstance(picked, ast.Subscript) and isinstance(picked.slice, ast.Constant)
                and isinstance(picked.slice.value, str) and isinstance(by, ast.Constant)
                and isinstance(by.value, str) and by.value in known and by.value != picked.slice.value
                and node.lineno == node.end_lineno):
            return None
        return node, f"{ast.unparse(picked.value)}.groupby({by.value!r})[{picked.slice.value!r}]"

    return _rewrite(code, edit, "one column grouped by another column's name → the frame grouped, then the column")


def masks_parenthesised(code: str) -> tuple[str, list[str]]:
    """``code`` with each comparison whose compared value was taken into an ``&`` or ``|``
    (``f['a'] == 'x' & (f['b'] == 7)`` is ``f['a'] == ('x' & (f['b'] == 7))``: ``&`` binds
    tighter than ``==``) written as the two masks it meant, ``(f['a'] == 'x') & (f['b'] == 7)``;
    a chained one (``f['a'] > 5 & f['b'] < 3``) as ``(f['a'] > 5) & (f['b'] < 3)``; and where.
    Only when the value taken in is a literal: text ``&`` a mask always raises, and a number
    ``&`` a mask is a bitwise and nobody means there."""
    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if not (isinstance(node, ast.Compare) and 1 <= len(node.ops) <= 2 and node.lineno == node.end_lineno):
            return None
        joined = node.comparators[0]
        if not (isinstance(joined, ast.BinOp) and isinstance(joined.op, (ast.BitAnd, ast.BitOr))
                and isinstance(joined.left, ast.Constant) and isinstance(joined.left.value, (str, int, float))):
            return None
        first = ast.Compare(left=node.left, ops=[node.ops[0]], comparators=[joined.left])
        rest: ast.expr = joined.right
        if len(node.ops) == 2:
            rest = ast.Compare(left=joined.right, ops=[node.ops[1]], comparators=[node.comparators[1]])
        sign = "&" if isinstance(joined.op, ast.BitAnd) else "|"
        return node, f"({ast.unparse(first)}) {sign} ({ast.unparse(rest)})"

    return _rewrite(code, edit, "a value compared, taken into & or | → the two masks it meant")


def _per_value(node: ast.expr, bound: Mapping[str, ast.expr]) -> tuple[str, str] | None:
    """(the frame's text, the column) of an expression indexed by one column's values:
    ``f['c'].value_counts()``, ``f.groupby('c').size()``, ``f.groupby('c')['x'].mean()``, or a
    name bound once to one of them; None for anything else."""
    if isinstance(node, ast.Name):
        node = bound.get(node.id, node)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args):
        return None
    inner = node.func.value
    if node.func.attr == "value_counts":
        return column_of(inner)
    if node.func.attr not in _REDUCTIONS or node.keywords:
        return None
    if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Constant):
        inner = inner.value                                 # f.groupby('c')['x'] → f.groupby('c')
    if not (_is_groupby(inner) and isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords):
        return None
    key = inner.args[0]
    frame = inner.func.value if isinstance(inner.func, ast.Attribute) else None
    if frame is None or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    return ast.unparse(frame), key.value


def counts_on_rows(code: str) -> tuple[str, list[str]]:
    """``code`` with each row mask of a frame compared from a count per value of one of its
    columns (``f[f['c'].value_counts() >= 5]``, which pandas refuses: the counts are indexed by
    the values, not the rows) written with the counts mapped onto the rows
    (``f[f['c'].map(f['c'].value_counts()) >= 5]``); and where."""
    try:
        tree = ast.parse(code)
        bound = bound_once(tree)
    except (SyntaxError, ValueError, RecursionError):
        return code, []
    edits: list[tuple[ast.expr, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript):
            continue
        frame = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "loc" else node.value
        rows = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        for compare in ast.walk(rows):
            if not isinstance(compare, ast.Compare) or compare.left.lineno != compare.left.end_lineno:
                continue
            counted = _per_value(compare.left, bound)
            if counted is None or counted[0] != ast.unparse(frame) or any(compare.left is e[0] for e in edits):
                continue
            column = f"{counted[0]}[{counted[1]!r}]"
            edits.append((compare.left, f"{column}.map({ast.unparse(compare.left)})"))
    changed = [f"line {where.lineno}: a count per value compared as a row mask → mapped onto the rows"
               for where, _ in edits]
    return (_replaced(code, edits), changed) if edits else (code, [])


#: frequency aliases pandas renamed (2.2 deprecated the old ones, 3.0 took them away)
_OFFSET_RENAMES = {"A": "YE", "Y": "YE", "M": "ME", "Q": "QE", "BA": "BYE", "BY": "BYE", "BM": "BME", "BQ": "BQE",
                   "AS": "YS", "BAS": "BYS", "H": "h", "BH": "bh", "CBH": "cbh", "T": "min", "S": "s", "L": "ms",
                   "U": "us", "N": "ns"}
#: calls whose first argument is a frequency, and the keywords that pass one
_FREQUENCY_FIRST = frozenset({"resample", "asfreq", "rolling", "floor", "ceil", "round"})
_FREQUENCY_KEYWORDS = frozenset({"rule", "freq", "window"})


@functools.lru_cache(maxsize=256)
def _offset_parses(alias: str) -> bool:
    from pandas.tseries.frequencies import to_offset

    try:
        to_offset(alias)
    except (ValueError, TypeError):
        return False
    return True


def _offset_renamed(alias: str) -> str | None:
    """The name the installed pandas gives ``alias`` (``'2M'`` → ``'2ME'``, ``'A-DEC'`` →
    ``'YE-DEC'``, ``'30T'`` → ``'30min'``), when ``alias`` does not parse and that name does."""
    digits = len(alias) - len(alias.lstrip("0123456789"))
    count, rest = alias[:digits], alias[digits:]
    base, dash, anchor = rest.partition("-")
    new = _OFFSET_RENAMES.get(base)
    if new is None or _offset_parses(alias):
        return None
    renamed = f"{count}{new}{dash}{anchor}"
    return renamed if _offset_parses(renamed) else None


def offsets_respelled(code: str) -> tuple[str, list[str]]:
    """``code`` with each frequency alias the installed pandas no longer parses written as it
    names it now (``co2['co2'].resample('Y')`` → ``resample('YE')``), and what changed."""
    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))):
            return None
        name = _callee(node.func)[1]
        given = [k.value for k in node.keywords if k.arg in _FREQUENCY_KEYWORDS]
        if name in _FREQUENCY_FIRST and node.args:
            given.append(node.args[0])
        for arg in given:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.lineno == arg.end_lineno:
                renamed = _offset_renamed(arg.value)
                if renamed is not None:
                    return arg, repr(renamed)
        return None

    return _rewrite(code, edit, "a frequency alias written as this pandas names it")


#: members pandas took away, with what the installed pandas offers in their place: for each the
#: name, where it was (the datetime accessor ``.dt``, or any pandas object), whether it was
#: called, and what is written instead (in a call, or as a chain of attributes after the object)
_MEMBER_RENAMES: dict[str, tuple[str, bool, str]] = {
    "weekday_name": ("dt", False, "day_name()"),
    "weekofyear": ("dt", False, "isocalendar().week"),
    "week": ("dt", False, "isocalendar().week"),
    "iteritems": ("any", True, "items"),
    "is_monotonic": ("any", False, "is_monotonic_increasing"),
}


@functools.lru_cache(maxsize=32)
def _member_gone(name: str) -> bool:
    """Whether no pandas object of the installed pandas has ``name`` any more."""
    import pandas as pd

    dates = pd.Series(pd.to_datetime(["2020-01-06"]))
    holders = (dates.dt,) if _MEMBER_RENAMES[name][0] == "dt" else (pd.Series, pd.DataFrame, pd.Index)
    return not any(hasattr(holder, name) for holder in holders)


def members_respelled(code: str) -> tuple[str, list[str]]:
    """``code`` with each pandas member the installed pandas took away written as what it offers
    instead (``f['d'].dt.weekday_name`` → ``f['d'].dt.day_name()``, ``s.iteritems()`` →
    ``s.items()``, ``s.is_monotonic`` → ``s.is_monotonic_increasing``), and what changed.
    Names on the datetime accessor are read only after ``.dt`` (``f.week`` may be a column);
    under a pandas that still has a member nothing changes."""
    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
            found = _MEMBER_RENAMES.get(node.func.attr)
            if found is not None and not found[1] and _on_accessor(node.func, found[0]) and _member_gone(node.func.attr):
                return node, f"{ast.unparse(node.func.value)}.{found[2]}"    # written as a call: the call is the member
        if not isinstance(node, ast.Attribute):
            return None
        found = _MEMBER_RENAMES.get(node.attr)
        if found is None or not _on_accessor(node, found[0]) or not _member_gone(node.attr):
            return None
        return node, f"{ast.unparse(node.value)}.{found[2]}"

    return _rewrite(code, _outermost(edit), "a member pandas took away written as what it offers now")


def _on_accessor(node: ast.Attribute, where: str) -> bool:
    return where == "any" or (isinstance(node.value, ast.Attribute) and node.value.attr == where)


def _outermost(edit: Callable[[ast.AST], tuple[ast.expr, str] | None]) -> Callable[[ast.AST], tuple[ast.expr, str] | None]:
    """``edit`` that leaves a node alone when it is the callee of a call ``edit`` rewrites whole
    (``x.dt.weekday_name()``: the call is written, not its attribute too)."""
    called: set[int] = set()

    def once(node: ast.AST) -> tuple[ast.expr, str] | None:
        if id(node) in called:
            return None
        found = edit(node)
        if found is not None and isinstance(node, ast.Call):
            called.add(id(node.func))
        return found

    return once


#: the modules a program is handed, by the names it is handed them under
_HANDED = {"pd": "pandas", "np": "numpy", "stats": "scipy.stats"}


def modules_respelled(code: str) -> tuple[str, list[str]]:
    """``code`` with a handed module reached through another handed module that has no such
    attribute written as itself (``pd.np.log`` → ``np.log``, ``pd.stats.shapiro`` →
    ``stats.shapiro``: pandas dropped ``pd.np`` and never had ``pd.stats``), and what changed."""
    import importlib

    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in _HANDED and node.attr in _HANDED and node.attr != node.value.id):
            return None
        if hasattr(importlib.import_module(_HANDED[node.value.id]), node.attr):
            return None
        return node, node.attr

    return _rewrite(code, edit, "a module reached through another written as itself")


def frames_respelled(code: str, frames: Collection[str]) -> tuple[str, list[str]]:
    """``code`` with each name it reads but never binds that is one of ``frames`` but for its
    case (``Forbes`` for ``forbes``) written as that frame's name; and where."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    bound = bound_names(tree) | _BUILTINS
    by_case: dict[str, list[str]] = {}
    for frame in frames:
        by_case.setdefault(frame.lower(), []).append(frame)

    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or node.id in bound or node.id in frames:
            return None
        same = by_case.get(node.id.lower(), [])
        return (node, same[0]) if len(same) == 1 else None

    return _rewrite(code, edit, "a frame's name respelled → the frame", tree)


def explodes_framed(code: str) -> tuple[str, list[str]]:
    """``code`` with each one-line ``X['c'] = <expr>.explode()`` (``X`` a name) written
    ``X = X.assign(**{'c': <expr>}).explode('c')``: the frame exploded on the column, not the
    exploded items put back into it; and where."""
    def edit(node: ast.AST) -> tuple[ast.stmt, str] | None:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and node.lineno == node.end_lineno):
            return None
        target, value = node.targets[0], node.value
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)
                and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr == "explode" and not value.args and not value.keywords):
            return None
        frame, column = target.value.id, target.slice.value
        split = ast.unparse(value.func.value)
        assigned = f"{column}={split}" if column.isidentifier() else f"**{{{column!r}: {split}}}"
        return node, f"{frame} = {frame}.assign({assigned}).explode({column!r})"

    return _rewrite(code, edit, "a column exploded into itself → the frame exploded on the column")


def bare_columns(code: str, frame: str, columns: Collection[str]) -> tuple[str, list[str]]:
    """``code`` with each name it reads but never binds, that is no builtin, not ``frame`` and
    one of ``frame``'s ``columns``, written as that column of ``frame`` (``race`` →
    ``runners['race']``); and where."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    free = {str(c) for c in columns if isinstance(c, str) and c.isidentifier()} - bound_names(tree) - _BUILTINS - {frame}

    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in free:
            return node, f"{frame}[{node.id!r}]"
        return None

    return _rewrite(code, edit, "a column written as a bare name → the frame's column", tree)


def _rewrite(code: str, edit: Callable[[ast.AST], tuple[ast.stmt | ast.expr, str] | None], why: str,
             tree: ast.Module | None = None) -> tuple[str, list[str]]:
    """``code`` with the (node, text) ``edit`` gives for any node of it (``tree``, when parsed
    already) written in, and one ``line N: why`` per edit; as it is, with none, when nothing is
    edited or it does not parse."""
    if tree is None:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return code, []
    edits = [found for found in map(edit, ast.walk(tree)) if found is not None]
    changed = [f"line {where.lineno}: {why}" for where, _ in edits]
    return (_replaced(code, edits), changed) if edits else (code, [])


#: tests over k groups' samples, and tests over exactly two samples (by the function's name)
_K_SAMPLE = frozenset({"f_oneway", "kruskal", "levene", "bartlett", "fligner", "alexandergovern"})
_TWO_SAMPLE = frozenset({"ttest_ind", "mannwhitneyu", "ks_2samp", "ranksums", "brunnermunzel"})
#: distinct values a column may have to be taken as a grouping column
GROUPS_AT_MOST = 12


def distinct_counter(frames: Mapping[str, Any]) -> Callable[[str], int]:
    """``count(column)``: how many distinct values (missing left out) the column of that name
    has in ``frames`` (the most, when several frames have one; 0 when none has it). Counted
    when first asked, since only a program that calls a test needs it."""
    @functools.lru_cache(maxsize=None)
    def count(column: str) -> int:
        most = 0
        for frame in frames.values():
            if column in getattr(frame, "columns", ()):
                try:
                    most = max(most, int(frame[column].nunique(dropna=True)))
                except (TypeError, ValueError, AttributeError):
                    continue
        return most
    return count


def sampled_groups(code: str, distinct: Callable[[str], int]) -> tuple[str, list[str]]:
    """``code`` with each group-comparing test called on two columns of one frame, a value
    column and a grouping column (``f_oneway(df['y'], df['g'])``), called on the value column's
    samples per group instead; and where. ``distinct(column)``: its number of distinct values
    (:func:`distinct_counter`). The second column groups when it has from two to
    ``GROUPS_AT_MOST`` values and the first has more; a two-sample test needs exactly two.
    A test given one number per group (``f_oneway(*df.groupby('g')['y'].mean())``, or a name
    bound to that) gets the groups' values instead: a sample of one value has no variance."""
    try:
        bound = bound_once(ast.parse(code))
    except (SyntaxError, ValueError, RecursionError):
        bound = {}

    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if isinstance(node, ast.Call) and len(node.args) == 1 and node.lineno == node.end_lineno:
            return _reduced_groups(node, bound, distinct)
        if not (isinstance(node, ast.Call) and len(node.args) == 2 and node.lineno == node.end_lineno):
            return None
        name = _callee(node.func)[1]
        if name not in _K_SAMPLE and name not in _TWO_SAMPLE:
            return None
        value, group = column_of(node.args[0]), column_of(node.args[1])
        if value is None or group is None or value[0] != group[0]:
            return None
        groups, values = distinct(group[1]), distinct(value[1])
        if not (2 <= groups <= GROUPS_AT_MOST and values > groups) or (name in _TWO_SAMPLE and groups != 2):
            return None
        return _over_groups(node, f"{value[0]}.groupby({group[1]!r})", value[1])

    return _rewrite(code, edit, "a test given group labels or one number per group → each group's values")


def _reduced_groups(node: ast.Call, bound: Mapping[str, ast.expr],
                    distinct: Callable[[str], int]) -> tuple[ast.expr, str] | None:
    """``test(*<frame>.groupby(key)['y'].mean())`` (or a name bound to the reduction) → the
    test over each group's values; None for any other call. The reduction passed whole, not
    unpacked (``f_oneway(means)``), is one sample, which such a test always refuses ("at least
    two samples are required"): it is mended the same way."""
    name = _callee(node.func)[1]
    if name not in _K_SAMPLE and name not in _TWO_SAMPLE:
        return None
    given = node.args[0].value if isinstance(node.args[0], ast.Starred) else node.args[0]
    reduced = bound.get(given.id) if isinstance(given, ast.Name) else given
    if not (isinstance(reduced, ast.Call) and isinstance(reduced.func, ast.Attribute)
            and reduced.func.attr in _REDUCTIONS and not reduced.args and not reduced.keywords):
        return None
    picked = reduced.func.value
    if not (isinstance(picked, ast.Subscript) and isinstance(picked.slice, ast.Constant)
            and isinstance(picked.slice.value, str) and _is_groupby(picked.value)):
        return None
    grouping = picked.value
    assert isinstance(grouping, ast.Call)
    key = grouping.args[0] if len(grouping.args) == 1 else None
    if name in _TWO_SAMPLE and not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                                    and distinct(key.value) == 2):
        return None
    return _over_groups(node, ast.unparse(grouping), picked.slice.value)


def _over_groups(call: ast.Call, grouping: str, column: str) -> tuple[ast.expr, str]:
    """``call`` (a test) written over each group's values of ``column``, ``grouping`` the
    ``<frame>.groupby(…)`` text, its keywords kept."""
    keywords = "".join(f", {ast.unparse(k)}" for k in call.keywords)
    return call, f"{ast.unparse(call.func)}(*[g.dropna() for _, g in {grouping}[{column!r}]]{keywords})"


#: reductions whose call on an operation's last operand was meant for the whole operation
_WHOLE = _REDUCTIONS | {"std", "var", "prod"}


def _feeding(tree: ast.Module, parts: Collection[str]) -> list[ast.expr]:
    """The expressions the values of ``parts`` are computed from: their entries in the
    ``answer = {…}`` dict, the values assigned to the names those read, and so on back up."""
    roots = [value for name, value in answer_entries(tree).items() if name in parts]
    assigns = [(names, node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
               for names in [{t.id for t in node.targets if isinstance(t, ast.Name)}]
               if not (ANSWER_VARIABLE in names and isinstance(node.value, ast.Dict))]
    pending = [n.id for r in roots for n in ast.walk(r) if isinstance(n, ast.Name)]
    wanted = set(pending)
    while pending:
        name = pending.pop()
        for names, value in assigns:
            if name in names and all(value is not r for r in roots):
                roots.append(value)
                read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} - wanted
                wanted |= read
                pending += read
    return roots


def reduced_whole(code: str, parts: Collection[str]) -> tuple[str, list[str]]:
    """``code`` with each operation whose last operand alone is reduced (``a - b.mean()``,
    ``(m1) & (m2).sum()``) written with the reduction over the whole operation
    (``(a - b).mean()``), in the expressions the values of ``parts`` are computed from; and
    where. Meant for parts asked as one value that came out as many: the rewrite gives each of
    them one value."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    scope = {id(n) for root in _feeding(tree, parts) for n in ast.walk(root)}
    inside: set[int] = set()          # nodes within an operation already rewritten

    def edit(node: ast.AST) -> tuple[ast.expr, str] | None:
        if id(node) not in scope or id(node) in inside or not isinstance(node, ast.BinOp):
            return None
        last = node.right
        if not (isinstance(last, ast.Call) and isinstance(last.func, ast.Attribute) and last.func.attr in _WHOLE
                and not last.args and node.lineno == node.end_lineno):
            return None
        first = node.left
        if isinstance(first, ast.Constant) or (isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute)
                                               and first.func.attr in _WHOLE):
            return None               # a number and a reduction, or two reductions: one value already
        inside.update(id(n) for n in ast.walk(node))
        operation = ast.BinOp(left=first, op=node.op, right=last.func.value)
        keywords = ", ".join(ast.unparse(k) for k in last.keywords)
        return node, f"({ast.unparse(operation)}).{last.func.attr}({keywords})"

    return _rewrite(code, edit, "a reduction of the last operand alone → of the whole operation", tree)
