"""The line a one-value answer is written on, as the question shows it (pure).

A question may show the literal form of its answer line: ``Answer: <value>``, ``Final answer:
{x}``, ``\\boxed{}``, ``<answer></answer>``, ``#### <number>``. :func:`read_template` finds
that form by its syntax — literal text around a placeholder, a pair of tags, a LaTeX command
with an empty or placeholder argument — never by the words of the instruction around it; the
answer is then written in the same form, with the same text around the value
(:func:`Template.write`), and a reply written in it is read back (:func:`Template.values`).
"""
from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass
from typing import Callable

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Keyword
from pygments.util import ClassNotFound

__all__ = ["Template", "DEFAULT", "read_template", "ObjectForm", "read_object", "object_line", "object_values"]


@dataclass(frozen=True)
class Template:
    """The text before and after the value on the answer line."""

    opening: str = "Answer: "
    closing: str = ""
    #: what the question put where the value goes (``value`` in ``<value>``), "" for nothing
    inner: str = ""
    #: where the form stands in the question (start, end), quotes included
    span: tuple[int, int] = (0, 0)

    def write(self, text: str) -> str:
        """The answer line of ``text``; a value that opens with the form's own label (a program
        that bound the string ``result: 12``) is written once under it, not as ``result: result: 12``."""
        label = self.opening.rsplit("\n", 1)[-1].strip()
        if label and label[-1] in ":=" and text[:len(label)].lower() == label.lower():
            text = text[len(label):].lstrip()
        elif self.opening.strip() and self.closing.strip() and "\n" not in text:
            # a value already written in the form (a program that printed ``SELECT 76 AS x;``)
            inside = self.values(text)
            if len(inside) == 1 and not self.without(text).strip(" \t;.,"):
                text = inside[0]
        return f"{self.opening}{text}{self.closing}"

    def _pattern(self) -> re.Pattern[str]:
        opening = re.escape(self.opening.strip()).replace(r"\ ", r"\s*")
        closing = re.escape(self.closing.strip()).replace(r"\ ", r"\s*")
        quote = self.opening.strip()[-1:]
        if quote in ("'", '"') and self.closing.strip()[:1] == quote and len(self.opening.strip()) > 1:
            # a quoted slot in a line of code is read back with its quotes or without them
            opening, closing = opening[:-len(re.escape(quote))] + f"{quote}?", f"{quote}?" + closing[len(re.escape(quote)):]
        if self.opening.strip().lower().rstrip("*").endswith("answer:") or not closing:
            # a label line: the label (bold or not) and the rest of its line
            label = opening.replace(r"\*", r"\**")
            return re.compile(rf"^[ \t>*_]*{label}\**[ \t]*(.+?)[ \t]*{closing}[ \t]*$", re.I | re.M)
        # a closing "." is not the point of a decimal: "The answer is 12.5."
        return re.compile(rf"{opening}[ \t]*([^\n]*?)[ \t]*{closing}(?![0-9])", re.I)

    def values(self, text: str) -> list[str]:
        """The values ``text`` writes in this form, in order."""
        return [m.group(1) for m in self._pattern().finditer(text or "")]

    def without(self, text: str) -> str:
        """``text`` with what it writes in this form taken out (a form over several lines too)."""
        return self._pattern().sub("", text or "")

    def holds(self, line: str) -> bool:
        """Whether ``line`` is written in this form (an answer line, not the reader's text)."""
        return bool(self._pattern().search(line or ""))


DEFAULT = Template()

#: a span the question quotes: ``…``, "…", “…”, '…' (not an apostrophe inside a word)
_SPANS = re.compile(r"`([^`\n]{1,80})`|\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”|(?<!\w)'([^'\n]{1,80})'(?!\w)")
#: a pair of tags around the value: ``<answer></answer>``, ``<answer>your answer</answer>``
_TAGS = re.compile(r"<([A-Za-z][\w-]{0,20})>([^<>\n]{0,40})</\1>")
#: a LaTeX command taking the value: ``\boxed{}``, ``\boxed{answer}``
_LATEX = re.compile(r"\\([A-Za-z]{2,20})\{([^{}\n]{0,40})\}")
#: a placeholder for the value: ``<value>``, ``{answer}``, ``{{answer}}``, ``[your answer]``,
#: ``$ANSWER``, ``...``, ``___``; the character before it is no part of a word (``df["x"]``, ``f{x}`` and
#: ``a$b`` hold no placeholder)
_HOLDER = re.compile(r"(?<![\w\]}\\{$])(?:<([A-Za-z][\w .,'/-]{0,40})>|\{\{\s*([A-Za-z_][\w .]{0,40}?)\s*\}\}"
                     r"|\{([A-Za-z_][\w .,'/-]{0,40})?\}|\[([A-Za-z][\w .,'/-]{0,40}|\s?)\]|\$([A-Za-z_]\w{0,30})(?!\w)"
                     r"|(\.\.\.|…|_{3,}))")
