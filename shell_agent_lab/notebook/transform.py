"""An input transformer that keeps ``%agent`` lines away from IPython's help syntax.

IPython reads ``%agent is revenue up?`` as a help request for ``%agent`` (the trailing
``?``) and never runs the magic. Before IPython's own transforms see the cell, this rewrites
every ``%agent`` line into the explicit call IPython would have produced, with the
message as a string literal, so a trailing ``?`` is just text:

    %agent is revenue up?        ->  get_ipython().run_line_magic('agent', 'is revenue up?');
    r = %agent is revenue up?    ->  r = get_ipython().run_line_magic('agent', 'is revenue up?')

A bare ``%agent`` statement gets a trailing ``;`` so the reply, already rendered live in
the cell, is not printed a second time as the cell's result. Cell magics (``%%…``) are left
alone: IPython passes their body through verbatim.
"""
from __future__ import annotations

import re

__all__ = ["rewrite_agent_lines", "install", "uninstall"]

_LINE = re.compile(
    r"^(?P<indent>[ \t]*)"
    r"(?:(?P<target>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*)?"
    r"%agent(?=\s|$)(?P<arg>.*?)(?P<eol>\r?\n)?$",
    re.DOTALL,
)


def rewrite_agent_lines(lines: list[str]) -> list[str]:
    """Rewrite ``%agent`` lines of a cell (a list of lines with their newlines)."""
    first = next((ln for ln in lines if ln.strip()), "")
    if first.lstrip().startswith("%%"):
        return lines
    out: list[str] = []
    continued = False
    for line in lines:
        m = None if continued else _LINE.match(line)
        body = line.rstrip("\r\n")
        continued = body.endswith("\\")
        if m is None or body.endswith("\\"):
            out.append(line)
            continue
        arg = m.group("arg").strip()
        call = f"get_ipython().run_line_magic('agent', {arg!r})"
        if m.group("target"):
            new = f"{m.group('indent')}{m.group('target')} = {call}"
        else:
            new = f"{m.group('indent')}{call};"
        out.append(new + (m.group("eol") or ""))
    return out


def install(shell) -> None:
    """Register the transformer on ``shell`` (idempotent), ahead of IPython's help handling."""
    cleanup = shell.input_transformers_cleanup
    if rewrite_agent_lines not in cleanup:
        cleanup.append(rewrite_agent_lines)


def uninstall(shell) -> None:
    cleanup = shell.input_transformers_cleanup
    while rewrite_agent_lines in cleanup:
        cleanup.remove(rewrite_agent_lines)
