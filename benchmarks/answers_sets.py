"""The answer benchmark's question sets behind one interface.

* ``dev`` — the development set (``answers_data`` / ``answers_questions``): closed-form
  questions, sessions of up to ``session_size`` questions per file;
* ``heldout`` — the held-out set (``heldout_data`` / ``heldout_questions``), made by a second,
  independent generator and not to be tuned to: per file, its closed-form questions in sessions
  of up to ``session_size``, its natural ones in sessions of :data:`NATURAL_SESSION` (a user
  asking follow-ups);
* ``external`` — the external evaluation set (``benchmarks/external``, adapted by
  ``external_set``): questions written apart from the product over third-party tables, natural
  ones asked with one or more answer-format wordings, scored by the set's own ``score.py``.
  It is not part of ``both``.

:func:`select` picks questions by set, file and id; :func:`write_files` and
:func:`expected_answers` write the files the questions need and compute their references;
:func:`plan` groups them into sessions; :func:`score_question` scores a reply to a question of
any set.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from benchmarks import answers_data, external_set, heldout_data
from benchmarks.answers_questions import QUESTIONS, question, reference_answers
from benchmarks.answers_score import TurnFacts, Verdict
from benchmarks.answers_session import SessionPlan, plan_sessions
from benchmarks.external_set import ExternalItem
from benchmarks.heldout_questions import HELDOUT, HeldoutQuestion, heldout_question, heldout_reference
from benchmarks.heldout_score import score_question as _score_generated

__all__ = ["SETS", "ALL_SETS", "NATURAL_SESSION", "questions_of", "set_of", "style_of", "wording_of", "select",
           "write_files", "expected_answers", "plan", "file_names", "score_question"]

SETS = ("dev", "heldout")                      # "both"
ALL_SETS = SETS + (external_set.SET_NAME,)
NATURAL_SESSION = 3


def questions_of(name: str, wordings: Sequence[str] = external_set.DEFAULT_WORDINGS) -> list[Any]:
    if name == "dev":
        return list(QUESTIONS)
    if name == "heldout":
        return list(HELDOUT)
    if name == external_set.SET_NAME:
        return list(external_set.items(wordings))
    raise KeyError(f"no question set {name!r} (known: {', '.join(ALL_SETS)}, both)")


def set_of(q: Any) -> str:
    if isinstance(q, ExternalItem):
        return external_set.SET_NAME
    return "heldout" if isinstance(q, HeldoutQuestion) else "dev"


def wording_of(q: Any) -> str | None:
    """The answer-format wording a natural external question is asked with; None otherwise."""
    return getattr(q, "wording", None)


def style_of(q: Any) -> str:
    return getattr(q, "style", "closed")


def file_names(name: str) -> list[str]:
    if name == external_set.SET_NAME:
        return external_set.tables()
    return [s.name for s in (answers_data.FILES if name == "dev" else heldout_data.SHEETS)]


def _file_name(set_name: str, name: str) -> str | None:
    """A file of the set by its name or stem (held-out files also by a unique start of the stem)."""
    if set_name == external_set.SET_NAME:
        return external_set.table_name(name)
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
           ids: Sequence[str] | None = None,
           wordings: Sequence[str] = external_set.DEFAULT_WORDINGS) -> list[Any]:
    """The questions of ``sets`` in the named files and with the named ids (all of the sets'
    questions when neither is given), in benchmark order. An unknown file or id raises KeyError.
    External natural questions come once per wording of ``wordings``; an external item id
    (``ext-05@kinds``) names one wording's item whatever ``wordings`` holds."""
    generated = [s for s in sets if s != external_set.SET_NAME]
    external = external_set.SET_NAME in sets
    pool = [q for s in generated for q in questions_of(s)]
    if not files and not ids:
        return pool + (external_set.items(wordings) if external else [])
    names: set[str] = set()
    for f in files or ():
        found = [n for n in (_file_name(s, f) for s in sets) if n]
        if not found:
            raise KeyError(f"no benchmark file {f!r} in the {'/'.join(sets)} set")
        names.update(found)
    wanted: set[str] = set()
    external_ids: list[str] = []
    for i in ids or ():
        found_q = [q for q in (_question(s, i) for s in generated) if q is not None]
        if external and external_set.resolve(i, wordings):
            external_ids.append(i)
        elif not found_q:
            raise KeyError(f"no question {i!r} in the {'/'.join(sets)} set")
        wanted.update(q.id for q in found_q)
    chosen = [q for q in pool if q.file in names or q.id in wanted]
    if external:
        tables = [n for n in names if external_set.table_name(n) == n]
        if tables or external_ids:
            chosen += external_set.select(tables, external_ids, wordings)
    return chosen


def write_files(directory: Path, questions: Iterable[Any]) -> list[Path]:
    """Write the files ``questions`` ask about (each set's generator writes its own)."""
    questions = list(questions)
    paths: list[Path] = []
    for set_name, module in (("dev", answers_data), ("heldout", heldout_data)):
        needed = [n for n in file_names(set_name) if any(q.file == n and set_of(q) == set_name for q in questions)]
        if needed:
            paths += module.write_files(directory, needed)
    external = [q for q in questions if set_of(q) == external_set.SET_NAME]
    if external:
        paths += external_set.write_files(directory, external)
    return paths


def expected_answers(questions: Sequence[Any], directory: Path) -> dict[str, dict[str, Any]]:
    """Every question's reference answer, computed from its file in ``directory``."""
    frames: dict[str, Any] = {}
    out: dict[str, dict[str, Any]] = external_set.expected_answers(
        [q for q in questions if isinstance(q, ExternalItem)])
    for q in questions:
        if isinstance(q, ExternalItem):
            continue
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
    sessions of up to ``natural_size``; the external set's as :func:`external_set.plan` groups them."""
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
    external = [q for q in questions if isinstance(q, ExternalItem)]
    if external:
        plans += external_set.plan(external, session_size)
    return plans


def score_question(q: Any, expected: Mapping[str, Any], text: str, facts: TurnFacts = TurnFacts()) -> Verdict:
    """Score a reply to a question of any set: the external set's by its own ``score.py``, the
    generated sets' by ``heldout_score.score_question``."""
    if isinstance(q, ExternalItem):
        return external_set.score_item(q, expected, text, facts)
    return _score_generated(q, expected, text, facts)
