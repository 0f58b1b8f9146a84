"""The external evaluation set (``benchmarks/external``) adapted to the answer benchmark.

The set's questions are written apart from the product over third-party tables; its own module
``benchmarks/external/score.py`` builds their prompts and judges replies. This module turns them
into the items the session runner, the bare baseline and the report work with:

* an :class:`ExternalItem` is one prompt: a closed question as it is (``ext-07``), or a natural
  question with one answer-format wording appended (``ext-05@plain``; ``score.prompt_for``);
* :func:`items` / :func:`resolve` / :func:`select` pick items by question id, item id, table and
  wording (:data:`DEFAULT_WORDINGS`: one fixed wording);
* :func:`write_files` copies the tables, :func:`expected_answers` gives each item's reference;
* :func:`plan` makes the sessions: per table, closed questions in sessions of up to
  ``session_size``, and the natural questions of each wording all in one kernel (follow-ups,
  as a user asks them), each table loaded under its question's ``frame`` name;
* :func:`score_item` judges a reply through ``score.score`` and returns the benchmark's
  :class:`~benchmarks.answers_score.Verdict`.

An item's ``prompt`` and the question it came from are left out of its ``repr``, so a failing
check or a log line names items by id only.
"""
from __future__ import annotations

import importlib
import inspect
import re
import shutil
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from benchmarks.answers_score import TurnFacts, Verdict, failure_kind
from benchmarks.answers_session import SessionPlan
from benchmarks.external import score as external_score

__all__ = ["SET_NAME", "FOLDERS", "use", "folder", "DEFAULT_WORDINGS", "ExternalItem", "wording_ids", "parse_wordings", "questions", "items",
           "resolve", "select", "table_name", "tables", "write_files", "expected_answers", "plan", "score_item"]

SET_NAME = "external"
#: the external sets, each a folder of ``benchmarks/`` with the same files and scorer: the first
#: one, a second one written later over other tables (the first is spent for tuning), a third
#: over other tables again (the second is spent too), and a fourth with answer wordings of its
#: own, whose scorer reads a natural reply only in the form its wording asks, a fifth over
#: other tables again with eight wordings of its own, a smaller one (30 questions over six
#: tables, six wordings), a sixth as large as the fifth, a seventh of 30 questions over six tables,
#: an eighth of the same size whose wordings are partly plain English, a ninth of the same
#: size, a tenth of the same size over tables from R packages the ninth did not use, and an
#: eleventh of the same size, each kept unread for a final recording
FOLDERS: tuple[str, ...] = ("external", "external2", "external3", "external4", "external5", "external6b",
                            "external6", "external7", "external8", "external9", "external10", "external11")
_folder = FOLDERS[0]
DEFAULT_WORDINGS: tuple[str, ...] = ("plain",)
_SEP = "@"


@dataclass(frozen=True)
class ExternalItem:
    """One prompt of the external set, shaped like the other sets' questions for the runner."""

    id: str                                    # "ext-07" (closed) or "ext-05@plain" (natural)
    question_id: str
    file: str                                  # the table's CSV name
    frame: str                                 # the variable the table is loaded as
    style: str                                 # "closed" or "natural"
    category: str                              # the question's first topic
    wording: str | None                        # natural: the wording id; closed: None
    prompt: str = field(repr=False)
    spec: Mapping[str, Any] = field(repr=False, compare=False, hash=False)


def use(name: str) -> None:
    """Ask the questions of the external set in ``benchmarks/<name>`` (one of :data:`FOLDERS`)
    from now on."""
    global external_score, _folder
    if name not in FOLDERS:
        raise KeyError(f"no external set {name!r}; the sets are {', '.join(FOLDERS)}")
    external_score = importlib.import_module(f"benchmarks.{name}.score")
    _folder = name
    _questions.cache_clear()
    _wordings.cache_clear()


def folder() -> str:
    """The folder of the external set in use."""
    return _folder


@lru_cache(maxsize=1)
def _questions() -> tuple[Mapping[str, Any], ...]:
    return tuple(external_score.load_questions())


@lru_cache(maxsize=1)
def _wordings() -> tuple[Mapping[str, Any], ...]:
    return tuple(external_score.load_wordings())


