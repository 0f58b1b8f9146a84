"""The answer benchmark's two question sets behind one interface.

* ``dev`` — the development set (``answers_data`` / ``answers_questions``): closed-form
  questions, sessions of up to ``session_size`` questions per file;
* ``heldout`` — the held-out set (``heldout_data`` / ``heldout_questions``), made by a second,
  independent generator and not to be tuned to: per file, its closed-form questions in sessions
  of up to ``session_size``, its natural ones in sessions of :data:`NATURAL_SESSION` (a user
  asking follow-ups).

:func:`select` picks questions by set, file and id; :func:`write_files` and
:func:`expected_answers` write the files the questions need and compute their references;
:func:`plan` groups them into sessions.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from benchmarks import answers_data, heldout_data
from benchmarks.answers_questions import QUESTIONS, question, reference_answers
from benchmarks.answers_session import SessionPlan, plan_sessions
from benchmarks.heldout_questions import HELDOUT, HeldoutQuestion, heldout_question, heldout_reference

__all__ = ["SETS", "NATURAL_SESSION", "questions_of", "set_of", "style_of", "select", "write_files",
           "expected_answers", "plan", "file_names"]

SETS = ("dev", "heldout")
NATURAL_SESSION = 3


def questions_of(name: str) -> list[Any]:
    if name == "dev":
        return list(QUESTIONS)
    if name == "heldout":
        return list(HELDOUT)
    raise KeyError(f"no question set {name!r} (known: {', '.join(SETS)}, both)")


def set_of(q: Any) -> str:
    return "heldout" if isinstance(q, HeldoutQuestion) else "dev"


def style_of(q: Any) -> str:
    return getattr(q, "style", "closed")


def file_names(name: str) -> list[str]:
    return [s.name for s in (answers_data.FILES if name == "dev" else heldout_data.SHEETS)]


def _file_name(set_name: str, name: str) -> str | None:
    """A file of the set by its name or stem (held-out files also by a unique start of the stem)."""
    try:
        return (answers_data.file_spec(name).name if set_name == "dev" else heldout_data.sheet(name).name)
    except KeyError:
        pass
    if set_name == "heldout":
        starts = [s.name for s in heldout_data.SHEETS if s.stem.lower().startswith(name.lower())]
        return starts[0] if len(starts) == 1 else None
    return None


def _question(set_name: str, question_id: str) -> Any | None:
    try:
        return question(question_id) if set_name == "dev" else heldout_question(question_id)
    except KeyError:
        return None


def select(sets: Sequence[str] = ("dev",), files: Sequence[str] | None = None,
           ids: Sequence[str] | None = None) -> list[Any]:
    """The questions of ``sets`` in the named files and with the named ids (all of the sets'
    questions when neither is given), in benchmark order. An unknown file or id raises KeyError."""
    pool = [q for s in sets for q in questions_of(s)]
    if not files and not ids:
        return pool
    names: set[str] = set()
    for f in files or ():
        found = [n for n in (_file_name(s, f) for s in sets) if n]
        if not found:
            raise KeyError(f"no benchmark file {f!r} in the {'/'.join(sets)} set")
        names.update(found)
    wanted: set[str] = set()
    for i in ids or ():
        found_q = [q for q in (_question(s, i) for s in sets) if q is not None]
        if not found_q:
            raise KeyError(f"no question {i!r} in the {'/'.join(sets)} set")
        wanted.update(q.id for q in found_q)
    return [q for q in pool if q.file in names or q.id in wanted]


def write_files(directory: Path, questions: Iterable[Any]) -> list[Path]:
    """Write the files ``questions`` ask about (each set's generator writes its own)."""
    paths: list[Path] = []
    for set_name, module in (("dev", answers_data), ("heldout", heldout_data)):
        needed = [n for n in file_names(set_name) if any(q.file == n and set_of(q) == set_name for q in questions)]
        if needed:
            paths += module.write_files(directory, needed)
    return paths


def expected_answers(questions: Sequence[Any], directory: Path) -> dict[str, dict[str, Any]]:
    """Every question's reference answer, computed from its file in ``directory``."""
    frames: dict[str, Any] = {}
    out: dict[str, dict[str, Any]] = {}
    for q in questions:
        heldout = set_of(q) == "heldout"
        if q.file not in frames:
            reader = heldout_data.read_reference if heldout else answers_data.read_reference
            frames[q.file] = reader(directory / q.file)
        out[q.id] = heldout_reference(q, frames[q.file]) if heldout else reference_answers(q, frames[q.file])
    return out


def _slug(file: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", file.removesuffix(".csv").lower()).strip("_")


def _split(name: str, file: str, questions: Sequence[Any], size: int) -> list[SessionPlan]:
    count = -(-len(questions) // size)
    base, extra = divmod(len(questions), count)
    plans, start = [], 0
    for index in range(count):
        end = start + base + (1 if index < extra else 0)
        plans.append(SessionPlan(f"{name}-{index + 1}", file, tuple(questions[start:end])))
        start = end
    return plans


def plan(questions: Sequence[Any], session_size: int = 5, natural_size: int = NATURAL_SESSION) -> list[SessionPlan]:
    """Sessions for ``questions``: the dev set's as :func:`plan_sessions` groups them; per held-out
    file, its closed-form questions in sessions of up to ``session_size`` and its natural ones in
    sessions of up to ``natural_size``."""
    dev = [q for q in questions if set_of(q) == "dev"]
    plans = plan_sessions(dev, session_size) if dev else []
    by_file: dict[str, list[Any]] = {}
    for q in questions:
        if set_of(q) == "heldout":
            by_file.setdefault(q.file, []).append(q)
    for file, qs in by_file.items():
        for style, size in (("closed", session_size), ("natural", natural_size)):
            chosen = [q for q in qs if q.style == style]
            if chosen:
                plans += _split(f"{_slug(file)}-{style}", file, chosen, size)
    return plans
