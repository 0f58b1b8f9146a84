"""Degenerate repetition in a streamed reply (pure): a small model caught in a loop writes the
same words again and again (a SQL clause, a whole tool call, a sentence) until the token limit,
which on a CPU costs minutes. :class:`RepetitionGuard` sees the reply as it streams and says
when its tail has become a loop, so the request can be stopped at once, and :meth:`cut` keeps
the reply up to the end of the loop's first copy.

Words are runs of letters/digits or of punctuation (``IS``, ``NULL``, ``"},``); a loop is a
unit of words repeated back to back at the end of the reply:

* a unit of ``min_unit`` (6) words or more, repeated ``repeats`` (4) times or more, or
* a shorter unit repeated until the loop covers ``short_span`` (40) words (``NULL AND NULL …``),
* or a run of ``blank_run`` (200) whitespace characters (blank lines to the token limit).

The thresholds leave ordinary replies alone: a Markdown table row or a list repeats its shape,
not its words, and a unit of six words said four times in a row is not prose.
"""
from __future__ import annotations

import re

__all__ = ["RepetitionGuard"]

_WORD = re.compile(r"\w+|[^\w\s]+")


class RepetitionGuard:
    """Feed the reply's pieces as they arrive; :attr:`looping` turns true once it loops."""

    def __init__(self, *, min_unit: int = 6, repeats: int = 4, short_span: int = 40, max_unit: int = 120,
                 blank_run: int = 200) -> None:
        self.min_unit, self.repeats, self.short_span = min_unit, repeats, short_span
        self.max_unit, self.blank_run = max_unit, blank_run
        self.text = ""
        self.looping = False
        self._words: list[str] = []
        self._ends: list[int] = []       # where each word ends in ``text``
        self._pos = 0                    # start of the word that may still grow
        self._unit = 0                   # the loop's unit, in words
        self._start = 0                  # the loop's first word

    def feed(self, piece: str) -> bool:
        """Add ``piece``; True once the reply loops (and from then on)."""
        if self.looping or not piece:
            return self.looping
        self.text += piece
        if len(self.text) - len(self.text.rstrip()) >= self.blank_run:
            self.looping, self._unit = True, 0
            return True
        added = False
        for match in _WORD.finditer(self.text, self._pos):
            if match.end() == len(self.text):   # it may go on in the next piece
                self._pos = match.start()
                break
            self._words.append(match.group())
            self._ends.append(match.end())
            self._pos = match.end()
            added = True
        else:
            self._pos = len(self.text)
        if added:
            self._check()
        return self.looping

    def _check(self) -> None:
        words = self._words
        n = len(words)
        for unit in range(1, min(self.max_unit, n // 2) + 1):
            span = unit * self.repeats if unit >= self.min_unit else max(self.short_span, unit * self.repeats)
            if span > n:
                continue
            if all(words[n - i] == words[n - i - unit] for i in range(1, span - unit + 1)):
                start = n - span
                while start > 0 and words[start - 1] == words[start - 1 + unit]:
                    start -= 1
                self.looping, self._unit, self._start = True, unit, start
                return

    def cut(self, text: str | None = None) -> str:
        """The reply without its repeated tail: up to the end of the loop's first copy (all of it
        when it does not loop). ``text`` defaults to what was fed; it must start with it."""
        full = self.text if text is None else text
        if not self.looping:
            return full
        if self._unit == 0:
            return full.rstrip()
        return full[:self._ends[self._start + self._unit - 1]]
