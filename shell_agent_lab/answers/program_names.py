"""What a program's names are bound to, and what its statements are computed from, read from
its syntax tree.

Several readings of a written program follow a value back to what it was computed from: why a
part came out zero (:mod:`.zero_values`), which expressions feed the asked parts, and a name bound
to a reduction handed to a test (:mod:`.program_repairs`). They share one rule for when a name
can be followed: it is bound exactly once, by a plain assignment. A name that is also a loop's
target, a comprehension's, one of a tuple's targets, a ``with``/``except`` alias, a walrus, an
import, a function or an augmented assignment's target is never followed: its value depends on
where it is read.

A statement's *slice* is the statement with every earlier top-level statement its inputs come
from: those that bind or change a name it reads (``x = …``, ``x['c'] = …``, ``x.loc[…] = …``,
``x.append(…)``, an import), followed back in turn. A program is deterministic over the same
frames, so a statement that failed fails again, the same way, in any program that holds its
slice unchanged (:func:`slice_at`, :func:`slices`).
"""
from __future__ import annotations

import ast
from collections import Counter
from typing import Iterator

from .values import ANSWER_VARIABLE

__all__ = ["bound_once", "answer_entries", "column_of", "slice_at", "slices", "root_name"]


def _targets(node: ast.AST) -> Iterator[tuple[ast.expr, ast.expr | None]]:
    """(target, the value bound to it when a plain assignment binds a name alone) of ``node``."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield target, (node.value if isinstance(target, ast.Name) else None)
    elif isinstance(node, ast.AnnAssign):
        yield node.target, (node.value if isinstance(node.target, ast.Name) else None)
    elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
        yield node.target, None
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield node.optional_vars, None


def _other_bindings(node: ast.AST) -> Iterator[str]:
    """Names bound by ``node`` with no target expression: imports, functions, classes, handlers."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from ((a.asname or a.name).split(".")[0] for a in node.names)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name


def bound_once(tree: ast.AST) -> dict[str, ast.expr]:
    """The names ``tree`` binds exactly once, by a plain assignment of the name alone
    (``x = …``, ``x: int = …``), to the value bound. Any other binding of the name anywhere in
    the tree (a second assignment, ``x += 1``, ``for x in …``, ``a, x = …``) leaves it out."""
    count: Counter[str] = Counter()
    value: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        for target, bound in _targets(node):
            if bound is not None and isinstance(target, ast.Name):
                value[target.id] = bound
            count.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        count.update(_other_bindings(node))
    return {name: bound for name, bound in value.items() if count[name] == 1}


def answer_entries(tree: ast.AST) -> dict[str, ast.expr]:
    """The entries of the ``answer = {"part": …}`` dicts ``tree`` binds, part name → value
    expression (where two dicts bind a part, the one met last in a walk of the tree)."""
    entries: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                isinstance(t, ast.Name) and t.id == ANSWER_VARIABLE for t in node.targets):
            entries.update({k.value: v for k, v in zip(node.value.keys, node.value.values)
                            if isinstance(k, ast.Constant) and isinstance(k.value, str)})
    return entries


def root_name(node: ast.AST) -> str | None:
    """The name an item or attribute chain starts from (``f`` of ``f.loc[0, 'a']``); None when
    it starts from anything else (a call, a literal)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _changed(stmt: ast.stmt) -> set[str]:
    """The names a top-level statement binds or changes in place: its targets' names, the frame
    of a subscript or attribute it assigns (``f['c'] = …``), the object of a method it calls as
    a statement (``rows.append(x)``), and what it imports or defines."""
    out: set[str] = set()
    for node in ast.walk(stmt):
        root: str | None = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = node.id
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = root_name(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute):
            root = root_name(node.value.func.value)
        if root is not None:
            out.add(root)
        out.update(_other_bindings(node))
    return out


def _read(stmt: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _slice(body: list[ast.stmt], at: int) -> str:
    needed, kept = _read(body[at]), [body[at]]
    for stmt in reversed(body[:at]):
        changed = _changed(stmt)
        if changed & needed:
            kept.append(stmt)
            needed |= _read(stmt)
    return ast.dump(ast.Module(body=kept[::-1], type_ignores=[]))


def slice_at(code: str, line: int) -> str | None:
    """The slice of the top-level statement of ``code`` that holds ``line`` (1-based), as text
    that compares equal for equal slices; None when ``code`` does not parse or no statement
    holds the line."""
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError, RecursionError):
        return None
    return next((_slice(body, i) for i, stmt in enumerate(body)
                 if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)), None)


def slices(code: str) -> set[str]:
    """The slice of every top-level statement of ``code`` (empty when it does not parse)."""
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError, RecursionError):
        return set()
    return {_slice(body, i) for i in range(len(body))}


def column_of(node: ast.expr) -> tuple[str, str] | None:
    """(the frame's source text, the column) of ``<frame>['column']``; None for anything else."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return ast.unparse(node.value), node.slice.value
    return None
