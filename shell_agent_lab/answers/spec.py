"""The answer a question asks for, read once into a typed spec (pure).

:func:`read_spec` reads the explicit syntax of a question deterministically: the ``@part[…]``
tokens (only those of a ``Format:`` line when it has one) and a literal ``Answer: <…>`` line.
Each part gets the words that describe it (its parenthesis, its placeholder, a clause that names
it) and from those its kind, precision and allowed values. Words that describe a *format* rather
than this answer are recognised as such: a metasyntactic token (``@name[value]``) beside real
parts, a placeholder (``<value>``, ``[ ]``), a description naming several kinds at once ("True
or False for a yes/no question, several values comma-separated") — they make no part and fix no
kind. When the kind cannot be read with certainty it is ``any``: a value is then written as its
own type says, never rejected for a guessed kind.

The spec is made once per question and carried through the turn; later stages read the spec,
not the question.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Mapping

from .separators import read_separator
from .precision import Precision, read_precision, read_precisions
from .templates import DEFAULT, Template, read_object, read_template

__all__ = ["Part", "AnswerSpec", "read_spec", "truth_word", "sentences", "with_columns", "without_tokens", "KINDS", "PARTS", "LINE", "PROSE", "ANSWER"]

#: what a part holds
KINDS = ("number", "count", "label", "yesno", "list", "date", "any")
#: the output styles: named ``@part[value]`` parts, one ``Answer:`` line, prose
PARTS, LINE, PROSE = "parts", "line", "prose"
#: the name of the one part of an ``Answer:`` line or a prose answer
ANSWER = "answer"


@dataclass(frozen=True)
class Part:
    """One value the answer states."""

    name: str
    kind: str = "any"
    #: digits after the point (numbers); None: as computed, without a long tail
    decimals: int | None = None
    #: the values the question allows, as it writes them
    allowed: tuple[str, ...] = ()
    #: the part's place in the answer (0-based)
    order: int = 0
    #: how a yes/no value is written: "yes" (Yes/No), or as the question spells the truth values,
    #: "True" (True/False), "true" (true/false) or "TRUE" (TRUE/FALSE); :func:`truth_word` writes it
    truth: str = "yes"
    #: a percentage from 0 to 100
    percent: bool = False
    #: what the question asks this part to be ("player" in "which player …"): the retry names it
    subject: str = ""
    #: the text column whose values name the subject (set from the data by :func:`with_columns`)
    column: str = ""
    #: the placeholder when it is one plain word (``colour`` in ``@higher_group[colour]``)
    holder: str = ""
    #: what several values are written apart with, as the question says it (``read_separator``);
    #: "": ", "
    separator: str = ""
    #: how many values the question asks for, when it counts them ("the four modes", "which 3
    #: players"); None when it does not
    items: int | None = None

    def label(self) -> str:
        return f"@{self.name}[…]" if self.name != ANSWER else "Answer:"


@dataclass(frozen=True)
class AnswerSpec:
    """The parts a question asks for and the style they are written in."""

    style: str
    parts: tuple[Part, ...] = field(default_factory=tuple)
    #: the precision the question states for numbers in general (prose, unnamed values)
    precision: Precision | None = None
    #: how the spec was read: "syntax" (explicit parts or Answer: line), "words", "model"
    source: str = "words"
    #: the question as a program is asked it: without the sentences that only describe a format
    #: (the spec holds what they say); "" when nothing was taken out
    asked: str = ""
    #: the form of the one-value answer line, as the question shows it (``Answer: <value>``,
    #: ``\\boxed{}``, ``<answer></answer>``); ``Answer: …`` when it shows none
    template: Template = DEFAULT
    #: the named parts are written as one object (``{"mean": 1.5, "n": 3}``), as the question shows
    as_object: bool = False
    #: what a list is written inside, when the answer's instruction shows it ("several values
    #: comma-separated inside [ ]"): ("[", "]"); ("", "") when it shows nothing
    list_marks: tuple[str, str] = ("", "")
    #: a prose question that says more than its question, in sentences whose syntax shows no
    #: form: any form it asks is asked in words, for the model to print (``.printed_form``)
    form_in_words: bool = False

    @property
    def decimals(self) -> int | None:
        p = self.precision
        return p.digits if p is not None and p.kind == "decimals" else None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parts)

    def part(self, name: str) -> Part | None:
        return next((p for p in self.parts if p.name == name), None)


# -- explicit syntax --------------------------------------------------------------------------
#: ``@name[placeholder]``
_TOKEN = re.compile(r"@([A-Za-z_][\w.]*)\[([^\]\n]{0,80})\]")


def without_tokens(text: str) -> str:
    """``text`` with each ``@part[…]`` token blanked: the words around them, to read as words."""
    return _TOKEN.sub(" ", text)


#: a line that states the format: ``Format: @a[…] @b[…]``
_FORMAT_LINE = re.compile(r"(?im)^[ \t>*_-]*format\**\s*:.*$")
#: ``Answer:`` and what follows it on its line
_ANSWER = re.compile(r"\bAnswer\s*:[ \t]*((?:(?!\bAnswer\s*:)[^\n])*)", re.I)
#: what an ``Answer:`` placeholder looks like: ``<…>``, ``[…]``, ``{…}``, ``...``
_BRACKETED = re.compile(r"^[`'\"]?\s*(?:<([^>\n]*)>|\[([^\]\n]*)\]|\{([^}\n]*)\}|(\.\.\.|…))")
#: an ``Answer:`` literal: ``Answer: yes``, ``Answer: E7``
_LITERAL = re.compile(r"^[`'\"]?([A-Za-z0-9][\w.+-]*)[`'\"]?(?=\s|[,.;:)]|$)")
#: names that stand for any part's name: a token so named beside real parts describes the format
_META_NAMES = frozenset({"name", "names", "part", "key", "field", "slot", "label", "variable", "var",
                         "answer_name", "part_name", "value_name", "name_of_value", "answer"})
#: placeholders that stand for any value
_META_VALUES = frozenset({"value", "values", "x", "n", "answer", "result", "the value", "your answer", "…", "..."})

# -- words that describe a value ---------------------------------------------------------------
#: each kind and the words that describe it; a description naming two kinds is a menu of formats
_CUES: Mapping[str, frozenset[str]] = {
    "yesno": frozenset({"yes", "true", "false", "boolean", "bool"}),
    "count": frozenset({"integer", "integers", "int", "whole", "count"}),
    "number": frozenset({"number", "numbers", "float", "decimal", "decimals", "numeric", "percentage", "percent",
                         "rounded", "places", "figures", "digits", "amount", "ratio", "proportion", "fraction"}),
    "list": frozenset({"list", "comma", "commas", "separated", "delimited", "items"}),
    "label": frozenset({"name", "names", "category", "label", "string", "text", "word", "code", "codes",
                        "column", "written", "spelled", "spelt"}),
    "date": frozenset({"date", "yyyy", "iso"}),
}
_CUE_WORDS = frozenset().union(*_CUES.values())
_ARTICLES = frozenset({"a", "an", "the", "one", "either", "both", "each", "of", "as"})
#: a part's name followed by what is said of it: a linking word ("dof as an integer", "r to 4
#: decimals") or an article ("n an integer")
_SAID = r"(?:as|to|in|is|are|be|should|must|rounded|=|:|being|a|an|the|one)"
#: what may stand between a part's name and what is said of it: an aside in parentheses
_ASIDE = r"(?:\s*\([^()\n]{0,80}\))?"


def _words(text: str) -> list[str]:
    """The words of ``text``, each also without a plural ``s`` ("labels" is "label")."""
    words = re.findall(r"[a-z]+", text.lower().replace("_", " "))
    return words + [w[:-1] for w in words if len(w) > 3 and w.endswith("s") and not w.endswith("ss")]


#: "name" as a verb, not a noun: after a relative pronoun or a plural subject ("reports that
#: name two types", "how many reports name it")
_NAME_VERB = re.compile(r"\b(?:that|which|who|they|[a-z]{3,}[^s's]s)\s+names?\b")
#: "how many …": the number of something, a whole number
_HOW_MANY = re.compile(r"\bhow\s+many\b")


def _kinds(text: str) -> set[str]:
    """The kinds ``text`` names, a refinement kept over what it refines: a whole number is a
    number, a list of names or numbers is a list. "name" as a verb names no kind; "how many"
    asks for a count."""
    low = text.lower()
    words = set(_words(_NAME_VERB.sub(" ", low)))
    if "%" in text:
        words.add("percent")
    if _HOW_MANY.search(low):
        words.add("count")
    cued = {kind for kind, cues in _CUES.items() if words & cues}
    if "count" in cued:
        cued.discard("number")
    if "date" in cued:
        cued -= {"count", "number"}        # "yyyy and n are integers": a year is a whole number, and a date
    if "list" in cued:
        cued -= {"number", "count", "label", "date"}
    if "label" in cued and words & {"code", "codes", "column"} and len(cued) > 1:
        cued.discard("label")             # "the count of each code": the other word says what it is
    return cued


#: an example value a description gives: "<the weekday, e.g. Tuesday>"
_EXAMPLE = re.compile(r"\b(?:eg:|for example|such as|like)\s*[:,]?\s*[\"'`]?([^\s,;>)\]\"'`]+)", re.I)


def _example_kind(description: str) -> str:
    """The kind of the one example value ``description`` gives, by the example's own type
    (a word is a name, digits are a number, ``2023-01-31`` is a date); "any" without one."""
    examples = {m.group(1).rstrip(".") for m in _EXAMPLE.finditer(description)}
    if len(examples) != 1:
        return "any"
    example = examples.pop()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}(?:[ T][\d:]+)?", example):
        return "date"
    if re.fullmatch(r"[-+]?\d[\d,]*(?:\.\d+)?%?", example):
        return "any"          # a number may be a count, a year or an amount: the value says
    if example.lower() in _CUE_WORDS or not re.search(r"[A-Za-z]", example):
        return "any"
    return "label"


def _kind(description: str) -> str:
    """The kind ``description`` states; "any" when it states none, or offers several as
    alternatives ("a number, a name or a list"; "True or False for a yes/no question, several
    values comma-separated"): a menu of formats, not this answer's kind. Stating no kind, an
    example value says it by its own type."""
    if not _kinds(description):
        return _example_kind(description)
    alternatives = [k for k in (_kinds(a) for a in re.split(r"\bor\b", description)) if k]
    if len({frozenset(k) for k in alternatives}) > 1:
        return "any"
    cued = _kinds(description)
    return cued.pop() if len(cued) == 1 else "any"


def _percent(description: str) -> bool:
    """Whether ``description`` asks for a percentage: a word for one, or ``%``, that no "not" or
    "no" just before it turns down ("decimal fractions (not percentages)")."""
    words = re.findall(r"[a-z]+|%", description.lower())
    return any(w in ("percent", "percentage", "percentages", "%") and not {"not", "no", "non"} & set(words[max(0, i - 2):i])
               for i, w in enumerate(words))


def _truth(description: str) -> str:
    words = set(_words(description))
    if not words & {"true", "false", "boolean", "bool"}:
        return "yes"
    return _spelled(description)


def _spelled(text: str) -> str:
    """How ``text`` spells the truth values, as the first of them it writes is spelled: ``TRUE``,
    ``True`` or ``true`` (a JavaScript or JSON literal is lower case); ``True`` when it writes
    neither ("a boolean")."""
    m = re.search(r"\b(true|false)\b", text, re.I)
    if m is None:
        return "True"
    word = m.group(1)
    return "TRUE" if word.isupper() else "True" if word[0].isupper() else "true"


def truth_word(truth: str, flag: bool) -> str:
    """The word a yes/no value is written with, in the way ``truth`` (a :attr:`Part.truth`) says."""
    if truth == "TRUE":
        return "TRUE" if flag else "FALSE"
    if truth == "True":
        return "True" if flag else "False"
    if truth == "true":
        return "true" if flag else "false"
    return "Yes" if flag else "No"


_ITEM = r"[A-Za-z0-9][\w+\-/.]*"
_LISTING = re.compile(rf"((?:{_ITEM}\s*,\s*)*{_ITEM},?\s+(?:or|and)\s+{_ITEM})(?![\w+\-/])")


_QUOTED = re.compile(r"(?<!\w)([\"'`])([^\"'`\n]{1,40})\1(?!\w)")
#: what stands between two listed values: a comma, a slash, "or", "and", and an article after
#: it (``"left" or the "right"``)
_BETWEEN = re.compile(r"^\s*(?:,|/|or|and|,\s*or|,\s*and)(?:\s+(?:the|a|an))?\s*$")


def _values(items: list[str]) -> tuple[str, ...]:
    """``items`` as allowed values: two or more different ones, none a word for a kind."""
    items = [w.strip().rstrip(".") for w in items if w.strip()]
    low = [w.lower() for w in items]
    if len(items) >= 2 and len(set(low)) == len(low) and not any(w in _CUE_WORDS | _ARTICLES for w in low):
        return tuple(items)
    return ()


def _listing(text: str) -> tuple[str, ...]:
    """The values a piece of text lists, as written: quoted ones (``"normal" or "not normal"``),
    else bare ones ("night, morning, afternoon or evening")."""
    quoted = list(_QUOTED.finditer(text or ""))
    group: list[re.Match[str]] = []
    for m in quoted:
        if group and _BETWEEN.match(text[group[-1].end():m.start()]):
            group.append(m)
            continue
        if len(group) >= 2 and _values([g.group(2) for g in group]):
            break
        group = [m]
    if len(group) >= 2 and _values([g.group(2) for g in group]):
        # a list of quoted values may go on after an aside ('"positive" or "negative" (the sign
        # of r) when p < 0.05, or "none" otherwise'): every quoted value of the description is
        # allowed; a set too wide only loses a retry, one too narrow forbids the right answer
        more = [m.group(2) for m in quoted if m.start() > group[-1].end()]
        return _values([g.group(2) for g in group] + [v for v in more if v not in [g.group(2) for g in group]]) \
            or _values([g.group(2) for g in group])
    for m in _LISTING.finditer(text or ""):
        found = _values(re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", m.group(1)))
        if found:
            return found
    return ()


_ALTERNATIVES = re.compile(rf"(?:{_ITEM}\s*,\s*)*{_ITEM},?\s+or\s+{_ITEM}")
#: numbered (or lettered) stand-ins for several values of one kind: ``[port1, port2, port3]``,
#: ``[col_a, col_b]``
_NUMBERED = re.compile(r"([A-Za-z_]+?)(?:_?\d+|_[A-Za-z])")


def _placeholder_listing(holder: str) -> tuple[str, tuple[str, ...]]:
    """What a placeholder made only of items says: values to choose one from when it offers
    them as alternatives (``[positive, negative or none]``, ``[1, 2 or 3]``: kind "label", the
    items), several values when it numbers or letters stand-ins of one stem (``[name1, name2, name3]``:
    kind "list"), else nothing ("", ()). Values it quotes, two or more, are the values to choose
    from, whatever words stand around them (``[longer tail on the "left" or the "right"]``,
    ``[write "related" if p < 0.05, else "unrelated"]``)."""
    quoted = _values(list(dict.fromkeys(m.group(2) for m in _QUOTED.finditer(holder))))
    if quoted:
        return "label", quoted
    holder = holder.strip().strip("\"'`")
    if _ALTERNATIVES.fullmatch(holder):
        found = _listing(holder)
        # all numbers or all words: "5 or more" is a bound, not two choices
        if found and len({re.fullmatch(r"-?\d+(?:\.\d+)?", v) is None for v in found}) == 1:
            return "label", found
    # choices of a few words each, set apart by " or " or " / " ([normal / not normal],
    # [reject or fail to reject]): words, none of them a description ("the name or the code")
    if re.search(r"\s(?:or|/)\s", holder):
        choices = [c.strip() for c in re.split(r"\s+/\s+|\s*,\s*(?:or\s+)?|\s+or\s+", holder)]
        if len(choices) >= 2 and len({c.lower() for c in choices}) == len(choices) and all(map(_choice, choices)):
            return "label", tuple(choices)
    items = [i.strip() for i in holder.split(",")]
    stems = {m.group(1).lower() if m else None for m in (_NUMBERED.fullmatch(i) for i in items)}
    if len(items) >= 2 and len(stems) == 1 and None not in stems:
        return "list", ()
    return "", ()


def _choice(text: str) -> bool:
    """Whether ``text`` is one choice a placeholder offers: one to three words, none a word that
    describes a value or an article."""
    words = text.lower().split()
    return (re.fullmatch(r"[A-Za-z]+(?:[ '-][A-Za-z]+){0,2}", text) is not None
            and not set(words) & (_CUE_WORDS | _ARTICLES | _META_VALUES))


_NAMES = rf"((?:{_ITEM}\s*,\s*)+{_ITEM},?\s+(?:and|or)\s+{_ITEM}|{_ITEM}\s+(?:and|or)\s+{_ITEM})"
#: the question chooses among listed names: "Which of A, B and C …", "Of A, B or C, which …"
_WHICH_OF = (re.compile(rf"\b[Ww]hich\s+(?:one\s+)?of\s+(?:the\s+(?:columns?|variables?|measures?|fields?)\s+)?{_NAMES}"),
             re.compile(rf"(?:^|[.?!:;]\s+)(?:Of|Among)\s+{_NAMES}\s*,\s*which\b"))
#: "which player …", "what team …": the noun the answer names
_SUBJECT = re.compile(r"\b(?:[Ww]hich|[Ww]hat)\s+([A-Za-z][\w-]*)")
_NOT_SUBJECT = frozenset({"of", "one", "ones", "is", "are", "was", "were", "has", "have", "had", "do", "does", "did",
                          "the", "a", "an", "its", "their", "this", "that", "these", "those", "would", "will",
                          "should", "can", "could", "if", "kind", "type", "sort", "percentage", "share",
                          "proportion", "fraction", "number", "value", "values", "amount"})


def _which_of(text: str) -> tuple[str, ...]:
    for rx in _WHICH_OF:
        m = rx.search(text)
        names = _listing(m.group(1)) if m else ()
        if names:
            return names
    return ()


#: the number words a question counts things with
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
           "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20}
#: how many things a question asks for, written before the things: "three", "10", "top 5"
_A_FEW = rf"(?:(?:top|first|last)\s+)?(?:\d+|{'|'.join(_COUNTS)})\s+"
#: the things a count of them names, asked which of ("which 5 players") or as what a request
#: opens on ("Give the three 1986 teams …", "List me the top 5 …"); numbers between are skipped
_THINGS_COUNTED = re.compile(rf"(?:\b[Ww]hich\s+|\b[Ww]hat\s+|(?:^|\n)[ \t]*[A-Za-z]+\s+(?:me\s+|us\s+)?the\s+)"
                             rf"{_A_FEW}(?:\d+\s+)*([A-Za-z][\w-]*)")


def _items(text: str) -> int | None:
    """How many things the question asks for when it counts them ("Rank the four modes …",
    "which 5 players"); a number above twenty there is no count of them ("the 1986 teams")."""
    m = _THINGS_COUNTED.search(text)
    counted = re.search(_A_FEW, m.group(0), re.I) if m else None
    if counted is None:
        return None
    word = counted.group(0).split()[-1].lower()
    number = int(word) if word.isdigit() else _COUNTS.get(word)
    return number if number is not None and 2 <= number <= 20 else None


def _subject(text: str) -> str:
    """What the question asks which of: the word after "which"/"what" ("which player"), or the
    things it counts ("the three 1986 teams", "which 5 players")."""
    m = _THINGS_COUNTED.search(text) or _SUBJECT.search(text)
    word = m.group(1).lower() if m else ""
    return "" if not word or word in _NOT_SUBJECT else word


# -- reading ----------------------------------------------------------------------------------
def _clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause: split at sentence ends, semicolons and line breaks."""
    spans, start = [], 0
    for m in re.finditer(r"(?<!\d)\.(?!\d)(?=\s|$)|[;?!\n]", text):
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    return [s for s in spans if text[s[0]:s[1]].strip()]


def _tokens(text: str) -> list[re.Match[str]]:
    """The ``@part[…]`` tokens that are parts: those of the ``Format:`` line(s) when there is
    one, the rest otherwise; a metasyntactic one (``@name[value]``) only when it is the only one."""
    found = list(_TOKEN.finditer(text))
    lines = [m.span() for m in _FORMAT_LINE.finditer(text)]
    in_format = [t for t in found if any(a <= t.start() < b for a, b in lines)]
    found = in_format or found
    real = [t for t in found if t.group(1).lower() not in _META_NAMES]
    if real:
        found = real
    out: list[re.Match[str]] = []
    for t in found:
        if t.group(1) not in {o.group(1) for o in out}:
            out.append(t)
    return out


def _descriptions(text: str, tokens: list[re.Match[str]]) -> list[str]:
    """For each part token, the words that describe it: its parenthesis or the words after it up
    to the next token or clause end, its placeholder, and any clause that names the part (or its
    own placeholder) followed by a linking word ("dof as an integer", ``where "p" is …``)."""
    masked = _TOKEN.sub(lambda m: " " * len(m.group(0)), text)
    holders = [t.group(2).strip().strip("\"'`") for t in tokens]
    shared = {h.lower() for h in holders if sum(x.lower() == h.lower() for x in holders) > 1}
    refs = []
    for t, holder in zip(tokens, holders):
        names = [t.group(1)]
        # a placeholder only one part has names that part, however plain ("@r[value] @ok[answer],
        # where … answer is yes or no"); one several parts share names none of them
        if holder and holder.lower() not in shared and holder != t.group(1) and re.fullmatch(r"[\w.]+", holder):
            names.append(holder)
        refs.append(names)
    first = tokens[0].start() if tokens else 0
    out = []
    for i, t in enumerate(tokens):
        others = [re.escape(n) for j, ns in enumerate(refs) if j != i for n in ns]
        # other parts named with one: "x and y as decimal fractions" says it of both
        joined = (rf"(?:[\"'`]?(?:\s*,\s*(?:and\s+)?|\s+and\s+)[\"'`]?(?:{'|'.join(others)})\b)*" if others else "")
        # a clause ends at a sentence end, a semicolon, a line break, or where another part is named
        clause_end = r"(?<!\d)\.(?!\d)(?=\s|$)|[;\n]" + (
            rf"|[\"'`]?\b(?:{'|'.join(others)})\b{joined}[\"'`]?{_ASIDE}\s+{_SAID}\s" if others else "")
        end = tokens[i + 1].start() if i + 1 < len(tokens) else len(text)
        after = masked[t.end():end]
        # a "where …" after the parts speaks of them all: each part takes from it only the
        # clause that names it (below), and the precision it gives all of them (``_overall``)
        stop = re.search(clause_end + r"|\bwhere\b", after)
        after = after[: stop.start()] if stop else after
        own = []
        for name in refs[i]:
            # what the format instruction (from the first part on) says of it: the question's
            # own sentences before it speak of the data ("some rows are duplicates"), not the answer
            for m in re.finditer(rf"(?<![\w.@\[])[\"'`]?{re.escape(name)}\b{joined}[\"'`]?{_ASIDE}\s+{_SAID}\s",
                                 masked[first:]):
                tail = masked[first + m.end():]
                cut = re.search(clause_end, tail)
                own.append(tail[: cut.start() if cut else 200])
        holder_words = t.group(2) if t.group(2).strip().lower() not in _META_VALUES else ""
        out.append(" ".join([after, *own]).strip() + " | " + holder_words)
    return out


def _overall(text: str) -> Precision | None:
    """The precision said of the question as a whole: the one precision it states (several
    different ones belong to parts)."""
    found = [p for p in read_precisions(without_tokens(text)) if not p.whole]
    digits = {(p.kind, p.digits) for p in found}
    return found[0] if len(digits) == 1 else None


def _kind_and_precision(description: str) -> tuple[str, Precision | None]:
    """A part's kind and the precision its description asks: a whole-number precision makes a
    number (or an unread kind) a count, any other precision makes an unread kind a number."""
    kind = _kind(description)
    own = read_precision(description)
    if own is not None and own.whole and kind in ("any", "number"):
        kind = "count"
    elif own is not None and kind == "any":
        kind = "number"                   # digits asked of it: a number
    return kind, own


def _holder(holder: str) -> str:
    """A placeholder that is one plain word (``@higher_group[colour]``), which
    :func:`with_columns` may find as a column's whole name. Words that only say "a value" or
    "a name" do not count."""
    word = holder.strip().strip("\"'`").lower()
    return word if re.fullmatch(r"[a-z][\w.]*", word) and word not in _META_VALUES | _CUE_WORDS else ""


def _closed(text: str, tokens: list[re.Match[str]]) -> AnswerSpec:
    overall = _overall(text)
    parts: list[Part] = []
    for order, (t, seg) in enumerate(zip(tokens, _descriptions(text, tokens))):
        kind, own = _kind_and_precision(seg)
        allowed = _listing(seg.split(" | ")[0]) if kind in ("any", "label") else ()
        if not allowed and kind in ("any", "label"):
            listed, allowed = _placeholder_listing(t.group(2))
            kind = listed or kind
        kind = "label" if allowed else kind
        decimals = 0 if kind == "count" else (own.digits if own is not None and own.kind == "decimals"
                                              and kind in ("any", "number", "list") else None)
        described = seg.split(" | ")[0].strip(" ,")
        if decimals is None and (kind == "number" or not described) and kind != "date" and overall is not None \
                and overall.kind == "decimals":
            decimals = overall.digits     # "@b[value] @a[value], both to 4 decimals"
        parts.append(Part(t.group(1), kind, decimals, allowed, order, _truth(seg), _percent(seg),
                          holder=_holder(t.group(2)) if kind in ("any", "label") and not allowed else "",
                          separator=read_separator(seg)))
    # "which of A, B and C": the one part that names something takes one of them
    chosen = _which_of(without_tokens(text))
    naming = [i for i, p in enumerate(parts) if p.kind in ("any", "label") and not p.allowed]
    if chosen and len(naming) == 1:
        parts[naming[0]] = replace(parts[naming[0]], kind="label", allowed=chosen)
    if len(parts) == 1 and parts[0].kind == "any":
        parts[0] = replace(parts[0], subject=_subject(text))
    # a sentence that shows only a metasyntactic token ("write each part as `@name[value]`")
    # describes the format: the program is asked the question without it
    names = {t.group(1) for t in tokens}
    templates = [m.start() for m in _TOKEN.finditer(text) if m.group(1) not in names]
    asked = ""
    if templates:
        real = [t.start() for t in tokens]
        bounds = [0] + [m.end() for m in re.finditer(r"(?<=[.!?])\s+(?=\S)|\n+", text)] + [len(text)]
        alone = [i for i in templates if not any(a <= i < b and any(a <= r < b for r in real)
                                                 for a, b in zip(bounds, bounds[1:]))]
        asked = _without_sentences(text, alone) if alone else ""
    return AnswerSpec(PARTS, tuple(parts), overall, "syntax", asked)


def _line(text: str, answers: list[re.Match[str]]) -> AnswerSpec:
    """One ``Answer:`` line. Its literal alternatives (``Answer: yes`` or ``Answer: no``) are its
    allowed values; its placeholder and the rest of its sentence describe it."""
    literals: list[str] = []
    described: list[str] = []
    rules: list[str] = []           # the format's rules after a placeholder: how values are written
    for m in answers:
        rest = m.group(1)
        b = _BRACKETED.match(rest)
        if b:
            inner = next((g for g in b.groups() if g is not None), "").strip()
            described.append(inner if inner.lower() not in _META_VALUES else "")
            rules.append(re.split(r"(?<!\d)\.(?!\d)(?=\s|$)", rest[b.end():], maxsplit=1)[0])
            # what follows the placeholder on its line is a rule of the format, for every
            # answer ("…, a list as comma-separated values"): only a clause that names the
            # placeholder says what this one holds ("where {answer} is a whole number")
            if re.fullmatch(r"[\w.]+", inner):
                after = text[m.start(1) + b.end():]           # the text after the placeholder
                for said in re.finditer(rf"(?<![\w.@\[])[\"'`{{<\[]?{re.escape(inner)}[\"'`}}>\]]?{_ASIDE}\s+{_SAID}\s",
                                        after):
                    described.append(re.split(r"(?<!\d)\.(?!\d)(?=\s|$)|[;\n]", after[said.end():], maxsplit=1)[0])
            continue
        lit = _LITERAL.match(rest)
        if lit and lit.group(1).lower() not in _META_VALUES:
            literals.append(lit.group(1))
            described.append(rest[lit.end():])
        else:
            described.append(rest)
    # the sentence the Answer: syntax sits in (up to its end) says what the line holds
    description = " ".join(re.split(r"(?<!\d)\.(?!\d)(?=\s|$)", d, maxsplit=1)[0] for d in described)
    precision = read_precision(text)
    literals = list(dict.fromkeys(literals))
    low = {v.lower() for v in literals}
    if len(literals) >= 2 and (low <= {"yes", "no"} or low <= {"true", "false"}):
        part = Part(ANSWER, "yesno", truth=_spelled(" ".join(literals)) if low <= {"true", "false"} else "yes")
        return AnswerSpec(LINE, (part,), precision, "syntax")
    if len(literals) >= 2:
        return AnswerSpec(LINE, (Part(ANSWER, "label", allowed=tuple(literals)),), precision, "syntax")
    kind, own = _kind_and_precision(description)
    if any(_plural(d) for d in described):
        kind = "list"                     # <three site codes>, <the column names>: several values
    allowed = _listing(description) if kind in ("any", "label") else ()
    if not allowed and kind in ("any", "label"):
        allowed = _which_of(text)
    decimals = 0 if kind == "count" else (precision.digits if precision is not None and precision.kind == "decimals"
                                          and kind in ("any", "number", "list") else None)
    part = Part(ANSWER, "label" if allowed else kind, decimals, allowed, 0, _truth(" ".join([description, *rules, text[answers[0].start():]])),
                _percent(description), _subject(text) if kind == "any" else "",
                separator=read_separator(" ".join([description, *rules])),
                items=_items(text) if kind in ("any", "label", "list") else None)
    # an Answer: sentence that says nothing of this answer (a placeholder, a menu of formats)
    # only describes a format: the program is asked the question without it
    says = kind != "any" or bool(allowed) or own is not None
    asked = "" if says else _without_sentences(text, [m.start() for m in answers])
    if part.kind == "any" and not part.allowed and _polar(asked or text):
        part = replace(part, kind="yesno", subject="")      # a yes/no question: its line holds yes or no
    elif part.kind == "any" and not part.allowed and _personal(asked or text):
        part = replace(part, kind="label")                  # "who …?": its line holds a name
    # an empty pair of brackets in the instruction shows what a list is written inside; a pair
    # around an ellipsis may follow the name of the call that makes a list (``c(...)``)
    marks = _LIST_MARKS.search(text[answers[0].start():])
    shown = ("", "")
    if marks and marks.group(2) + marks.group(3) in ("[]", "()"):
        shown = ((marks.group(1) or "") + marks.group(2), marks.group(3))
    return AnswerSpec(LINE, (part,), precision, "syntax", asked, list_marks=shown)


#: the brackets a list is written inside, as an instruction shows them: empty (``[ ]``), or
#: around an ellipsis after a call's name (``c(...)``, ``list(…)``)
_LIST_MARKS = re.compile(r"(?<![\w@\]])(?:\b([A-Za-z]\w{0,11})(?=[(\[]\s*(?:\.\.\.|…)))?(\[|\()\s*(?:\.\.\.|…)?\s*(\]|\))")


def _plural(placeholder: str) -> bool:
    """Whether a placeholder names several things: its last word is a plural noun after a number
    or an article ("three site codes", "the column names", "2 store numbers"), not a word that
    only ends in s ("the status", "yes or no")."""
    words = re.findall(r"[A-Za-z]+|\d+", placeholder.lower())
    if len(words) < 2 or not re.fullmatch(r"[a-z]{3,}(?<![su])s", words[-1]) or words[-1] in _META_VALUES:
        return False
    return words[0].isdigit() or words[0] in _COUNTED


#: the words that open a placeholder naming several things
_COUNTED = frozenset({"the", "all", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                      "several", "some", "top", "both"})


def _without_sentences(text: str, at: list[int]) -> str:
    """``text`` without the sentences that hold any of the positions ``at``."""
    kept = [text[a:b] for a, b in _sentence_bounds(text, ".!?") if not any(a <= i < b for i in at)]
    return "".join(kept).strip()


#: "e.g." and "i.e." read as one word (same length), so their points end no sentence
_ABBREVIATION = re.compile(r"\b([eEiI])\.([gGeE])\.")


def read_spec(question: str) -> AnswerSpec:
    """The answer ``question`` asks for."""
    spec = _read(_ABBREVIATION.sub(r"\1\2: ", question or ""))
    if spec.asked:          # the question as written, the format sentences left out
        spec = replace(spec, asked=_READ_AS_WORD.sub(r"\1.\2.", spec.asked))
    if spec.template is not None:
        spec = replace(spec, template=_after_abbreviation(spec.template))
    return spec


#: "e.g." and "i.e." as :data:`_ABBREVIATION` rewrites them
_READ_AS_WORD = re.compile(r"\b([eEiI])([gGeE]): ")


def _after_abbreviation(template: Template) -> Template:
    """``template`` without the "e.g." or "i.e." that introduces it: the abbreviation shows the
    form (``e.g. final_result <- ...``), it is no text of the answer line."""
    found = list(_READ_AS_WORD.finditer(template.opening))
    if not found:
        return template
    cut = found[-1].end()
    rest = template.opening[cut:].lstrip()
    start = template.span[0] + len(template.opening) - len(rest)
    return replace(template, opening=rest, span=(start, template.span[1]))


def _read(text: str) -> AnswerSpec:
    tokens = _tokens(text)
    if tokens:
        return _closed(text, tokens)
    shown_object = read_object(text, lambda words: bool(_kinds(words)))
    if shown_object is not None:
        # an object of named values: read as the same parts written ``@key[placeholder]``
        start, end = shown_object.span
        parts = " ".join(f"@{k}[{h}]" for k, h in zip(shown_object.keys, shown_object.holders))
        text = f"{text[:start]}{parts}{text[end:]}"
        return replace(_closed(text, _tokens(text)), as_object=True)
    shown = read_template(text)
    answers = list(_ANSWER.finditer(text))
    if shown is not None and not answers:
        # a form without the word "Answer" (``\\boxed{}``, ``<answer></answer>``, ``Result: <x>``):
        # read as the same line written ``Answer: <…>``, then written in its own form
        start, end = shown.span
        text = f"{text[:start]}Answer: <{shown.inner}>{text[end:]}"
        answers = list(_ANSWER.finditer(text))
    if answers:
        spec = _line(text, answers)
        return replace(spec, template=shown) if shown is not None else spec
    precision = read_precision(text)
    allowed = _which_of(text)
    part = Part(ANSWER, "label" if allowed or _personal(text) else "yesno" if _polar(text) else "any",
                precision.digits if precision is not None and precision.kind == "decimals" else None,
                allowed, subject="" if allowed else _subject(text), items=_items(text))
    return AnswerSpec(PROSE, (part,), precision, "words", form_in_words=len(sentences(text)) > 1)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` that hold a word (a colon ends one too: "Format: …")."""
    return [text[a:b] for a, b in _sentence_bounds(text, ".!?:") if re.search(r"\w", text[a:b])]


def _sentence_bounds(text: str, enders: str) -> list[tuple[int, int]]:
    """Where the sentences of ``text`` start and end: after any of ``enders`` and a space, and at
    every line break."""
    cuts = [0] + [m.end() for m in re.finditer(rf"(?<=[{re.escape(enders)}])\s+(?=\S)|\n+", text)] + [len(text)]
    return list(zip(cuts, cuts[1:]))


#: the verbs that open a yes/no question in English ("Is …?", "Do …?", "Could …?")
_AUXILIARY = frozenset({"is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could",
                        "will", "would", "should", "shall", "may", "might", "must", "isn't", "aren't", "doesn't",
                        "don't", "didn't", "wasn't", "weren't"})


def _polar(text: str) -> bool:
    """Whether the question asked last is a yes/no question: its sentence opens (after a joining
    word) with an auxiliary verb ("Were there more arrests in 2002 than in 1997?") and offers no
    alternatives ("Is the mean or the median higher?" asks which)."""
    asked = [q for q in re.findall(r"[^.!?\n]*\?", text) if q.strip()]
    if not asked:
        return False
    last = asked[-1].strip().strip("*_\"'`")
    first = _opening_word(last)
    return first in _AUXILIARY and not re.search(r"\bor\b", last, re.I)


#: the pronouns that ask who someone is: the answer names them
_PERSONAL = frozenset({"who", "whom", "whose"})
#: a word joining a follow-up question to the one before it ("And who …?")
_JOINING = frozenset({"and", "so", "then", "but", "also", "now", "ok", "okay"})


def _personal(text: str) -> bool:
    """Whether the question asked last asks who: its sentence opens (after a joining word) with
    "who", "whom" or "whose" ("Who has won at Boston more often than anyone else?"). The
    answer is a name, so a count bound there (how often they won) goes back."""
    asked = [q for q in re.findall(r"[^.!?\n]*\?", text) if q.strip()] or sentences(text)[:1]
    if not asked:
        return False
    return _opening_word(asked[-1]) in _PERSONAL


def _opening_word(sentence: str) -> str:
    """The word a question opens with, in small letters, after the words joining it to the one
    before ("And was that state's rate above …?": ``was``); "" for none."""
    words = [w.lower() for w in re.findall(r"[A-Za-z']+", sentence)[:4]]
    while words and words[0] in _JOINING:
        words = words[1:]
    return words[0] if words else ""


# -- grounding in the data --------------------------------------------------------------------
def _column_words(name: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(name))
    return {w.lower() for w in re.findall(r"[A-Za-z]+", spaced)}


_TEXT_TYPES = ("object", "str", "string", "category")


def with_columns(spec: AnswerSpec, columns: Mapping[str, str]) -> AnswerSpec:
    """``spec`` with a part tied to the text column its values come from, made a label of it:
    the answer is a name from that column, not a row label or an id.

    * a part of the named-parts syntax is tied by a column's whole name only: its placeholder
      (``@higher_group[colour]``), its own name (``@region[…]``), or, for a part already read as
      a label, the last word of its name (``@older_gender[…]``). A name that is a column of
      numbers or dates ties nothing (``@mean_age[age]`` stays a number);
    * a part whose kind is open and whose subject names a text column ("which player" over a
      ``PLAYER_NAME`` column) is tied to the column that reads as the name.

    ``columns`` maps each column to its dtype as pandas prints it."""
    parts = list(spec.parts)
    changed = False
    by_name = {str(c).lower(): c for c in columns}
    for i, part in enumerate(parts):
        if part.column or part.allowed or part.kind not in ("any", "label"):
            continue
        exact = [part.holder, part.name.lower() if part.name != ANSWER else ""]
        if part.kind == "label" and "_" in part.name:
            exact.append(part.name.lower().rsplit("_", 1)[1])
        found = [by_name[n] for n in exact if n and n in by_name]
        if found:
            column = found[0]
            if str(columns[column]).startswith(_TEXT_TYPES):
                parts[i] = replace(part, kind="label", column=str(column))
                changed = True
            continue
        if part.kind != "any" or not part.subject:
            continue
        word = part.subject
        stems = {word, word[:-1] if word.endswith("s") and len(word) > 3 else word,
                 word[:-3] + "y" if word.endswith("ies") and len(word) > 4 else word}      # "countries": country
        named = [c for c in columns if stems & _column_words(c)]
        text = [c for c in named if str(columns[c]).startswith(_TEXT_TYPES)]
        if text:
            # the column that reads as the name: "player_name" over "player_team"
            best = sorted(text, key=lambda c: ("name" not in _column_words(c), len(str(c))))[0]
            parts[i] = replace(part, kind="label", column=str(best))
            changed = True
    return replace(spec, parts=tuple(parts)) if changed else spec
