"""A data question answered by a short pandas program: the model writes it, the product checks
and runs it on views of the notebook's DataFrames, and code writes the answer in the form the
question asks (the program path).

A code model writes pandas over listed columns better than it writes a JSON tool call, then
SQL, then retypes numbers. So for a question about the data the model is asked for one program;
the guarded runner (:mod:`..answers.program_run`) refuses anything that could write or reach
outside, runs the rest on Copy-on-Write views, and the answer is written by code.
The stages, each typed and in its own module: the answer spec read once on the turn
(:mod:`..answers.spec`) → the program asked for, ending by binding ``answer = {part: value}``
(:mod:`..answers.program_prompt`) → the guarded run (:mod:`..answers.program_run`) → the values
taken by name (:mod:`..answers.values`) → the answer written in the asked form and precision
(:mod:`..answers.write`). A program that fails, is refused, or binds a value of clearly the wrong
kind goes back to the model once with why. The program becomes a cell under the asking cell, so
Run All reproduces the number. When no program computes anything the answer says so in one
sentence; the tracebacks stay in the programs' cells.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from ..answers.column_values import Miss, as_names, columns_named, off_column, row_labels, text_extremes, unmatched_values
from ..answers.compose import SERIES_FOOTER, Composed
from ..answers.spec import PARTS, PROSE, AnswerSpec, read_spec, with_columns
from ..answers.values import NAN_REASON, Taken, take_values
from ..answers.write import NAN_ADVICE as _NAN_ADVICE, nothing_computed, retry_message, write_answer, write_part
from ..answers.least_squares import import_line
from ..answers.program_prompt import FrameView, program_prompt, retyped
from ..answers.program_repairs import distinct_counter, reduced_whole, spans_rewritten
from ..answers.named_values import named_in
from ..answers.program_names import slice_at, slices
from ..answers.zero_values import zero_parts, zero_reasons
from ..answers.printed_form import Form
from ..llm.errors import CancelledError
from ._answer_form import asked_form
from ._program_attempt import (REDRAW_TEMPERATURE, Mended, Ran, as_run, draft, first_messages, mend,
                               program_shape, retry_messages, run_mended)
from ._types import ToolActivity

__all__ = ["PROGRAM_TOOL", "ProgramOutcome", "frames_for", "answer_by_program", "program_failed", "step_summary", "cell_code",
           "record_program"]

log = logging.getLogger(__name__)

#: the name the program's run is recorded under (a tool call in the records, a Python cell)
PROGRAM_TOOL = "run_pandas"
#: rows a session table may have to be read into a DataFrame for a program
_MAX_TABLE_ROWS = 2_000_000
_ATTEMPTS = 2
#: times a program is asked again, sampled, when the model wrote one that already failed
_REDRAWS = 2

@dataclass
class ProgramOutcome:
    """What the program path did: the answer when one was composed."""

    composed: Composed | None = None
    code: str = ""
    output: str = ""
    error: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    #: the form the question asked in words that the answer was written in (``asked_form``)
    form: Form | None = None
    #: the time ran out or the user stopped before the path ended (what ran is in ``attempts``)
    cut: bool = False


def _samples(frame: Any, column: Any, n: int = 3) -> list[str]:
    try:
        values = frame[column].head(200).dropna().astype(str).unique()[:n]
    except Exception:
        return []
    return [str(v) for v in values]


def frames_for(engine: Any, namespace: Any) -> dict[str, Any]:
    """The pandas DataFrames a program may use: the notebook's live ones, else the session's
    loaded tables read into DataFrames (when not too large)."""
    import pandas as pd

    from ..analysis.dataframes import find_frames

    frames = {n: f for n, f in find_frames(namespace or {}).items() if isinstance(f, pd.DataFrame)}
    if engine is None:
        return frames
    try:
        tables = list(engine.tables())
    except Exception:
        return frames
    reader = getattr(engine, "frame", None)
    if reader is None:
        return frames
    live = [t for t in tables if t.kind == "dataframe" and t.library == "pandas" and t.name not in frames]
    loaded = [t for t in tables if t.kind == "table" and t.rows <= _MAX_TABLE_ROWS]
    for info in live if (live or frames) else loaded[:4]:
        try:
            frame = reader(info.name) if info.kind == "dataframe" else reader(info.name, max_rows=_MAX_TABLE_ROWS)
        except Exception:
            log.debug("could not read %s as a DataFrame", info.name, exc_info=True)
            continue
        if isinstance(frame, pd.DataFrame):
            frames[info.name] = frame
    return frames


def _views(frames: dict[str, Any], engine: Any, *, values: bool = True) -> list[FrameView]:
    """How the prompt shows each frame; without ``values`` (a data-sharing level below "rows")
    only names, dtypes and what the columns hold (text numbers, dates), no value of any row."""
    views = []
    for name, frame in frames.items():
        hints: dict[str, Any] = {}
        profile = getattr(engine, "column_profile", None)
        if profile is not None:
            try:
                hints = profile(name)
            except Exception:
                log.debug("no column profile for %s", name, exc_info=True)
        columns = [(str(c), str(t)) for c, t in zip(frame.columns, frame.dtypes)]
        samples = {str(c): _samples(frame, c) for c in list(frame.columns)[:80]} if values else {}
        if not values:
            hints = {c: {k: v for k, v in (h or {}).items() if k != "examples"} for c, h in hints.items()}
        views.append(FrameView(name, int(len(frame)), columns, samples, hints))
    return views


def _columns(frames: dict[str, Any]) -> dict[str, str]:
    """Each frame column and its dtype as pandas prints it."""
    out: dict[str, str] = {}
    for frame in frames.values():
        for column, dtype in zip(getattr(frame, "columns", []), getattr(frame, "dtypes", [])):
            out.setdefault(str(column), str(dtype))
    return out


@dataclass
class _Kept:
    """The run whose values answer: its values, code and printed text."""

    taken: Taken
    code: str
    output: str
    attempt: int
    #: parts whose value does not fit the data (part name → what did not fit)
    off: Mapping[str, Miss]
    #: the program selects every value of the data the question names (see :mod:`..answers.named_values`)
    selects: bool = True
    #: why the program stopped before its end, when it failed after binding some parts
    stopped: str = ""


def _score(taken: Taken, spec: AnswerSpec, off: Mapping[str, Miss], selects: bool = True,
           finished: bool = True) -> tuple[bool, int, int, bool]:
    """How well a run answered: whether it ran to its end, parts with a value, then parts that
    fit (their kind, and their column's values for a label tied to a column), then whether it
    selects the rows the question names."""
    fits = sum(1 for p in spec.parts if p.name in taken.values and p.name not in off
               and not write_part(taken.values[p.name], p).clear)
    return finished, len(taken.values), fits, selects


def _before_failing(spec: AnswerSpec, ran: Ran) -> tuple[Taken, str] | None:
    """The parts a program that failed bound before its failing line (their variables, or an
    ``answer`` it bound early), each missing one saying where the program stopped; and that
    line for the reader. None when it bound none."""
    taken = take_values(spec, getattr(ran.run, "values", None) or {}, "")
    if not taken.any:
        return None
    why = (ran.error or "an error").split(" — ")[0]          # the error, without the advice for the model
    missing = {name: f"the program stopped before it, {why}" for name in taken.missing}
    said = f"The program stopped before its end ({why}); the values below were computed before that."
    return Taken(taken.values, missing, taken.source), said


def _answered(taken: Taken, spec: AnswerSpec, output: str) -> bool:
    """A run answered when it computed a value for some part (or, for prose, printed something)."""
    return taken.any or (spec.style == PROSE and bool(output.strip()))


def answer_by_program(*, backend: Any, engine: Any, frames: dict[str, Any], question: str,
                      run_program: Callable[..., Any], spec: AnswerSpec | None = None, cancel: Any = None,
                      context: str = "", on_step: Callable[[str, dict[str, Any]], None] | None = None,
                      timeout: float = 30.0, clock: Callable[[], float] = time.perf_counter,
                      values: bool = True, scrub: Callable[[str], str] | None = None,
                      earlier_form: Form | None = None) -> ProgramOutcome:
    """Ask ``backend`` for a program answering ``question`` (read as ``spec``) over ``frames``,
    run it and take the values it binds by name; a program that fails, binds nothing, or binds
    a value of clearly the wrong kind goes back once with why. The answer is written from the
    best run: every value it computed is shown. ``on_step`` hears "program_start"/"program_end".

    The stages of one attempt (:mod:`._program_attempt`): draft → mend → run → values taken by
    name (:func:`..answers.values.take_values`) → what to tell the model when it goes back.
    ``earlier_form``: the form an earlier answer of the conversation was written in for the
    same instruction (:func:`._answer_form.asked_form`)."""
    started = clock()
    spec = with_columns(spec if spec is not None else read_spec(question), _columns(frames))
    given = list(frames)
    columns = [c for f in frames.values() for c in getattr(f, "columns", []) if isinstance(c, str)]
    views = _views(frames, engine, values=values)
    # text columns the program reads as numbers or dates (the preamble converts them)
    converted = {c for v in views for c, h in v.hints.items() if retyped(h or {})}
    prompt = program_prompt(views, question, spec, context=context)
    # the one text column the answer names a value of (a reduction asked per label groups by it)
    tied = {p.column for p in spec.parts if p.column}
    label = next(iter(tied)) if len(tied) == 1 else None
    distinct = distinct_counter(frames)

    shapes: set[str] = set()          # what the programs run so far do (see _another)
    failed: set[str] = set()          # the statements that failed, with what they were computed from

    def misfits(taken: Taken, body: str) -> dict[str, Miss]:
        # the values that do not fit the data, the columns the program names told apart; a
        # label taken as the alphabetical extreme of its text column
        off = off_column(spec, taken, frames, named=columns_named(body, columns), converted=converted)
        extremes = {n: m for n, m in text_extremes(spec, body, frames).items() if n in taken.values}
        return {**row_labels(spec, body, taken, frames), **extremes, **off}

    def known(m: Mended) -> bool:
        # how it ends is known: a program of its shape ran, or it keeps a statement that failed
        # with all that statement is computed from (the slices are read only once one failed)
        if program_shape(m.body) in shapes:
            return True
        return bool(failed) and not failed.isdisjoint(slices(as_run(m, views, given)))

    # what the question names of the data, read once: each program is checked against it
    named = named_in(spec.asked or question, frames, allowed=[a for p in spec.parts for a in p.allowed],
                     answered=tied | converted)
    messages = first_messages(prompt)
    outcome = ProgramOutcome()
    kept: _Kept | None = None
    error: str | None
    conversation: dict[int, tuple[list[Any], str]] = {}     # per attempt: its request and the reply it ran
    try:
        for attempt in range(_ATTEMPTS):
            drafted = draft(backend, messages, cancel, until_answer=spec.style == PARTS)
            if drafted.code is None:
                missing = drafted.error or "no program"
                outcome.attempts.append({"code": "", "error": missing})
                outcome.error = missing
                messages = retry_messages(prompt, missing)
                continue
            mended = mend(drafted.code, columns, label, distinct, given)
            conversation[attempt] = (messages, drafted.reply)

            def redraw(asked: list[Any] = messages, attempt: int = attempt) -> Any:
                again = draft(backend, asked, cancel, until_answer=spec.style == PARTS, temperature=REDRAW_TEMPERATURE)
                if again.code is not None:
                    conversation[attempt] = (asked, again.reply)
                return again

            mended, redrawn = _another(mended, known, redraw, lambda code: mend(code, columns, label, distinct, given))
            shapes.add(program_shape(mended.body))

            def started_run(code: str, attempt: int = attempt) -> None:
                if on_step:
                    on_step("program_start", {"code": code, "attempt": attempt + 1})

            ran = run_mended(mended, views=views, frames=frames, run_program=run_program, timeout=timeout,
                             on_start=started_run)
            taken = as_names(spec, _taken(spec, ran), frames, converted) if ran.error is None else None
            whole = _reduced_whole(spec, taken, mended) if taken is not None else None
            if taken is not None and whole is not None:
                # one value asked, many came out of ``a - b.mean()``: the same program, reduced whole
                again = run_mended(whole, views=views, frames=frames, run_program=run_program, timeout=timeout)
                taken_again = _taken(spec, again) if again.error is None else None
                if taken_again is not None and not _many(spec, taken_again) and (
                        len(taken_again.values) >= len(taken.values)):
                    mended, ran, taken = whole, again, taken_again
            # what does not fit the data, read once for the values kept
            unfit = misfits(taken, mended.body) if taken is not None else {}
            reread = _rows_read(unfit, mended) if taken is not None else None
            if taken is not None and reread is not None:
                # a row's number where a value of that row was asked: the same program, reading it
                again = run_mended(reread[0], views=views, frames=frames, run_program=run_program, timeout=timeout)
                taken_again = as_names(spec, _taken(spec, again), frames, converted) if again.error is None else None
                unfit_again = misfits(taken_again, reread[0].body) if taken_again is not None else {}
                if taken_again is not None and len(taken_again.values) >= len(taken.values) and not (
                        reread[1] & set(unfit_again)):
                    mended, ran, taken, unfit = reread[0], again, taken_again, unfit_again
            error, line = ran.error, getattr(ran.run, "line", None) if ran.error is not None else None
            failing = slice_at(ran.code, line) if isinstance(line, int) else None
            if failing is not None:
                failed.add(failing)
            outcome.attempts.append({"code": ran.code, "error": error, "output": ran.run.stdout, "seconds": ran.run.seconds,
                                     "helpers": import_line(dict(mended.helpers)), "redrawn": redrawn})
            if on_step:
                on_step("program_end", {"code": ran.code, "error": error, "output": ran.run.stdout})
            before = _before_failing(spec, ran) if ran.error is not None and kept is None else None
            if before is not None:
                before = (as_names(spec, before[0], frames, converted), before[1])
                # never lost: what it computed before it failed answers, unless a later run does better;
                # a value that does not fit the data says so, as a finished run's does
                kept = _Kept(before[0], ran.code, ran.run.stdout, len(outcome.attempts) - 1,
                             misfits(before[0], mended.body), stopped=before[1])
            if taken is not None:
                off = unfit
                zero = [p for p in zero_parts(taken.values) if p not in off]
                if zero:
                    # a difference of one value with itself, or a count over no rows: read from the program
                    off = {**off, **zero_reasons(mended.body, zero, frames, converted=converted)}
                # a value of the data the question names, in a column the program never reads
                gap = named.left_out(mended.body) if taken.any else None
                if _answered(taken, spec, ran.run.stdout) and (kept is None or _score(taken, spec, off, gap is None) > _score(
                        kept.taken, spec, kept.off, kept.selects, not kept.stopped)):
                    kept = _Kept(taken, ran.code, ran.run.stdout, len(outcome.attempts) - 1, off, gap is None)
                told = retry_message(spec, taken, off, code=mended.body)
                if gap is not None:
                    log.info("the question names %r of column %r; the program never selects it", gap.value, gap.column)
                    told = f"{told} Also, {gap.told}." if told else f"{gap.told}."
                # a value bound as NaN goes back even when its sentence was printed ("… was nan")
                nan = NAN_REASON in taken.missing.values()
                if _answered(taken, spec, ran.run.stdout) and (told is None or not (taken.any or nan)):
                    break            # prose printed without binding `answer`: what it printed answers
                error = told or ("it computed no value: end the program by binding `answer` as asked"
                                 if not taken.missing else "; ".join(sorted(set(taken.missing.values()))))
                outcome.attempts[-1]["note"] = error
            if error is not None:
                # a text compared with a column that never holds it selects nothing: that, not the
                # NaN or the empty sequence it leads to, is what to mend
                unmatched = unmatched_values(mended.body, frames, converted=converted)
                if unmatched is not None and unmatched not in error:
                    error = f"{unmatched}; {error.split(_NAN_ADVICE)[0].rstrip()}"
                    outcome.attempts[-1]["note"] = error
            outcome.error = error
            if attempt + 1 == _ATTEMPTS:
                break
            # asked afresh with why (and where) it failed: the line a run error names is of the
            # program as run (the preamble added), so it is quoted from that
            told = error or "the program failed"
            messages = retry_messages(prompt, scrub(told) if scrub is not None else told, code=ran.code,
                                      line=line, given=given)
    except CancelledError:
        # the time ran out (or the user stopped) while the model wrote: what ran so far is kept,
        # and a value computed already answers
        outcome.cut = True
        log.info("the program path was stopped after %d program(s)", len(outcome.attempts))
    if kept is not None:
        printed = f"{kept.output.rstrip()}\n{kept.stopped}".strip() if kept.stopped else kept.output
        form = spec
        if kept.taken.values and not kept.stopped and kept.attempt in conversation and not outcome.cut:
            # a form the question asks in words, not syntax: as the program or the model prints it
            asked, reply = conversation[kept.attempt]
            others = [text for at, (_, text) in sorted(conversation.items()) if at != kept.attempt]
            try:
                form, outcome.form = asked_form(backend, asked, reply, kept.code, spec, question, cancel,
                                                others=others, earlier=earlier_form)
            except CancelledError:
                outcome.cut = True           # stopped while the form was asked: the spec's form
        outcome.composed = write_answer(form, kept.taken, printed, kept.off)
        outcome.code, outcome.output = kept.code, kept.output
        if not kept.stopped:
            outcome.attempts[kept.attempt]["answered"] = True
        outcome.error = None
    outcome.seconds = clock() - started
    return outcome


def _taken(spec: AnswerSpec, ran: Ran) -> Taken:
    return take_values(spec, getattr(ran.run, "values", None) or {}, ran.run.stdout)


#: kinds of part that are one value (a list of them is a column, not a statistic)
_ONE_VALUE = frozenset({"number", "count", "yesno"})


def _many(spec: AnswerSpec, taken: Taken) -> list[str]:
    """The parts asked as one value that came out as several: a list, or a Series too long to
    come back as one (its text, ending in pandas' ``Length: n, dtype: …`` footer)."""
    def several(value: Any) -> bool:
        if isinstance(value, (list, tuple)):
            return len(value) > 1
        last = value.rstrip().rsplit("\n", 1)[-1] if isinstance(value, str) else ""
        return "Length: " in last and SERIES_FOOTER.match(last) is not None

    return [p.name for p in spec.parts if p.kind in _ONE_VALUE and several(taken.values.get(p.name))]


def _rows_read(off: Mapping[str, Miss], mended: Mended) -> tuple[Mended, set[str]] | None:
    """``mended`` with each value a check knows how to read instead written in (a row's number
    from ``.idxmax()`` as that row's value of the column the part names,
    :func:`..answers.column_values.row_labels`), and the parts it was for; None when no check knows."""
    rewrites = {name: m.rewrite for name, m in off.items() if m.rewrite is not None}
    if not rewrites:
        return None
    body = spans_rewritten(mended.body, set(rewrites.values()))
    log.info("row numbers read as the rows' values: %s", sorted(rewrites))
    return replace(mended, body=body), set(rewrites)


def _reduced_whole(spec: AnswerSpec, taken: Taken, mended: Mended) -> Mended | None:
    """``mended`` with the reductions of last operands written over the whole operation
    (:func:`..answers.program_repairs.reduced_whole`) in what computes each part asked as one
    value that came out as many (of the run's ``taken`` values); None when no part did, or
    nothing there is such a reduction."""
    many = _many(spec, taken)
    if not many:
        return None
    body, changed = reduced_whole(mended.body, many)
    if not changed:
        return None
    log.info("reductions of a last operand written over the whole operation: %s", changed)
    return Mended(body, mended.helpers)


#: what a user can do when no program answered
_TRY = ("Try naming the columns as they are written, splitting the question in two, or asking for SQL "
        "(\"… with query_sql\").")


def _another(mended: Mended, known: Callable[[Mended], bool], redraw: Callable[[], Any],
             mend_code: Callable[[str], Mended]) -> tuple[Mended, int]:
    """``mended``, or when its outcome is ``known`` (the model, told why its program failed,
    wrote a program of the same shape again, or kept a statement that failed with everything it
    is computed from unchanged, so it fails the same way), the first of up to ``_REDRAWS``
    sampled programs that does something else; and how many were asked. When every one
    repeats, the last is run: the answer still comes from the best run."""
    redrawn = 0
    while known(mended) and redrawn < _REDRAWS:
        redrawn += 1
        drafted = redraw()
        if drafted.code is not None:
            mended = mend_code(drafted.code)
    if redrawn:
        log.info("the model wrote a program whose outcome is known; asked %d more time(s), sampled", redrawn)
    return mended, redrawn


def program_failed(spec: AnswerSpec, error: str, attempts: int = 1) -> str:
    """The answer when no program computed anything: one plain sentence of what was tried (the
    programs and their errors are in their cells), then what to try."""
    return nothing_computed(spec, attempts, error) + "\n\n" + _TRY


def cell_code(code: str, frames: list[str], tables: list[str], helpers: str = "") -> str:
    """The program as a notebook cell: ``%%agent_program`` with the frames it reads (a notebook
    DataFrame, else the session table of that name), so running the cell again (Run All) runs
    the program in the sandbox as the answer did, never in the kernel. ``helpers`` is the import
    of the stand-ins it used (importable inside the sandbox)."""
    del tables                   # the magic finds a name that is not a DataFrame among the tables
    body = "\n".join(part for part in (helpers, code.strip()) if part)
    return f"%%agent_program {' '.join(frames)}\n{body}"


def step_summary(output: str, error: str | None) -> str:
    """The program step's line in the cell and the panel: its error, or how much it printed
    (what it printed is the answer, shown right below: said twice, it read as a stutter)."""
    if error:
        return error[:200]
    lines = [ln for ln in (output or "").splitlines() if ln.strip() and not SERIES_FOOTER.match(ln)]
    return f"ran, printed {len(lines)} line{'s' if len(lines) != 1 else ''}" if lines else "ran, printed nothing"


def record_program(env: Any, sid: str, reply: Any, outcome: ProgramOutcome, call_id: str,
                   frames: list[str], tables: list[str] | None = None) -> None:
    """Keep each program run in the records and the reply: a failed one as a failed step, the
    one that answered as a step with its cell."""
    runs = [a for a in outcome.attempts if a.get("code")]
    for n, attempt in enumerate(runs, 1):
        last = bool(attempt.get("answered")) if any(a.get("answered") for a in runs) else (
            n == len(runs) and attempt.get("error") is None)
        this_id = call_id if last else f"{call_id}-{n}"
        arguments = {"code": attempt["code"]}
        env.store.append_record(sid, "assistant", "", tool_calls=[{"id": this_id, "name": PROGRAM_TOOL,
                                                                    "arguments": arguments}])
        content = attempt.get("output") or "(no output)" if last else f"Error: {attempt.get('error') or attempt.get('note')}"
        env.store.append_record(sid, "tool", content, tool_name=PROGRAM_TOOL, tool_call_id=this_id,
                                status="success" if last else "error")
        reply.tool_activity.append(ToolActivity(
            tool_call_id=this_id, name=PROGRAM_TOOL, arguments=arguments, status="success" if last else "error",
            summary=step_summary(attempt.get("output") or "", None if last else attempt.get("error") or attempt.get("note") or "failed"),
            ran={"code": [cell_code(attempt["code"], frames, list(tables or []), attempt.get("helpers") or "")]}
            if last else {}))
