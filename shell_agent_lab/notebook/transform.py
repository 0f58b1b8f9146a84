"""An input transformer that keeps ``%agent`` lines away from IPython's help syntax.

IPython reads ``%agent is revenue up?`` as a help request for ``%agent`` (the trailing
``?``) and never runs the magic. Before IPython's own transforms see the cell, this rewrites
every ``%agent`` line into the explicit call IPython would have produced, with the
message as a string literal, so a trailing ``?`` is just text:

    %agent is revenue up?        ->  get_ipython().run_line_magic('agent', 'is revenue up?');
    r = %agent is revenue up?    ->  r = get_ipython().run_line_magic('agent', 'is revenue up?')

A bare ``%agent`` statement gets a trailing ``;`` so the reply, already rendered live in
the cell, is not printed a second time as the cell's result.

In a kernel, unindented lines that ask a question (and ``%%agent`` cells) become *awaited*
calls of the ``agent_async`` twin instead (a command such as ``%agent /findings`` stays a plain
call): while the cell awaits, ipykernel keeps handling comm messages
for it, so a click on the cell's Approval widget reaches the kernel while the turn waits
(ipykernel 7 sends those clicks to the main shell, which a blocking cell would hold). Other
cell magics are left alone.
"""
from __future__ import annotations

import re

__all__ = ["rewrite_agent_lines", "install", "uninstall"]

_CELL = re.compile(r"^[ \t]*%%agent(?=\s|$)(?P<line>[^\n]*)\n?(?P<body>.*)$", re.DOTALL)

_LINE = re.compile(
    r"^(?P<indent>[ \t]*)"
    r"(?:(?P<target>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*)?"
    r"%agent(?=\s|$)(?P<arg>.*?)(?P<eol>\r?\n)?$",
    re.DOTALL,
)


def rewrite_agent_lines(lines: list[str], *, awaitable: bool = False) -> list[str]:
    """Rewrite ``%agent`` lines of a cell (a list of lines with their newlines).

    ``awaitable``: turn unindented lines and ``%%agent`` cells into awaited calls.
    """
    first = next((ln for ln in lines if ln.strip()), "")
    if first.lstrip().startswith("%%"):
        m = _CELL.match("".join(lines[lines.index(first):])) if awaitable else None
        if m is None:
            return lines
        return [f"await get_ipython().run_cell_magic('agent_async', {m.group('line').strip()!r}, "
                f"{m.group('body')!r})\n"]
    out: list[str] = []
    continued = False
    quotes = {'"""': 0, "'''": 0}
    for line in lines:
        in_string = any(n % 2 for n in quotes.values())     # inside a triple-quoted string
        for q in quotes:
            quotes[q] += line.count(q)
        m = None if continued or in_string else _LINE.match(line)
        body = line.rstrip("\r\n")
        continued = body.endswith("\\")
        if m is None or body.endswith("\\"):
            out.append(line)
            continue
        arg = m.group("arg").strip()
        # a command (``/findings``, ``/memory``) runs at once and never waits for a widget, so
        # its cell stays synchronous: an awaiting cell lets ipykernel 7.4 handle a comm message
        # beside it, and that can leave the cell's "idle" under another cell's parent (the cell
        # then shows [*] for good in JupyterLab)
        if awaitable and not m.group("indent") and not arg.startswith("/"):
            call = f"await get_ipython().run_line_magic('agent_async', {arg!r})"
        else:
            call = f"get_ipython().run_line_magic('agent', {arg!r})"
        if m.group("target"):
            new = f"{m.group('indent')}{m.group('target')} = {call}"
        else:
            new = f"{m.group('indent')}{call};"
        out.append(new + (m.group("eol") or ""))
    return out


class _Transformer:
    """The shell's transformer: awaited calls when the shell can await top-level code."""

    def __init__(self, shell, awaitable: bool | None = None) -> None:
        self.shell = shell
        self.awaitable = awaitable

    def __call__(self, lines: list[str]) -> list[str]:
        awaitable = self.awaitable
        if awaitable is None:
            awaitable = getattr(self.shell, "kernel", None) is not None and bool(getattr(self.shell, "autoawait", False))
        return rewrite_agent_lines(lines, awaitable=awaitable)


def install(shell, *, awaitable: bool | None = None) -> None:
    """Register the transformer on ``shell`` (idempotent), ahead of IPython's help handling.

    ``awaitable`` None decides per cell (awaited in a kernel with autoawait on)."""
    uninstall(shell)
    shell.input_transformers_cleanup.append(_Transformer(shell, awaitable))


def uninstall(shell) -> None:
    cleanup = shell.input_transformers_cleanup
    cleanup[:] = [t for t in cleanup if not isinstance(t, _Transformer)]