def questions() -> list[Mapping[str, Any]]:
    """The set's questions as ``score.load_questions`` reads them."""
    return list(_questions())


def wording_ids() -> list[str]:
    """Every wording's id, in the order of ``wordings.json``."""
    return [str(w["id"]) for w in _wordings()]


def parse_wordings(text: str | None) -> tuple[str, ...]:
    """``--wordings``: comma-separated ids or ``all``; None or empty gives :data:`DEFAULT_WORDINGS`
    (a set whose wordings do not include it: its first wording). An unknown id raises KeyError."""
    known = wording_ids()
    if not text or not text.strip():
        return DEFAULT_WORDINGS if set(DEFAULT_WORDINGS) <= set(known) else tuple(known[:1])
    if text.strip() == "all":
        return tuple(known)
    chosen = tuple(dict.fromkeys(w.strip() for w in text.split(",") if w.strip()))
    unknown = [w for w in chosen if w not in known]
    if unknown:
        raise KeyError(f"no wording {', '.join(map(repr, unknown))} (known: {', '.join(known)}, all)")
    return chosen


def _wording(wording_id: str) -> Mapping[str, Any]:
    for w in _wordings():
        if w["id"] == wording_id:
            return w
    raise KeyError(f"no wording {wording_id!r}")


def _item(q: Mapping[str, Any], wording: str | None) -> ExternalItem:
    natural = q["style"] == "natural"
    chosen = wording if natural else None
    prompt = external_score.prompt_for(dict(q), dict(_wording(chosen)) if chosen else None)
    topics = list(q.get("topics") or [])
    return ExternalItem(id=f"{q['id']}{_SEP}{chosen}" if chosen else str(q["id"]), question_id=str(q["id"]),
                        file=str(q["table"]), frame=str(q.get("frame") or "df"), style=str(q["style"]),
                        category=str(topics[0]) if topics else "external", wording=chosen, prompt=prompt, spec=q)


def _items_of(q: Mapping[str, Any], wordings: Sequence[str]) -> list[ExternalItem]:
    if q["style"] != "natural":
        return [_item(q, None)]
    return [_item(q, w) for w in wordings]


def items(wordings: Sequence[str] = DEFAULT_WORDINGS) -> list[ExternalItem]:
    """Every question of the set: closed ones once, natural ones once per wording."""
    for w in wordings:
        _wording(w)
    return [i for q in _questions() for i in _items_of(q, wordings)]


def resolve(item_or_question_id: str, wordings: Sequence[str] = DEFAULT_WORDINGS) -> list[ExternalItem]:
    """The items an id names: an item id (``ext-05@kinds``) names that one item; a question id
    names its closed item or its natural items with ``wordings``. Empty when the id is unknown."""
    base, _, wording = item_or_question_id.partition(_SEP)
    q = next((q for q in _questions() if q["id"] == base), None)
    if q is None:
        return []
    if wording:
        if q["style"] != "natural" or wording not in wording_ids():
            return []
        return [_item(q, wording)]
    return _items_of(q, wordings)


def tables() -> list[str]:
    """The set's table names, in first-asked order."""
    return list(dict.fromkeys(str(q["table"]) for q in _questions()))


def table_name(name: str) -> str | None:
    """A table by its file name or stem (any case); None when the set has no such table."""
    wanted = name.lower().removesuffix(".csv")
    return next((t for t in tables() if t.lower().removesuffix(".csv") == wanted), None)


def select(files: Sequence[str] | None = None, ids: Sequence[str] | None = None,
           wordings: Sequence[str] = DEFAULT_WORDINGS) -> list[ExternalItem]:
    """The items on the named tables and with the named ids (all items when neither is given),
    in the set's order. Unknown names raise KeyError."""
    everything = items(wordings)
    if not files and not ids:
        return everything
    names = set()
    for f in files or ():
        found = table_name(f)
        if found is None:
            raise KeyError(f"no table {f!r} in the external set")
        names.add(found)
    extra: list[ExternalItem] = []
    for given in ids or ():
        found_items = resolve(given, wordings)
        if not found_items:
            raise KeyError(f"no question {given!r} in the external set")
        extra += found_items
    chosen = {i.id for i in extra} | {i.id for i in everything if i.file in names}
    ordered = [i for i in everything if i.id in chosen]
    seen = {i.id for i in ordered}
    # items of other wordings than ``wordings`` (named by item id) follow their question
    for i in extra:
        if i.id not in seen:
            ordered.append(i)
            seen.add(i.id)
    order = {str(q["id"]): n for n, q in enumerate(_questions())}
    return sorted(ordered, key=lambda i: order[i.question_id])


