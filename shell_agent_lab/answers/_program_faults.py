"""Why a program failed, for the model's second try: read from the exception's type and
attributes, the syntax of the line that failed and the objects that line names, never from the
wording of the message (which changes from one library version to the next).

* ``AttributeError`` carries the object and the name looked up (``exc.obj``, ``exc.name``): a
  single value asked for a Series method, a method a frame does not have, a column spelled
  otherwise, a module function that does not exist, a ``.dt``/``.str`` accessor on the wrong
  kind of column.
* ``KeyError`` carries the key: the key may be the index of the object subscripted on that line
  (a ``groupby`` or ``set_index`` moved it there), a column of another frame, or a near miss; a
  key that is one True/False is a comparison of one number used as a row mask.
* ``NameError`` carries the name: a column written as a bare name.
* ``ValueError`` on a line that unpacks a call into several names: the fields that call returns.
* ``TypeError`` on a line that resamples a frame (or its column) whose index holds no dates:
  the frame's date columns to put in the index, or to group by the year of.
* ``ValueError`` or ``TypeError`` on a line that calls ``idxmax``/``idxmin`` on a whole frame
  (a name holding a DataFrame, its rows selected by a mask, ``.loc`` without a column): one
  label per column is not a row, and a column with no value (or text) makes it fail.
* ``TypeError`` on a line whose comparison has ``&``/``|`` inside it (``a == 1 & b == 2``), or
  that aggregates or does arithmetic over a frame holding text columns.
* ``ValueError`` or ``TypeError`` on a line that reads a text column as numbers (``.astype(float)``,
  ``pd.to_numeric`` without ``errors=``) or compares it with a number: the column's own text
  that is no number, and ``pd.to_numeric(…, errors='coerce')``, which reads it.

Runs where the program ran (the sandbox's program process, or the approved in-kernel run):
numpy, pandas and the standard library only.
"""
from __future__ import annotations

import ast
import difflib
from collections.abc import Mapping
from types import ModuleType, TracebackType
from typing import Any, Collection

import numpy as np
import pandas as pd

__all__ = ["PROGRAM_FILENAME", "fault_hint", "failing_line", "traceback_line", "unpacked_fields"]

#: the file name the program's code carries
PROGRAM_FILENAME = "<program>"
_MAX_NAMES = 8

#: a method a Series or DataFrame does not have → what to write instead
_INSTEAD = {"zscore": "use stats.zscore(values) or (values - values.mean()) / values.std()",
            "corrwith": "for two columns use frame['a'].corr(frame['b'])",
            "ttest": "use stats.ttest_ind(a, b)",
            "percentile": "use .quantile(q), q the fraction asked (0.9 for the 90th percentile)",
            "iqr": "use .quantile(0.75) - .quantile(0.25)", "mode_value": "use .mode().iloc[0]"}
#: module functions small models reach for that a least-squares line replaces
_REGRESSION = {"ols", "OLS", "linear_regression", "regress", "regression", "linregress", "lstsq", "LinearRegression"}
#: what a call's result unpacks into, by the function's name
_FIELDS = {"linregress": "slope, intercept, rvalue, pvalue, stderr",
           "chi2_contingency": "chi2, p, dof, expected",
           **{f: "statistic, pvalue" for f in ("ttest_ind", "ttest_rel", "ttest_1samp", "pearsonr", "spearmanr",
                                              "kendalltau", "f_oneway", "shapiro", "normaltest", "mannwhitneyu",
                                              "wilcoxon", "kruskal", "levene", "bartlett", "ks_2samp", "kstest",
                                              "chisquare", "jarque_bera", "fisher_exact", "anderson")},
           "divmod": "quotient, remainder", "polyfit": "one coefficient per degree, highest first (deg=1: slope, intercept)"}
#: methods that reduce or combine a frame's columns (text columns make them fail)
_AGGREGATES = {"mean", "sum", "std", "var", "median", "agg", "aggregate", "corr", "cov", "quantile", "prod",
               "sem", "skew", "kurt", "cumsum", "pct_change", "diff", "rank", "transform", "apply", "resample"}


