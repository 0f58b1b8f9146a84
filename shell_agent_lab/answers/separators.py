"""What a list's values are written apart with, as a part's description says it (pure):
"separated by a semicolon and a space", "joined by a hyphen", "pipe-delimited",
"separated by `; `".

A separator is said as a verb of separating (separated, delimited, joined, split) with the marks
it names: quoted (`` `; ` ``, ``" | "``), which is the separator exactly, or named in words,
which are read as the marks they name, in the order they are named. A comma, semicolon or colon
named alone is written with a space after it, as prose writes it, unless the text says
without one. "" when the text says none: the writer's default (``", "``) applies.
"""
from __future__ import annotations

import re

__all__ = ["read_separator"]

#: marks by their names (singular; a plural is read too)
_MARKS = {"comma": ",", "semicolon": ";", "semi colon": ";", "colon": ":", "pipe": "|", "vertical bar": "|",
          "bar": "|", "slash": "/", "forward slash": "/", "backslash": "\\", "hyphen": "-", "dash": "-",
          "space": " ", "blank": " ", "tab": "\t", "newline": "\n", "line break": "\n", "ampersand": "&",
          "plus sign": "+", "plus": "+", "underscore": "_", "period": ".", "dot": ".", "full stop": ".",
          "arrow": " -> ", "tilde": "~", "asterisk": "*", "hash": "#"}
#: marks that prose follows with a space
_SPACED = frozenset({",", ";", ":"})
_NAME = "|".join(sorted((n.replace(" ", r"[\s-]") for n in _MARKS), key=len, reverse=True))
_MARK = re.compile(rf"\b({_NAME})(?:e?s)?\b", re.I)
#: the verb of separating, as a word or the tail of a compound ("comma-separated")
_VERB = re.compile(r"\b(?:separat|delimit|join|split|divid)\w*", re.I)
#: a quoted run of marks only: the separator exactly
_QUOTED = re.compile(r"`([^`\w\n]{1,5})`|\"([^\"\w\n]{1,5})\"|'([^'\w\n]{1,5})'|“([^”\w\n]{1,5})”")
#: the end of the clause a verb's marks are named in
_CLAUSE_END = re.compile(r"[,;.()\[\]\n]|\bwith(?:out|\s+no)\b|\bin\b|\beach\b|\bfrom\b")
_WITHOUT_SPACE = re.compile(r"\b(?:no|without(?:\s+an?)?)\s+(?:spaces?|blanks?)\b", re.I)
_WINDOW = 60


def _mark(m: re.Match[str]) -> str:
    return _MARKS[re.sub(r"[\s-]+", " ", m.group(1).lower())]


def _named(text: str) -> str:
    """The marks ``text`` names, in order, as one separator."""
    return "".join(_mark(m) for m in _MARK.finditer(text))


def read_separator(text: str) -> str:
    """The separator ``text`` asks a list's values to be written apart with; "" when it says none."""
    for verb in _VERB.finditer(text or ""):
        before = text[max(0, verb.start() - 20):verb.start()]
        compound = re.search(r"([A-Za-z][A-Za-z ]*?)[\s-]$", before)
        after = text[verb.end():verb.end() + _WINDOW]
        quoted = _QUOTED.search(after)
        if quoted and not _CLAUSE_END.search(after[:quoted.start()].replace(",", "")):
            return next(g for g in quoted.groups() if g is not None)
        words = after
        end = _CLAUSE_END.search(words)
        clause = words[:end.start()] if end else words
        said = _named(clause)
        if not said and compound:
            last = _MARK.search(compound.group(1).split()[-1]) if compound.group(1).split() else None
            said = _mark(last) if last else ""          # "comma-separated", "pipe delimited"
        if not said:
            continue
        if said in _SPACED and not _WITHOUT_SPACE.search(text[verb.start():verb.end() + _WINDOW]):
            said += " "
        return said
    return ""
