"""The program in a model's reply: the one place a reply's code is told from its prose.

Both the program path (:mod:`.program_prompt`) and the reading of an answer's printed form
(:mod:`.printed_form`) take a reply's program from here, so the two never disagree on which
block is the program.
"""
from __future__ import annotations

import ast
import re

__all__ = ["extract_code", "after_program", "parses"]

#: a fenced block: it closes at a fence that opens a line, so a program may print a fence of its
#: own (``print("```yaml")``); one closed at the end of a line of code is read too
_FENCE = re.compile(r"```(?:python|py|Python)?[ \t]*\n(.*?)(?:^[ \t]*```|\Z)", re.S | re.M)
_FENCE_ANYWHERE = re.compile(r"```(?:python|py|Python)?[ \t]*\n(.*?)(?:```|\Z)", re.S)
#: a block marked as Python, closed the same way (what follows it is the model's own text)
_PROGRAM_BLOCK = re.compile(r"```(?:python|py|Python)[ \t]*\n.*?^[ \t]*```", re.S | re.M)


def extract_code(text: str) -> str | None:
    """The program in a reply: its first fenced code block (the longest, when the first does not
    parse), or the reply itself when it is code; None when it holds no program."""
    blocks = [b for b in _FENCE.findall(text or "") if b.strip()]
    if blocks and not any(parses(b) for b in blocks):
        blocks = [b for b in _FENCE_ANYWHERE.findall(text or "") if b.strip()] or blocks
    if blocks:
        return max(blocks, key=len).strip() if len(blocks) > 1 and not parses(blocks[0]) else blocks[0].strip()
    body = (text or "").strip()
    return body if body and parses(body) and re.search(r"\bprint\s*\(|^answer\s*=", body, re.M) else None


def after_program(text: str) -> str | None:
    """What a reply says after its last block marked as Python; None when it has no such block."""
    found = list(_PROGRAM_BLOCK.finditer(text or ""))
    return text[found[-1].end():] if found else None


def parses(code: str) -> bool:
    """Whether ``code`` is Python that parses."""
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True
