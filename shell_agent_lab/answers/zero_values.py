"""Why a part that came out exactly zero did: read from the program that computed it.

A difference is zero when its two sides are one value, and a relative change ``(a / b - 1)``
when ``a`` is ``b``. A small model writes both sides the same way more often than the
question's two things are equal: ``total_1952 = df['pop'].sum()`` and ``total_2007 =
df['pop'].sum()`` (the filters for the years left out), or ``rates.max() - rates[rates.idxmax()]``
(the highest rate less itself). Exactly zero from such an operation is a sign, read from the
program's syntax and its value, never from the question's words. The sides are named so the
model can compute each as the question defines it; a zero that is the answer comes back the
same from the retry and is kept (the run that answered first keeps its place).

A count or sum that came out zero from a program comparing a text column with a text the
column never holds selected no rows; that comparison is what to mend
(:func:`.column_values.unmatched_values`).
"""
from __future__ import annotations

import ast
import math
from typing import Any, Collection, Mapping

from .column_values import Miss, unmatched_values
from .program_names import answer_entries, bound_once

__all__ = ["zero_parts", "zero_reasons"]

#: calls that keep a zero a zero (``round(x, 2)``, ``abs(x)``, ``float(x)``)
_KEEPING = frozenset({"round", "abs", "float", "int", "fabs", "absolute"})
#: how far back through assignments a side is followed
_DEPTH = 8


def zero_parts(values: Mapping[str, Any]) -> list[str]:
    """The parts whose value is a number that is exactly zero (not a yes/no's False)."""
    return [name for name, value in values.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value == 0]


def _sides(node: ast.expr, bound: Mapping[str, ast.expr], depth: int = 0) -> tuple[ast.expr, ast.expr] | None:
    """The two sides whose equality makes ``node`` zero: of a difference ``a - b``, or of the
    ratio in a relative change ``a / b - 1``; followed through names bound once, products,
    quotients' numerators and calls that keep a zero. None when no such operation is there."""
    if depth > _DEPTH:
        return None
    if isinstance(node, ast.Name) and node.id in bound:
        return _sides(bound[node.id], bound, depth + 1)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _sides(node.operand, bound, depth + 1)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in _KEEPING and node.args:
            return _sides(node.args[0], bound, depth + 1)
        if isinstance(func, ast.Attribute) and func.attr in _KEEPING:
            # np.round(x, 2) / np.abs(x) (a module's function), or x.round(2) / x.abs()
            module = isinstance(func.value, ast.Name) and func.value.id not in bound
            inner = node.args[0] if module and node.args else func.value
            return _sides(inner, bound, depth + 1)
        return None
    if not isinstance(node, ast.BinOp):
        return None
    if isinstance(node.op, ast.Mult):
        return _sides(node.left, bound, depth + 1) or _sides(node.right, bound, depth + 1)
    if isinstance(node.op, (ast.Div, ast.FloorDiv)):
        return _sides(node.left, bound, depth + 1)
    if not isinstance(node.op, ast.Sub):
        return None
    left, right = node.left, node.right
    if isinstance(left, ast.Constant) or isinstance(right, ast.Constant):
        ratio = right if isinstance(left, ast.Constant) else left
        ratio = bound.get(ratio.id, ratio) if isinstance(ratio, ast.Name) else ratio
        if isinstance(ratio, ast.BinOp) and isinstance(ratio.op, ast.Div):
            return ratio.left, ratio.right
        return None
    return left, right


def _said(side: ast.expr, bound: Mapping[str, ast.expr]) -> str:
    text = f"`{ast.unparse(side)}`"
    if isinstance(side, ast.Name) and side.id in bound:
        text += f" (`{ast.unparse(bound[side.id])}`)"
    return text


def zero_reasons(code: str, zero: Collection[str], frames: Mapping[str, Any] | None = None, *,
                 converted: Collection[str] = ()) -> dict[str, Miss]:
    """For each part in ``zero`` (its value is exactly zero) that ``code`` computes as a
    difference or a relative change, why it is zero: its two sides are one value. For the
    others, when the program compares a text column of ``frames`` with a text it never holds,
    that comparison. Part name → what did not fit; parts with no such reason are left out."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    bound, entries = bound_once(tree), answer_entries(tree)
    out: dict[str, Miss] = {}
    unmatched: str | None = None
    for name in zero:
        entry = entries.get(name)
        sides = _sides(entry, bound) if entry is not None else None
        if sides is not None:
            left, right = sides
            same = ast.dump(bound.get(getattr(left, "id", ""), left)) == ast.dump(bound.get(getattr(right, "id", ""), right))
            how = "are computed the same way" if same else "came out as the same value"
            note = f"it is 0 because {_said(left, bound)} and {_said(right, bound)} {how}"
            out[name] = Miss(note, f"{note}: they are one value, where the question compares two; compute each side "
                                   "on the rows, group or year the question gives it, then compare them")
            continue
        if frames is not None:
            unmatched = unmatched if unmatched is not None else (unmatched_values(code, frames, converted=converted) or "")
            if unmatched:
                why = unmatched.split(": compare", 1)[0]
                out[name] = Miss(f"it is 0 because {why}", f"it came out 0 because {unmatched}")
    return out
