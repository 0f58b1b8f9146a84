"""The parse check every remote statement passes before it is sent (pure; sqlglot).

One statement, a query and nothing else anywhere inside it (no DML in a CTE, no ``SELECT …
INTO``, no row locks), tables only from the source's own catalogue (so no path reads such as
``parquet.`/data` ``, no system catalogues), and no function that reaches outside the query:
files, other servers, settings, sequences, Java methods, SQL passed as text. What is sent is
the statement *regenerated from the parsed tree*, so the server runs what was checked, not a
text the two parsers might read differently. The engines add their own guard on top
(PostgreSQL: a read-only transaction and a statement timeout).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .base import EngineError

__all__ = ["CheckedQuery", "check_query", "table_refs", "parse_one"]

#: statements and clauses that are never part of a query
_FORBIDDEN_NODES = ("Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "Command", "Copy", "Set",
                    "Pragma", "Use", "Cache", "Uncache", "LoadData", "Grant", "Revoke", "TruncateTable",
                    "Transaction", "Commit", "Rollback", "Into", "Lock", "Describe", "Refresh", "Analyze",
                    "Comment", "Kill", "Execute", "Declare", "Summarize", "Attach", "Detach", "Install", "Export")

_DENIED: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    # exact names, prefixes
    "postgres": (frozenset({"set_config", "nextval", "setval", "currval", "lastval", "txid_current", "ts_stat",
                            "crosstab", "crosstab2", "crosstab3", "crosstab4", "connectby", "query_to_xml",
                            "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml",
                            "cursor_to_xmlschema", "database_to_xml", "database_to_xmlschema",
                            "database_to_xml_and_xmlschema", "schema_to_xml", "schema_to_xmlschema",
                            "schema_to_xml_and_xmlschema", "table_to_xml", "table_to_xmlschema",
                            "table_to_xml_and_xmlschema", "gin_clean_pending_list", "current_setting",
                            "brin_summarize_new_values", "brin_summarize_range", "brin_desummarize_range"}),
                 ("pg_", "lo_", "dblink", "binary_upgrade", "file_", "txid_")),
    "spark": (frozenset({"reflect", "java_method", "try_reflect", "read_files", "from_xml", "schema_of_xml",
                         "input_file_name", "input_file_block_start", "input_file_block_length"}),
              ("xpath", "java_", "hive_")),
}
#: functions allowed in FROM (generated rows, no I/O)
_TABLE_FUNCTIONS = frozenset({"generate_series", "exploding_generate_series", "range", "unnest", "explode", "posexplode", "inline", "stack"})


@dataclass(frozen=True)
class CheckedQuery:
    sql: str                       # regenerated from the checked tree, in the source's dialect
    tables: tuple[str, ...]        # as the source names them


def _sqlglot():
    try:
        import sqlglot
        from sqlglot import exp
    except ImportError:  # pragma: no cover - an extra installs it
        raise EngineError("checking SQL for a connection needs sqlglot: pip install 'shell-agent-lab[postgres]' "
                          "or '[spark]'.") from None
    return sqlglot, exp


def parse_one(sql: str, dialect: str):
    """The one statement in ``sql`` parsed in ``dialect`` (EngineError when zero, several or unparsable)."""
    sqlglot, _ = _sqlglot()
    from sqlglot.errors import ParseError, TokenError
    try:
        trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
    except (ParseError, TokenError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise EngineError(f"SQL syntax error ({_LABEL.get(dialect, dialect)} SQL): {first[:300]}") from None
    if len(trees) != 1:
        raise EngineError("send exactly one SELECT statement (no ';'-separated statements).")
    return trees[0]


_LABEL = {"postgres": "PostgreSQL", "spark": "Spark"}


def _function_name(node) -> str:
    _, exp = _sqlglot()
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    try:
        return node.sql_name().lower()
    except Exception:  # pragma: no cover
        return type(node).__name__.lower()


def table_refs(tree) -> list:
    """Every table node of ``tree`` that is not a CTE's name."""
    _, exp = _sqlglot()
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    out = []
    for table in tree.find_all(exp.Table):
        if not table.args.get("db") and not table.args.get("catalog") and table.name.lower() in ctes:
            continue
        out.append(table)
    return out


def _full_name(table) -> str:
    parts = [p for p in (table.catalog, table.db, table.name) if p]
    return ".".join(parts)


def check_query(tree, dialect: str, *, known: Iterable[str],
                rename: Callable[[object], None] | None = None) -> CheckedQuery:
    """Check a parsed statement for ``dialect`` ("postgres" | "spark") against the source's
    table names ``known`` (``schema.table`` and bare names, any case); ``rename(table)`` may
    rewrite each table node first (drop the connection's prefix). Returns the SQL to send."""
    _, exp = _sqlglot()
    if not isinstance(tree, exp.Query):
        raise EngineError(f"only queries run on a connection: {type(tree).__name__.upper()} statements are refused "
                          "(connections are read-only).")
    for name in _FORBIDDEN_NODES:
        node_type = getattr(exp, name, None)
        if node_type is not None and tree.find(node_type) is not None:
            raise EngineError(f"only plain queries run on a connection: {name.upper()} is not allowed "
                              "(connections are read-only).")
    if tree.args.get("into") is not None:
        raise EngineError("SELECT … INTO writes a table; connections are read-only.")
    exact, prefixes = _DENIED[dialect]
    for func in tree.find_all(exp.Func):
        fname = _function_name(func)
        if fname in exact or fname.startswith(prefixes):
            raise EngineError(f"the function {fname}() is not allowed on a connection (it reaches outside the "
                              "query: files, settings, other servers or code).")
    allowed = {k.lower() for k in known}
    names: list[str] = []
    for table in table_refs(tree):
        if rename is not None:
            rename(table)
        if not isinstance(table.this, exp.Identifier):
            fname = _function_name(table.this) if isinstance(table.this, exp.Func) else ""
            if fname in _TABLE_FUNCTIONS:
                continue
            raise EngineError(f"{table.this.sql(dialect=dialect)[:80]} is not a table of this connection; "
                              "only its listed tables can be read.")
        full = _full_name(table)
        if full.lower() not in allowed:
            shown = ", ".join(sorted(allowed)[:15]) or "none"
            raise EngineError(f"unknown table {full!r} on this connection (files and paths cannot be read); "
                              f"its tables: {shown}.")
        names.append(full)
    for node in tree.find_all(exp.Func):        # table functions in FROM passed above; check their name too
        if isinstance(node, exp.Anonymous) and node.parent is not None and isinstance(node.parent, exp.Table):
            if _function_name(node) not in _TABLE_FUNCTIONS:
                raise EngineError(f"{_function_name(node)}() cannot be read from on a connection.")
    # comments are dropped: a comment regenerated from a "--" line could close early and carry SQL
    return CheckedQuery(tree.sql(dialect=dialect, comments=False), tuple(names))
