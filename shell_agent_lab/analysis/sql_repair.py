"""Deterministic repair of model-written SQL from DuckDB's own parser and binder errors (pure).

Small models make the same few mistakes over and over; each has one right fix that needs no
model to find. :func:`repair` takes the statement, the error DuckDB gave for it and the columns
of the tables in scope, and returns the fixed statement with a one-line account of the fix, or
``None``. The engine runs a repaired statement through the read-only gate again, like any other.

* A column whose name SQL cannot take bare (``Mar.2020``, ``No. of cases``, ``Price (USD)``,
  ``2019 total``) written without quotes, or in MySQL backticks, or in single quotes where a
  column was meant: quoted as ``"Mar.2020"``.
* A column named in another spelling (``Mar_2020``, ``importance_score``, ``no_of_cases``) that
  matches exactly one column once case and punctuation are ignored: replaced by that column.
* A pandas/numpy function name (``std``, ``var``, ``nunique``, ``pstdev`` …): DuckDB's name.
* An aggregate over a column of numbers stored as text (``avg("Population")`` on ``VARCHAR``
  holding ``630,308[4]``): the column read through ``num()``, which strips currency signs,
  thousands separators, percent signs and footnote markers.

:func:`hint` words what the model should do when nothing could be repaired.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Column", "Repair", "repair", "preflight", "hint", "needs_quotes", "sql_name", "NUM_MACRO", "FUNCTION_NAMES"]

#: ``num(x)``: a text number as DOUBLE (NULL when it holds none), created on every engine
#: connection as a temporary macro. Footnotes (``[1]``) and notes in brackets (``(est.)``) go;
#: an exponent is kept (``1.5e3``) while every other letter goes, so units and currency codes
#: do (``14.8 min``, ``1,204.50 EUR``); an accounting negative is negative (``(12.40)``), and
#: so is a number written with the minus sign ``−``.
NUM_MACRO = (
    "CREATE OR REPLACE TEMP MACRO num(x) AS "
    r"CASE WHEN regexp_full_match(trim(CAST(x AS VARCHAR)), '\(\s*[$€£¥]?\s*[A-Z]{0,3}\s*\d[^)]*\)\s*[A-Za-z%]*') "
    "THEN -1.0 ELSE 1.0 END * TRY_CAST(nullif(replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace("
    r"replace(trim(CAST(x AS VARCHAR)), '−', '-'), '^\((\s*[$€£¥]?\s*[A-Z]{0,3}\s*\d[^)]*)\)', '\1'), "
    r"'\[[^\]]*\]|\([^)]*[a-zA-Z][^)]*\)', '', 'g'), "
    r"'(\d)[eE]([+\-]?\d)', '\1#\2', 'g'), '[^0-9#.+\-]', '', 'g'), '#', 'e'), '') AS DOUBLE)")

#: pandas / numpy / spreadsheet names → DuckDB's (an entry ending in a space takes the argument)
FUNCTION_NAMES: dict[str, str] = {
    "std": "stddev_samp", "stdev": "stddev_samp", "standard_deviation": "stddev_samp",
    "std_samp": "stddev_samp", "sample_std": "stddev_samp", "stddev_sample": "stddev_samp",
    "pstdev": "stddev_pop", "std_pop": "stddev_pop", "stdevp": "stddev_pop", "population_std": "stddev_pop",
    "var": "var_samp", "variance_samp": "var_samp", "pvariance": "var_pop", "varp": "var_pop",
    "nunique": "count(DISTINCT ", "n_unique": "count(DISTINCT ", "count_distinct": "count(DISTINCT ",
    "distinct_count": "count(DISTINCT ", "countdistinct": "count(DISTINCT ",
    "average": "avg", "averageif": "avg", "len": "length", "size": "count", "pearson": "corr",
    "correl": "corr", "corrcoef": "corr", "pearson_corr": "corr", "percentile": "quantile_cont",
    "percentile_cont": "quantile_cont", "skew": "skewness", "kurt": "kurtosis",
    "to_datetime": "CAST_TIMESTAMP ", "to_numeric": "num", "float": "num", "int": "num",
    "isnull": "ISNULL ", "isna": "ISNULL ", "notnull": "NOTNULL ", "notna": "NOTNULL ",
    "strftime_": "strftime", "dayofweek_name": "dayname", "round_": "round",
}

_AGGREGATES = ("avg", "sum", "min", "max", "mean", "median", "stddev", "stddev_samp", "stddev_pop",
               "var_samp", "var_pop", "variance", "quantile", "quantile_cont", "quantile_disc",
               "skewness", "kurtosis", "kurtosis_pop", "corr", "covar_samp", "covar_pop",
               "regr_slope", "regr_intercept", "regr_r2", "mad", "product", "abs", "round", "log",
               "ln", "sqrt", "floor", "ceil", "mode", "entropy", "sem", "fsum", "favg")

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = frozenset("""all analyse analyze and any array as asc asymmetric both case cast check collate
column constraint create default deferrable desc distinct do else end except false fetch for foreign
from grant group having in initially intersect into lateral leading limit not null offset on only or
order placing primary references returning select symmetric table then to trailing true union unique
using variadic when where window with pivot unpivot qualify""".split())


@dataclass(frozen=True)
class Column:
    table: str
    name: str
    type: str = ""
    #: a text column holding numbers written as text (read with num())
    text_numbers: bool = False
    #: a text column holding dates: "DATE" / "TIMESTAMP" (a plain CAST) or a strptime format
    date_format: str = ""

    def as_date(self) -> str:
        """This column read as a date or timestamp, in SQL."""
        if self.date_format in ("DATE", "TIMESTAMP"):
            return f"CAST({sql_name(self.name)} AS {self.date_format})"
        return f"strptime({sql_name(self.name)}, '{self.date_format}')"

    @property
    def is_text(self) -> bool:
        return self.type.upper().startswith(("VARCHAR", "STRING", "TEXT"))


@dataclass(frozen=True)
class Repair:
    sql: str
    #: one line for the model and the user, e.g. 'quoted the column "Mar.2020"'
    change: str


def needs_quotes(name: str) -> bool:
    """True when SQL cannot take ``name`` bare (punctuation, spaces, leading digit, keyword)."""
    return not _PLAIN.match(name) or name.lower() in _RESERVED


def sql_name(name: str) -> str:
    """``name`` as SQL needs it: bare when it can be, else double-quoted."""
    return '"' + name.replace('"', '""') + '"' if needs_quotes(name) else name


def _squash(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", name.lower())


# -- where code is (outside string literals and comments) ---------------------------------------

_LITERALS = re.compile(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.S)
_QUOTED_IDENT = re.compile(r'"(?:[^"]|"")*"')


def _protected(sql: str, *, identifiers: bool = True) -> list[tuple[int, int]]:
    """Spans of string literals and comments (and quoted identifiers when ``identifiers``)."""
    spans = []
    pos = 0
    pattern = re.compile(_LITERALS.pattern + (r'|"(?:[^"]|"")*"' if identifiers else ""), re.S)
    while pos < len(sql):
        match = pattern.search(sql, pos)
        if not match:
            break
        spans.append(match.span())
        pos = match.end()
    return spans


def _inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def _replace_free(sql: str, pattern: re.Pattern[str], make: Callable[[re.Match[str]], str | None], *,
                  identifiers: bool = True, spans: list[tuple[int, int]] | None = None) -> str:
    """Replace matches of ``pattern`` that lie outside literals/comments (and quoted names), or
    outside ``spans`` when given; ``make`` returning None keeps a match as it is."""
    spans = _protected(sql, identifiers=identifiers) if spans is None else spans
    out, last = [], 0
    for match in pattern.finditer(sql):
        if _inside(spans, match.start(), match.end()):
            continue
        replacement = make(match)
        if replacement is None:
            continue
        out.append(sql[last:match.start()])
        out.append(replacement)
        last = match.end()
    out.append(sql[last:])
    return "".join(out)


# -- the repairs ---------------------------------------------------------------------------------

def _backticks(sql: str, columns: Sequence[Column]) -> Repair | None:
    pattern = re.compile(r"`([^`\n]+)`")
    fixed = _replace_free(sql, pattern, lambda m: '"' + m.group(1).replace('"', '""') + '"')
    return Repair(fixed, "wrote `names` in double quotes") if fixed != sql else None


def _bare_names(sql: str, columns: Sequence[Column]) -> Repair | None:
    """Columns SQL cannot take bare, written bare (longest names first)."""
    names = sorted({c.name for c in columns if needs_quotes(c.name) and not c.name.lower() in _RESERVED},
                   key=len, reverse=True)
    fixed_names: list[str] = []
    for name in names:
        pattern = re.compile(r"(?<![\w\".])" + re.escape(name) + r"(?![\w\"])", re.IGNORECASE)

        def quote(match: re.Match[str], name: str = name) -> str:
            return sql_name(name)
        new = _replace_free(sql, pattern, quote)
        if new != sql:
            fixed_names.append(name)
            sql = new
    if not fixed_names:
        return None
    return Repair(sql, "quoted the column" + ("s " if len(fixed_names) > 1 else " ")
                  + ", ".join(sql_name(n) for n in fixed_names))


def _single_quoted_names(sql: str, columns: Sequence[Column]) -> Repair | None:
    """'Price (USD)' written as a string where the column was meant (a binder error about a
    string literal)."""
    names = {c.name for c in columns}
    return _quoted_columns(sql, re.compile(r"()'((?:[^']|'')+)'"), lambda name: name in names)


def _quoted_columns(sql: str, pattern: re.Pattern[str], accept: Callable[[str], bool]) -> Repair | None:
    """Single-quoted strings matched by ``pattern`` (group 1: what stays before, group 2: the
    text) that ``accept`` takes for column names, double-quoted instead; literals in comments
    and inside quoted names are left alone."""
    changed: list[str] = []

    def swap(match: re.Match[str]) -> str | None:
        name = match.group(2).replace("''", "'")
        if not accept(name):
            return None
        changed.append(name)
        return match.group(1) + '"' + name.replace('"', '""') + '"'
    # comments and quoted names only: the strings are what is looked at
    spans = [m.span() for m in re.finditer(r"--[^\n]*|/\*.*?\*/|\"(?:[^\"]|\"\")*\"", sql, re.S)]
    fixed = _replace_free(sql, pattern, swap, spans=spans)
    if not changed:
        return None
    return Repair(fixed, "read " + ", ".join(f"'{n}'" for n in dict.fromkeys(changed)) + " as a column, not a string")


_MISSING_COLUMN = re.compile(r'Referenced column "?([^"!]+?)"? not found', re.IGNORECASE)
_MISSING_TABLE = re.compile(r'Referenced table "?([^"!]+?)"? not found', re.IGNORECASE)


def _respelled(sql: str, error: str, columns: Sequence[Column]) -> Repair | None:
    match = _MISSING_COLUMN.search(error)
    if not match:
        return None
    wrong = match.group(1).strip()
    candidates = {c.name for c in columns if _squash(c.name) == _squash(wrong)}
    if len(candidates) != 1:
        return None
    right = candidates.pop()
    pattern = re.compile(r'(?<![\w.])"?' + re.escape(wrong) + r'"?(?![\w"])', re.IGNORECASE)
    fixed = _replace_free(sql, pattern, lambda m: sql_name(right), identifiers=False)
    if fixed == sql:
        return None
    return Repair(fixed, f"used the column {sql_name(right)} for {wrong}")


_NO_FUNCTION = re.compile(r"(?:Scalar|Aggregate|Table)?\s*Function with name \"?(\w+)\"? does not exist",
                          re.IGNORECASE)


def _function_names(sql: str, error: str, columns: Sequence[Column]) -> Repair | None:
    match = _NO_FUNCTION.search(error)
    if not match:
        return None
    wrong = match.group(1)
    right = FUNCTION_NAMES.get(wrong.lower())
    if right is None:
        return _column_read_as_call(sql, wrong, columns)
    pattern = re.compile(r"(?<![\w.\"])" + re.escape(wrong) + r"\s*\(", re.IGNORECASE)
    if right.endswith(" "):
        fixed = _rewrite_calls(sql, pattern, right)
    else:
        fixed = _replace_free(sql, pattern, lambda m: right + "(")
    if fixed == sql:
        return None
    return Repair(fixed, f"used {_SHOWN.get(right, right + '()')} for {wrong}()")


def _column_read_as_call(sql: str, wrong: str, columns: Sequence[Column]) -> Repair | None:
    """``Unit_Price(USD)`` for the column "Unit Price (USD)": a name with brackets, written bare
    and in another spelling, parses as a call of a function that does not exist."""
    pattern = re.compile(r"(?<![\w.\"])" + re.escape(wrong) + r"\s*\(([^()]*)\)", re.IGNORECASE)
    by_squash: dict[str, set[str]] = {}
    for column in columns:
        by_squash.setdefault(_squash(column.name), set()).add(column.name)
    found: list[str] = []

    def swap(match: re.Match[str]) -> str | None:
        names = by_squash.get(_squash(wrong + match.group(1)), set())
        if len(names) != 1:
            return None
        name = next(iter(names))
        found.append(name)
        return sql_name(name)
    fixed = _replace_free(sql, pattern, swap)
    if not found:
        return None
    return Repair(fixed, f"used the column {sql_name(found[0])} for {wrong}(…)")


_SHOWN = {"count(DISTINCT ": "count(DISTINCT …)", "ISNULL ": "… IS NULL", "NOTNULL ": "… IS NOT NULL",
          "CAST_TIMESTAMP ": "CAST(… AS TIMESTAMP)"}


def _rewrite_calls(sql: str, pattern: re.Pattern[str], form: str) -> str:
    """Rewrite ``f(arg)`` calls whose replacement takes the argument (count(DISTINCT x),
    x IS NULL, CAST(x AS TIMESTAMP))."""
    spans = _protected(sql)
    out, last = [], 0
    for match in pattern.finditer(sql):
        if _inside(spans, match.start(), match.end()):
            continue
        close = _closing(sql, match.end() - 1)
        if close is None:
            continue
        arg = sql[match.end():close]
        if form == "count(DISTINCT ":
            new = f"count(DISTINCT {arg.strip()})"
        elif form == "ISNULL ":
            new = f"({arg.strip()} IS NULL)"
        elif form == "NOTNULL ":
            new = f"({arg.strip()} IS NOT NULL)"
        else:
            new = f"CAST({arg.strip()} AS TIMESTAMP)"
        out.append(sql[last:match.start()])
        out.append(new)
        last = close + 1
    out.append(sql[last:])
    return "".join(out)


def _closing(sql: str, open_at: int) -> int | None:
    depth = 0
    quote = None
    for i in range(open_at, len(sql)):
        ch = sql[i]
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


_TEXT_ARGUMENT = re.compile(r"No function matches the given name and argument types '(\w+)\((?:VARCHAR|STRING)",
                            re.IGNORECASE)
_TEXT_OPERATOR = re.compile(r"(?:Cannot compare values of type VARCHAR|No function matches the given name and "
                            r"argument types '[-+*/<>=!]+\(VARCHAR)|Could not convert string '([^']*)' to "
                            r"(?:INT|DOUBLE|FLOAT|DECIMAL|BIGINT|HUGEINT|UBIGINT|SMALLINT|TINYINT)", re.IGNORECASE)


def _text_numbers(sql: str, error: str, columns: Sequence[Column]) -> Repair | None:
    """Read text columns through num() where an aggregate or arithmetic needs numbers."""
    function = _TEXT_ARGUMENT.search(error)
    operator = _TEXT_OPERATOR.search(error)
    if not function and not operator:
        return None
    text_columns = sorted({c.name for c in columns if c.is_text and c.text_numbers}, key=len, reverse=True)
    if not text_columns:
        return None
    names = "|".join(re.escape(sql_name(n)) + ("" if needs_quotes(n) else r"\b") for n in text_columns)
    wrapped: list[str] = []
    if function:
        fn = re.escape(function.group(1))
        pattern = re.compile(r"(?i)(\b" + fn + r"\s*\(\s*(?:DISTINCT\s+)?)(" + names + r")(?=\s*[,)])")

        def wrap(match: re.Match[str]) -> str:
            wrapped.append(match.group(2))
            return f"{match.group(1)}num({match.group(2)})"
        fixed = _replace_free(sql, pattern, wrap, identifiers=False)
    else:
        # a comparison or arithmetic with a text column: every bare use next to an operator
        pattern = re.compile(r"(?i)(?<![\w\"(])(" + names + r")(?=\s*(?:[-+*/<>=!]|BETWEEN\b))|"
                             r"(?<=[-+*/<>=]\s)(" + names + r")(?![\w\"])")

        def wrap_op(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            wrapped.append(name)
            return f"num({name})"
        fixed = _replace_free(sql, pattern, wrap_op, identifiers=False)
    if fixed == sql or not wrapped:
        return None
    return Repair(fixed, "read the text column" + ("s " if len(set(wrapped)) > 1 else " ")
                  + ", ".join(dict.fromkeys(wrapped)) + " as numbers with num()")


_DATE_FUNCTIONS = ("strftime", "year", "month", "day", "dayofweek", "dayname", "monthname", "week",
                   "quarter", "date_part", "date_trunc", "datepart", "datetrunc", "extract", "weekday",
                   "dayofmonth", "dayofyear", "hour", "isodow", "yearweek", "last_day", "date_diff", "datediff")
_DATE_ERROR = re.compile(r"(?:" + "|".join(_DATE_FUNCTIONS) + r")\((?:[^)]*\b)?(?:VARCHAR|STRING)", re.IGNORECASE)


_BAD_DATE_CAST = re.compile(r"invalid (?:date|timestamp) field format", re.IGNORECASE)


def _date_casts(sql: str, error: str, columns: Sequence[Column]) -> Repair | None:
    """A cast of dates stored as text in another format (``DATE("Ship date")``,
    ``CAST(d AS DATE)``, ``d::DATE`` on 03/15/2021): read with strptime and the column's format."""
    if not _BAD_DATE_CAST.search(error):
        return None
    changed: list[str] = []
    for column in sorted((c for c in columns if c.is_text and c.date_format not in ("", "DATE", "TIMESTAMP")),
                         key=lambda c: len(c.name), reverse=True):
        name = re.escape(sql_name(column.name)) + ("" if needs_quotes(column.name) else r"\b")
        pattern = re.compile(r"\b(?:DATE|TIMESTAMP)\s*\(\s*" + name + r"\s*\)|\b(?:CAST|TRY_CAST)\s*\(\s*" + name
                             + r"\s+AS\s+(?:DATE|TIMESTAMP)\s*\)|(?<![\w\"])" + name + r"\s*::\s*(?:DATE|TIMESTAMP)\b",
                             re.IGNORECASE)
        fixed = _replace_free(sql, pattern, lambda m, c=column: c.as_date(), identifiers=False)
        if fixed != sql:
            changed.append(column.as_date())
            sql = fixed
    if not changed:
        return None
    return Repair(sql, "read the dates stored as text with " + ", ".join(changed))


