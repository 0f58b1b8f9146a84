"""The answer line's form read from a print statement the model writes for it (pure).

Where the question asks for a form its syntax does not show (a fenced block with a key, marks
named in words, a prefix it describes), the model is asked for one line of Python that prints
``answer`` the way the question asks. A code model writes that line better than it names the
form: its f-string (or its arguments, joined by ``print``'s space) is text before and after the
value, which is the :class:`~.templates.Template` the answer is then written in.

The line is read, never run, and only as literal text around ``answer``: any other expression,
a second value, or text the question does not hold is no form. The form's words and numbers
must all come from the question's sentences beside the one that asks: the model may copy its
instruction, not add to it (a sentence it makes up, ``The mean height is {answer} cm.``, names
a unit the question never wrote; ``{answer} units were sold.`` says the question again). Its marks may be its own: "in bold" is ``**``.
"""
from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass

from .program_text import after_program, extract_code
from .spec import PROSE, AnswerSpec, sentences
from .templates import DEFAULT, Template

__all__ = ["form_request", "Form", "form_from_marks", "marks_missing", "marks_of", "named_marks", "form_from_print", "form_from_example", "form_shown", "words_missing", "wants_form",
           "instruction_sentences", "fits"]

#: the request that follows the program's own (the program, its prompt and the question stay in
#: the model server's cache, so only these words are read anew)
_FORM_REQUEST = "Now write one line of Python that prints `answer` exactly in the form the question asks the answer to be given."


def form_request(missing: list[str]) -> str:
    """The request for the print line of the answer's form; ``missing``, the words the question
    quotes that the forms read so far left out, are named in it (a key ``result``)."""
    if not missing:
        return _FORM_REQUEST
    return f"{_FORM_REQUEST[:-1]}, writing {' and '.join(f'`{w}`' for w in missing)} as the question does."

_VALUE = "answer"
#: text around the value, at most this long on each side
_LIMIT = 80


def _is_value(node: ast.expr) -> bool:
    """``answer`` itself, or a plain rendering of it: ``str(answer)``, ``', '.join(answer)``,
    ``', '.join(map(str, answer))``."""
    if isinstance(node, ast.Name):
        return node.id == _VALUE
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1:
        func, arg = node.func, node.args[0]
        if isinstance(func, ast.Name) and func.id == "str":
            return _is_value(arg)
        if isinstance(func, ast.Attribute) and func.attr == "join" and isinstance(func.value, ast.Constant):
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "map" and len(arg.args) == 2:
                return _is_value(arg.args[1])
            return _is_value(arg)
    return False


def _pieces(node: ast.expr) -> list[str | None] | None:
    """The text pieces of one printed argument, None where the value goes (text joined by ``+``
    too: ``"Outcome\\n: " + str(answer)``); None when it holds anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        out: list[str | None] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                out.append(part.value)
            elif isinstance(part, ast.FormattedValue) and _is_value(part.value):
                out.append(None)
            else:
                return None
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _pieces(node.left), _pieces(node.right)
        return left + right if left is not None and right is not None else None
    if _is_value(node):
        return [None]
    return None


def _print_pieces(call: ast.Call) -> list[str | None] | None:
    """The pieces one ``print`` call writes, its ``end`` too (its arguments joined by its
    ``sep``, a space unless it sets one; a line break unless it sets its end)."""
    sep, end = " ", "\n"
    for kw in call.keywords:
        if kw.arg in ("sep", "end") and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            sep, end = (kw.value.value, end) if kw.arg == "sep" else (sep, kw.value.value)
        elif kw.arg != "flush":
            return None
    pieces: list[str | None] = []
    for i, arg in enumerate(call.args):
        got = _pieces(arg)
        if got is None:
            return None
        pieces += ([sep] if i else []) + got
    return pieces + [end]


def _as_print(statement: ast.stmt) -> ast.Call | None:
    if (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name) and statement.value.func.id == "print"):
        return statement.value
    return None


def _printed(code: str) -> list[str | None] | None:
    """What the last ``print`` of ``code`` (a top-level statement) writes, with the prints right
    before it while each writes only text and ``answer``: a form over several prints
    (``print('## Result')`` then ``print(answer)``). None when that print writes anything else."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    calls = [_as_print(statement) for statement in tree.body]
    last = max((i for i, call in enumerate(calls) if call is not None), default=None)
    if last is None:
        return None
    pieces: list[str | None] = []
    for call in reversed(calls[:last + 1]):
        got = _print_pieces(call) if call is not None else None
        if got is None:
            break
        pieces = got + pieces
    return pieces or None


