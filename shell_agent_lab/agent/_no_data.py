"""No model turn without data: when the session's tables cannot be opened here (another kernel
holds the analysis database, an export has it closed, the file is damaged), a question about
the data is answered with why and what to do, without asking the model, which could only guess.

Other messages (a greeting, a question about the assistant, memory) still go to the model: chat,
memory and Findings work without the database.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from ._loopguard import mentions_data

__all__ = ["no_data_answer"]

_EXC_PREFIX = re.compile(r"^[A-Z]\w*(?:Error|Exception): ")


def _frame_names(namespace: Mapping[str, Any] | None) -> list[str]:
    """The notebook's DataFrames (pandas, polars, pyarrow) and their columns, found by duck typing."""
    names: list[str] = []
    for name, value in (namespace or {}).items():
        if name.startswith("_"):
            continue
        columns = getattr(value, "columns", None) if hasattr(value, "shape") or hasattr(value, "num_rows") else None
        if columns is None:
            continue
        names.append(name)
        try:
            names.extend(str(c) for c in list(columns)[:200])
        except Exception:
            continue
    return names


def no_data_answer(message: str, reason: str | None, engine: Any,
                   namespace: Mapping[str, Any] | None = None) -> str | None:
    """The answer to give instead of a model turn, or None when the turn should go ahead.

    ``reason``: why the session's analysis database could not be opened (None when it could, or
    when the session has no database at all); ``engine``: the engine the turn would use."""
    if engine is not None or not reason:
        return None
    if not mentions_data(message, _frame_names(namespace)):
        return None
    why = _EXC_PREFIX.sub("", reason.strip()).rstrip(".")
    return (f"This question needs the session's data, which cannot be read in this kernel, so it was not "
            f"sent to the model: {why}.")