def _text_dates(sql: str, error: str, columns: Sequence[Column]) -> Repair | None:
    """Dates stored as text given to a date function: read with strptime (or CAST) first."""
    if not _DATE_ERROR.search(error):
        return _date_casts(sql, error, columns)
    dated = sorted((c for c in columns if c.is_text and c.date_format), key=lambda c: len(c.name), reverse=True)
    changed: list[str] = []
    for column in dated:
        name = sql_name(column.name)
        tail = "" if needs_quotes(column.name) else r"\b"
        pattern = re.compile(r"(?<=[(,])(\s*)" + re.escape(name) + tail + r"(?=\s*[,)])", re.IGNORECASE)
        fixed = _replace_free(sql, pattern, lambda m, c=column: m.group(1) + c.as_date(), identifiers=False)
        if fixed != sql:
            changed.append(column.as_date())
            sql = fixed
    if not changed:
        return None
    return Repair(sql, "read the dates stored as text with " + ", ".join(changed))


_UNKNOWN_TABLE = re.compile(r"unknown table '([^']+)'", re.IGNORECASE)


def _the_only_table(sql: str, error: str, columns: Sequence[Column]) -> Repair | None:
    """A made-up table name when the session has exactly one table: that one was meant."""
    match = _UNKNOWN_TABLE.search(error)
    tables = sorted({c.table for c in columns})
    if not match or len(tables) != 1:
        return None
    wrong = match.group(1)
    pattern = re.compile(r"(?<=\b(?:FROM|JOIN)\s)(\s*)\"?" + re.escape(wrong) + r"\"?(?![\w\"])", re.IGNORECASE)
    fixed = _replace_free(sql, pattern, lambda m: m.group(1) + sql_name(tables[0]), identifiers=False)
    if fixed == sql:
        return None
    return Repair(fixed, f"read {wrong} as {tables[0]}, the only table")


