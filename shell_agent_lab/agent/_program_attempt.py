"""One attempt of the program path, as typed stages: the program asked for (:func:`draft`), the
slips code can mend mended (:func:`mend`), the run (:func:`run_mended`), and, when it has to go
back to the model, the request that says why (:func:`retry_messages`).

Each stage takes and returns plain typed values; :func:`..._program_path.answer_by_program`
chains them and keeps the best run. No stage reads the question's words: the spec was read once
on the turn, and a run's error comes back with the program's line as a number.
"""
from __future__ import annotations

import ast
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..answers.column_names import spelled_as_columns
from ..answers.least_squares import stand_ins
from ..answers.program_prompt import (SYSTEM_PROMPT, FrameView, answer_bound_at, extract_code, loads_data, own_frames,
                                      preamble, repaired, retry_prompt, with_imports, with_preamble)
from ..answers.program_repairs import (fitted_unpacks, flag_columns, flags_used, grouped_reductions, mended_calls,
                                       masks_parenthesised, counts_on_rows, offsets_respelled, members_respelled, modules_respelled, sampled_groups, series_grouped,
                                       bare_columns, explodes_framed, frames_respelled,
                                       without_inplace)
from ..llm.types import ChatOptions, Message, unseen

__all__ = ["Draft", "Mended", "Ran", "draft", "mend", "as_run", "run_mended", "retry_messages", "first_messages", "program_shape",
           "REDRAW_TEMPERATURE"]

log = logging.getLogger(__name__)

#: tokens a program may take (the longest programs of the answer benchmarks use ~350)
MAX_PROGRAM_TOKENS = 700
#: the temperature a program is asked again at when, told why its first program failed, the
#: model wrote the same program (greedy decoding gives the same reply to nearly the same request)
REDRAW_TEMPERATURE = 0.7


@dataclass(frozen=True)
class Draft:
    """What the model wrote: the program, or why there is none."""

    code: str | None
    error: str | None = None
    #: the reply as the model wrote it (a later request that goes on from it keeps its tokens)
    reply: str = ""


@dataclass(frozen=True)
class Mended:
    """The program with the slips code mends mended, and the stand-ins it is handed."""

    body: str
    helpers: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ran:
    """One run: the code as run (imports and preamble added), its outcome, and its problem."""

    code: str
    run: Any
    error: str | None


def first_messages(prompt: str) -> list[Message]:
    return [Message("system", SYSTEM_PROMPT), Message("user", prompt)]


def draft(backend: Any, messages: Sequence[Message], cancel: Any = None, *,
          until_answer: bool = False, temperature: float = 0.0) -> Draft:
    """Ask for the program; its first fenced block (or the reply, when it is code).

    ``until_answer`` (an answer in named parts, which code writes from the bound values alone):
    the reply is read as it streams and ends once the program has bound its answer
    (:func:`answer_bound_at`); what a model writes after that (the request's comment copied, a
    ``print`` of the answer) would cost seconds and change no part. A reply that came whole (a
    backend that does not stream, a recording) is cut at the same place. Other answers keep
    what the program prints (a prose answer is its printed sentence). ``temperature`` 0 (the
    default) asks for the most likely program; above it, for another one."""
    options = ChatOptions(cancel=cancel, temperature=temperature, max_output_tokens=MAX_PROGRAM_TOKENS,
                          done=answer_bound_at if until_answer else None)
    if until_answer and getattr(getattr(backend, "capabilities", None), "streaming", False):
        response = backend.stream(list(messages), [], on_text=unseen, options=options)
    else:
        response = backend.chat(list(messages), [], options=options)
    text = response.text or ""
    end = answer_bound_at(text) if until_answer else None
    code = extract_code(text[:end] if end is not None else text)
    if code is None:
        return Draft(None, "the reply held no ```python code block", text)
    return Draft(code, reply=text[:end] if end is not None else text)


#: calls that round or retype a value: a program that adds or drops one computes the same thing
_CASTS = frozenset({"round", "int", "float", "str", "bool"})


class _Uncast(ast.NodeTransformer):
    """``round(x, 2)``, ``int(x)``, ``x.round(2)`` → ``x``."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in _CASTS and len(node.args) >= 1:
            return node.args[0]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "round":
            return node.func.value
        return node


def program_shape(code: str) -> str:
    """What a program computes, as Python reads it: its statements without imports, comments,
    blank lines, a docstring, a file read or frame of typed-in values, or the rounding and casts
    of its values. Two programs of the same shape compute the same thing; a program that does
    not parse is its lines without comments and blanks."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        lines = (line.split("#", 1)[0].rstrip() for line in code.splitlines())
        return "\n".join(line for line in lines if line.strip())
    body = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))
            and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) and not loads_data(s)]
    return ast.dump(_Uncast().visit(ast.Module(body=body, type_ignores=[])))