def traceback_line(tb: TracebackType | None) -> int | None:
    """The innermost line of a traceback that is the program's own (None when none is)."""
    line: int | None = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def failing_line(exc: BaseException, source: str) -> tuple[int | None, ast.stmt | None]:
    """The program's line the error came from (the innermost of the program's own frames) and
    the smallest statement that holds it."""
    line = traceback_line(exc.__traceback__)
    if line is None or not source:
        return line, None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return line, None
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or (node.end_lineno or node.lineno) - node.lineno <= (best.end_lineno or best.lineno) - best.lineno:
                best = node
    return line, best


def fault_hint(exc: BaseException, frames: Mapping[str, Any], source: str = "",
               scope: Mapping[str, Any] | None = None) -> str | None:
    """One hint for the model's second try, or None when nothing specific is known."""
    _, statement = failing_line(exc, source)
    scope = scope if scope is not None else {}
    tables = {n: f for n, f in frames.items() if isinstance(f, pd.DataFrame)}
    try:
        if isinstance(exc, AttributeError):
            return _attribute(exc, tables, statement)
        if isinstance(exc, KeyError):
            return _key(exc, tables, statement, scope)
        if isinstance(exc, NameError):
            return _name(exc, tables)
        if isinstance(exc, ValueError) and statement is not None:
            return _unpack(statement) or _text_as_number(statement, tables) or _whole_frame_index(statement, tables, scope)
        if isinstance(exc, TypeError) and statement is not None:
            return (_resampled_without_dates(statement, tables, scope) or _type(statement, tables, scope)
                    or _whole_frame_index(statement, tables, scope))
    except Exception:  # a hint is a courtesy: never let it hide the error itself
        return None
    return None


# -- AttributeError ------------------------------------------------------------------------------
def _attribute(exc: AttributeError, tables: Mapping[str, pd.DataFrame], statement: ast.stmt | None) -> str | None:
    obj, name = getattr(exc, "obj", None), getattr(exc, "name", None)
    if name is None:
        return None
    if isinstance(obj, pd.Series) and name in ("dt", "str"):
        if name == "dt":
            return ("that column holds text, not dates: read it with pd.to_datetime(frame['column'], "
                    "errors='coerce') first (with format= when the question says how dates are written)")
        return f"that column holds {obj.dtype} values, not text: .str works on text columns only"
    if isinstance(obj, (np.number, int, float)) and not isinstance(obj, bool) and _reduced_too_early(statement, name):
        return (f"that is already one number ({obj!r}): a reduction such as .sum() or .mean() over the whole "
                f"column came before .{name}(); to compare groups, group by the label column first: "
                f"frame.groupby('label_column')['value_column'].sum().{name}()")
    if isinstance(obj, (np.generic, int, float, str, bool)):
        return ("idxmax()/idxmin() give a row's index label, not a value of another column: read that column "
                "at it with frame.loc[label, 'column']" if not isinstance(obj, str) else
                f"that is one text value ({obj[:40]!r}), not a Series or a date: it has no {name}")
    if isinstance(obj, (pd.Series, pd.DataFrame)):
        kind = type(obj).__name__
        if name in _INSTEAD:
            return f"a {kind} has no {name}: {_INSTEAD[name]}"
        accessor = _accessor_of(obj, name) if isinstance(obj, pd.Series) else None
        if accessor is not None:
            return accessor
        if isinstance(obj, pd.DataFrame):
            near = _near(name, [str(c) for c in obj.columns])
            if near:
                return f"no column {name!r}; the nearest: {near} (write frame['column'])"
        return None
    if isinstance(obj, ModuleType):
        module = obj.__name__
        if name == "iqr":
            return ("for the interquartile range use stats.iqr(values) (Q3 - Q1); for the quartiles themselves "
                    "values.quantile([0.25, 0.75])")
        if module == "pandas" and name == "time":
            return ("pandas has no time: compare the hour of a datetime column instead, frame['column'].dt.hour "
                    "(and .dt.minute)")
        if name in _REGRESSION:
            return ("for a least-squares line use stats.linregress(x, y): its slope, intercept and rvalue "
                    "(R squared is rvalue ** 2)")
        near = _near(name, [a for a in dir(obj) if not a.startswith("_")])
        return f"{module} has no {name}" + (f"; the nearest: {near}" if near else ": use a function it has")
    return None