def preflight(sql: str, columns: Sequence[Column]) -> Repair | None:
    """Mistakes that run without an error but read nothing: a column name in single quotes
    given to a function (``num('Annual salary')``, ``CAST('Hire date' AS DATE)``) is a
    constant string, never the column. Only names that need quotes count: ``'day'`` in
    ``datediff('day', …)`` is a word."""
    names = {c.name for c in columns}
    pattern = re.compile(r"(?<=\()(\s*)'((?:[^']|'')+)'(?=\s*(?:[,)]|AS\b))", re.IGNORECASE)
    return _quoted_columns(sql, pattern, lambda name: name in names and needs_quotes(name))


def repair(sql: str, error: str, columns: Sequence[Column]) -> Repair | None:
    """The statement with the mistake behind ``error`` fixed, or None (see the module text)."""
    for attempt in (lambda: _the_only_table(sql, error, columns),
                    lambda: _backticks(sql, columns) if "`" in sql else None,
                    lambda: _bare_names(sql, columns),
                    lambda: _respelled(sql, error, columns),
                    lambda: _function_names(sql, error, columns),
                    lambda: _single_quoted_names(sql, columns) if "STRING_LITERAL" in error
                    or "VARCHAR" in error else None,
                    lambda: _text_dates(sql, error, columns),
                    lambda: _text_numbers(sql, error, columns)):
        found = attempt()
        if found is not None and found.sql != sql:
            return found
    return None


