"""What the model is asked when it answers by writing a pandas program, and how its reply
becomes a program (pure).

The prompt lists each DataFrame's columns exactly as pandas names them, with their dtypes, a
few values and what the values hide (numbers or dates stored as text, missing markers), each
hint as the pandas expression that reads it. The reply's code block is taken as the program;
lines that would reload the data are dropped, and a program that changes a DataFrame it was
given works on its own view of it instead (``df_view = df.copy(deep=False)``: under
Copy-on-Write nothing is copied and the user's frame never changes).
"""
from __future__ import annotations

import ast
import builtins
import keyword
import re
from dataclasses import dataclass, field
from typing import Any, Collection, Mapping, Sequence

from ._program_writes import frames_written
from .printed_form import wants_form
from .program_names import root_name
from .program_text import extract_code, parses
from .program_repairs import flag_conversion
from .spec import ANSWER, PROSE, AnswerSpec, Part
from .values import ANSWER_VARIABLE

__all__ = ["loads_data", "answer_instruction", "FrameView", "describe_frames", "preamble", "with_preamble", "program_prompt", "retry_prompt", "extract_code", "answer_bound_at", "own_frames",
           "with_imports", "repaired", "retyped", "SYSTEM_PROMPT"]

SYSTEM_PROMPT = ("You are an expert data analyst who answers questions about pandas DataFrames by writing "
                 "short, correct Python programs.")

_MAX_COLUMNS = 60
_NOT_VALUES = frozenset({"", "nan", "NaN", "None", "NaT", "<NA>", "null", "NULL"})


@dataclass(frozen=True)
class FrameView:
    """One DataFrame as the prompt describes it."""

    name: str
    rows: int
    columns: Sequence[tuple[str, str]]              # (name, dtype as pandas prints it)
    samples: Mapping[str, Sequence[str]] = field(default_factory=dict)
    #: per column: {"text_numbers": bool, "date_format": str, "missing": [markers]}
    hints: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def _clip(text: str, limit: int = 30) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def retyped(hints: Mapping[str, Any]) -> str | None:
    """The dtype a text column's profile ``hints`` have the preamble read it as ("float64" for
    text numbers, "datetime64" for dates), or None when it stays as it is."""
    if hints.get("text_numbers"):
        return "float64"
    return "datetime64" if hints.get("date_format") else None


def _column_line(frame: str, column: str, dtype: str, samples: Sequence[str], hints: Mapping[str, Any]) -> str:
    """One column as the program will find it: a text column that holds numbers or dates is
    shown with the dtype the preamble gives it and a few values as the file writes them."""
    missing = [m for m in hints.get("missing") or () if m and m != "NULL"]
    text_values = list(dict.fromkeys(s for s in samples if str(s) not in _NOT_VALUES and s not in missing))
    marked = ("; " + ", ".join(repr(m) for m in missing[:4]) + " in the file are NaN") if missing else ""
    kind = retyped(hints)
    if kind is not None:
        shown = ", ".join(repr(_clip(v)) for v in text_values[:2])
        return f"- {column!r} ({kind}, read from text" + (f" like {shown}" if shown else "") + f"){marked}"
    numeric = re.match(r"(?:u?int|float|bool|Int|Float|UInt|boolean)", dtype) is not None
    shown_values = text_values[:2] if numeric else text_values[:3]
    line = f"- {column!r} ({dtype})"
    if shown_values:
        line += ": " + ", ".join(_clip(v) if numeric else repr(_clip(v)) for v in shown_values)
    return line + marked


def _conversion(frame: str, column: str, hints: Mapping[str, Any]) -> str | None:
    ref = f"{frame}[{column!r}]"
    date_format = str(hints.get("date_format") or "")
    if hints.get("flag"):                      # only when a run asked for it (see program_repairs)
        return flag_conversion(ref, tuple(hints["flag"]))
    if hints.get("text_numbers"):
        # (12.40) is -12.40; a minus before the first digit, after a currency sign or code too
        # (£−5.00, EUR −12), is the number's sign
        text = (f"{ref}.astype(str)" r".str.replace(r'^\s*\((.*)\)', r'-\1', regex=True)"
                r".str.replace(',', '', regex=False).str.replace(r'^\D*?[-−]\D*?(?=\d)', '-', regex=True)")
        return (f"{ref} = pd.to_numeric({text}"
                rf".str.extract(r'(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)', expand=False), errors='coerce')")
    if date_format in ("DATE", "TIMESTAMP"):
        return f"{ref} = pd.to_datetime({ref}, errors='coerce')"
    if date_format:
        return f"{ref} = pd.to_datetime({ref}, format={date_format!r}, errors='coerce')"
    markers = [m for m in hints.get("missing") or () if m and m != "NULL"]
    if markers:
        return f"{ref} = {ref}.replace({markers!r}, np.nan)"
    return None