def _accessor_of(series: pd.Series, name: str) -> str | None:
    """Where a Series keeps ``name`` when its ``.dt`` or ``.str`` accessor has it
    (``s.date`` → ``s.dt.date``), or None."""
    from pandas.core.indexes.accessors import DatetimeProperties
    from pandas.core.strings.accessor import StringMethods

    if hasattr(DatetimeProperties, name):
        dated = pd.api.types.is_datetime64_any_dtype(series.dtype)
        return (f"a Series has no {name}: each value's {name} is series.dt.{name}"
                + ("" if dated else " (this one holds text: read it with pd.to_datetime(series, errors='coerce') first)"))
    if hasattr(StringMethods, name):
        return f"a Series has no {name}: each text value's {name} is series.str.{name}()"
    return None


def _reduced_too_early(statement: ast.stmt | None, name: str) -> bool:
    """Whether the failing line calls a Series method (one a number lacks) on what a call gave
    (``….sum().idxmax()``): the reduction made one number where a Series was meant."""
    if not callable(getattr(pd.Series, name, None)) or hasattr(np.float64(0), name) or statement is None:
        return False
    return any(isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.value, ast.Call)
               for n in ast.walk(statement))


# -- KeyError ------------------------------------------------------------------------------------
def _key(exc: KeyError, tables: Mapping[str, pd.DataFrame], statement: ast.stmt | None,
         scope: Mapping[str, Any]) -> str | None:
    if not exc.args:
        return None
    key = exc.args[0]
    if isinstance(key, (bool, np.bool_)):
        compared = next((ast.unparse(n) for n in ast.walk(statement) if isinstance(n, ast.Compare)), "") \
            if statement is not None else ""
        shown = f" ({compared})" if compared and len(compared) <= 160 else ""
        return (f"that comparison{shown} gave one True or False (it compares one number, such as a whole "
                "column's sum or count), not one per row: to rank groups, compute per group first, "
                "frame.groupby('g')['x'].sum(), then .idxmax() names the group with the most; to keep the "
                "groups with at least n rows, frame.groupby('g').filter(lambda rows: len(rows) >= n)")
    if not isinstance(key, str):
        return None
    for var, obj in _subscripted(statement, scope):
        index_names = [n for n in getattr(getattr(obj, "index", None), "names", []) or [] if n is not None]
        if key in index_names and key not in getattr(obj, "columns", []):
            return (f"{key!r} is the index of {var} here, not a column (a groupby or set_index put it there): "
                    f"read {var}.index, or call {var}.reset_index() first (or group with as_index=False)")
        columns = [str(c) for c in getattr(obj, "columns", [])]
        if key in columns:
            # asked of what the line made from it: one column picked (a Series), a result
            return (f"{key!r} is a column of {var}, but the line asks for it of something made from {var} that "
                    f"lacks it (one column picked from it has no other columns): group or select on {var} "
                    f"itself, then pick the column, {var}.groupby({key!r})['column']")
        if columns and any(key in f.columns for f in tables.values()):
            owner = next(n for n, f in tables.items() if key in f.columns)
            return (f"{key!r} is a column of {owner} but not of {var}, whose columns are: "
                    f"{', '.join(columns[:_MAX_NAMES * 3])}")
        if columns and key not in columns and var not in tables:
            # a frame the program made: its columns are named as pandas named them, not as meant
            return (f"{var} has no column {key!r}; its columns are: {', '.join(columns[:_MAX_NAMES * 3])} "
                    "(a key grouped by a column's values keeps that column's name)")
    every = [str(c) for f in tables.values() for c in f.columns]
    near = _near(key, every)
    if near and key not in every:
        return f"no column {key!r}; the nearest: {near}"
    return None


