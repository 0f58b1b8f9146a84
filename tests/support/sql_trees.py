"""The syntax tree DuckDB's parser gives one statement (as the SQL gate reads it)."""
from __future__ import annotations

import json

import duckdb


def statement_tree(sql: str) -> dict:
    """``json_serialize_sql(sql)``'s first statement, from a throwaway in-memory connection."""
    con = duckdb.connect()
    try:
        return json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0])["statements"][0]
    finally:
        con.close()
