"""The sealed read-only gate for SQL written by the model.

A statement passes only when DuckDB's own parser says it is exactly one ``SELECT`` (plain,
``WITH … SELECT``, set operations, ``VALUES``, ``PIVOT … IN (…)``/``UNPIVOT``, ``QUALIFY``,
``DESCRIBE``/``SUMMARIZE`` of a known table) and its syntax tree — serialised with
``json_serialize_sql`` — reads nothing but known tables, live DataFrames and CTEs:

* every base table must be a loaded table, a registered DataFrame or a CTE of the query
  (``FROM '/etc/passwd'`` is a base table named ``/etc/passwd`` and is refused);
* table functions are limited to ``range``, ``generate_series`` and ``unnest``
  (``read_csv``, ``read_text``, ``glob``, ``query_table``, ``duckdb_settings`` … are refused);
* scalar functions that reveal or change state outside the data (``getenv``,
  ``current_setting``, ``nextval``/``setval``, anything named ``read_*``) are refused;
* catalogs and schemas other than the default are refused.

An unreferenced ``WINDOW w AS (…)`` clause is the one part of a SELECT the tree leaves out:
DuckDB drops it while parsing and never evaluates it; a referenced window is inlined into the
window function and checked like everything else.

Everything else (``ATTACH``, ``COPY``, ``EXPORT``/``IMPORT DATABASE``, ``INSTALL``, ``LOAD``,
``SET``, ``PRAGMA``, ``CALL``, ``CREATE SECRET``, writes) is not a SELECT and never reaches the
tree walk. The engine runs what passes on a connection with external access disabled and its
configuration locked, so a gap here still cannot read a file.

:func:`check_tree` is pure (a parsed tree in, an error or nothing out); :class:`SQLGate` adds
the parser, a private in-memory DuckDB connection that holds no data.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import duckdb

from .errors import SQLRejectedError
from .date_buckets import faster_date_buckets
from .stable_order import needs_stable_order

__all__ = ["SQLGate", "GatedSQL", "check_tree", "ALLOWED_TABLE_FUNCTIONS", "DENIED_FUNCTIONS",
           "MAX_SQL_CHARS"]

MAX_SQL_CHARS = 100_000

ALLOWED_TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest"})

#: scalar (or table) functions refused wherever they appear
DENIED_FUNCTIONS = frozenset({
    "getenv", "current_setting", "nextval", "setval", "currval", "query", "query_table",
    "glob", "sniff_csv", "json_execute_serialized_sql", "json_deserialize_sql", "which_secret",
    "checkpoint", "force_checkpoint", "enable_logging", "disable_logging", "enable_profiling",
    "disable_profiling", "truncate_duckdb_logs", "export_database", "import_database",
    "register_external_resource", "create_external_resource", "destroy_external_resource",
    "deregister_external_resource", "python_map_function", "pandas_scan", "arrow_scan",
    "arrow_scan_dumb", "python_arrow_scan", "seq_scan",
})
_DENIED_PREFIXES = ("read_", "duckdb_", "pragma_", "parquet_", "sqlite_", "postgres_", "mysql_",
                    "iceberg_", "delta_", "http", "s3", "test_")

_QUERY_NODES = frozenset({"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"})
_TABLE_REFS = frozenset({"BASE_TABLE", "JOIN", "SUBQUERY", "TABLE_FUNCTION", "EMPTY",
                         "EMPTY_FROM", "EXPRESSION_LIST", "PIVOT", "SHOW_REF"})
_DEFAULT_SCHEMAS = frozenset({"", "main"})
_HINT = "query the loaded tables and DataFrames by name (list_tables shows them)"


@dataclass(frozen=True)
class GatedSQL:
    """A statement that passed the gate: the exact text to run and the tables it reads."""

    sql: str
    tables: tuple[str, ...]
    #: the row order may vary between runs (see :mod:`.stable_order`); the engine sorts it
    unstable_order: bool = False
    #: the same query with its month/year/week buckets written for speed (see
    #: :mod:`.date_buckets`); it passed the gate too. The engine runs it only when it binds to
    #: the original's column types
    fast_sql: str | None = None


def _function_denied(name: str, extra: frozenset[str] = frozenset()) -> bool:
    lowered = name.lower()
    return lowered in DENIED_FUNCTIONS or lowered in extra or lowered.startswith(_DENIED_PREFIXES)


def _cte_names(node: dict[str, Any]) -> set[str]:
    """Names defined by this query node's WITH clause (in scope only inside this node)."""
    cte_map = node.get("cte_map")
    names: set[str] = set()
    if isinstance(cte_map, dict):
        for entry in cte_map.get("map") or []:
            key = entry.get("key") if isinstance(entry, dict) else None
            if isinstance(key, str):
                names.add(key.lower())
    return names