def _instruction(question: str) -> str:
    """The sentences of ``question`` beside the one it asks: those that do not end in a question
    mark, or, when none does, all but the first."""
    return " ".join(instruction_sentences(question))


def instruction_sentences(question: str) -> list[str]:
    """The sentences of ``question`` beside the one it asks (:func:`_instruction`), each with
    its spacing made single: what says how the answer is to be given, and any context."""
    said = sentences(question)
    asking = [s for s in said if s.rstrip().endswith("?")]
    kept = [s for s in said if s not in asking] if asking else said[1:]
    return [" ".join(s.split()) for s in kept if s.strip()]


def fits(form: Template, question: str) -> bool:
    """Whether ``form`` is made only of the words of ``question``'s instruction (a form read
    for another question, checked again for this one)."""
    return _from_question(form.opening + form.closing, question)


def _from_question(text: str, question: str) -> bool:
    """Whether every word and number of ``text`` is written in the sentences of ``question``
    beside the one it asks: a sentence that only says the question again (``{answer} units
    were sold.``) is no form. Marks may be the model's own: "in bold" is ``**``, a closing tag
    has a ``/`` the question need not write."""
    said = {w.lower() for w in _WORD.findall(_instruction(question))}
    return all(token.lower() in said for token in _WORD.findall(text))


#: a word or a number, for telling what a form holds
_WORD = re.compile(r"[^\W\d_]+|\d+")
#: text the question sets in backticks (```yaml ... ``` and `result` alike)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def words_missing(form: Template, question: str) -> list[str]:
    """The words the question's instruction sets in backticks (a key, a tag, a
    heading: "a single key, `result`") that ``form`` does not write, in the question's order. A form the model made may
    keep the question's marks and leave out its key (a fenced block with the bare value); of
    several forms, the one writing every quoted word is the one asked for. Numbers are left
    out: a quoted number is a sample value (`` `42` ``), not a part of the form."""
    quoted = [w for span in _CODE_SPAN.finditer(_instruction(question)) for w in _WORD.findall(span.group(2))
              if not w.isdigit()]
    written = {w.lower() for w in _WORD.findall(form.opening + " " + form.closing)}
    return list(dict.fromkeys(w for w in quoted if w.lower() not in written))


def form_from_print(reply: str, question: str) -> Template | None:
    """The form a model ``reply`` prints ``answer`` in, when it prints it once with text around
    it that all comes from ``question``; None otherwise (``print(answer)`` shows no form)."""
    pieces = _printed(extract_code(reply) or "")
    if pieces is None or pieces.count(None) != 1:
        return None
    at = pieces.index(None)
    opening = "".join(p for p in pieces[:at] if p is not None)
    closing = "".join(p for p in pieces[at + 1:] if p is not None)
    if not (opening.strip() or closing.strip()) or len(opening) > _LIMIT or len(closing) > _LIMIT:
        return None
    if not _from_question(opening + closing, question):
        return None
    return Template(opening.lstrip("\n"), closing.rstrip("\n"), "", (0, 0))


#: a mark of the instruction's own: a symbol outside ASCII (``∴``, ``⟹``, ``«``), or an ASCII
#: bracket or symbol doubled (``{{``, ``]]``, ``||``); which of them count is :func:`marks_of`'s
_MARK = re.compile(r"[^\x00-\x7f\w\s]|([\[\](){}<>|~%^+#$])\1")
#: brackets that open, and the one each is closed by, as Unicode pairs them (bidi mirroring)
_OPENERS = "«‹“‘【〔〈《「『（［｛⟨⟪⦃"
_CLOSERS = "»›”’】〕〉》」』）］｝⟩⟫⦄"
#: quotation marks, which quote words as often as they hold a value: no marks of a form
_QUOTES = "“”‘’"
#: the English names of the marks an instruction may name instead of writing them ("the result
#: in double quotation marks", "between pipes"): plural, as a pair or a mark on each side is
#: named, each with the marks it opens and closes the value with; "double" before a name that
#: is no quotation mark doubles the mark ("double square brackets": ``[[`` and ``]]``)
_MARK_NAMES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("quotation marks", "quote marks", "quotes", "speech marks", "inverted commas"), ('"', '"')),
    **dict.fromkeys(("single quotes", "single quotation marks"), ("'", "'")),
    **dict.fromkeys(("backticks", "back-ticks", "backquotes"), ("`", "`")),
    **dict.fromkeys(("square brackets", "brackets"), ("[", "]")),
    **dict.fromkeys(("parentheses", "round brackets"), ("(", ")")),
    **dict.fromkeys(("curly braces", "curly brackets", "braces"), ("{", "}")),
    **dict.fromkeys(("angle brackets", "chevrons"), ("<", ">")),
    **dict.fromkeys(("pipes", "pipe characters", "vertical bars"), ("|", "|")),
    "asterisks": ("*", "*"), "tildes": ("~", "~"), "underscores": ("_", "_"), "dollar signs": ("$", "$"),
}
_NAMED = re.compile(r"(?<![\w-])(double\s+|doubled\s+)?(" + "|".join(
    re.escape(name).replace(r"\ ", r"\s+") for name in sorted(_MARK_NAMES, key=len, reverse=True)) + r")(?![\w-])", re.I)
