"""The JSON schema a model fills to ask for one operation, built from the actual tables (pure).

Every column is an ``enum`` of its table's real column names, so a server that holds output to
a schema (llama.cpp does, by grammar) cannot produce a name the table lacks. The schema is one
``anyOf`` alternative per operation kind and table (``{"op": <const>, "table": <const>, …}``);
each table's column lists are written once under ``$defs`` and referred to, which keeps the
schema small however many places take a column. Measures that read numbers (sum, mean, std …)
take only the columns read as numbers: a number type, or numbers written as text.

:func:`schema_problems` checks a value against such a schema (the subset it uses: ``$ref``,
``anyOf``, ``const``, ``enum``, ``type``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``minItems``, ``maxItems``, ``minimum``, ``maximum``) and
says what is wrong in one line per problem, naming the columns a name should have been.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._spec import CORRELATIONS, DATE_PARTS, DERIVED, FILTER_OPS, TESTS
from ._tables import TableColumns

__all__ = ["operation_schema", "schema_problems", "MAX_TABLES"]

#: tables one schema offers (each adds an alternative per operation kind)
MAX_TABLES = 8


def _obj(properties: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _array(items: dict[str, Any], most: int, least: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items, "maxItems": most}
    if least:
        out["minItems"] = least
    return out


_VALUE = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"},
                    {"type": "array", "items": {"type": ["string", "number"]}, "maxItems": 50}]}
_LIMIT = {"type": "integer", "minimum": 1, "maximum": 10000}


def _table_defs(i: int, table: TableColumns) -> dict[str, Any]:
    """The column lists and column-taking shapes of table ``i``."""
    c, n, d, x = f"c{i}", f"n{i}", f"d{i}", f"x{i}"
    defs: dict[str, Any] = {c: {"enum": table.names}}
    keys: list[dict[str, Any]] = [_ref(c)]
    measures: list[dict[str, Any]] = [
        _obj({"fn": {"const": "count"}, "column": _ref(c)}, ["fn"]),
        _obj({"fn": {"enum": ["count_distinct", "min", "max"]}, "column": _ref(c)}, ["fn", "column"])]
    if table.numeric:
        defs[n] = {"enum": table.numeric}
        defs[x] = {"anyOf": [_ref(n), _obj({"derived": {"enum": list(DERIVED)}, "a": _ref(n), "b": _ref(n)},
                                           ["derived", "a", "b"])]}
        keys.append(_obj({"bins": _array({"type": "number"}, 21, 2), "column": _ref(x)}, ["bins", "column"]))
        keys.append(defs[x]["anyOf"][1])
        measures.append(_obj({"fn": {"enum": ["sum", "mean", "median"]}, "column": _ref(x)}, ["fn", "column"]))
        measures.append(_obj({"fn": {"enum": ["std", "var"]}, "column": _ref(x), "ddof": {"enum": [0, 1]}},
                             ["fn", "column"]))
    if table.dates:
        defs[d] = {"enum": table.dates}
        keys.append(_obj({"date_part": {"enum": list(DATE_PARTS)}, "column": _ref(d)}, ["date_part", "column"]))
    defs[f"k{i}"] = {"anyOf": keys}
    defs[f"m{i}"] = {"anyOf": measures}
    defs[f"f{i}"] = _obj({"column": _ref(c), "op": {"enum": list(FILTER_OPS)}, "value": _VALUE}, ["column", "op"])
    return defs


def _branches(i: int, table: TableColumns) -> list[dict[str, Any]]:
    """One alternative per operation kind the table can take."""
    c, n, x, k = f"c{i}", f"n{i}", f"x{i}", f"k{i}"
    head = {"table": {"const": table.name}}
    filters = {"filters": _array(_ref(f"f{i}"), 4)}

    def branch(op: str, fields: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
        return _obj({"op": {"const": op}, **head, **fields, **filters}, ["op", "table", *required])

    out = [branch("aggregate", {"measures": _array(_ref(f"m{i}"), 6), "group_by": _array(_ref(k), 3),
                                "order": {"enum": ["desc", "asc"]}, "limit": _LIMIT, "distinct": {"type": "boolean"}})]
    if table.numeric:
        out.append(branch("distribution", {"column": _ref(x), "group_by": _ref(k),
                                           "quantiles": _array({"type": "number", "minimum": 0, "maximum": 1}, 9)},
                          ["column"]))
        out.append(branch("correlation", {"method": {"enum": list(CORRELATIONS)}, "x": _ref(n), "y": _ref(n)},
                          ["x"]))
    out.append(branch("test", {"test": {"enum": list(TESTS)}, "column": _ref(c), "by": _ref(k),
                               "levels": _array({"type": ["string", "number"]}, 20), "other": _ref(c),
                               "mu": {"type": "number"}, "yates": {"type": "boolean"}}, ["test", "column"]))
    if table.numeric:
        out.append(branch("outliers", {"column": _ref(x), "method": {"enum": ["zscore", "iqr"]},
                                       "threshold": {"type": "number", "minimum": 0}, "k": {"type": "number", "minimum": 0},
                                       "ddof": {"enum": [0, 1]}, "output": {"enum": ["count", "list"]},
                                       "limit": _LIMIT}, ["column", "method"]))
        out.append(branch("regression", {"x": _ref(x), "y": _ref(x)}, ["x", "y"]))
    out.append(branch("missing", {"columns": _array(_ref(c), 200), "markers": {"type": "boolean"}}))
    out.append(branch("duplicates", {"columns": _array(_ref(c), 200), "output": {"enum": ["count", "list"]},
                                     "limit": _LIMIT}))
    return out


def operation_schema(tables: Sequence[TableColumns]) -> dict[str, Any]:
    """The schema of one operation over ``tables`` (the first :data:`MAX_TABLES`): an
    ``anyOf`` of one object per operation kind and table, columns as enums of real names."""
    defs: dict[str, Any] = {}
    branches: list[dict[str, Any]] = []
    for i, table in enumerate([t for t in tables if t.columns][:MAX_TABLES]):
        defs.update(_table_defs(i, table))
        branches.extend(_branches(i, table))
    if not branches:
        raise ValueError("an operation schema needs at least one table with columns")
    return {"title": "operation", "$defs": defs, "anyOf": branches}


# -- checking a value --------------------------------------------------------------------------

_TYPES: dict[str, Any] = {"object": dict, "array": list, "string": str, "boolean": bool}


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "null":
        return value is None
    return isinstance(value, _TYPES.get(kind, object))


def _shown(options: Sequence[Any], limit: int = 24) -> str:
    text = ", ".join(repr(o) for o in options[:limit])
    return text + (f", … ({len(options) - limit} more)" if len(options) > limit else "")


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return root.get("$defs", {}).get(ref[len("#/$defs/"):], {})
    return schema


def _matching(value: Any, options: Sequence[Mapping[str, Any]], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The alternatives whose constant fields (``op``, ``table``, ``fn`` …) ``value`` has."""
    if not isinstance(value, dict):
        return list(options)
    found = []
    for option in options:
        option = _resolve(option, root)
        props = option.get("properties") or {}
        consts = {k: p["const"] for k, p in props.items() if isinstance(p, Mapping) and "const" in p}
        enums = {k: p["enum"] for k, p in props.items() if isinstance(p, Mapping) and "enum" in p and k in ("fn",)}
        if all(value.get(k) == v for k, v in consts.items()) and all(value.get(k) in v for k, v in enums.items()):
            found.append(option)
    return found