def _subscripted(statement: ast.stmt | None, scope: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The program's variables subscripted on the line (``grouped['species']`` → grouped),
    with what they hold now."""
    if statement is None:
        return []
    found: list[tuple[str, Any]] = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in scope:
            obj = scope[node.value.id]
            if isinstance(obj, (pd.DataFrame, pd.Series)):
                found.append((node.value.id, obj))
    return found


# -- NameError -----------------------------------------------------------------------------------
def _name(exc: NameError, tables: Mapping[str, pd.DataFrame]) -> str | None:
    name = getattr(exc, "name", None)
    if not name:
        return None
    owner = next((n for n, f in tables.items() if name in f.columns), None)
    if owner:
        return f"{name!r} is a column, not a variable: write {owner}[{name!r}]"
    if tables:
        return f"the tables are named {', '.join(tables)}"
    return None


# -- ValueError on unpacking ---------------------------------------------------------------------
def _unpacking(statement: ast.AST) -> tuple[str, ast.Call, list[str]] | None:
    """(the function's name, the call, the names as written) of ``a, b = f(…)``; None for any
    other statement."""
    if not (isinstance(statement, ast.Assign) and statement.targets
            and isinstance(statement.targets[0], (ast.Tuple, ast.List)) and isinstance(statement.value, ast.Call)):
        return None
    func = statement.value.func
    callee = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return callee, statement.value, [ast.unparse(e) for e in statement.targets[0].elts]


def _unpack(statement: ast.stmt) -> str | None:
    unpacking = _unpacking(statement)
    if unpacking is None:
        return None
    callee, call, names = unpacking
    count = _field_count(callee, call)
    if count is not None and len(names) > count:
        # the model unpacks into the answer's parts: the line as it takes it, the rest on their own
        rest, lines = ", ".join(names[count:]), "a line of its own" if len(names) - count == 1 else "lines of their own"
        return (f"{callee} gives {_FIELDS[callee]}: write `{', '.join(names[:count])} = {ast.unparse(call)}`, "
                f"then compute {rest} from {'them' if count > 1 else 'it'} on {lines}")
    if callee in _FIELDS:
        return f"{callee} gives {_FIELDS[callee]}: unpack exactly those, or keep the result and read its fields"
    return (f"{callee or 'that call'} does not give {len(names)} values: keep its result in "
            "one name, print it, and read its fields")


#: the methods that give the row label of a column's largest or smallest value
_ROW_OF = ("idxmax", "idxmin")


def _held(name: str, tables: Mapping[str, pd.DataFrame], scope: Mapping[str, Any]) -> Any:
    """What ``name`` holds where the program failed: its own variable, else the given frame."""
    return scope.get(name, tables.get(name))


def _frames_on(statement: ast.stmt, tables: Mapping[str, pd.DataFrame],
               scope: Mapping[str, Any]) -> list[tuple[str, pd.DataFrame]]:
    """The names on the line that hold a DataFrame, with it, in name order."""
    names = sorted({n.id for n in ast.walk(statement) if isinstance(n, ast.Name)})
    return [(n, obj) for n in names if isinstance(obj := _held(n, tables, scope), pd.DataFrame)]


def _frame_valued(node: ast.expr, tables: Mapping[str, pd.DataFrame], scope: Mapping[str, Any]) -> bool:
    """Whether ``node`` is a whole frame: a name holding a DataFrame, its rows selected
    (``frame[mask]``, ``frame.loc[mask]``, ``frame.iloc[:5]``) or a list of its columns; not one
    column (``frame['c']``, ``frame.loc[mask, 'c']``)."""
    if isinstance(node, ast.Name):
        return isinstance(_held(node.id, tables, scope), pd.DataFrame)
    if not isinstance(node, ast.Subscript):
        return False
    inner = node.value
    if isinstance(inner, ast.Attribute) and inner.attr in ("loc", "iloc"):
        return not isinstance(node.slice, ast.Tuple) and _frame_valued(inner.value, tables, scope)
    one_column = isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, (str, int))
    return not one_column and _frame_valued(inner, tables, scope)


def _whole_frame_index(statement: ast.stmt, tables: Mapping[str, pd.DataFrame], scope: Mapping[str, Any]) -> str | None:
    """The hint for ``idxmax()``/``idxmin()`` called on a whole frame on the failing line."""
    for node in ast.walk(statement):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ROW_OF
                and _frame_valued(node.func.value, tables, scope)):
            method = node.func.attr
            return (f"{ast.unparse(node.func.value)}.{method}() ranks every column of a frame (one label per "
                    f"column; a text column or one with no value makes it fail): select the one column to rank, "
                    f"frame.loc[rows, 'value_column'].{method}(), then read another column at that row with "
                    f"frame.loc[label, 'name_column']")
    return None


def _resampled_without_dates(statement: ast.stmt, tables: Mapping[str, pd.DataFrame],
                             scope: Mapping[str, Any]) -> str | None:
    """The hint for ``.resample(…)`` on the failing line over a frame whose index holds no
    dates: its date columns, set as the index or grouped by their year."""
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "resample"
               for n in ast.walk(statement)):
        return None
    for name, frame in _frames_on(statement, tables, scope):
        if isinstance(frame.index, (pd.DatetimeIndex, pd.PeriodIndex, pd.TimedeltaIndex)):
            continue
        dates = [str(c) for c, t in frame.dtypes.items() if pd.api.types.is_datetime64_any_dtype(t)]
        if not dates:
            return (f"resample needs dates in the index, and no column of {name} holds dates yet: read one with "
                    f"pd.to_datetime({name}['column']) and set it as the index first")
        column = dates[0]
        return (f"resample needs dates in the index, and {name}'s index is row numbers: set its date column as the "
                f"index first, {name}.set_index({column!r})['value_column'].resample('YE').mean(), or group by "
                f"the year, {name}.groupby({name}[{column!r}].dt.year)['value_column'].mean()")
    return None


def _field_count(callee: str, call: ast.Call) -> int | None:
    """How many values ``call`` gives: its fields, or a polynomial fit's degree plus one."""
    if callee == "polyfit":
        degree = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "deg"), None)
        return degree.value + 1 if isinstance(degree, ast.Constant) and isinstance(degree.value, int) else None
    return len(_FIELDS[callee].split(", ")) if callee in _FIELDS and callee != "polyfit" else None


