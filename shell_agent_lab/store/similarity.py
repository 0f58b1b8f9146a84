"""Pure text logic behind deduplication, consolidation, touching and supersession.

Two facts merge only when

1. their *protected tokens* agree — numbers (with ``%``), negation, statistics words,
   identifiers/columns and proper nouns/places — so "Revenue grew 12% in Q3" never swallows
   "Revenue grew 21% in Q3", and
2. the Jaccard score of their *similarity tokens* (lower-cased words, stop words dropped,
   light stemming, CJK runs split into trigrams) is at least the threshold.

A fact that reverses an older one ("User no longer prefers seaborn; use plotly") *supersedes*
it instead of merging with it: see :func:`supersedes`.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

__all__ = [
    "CONSOLIDATION_THRESHOLD",
    "TOUCH_THRESHOLD",
    "token_set",
    "similarity_tokens",
    "jaccard",
    "normalize",
    "protected_tokens",
    "Protected",
    "protected_agree",
    "is_duplicate",
    "Signature",
    "signature",
    "signatures_agree",
    "reversed_object",
    "supersedes",
]

CONSOLIDATION_THRESHOLD = 0.5
TOUCH_THRESHOLD = 0.3

# Words that carry no subject matter in a remembered fact.
_STOPWORDS = frozenset(
    """
    a an the and or but if of to in on at by for with from into onto over under as is are was were
    be been being am it its this that these those there here then than so such very really just
    also too i me my we our you your he she they them their his her user users user's
    prefer prefers preferred preferring preference like likes liked want wants wanted would
    should could can will shall may might must do does did done have has had having
    use uses used using always usually often
    about which who whom what when where while some any all each every other more most less
    """.split()
)
_NEGATIONS = frozenset("not no never none nor without cannot neither nobody nothing".split())
_STATISTICS = {
    "mean": "mean", "average": "mean", "avg": "mean", "averages": "mean", "means": "mean",
    "median": "median", "medians": "median", "mode": "mode",
    "sum": "sum", "sums": "sum", "total": "sum", "totals": "sum",
    "count": "count", "counts": "count",
    "min": "min", "minimum": "min", "max": "max", "maximum": "max",
    "std": "std", "stddev": "std", "stdev": "std", "variance": "variance",
    "percentile": "percentile", "quantile": "quantile", "quartile": "quartile",
    "p50": "p50", "p75": "p75", "p90": "p90", "p95": "p95", "p99": "p99",
}
_PLACE_WORDS = frozenset(
    "north south east west northeast northwest southeast southwest northern southern eastern "
    "western central domestic international emea apac latam".split()
)

_CJK_RANGES = (
    (0x3000, 0x303F), (0x3040, 0x309F), (0x30A0, 0x30FF), (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0xAC00, 0xD7AF),
)


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


_ASCII_TOKEN = re.compile(r"[a-z0-9]+")


def token_set(text: str) -> frozenset[str]:
    """Lower-cased maximal runs of Unicode letters, digits and marks (a CJK run is one token)."""
    lowered = text.lower()
    if lowered.isascii():
        return frozenset(_ASCII_TOKEN.findall(lowered))
    tokens: set[str] = set()
    current: list[str] = []
    for ch in lowered:
        if unicodedata.category(ch)[0] in "LNM":
            current.append(ch)
        elif current:
            tokens.add("".join(current))
            current = []
    if current:
        tokens.add("".join(current))
    return frozenset(tokens)


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """|A ∩ B| / |A ∪ B|; 0 when either side is empty."""
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def _stem(word: str) -> str:
    if not word.isascii() or len(word) <= 4 or word.isdigit():
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def similarity_tokens(text: str) -> frozenset[str]:
    """Tokens compared for merging: stop words dropped, stems, CJK trigrams.

    Falls back to the plain :func:`token_set` when nothing else is left, so two facts made
    only of stop words can still be recognised as the same.
    """
    out: set[str] = set()
    raw = token_set(_THOUSANDS.sub("", text))
    for tok in raw:
        if any(_is_cjk(ch) for ch in tok):
            if len(tok) <= 3:
                out.add(tok)
            else:
                out.update(tok[i : i + 3] for i in range(len(tok) - 2))
        elif tok not in _STOPWORDS:
            out.add(_stem(tok))
    return frozenset(out) if out else raw


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NON_ALNUM = re.compile(r"[^\w]+|_+")


def normalize(text: str) -> str:
    """Lower case, every run of non-letters/digits collapsed to one space, trimmed."""
    return _NON_ALNUM.sub(" ", text.lower()).strip()


# --- protected tokens -------------------------------------------------------------------------

_NUMBER = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(\s*(?:%|percent\b|pct\b)|[kKmMbB]\b)?"
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d\w*")
_IDENTIFIER = re.compile(r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9_]*)\b")
_CONTRACTED_NOT = re.compile(r"\w+n[’']t\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?:;]\s*$")


@dataclass(frozen=True)
class Protected:
    """The tokens that must agree before two texts may merge."""

    numbers: frozenset[str]
    negated: bool
    statistics: frozenset[str]
    identifiers: frozenset[str]
    names: frozenset[str]


def _norm_number(digits: str, suffix: str | None) -> str:
    value = digits.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", digits) else digits
    if "." not in value:
        value = value.lstrip("0") or "0"
    unit = ""
    if suffix:
        s = suffix.strip().lower()
        unit = "%" if s in ("%", "percent", "pct") else s
    return value + unit


def protected_tokens(text: str) -> Protected:
    """Extract numbers, negation, statistics, identifiers and names from ``text``."""
    numbers = frozenset(_norm_number(m.group(1), m.group(2)) for m in _NUMBER.finditer(text))
    words = token_set(text)
    negated = bool(words & _NEGATIONS) or bool(_CONTRACTED_NOT.search(text))
    stats = frozenset(_STATISTICS[w] for w in words if w in _STATISTICS)

    identifiers: set[str] = set()
    for m in _IDENTIFIER.finditer(text):
        if m.group(1) is not None:
            identifiers.add(m.group(1).strip().lower())
            continue
        word = m.group(2)
        if "_" in word.strip("_") or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)):
            identifiers.add(word.lower())
        elif re.search(r"[a-z][A-Z]", word):
            identifiers.add(word.lower())

    names: set[str] = set(w for w in words if w in _PLACE_WORDS)
    previous_end = 0
    first = True
    for m in _WORD.finditer(text):
        word = m.group(0).strip("'’-")
        between = text[previous_end : m.start()]
        sentence_start = first or bool(_SENTENCE_END.search(between))
        previous_end = m.end()
        first = False
        if not word or not word[0].isalpha():
            continue
        lower = word.lower()
        if lower in _STOPWORDS or lower in _NEGATIONS or lower in _STATISTICS:
            continue
        if (len(word) >= 2 and word.isupper()) or (word[0].isupper() and not sentence_start):
            names.update(token_set(lower))
    return Protected(numbers, negated, stats, frozenset(identifiers), frozenset(names))


def _agree(pa: Protected, words_a: frozenset[str], pb: Protected, words_b: frozenset[str]) -> bool:
    if pa.numbers != pb.numbers or pa.negated != pb.negated:
        return False
    if pa.statistics != pb.statistics or pa.identifiers != pb.identifiers:
        return False
    # a name written capitalised in one text must at least occur in the other
    return pa.names <= words_b and pb.names <= words_a


def protected_agree(a: str, b: str) -> bool:
    """True when nothing protected differs between ``a`` and ``b``."""
    return _agree(protected_tokens(a), token_set(a), protected_tokens(b), token_set(b))


@dataclass(frozen=True)
class Signature:
    """Everything a merge decision needs about one text, cheap to store and reload."""

    tokens: frozenset[str]
    words: frozenset[str]
    protected: Protected

    def dumps(self) -> str:
        p = self.protected
        return json.dumps(
            [sorted(self.words), sorted(p.numbers), p.negated, sorted(p.statistics),
             sorted(p.identifiers), sorted(p.names)],
            ensure_ascii=False, separators=(",", ":"),
        )

    @classmethod
    def loads(cls, tokens: str, text: str) -> "Signature":
        words, numbers, negated, stats, identifiers, names = json.loads(text)
        return cls(
            frozenset(tokens.split()), frozenset(words),
            Protected(frozenset(numbers), bool(negated), frozenset(stats), frozenset(identifiers),
                      frozenset(names)),
        )


def signature(text: str) -> Signature:
    return Signature(similarity_tokens(text), token_set(text), protected_tokens(text))


def signatures_agree(a: Signature, b: Signature) -> bool:
    """:func:`protected_agree` on precomputed signatures."""
    return _agree(a.protected, a.words, b.protected, b.words)


def is_duplicate(new: str, old: str, threshold: float = CONSOLIDATION_THRESHOLD) -> bool:
    """Exact, normalised-equal or fuzzy (Jaccard ≥ threshold) with protected tokens agreeing."""
    if new == old:
        return True
    if not new.strip() or not old.strip():
        return False
    if not protected_agree(new, old):
        return False
    if normalize(new) == normalize(old):
        return True
    return jaccard(similarity_tokens(new), similarity_tokens(old)) >= threshold


# --- supersession -----------------------------------------------------------------------------

_REVERSAL = re.compile(
    r"\bno\s+longer\s+(?:prefers?|likes?|wants?(?:\s+to\s+use)?|uses?|using|needs?|chooses?)?\s*"
    r"(?P<a>[^;,.!?]+)"
    r"|\bstopped\s+(?:preferring|liking|using|wanting)\s+(?P<b>[^;,.!?]+)"
    r"|\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?P<c>[^;,.!?]+)"
    r"|\b(?:switched|switching|moved|moving|migrated|migrating)\s+(?:away\s+)?from\s+(?P<d>[^;,.!?]+?)"
    r"(?=\s+to\b|[;,.!?]|$)"
    r"|\b(?:does\s+not|doesn[’']t|do\s+not|don[’']t)\s+(?:prefer|like|want|use)\s+(?P<e>[^;,.!?]+?)"
    r"\s+any\s*more\b"
    r"|\bnow\s+(?:prefers?|likes?|wants?|uses?)\s+[^;,.!?]+?\s+(?:over|to)\s+(?P<f>[^;,.!?]+)"
    r"|\b(?:switched|moved|migrated)\s+to\s+[^;,.!?]+?\s+from\s+(?P<g>[^;,.!?]+)",
    re.IGNORECASE,
)
_CLAUSE_TAIL = re.compile(
    r"\s+(?:any\s*more|but|and|use|uses|using|in\s+favou?r\s+of|instead|now|to|for\s+now)\b.*$",
    re.IGNORECASE,
)


def reversed_object(text: str) -> frozenset[str]:
    """Similarity tokens of what ``text`` says the user moved away from; empty if no reversal."""
    out: set[str] = set()
    for m in _REVERSAL.finditer(text):
        obj = next(g for g in m.groups() if g is not None)
        obj = _CLAUSE_TAIL.sub("", obj)
        tokens = {t for t in similarity_tokens(obj) if t not in _NEGATIONS and t not in ("longer", "anymore")}
        out.update(tokens)
    return frozenset(out)


def supersedes(new: str, old: str) -> bool:
    """True when ``new`` reverses ``old``: new names an object it no longer wants, and
    everything in that object appears in ``old`` (which is not itself a reversal)."""
    obj = reversed_object(new)
    if not obj or reversed_object(old):
        return False
    return obj <= similarity_tokens(old)