def preamble(frames: Sequence[FrameView]) -> str:
    """The lines every program starts with: each text column that holds numbers or dates read
    as such, and missing markers pandas does not know read as missing (on the program's own
    copy). Empty when no column needs it."""
    lines: list[str] = []
    for f in frames:
        conversions = [c for c in (_conversion(f.name, col, f.hints.get(col) or {}) for col, _ in f.columns) if c]
        if conversions:
            lines.append(f"{f.name} = {f.name}.copy(deep=False)")
            lines.extend(conversions)
    return "\n".join(lines)


def describe_frames(frames: Sequence[FrameView]) -> str:
    """The prompt's description of the DataFrames the program can use."""
    blocks = []
    for f in frames:
        cols = list(f.columns)
        head = (f"DataFrame `{f.name}` ({f.rows:,} rows, {len(cols)} columns), already loaded. "
                "Its columns, exactly as named, with dtype and example values:")
        lines = [_column_line(f.name, c, t, f.samples.get(c) or (), f.hints.get(c) or {})
                 for c, t in cols[:_MAX_COLUMNS]]
        if len(cols) > _MAX_COLUMNS:
            lines.append(f"- … and {len(cols) - _MAX_COLUMNS} more: " + ", ".join(repr(c) for c, _ in cols[_MAX_COLUMNS:]))
        blocks.append(head + "\n" + "\n".join(lines))
    return "\n\n".join(blocks)


def _what(part: Part) -> str:
    """What a part holds, as the program is told it."""
    if part.allowed:
        return "one of " + ", ".join(repr(a) for a in part.allowed)
    if part.kind == "label":
        return f"a name from column {part.column!r}" if part.column else "a name"
    if part.kind == "number" and part.percent:
        return "a percentage from 0 to 100"
    if part.kind == "yesno" and part.truth == "yes":
        # the word itself: a question that says when the answer is "no" ("no" if p < 0.05) is
        # answered by the program applying that rule, not by a boolean of a test whose truth
        # the name of the part may state either way round
        return "'yes' or 'no'"
    return {"number": "a number", "count": "a whole number", "yesno": "True or False", "list": "a list",
            "date": "a date"}.get(part.kind, "")


#: names a program reads that a value must not be bound to: the modules it is handed, and
#: Python's own names (a part named ``max`` or ``sum`` bound as a variable breaks later calls)
_HELD = frozenset({"pd", "np", "stats", ANSWER_VARIABLE}) | frozenset(n for n in dir(builtins) if not n.startswith("_"))


def _variable(name: str, held: Collection[str] = ()) -> str:
    """The variable a part's value is bound to in the answer line: its name made an identifier,
    and not one the program reads for something else (a frame it is given, a module, a
    built-in, a keyword): ``answer = {'arrests': arrests}`` over a frame named ``arrests``
    invited ``arrests = arrests[…].sum()``, which lost the frame for the lines after it."""
    name = re.sub(r"\W", "_", name)
    name = name if name.isidentifier() and not name[0].isdigit() else f"v_{name}"
    while keyword.iskeyword(name) or name in held or name in _HELD:
        name = f"{name}_value"
    return name


def answer_instruction(spec: AnswerSpec, frames: Collection[str] = ()) -> str:
    """How the program hands back its result: by binding ``answer`` to the spec's parts (a dict
    by part name, or the one value), computed in the code and not rounded. ``frames``: the names
    the program is given its frames under (never a part's variable)."""
    if len(spec.parts) == 1 and spec.parts[0].name == ANSWER:
        part = spec.parts[0]
        what = _what(part)
        # a form the question asks in words is the program's to print; otherwise a sentence
        say = (", and print it in the form the question asks for" if wants_form(spec)
               else ", and print one short sentence that states it" if spec.style == PROSE else "")
        return ("Finish by assigning the computed answer to a variable named `answer`"
                + (f" ({what})" if what else "") + f"{say}.")
    pairs = ", ".join(f"{p.name!r}: {_variable(p.name, frames)}" for p in spec.parts)
    hints = "; ".join(f"{_variable(p.name, frames)}: {_what(p)}" for p in spec.parts if _what(p))
    return ("Finish with exactly this line, each value computed in the code:\n"
            f"answer = {{{pairs}}}" + (f"  # {hints}" if hints else ""))