#: a markdown task-list item's box (``- [x]``, ``* [ ]``): the syntax of a line, not a placeholder
_CHECKBOX = re.compile(r"[ \t]*[-*+][ \t]+\[[ xX]?\]")
#: a symbol that stands for the value when the instruction names it again after the quoted
#: form: ``'The answer is X.' where X is …``
_SYMBOL = re.compile(r"(?<![\w$])([A-Z]{1,12})(?![\w'])")
#: a quoted label and nothing after it: ``'ANSWER: '``, ``"Final answer:"``, or the words that
#: open the line and end in a comma (``"In short,"``): the value follows them
_BARE_LABEL = re.compile(r"[ \t]*((?:[A-Za-z][\w]*[ \t]+){0,3}[A-Za-z][\w]*[ \t]*[:=,])[ \t]*")
#: ``Label: <placeholder>`` (or ``LABEL=<placeholder>``) outside quotes: the label is the word
#: before the colon, with the capitalised words before it ("Final Answer", "FINAL ANSWER")
_MARKED = re.compile(r"(?<![\w*])((?:[A-Z][\w]*[ \t]+)*[A-Za-z][\w]*\**[ \t]*[:=]\**)[ \t]*"
                     r"(?=<[A-Za-z][^<>\n]{0,40}>|\{[A-Za-z_][^{}\n]{0,40}\}|\[[A-Za-z][^\[\]\n]{0,40}\]|_{3,})")


def _wrapped(text: str) -> tuple[str, str, re.Match[str]] | None:
    """The first pair of tags or LaTeX command in ``text`` that takes the value: the text before
    and after the value (``<answer>``, ``</answer>``; ``\\boxed{``, ``}``) and where it stands."""
    m = _TAGS.search(text)
    if m is not None:
        return f"<{m.group(1)}>", f"</{m.group(1)}>", m
    m = _LATEX.search(text)
    if m is not None:
        return f"\\{m.group(1)}{{", "}", m
    return None


def _in_span(text: str, start: int, end: int) -> Template | None:
    """The form a quoted span ``text[start:end]`` shows, if it shows one."""
    inner = text[start:end]
    if "@" in inner and re.search(r"@\w+\[", inner):
        return None                        # named parts: another syntax
    wrapped = _wrapped(inner)
    if wrapped is not None:
        opening, closing, pair = wrapped
        return Template(inner[:pair.start()] + opening, closing + inner[pair.end():], pair.group(2).strip(),
                        (start - 1, end + 1))
    m = _HOLDER.search(inner)
    box = _CHECKBOX.match(inner)
    if box is not None and m is not None and m.end() != box.end():
        box = None
    if box is not None:
        # a task-list item's box is part of the line's opening, not the value's place
        m = _HOLDER.search(inner, box.end())
        if m is None:
            return Template(box.group(0) + " ", "", "", (start - 1, end + 1))
    if m is None:
        return _named_after(text, start, end) or _label_only(inner, start, end)
    opening, closing = inner[:m.start()], inner[m.end():]
    variable = m.group(2) is not None or m.group(5) is not None      # {{name}}, $NAME: a template's own marks
    boxed = box is not None and not opening[box.end():].strip()
    if not variable and not boxed and not re.search(r"[:=#>-]\**\s*$", opening):
        return None                        # not a label before it: words or a value that hold brackets
    held = next((g for g in m.groups() if g is not None), "").strip()
    if opening and not opening.endswith((" ", "\t")) and opening[-1].isalnum():
        opening += " "
    return Template(opening, closing, "" if held in ("...", "…") or held.startswith("___") else held,
                    (start - 1, end + 1))


def _named_after(text: str, start: int, end: int) -> Template | None:
    """The form of a quoted span whose symbol the instruction names again after it: in
    ``'The answer is X.' where X is the number``, ``X`` is where the value goes."""
    inner, after = text[start:end], text[end + 1:end + 120]
    for m in reversed(list(_SYMBOL.finditer(inner))):
        if m.start() > 0 and re.search(rf"(?<![\w$]){m.group(1)}(?![\w'])", after):
            return Template(inner[:m.start()], inner[m.end():], "", (start - 1, end + 1))
    return None


