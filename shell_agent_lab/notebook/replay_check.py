"""The reproducibility check: Run All without a model reproduces every number the assistant stated.

:func:`replay_check` runs a notebook's cells in a fresh kernel (nbclient) with every ``%agent``
line left out — no model is asked — then compares each number stated in an answer with the
numbers the cells above the next question produced (their text, tables and chart data). A
stated number is reproduced when some produced number rounds to it at the precision it was
stated with (``55.42`` is reproduced by ``55.416…``; ``38,988`` by ``38988.0``; ``12%`` by
``12.1`` or ``0.121``). Not checked: numbers the question itself contains, identifiers (``f-…``,
``Q3``), and small counts (integers below 10).

An answer built on a tool whose result a model makes from the rows (``analyze_data``, summaries)
has no cells to reproduce it: it is listed as not checked. ``%agent /replay-check`` runs the check
on the open notebook; CI runs it on the example notebooks.
"""
from __future__ import annotations

import copy
import html
import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

__all__ = ["Mismatch", "ReplayReport", "replay_check", "check_notebook", "stated_numbers", "numbers_in",
           "reproduces", "is_agent_source"]

#: a number as people write it: 38,988 · 38988.0 · -1.5 · 12% (not inside a word or an id)
_NUMBER = re.compile(r"(?<![\w.\-/])(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(\s?%)?(?![\w/]|-\d|\.\d)")
_AGENT_LINE = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\s*=\s*)?%{1,2}agent(?:_async)?(?:\s|$)")
_SQL_NOTE = "SQL this turn ran"
#: tools whose result a model makes from the rows it reads: an answer built on one is not checked
MODEL_MADE = frozenset({"analyze_data", "quick_summary", "analyze_text", "suggest_analysis", "query_preview"})
_TOOL_LINE = re.compile(r"^[✓✗⏳•] (\w+) —", re.MULTILINE)
_TAGS = re.compile(r"<[^>]+>")
_BARE_FLAGS = frozenset({"--no-stream"})


@dataclass(frozen=True)
class Stated:
    text: str           # as written, e.g. "38,988"
    value: float
    decimals: int
    percent: bool = False


@dataclass
class Mismatch:
    cell: int            # index of the answer's cell in the notebook
    question: str
    number: str
    sentence: str

    def __str__(self) -> str:
        return f"cell {self.cell} ({self.question}): {self.number} is not produced by any cell — “{self.sentence}”"