def program_prompt(frames: Sequence[FrameView], question: str, spec: AnswerSpec, *, context: str = "") -> str:
    """The user message that asks for the program. What stays the same for every question about
    the same frames comes first, so a model server that keeps the prompt's prefix reads only the
    question anew; the question and the form come last."""
    names = ", ".join(f"`{f.name}`" for f in frames)
    earlier = (f"The question below follows this earlier one, already answered: \"{context}\". Answer only the "
               "question below.\n\n" if context else "")
    ready = (" Text columns that hold numbers or dates are already read as float64 and datetime64, and the "
             "missing markers shown are NaN." if preamble(frames) else "")
    return (f"{describe_frames(frames)}\n\n"
            f"The data is already loaded in {names}: do not read files or create sample data.{ready} "
            "Use the column names exactly as listed.\n\n"
            f"{earlier}Question: {(spec.asked or question).strip()}\n\n"
            f"Write one short ```python code block, without comments, that computes the answer from {names} "
            f"with pandas.\n{answer_instruction(spec, [f.name for f in frames])}")


def retry_prompt(prompt: str, error: str, line: str = "") -> str:
    """The first request's ``prompt`` again, with why the first program failed (and the line
    that failed). The failed program itself is not shown: shown it, the small model wrote the
    same program again."""
    where = f" at this line:\n    {line.strip()}\n" if line.strip() else " "
    return f"{prompt}\n\nA first program for this question failed{where}with: {error}\nWrite a new program that avoids this."


#: the program's own top-level binding of its answer (a line of the program, not the question)
_ANSWER_BINDING = re.compile(rf"^{ANSWER_VARIABLE}[ \t]*=(?!=)", re.M)
#: what may follow a program's last statement: a comment, a print, the closing fence
_TAIL = re.compile(r"[ \t]*(?:#|print\(|```(?![\w-]))")


def answer_bound_at(reply: str) -> int | None:
    """Where a reply's program is done: the end of a top-level ``answer = …`` statement that is
    complete and followed only by what changes no value (a comment, on its line or the next, a
    ``print``, the closing fence), or None while that is not known.

    A small model writes such a tail after the line it was asked to finish with (the request's
    comment copied, a ``print`` of the answer); read as it streams, the reply can end there. A
    binding followed by other code (``answer = int(answer)``, an ``if`` that changes it) is not
    the end, and neither is an answer bound where no program has begun (a line quoted above the
    opening fence). The same text gives the same place whether it is read whole or in pieces."""
    opened = reply.find("```")
    start = 0
    if opened >= 0:
        start = reply.find("\n", opened) + 1
        if start == 0:
            return None
    for binding in _ANSWER_BINDING.finditer(reply, start):
        end = _statement_end(reply, binding.start(), binding.end())
        if end is None:
            return None                    # not complete yet
        rest = reply[end:]
        same_line = rest.split("\n", 1)[0]
        if same_line.strip() and not same_line.lstrip().startswith("#"):
            continue
        if same_line.strip():              # a comment after it on its line
            return end
        following = rest.lstrip("\n")
        if "\n" not in rest or not following:
            return None                    # what follows is not written yet
        if _TAIL.match(following):
            return end
    return None


def _statement_end(reply: str, begin: int, after: int) -> int | None:
    """The end of the statement that starts at ``begin`` (without its comment), when it is
    complete: it parses at the end of a line or where a comment starts."""
    for end in range(after, len(reply)):
        if reply[end] not in "\n#":
            continue
        statement = reply[begin:end].rstrip()
        try:
            ast.parse(statement)
        except SyntaxError:
            continue      # it goes on (an open bracket), or the '#' is inside a string
        return begin + len(statement)
    return None


_AT_ASSIGN = re.compile(r"(?m)^(\s*)@(\w+)(\s*=[^=])")


def repaired(code: str) -> str:
    """``code`` with the slips a small model makes: after reading the ``@name[…]`` answer form,
    ``@name = …`` (never valid Python: a decorator cannot be assigned) becomes ``name = …``; a
    line indented deeper than the code line before it, which opens no block, is indented as
    that line (a stray space before a top-level statement)."""
    return _stray_indents_aligned(_AT_ASSIGN.sub(r"\1\2\3", code))


def _stray_indents_aligned(code: str) -> str:
    lines = code.split("\n")
    for _ in range(len(lines)):
        try:
            ast.parse("\n".join(lines))
            break
        except IndentationError as exc:
            at = (exc.lineno or 0) - 1
            if not 0 < at < len(lines):
                break
            before = next((ln for ln in reversed(lines[:at]) if ln.strip() and not ln.lstrip().startswith("#")), None)
            line = lines[at]
            if before is None or before.rstrip().endswith((":", "\\", ",", "(", "[", "{")):
                break                 # a block it opens, or a statement it goes on
            indent, own = before[:len(before) - len(before.lstrip())], line[:len(line) - len(line.lstrip())]
            if len(own) <= len(indent):
                break
            lines[at] = indent + line.lstrip()
        except SyntaxError:
            break
    return "\n".join(lines)