def _is_table_ref(node: dict[str, Any]) -> bool:
    return "class" not in node and "alias" in node and "sample" in node and "type" in node


def _check_base_table(node: dict[str, Any], allowed: set[str], seen: list[str]) -> None:
    name = str(node.get("table_name", ""))
    catalog = str(node.get("catalog_name", "") or "")
    schema = str(node.get("schema_name", "") or "")
    if catalog or schema.lower() not in _DEFAULT_SCHEMAS:
        qualified = ".".join(p for p in (catalog, schema, name) if p)
        raise SQLRejectedError(
            f"SQL rejected: {qualified!r} is outside this session's data; {_HINT}.")
    if name.lower() not in allowed:
        if any(ch in name for ch in "/\\.:~") :
            raise SQLRejectedError(
                f"SQL rejected: {name!r} looks like a file or URL; the model's SQL cannot read "
                f"files (use load_data first, then {_HINT}).")
        raise SQLRejectedError(f"SQL rejected: unknown table {name!r}; {_HINT}.")
    seen.append(name)


def _walk(node: Any, allowed: set[str], seen: list[str], denied: frozenset[str]) -> None:
    if isinstance(node, list):
        for value in node:
            _walk(value, allowed, seen, denied)
        return
    if not isinstance(node, dict):
        return
    ctes = _cte_names(node)
    if ctes:   # a WITH name is visible in its own query only, never in an enclosing one
        allowed = allowed | ctes
    cls = node.get("class")
    kind = node.get("type")
    if cls == "FUNCTION":
        name = str(node.get("function_name", ""))
        if name.lower() in denied:
            raise SQLRejectedError(
                f"SQL rejected: {name}() is a macro stored in the database file, not a built-in "
                "function; it is not allowed.")
        if _function_denied(name):
            raise SQLRejectedError(
                f"SQL rejected: function {name}() reaches outside the data and is not allowed; "
                f"{_HINT}.")
        catalog = str(node.get("catalog", "") or "")
        schema = str(node.get("schema", "") or "")
        if catalog or schema.lower() not in _DEFAULT_SCHEMAS | {"pg_catalog"}:
            raise SQLRejectedError(f"SQL rejected: qualified function {schema}.{name}() is not allowed.")
    elif cls is None and kind in _QUERY_NODES:
        pass
    elif cls is None and isinstance(kind, str) and _is_table_ref(node):
        if kind not in _TABLE_REFS:
            raise SQLRejectedError(f"SQL rejected: {kind.lower()} in FROM is not allowed; {_HINT}.")
        if kind == "BASE_TABLE":
            _check_base_table(node, allowed, seen)
        elif kind == "TABLE_FUNCTION":
            function = node.get("function") or {}
            name = str(function.get("function_name", "")) if isinstance(function, dict) else ""
            if name.lower() not in ALLOWED_TABLE_FUNCTIONS or name.lower() in denied:
                raise SQLRejectedError(
                    f"SQL rejected: table function {name}() is not allowed (it can read files or "
                    f"system state); only range(), generate_series() and unnest() are; {_HINT}.")
        elif kind == "SHOW_REF":
            show_type = str(node.get("show_type", ""))
            target = str(node.get("table_name", "") or "")
            if node.get("query") is None and (show_type != "DESCRIBE" or target.lower() not in allowed):
                raise SQLRejectedError(
                    f"SQL rejected: SHOW/DESCRIBE is limited to known tables; {_HINT}.")
            if target:
                seen.append(target)
    for value in node.values():
        if isinstance(value, (dict, list)):
            _walk(value, allowed, seen, denied)