#: a word that makes a clause say what the answer is not written with ("without quotes")
_NOT = re.compile(r"(?<!\w)(?:without|no|not|never|nor|don't|avoid|omit)(?!\w)", re.I)


def marks_of(question: str) -> list[str]:
    """The marks ``question``'s instruction writes, each once, in its order (see :data:`_MARK`)."""
    said = _instruction(question)
    def alone(m: re.Match[str]) -> bool:
        # a bracket or symbol doubled, not tripled; a symbol with no letter or digit beside it
        # (not the degree of °C) that is no currency (a unit, not a mark)
        before, after = said[max(0, m.start() - 1):m.start()], said[m.end():m.end() + 1]
        if len(m.group(0)) == 2:
            return before != m.group(0)[0] != after
        mark = m.group(0)
        if mark in _OPENERS + _CLOSERS and mark not in _QUOTES:
            # a bracket may hold a word ("【the number】"), not be part of one
            return not (before.isalnum() if mark in _OPENERS else after.isalnum())
        return unicodedata.category(mark) in ("Sm", "So") and not (before.isalnum() or after.isalnum())

    return list(dict.fromkeys(m.group(0) for m in _MARK.finditer(said) if alone(m)))


def named_marks(question: str) -> tuple[str, str] | None:
    """The marks ``question``'s instruction names in words around the value (:data:`_MARK_NAMES`),
    when it names one kind of them and not in a clause that says what the answer goes without;
    None otherwise (no name, or two different marks: which one?)."""
    found = _named(question)
    return found[:2] if found is not None else None


def _named(question: str) -> tuple[str, str, bool] | None:
    """:func:`named_marks`, and whether single quotes would do as well: "quotes" says neither
    "double" nor "single"."""
    found: set[tuple[str, str, bool]] = set()
    for clause in re.split(r"[;,.!?]\s|\n", _instruction(question)):
        for m in _NAMED.finditer(clause):
            if _NOT.search(clause[:m.start()]):
                continue
            opening, closing = _MARK_NAMES[" ".join(m.group(2).lower().split())]
            loose = opening == '"' and not m.group(1)
            if m.group(1) and opening not in "\"'":
                opening, closing = opening * 2, closing * 2
            found.add((opening, closing, loose))
    return found.pop() if len(found) == 1 else None


def _closer(mark: str) -> str | None:
    if len(mark) == 1 and mark in _OPENERS:
        return _CLOSERS[_OPENERS.index(mark)]
    if len(mark) == 2 and mark[0] in "[({<":
        return {"[": "]", "(": ")", "{": "}", "<": ">"}[mark[0]] * 2
    return None


def form_from_marks(question: str) -> Form | None:
    """The form the marks of ``question``'s instruction make, when it writes no line of them:
    one mark opens the value's line (``∴ 42``, ``⟹ 42``); an opening mark and its closing one
    enclose it (``«42»``, ``{{42}}``, ``【42】``), as a doubled mark written on both sides of an
    example does (``||like so||``: ``||42||``); with no mark written, the marks it names in
    words enclose it ("in double quotation marks": ``"42"``; :func:`named_marks`). None when
    the instruction writes or names no mark, or marks that make no such form."""
    marks = marks_of(question)
    if len(marks) == 2 and _closer(marks[0]) == marks[1]:
        return Form(Template(marks[0], marks[1], "", (0, 0)))
    if len(marks) == 1 and len(marks[0]) == 2 and _closer(marks[0]) is None and marks[0][0] not in "])}>":
        if _instruction(question).count(marks[0]) >= 2:
            return Form(Template(marks[0], marks[0], "", (0, 0)))
        return None
    if len(marks) == 1 and len(marks[0]) == 1 and _closer(marks[0]) is None and marks[0] not in _CLOSERS:
        return Form(Template(f"{marks[0]} ", "", "", (0, 0)))
    named = named_marks(question) if not marks else None
    if named is not None:
        return Form(Template(named[0], named[1], "", (0, 0)))
    return None