def _label_only(inner: str, start: int, end: int) -> Template | None:
    """The form of a quoted label with nothing after it (``'ANSWER: '``): the value follows it."""
    m = _BARE_LABEL.fullmatch(inner)
    if m is None:
        return None
    label = m.group(1).rstrip()
    return Template(_spaced(label, m.group(0)[m.end(1):]), "", "", (start - 1, end + 1))


def _spaced(label: str, gap: str) -> str:
    """The opening a label makes: a colon takes one space after it; ``=`` is followed by the
    space written after it, if any (``FINAL=<value>``, ``Result = <value>``)."""
    return label + (" " if gap else "") if label.endswith("=") else label + " "


#: a slot for the value written bare in a sentence: an ellipsis, a placeholder in angle brackets
_BARE_SLOT = re.compile(r"\.\.\.|…|<[A-Za-z][\w .,'/-]{0,40}>")
#: a word in capitals, the sentence's own name for the value when it says it again (``<<< SLOT
#: >>>`` "with SLOT replaced by the result")
_CAPS = re.compile(r"(?<![\w$])([A-Z]{3,12})(?![\w'])")
#: the marks of markup: a word that holds one is a part of a form, not of the sentence
_MARKUP = set("[]<>{}()|#*=^/\\~+-_:")
#: punctuation that ends a clause, not a form
_CLAUSE_END = ",.;"


#: a word that opens an aside in parentheses, ``(several``: the sentence goes on, not the form
_ASIDE = re.compile(r"\([^\W\d_]{2,}$")


def _markup(token: str) -> bool:
    return any(c in _MARKUP for c in token.rstrip(_CLAUSE_END))


def _quote(token: str) -> bool:
    """A quotation mark alone, beside a slot: ``'...'`` is a quoted slot in a line of code."""
    return bool(token) and all(c in "'\"" for c in token)


def _keyword(token: str) -> bool:
    """A keyword of a language written beside a quoted slot, in capitals (``SELECT``, ``AS``)."""
    return len(token) >= 2 and token.isalpha() and token.isupper()


def _label(token: str) -> bool:
    """A word and the colon or equals sign that make it a label (``X-Result:``, ``[^ans]:``,
    ``=`` after ``value``)."""
    return token.rstrip(_CLAUSE_END).endswith((":", "="))


@functools.lru_cache(maxsize=32)
def _language(text: str) -> Lexer | None:
    """The lexer of the programming language ``text`` names by a capitalised word
    (``JavaScript``, ``SQL``, ``Rust``), if it names one."""
    for word in dict.fromkeys(re.findall(r"(?<![\w.])[A-Z][\w+#]*", text)):
        try:
            return get_lexer_by_name(word.lower())
        except ClassNotFound:
            continue
    return None


def _declares(language: Callable[[], Lexer | None], word: str, before: str) -> bool:
    """Whether ``word``, just before a label, is a keyword of the named language that opens the
    line of code (``const`` in ``…JavaScript, const answer = ...;``): the language's own lexer
    reads it as a keyword, and it follows the start of the line or the end of a clause."""
    if not word.isalpha() or (before.strip() and before.rstrip()[-1] not in ",:;`'\""):
        return False
    lexer = language()
    return lexer is not None and any(kind in Keyword and text == word for kind, text in lexer.get_tokens(word))


