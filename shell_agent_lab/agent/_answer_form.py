"""The answer line's form asked of the model when the question's syntax shows none (I/O: one
short request; what it reads is :mod:`..answers.printed_form`'s)."""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Sequence

from ..answers.printed_form import (Form, fits, form_from_example, form_from_marks, form_from_print, form_request,
                                    form_shown, instruction_sentences, marks_missing, wants_form, words_missing)
from ..answers.spec import AnswerSpec
from ..answers.templates import Template
from ..llm.errors import CancelledError, LLMError
from ..llm.types import ChatOptions, Message

__all__ = ["asked_form", "form_meta", "earlier_form"]

log = logging.getLogger(__name__)

#: a print line, with a fence around it
_FORM_TOKENS = 60


def form_meta(form: Form, question: str) -> dict[str, Any]:
    """What an answer's record keeps of the form it was written in, for the questions after it
    that give the same instruction (:func:`earlier_form`)."""
    return {"opening": form.template.opening, "closing": form.template.closing, "bracketed": form.bracketed,
            "said": instruction_sentences(question)}


def earlier_form(metas: Sequence[Any], question: str) -> Form | None:
    """The form the latest of the earlier answers (their records' ``meta``, oldest first) was
    written in for an instruction ``question`` gives too (a sentence of it word for word), when
    that form is made of ``question``'s words as well; None when there is none. A user who
    asks each answer in the same form says so again with every question; a small model shows
    the form with one program and not with the next."""
    said = set(instruction_sentences(question))
    for meta in reversed(metas):
        kept = meta.get("form") if isinstance(meta, dict) else None
        if not isinstance(kept, dict):
            continue
        before = kept.get("said")
        if not isinstance(before, list) or not said.intersection(s for s in before if isinstance(s, str)):
            continue
        opening, closing = kept.get("opening"), kept.get("closing")
        if not isinstance(opening, str) or not isinstance(closing, str):
            continue
        form = Template(opening, closing, "", (0, 0))
        if fits(form, question):
            return Form(form, bool(kept.get("bracketed")))
    return None


def asked_form(backend: Any, asked: Sequence[Message], reply: str, code: str, spec: AnswerSpec, question: str,
               cancel: Any = None, *, others: Sequence[str] = (), earlier: Form | None = None) -> tuple[AnswerSpec, Form | None]:
    """``spec`` with the form the answer is written in, when the question asks its form in words
    (:func:`wants_form`), and that form. In order: the form the answering program ``code``
    prints ``answer`` in; the form the model showed after the program in its ``reply`` (with a
    value it guessed), then in the replies of the turn's ``others`` programs (a first program
    that failed may have shown it: the form is the question's, not the program's); the form the
    ``earlier`` answers of the conversation were written in for the same instruction; the form
    the model prints ``answer`` in when asked after the request ``asked`` that wrote the program
    (the model server still holds those tokens, so only the new request is read). The first
    that writes every word the question quotes (:func:`words_missing`) and every mark it names
    (:func:`marks_missing`; the marks alone make a form too, :func:`form_from_marks`) is taken; the request is
    made only when none before it does, and when none does, the one missing fewest. None of
    them, or a failed request, leaves ``spec`` as it was."""
    if not wants_form(spec):
        return spec, None
    found: list[Form] = []
    printed = form_from_print(code, question)
    if printed is not None:
        found.append(Form(printed))
    for text in (reply, *others):
        shown = form_from_example(text, question)
        if shown is not None:
            found.append(shown)
    if earlier is not None:
        found.append(earlier)
    # the marks the instruction names in words make a form of their own (``∴ 42``, ``«42»``):
    # taken when no form the model wrote or showed writes them
    marked = form_from_marks(question)
    if marked is not None:
        found.append(marked)

    def missing_of(form: Form) -> list[str]:
        return words_missing(form.template, question) + marks_missing(form.template, question)

    missing = [missing_of(form) for form in found]
    if reply and all(missing):
        requested = _requested_form(backend, asked, reply, question, min(missing, key=len, default=[]), cancel)
        if requested is not None:
            found.append(requested)
            missing.append(missing_of(requested))
    if not found:
        log.info("the answer's form: None")
        return spec, None
    form = found[missing.index(min(missing, key=len))]       # the first of the fewest
    log.info("the answer's form: %r", form.template.write("…"))
    if form.bracketed and spec.list_marks == ("", ""):
        spec = replace(spec, list_marks=("[", "]"))          # a list inside the brackets it showed
    return replace(spec, template=form.template), form


def _requested_form(backend: Any, asked: Sequence[Message], reply: str, question: str, missing: list[str],
                    cancel: Any) -> Form | None:
    """The form of the one print line the model writes when asked for it after its program (a
    form it writes out instead, ``> `answer` ``, is read as one it showed); the words the forms
    read so far left out are named in the request."""
    options = ChatOptions(cancel=cancel, temperature=0.0, max_output_tokens=_FORM_TOKENS)
    try:
        response = backend.chat([*asked, Message("assistant", reply), Message("user", form_request(missing))], [],
                                options=options)
    except CancelledError:
        raise
    except LLMError as exc:
        log.info("no answer form asked: %s", exc)
        return None
    text = response.text or ""
    log.debug("the model printed the answer as: %r", text)
    printed = form_from_print(text, question)
    if printed is not None:
        return Form(printed)
    shown = form_shown(text, question) if "print(" not in text else None     # a print line that shows no form: none
    return shown