def _wrong_choice(value: dict[str, Any], options: Sequence[Mapping[str, Any]], root: Mapping[str, Any],
                  path: str) -> str:
    """The field that picks an alternative (``fn``, ``op``) holding a value no alternative takes."""
    allowed: dict[str, list[Any]] = {}
    for option in options:
        for key, prop in (_resolve(option, root).get("properties") or {}).items():
            if isinstance(prop, Mapping) and "const" in prop:
                allowed.setdefault(key, []).append(prop["const"])
            elif isinstance(prop, Mapping) and "enum" in prop and key == "fn":
                allowed.setdefault(key, []).extend(prop["enum"])
    for key, choices in allowed.items():
        if key in value and value[key] not in choices:
            return f"{path}.{key}: {value[key]!r} is not one of {_shown(list(dict.fromkeys(choices)))}"
    return ""


def _check(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any], path: str) -> list[str]:
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        options = schema["anyOf"]
        results = [_check(value, o, root, path) for o in options]
        if any(not r for r in results):
            return []
        narrowed = _matching(value, options, root)
        if not narrowed and isinstance(value, dict) and "op" in value and path == "$":
            ops = sorted({_resolve(o, root).get("properties", {}).get("op", {}).get("const") for o in options} - {None})
            tables = sorted({_resolve(o, root).get("properties", {}).get("table", {}).get("const")
                             for o in options} - {None})
            if value.get("op") not in ops:
                return [f"$.op: {value.get('op')!r} is not an operation; use one of {_shown(ops)}"]
            return [f"$.table: {value.get('table')!r} is not a table for {value.get('op')}; use one of {_shown(tables)}"]
        if not narrowed and isinstance(value, dict):
            wrong = _wrong_choice(value, options, root, path)
            if wrong:
                return [wrong]
        pool = [_check(value, o, root, path) for o in narrowed] if narrowed else results
        return min(pool, key=len)
    if "const" in schema and value != schema["const"]:
        return [f"{path}: must be {schema['const']!r}, not {value!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {_shown(schema['enum'])}"]
    declared = schema.get("type")
    if declared is not None:
        kinds = declared if isinstance(declared, list) else [declared]
        if not any(_is(value, k) for k in kinds):
            return [f"{path}: expected {' or '.join(kinds)}, got {type(value).__name__}"]
    problems: list[str] = []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{path}: {value!r} is below {schema['minimum']!r}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{path}: {value!r} is above {schema['maximum']!r}")
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for key in schema.get("required") or ():
            if key not in value:
                problems.append(f"{path}: missing required {key!r}")
        for key, item in value.items():
            if key in props:
                problems.extend(_check(item, props[key], root, f"{path}.{key}"))
            elif schema.get("additionalProperties") is False:
                problems.append(f"{path}: unexpected {key!r}" + (f" (allowed: {', '.join(props)})" if props else ""))
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{path}: at most {schema['maxItems']} items")
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{path}: at least {schema['minItems']} items")
        if isinstance(schema.get("items"), Mapping):
            for index, item in enumerate(value):
                problems.extend(_check(item, schema["items"], root, f"{path}[{index}]"))
    return problems


def schema_problems(value: Any, schema: Mapping[str, Any]) -> list[str]:
    """What is wrong with ``value`` under ``schema`` (an :func:`operation_schema`), one line each;
    empty when it is valid."""
    return _check(value, schema, schema, "$")
