"""The answer written from the values a program computed, in the form and precision the spec
asks (pure).

Every computed value is shown. A value that does not fit its part as the spec reads it (a number
where a name was asked, a name outside the listed values) is still written, with one line saying
what did not fit; :func:`retry_message` says it precisely for the one retry a value of clearly
the wrong kind gets. "could not compute" is written only for a part nothing was computed for.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Mapping

from ._program_faults import unpacked_fields
from .column_values import Miss
from .compose import SERIES_FOOTER, Composed, _listed, _number, _unwrap, plain_number
from .numbers import humane_numbers
from .spec import ANSWER, LINE, PARTS, AnswerSpec, Part, truth_word
from .templates import DEFAULT, object_line, object_values
from .values import NAN_REASON, Taken

__all__ = ["Written", "write_part", "write_answer", "retry_message", "nothing_computed", "short_error", "NOT_COMPUTED", "NAN_ADVICE"]

NOT_COMPUTED = "could not compute"
#: what a retry is told when a part came out NaN
NAN_ADVICE = "Drop missing values first (scipy.stats and numpy do not skip them)."

#: more values than this where one number, yes/no or name was asked: a column, not what was asked
_FEW = 10
_TRUE = frozenset({"true", "yes", "y", "t"})
_FALSE = frozenset({"false", "no", "n", "f"})
_ANSWER_LINES = re.compile(r"@[A-Za-z_][\w.]*\[[^\]\n]*\]|^\s*\**Answer\**\s*:", re.I | re.M)


@dataclass(frozen=True)
class Written:
    """A part's value as written; ``note`` says what did not fit, ``clear`` when it is clearly
    the wrong kind (worth a retry), ``misfit`` what it came out as when that is a shape of its
    own the model is told about: ``"empty"``, ``"table"``, ``"date"``, ``"items"`` (another number of
    values than the question counts)."""

    text: str
    note: str = ""
    clear: bool = False
    misfit: str = ""


def _describe(part: Part) -> str:
    if part.allowed:
        return "one of " + ", ".join(part.allowed)
    return {"number": "a number", "count": "a whole number", "label": "a name", "yesno": "yes or no",
            "list": "a list", "date": "a date"}.get(part.kind, "a value")


def _plain(value: float, part: Part) -> str:
    return plain_number(value, part.decimals)


def _match(text: str, allowed: tuple[str, ...]) -> str | None:
    """``text`` as the allowed value it names (spelled as the question spells it), or None."""
    low = text.lower().strip(" .")
    for option in allowed:
        if low == option.lower():
            return option
    named = [o for o in allowed if re.search(rf"(?<![\w+\-/]){re.escape(o.lower())}(?![\w+\-/])", low)]
    longest = max(named, key=len) if named else None
    return longest if longest is not None and sum(len(o) == len(longest) for o in named) == 1 else None


def _item(value: Any, part: Part) -> str:
    if isinstance(value, bool):
        return truth_word(part.truth, value)
    if isinstance(value, (int, float)):
        return _plain(float(value), part)
    number = _number(value) if isinstance(value, str) else None
    return _plain(number, part) if number is not None else _unwrap(value)


def _number_like(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return _number(value) if isinstance(value, str) else None


def _count_of(value: Any) -> int:
    """How many values ``value`` holds: a list's or a mapping's items, a text's comma-separated
    ones, else one."""
    if isinstance(value, (list, tuple, dict)):
        return len(value)
    if isinstance(value, str):
        return len([v for v in re.split(r",|\n", value) if v.strip()]) or 1
    return 1


def write_part(value: Any, part: Part) -> Written:
    """``value`` (JSON data, or text an older program printed) written for ``part``."""
    kind = part.kind
    if isinstance(value, str) and re.match(r"^\s*(?:Index|array|list)?\s*\(?\s*\[", value):
        value = _listed(value)                         # a printed list
    rows = _row_mask(value) if kind == "count" else 0
    if rows:
        # one True/False per row where a count was asked: the count is of the rows it selects
        truths = value.values() if isinstance(value, dict) else value
        return Written(str(sum(bool(t) for t in truths)), f"counted the True values of {rows} True/False values, one per row")
    if isinstance(value, (dict, list, tuple)) and not value:
        # nothing where a value was asked: most often a filter that kept no rows
        return Written("none", "no values (an empty result)", True, "empty")
    printed = isinstance(value, str) and _table_lines(value) >= _TABLE_LINES      # a table: its own misfit
    if part.items and kind in ("any", "label", "list") and not printed and (got := _count_of(value)) != part.items:
        # the question counts what it asks for ("the four modes"): another number of them misses some
        plain = write_part(value, replace(part, items=None))
        return Written(plain.text, f"{got} value{'' if got == 1 else 's'} where {part.items} were asked", True, "items")
    if isinstance(value, dict):
        text = ", ".join(f"{k}: {_item(v, part)}" for k, v in value.items())
        if kind == "label" and len(value) > 1 and all(isinstance(k, str) for k in value) and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values()):
            # names asked for, each with the number it was ranked by: the names, the numbers beside
            return Written((part.separator or ", ").join(value), f"each with its value: {text}")
        if kind in ("any", "list"):
            return Written(text)
        return Written(text, f"several values where {_describe(part)} was asked", False)
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and kind not in ("list", "any"):
            return write_part(value[0], part)
        text = (part.separator or ", ").join(_item(v, part) for v in value)
        if kind in ("number", "count", "yesno") and len(value) > 1:
            # a part described as numbers may hold several; a column of them is no statistic
            return Written(text, f"{len(value)} values where {_describe(part)} was asked", len(value) > _FEW)
        if kind == "label" and len(value) > _FEW:
            # a name (or the few names a question counts) is asked; a column of them is no answer
            return Written(text, f"{len(value)} values where {_describe(part)} was asked", True)
        return Written(text)
    if isinstance(value, bool) or (isinstance(value, str) and _unwrap(value).lower().rstrip(".!") in _TRUE | _FALSE
                                   and kind in ("yesno", "any")):
        flag = value if isinstance(value, bool) else _unwrap(value).lower().rstrip(".!") in _TRUE
        if kind in ("yesno", "any", "label", "list"):
            return Written(truth_word(part.truth, flag),
                           "" if kind in ("yesno", "any") or not part.allowed else f"yes/no where {_describe(part)} was asked")
        return Written(truth_word(part.truth, flag), f"yes/no where {_describe(part)} was asked", False)
    text = _unwrap(value)
    if printed:
        # a printed table (a frame bound whole): no one value, name or list is written so
        return Written(text, f"a table of {_table_lines(value)} lines where {_describe(part)} was asked", True, "table")
    if (kind == "label" and not part.allowed and not part.column and isinstance(value, str)
            and _ISO_DATE.match(value.strip())):
        # a date where a name was asked: the day picked, not its month's or weekday's name (a
        # part tied to a column of dates names its value by the date: "which month" over months)
        return Written(text, f"{text} is a date where {_describe(part)} was asked", True, "date")
    if kind == "label" and part.column and isinstance(value, str):
        # a text for a part tied to a text column is a name whatever its letters ('185', '136A'):
        # whether the column holds it is the column's check (:func:`.column_values.off_column`)
        return Written(text)
    number = _number_like(value)
    if part.allowed:
        chosen = _match(text if number is None else _plain(number, part), part.allowed)
        if chosen is not None:
            return Written(chosen)
        shown = _plain(number, part) if number is not None else text
        return Written(shown, f"{shown} is not {_describe(part)}", True)
    if number is not None:
        shown = _plain(number, part)
        if kind == "count":
            if float(number).is_integer():
                return Written(str(int(number)))
            return Written(plain_number(number), f"{plain_number(number)} is not a whole number", True)
        if kind == "any" and isinstance(value, int):
            return Written(str(value))          # an integer is no rounded number: an id, a year, a count
        if kind in ("number", "any", "list", "date"):
            return Written(shown)
        if kind == "label":
            return Written(shown, f"{shown} is a number where {_describe(part)} was asked", True)
        return Written(shown, f"{shown} is a number where yes or no was asked", kind == "yesno")
    if kind in ("number", "count"):
        return Written(text, f"{text!r} is not {_describe(part)}", True)
    if kind == "yesno":
        # a name where yes or no was asked (the state a follow-up asks about): its kind is wrong
        return Written(text, f"{text!r} is not yes or no", bool(text.strip()))
    if kind == "date" and re.match(r"^\d{4}-\d{2}-\d{2} 00:00:00$", text):
        return Written(text[:10])
    return Written(text)


#: a date or a time stamp as pandas writes one
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$")
#: the fewest lines of a text value that make it a printed table (a header and two rows)
_TABLE_LINES = 3


def _table_lines(text: str) -> int:
    """How many lines of ``text`` hold something."""
    return sum(1 for line in text.splitlines() if line.strip())


def _name(part: Part) -> str:
    return "the answer" if part.name == ANSWER else part.name


def _one_name_over(value: Any) -> bool:
    """A list of two or more texts that are all the same one."""
    return (isinstance(value, (list, tuple)) and len(value) > 1 and isinstance(value[0], str)
            and all(v == value[0] for v in value))


#: the fewest True/False values per row that make a row mask, not an answer
_MASK_ROWS = 10


def _row_mask(value: Any) -> int:
    """How many rows ``value`` holds one True/False for (a boolean Series over row numbers,
    ``(f['year'] < 1940) & (f['t'] > 0)``, come back as ``{row: bool}``, or a list of them);
    0 when it is no such mask. A mask says which rows meet a condition; the answer is what is
    computed from it (any, all, how many, which)."""
    truths = list(value.values()) if isinstance(value, dict) and all(isinstance(k, int) for k in value) else (
        list(value) if isinstance(value, (list, tuple)) else [])
    return len(truths) if len(truths) >= _MASK_ROWS and all(isinstance(t, bool) for t in truths) else 0


def retry_message(spec: AnswerSpec, taken: Taken, off: Mapping[str, Miss] | None = None,
                  code: str = "") -> str | None:
    """What the model is told when a value is clearly of the wrong kind, does not fit the data
    (``off``: part name → what did not fit, from :func:`.column_values.off_column`), or a part
    got no value while others did (None when nothing calls for a retry). With the program's
    ``code``: which field of a call each such part got, when it was bound by unpacking one."""
    told = []
    off = off or {}
    unfit = set(off) | set(taken.missing)          # parts whose values did not fit, or are none
    for part in spec.parts:
        if part.name in off:
            told.append(f"{_name(part)}: {off[part.name].told}")
        elif part.name in taken.values:
            written = write_part(taken.values[part.name], part)
            value = taken.values[part.name]
            if written.clear:
                unfit.add(part.name)
            rows = _row_mask(value) if part.kind != "count" else 0
            if rows:
                told.append(f"{_name(part)} came out as one True/False for each of {rows} rows, but the question "
                            "asks for the answer about them: reduce it to that answer (for example with .any(), "
                            ".all(), .sum() or the rows it selects)")
            elif written.misfit == "empty":
                told.append(f"{_name(part)} came out empty, with no values, but the question asks for "
                            f"{_describe(part)}: check that each filter keeps the rows it means (print how many rows "
                            "it keeps, and how the data writes the values compared: case, spelling, type) and "
                            "compute it again")
            elif written.misfit == "table":
                told.append(f"{_name(part)} came out as a printed table of {_table_lines(value)} lines (a DataFrame "
                            f"bound whole), but the question asks for {_describe(part)}: compute what it asks from "
                            "the rows, then bind those values themselves (one value, or a column's values as a "
                            "list with .tolist())")
            elif written.misfit == "items":
                got = _count_of(value)
                told.append(f"{_name(part)} came out as {got} value{'' if got == 1 else 's'} ({written.text}), but the "
                            f"question asks for {part.items}: bind all {part.items} of them, in the order it asks, "
                            "as a list (.tolist() of the index or the column that holds them)")
            elif written.misfit == "date":
                told.append(f"{_name(part)} came out as the date {value.strip()}, but the question asks for "
                            f"{_describe(part)}: when it names a part of the date, compute per that part "
                            "(frame['date'].dt.month_name() for a month, .dt.day_name() for a weekday) and take "
                            "the name asked, not one day")
            elif _one_name_over(value):
                # the first rows' label repeated: what was ranked was not one value per label
                told.append(f"{_name(part)} came out as one name {len(value)} times ({value[0]!r}), but the question "
                            f"asks for {len(value)} different ones: compute one value for each of them first "
                            "(group by the column that names them), then take the ones asked for")
            elif written.clear and isinstance(value, (list, tuple)):
                shown = ", ".join(_item(v, part) for v in value[:3])
                told.append(f"{_name(part)} came out as {len(value)} values ({shown}, …), but the question asks "
                            f"for {_describe(part)}: compute the one value it asks for from them")
            elif written.clear and part.kind in ("count", "yesno") and not part.allowed:
                # a p-value where yes/no was asked, a statistic where a count was: what it holds
                told.append(f"{_name(part)} came out as {written.text}, but the question asks for "
                            f"{_describe(part)}: bind {_describe(part)} there, computed as the question says")
            elif written.clear:
                what = f"which {part.subject}" if part.subject else _describe(part)
                where = f" (from column {part.column!r})" if part.column else ""
                told.append(f"{_name(part)} came out as {written.text}, but the question asks for {what}: bind "
                            f"{_describe(part)}{where}, not a row label, an id or a count")
        elif part.name in taken.missing and (taken.values or spec.style != "prose"
                                             or taken.missing[part.name] == NAN_REASON):
            told.append(f"{_name(part)}: {taken.missing[part.name]}")
    if not told:
        return None
    extra = f" {NAN_ADVICE}" if NAN_REASON in taken.missing.values() else ""
    # parts bound by position from a call's fields, named after the answer's parts
    positions = unpacked_fields(code, unfit) if code else None
    return "; ".join(told) + "." + (f" {positions}." if positions else "") + extra


def _body(printed: str, spec: AnswerSpec, limit: int = 20) -> str:
    """What the program printed besides answer lines (the answer writes its own) and pandas'
    Series footers."""
    shown = spec.template != DEFAULT            # a form the question asks: the answer writes it once
    if shown and "\n" in spec.template.write(""):
        printed = spec.template.without(printed)          # a form over several lines, whole
    kept = [ln.rstrip() for ln in (printed or "").splitlines()
            if ln.strip() and not _ANSWER_LINES.search(ln) and not SERIES_FOOTER.match(ln)
            and not ((spec.style == LINE or shown) and spec.template.holds(ln))
            and not (spec.as_object and object_values(ln) is not None)]
    if len(kept) > limit:
        kept = kept[:limit] + [f"… ({len(kept) - limit} more lines)"]
    return "\n".join(kept)


def write_answer(spec: AnswerSpec, taken: Taken, printed: str = "", off: Mapping[str, Miss] | None = None) -> Composed:
    """The answer: what the program printed (for the reader), a line for each value that did not
    fit (its kind, or ``off``: the data), then the parts in the asked style."""
    written: dict[str, str] = {}
    missing: dict[str, str] = {}
    notes: list[str] = []
    lines: list[str] = []
    pairs: list[tuple[str, str | None, Any]] = []         # the parts as one object, when asked so
    unfilled: list[str] = []                               # the lines of parts nothing computed
    for part in spec.parts:
        if part.name in taken.values:
            w = write_part(taken.values[part.name], part)
            if spec.list_marks != ("", "") and isinstance(taken.values[part.name], (list, tuple)):
                opening, closing = spec.list_marks          # "several values … inside [ ]"
                w = Written(f"{opening}{w.text}{closing}", w.note, w.clear, w.misfit)
            pairs.append((part.name, w.text, taken.values[part.name]))
            written[part.label()] = w.text
            miss = (off or {}).get(part.name)
            note = w.note or (miss.note if miss is not None else "")
            if note:
                notes.append(f"Note: {part.label() if spec.style == PARTS else _name(part)}: {note}.")
            lines.append(f"@{part.name}[{w.text}]" if spec.style == PARTS else spec.template.write(w.text))
        else:
            why = taken.missing.get(part.name, "no value was computed for it")
            missing[part.label()] = why
            pairs.append((part.name, None, None))
            unfilled.append(f"@{part.name}: {NOT_COMPUTED} ({why})" if spec.style == PARTS
                            else spec.template.write(f"{NOT_COMPUTED} ({why})"))
            lines.append(unfilled[-1])
    body = _body(printed, spec)
    if spec.as_object:
        # one object; a part nothing computed is null there, and says why on its own line
        lines = unfilled + [object_line(pairs)]
    if spec.style in (PARTS, LINE):
        return Composed("\n".join(x for x in (body, "\n".join(notes), "\n".join(lines)) if x), written, missing)
    # prose: what the program printed, tidied, and the value when the printed text lacks it
    prose = humane_numbers(_lists_written(body, spec, taken, written), decimals=spec.decimals)
    shown = [t for t in written.values() if t and not _stated(prose, t)]
    # a form the question asks for is written whether or not the sentence states the value
    tail = "\n".join(lines) if shown or not prose or spec.template != DEFAULT else ""
    # a blank line apart: the sentence and what follows it are separate paragraphs in Markdown
    text = "\n\n".join(x for x in (_as_markdown(prose), "\n".join(notes), tail) if x)
    if not text:
        why = next(iter(missing.values()), "the program computed nothing")
        return Composed(f"I could not compute the answer: {why}", {}, missing or {"answer": why})
    return Composed(text, written, missing)


def _printed_forms(value: Any) -> tuple[str, ...]:
    """How a program prints a list of names or numbers it computed: as a Python list or tuple
    (``['China', 'India']``, ``('a', 'b')``, ``(5,)``) or as a numpy array (``['China' 'India']``)."""
    if not isinstance(value, list) or not value or any(isinstance(x, (list, dict)) for x in value):
        return ()
    items = [repr(x) for x in value]
    tuple_form = f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    return (f"[{', '.join(items)}]", tuple_form, f"[{' '.join(items)}]")


#: a printed list that stands alone in a sentence: not inside a call (``Index([…], dtype=…)``),
#: another list (``[[1997, 2002], …]``) or a subscript (``df[5]``)
_ALONE_BEFORE = frozenset("([.,_")
_ALONE_AFTER = frozenset(",)]_([")


def _alone(body: str, start: int, end: int) -> bool:
    before = body[start - 1] if start > 0 else " "
    after = body[end] if end < len(body) else " "
    return not (before.isalnum() or before in _ALONE_BEFORE or after.isalnum() or after in _ALONE_AFTER)


def _lists_written(body: str, spec: AnswerSpec, taken: Taken, written: Mapping[str, str]) -> str:
    """The printed sentence with a computed list printed as Python prints it (``… are:
    ['China', 'India']``) written the way the answer writes that part (``China, India``), when
    the answer writes each item as printed (``'02134'`` is not written as 2134 in its place) and
    the list stands alone in the sentence."""
    for part in spec.parts:
        text = written.get(part.label())
        value = taken.values.get(part.name)
        if not text or not isinstance(value, list) or text != ", ".join(str(x) for x in value):
            continue
        for form in _printed_forms(value):
            start = body.find(form)
            if start >= 0 and _alone(body, start, start + len(form)):
                body = body[:start] + text + body[start + len(form):]
                break
    return body


_NUMBER_TEXT = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w.]*\d)")
#: the words of a written value (each looked for in the sentence by :func:`_said`)
_WORD = re.compile(r"[^\W\d_][\w'-]*")


def _numbers(text: str) -> list[tuple[float, int]]:
    """The numbers written in ``text``, each with its count of decimals."""
    out = []
    for token in _NUMBER_TEXT.findall(text):
        token = token.replace(",", "")
        try:
            out.append((float(token), len(token.split(".")[1]) if "." in token else 0))
        except ValueError:
            continue
    return out


def _stated(prose: str, value_text: str) -> bool:
    """Whether ``prose`` already states the value written as ``value_text``: each of its numbers
    appears there at some precision (5076.02 states 5076.01626), each of its words appears there
    as a whole word ("No" is not stated by "not")."""
    said = _numbers(prose)
    for value, _ in _numbers(value_text):
        if not any(abs(p - value) <= 0.5 * 10 ** -d * (1 + 1e-9)
                   and (d > 0 or float(value).is_integer() or abs(value) >= 100) for p, d in said):
            return False
    low = prose.lower()
    words = [w.lower() for w in _WORD.findall(_NUMBER_TEXT.sub(" ", value_text))]
    cut = value_text.rstrip().endswith("…")          # a long text cut short: its last word is a start
    return all(_said(low, w, whole=not (cut and i == len(words) - 1)) for i, w in enumerate(words))


def _said(low: str, word: str, *, whole: bool) -> bool:
    """``word`` appears in ``low`` with no letter or digit of the same word beside it: "no" is
    not said by "not", "Adelie" is by "'Adelie'." and by "Adelie's"."""
    at = low.find(word)
    while at >= 0:
        end = at + len(word)
        if not _inside(low, at - 1) and (not whole or not _inside(low, end)):
            return True
        at = low.find(word, at + 1)
    return False


def _inside(text: str, i: int) -> bool:
    """Whether position ``i`` of ``text`` holds a letter or digit of the Latin alphabet (what
    continues a word written in it)."""
    return 0 <= i < len(text) and text[i].isascii() and text[i].isalnum()


def _as_markdown(printed: str) -> str:
    """Printed text as the Markdown the answer is shown in: one line as it is, several lines (a
    printed Series, a table) kept as printed in a fenced block, where Markdown would run them
    together into one paragraph."""
    if "\n" not in printed.strip():
        return printed
    return "```text\n" + printed.strip("\n") + "\n```"


def short_error(error: str) -> str:
    """An error in a few words: its first line, without the hint after a dash."""
    first = next((ln.strip() for ln in (error or "").splitlines() if ln.strip()), "an error")
    first = re.sub(r"^line \d+: ", "", first).split(" — ")[0]
    first = re.split(r"(?<=[.!?])\s+(?=[A-Z])", first, maxsplit=1)[0]     # its first sentence
    return first if len(first) <= 100 else first[:99] + "…"


def nothing_computed(spec: AnswerSpec, attempts: int, error: str) -> str:
    """One plain sentence of what was tried when no program computed anything (the programs and
    their tracebacks are in their cells and the log)."""
    tried = "a pandas program" if attempts <= 1 else f"{attempts} pandas programs"
    asked = ", ".join(_name(p) for p in spec.parts) if spec.style == PARTS else "the answer"
    verb = "it stopped" if attempts <= 1 else "each stopped"
    return (f"I could not compute {asked}: I wrote and ran {tried} for it and {verb} with an error "
            f"(the last: {short_error(error)}).")