def marks_missing(form: Template, question: str) -> list[str]:
    """The marks of ``question``'s instruction that ``form`` does not write: those it writes, or,
    when it writes none, those it names in words (quotes, named neither double nor single, are
    written in either)."""
    written = form.opening + form.closing
    marks = marks_of(question)
    if not marks:
        named = _named(question)
        if named is not None and named[2] and form.opening.endswith("'") and form.closing.startswith("'"):
            return []
        marks = list(dict.fromkeys(named[:2])) if named is not None else []
    return [m for m in marks if m not in written]


@dataclass(frozen=True)
class Form:
    """A form the answer is written in, and whether a list goes inside brackets in it: the
    value the model showed in it was a bracketed list (``result: [12.5, 13.0]``)."""

    template: Template
    bracketed: bool = False


#: the marks a value line may open with (a blockquote, a list item, a heading, bold), and a
#: label of up to three words before a colon or an equals sign
_LEAD = re.compile(r"[ \t>*_#-]*(?:(?:[^\W\d_]+[ \t]*){1,3}[:=][*_]*[ \t]*)?")
#: the most lines a shown form may take (a heading, a fence, a key, a fence)
_LINES = 6


def form_from_example(reply: str, question: str) -> Form | None:
    """The form the model showed after its program, around a value it guessed before the
    program ran: ``## Result`` with ``15.0`` on the next line, a fenced block holding
    ``result: [15.0]``, ``> no``. The value is the last line of the reply's last paragraph (in a
    fenced block, the line before its closing fence), less the marks that open it and a label;
    the text before and after it is the form, which, as a printed form, must be made of the
    question's words. A value that is nothing but the question's words is no value (a lone
    ``## Result`` heading), unless it is the program's own name for the value (``> `answer` ``).
    None when the reply shows no such form."""
    after = after_program(reply)
    return form_shown(after, question) if after is not None else None


#: the program's own name for its value, as a model writes it where the value goes in a form it
#: shows (``> `answer` ``, ``result: {answer}``): a place for the value, not a value
_PLACEHOLDER = re.compile(rf"[`{{<\[(]*{_VALUE}[`}}>\])]*")


def form_shown(text: str, question: str) -> Form | None:
    """The form ``text`` shows in its last paragraph around a value, a guessed one or the
    program's name for it (``> `answer` ``), as :func:`form_from_example` reads it."""
    unit = re.split(r"\n[ \t]*\n", (text or "").strip())[-1].strip()
    lines = unit.split("\n")
    if not unit or len(lines) > _LINES:
        return None
    at = len(lines) - 1
    if at > 0 and re.fullmatch(r"\s*```\s*", lines[at]):
        at -= 1                                  # a closing fence: the value is on the line before
    line = lines[at]
    lead = _LEAD.match(line)
    start, end = (lead.end() if lead is not None else 0), len(line.rstrip())
    value = line[start:end]
    if line.lstrip().startswith("```") or not value.strip("[]`'\" "):
        return None
    words = {w.lower() for w in _WORD.findall(_instruction(question))}
    placeholder = _PLACEHOLDER.fullmatch(value.strip()) is not None
    if not placeholder and all(w.lower() in words for w in _WORD.findall(value)):
        return None                              # the question's own words: part of the form, not a value
    opening = "\n".join(lines[:at] + [line[:start]])
    closing = "\n".join([line[end:]] + lines[at + 1:]).rstrip()
    if not (opening + closing).strip() or not _from_question(opening + closing, question):
        return None
    return Form(Template(opening, closing, "", (0, 0)), not placeholder and value.startswith("[") and value.endswith("]"))


def wants_form(spec: AnswerSpec) -> bool:
    """Whether the answer's form is the model's to print: a one-value prose answer whose
    question asks in words, if it asks at all (:attr:`~.spec.AnswerSpec.form_in_words`)."""
    return (spec.form_in_words and spec.style == PROSE and spec.template == DEFAULT and not spec.as_object
            and len(spec.parts) == 1)