def write_files(directory: Path, wanted: Iterable[Any]) -> list[Path]:
    """Copy the tables ``wanted`` items ask about into ``directory`` (unchanged files are left)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in dict.fromkeys(i.file for i in wanted):
        source, target = external_score.TABLES / name, directory / name
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
        paths.append(target)
    return paths


def expected_answers(wanted: Iterable[ExternalItem]) -> dict[str, dict[str, Any]]:
    """Each item's reference answer, as the set states it."""
    return {i.id: dict(i.spec["answer"]) for i in wanted}


def _slug(file: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", file.removesuffix(".csv").lower()).strip("_")


def _split(name: str, chosen: Sequence[ExternalItem], size: int) -> list[SessionPlan]:
    count = -(-len(chosen) // max(1, size))
    base, extra = divmod(len(chosen), count)
    plans, start = [], 0
    for index in range(count):
        end = start + base + (1 if index < extra else 0)
        plans.append(SessionPlan(f"{name}-{index + 1}", chosen[start].file, tuple(chosen[start:end]),
                                 frame=chosen[start].frame))
        start = end
    return plans


def plan(wanted: Sequence[ExternalItem], session_size: int = 5) -> list[SessionPlan]:
    """Per table (in first-asked order): its closed items in sessions of up to ``session_size``,
    then for each wording one session holding all its natural items."""
    by_table: dict[str, list[ExternalItem]] = {}
    for i in wanted:
        by_table.setdefault(i.file, []).append(i)
    plans: list[SessionPlan] = []
    for file, chosen in by_table.items():
        frames = {i.frame for i in chosen}
        if len(frames) > 1:
            raise ValueError(f"{file}: the questions load it under several names: {sorted(frames)}")
        closed = [i for i in chosen if i.style == "closed"]
        if closed:
            plans += _split(f"{_slug(file)}-closed", closed, session_size)
        for wording in dict.fromkeys(i.wording for i in chosen if i.style == "natural"):
            natural = [i for i in chosen if i.style == "natural" and i.wording == wording]
            plans.append(SessionPlan(f"{_slug(file)}-natural-{wording}", file, tuple(natural),
                                     frame=natural[0].frame))
    return plans


def _unparsable(item: ExternalItem, found: Any) -> bool:
    """Whether the reply held no readable answer of the asked kind (a ``format`` failure)."""
    if found is None or found == "" or found == [] or found == {}:
        return True
    if item.style == "closed":
        return len(found) < len(item.spec["answer"]["parts"])
    kind = item.spec["answer"]["kind"]
    if kind in ("number", "count"):
        return not isinstance(found, (int, float))
    if kind == "yesno":
        return found not in ("yes", "no")
    return False


def score_item(item: ExternalItem, expected: Mapping[str, Any], text: str,
               facts: TurnFacts = TurnFacts()) -> Verdict:
    """Judge a reply with ``score.score`` (on the item's question with ``expected`` as its answer)."""
    question = {**item.spec, "answer": dict(expected)}
    if item.wording is not None and "wording" in inspect.signature(external_score.score).parameters:
        judged = external_score.score(question, text or "", wording=item.wording)   # read in the asked form
    else:
        judged = external_score.score(question, text or "")
    correct = bool(judged["correct"])
    found = judged.get("found")
    if item.style == "closed" and isinstance(found, Mapping):
        answer = {str(k): str(v) for k, v in found.items()}
    else:
        answer = {} if found is None else {"answer": str(found)}
    kind = None if correct else failure_kind(facts, _unparsable(item, found))
    return Verdict(correct, kind, answer, {"answer": correct}, ("answer",) if _unparsable(item, found) else (),
                   why=str(judged.get("why") or ""))