def _around(line: str, start: int, end: int,
            language: Callable[[], Lexer | None] = lambda: None) -> tuple[str, str] | None:
    """The text of a form around a slot at ``line[start:end]``: the words beside it that hold
    markup, out to a label (a word ending in ``:`` or ``=``, or the word before a lone ``=``),
    and past a label only over marks alone (``<!-- result: ...``) or over a keyword of the
    language the text names opening the line of code (:func:`_declares`; the ``;`` that ends
    its statement is then the form's too); None when nothing but the sentence's own words
    stands beside it."""
    lead = re.split(r"(\s+)", line[:start])
    kept = lead[-1]
    if kept and not (_markup(kept) or _quote(kept)):
        return None                        # the slot inside a word of the sentence
    def named(word: str) -> bool:
        return _label(word) and any(c.isalnum() for c in word)

    labelled = bool(kept) and named(kept)
    statement = False
    at = len(lead) - 3
    while at >= 0:
        word = lead[at]
        lone = kept.split()[:1] in (["="], [":"])
        if labelled and any(c.isalnum() for c in word):
            if not statement and _declares(language, word, "".join(lead[:at])):
                kept, statement = word + lead[at + 1] + kept, True
            break
        if not (_markup(word) or (lone and word.isalpha()) or (_keyword(word) and _quote(kept))):
            break
        kept = word + lead[at + 1] + kept
        labelled = labelled or named(word) or lone
        at -= 2
    trail = re.split(r"(\s+)", line[end:])
    closing = trail[0]
    at = 1
    def code(i: int) -> bool:
        # a keyword in capitals between a quoted slot and more markup: ``'...' AS answer_value;``
        return _keyword(trail[i]) and _quote(trail[0]) and i + 2 < len(trail) and _markup(trail[i + 2])

    while (at + 1 < len(trail) and (_markup(trail[at + 1]) or code(at + 1)) and not _label(trail[at + 1])
           and not _ASIDE.match(trail[at + 1])):
        closing += trail[at] + trail[at + 1]
        at += 2
    closing = closing.rstrip(_CLAUSE_END) + (";" if statement and closing.startswith(";") else "")
    if not (_markup(kept) or _markup(closing)):
        return None
    return kept, closing


def _slot_bare(text: str) -> Template | None:
    """A form written in a sentence without quotes around it: a slot (``...``, ``<your
    value>``, or a word in capitals the sentence names again, ``SLOT … with SLOT replaced``)
    with markup beside it (``[result]...[/result]``, ``X-Result: ...``, ``[^ans]: <your
    value>``, ``<<< SLOT >>>``)."""
    text = text or ""
    lines = text.split("\n")
    language = functools.partial(_language, text)
    offset = 0
    for i, line in enumerate(lines):
        slots = list(_BARE_SLOT.finditer(line))
        # a word in capitals that a colon or an equals sign follows is a label (``#+RESULT:``)
        slots += [m for m in _CAPS.finditer(line)
                  if line[m.end():m.end() + 1] not in (":", "=") and _named_later(text, offset + m.start(), m.group(1))]
        shown = _example_value(lines, i)
        slots += [shown] if shown is not None else []
        examples = _example_inline(line)
        slots += list(examples)
        for m in sorted(slots, key=lambda m: m.start()):
            if _quoted_at(text, offset + m.start()):
                continue                   # a quoted form is read as quoted, or not at all
            found = _around(line, m.start(), m.end(), language)
            if m in examples:
                # an example given in a sentence is the form as a whole, when it holds markup
                start, end = examples[m]
                found = (line[start:m.start()], line[m.end():end])
                if not (_markup(found[0]) or _markup(found[1])):
                    continue
            if m is shown and found is None:
                # an example line shown on its own is the form as a whole, words and all
                found = (line[:m.start()].lstrip(), line[m.end():].rstrip())
            if found is not None:
                kept, closing = found
                # a label takes a space after it, unless an example shows how it is spaced
                opening = kept + " " if kept[-1:] in (":", "=") and m not in examples else kept
                return Template(opening, closing, "", (offset + m.start() - len(kept), offset + m.end() + len(closing)))
        offset += len(line) + 1
    return _syntax_named(text)


#: a token of a line's own syntax, named where its line is described: marks, a word, marks
#: (``#define``, ``:value:``, ``#+RESULT:``, ``%answer``); no path, number, or bold text
_SYNTAX_MARKS = "#:%!/\\+|~^&=>"
_SYNTAX = re.compile(rf"[{re.escape(_SYNTAX_MARKS)}]+[A-Za-z][A-Za-z_-]*[#:%!+=]*")


def _syntax_named(text: str) -> Template | None:
    """The opening of a line the instruction describes by its syntax and no slot ("#define
    ANSWER followed by the result", ":value: then a space and the result"): a token of the
    syntax (:data:`_SYNTAX`), with the words in capitals and tokens of syntax written after it,
    and the sentence's own words after them; the value follows on the same line, after a space.
    A marked word alone is a name (a column ``%change``): the token ends in a mark of its own
    (``:value:``) or has a word after it (``#define ANSWER``)."""
    for line_start, line in _lines_at(text):
        tokens = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", line)]
        for i, (at, token) in enumerate(tokens):
            if not _SYNTAX.fullmatch(token) or _quoted_at(text, line_start + at) or _encloses(token, tokens[i + 1:]):
                continue
            run = [token]
            for _, later in tokens[i + 1:]:
                bare = later.rstrip(_CLAUSE_END)
                if not (_keyword(bare) or _SYNTAX.fullmatch(bare)):
                    break
                run.append(bare)
                if bare != later:
                    break                  # the clause ends with it
            if len(run) == 1 and token[-1:].isalpha():
                continue                   # a marked word alone (a column ``%change``) is no line's syntax
            after = tokens[i + len(run):i + len(run) + 1]
            if after and not after[0][1][:1].islower():
                continue                   # the sentence's own words go on after the line's, in small letters
            return Template(" ".join(run) + " ", "", "", (line_start + at, line_start + at + len(" ".join(run))))
    return None