def unpacked_fields(code: str, names: Collection[str]) -> str | None:
    """What to tell the model when ``names`` (parts whose values did not fit) are bound by
    unpacking a call whose fields are known, by position: the model names them after the
    answer's parts (``chi2, dof, independent, _ = chi2_contingency(t)`` binds ``dof`` to the
    p-value). Says which field each got, and the line written with the fields' own names."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        unpacking = _unpacking(node) if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if unpacking is None:
            continue
        callee, call, targets = unpacking
        fields = (["slope", "intercept"] if callee == "polyfit" and _field_count(callee, call) == 2
                  else _FIELDS[callee].split(", ") if callee in _FIELDS and callee != "polyfit" else [])
        if len(targets) != len(fields):
            continue
        got = [(t, f) for t, f in zip(targets, fields) if t in names and t != f]
        if got:
            line = f"{', '.join(fields)} = {ast.unparse(call)}"
            which = "; ".join(f"{t} is its {f}" for t, f in got)
            return (f"{callee} gives {', '.join(fields)}, in that order, so {which}: write `{line}`, then bind "
                    f"{', '.join(t for t, _ in got)} from those fields")
    return None


# -- TypeError -----------------------------------------------------------------------------------
def _type(statement: ast.stmt, tables: Mapping[str, pd.DataFrame], scope: Mapping[str, Any]) -> str | None:
    for node in ast.walk(statement):
        if isinstance(node, ast.Compare) and any(
                isinstance(side, ast.BinOp) and isinstance(side.op, (ast.BitAnd, ast.BitOr))
                for side in [node.left, *node.comparators]):
            return ("& and | bind tighter than ==, <, >: put each comparison in parentheses, "
                    "(frame['a'] == 1) & (frame['b'] > 2)")
    numbers = _text_as_number(statement, tables)
    if numbers is not None:
        return numbers
    if _text_column_used(statement, tables):
        return ("a text column (a flag such as 'Yes'/'No', a label) cannot be summed, averaged or divided: "
                "compare it with a value first, e.g. (frame['column'] == 'Yes').sum() or .mean()")
    text = {}
    for name, obj in _frames_on(statement, tables, scope):
        cols = [str(c) for c, t in obj.dtypes.items() if not (pd.api.types.is_numeric_dtype(t)
                                                              or pd.api.types.is_datetime64_any_dtype(t))]
        if cols:
            text[name] = cols
    if text and any(isinstance(n, ast.Attribute) and n.attr in _AGGREGATES for n in ast.walk(statement)):
        listed = "; ".join(f"{n}: {', '.join(c[:_MAX_NAMES])}" for n, c in text.items())
        return (f"text columns ({listed}) cannot be averaged or summed: pick the numeric columns first, "
                "frame.groupby('g')[['a', 'b']].mean(), or pass numeric_only=True")
    return None


#: what a column is cast to when it is read as numbers
_NUMBER_TYPES = frozenset({"float", "int", "float64", "int64", "float32", "int32", "Float64", "Int64"})


def _text_column(node: ast.expr, tables: Mapping[str, pd.DataFrame]) -> tuple[str, str] | None:
    """(frame, column) of ``<table>['column']`` when the column holds text."""
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in tables
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        frame, column = tables[node.value.id], node.slice.value
        if column in frame.columns and not (pd.api.types.is_numeric_dtype(frame[column].dtype)
                                            or pd.api.types.is_datetime64_any_dtype(frame[column].dtype)):
            return node.value.id, column
    return None


def _read_as_numbers(node: ast.AST, tables: Mapping[str, pd.DataFrame]) -> tuple[str, str] | None:
    """The text column ``node`` reads as numbers: ``col.astype(float)``, ``pd.to_numeric(col)``
    without ``errors=``, or ``col`` compared with a number."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and node.args:
        kind = node.args[0]
        name = kind.id if isinstance(kind, ast.Name) else kind.value if isinstance(kind, ast.Constant) else None
        return _text_column(node.func.value, tables) if name in _NUMBER_TYPES else None
    if (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and node.args
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "to_numeric"
            and not any(k.arg == "errors" for k in node.keywords)):
        return _text_column(node.args[0], tables)
    if isinstance(node, ast.Compare) and not isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
        sides = [node.left, *node.comparators]
        if any(isinstance(x, ast.Constant) and isinstance(x.value, (int, float)) and not isinstance(x.value, bool)
               for x in sides):
            return next((found for x in sides if (found := _text_column(x, tables)) is not None), None)
    return None