def loads_data(node: ast.stmt) -> bool:
    """A statement that loads a frame's data or makes it up: ``x = pd.read_csv(…)`` (any
    ``read_*``), or ``x = pd.DataFrame({…})`` from values typed into the code (the "sample
    data" a small model writes though told the data is loaded)."""
    if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
        return False
    call = node.value
    name = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id if isinstance(call.func, ast.Name) else ""
    if name.startswith("read_"):
        return True
    if name != "DataFrame" or not (call.args or call.keywords):
        return False
    try:
        for value in [*call.args, *(k.value for k in call.keywords)]:
            ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _reads_data(node: ast.stmt, given: set[str]) -> bool:
    """A given frame loaded again or made up (:func:`loads_data`): the data is already loaded."""
    targets = {t.id for t in node.targets if isinstance(t, ast.Name)} if isinstance(node, ast.Assign) else set()
    return bool(targets & given) and loads_data(node)


def _writes(tree: ast.AST, given: set[str]) -> set[str]:
    """Given frames the program changes: item/attribute writes, ``del``, ``inplace=True``."""
    hit: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if any(k.arg == "inplace" for k in node.keywords):
                name = root_name(node.func.value)
                if name in given:
                    hit.add(name)
        for t in targets:
            if isinstance(t, (ast.Subscript, ast.Attribute)):
                name = root_name(t)
                if name in given:
                    hit.add(name)
    return hit


class _Rename(ast.NodeTransformer):
    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        return node


def _rename(tree: ast.Module, names: Mapping[str, str]) -> str:
    """The program with the variables in ``names`` renamed (f-strings included)."""
    return ast.unparse(ast.fix_missing_locations(_Rename(names).visit(tree)))


def own_frames(code: str, given: Sequence[str]) -> str:
    """``code`` made to leave the given frames alone: reloads of them (and frames of values typed
    into the code under their names) dropped, and a frame it
    changes replaced by its own view (``df_view = df.copy(deep=False)``). Code that does not
    parse is returned as it is (the check reports it)."""
    names = set(given)
    code = re.sub(r",\s*inplace\s*=\s*False\b", "", code)      # a no-op pandas 3 warns about
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    lines = code.splitlines()
    drop = [n for n in tree.body if _reads_data(n, names)]
    for node in reversed(drop):
        end = getattr(node, "end_lineno", node.lineno)
        del lines[node.lineno - 1: end]
    code = "\n".join(lines)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    changed = sorted(_writes(tree, names) | frames_written(tree, names))
    if not changed:
        return code
    mapping = {n: f"{n}_view" for n in changed}
    head, rest = _leading(_rename(tree, mapping).strip("\n"))
    header = [f"{mapping[n]} = {n}.copy(deep=False)  # the program's own view: {n} stays as it is" for n in changed]
    return "\n".join([*head, *header, *rest])


_LEADING = re.compile(r"^\s*(?:import\s|from\s+\S+\s+import\s|#|$)")
_CONVERTS = ("to_numeric", ".str.", "to_datetime", "astype(", ".replace(", ".map(", ".apply(")


def _leading(code: str) -> tuple[list[str], list[str]]:
    """(the code's opening imports, comments and blank lines; the rest)."""
    lines = code.splitlines()
    n = 0
    while n < len(lines) and _LEADING.match(lines[n]):
        n += 1
    return lines[:n], lines[n:]


def with_preamble(code: str, first: str) -> str:
    """``code`` with the preamble ``first`` after its imports: each conversion the code does not
    already make of that column itself (a program that reads ``'$1,200'`` its own way keeps it)."""
    if not first.strip():
        return code
    keep = []
    for line in first.splitlines():
        m = re.match(r"^\s*\w+\[(.+?)\]\s*=", line)
        if m:
            column = m.group(1)
            names = {column, column.replace("'", '"')}
            own = [ln for ln in code.splitlines() if any(n in ln for n in names) and any(c in ln for c in _CONVERTS)]
            if own or line.strip() in code:
                continue
        keep.append(line)
    if all(re.match(r"^\s*\w+\s*=\s*\w+\.copy\(", ln) for ln in keep):
        return code               # nothing left to convert
    head, rest = _leading(code)
    return "\n".join([*head, *keep, *rest])


_IMPORTS = (("pd", "import pandas as pd", r"\bimport\s+pandas\s+as\s+pd\b"),
            ("np", "import numpy as np", r"\bimport\s+numpy\s+as\s+np\b"),
            ("stats", "from scipy import stats", r"\bfrom\s+scipy\s+import\s+[^\n]*\bstats\b|\bimport\s+scipy\.stats\s+as\s+stats\b"))


def with_imports(code: str) -> str:
    """``code`` opening with the imports of ``pd``, ``np`` and ``stats`` it uses (so its cell runs
    on its own in the notebook, even when the program imports them only after first use)."""
    opening = "\n".join(_leading(code)[0])
    missing = [line for name, line, made in _IMPORTS
               if re.search(rf"(?<![\w.]){name}\.", code) and not re.search(made, opening)]
    return "\n".join([*missing, code]) if missing else code
