"""The answer line's form asked of the model when the question's syntax shows none (I/O: one
short request; what it reads is :mod:`..answers.printed_form`'s)."""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Sequence

from ..answers.printed_form import FORM_REQUEST, form_from_example, form_from_print, wants_form
from ..answers.spec import AnswerSpec
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
    None of them, or a failed request, leaves ``spec`` as it was."""
    if not wants_form(spec):
        return spec
    form = form_from_print(code, question)
    shown = form_from_example(reply, question) if form is None else None
    if shown is not None:
        form = shown.template
        if shown.bracketed and spec.list_marks == ("", ""):
            spec = replace(spec, list_marks=("[", "]"))      # a list inside the brackets it showed
    if form is None and reply:
        options = ChatOptions(cancel=cancel, temperature=0.0, max_output_tokens=_FORM_TOKENS)
        try:
            response = backend.chat([*asked, Message("assistant", reply), Message("user", FORM_REQUEST)], [],
                                    options=options)
        except CancelledError:
            raise
        except LLMError as exc:
            log.info("no answer form asked: %s", exc)
            return spec
        log.debug("the model printed the answer as: %r", response.text)
        form = form_from_print(response.text or "", question)
    log.info("the answer's form: %r", form.write("…") if form is not None else None)
    return replace(spec, template=form) if form is not None else spec