def check_tree(tree: dict[str, Any], known_tables: Collection[str],
               denied_functions: Collection[str] = ()) -> tuple[str, ...]:
    """Check one serialised statement tree; return the table names it reads.

    ``tree`` is one element of ``json_serialize_sql(...)["statements"]``; ``denied_functions``
    adds names to refuse (the engine passes macros stored in the session database, which a
    foreign database file could define). Raises :class:`SQLRejectedError` with a one-line reason.
    """
    allowed = {name.lower() for name in known_tables}
    seen: list[str] = []
    _walk(tree, allowed, seen, frozenset(n.lower() for n in denied_functions))
    return tuple(dict.fromkeys(seen))


class SQLGate:
    """Parse with DuckDB, then :func:`check_tree`. Thread-safe; holds no data."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn = duckdb.connect(":memory:", config={
            "enable_external_access": False, "autoinstall_known_extensions": False,
            "autoload_known_extensions": False, "python_enable_replacements": False,
            "lock_configuration": True, "threads": 1,
        })

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def check(self, sql: str, known_tables: Collection[str], denied_functions: Collection[str] = ()) -> GatedSQL:
        """Return the statement to run, or raise :class:`SQLRejectedError`."""
        text, tree = self._parse(sql)
        try:
            tables = check_tree(tree, known_tables, denied_functions)
        except RecursionError as exc:
            raise SQLRejectedError("SQL rejected: the statement is nested too deeply.") from exc
        return GatedSQL(sql=_tidy(text), tables=tables, unstable_order=needs_stable_order(tree),
                        fast_sql=self._faster(tree, text, known_tables, denied_functions))

    def _parse(self, sql: str) -> tuple[str, dict[str, Any]]:
        """The text and syntax tree of ``sql`` if it is exactly one SELECT; else
        :class:`SQLRejectedError` saying why."""
        if not isinstance(sql, str) or not sql.strip():
            raise SQLRejectedError("SQL rejected: the query is empty; write one SELECT statement.")
        if len(sql) > MAX_SQL_CHARS:
            raise SQLRejectedError(f"SQL rejected: the query is longer than {MAX_SQL_CHARS:,} characters.")
        if "\x00" in sql:
            raise SQLRejectedError("SQL rejected: the query contains a NUL character.")
        with self._lock:
            try:
                statements = self._conn.extract_statements(sql)
            except duckdb.Error as exc:
                raise SQLRejectedError(f"SQL syntax error: {_first_line(exc)}") from exc
            if len(statements) != 1:
                raise SQLRejectedError(
                    f"SQL rejected: exactly one statement is allowed, found {len(statements)}; "
                    "send one SELECT at a time.")
            statement = statements[0]
            kind = str(statement.type).rsplit(".", 1)[-1]
            if kind == "MULTI":
                raise SQLRejectedError(
                    "SQL rejected: PIVOT needs an explicit value list here, e.g. "
                    "PIVOT t ON col IN ('a', 'b') USING sum(x).")
            if kind != "SELECT":
                raise SQLRejectedError(
                    f"SQL rejected: only a read-only SELECT is allowed (this statement is {kind}).")
            text = statement.query
            try:
                raw = self._conn.execute("SELECT json_serialize_sql(?)", [text]).fetchall()[0][0]
                parsed = json.loads(raw)
            except (duckdb.Error, ValueError, RecursionError) as exc:
                raise SQLRejectedError(f"SQL rejected: the statement could not be analysed ({_first_line(exc)}).") from exc
        if parsed.get("error"):
            raise SQLRejectedError(
                f"SQL rejected: only a read-only SELECT is allowed ({parsed.get('error_message', 'not a SELECT')}).")
        trees = parsed.get("statements") or []
        if len(trees) != 1:
            raise SQLRejectedError("SQL rejected: exactly one SELECT statement is allowed.")
        return text, trees[0]

    def _faster(self, tree: dict[str, Any], text: str, known_tables: Collection[str],
                denied_functions: Collection[str]) -> str | None:
        """The faster form of ``text`` when there is one and it passes the gate as well."""
        fast = faster_date_buckets(tree, text)
        if fast is None:
            return None
        try:
            fast_text, fast_tree = self._parse(fast)
            check_tree(fast_tree, known_tables, denied_functions)
        except (SQLRejectedError, RecursionError):
            return None
        return _tidy(fast_text)


def _tidy(text: str) -> str:
    return text.strip().rstrip(";").strip() or text


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
