"""The form a question asks its answer in (pure).

Analysts (and benchmarks) state the form in the question: named closed-form parts
(``@mean_fare[value]``), a final ``Answer: <value>`` line, "rounded to two decimal places",
"as a whole number", "as a percentage", "yes or no", "a comma-separated list". :func:`read_form`
turns that text into slots, each with the kind of value it holds and the rounding it asks for,
so code (not the model) writes the digits.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Slot", "AnswerForm", "read_form", "FREE", "ANSWER_LINE"]

#: the three styles: named parts, one ``Answer:`` line, or free prose
FREE = "free"
CLOSED = "closed"
ANSWER_LINE = "line"

_WORDS = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8}
_COUNT = r"(\d|zero|one|two|three|four|five|six|seven|eight)"

#: ``@name[placeholder]``
_CLOSED = re.compile(r"@([A-Za-z_][\w.]*)\[([^\]\n]{0,80})\]")
_ANSWER_LINE = re.compile(r"\bAnswer\s*:\s*(?:<[^>\n]{0,60}>|\[[^\]\n]{0,60}\]|\.\.\.|…|value\b|X\b)?", re.I)
_ASKS_LINE = re.compile(r"(?:line|end|finish|final|last)[^.\n]{0,60}\bAnswer\s*:", re.I)

_DECIMALS = (
    re.compile(rf"\b{_COUNT}\s*(?:decimal|d\.?p\b|digits?\s+after)", re.I),
    re.compile(rf"\bround(?:ed|ing)?\b[^.;\n]{{0,40}}?\bto\s+{_COUNT}\s+(?:decimal|places|digits)", re.I),
    re.compile(r"\bto\s+the\s+nearest\s+(hundredth|tenth|thousandth)", re.I),
)
_NEAREST = {"tenth": 1, "hundredth": 2, "thousandth": 3}
_INTEGER = re.compile(r"\b(?:whole\s+number|integer|nearest\s+(?:whole|integer|unit)|no\s+decimals?|"
                      r"round(?:ed)?\s+(?:down|up)?\s*to\s+(?:an?\s+)?(?:whole|integer))", re.I)
_COUNT_WORDS = re.compile(r"^\s*(?:how\s+many|number\s+of|count)\b", re.I)
#: asked as a percentage; not "percentile", not a value such as "the 5% level"
_PERCENT = re.compile(r"\b(?:percent(?:age)?s?|per\s*cent)\b|(?<![\d.])(?<![\d.]\s)%", re.I)
#: the answer line's own alternatives: "`Answer: yes` or `Answer: no`", "`Answer: E7` or `Answer: STD`"
_LINE_VALUE = re.compile(r"\bAnswer\s*:\s*[`'\"]?([A-Za-z0-9][\w.+-]*)(?=[`'\"]?(?:\s*(?:,|or\b|\.|$)))", re.I)
_PLACEHOLDERS = frozenset({"value", "x", "n", "number", "answer", "the", "your", "a", "an"})
_OR = r"[\"'`]?\s*(?:/|or|,)\s*[\"'`]?"
_BOOL = re.compile(rf"\b(?:yes{_OR}no|no{_OR}yes|true{_OR}false|false{_OR}true|boolean)\b", re.I)
_TRUE_FALSE = re.compile(rf"\btrue{_OR}false|false{_OR}true|boolean", re.I)
_LIST = re.compile(r"\b(?:comma[- ]separated|comma[- ]delimited|separated\s+by\s+commas|a\s+list|as\s+a\s+list|"
                   r"list\s+of|list\s+the)\b", re.I)
_TEXT = re.compile(r"\b(?:name|string|label|category|text|which\s+\w+)\b", re.I)
_FLOAT = re.compile(r"\b(?:float|decimal\s+number|real\s+number)\b", re.I)


@dataclass(frozen=True)
class Slot:
    """One value the answer must state. ``name`` is the closed-form name ("" for the answer line)."""

    name: str
    kind: str = "any"           # number | integer | percent | bool | text | list | any
    decimals: int | None = None
    #: how a yes/no value is written: "yes" (Yes/No) or "true" (True/False)
    truth: str = "yes"
    placeholder: str = ""
    #: the values the question allows ("as night, morning, afternoon or evening"), as it writes them
    options: tuple[str, ...] = ()

    def label(self) -> str:
        return f"@{self.name}[…]" if self.name else "Answer:"


@dataclass(frozen=True)
class AnswerForm:
    style: str                  # closed | line | free
    slots: tuple[Slot, ...] = ()
    #: precision the question states for numbers in general (free style and unnamed values)
    decimals: int | None = None

    def print_instruction(self) -> str:
        """How a program must print the answer (for the model's prompt)."""
        if self.style == CLOSED:
            lines = []
            for s in self.slots:
                how = _slot_hint(s)
                lines.append(f"print(f\"@{s.name}[{{{s.name}}}]\")" + (f"  # {how}" if how else ""))
            return ("Finish by printing exactly these lines, one per value, each computed in the code:\n"
                    + "\n".join(lines))
        if self.style == ANSWER_LINE:
            how = _slot_hint(self.slots[0]) if self.slots else ""
            return ("Finish by printing the final line as `print(f\"Answer: {answer}\")`"
                    + (f" ({how})." if how else "."))
        how = f" Round numbers to {self.decimals} decimal places." if self.decimals is not None else ""
        return ("Finish by printing one short sentence that answers this question (only this one) with the "
                f"computed values (f-string).{how}")


def _slot_hint(slot: Slot) -> str:
    if slot.kind == "integer":
        return "a whole number"
    if slot.kind == "bool":
        return "True or False" if slot.truth == "true" else "Yes or No"
    if slot.kind == "list":
        return "comma-separated values"
    if slot.options:
        return "one of " + ", ".join(slot.options)
    parts = []
    if slot.kind == "percent":
        parts.append("a percentage from 0 to 100")
    if slot.decimals is not None:
        parts.append(f"rounded to {slot.decimals} decimal place{'s' if slot.decimals != 1 else ''}")
    return ", ".join(parts)


_OPTION = r"[A-Za-z0-9][\w+\-/]*"
_OPTIONS = rf"((?:{_OPTION}\s*,\s*)*{_OPTION}\s*,?\s+or\s+{_OPTION})(?![\w+\-/])"
#: words that make "as … or …" a kind, not a list of values ("as an integer or a float", "yes or no")
_NOT_OPTIONS = frozenset({"a", "an", "the", "number", "numbers", "integer", "integers", "float", "decimal",
                          "percentage", "percent", "text", "name", "names", "string", "value", "values",
                          "yes", "no", "true", "false", "list", "label", "labels", "none", "null"})


def _options(text: str, name: str = "") -> tuple[str, ...]:
    """The values a slot may take when the question lists them: ``daypart as night, morning,
    afternoon or evening`` (for the part ``name``), ``Answer: <north, south or west>``."""
    lead = (rf"\b{re.escape(name)}[\"'`]?\s+(?:as|is|being|=|:|should\s+be|must\s+be)" if name
            else r"\bAnswer\s*:\s*[<\[`\"']?")
    m = re.search(rf"{lead}\s*(?:one\s+of\s+|either\s+)?[\"'`]?{_OPTIONS}", text)
    if not m:
        return ()
    return _listed_names(m.group(1))


def _listed_names(listing: str) -> tuple[str, ...]:
    """``"night, morning or evening"``, ``"A, B and C"`` as its names (as written, a sentence's
    full stop left out); () unless it names two or more different values, none of them a word
    for a kind ("integer", "yes")."""
    items = [w.strip().rstrip(".") for w in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", listing)]
    items = [w for w in items if w]
    if len(items) < 2 or any(w.lower() in _NOT_OPTIONS for w in items) or len(set(items)) != len(items):
        return ()
    return tuple(items)


_NAME = r"[A-Za-z0-9][\w+\-/.]*"
_NAMES = rf"((?:{_NAME}\s*,\s*)+{_NAME},?\s+(?:and|or)\s+{_NAME}|{_NAME}\s+(?:and|or)\s+{_NAME})"
#: "Which of A, B and C …", "Of A, B or C, which …": the question names what the answer may be
_WHICH_OF = (re.compile(rf"\b[Ww]hich\s+(?:one\s+)?of\s+(?:the\s+(?:columns?|variables?|measures?|fields?)\s+)?{_NAMES}"),
             # a sentence that opens with the list: not "the correlation of price and quantity, which …"
             re.compile(rf"(?:^|[.?!:;]\s+)(?:Of|Among)\s+{_NAMES}\s*,\s*which\b"))


def _which_of(text: str) -> tuple[str, ...]:
    """The names a "which of A, B and C" question chooses among (as it writes them), or ()."""
    for rx in _WHICH_OF:
        m = rx.search(text)
        names = _listed_names(m.group(1)) if m else ()
        if names:
            return names
    return ()


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _WORDS[word.lower()]


def _decimals(text: str) -> int | None:
    for rx in _DECIMALS:
        m = rx.search(text)
        if m:
            word = m.group(1).lower()
            return _NEAREST[word] if word in _NEAREST else _count(word)
    return None


def _kind(text: str, *, question: str = "") -> tuple[str, int | None, str]:
    """(kind, decimals, truth vocabulary) of the value a piece of instruction text describes."""
    decimals = _decimals(text)
    truth = "true" if _TRUE_FALSE.search(text) else "yes"
    if _BOOL.search(text):
        return "bool", None, truth
    if _LIST.search(text):
        return "list", decimals, truth
    if decimals is None and _INTEGER.search(text):
        return "integer", 0, truth
    if _PERCENT.search(text):
        return "percent", decimals, truth
    if decimals is not None or _FLOAT.search(text):
        return "number", decimals, truth
    if _TEXT.search(text):
        return "text", None, truth
    return "any", None, truth


def _segments(text: str, matches: list[re.Match[str]], rest: str) -> list[str]:
    """For each closed-form part: the instruction text that describes it — its own clause
    (``dof as an integer``), else what follows it up to the next part and any sentence elsewhere
    that names its placeholder (``where "x" is …``). ``rest`` is ``text`` without its parts."""
    out = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        seg = text[m.end():end]
        seg = re.split(r"(?<!\d)\.(?!\d)\s", seg, maxsplit=1)[0] if i + 1 == len(matches) else seg
        own = _own_clause(rest, m.group(1))
        if own is not None:        # "…, with chi_sq to 2 decimals; dof as an integer": its own words
            out.append(own)
            continue
        holder = m.group(2).strip().strip("\"'")
        extra = ""
        if holder and holder.lower() not in ("value", "answer", "…", "..."):
            for mm in re.finditer(rf"[\"'`]?{re.escape(holder)}[\"'`]?\s+(?:is|are|should|must|will|=|:)", rest):
                tail = rest[mm.end():]
                stop = re.search(r"(?<!\d)[.;](?!\d)|\band\s+[\"'`]", tail)
                extra += " " + tail[: stop.start() if stop else 200]
        out.append(seg if not extra else f"{extra} {seg}")
    return out


def _own_clause(rest: str, name: str) -> str | None:
    """What the question (``rest``: without its parts) says of the part ``name`` in a clause of
    its own (``dof as an integer``, ``b to 4 decimals``), up to the next clause; None when it has
    none."""
    m = re.search(rf"(?<![\w.@\[]){re.escape(name)}[\"'`]?\s+(?:as|to|in|rounded|should|must|is|are|=|:)\s", rest)
    if not m:
        return None
    tail = rest[m.end():]
    stop = re.search(r"(?<!\d)[.;](?!\d)|\n", tail)
    return tail[: stop.start() if stop else 200]


def read_form(question: str) -> AnswerForm:
    """The form ``question`` asks its answer in."""
    text = question or ""
    closed = list(_CLOSED.finditer(text))
    # the precision stated for the question as a whole: outside the parts' own instructions
    overall = _decimals(text[: closed[0].start()] if closed else text)
    if closed:
        # "… @b[value] @r2[value], both to 4 decimals": said after the parts, of them all
        after = re.search(r"\b(?:both|all|each|every\s+\w+)\b[^.;\n]{0,30}", text[closed[-1].end():], re.I)
        said = _decimals(after.group(0)) if after else None
        overall = said if said is not None else overall
        rest = _CLOSED.sub(" ", text)
        slots = []
        seen: set[str] = set()
        chosen = _which_of(rest)
        for m, seg in zip(closed, _segments(text, closed, rest)):
            name = m.group(1)
            if name in seen:
                continue
            seen.add(name)
            kind, decimals, truth = _kind(seg)
            if kind == "any":        # the placeholder may say it: yes_or_no, count, percentage
                kind, decimals, truth = _kind(m.group(2).replace("_", " "))
            if kind in ("any", "number", "percent") and decimals is None and overall is not None:
                decimals = overall       # "any" stays any: a name is written as it is
            options = _options(rest, name) if kind in ("any", "text") else ()
            slots.append(Slot(name, "text" if options else kind, decimals, truth, m.group(2).strip(), options))
        # "which of A, B and C": the one part that names something (not a number) is one of them
        naming = [i for i, slot in enumerate(slots) if slot.kind in ("any", "text") and not slot.options]
        if chosen and len(naming) == 1:
            slot = slots[naming[0]]
            slots[naming[0]] = Slot(slot.name, "text", slot.decimals, slot.truth, slot.placeholder, chosen)
        return AnswerForm(CLOSED, tuple(slots), overall)
    if _ASKS_LINE.search(text) or _ANSWER_LINE.search(text.strip().splitlines()[-1] if text.strip() else ""):
        kind, decimals, truth = _kind(text)
        if kind in ("any", "text") and _COUNT_WORDS.search(text):
            kind, decimals = "integer", 0
        alternatives = list(dict.fromkeys(v for v in _LINE_VALUE.findall(text) if v.lower() not in _PLACEHOLDERS))
        words = {v.lower() for v in alternatives}
        if len(alternatives) >= 2 and (words <= {"yes", "no"} or words <= {"true", "false"}):
            return AnswerForm(ANSWER_LINE, (Slot("", "bool", None, "true" if "true" in words or "false" in words
                                                 else "yes"),), overall)
        if len(alternatives) >= 2:
            return AnswerForm(ANSWER_LINE, (Slot("", "text", options=tuple(alternatives)),), overall)
        options = (_options(text) or _which_of(text)) if kind in ("any", "text") else ()
        return AnswerForm(ANSWER_LINE, (Slot("", "text" if options else kind, decimals, truth, options=options),),
                          overall)
    return AnswerForm(FREE, (), overall)