def _encloses(token: str, later: list[tuple[int, str]]) -> bool:
    """Whether the marks that open ``token`` open a pair a later token closes (``||like so||``):
    marks around words, not a line's syntax."""
    marks = token[:len(token) - len(token.lstrip(_SYNTAX_MARKS))]
    return any(w.rstrip(_CLAUSE_END).endswith(marks) and not w.startswith(marks) for _, w in later)


def _lines_at(text: str) -> list[tuple[int, str]]:
    """The lines of ``text``, each with where it starts."""
    found, at = [], 0
    for line in text.split("\n"):
        found.append((at, line))
        at += len(line) + 1
    return found


def _named_later(text: str, at: int, symbol: str) -> bool:
    """Whether ``symbol`` at ``at`` is its first mention outside quotes and the text names it
    again after it ("<<< SLOT >>> with SLOT replaced by the result")."""
    mentions = [m.start() for m in re.finditer(rf"(?<![\w$]){symbol}(?![\w'])", text)]
    bare = [m for m in mentions if not _quoted_at(text, m)]
    return bool(bare) and bare[0] == at and any(m > at for m in mentions)


#: what quotes a stretch of text: backticks (three of them within a line too), straight or curly
#: double quotes; a fenced block over lines of its own shows a form, read as written bare
_QUOTING = re.compile(r"```[^`\n]*```|(?<!`)`(?!`)[^`\n]*(?<!`)`(?!`)|\"[^\"\n]*\"|“[^”\n]*”")


