"""The answer line's form asked of the model when the question's syntax shows none (I/O: one
short request; what it reads is :mod:`..answers.printed_form`'s)."""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Sequence

from ..answers.printed_form import form_from_example, form_from_print, form_request, form_shown, wants_form, words_missing
from ..answers.spec import AnswerSpec
from ..answers.templates import Template
from ..llm.errors import CancelledError, LLMError
from ..llm.types import ChatOptions, Message

__all__ = ["asked_form"]

log = logging.getLogger(__name__)

#: a print line, with a fence around it
_FORM_TOKENS = 60


def asked_form(backend: Any, asked: Sequence[Message], reply: str, code: str, spec: AnswerSpec, question: str,
               cancel: Any = None) -> AnswerSpec:
    """``spec`` with the form the answer is written in, when the question asks its form in words
    (:func:`wants_form`). In order: the form the answering program ``code`` prints ``answer``
    in; the form the model showed after the program in its ``reply`` (with a value it guessed);
    the form the model prints ``answer`` in when asked after the request ``asked`` that wrote
    the program (the model server still holds those tokens, so only the new request is read).
    The first that writes every word the question quotes (:func:`words_missing`) is taken;
    the request is made only when neither of the first two does, and when none does, the one
    missing fewest. None of them, or a failed request, leaves ``spec`` as it was."""
    if not wants_form(spec):
        return spec
    found: list[tuple[Template, bool]] = []
    printed = form_from_print(code, question)
    if printed is not None:
        found.append((printed, False))
    shown = form_from_example(reply, question)
    if shown is not None:
        found.append((shown.template, shown.bracketed))
    missing = [words_missing(form, question) for form, _ in found]
    if reply and all(missing):
        requested = _requested_form(backend, asked, reply, question, min(missing, key=len, default=[]), cancel)
        if requested is not None:
            found.append(requested)
            missing.append(words_missing(requested[0], question))
    if not found:
        log.info("the answer's form: None")
        return spec
    form, bracketed = found[missing.index(min(missing, key=len))]       # the first of the fewest
    log.info("the answer's form: %r", form.write("…"))
    if bracketed and spec.list_marks == ("", ""):
        spec = replace(spec, list_marks=("[", "]"))          # a list inside the brackets it showed
    return replace(spec, template=form)


def _requested_form(backend: Any, asked: Sequence[Message], reply: str, question: str, missing: list[str],
                    cancel: Any) -> tuple[Template, bool] | None:
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
        return printed, False
    shown = form_shown(text, question) if "print(" not in text else None     # a print line that shows no form: none
    return (shown.template, shown.bracketed) if shown is not None else None