def mend(code: str, columns: Sequence[str], label: str | None = None,
         distinct: Callable[[str], int] | None = None, given: Sequence[str] = ()) -> Mended:
    """scikit-learn's LinearRegression and metrics (which the model reaches for) as numpy
    stand-ins, ``@name = …`` as ``name = …``, column names as the frames spell them, keywords
    as their libraries spell them, ``x.method(…, inplace=True)`` as ``x = x.method(…)``, a
    test's result unpacked into as many names as it gives, and one column reduced to a number
    then asked for the label of its largest value grouped by the ``label`` column the answer
    names (``f['pts'].sum().idxmax()`` → ``f.groupby('player')['pts'].sum().idxmax()``), and a
    test that compares groups given the grouping column as a sample split by it instead, when
    ``distinct`` (a column's number of distinct values) shows which column groups; one column
    grouped by another column's name as the frame grouped (``f['price'].groupby('symbol')`` →
    ``f.groupby('symbol')['price']``), a compared value taken into ``&`` as two masks
    (``f['a'] == 'x' & (m)`` → ``(f['a'] == 'x') & (m)``), and a frequency alias pandas renamed
    as it names it now (``resample('Y')`` → ``resample('YE')``), a handed module reached through another
    (``pd.np.log`` → ``np.log``), a column exploded into itself as the frame exploded on it, a
    frame of ``given`` named but for its case as it is named (``Forbes`` → ``forbes``), and,
    when one frame is given, a column of it written as a bare name as the frame's column
    (``race`` → ``runners['race']``)."""
    body, helpers = stand_ins(repaired(code))
    one = given[0] if len(given) == 1 else None
    # in the order they run; an entry without its handle (no frames, several, no counts) is left out
    listed: list[tuple[Callable[[str], tuple[str, Any]], str] | None] = [
        (lambda b: frames_respelled(b, given), "frames' names respelled as the frames are named") if given else None,
        (lambda b: spelled_as_columns(b, list(columns)), "column names respelled as the frames have them"),
        (lambda b: bare_columns(b, one, columns), "columns written as bare names written as the frame's")
        if one is not None else None,
        (mended_calls, "keywords written as their libraries spell them"),
        (without_inplace, "changes made in place written as assignments"),
        (fitted_unpacks, "unpackings fitted to the fields their calls give"),
        (lambda b: grouped_reductions(b, label), "reductions asked per label written per group"),
        (masks_parenthesised, "masks written with their parentheses"),
        (counts_on_rows, "counts per value compared as row masks mapped onto the rows"),
        (offsets_respelled, "frequency aliases written as this pandas names them"),
        (members_respelled, "members pandas took away written as what it offers now"),
        (modules_respelled, "modules reached through another module written as themselves"),
        (lambda b: series_grouped(b, columns), "columns grouped by another column's name written as the frame grouped"),
        (explodes_framed, "columns exploded into themselves written as the frame exploded on them"),
        (lambda b: sampled_groups(b, distinct), "grouping columns passed as samples split into groups")
        if distinct is not None else None,
    ]
    repairs = [entry for entry in listed if entry is not None]
    for repair, said in repairs:
        body, where = repair(body)
        if where:
            log.info("%s: %s", said, where)
    return Mended(body, helpers)


def _problem(run: Any) -> str | None:
    if getattr(run, "refused", None):
        return "the program was refused: " + "; ".join(run.refused)
    if not run.ok:
        return str(run.error or "the program failed")
    return None


def as_run(mended: Mended, views: Sequence[FrameView], given: Sequence[str]) -> str:
    """The program as it runs: the imports it uses and the preamble that reads text numbers and
    dates added, ``given`` (the frames' names) bound to its own copies."""
    return with_imports(own_frames(with_preamble(mended.body, preamble(list(views))), list(given)))


def run_mended(mended: Mended, *, views: Sequence[FrameView], frames: Mapping[str, Any],
               run_program: Callable[..., Any], timeout: float,
               on_start: Callable[[str], None] | None = None) -> Ran:
    """Run the program over ``frames`` (each under its own name, with the preamble that reads
    text numbers and dates). When it fails on its own (not refused, not out of time) and uses
    yes/no columns as numbers, the same program runs once more with those columns read as
    booleans, with no new request to the model."""
    given = list(frames)
    inputs = {**frames, **mended.helpers}
    code = as_run(mended, views, given)
    if on_start:
        on_start(code)
    run = run_program(code, inputs, timeout=timeout)
    error = _problem(run)
    if error is not None and not getattr(run, "refused", None) and not getattr(run, "timed_out", False):
        flags = _flag_views(list(views), frames, mended.body)
        if flags is not None:
            again = with_imports(own_frames(with_preamble(mended.body, preamble(flags)), given))
            rerun = run_program(again, inputs, timeout=timeout)
            if _problem(rerun) is None:
                log.info("the program ran with its yes/no columns read as booleans")
                return Ran(again, rerun, None)
    return Ran(code, run, error)


def _flag_views(views: list[FrameView], frames: Mapping[str, Any], code: str) -> list[FrameView] | None:
    """``views`` with the yes/no columns ``code`` uses but never compares with a value marked to be
    read as booleans; None when it uses none."""
    from ..analysis.engine import MISSING_MARKERS    # the markers the column profile knows

    out, marked = [], False
    for view in views:
        used = flags_used(code, flag_columns(frames.get(view.name), MISSING_MARKERS))
        if used:
            marked = True
            view = FrameView(view.name, view.rows, view.columns, view.samples,
                             {**view.hints, **{c: {**(view.hints.get(c) or {}), "flag": pair} for c, pair in used.items()}})
        out.append(view)
    return out if marked else None


def retry_messages(prompt: str, error: str, *, code: str = "", line: int | None = None,
                   given: Sequence[str] = ()) -> list[Message]:
    """The first request again with why the program failed and, when the run names one, the
    line that failed as the model wrote it. The failed program itself is not shown: shown it,
    the small model wrote the same program again."""
    def as_written(text: str) -> str:
        for name in given:           # as the model wrote it: its own view's name is the product's
            text = re.sub(rf"\b{re.escape(name)}_view\b", name, text)
        return text

    quoted = ""
    lines = code.splitlines()
    if line is not None and 0 < line <= len(lines):
        quoted = as_written(lines[line - 1])
    # a hint that names the frame the line used names the program's view of it: the frame, as given
    told = as_written(error.removeprefix(f"line {line}: ") if line is not None else error)
    return first_messages(retry_prompt(prompt, told, quoted))