@functools.lru_cache(maxsize=32)
def _quoted_spans(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(m.span() for m in _QUOTING.finditer(text))


def _quoted_at(text: str, at: int) -> bool:
    """Whether ``text[at]`` stands inside a quoted or backticked span."""
    return any(start <= at < end for start, end in _quoted_spans(text))


def _example_value(lines: list[str], i: int) -> re.Match[str] | None:
    """The one number of a short line shown as an example (the line after one that ends in a
    colon, blank lines between): ``(final 42)`` under "finish the way this example finishes:",
    ``Settled on 17.`` (a full stop after the number) under "… would end with this line:"."""
    before = next((ln for ln in reversed(lines[:i]) if ln.strip()), "")
    numbers = list(re.finditer(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)", lines[i]))
    if not before.rstrip().endswith(":") or len(numbers) != 1 or len(lines[i].split()) > 4:
        return None
    return numbers[0]


#: what introduces an example in a sentence, and the example up to the end of its clause
_INLINE_EXAMPLE = re.compile(r"\b(?:for example|for instance|e\.g\.|such as)[ \t]*:?[ \t]+([^\s,;]+(?:[ \t]+[^\s,;]+){0,3})")


def _example_inline(line: str) -> dict[re.Match[str], tuple[int, int]]:
    """The one number of each example line given inside a sentence ("…, for example /answer
    42.", "for example: RESULT >>> 42"), with where the example starts and ends: the example
    is the form, the number where the value goes. Only an example with markup is a form
    (checked by the caller); one that is a number alone ("for example 42") shows none."""
    found: dict[re.Match[str], tuple[int, int]] = {}
    for m in _INLINE_EXAMPLE.finditer(line):
        start, end = m.start(1), m.start(1) + len(m.group(1).rstrip("."))
        numbers = list(_NUMBER.finditer(line, start, end))
        if len(numbers) == 1:
            found[numbers[0]] = (start, end)
    return found


#: a number written alone, not a part of a word or of a longer number
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)")


def read_template(text: str) -> Template | None:
    """The answer line's form as ``text`` shows it, or None when it shows none. A quoted form
    comes first, then a pair of tags or a LaTeX command, then ``Label: <placeholder>``, then a
    slot written bare with markup beside it (:func:`_slot_bare`)."""
    text = text or ""
    for m in _SPANS.finditer(text):
        group = next(i for i in range(1, 5) if m.group(i) is not None)
        found = _in_span(text, m.start(group), m.end(group))
        if found is not None:
            return found
    wrapped = _wrapped(text)
    if wrapped is not None:
        opening, closing, m = wrapped
        return Template(opening, closing, m.group(2).strip(), m.span())
    marked = _MARKED.search(text)
    if marked:
        label = marked.group(1).strip()
        holder = _HOLDER.match(text, marked.end())
        if holder is not None:
            held = next((g for g in holder.groups() if g is not None), "").strip().strip("_")
            return Template(_spaced(label, marked.group(0)[len(marked.group(1)):]), "", held,
                            (marked.start(), holder.end()))
    return _slot_bare(text)


# -- named parts written as one object: {"mean": <value>, "median": <value>} --------------------
@dataclass(frozen=True)
class ObjectForm:
    """An object the question shows, its keys (the parts) and what it puts as each value."""

    keys: tuple[str, ...]
    holders: tuple[str, ...]
    span: tuple[int, int]


#: an object written on one line or several: ``{"mean": <value>, "median": <value>}``
_OBJECT = re.compile(r"\{[^{}]{1,600}\}")
#: one ``"key": value`` pair of it; the value a quoted text, a placeholder, or a bare word or number
_PAIR = re.compile(r"""\s*["']([A-Za-z_][\w.]{0,60})["']\s*:\s*("(?:[^"\\\n]|\\.){0,80}"|'[^'\n]{0,80}'|<[^<>\n]{0,80}>"""
                   r"""|\[[^\[\]\n]{0,80}\]|[^,{}\[\]\n]{1,80}?)\s*(?:,|$)""")


def read_object(text: str, describes: Callable[[str], bool] = lambda _: False) -> ObjectForm | None:
    """The object ``text`` shows for its answer: braces holding nothing but quoted keys, each
    with a value, most of them standing for a value to fill in (``describes`` says whether a
    word describes a value: "number", "yes or no"); None when it shows none."""
    for m in _OBJECT.finditer(text or ""):
        inner = m.group(0)[1:-1].strip()
        keys: list[str] = []
        holders: list[str] = []
        at = 0
        while at < len(inner):
            pair = _PAIR.match(inner, at)
            if pair is None or pair.end() == at:
                break
            keys.append(pair.group(1))
            holders.append(pair.group(2).strip())
            at = pair.end()
        held = sum(_placeholder(h, describes) for h in holders)
        if keys and at >= len(inner) and len(set(keys)) == len(keys) and 2 * held > len(keys):
            return ObjectForm(tuple(keys), tuple(re.sub(r"[\[\]<>\"']", " ", h).strip() for h in holders), m.span())
    return None


def _placeholder(value: str, describes: Callable[[str], bool]) -> bool:
    """Whether an object's value stands for one to fill in (``<number>``, ``[…]``, ``null``,
    ``0.0``, ``""``, "yes or no") rather than being data (``"Male"``, ``1``): a mapping shown in
    a question is not its answer's form."""
    bare = value.strip().strip("\"'").strip()
    if re.fullmatch(r"<[^<>]*>|\[[^\[\]]*\]|\.\.\.|…|null|None|0\.0+|", bare):
        return True
    return describes(bare) or (" " in bare and bare[:1].islower())


def object_line(pairs: list[tuple[str, str | None, object]]) -> str:
    """The answer object on one line, from (key, value as written, value as computed) triples: a
    number as written (its rounding kept), True/False as booleans, a list as an array, a value
    nothing computed as null, anything else as text."""
    return "{" + ", ".join(f"{json.dumps(key)}: {_json(text, raw)}" for key, text, raw in pairs) + "}"


def _json(text: str | None, raw: object) -> str:
    if text is None:
        return "null"
    if text in ("True", "False", "true", "false", "TRUE", "FALSE"):
        return text.lower()
    if isinstance(raw, (list, tuple)):
        return "[" + ", ".join(_json(str(x), x) if not isinstance(x, str) else json.dumps(x) for x in raw) + "]"
    if re.fullmatch(r"-?\d+(?:\.\d+)?", text):
        return text
    return json.dumps(text)


def object_values(text: str) -> tuple[dict[str, object], tuple[int, int]] | None:
    """The last object in ``text`` that reads as JSON or a Python dict, with where it stands."""
    found = None
    for m in _OBJECT.finditer(text or ""):
        body = m.group(0)
        try:
            value = json.loads(body)
        except ValueError:
            try:
                value = ast.literal_eval(body)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
        if isinstance(value, dict):
            found = ({str(k): v for k, v in value.items()}, m.span())
    return found
