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

from .spec import PROSE, AnswerSpec, sentences
from .templates import DEFAULT, Template

__all__ = ["FORM_REQUEST", "form_from_print", "wants_form"]

#: the request that follows the program's own (the program, its prompt and the question stay in
#: the model server's cache, so only these words are read anew)
FORM_REQUEST = "Now write one line of Python that prints `answer` exactly in the form the question asks the answer to be given."

_VALUE = "answer"
#: text around the value, at most this long on each side
_LIMIT = 80


def _code(reply: str) -> str:
    fenced = re.search(r"```(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", reply or "", re.S)
    return (fenced.group(1) if fenced else reply or "").strip()


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
    """The text pieces of one printed argument, None where the value goes; None when it holds
    anything else."""
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
    if _is_value(node):
        return [None]
    return None


def _printed(code: str) -> list[str | None] | None:
    """The pieces the last ``print`` of ``code`` writes, in order (its arguments joined by its
    ``sep``, a space unless it sets one)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"]
    if not calls:
        return None
    call = max(calls, key=lambda n: (n.lineno, n.col_offset))
    sep = " "
    for kw in call.keywords:
        if kw.arg == "sep" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            sep = kw.value.value
        elif kw.arg not in ("end", "flush"):
            return None
    pieces: list[str | None] = []
    for i, arg in enumerate(call.args):
        got = _pieces(arg)
        if got is None:
            return None
        pieces += ([sep] if i else []) + got
    return pieces


def _instruction(question: str) -> str:
    """The sentences of ``question`` beside the one it asks: those that do not end in a question
    mark, or, when none does, all but the first."""
    said = sentences(question)
    asking = [s for s in said if s.rstrip().endswith("?")]
    return " ".join(s for s in said if s not in asking) if asking else " ".join(said[1:])


def _from_question(text: str, question: str) -> bool:
    """Whether every word and number of ``text`` is written in the sentences of ``question``
    beside the one it asks: a sentence that only says the question again (``{answer} units
    were sold.``) is no form. Marks may be the model's own: "in bold" is ``**``, a closing tag
    has a ``/`` the question need not write."""
    low = _instruction(question).lower()
    for token in re.findall(r"[^\W\d_]+|\d+", text):
        if token.lower() not in low:
            return False
    return True


def form_from_print(reply: str, question: str) -> Template | None:
    """The form a model ``reply`` prints ``answer`` in, when it prints it once with text around
    it that all comes from ``question``; None otherwise (``print(answer)`` shows no form)."""
    pieces = _printed(_code(reply))
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


def wants_form(spec: AnswerSpec) -> bool:
    """Whether the answer's form is the model's to print: a one-value prose answer whose
    question asks in words, if it asks at all (:attr:`~.spec.AnswerSpec.form_in_words`)."""
    return (spec.form_in_words and spec.style == PROSE and spec.template == DEFAULT and not spec.as_object
            and len(spec.parts) == 1)
