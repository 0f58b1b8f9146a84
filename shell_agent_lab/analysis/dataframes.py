"""Find the live DataFrames in a namespace and describe them without copying.

Recognised: ``pandas.DataFrame``, ``polars.DataFrame`` and ``pyarrow.Table``. Libraries are
looked up in ``sys.modules`` only, so a notebook that never imported polars never pays for it.
Names starting with ``_`` and names that are not plain ASCII identifiers are skipped.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FrameInfo", "find_frames", "frame_kind", "describe_frame", "fingerprint", "same_fingerprint",
           "IDENTIFIER"]

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SAMPLES = 3


@dataclass(frozen=True)
class FrameInfo:
    name: str
    library: str                      # "pandas" | "polars" | "pyarrow"
    rows: int
    columns: list[tuple[str, str]]    # (name, dtype as the library prints it)
    samples: dict[str, list[str]] = field(default_factory=dict)


def frame_kind(obj: Any) -> str | None:
    """``"pandas"``, ``"polars"``, ``"pyarrow"`` or ``None`` for anything else."""
    module = type(obj).__module__ or ""
    root = module.split(".", 1)[0]
    if root == "pandas":
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(obj, pd.DataFrame):
            return "pandas"
    elif root == "polars":
        pl = sys.modules.get("polars")
        if pl is not None and isinstance(obj, pl.DataFrame):
            return "polars"
    elif root == "pyarrow":
        pa = sys.modules.get("pyarrow")
        if pa is not None and isinstance(obj, pa.Table):
            return "pyarrow"
    return None


def find_frames(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """Public, identifier-named DataFrames of ``namespace`` by name (sorted)."""
    found: dict[str, Any] = {}
    for name, obj in list(namespace.items()):
        if not isinstance(name, str) or name.startswith("_") or not IDENTIFIER.match(name):
            continue
        if frame_kind(obj) is not None:
            found[name] = obj
    return dict(sorted(found.items()))


def fingerprint(obj: Any) -> tuple[Any, ...]:
    """What must stay the same for a registered view to still show ``obj`` as it is now.

    pandas frames can change in place: a new column, or a write that copy-on-write turns into
    a new array. Their shape, columns, dtypes and the identity of their column arrays are
    compared (the arrays themselves are kept, so an identity is never reused). polars and
    pyarrow tables are compared by identity, shape and schema.
    """
    kind = frame_kind(obj)
    if kind == "pandas":
        try:
            arrays = tuple(obj._mgr.arrays)
        except AttributeError:  # a pandas without block managers: always re-register
            arrays = (object(),)
        return (obj.shape, tuple(map(str, obj.columns)), tuple(map(str, obj.dtypes)), arrays)
    if kind == "polars":
        return (obj.shape, tuple(obj.columns), tuple(map(str, obj.dtypes)))
    if kind == "pyarrow":
        return (obj.num_rows, obj.schema)
    return (object(),)


def same_fingerprint(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y) and x and \
                not isinstance(x[0], (str, int)):
            if any(p is not q for p, q in zip(x, y)):
                return False
        elif x is not y and x != y:
            return False
    return True


def _short(value: Any) -> str:
    from .render import format_value

    try:
        text = format_value(value)
    except Exception:  # an exotic cell must not hide the frame
        text = object.__repr__(value)
    return text if len(text) <= 60 else text[:59] + "…"


def describe_frame(name: str, obj: Any) -> FrameInfo:
    """Shape, dtypes and the first few values of each column (no copy of the data)."""
    kind = frame_kind(obj)
    if kind == "pandas":
        head = obj.head(_SAMPLES)
        columns = [(str(c), str(t)) for c, t in zip(obj.columns, obj.dtypes)]
        samples = {str(c): [_short(v) for v in head.iloc[:, i].tolist()]
                   for i, c in enumerate(obj.columns[:100])}
        return FrameInfo(name, kind, int(len(obj)), columns, samples)
    if kind == "polars":
        head = obj.head(_SAMPLES)
        columns = [(str(c), str(t)) for c, t in zip(obj.columns, obj.dtypes)]
        samples = {str(c): [_short(v) for v in head[c].to_list()] for c in obj.columns[:100]}
        return FrameInfo(name, kind, int(obj.height), columns, samples)
    if kind == "pyarrow":
        head = obj.slice(0, _SAMPLES)
        columns = [(f.name, str(f.type)) for f in obj.schema]
        samples = {f.name: [_short(v) for v in head.column(i).to_pylist()]
                   for i, f in enumerate(obj.schema) if i < 100}
        return FrameInfo(name, kind, int(obj.num_rows), columns, samples)
    raise TypeError(f"{name!r} is not a pandas, polars or pyarrow table")