def hint(error: str, columns: Sequence[Column]) -> str:
    """What to do about ``error`` when it could not be repaired ("" when there is nothing to add)."""
    if _TEXT_OPERATOR.search(error) or _TEXT_ARGUMENT.search(error):
        return ("The column holds numbers as text: read it with num(column), which strips currency signs, "
                "thousands separators, % and footnote marks (e.g. avg(num(\"Price (USD)\"))).")
    match = _NO_FUNCTION.search(error)
    if match:
        right = FUNCTION_NAMES.get(match.group(1).lower())
        if right:
            return f"Use {_SHOWN.get(right, right + '(…)')} instead."
        return "Use DuckDB's function names (stddev_samp, var_samp, corr, quantile_cont, count(DISTINCT x), …)."
    missing = _MISSING_COLUMN.search(error) or _MISSING_TABLE.search(error)
    quoted = [c.name for c in columns if needs_quotes(c.name)]
    if missing and quoted:
        return "Write column names exactly as listed, in double quotes when they have dots or spaces: " + \
            ", ".join(sql_name(n) for n in quoted[:6]) + "."
    if "syntax error" in error.lower() and quoted:
        return "Column names with dots, spaces or brackets need double quotes, e.g. " + \
            ", ".join(sql_name(n) for n in quoted[:4]) + "."
    return ""
