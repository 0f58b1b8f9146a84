"""Pure text logic behind deduplication, consolidation, touching and supersession.

Two facts merge only when

1. their *protected tokens* agree — numbers (with ``%``; spelled-out numbers, ordinals and
   multipliers read as digits), negation, statistics words, identifiers/columns, proper nouns and
   places (capitalised or from a lexicon of countries, US states and regions) — so "Revenue grew
   12% in Q3" never swallows "Revenue grew 21% in Q3" nor "germany" swallows "france";
2. they take no opposite sides in a *contrast class* (grew / fell, before / after, new /
   returning, with / without, … see :mod:`._lexicon`), nor does one carry a word that the other
   carries with a negating prefix (valid / invalid); and
3. the Jaccard score of their *similarity tokens* (lower-cased words, stop words dropped,
   light stemming, CJK runs split into trigrams) is at least the threshold.

A fact that reverses an older one ("User no longer prefers seaborn; use plotly", or the same
statement with its polarity flipped: "with a log scale" → "without a log scale") *supersedes* it
instead of merging with it: see :func:`supersedes`.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from . import _lexicon
from .number_words import spell_numbers

__all__ = [
    "CONSOLIDATION_THRESHOLD",
    "TOUCH_THRESHOLD",
    "token_set",
    "similarity_tokens",
    "jaccard",
    "normalize",
    "canonical_text",
    "protected_tokens",
    "Protected",
    "protected_agree",
    "contrast_conflict",
    "is_duplicate",
    "Signature",
    "signature",
    "signatures_agree",
    "reversed_object",
    "topic_tokens",
    "polarity_free",
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
_NEGATIONS = frozenset(
    "not no never none nor without cannot neither nobody nothing non "
    "dislike dislikes disliked hate hates hated avoid avoids avoided avoiding".split()
)
# negation proper, for polarity: "without" is the off side of the toggle class instead
_CORE_NEGATIONS = _NEGATIONS - {"without"}
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
# a word and the same word behind one of these prefixes say opposite things (valid / invalid)
_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")

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


# --- canonical text: contractions expanded, numbers as digits --------------------------------

_CONTRACTION = re.compile(r"\b(\w+)n[’']t\b", re.IGNORECASE)
_CONTRACTION_STEMS = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
_OFF_PEAK = re.compile(r"\boff[\s-]*peak\b", re.IGNORECASE)


_SWITCHED = re.compile(
    r"\b((?:turn|switch|toggle|set|flip)(?:s|es|ed|ing)?\s+)(on|off)\b"
    r"|\b(on|off)(?=\s*(?:[.;,!?]|$))",
    re.IGNORECASE,
)


def _expand(text: str) -> str:
    """``doesn't`` → ``does not``, ``can't`` → ``can not``; ``off-peak`` → ``offpeak``; a
    switched "on"/"off" ("turn off gridlines", "… with gridlines off.") → ``switchon``/``switchoff``."""
    if "'" in text or "’" in text:
        text = _CONTRACTION.sub(
            lambda m: _CONTRACTION_STEMS.get(m.group(1).lower(), m.group(1)) + " not", text
        )
    lowered = text.lower()
    if "peak" in lowered:
        text = _OFF_PEAK.sub("offpeak", text)
    if "on" in lowered or "off" in lowered:
        text = _SWITCHED.sub(
            lambda m: (m.group(1) or "") + "switch" + (m.group(2) or m.group(3)).lower(), text
        )
    return text


def canonical_text(text: str) -> str:
    """``text`` with contractions expanded and numbers written as digits (case kept)."""
    return spell_numbers(_expand(text))


def similarity_tokens(text: str) -> frozenset[str]:
    """Tokens compared for merging: stop words dropped, stems, CJK trigrams.

    Numbers are read as digits first ("twelve" and "12" are one token). Falls back to the plain
    :func:`token_set` when nothing else is left, so two facts made only of stop words can still
    be recognised as the same.
    """
    out: set[str] = set()
    raw = token_set(_THOUSANDS.sub("", canonical_text(text)))
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
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
    r"(\s*(?:%|percent\b|pct\b)|[kKmMbB]\b|[x×]\b|(?:st|nd|rd|th)\b)?"
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d\w*")
_IDENTIFIER = re.compile(r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9_]*)\b")
_CONTRACTED_NOT = re.compile(r"\w+n[’']t\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?:;]\s*$")
_MULTIWORD_PLACE = re.compile(
    r"\b(?:" + "|".join(
        re.escape(p).replace(r"\ ", r"\s+")
        for p in sorted(_lexicon.MULTIWORD_PLACES, key=len, reverse=True)
    ) + r")\b"
)


@dataclass(frozen=True)
class Protected:
    """The tokens that must agree before two texts may merge.

    ``contrasts`` holds ``"class:pole"`` for every contrast-class word in the text; ``places``
    the canonical names of the lexicon places it mentions.
    """

    numbers: frozenset[str]
    negated: bool
    statistics: frozenset[str]
    identifiers: frozenset[str]
    names: frozenset[str]
    contrasts: frozenset[str] = frozenset()
    places: frozenset[str] = frozenset()


def _norm_number(digits: str, suffix: str | None) -> str:
    value = digits.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", digits) else digits
    if "." not in value:
        value = value.lstrip("0") or "0"
    unit = ""
    if suffix:
        s = suffix.strip().lower()
        if s in ("%", "percent", "pct"):
            unit = "%"
        elif s in ("x", "×"):
            unit = "x"
        elif s in ("st", "nd", "rd", "th"):
            unit = "th"
        else:
            unit = s
    return value + unit


def _places_and_contrasts(expanded: str) -> tuple[frozenset[str], frozenset[str]]:
    """Lexicon places and contrast poles of ``expanded`` (numbers still spelled out)."""
    lowered = _NON_ALNUM.sub(" ", expanded.lower())
    places: set[str] = set()

    def _take(m: re.Match) -> str:
        places.add(_lexicon.MULTIWORD_PLACES[" ".join(m.group(0).split())])
        return " "

    lowered = _MULTIWORD_PLACE.sub(_take, lowered)
    contrasts: set[str] = set()
    for word in token_set(lowered):
        place = _lexicon.PLACES.get(word)
        if place is not None:
            places.add(place)
        for cls, pole in _lexicon.CONTRAST_OF.get(word, ()):
            contrasts.add(f"{cls}:{pole}")
    return frozenset(places), frozenset(contrasts)


def protected_tokens(text: str) -> Protected:
    """Extract numbers, negation, statistics, identifiers, names, places and contrasts."""
    expanded = _expand(text)
    canon = spell_numbers(expanded)
    numbers = frozenset(_norm_number(m.group(1), m.group(2)) for m in _NUMBER.finditer(canon))
    words = token_set(canon)
    negated = bool(words & _NEGATIONS) or bool(_CONTRACTED_NOT.search(text))
    stats = frozenset(_STATISTICS[w] for w in words if w in _STATISTICS)

    identifiers: set[str] = set()
    for m in _IDENTIFIER.finditer(canon):
        if m.group(1) is not None:
            identifiers.add(m.group(1).strip().lower())
            continue
        word = m.group(2)
        if "_" in word.strip("_") or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)):
            identifiers.add(word.lower())
        elif re.search(r"[a-z][A-Z]", word):
            identifiers.add(word.lower())

    names: set[str] = set(w for w in token_set(text) if w in _PLACE_WORDS)
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
    places, contrasts = _places_and_contrasts(expanded)
    return Protected(numbers, negated, stats, frozenset(identifiers), frozenset(names),
                     contrasts, places)


def contrast_conflict(a: Iterable[str], b: Iterable[str], skip: frozenset[str] = frozenset()) -> bool:
    """True when, in some contrast class both sides take a side in, they take different sides.

    ``a`` and ``b`` are ``"class:pole"`` strings (:attr:`Protected.contrasts`); classes in
    ``skip`` are ignored. A text that says nothing about a class does not contradict one that
    does ("Revenue grew" vs "Revenue grew sharply"), but "grew" vs "fell", or "grew" vs "grew and
    then fell", is a contradiction.
    """
    poles_a: dict[str, set[str]] = {}
    for item in a:
        cls, _, pole = item.partition(":")
        poles_a.setdefault(cls, set()).add(pole)
    if not poles_a:
        return False
    poles_b: dict[str, set[str]] = {}
    for item in b:
        cls, _, pole = item.partition(":")
        if cls in poles_a:
            poles_b.setdefault(cls, set()).add(pole)
    return any(cls not in skip and poles_a[cls] != poles for cls, poles in poles_b.items())


def _prefix_negated(words_a: frozenset[str], words_b: frozenset[str]) -> bool:
    """One side has ``w``, the other ``un``/``in``/``dis``/``non``…+``w`` (valid / invalid)."""
    only_a, only_b = words_a - words_b, words_b - words_a
    if not only_a or not only_b:
        return False
    for longer, shorter in ((only_a, only_b), (only_b, only_a)):
        for word in longer:
            for prefix in _NEGATING_PREFIXES:
                if word.startswith(prefix) and len(word) - len(prefix) >= 4 \
                        and word[len(prefix):] in shorter:
                    return True
    return False


def _agree(pa: Protected, words_a: frozenset[str], pb: Protected, words_b: frozenset[str]) -> bool:
    if pa.numbers != pb.numbers or pa.negated != pb.negated:
        return False
    if pa.statistics != pb.statistics or pa.identifiers != pb.identifiers:
        return False
    if pa.places != pb.places or contrast_conflict(pa.contrasts, pb.contrasts):
        return False
    if _prefix_negated(words_a, words_b):
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
             sorted(p.identifiers), sorted(p.names), sorted(p.contrasts), sorted(p.places)],
            ensure_ascii=False, separators=(",", ":"),
        )

    @classmethod
    def loads(cls, tokens: str, text: str) -> "Signature":
        fields = json.loads(text)
        words, numbers, negated, stats, identifiers, names = fields[:6]
        contrasts, places = fields[6:8] if len(fields) >= 8 else ([], [])
        return cls(
            frozenset(tokens.split()), frozenset(words),
            Protected(frozenset(numbers), bool(negated), frozenset(stats), frozenset(identifiers),
                      frozenset(names), frozenset(contrasts), frozenset(places)),
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


_POLARITY_WORDS = frozenset(
    _NEGATIONS | {"not", "t"} | set(_lexicon.CONTRASTS["toggle"]["on"])
    | set(_lexicon.CONTRASTS["toggle"]["off"])
)
_POLARITY_TOKENS = frozenset(_POLARITY_WORDS | {_stem(w) for w in _POLARITY_WORDS})


def polarity_free(tokens: Iterable[str]) -> frozenset[str]:
    """Similarity tokens without negation and on/off words (with, without, enable, hide, …)."""
    return frozenset(t for t in tokens if t not in _POLARITY_TOKENS)


def topic_tokens(text: str) -> frozenset[str]:
    """What ``text`` is about, whatever it says about it: :func:`similarity_tokens` minus
    polarity words. "User wants charts with a log scale" and "… without a log scale" share it."""
    return polarity_free(similarity_tokens(text))


def _negative(text: str, p: Protected) -> bool | None:
    """True for a negative statement ("never …", "without …", "disable …"), False for a
    positive one, None when it has both on and off words and so no clear polarity."""
    toggles = {c.partition(":")[2] for c in p.contrasts if c.startswith("toggle:")}
    if toggles == {"on", "off"}:
        return None
    core = bool(token_set(canonical_text(text)) & _CORE_NEGATIONS) or bool(_CONTRACTED_NOT.search(text))
    return core != (toggles == {"off"})


def _polarity_flip(new: str, old: str) -> bool:
    """``new`` says the opposite of ``old`` about the same topic, and nothing else differs."""
    topic = topic_tokens(new)
    if not topic or topic != topic_tokens(old):
        return False
    pn, po = protected_tokens(new), protected_tokens(old)
    neg_new, neg_old = _negative(new, pn), _negative(old, po)
    if neg_new is None or neg_old is None or neg_new == neg_old:
        return False
    if (pn.numbers, pn.statistics, pn.identifiers, pn.places) != (
        po.numbers, po.statistics, po.identifiers, po.places
    ):
        return False
    if contrast_conflict(pn.contrasts, po.contrasts, skip=frozenset({"toggle"})):
        return False
    return pn.names <= token_set(old) and po.names <= token_set(new)


def supersedes(new: str, old: str) -> bool:
    """True when ``new`` reverses ``old`` (which is not itself a reversal), either

    * explicitly — new names an object it no longer wants ("no longer …", "instead of …",
      "switched from …") and everything in that object appears in ``old``; or
    * by polarity — new is ``old`` with its polarity flipped ("with a log scale" → "without a
      log scale", "always …" → "never …", "enable …" → "disable …", and back): the same topic
      tokens, the same protected tokens, opposite negation or on/off side.
    """
    if reversed_object(old):
        return False
    obj = reversed_object(new)
    if obj:
        return obj <= similarity_tokens(old)
    return _polarity_flip(new, old)