def _text_as_number(statement: ast.stmt, tables: Mapping[str, pd.DataFrame]) -> str | None:
    """The hint for a line that reads a text column as numbers: what the column holds that is
    no number, and the call that reads the rest."""
    for node in ast.walk(statement):
        found = _read_as_numbers(node, tables)
        if found is None:
            continue
        name, column = found
        values = tables[name][column].dropna().astype(str)
        odd = values[pd.to_numeric(values, errors="coerce").isna()].unique()[:2]
        shown = f" (it holds {', '.join(repr(v) for v in odd)})" if len(odd) else ""
        return (f"{column!r} is a text column{shown}: read it as numbers with pd.to_numeric({name}[{column!r}], "
                "errors='coerce'), which makes every entry that is not a number NaN")
    return None


def _text_column_used(statement: ast.stmt, tables: Mapping[str, pd.DataFrame]) -> bool:
    """Whether the line reads a text column of a table (``df['region']``)."""
    return any(_text_column(node, tables) is not None for node in ast.walk(statement) if isinstance(node, ast.expr))


def _near(word: str, choices: list[str]) -> str:
    matches = difflib.get_close_matches(word, choices, n=3, cutoff=0.6)
    if not matches:
        lowered = {c.lower(): c for c in choices}
        matches = [lowered[word.lower()]] if word.lower() in lowered else []
    return ", ".join(repr(m) for m in matches)