@dataclass
class ReplayReport:
    checked: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: other cells that failed on re-run (e.g. ones reading ``r = %agent …``'s reply): not counted
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.errors

    def markdown(self) -> str:
        if self.ok:
            return "\n".join([f"✓ Run All without a model reproduces all {self.checked} number"
                              f"{'s' if self.checked != 1 else ''} the assistant stated."]
                             + [f"- (not counted) {n}" for n in self.notes])
        lines = [f"✗ {len(self.mismatches)} of {self.checked} stated numbers are not reproduced"
                 + (f"; {len(self.errors)} cell(s) failed" if self.errors else "") + ":"]
        lines += [f"- {m}" for m in self.mismatches] + [f"- {e}" for e in self.errors]
        return "\n".join(lines + [f"- (not counted) {n}" for n in self.notes])


def is_agent_source(source: str) -> bool:
    return any(_AGENT_LINE.match(line) for line in source.splitlines())


def _is_question(source: str) -> str | None:
    """The question of an ``%agent`` / ``%%agent`` cell; None for commands and other cells."""
    lines = source.strip().splitlines()
    for n, line in enumerate(lines):
        m = _AGENT_LINE.match(line)
        if not m:
            continue
        rest = line[m.end():].strip()
        if line.lstrip().startswith("%%") or "%%agent" in line:
            rest = (rest + " " + " ".join(lines[n + 1:])).strip()
        while rest.startswith("--"):        # options before the message
            words = rest.split(None, 1)
            flag, rest = words[0], words[1] if len(words) > 1 else ""
            if flag == "--":
                break
            if flag not in _BARE_FLAGS:         # the option's value
                rest = rest.split(None, 1)[1] if len(rest.split(None, 1)) > 1 else ""
        return None if not rest or rest.startswith("/") else rest
    return None


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _answer_text(outputs: Iterable[Any]) -> str:
    """What the assistant said in an answer cell: its Markdown outputs, less the SQL listing
    and the footer line counting tables."""
    parts = []
    for out in outputs:
        data = out.get("data") or {}
        text = _text(data.get("text/markdown"))
        if not text or text.startswith(_SQL_NOTE):
            continue
        parts.append("\n".join(l for l in text.splitlines() if not re.fullmatch(r"_\d+ (?:table|chart|SQL).*_", l.strip())))
    return "\n".join(parts)


def _tools_used(outputs: Iterable[Any]) -> list[str]:
    """The tools an answer cell's tool lines name (``✓ query_sql — done: …``)."""
    names: list[str] = []
    for out in outputs:
        names += _TOOL_LINE.findall(_text((out.get("data") or {}).get("text/plain")))
    return names


def stated_numbers(text: str, question: str = "") -> list[tuple[Stated, str]]:
    """The numbers ``text`` states, each with its sentence; those in ``question`` are left out."""
    asked = {m.group(1).replace(",", "") for m in _NUMBER.finditer(question or "")}
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        for m in _NUMBER.finditer(sentence):
            raw = m.group(1)
            plain = raw.replace(",", "")
            if plain in asked:
                continue
            value = float(plain)
            decimals = len(plain.split(".")[1]) if "." in plain else 0
            if decimals == 0 and abs(value) < 10 and not m.group(2):
                continue
            found.append((Stated(raw + (m.group(2) or ""), value, decimals, bool(m.group(2))), sentence.strip()))
    return found


def numbers_in(outputs: Iterable[Any]) -> list[float]:
    """Every number in a cell's outputs: text, HTML tables, JSON (chart data)."""
    values: list[float] = []

    def scan(text: str) -> None:
        for m in re.finditer(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?", text):
            try:
                values.append(float(m.group(0).replace(",", "")))
            except ValueError:
                pass

    def walk(value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, (int, float)):
            values.append(float(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            scan(value)

    for out in outputs:
        if out.get("output_type") == "stream":
            scan(_text(out.get("text")))
            continue
        for mime, value in (out.get("data") or {}).items():
            if mime == "text/html":
                scan(html.unescape(_TAGS.sub(" ", _text(value))))
            elif mime.endswith("json"):
                walk(value if not isinstance(value, str) else json.loads(value))
            elif mime.startswith("text/"):
                scan(_text(value))
    return values


def reproduces(stated: Stated, produced: Iterable[float]) -> bool:
    """Some produced number rounds to ``stated`` at the precision it was stated with."""
    tolerance = 0.5 * 10 ** -stated.decimals + 1e-9
    for p in produced:
        candidates = (p, p * 100) if stated.percent else (p,)
        if any(abs(c - stated.value) <= tolerance for c in candidates):
            return True
    return False


def check_notebook(nb: Any) -> ReplayReport:
    """Compare the answers' numbers with the other cells' outputs of an executed ``nb`` (pure)."""
    report = ReplayReport()
    cells = nb["cells"]
    questions = [(i, q) for i, c in enumerate(cells) if c["cell_type"] == "code"
                 and (q := _is_question(_text(c["source"]))) is not None]
    for n, (index, question) in enumerate(questions):
        end = questions[n + 1][0] if n + 1 < len(questions) else len(cells)
        produced: list[float] = []
        for c in cells[:end]:
            if c["cell_type"] == "code" and not is_agent_source(_text(c["source"])):
                produced += numbers_in(c.get("outputs") or [])
        short = " ".join(question.split())[:60]
        outputs = cells[index].get("outputs") or []
        made = sorted(set(_tools_used(outputs)) & MODEL_MADE)
        if made:
            report.notes.append(f"cell {index} ({short}): the answer comes from {', '.join(made)}, which a model "
                                "makes from the rows it reads; its numbers are not checked")
            continue
        for stated, sentence in stated_numbers(_answer_text(outputs), question):
            report.checked += 1
            if not reproduces(stated, produced):
                report.mismatches.append(Mismatch(index, short, stated.text, sentence))
    return report


def replay_check(path: str | Path, *, timeout: int = 600, data_dir: str | Path | None = None) -> ReplayReport:
    """Re-run the notebook at ``path`` in a fresh kernel without a model and check it.

    The stated numbers are read from the saved notebook; every other code cell runs again
    (``%agent`` lines are left out) in a fresh data directory, and what they print now is compared.
    """
    import nbformat

    from .cells import CELL_TAG
    from .nbrun import execute, temporary_environ

    path = Path(path)
    saved = nbformat.read(path, as_version=4)
    fresh = copy.deepcopy(saved)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            kept = [l for l in cell.source.splitlines() if not _AGENT_LINE.match(l)]
            cell.source = "" if is_agent_source(cell.source) and _is_question(cell.source) else "\n".join(kept)
            cell.outputs = []
    report = ReplayReport()
    with tempfile.TemporaryDirectory(prefix="sal-replay-") as tmp:
        env = {"SHELL_AGENT_LAB_DATA_DIR": str(data_dir or tmp), "SHELL_AGENT_LAB_CASSETTE": None,
               "SHELL_AGENT_LAB_REPLAY": None, "JPY_SESSION_NAME": None}
        with temporary_environ(env):
            execute(fresh, cwd=path.parent, timeout=timeout, expand=False, allow_errors=True)
    for index, cell in enumerate(fresh.cells):
        tags = cell.metadata.get("tags", [])
        for out in cell.get("outputs") or []:
            if out.get("output_type") == "error" and "raises-exception" not in tags:
                line = f"cell {index} failed on re-run: {out.get('ename')}: {out.get('evalue')}"
                (report.errors if CELL_TAG in tags else report.notes).append(line)
    # the answers as saved; everything else as re-run
    merged = copy.deepcopy(fresh)
    for index, cell in enumerate(saved.cells):
        if cell.cell_type == "code" and _is_question(cell.source) is not None:
            merged.cells[index] = cell
    checked = check_notebook(merged)
    checked.errors, checked.notes = report.errors, report.notes + checked.notes
    return checked
