"""The data-sharing level as the agent applies it: which level a turn runs at, the notice said
once per session when requests leave the machine, ``/status``, and the answer composed from the
results at "schema" (the model saw none of them, so its text carries no number of its own).

The rules themselves (levels, labels, the model's view of a result) are in
:mod:`shell_agent_lab.sharing`; the context builder applies them to every request.
"""
from __future__ import annotations

import os
import re
import threading
from typing import Any, Sequence

from ..answers.compose import compose_from_frames
from ..answers.forms import form_of, read_form
from ..sharing import LEVEL_ENV, destination, effective_sharing, leaves_machine
from ._loopguard import ungrounded_numbers

__all__ = ["SharingNotices", "sharing_status", "compose_from_results", "sharing_level"]

_WHAT = {
    "rows": "query results and sample values",
    "aggregates": "table and column names, types and aggregate results (no individual records, no "
                  "sample values)",
    "schema": "table and column names and types only (every result stays in the notebook)",
}
_MAX_LINES = 10


def sharing_level(settings: Any, profile: Any, backend: Any) -> str:
    """The level a turn runs at (see :func:`shell_agent_lab.sharing.effective_sharing`)."""
    return effective_sharing(settings, profile, backend)


def sharing_status(settings: Any, profile: Any, backend: Any) -> dict[str, Any]:
    """Where requests go and what they carry: {level, remote, destination, explicit, text}."""
    level = effective_sharing(settings, profile, backend)
    remote = any(t is not None and leaves_machine(t) for t in (backend, profile))
    where = destination(backend if backend is not None else profile)
    explicit = bool(getattr(settings, "data_sharing", None) or os.environ.get(LEVEL_ENV, "").strip() or
                    (isinstance(profile, dict) and profile.get("data_sharing")))
    if remote:
        text = f"Requests go to {where}; data sharing: {level} — the model sees {_WHAT[level]}."
    else:
        text = f"Requests stay on this machine ({where}); data sharing: {level}."
    if not explicit:
        text += " (default; set ShellAgent.data_sharing to choose)"
    return {"level": level, "remote": remote, "destination": where, "explicit": explicit, "text": text}


class SharingNotices:
    """Says once per session (and again when the destination or level changes) where data goes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._said: dict[str, tuple[str, str]] = {}

    def first_request(self, session_id: str, settings: Any, profile: Any, backend: Any) -> dict[str, Any] | None:
        """The ``data_sharing`` event's payload before the first request of ``session_id`` to a
        remote endpoint (None when nothing leaves the machine or it was said already)."""
        status = sharing_status(settings, profile, backend)
        if not status["remote"]:
            return None
        key = (status["destination"], status["level"])
        with self._lock:
            if self._said.get(session_id) == key:
                return None
            self._said[session_id] = key
        return {"level": status["level"], "destination": status["destination"],
                "backend": str(getattr(backend, "name", "") or ""), "model": str(getattr(backend, "model", "") or ""),
                "text": status["text"]}


def _value_lines(table: Any) -> list[str]:
    """A result as the user reads it: ``column: value`` for one row, a small table otherwise."""
    try:
        rows, cols = table.shape
        columns = [str(c) for c in table.columns]
    except Exception:
        return [str(table)]
    if rows == 1 and cols <= 6:
        return [f"- {c}: {_cell(v)}" for c, v in zip(columns, table.iloc[0].tolist())]
    if rows == 0:
        return ["- (no rows)"]
    head = table.head(_MAX_LINES)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in head.itertuples(index=False)]
    if rows > _MAX_LINES:
        lines.append(f"\n({rows:,} rows; the first {_MAX_LINES} are shown here, all of them in the result below)")
    return lines


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.10g}" if abs(value) < 1e15 else str(value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def compose_from_results(model_text: str, tables: Sequence[Any], question: str = "", *, spec: Any = None) -> str:
    """The answer the user reads at "schema": the model's words without any number no result
    holds, then each result's values (the model never saw them; they come from the results),
    then the parts the question asks for (``@name[…]``, ``Answer:``) written from the results by
    the answer composer, where the results settle them."""
    sources = []
    for table in tables:
        try:
            sources.append(table.to_string())
        except Exception:
            sources.append(str(table))
    text = (model_text or "").strip()
    for raw in sorted(set(ungrounded_numbers(text, sources, ignore_below=-1)), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.]){re.escape(raw)}(?![\w])", "…", text)
    if not tables:
        return text
    parts = [text] if text else []
    for n, table in enumerate(tables, 1):
        title = "Result" if len(tables) == 1 else f"Result {n}"
        parts.append(f"**{title}**\n" + "\n".join(_value_lines(table)))
    composed = compose_from_frames(form_of(spec) if spec is not None else read_form(question), tables,
                                   why="the results above do not settle it and the model does not see them "
                                       "at this data-sharing level")
    if composed is not None:
        parts.append(composed.text)
    return "\n\n".join(parts)
