"""No model turn without data: when the session's tables cannot be opened here (another kernel
holds the analysis database, an export has it closed, the file is damaged), a question about
the data is answered with why and what to do, without asking the model, which could only guess.

Other messages (a greeting, a question about the assistant, memory) still go to the model: chat,
memory and Findings work without the database.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from ..answers.spec import read_spec


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


def _stem(word: str) -> str:
    """A word without its plural ending: a column ``smoker`` is named by "smokers"."""
    for end in ("es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


def _plain(text: str) -> str:
    return " " + " ".join(_stem(w) for w in re.findall(r"[^\W_]+", text.lower())) + " "


def _names_data(message: str, names: list[str], asks_form: bool) -> bool:
    """The message is about the data by its own names: it names a DataFrame or a column (in any
    spelling of its words: ``price_usd`` is "price usd"), or states the form of a computed
    answer (``asks_form``, read once into the spec)."""
    if asks_form:
        return True
    plain = _plain(message)
    return any(len(words.strip()) > 1 and words in plain for words in map(_plain, names))


def no_data_answer(message: str, reason: str | None, engine: Any,
                   namespace: Mapping[str, Any] | None = None) -> str | None:
    """The answer to give instead of a model turn, or None when the turn should go ahead.

    ``reason``: why the session's analysis database could not be opened (None when it could, or
    when the session has no database at all); ``engine``: the engine the turn would use. The
    spec is read here only when the turn will not run (it reads it otherwise)."""
    if engine is not None or not reason:
        return None
    if not _names_data(message, _frame_names(namespace), read_spec(message).source == "syntax"):
        return None
    why = _EXC_PREFIX.sub("", reason.strip()).rstrip(".")
    return (f"This question needs the session's data, which cannot be read in this kernel, so it was not "
            f"sent to the model: {why}.")
