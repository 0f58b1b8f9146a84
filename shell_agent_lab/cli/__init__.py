"""The ``shell-agent-lab`` command line: ``main(argv) -> exit status``.

Exit status 0 on success, 1 on an error, 2 on a usage error, 3 when the named session or entry
does not exist, 4 when the input was refused; errors are one line on stderr.

Each command module exposes ``register(subparsers)``. Adding one is one line in
``_COMMAND_MODULES``: ``(module, group)`` where ``group`` is ``None`` for a top-level command
(the module adds its own parser) or the name of a group created earlier (the module adds
sub-commands to it).
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from ._base import EXIT_FAILED, EXIT_USAGE, Parser, UsageError

__all__ = ["main", "build_parser"]

PROG = "shell-agent-lab"

_COMMAND_MODULES: tuple[tuple[str, str | None], ...] = (
    ("memory", None),                   # memory add|list|delete|export|import
    ("sessions", None),                 # sessions list|delete
    ("session_commands", "sessions"),   # sessions show|rename|export|import
    ("findings", None),                 # findings list
    ("config_show", None),              # config show
    ("doctor", None),                   # doctor
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="Inspect and manage shell-agent-lab's sessions and memory.")
    top = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    groups: dict[str, argparse._SubParsersAction] = {}
    for module_name, group in _COMMAND_MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        if group is None:
            result = module.register(top)
            if result is not None:  # a group module returns its sub-command table
                groups[result[0]] = result[1]
        else:
            module.register(groups[group])
    return parser


def _missing_subcommand(parser: argparse.ArgumentParser, argv: list[str]) -> str:
    words = [a for a in argv if not a.startswith("-")]
    return f"{PROG} {words[0]}" if words else PROG


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit status (never raises ``SystemExit``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"usage error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else EXIT_USAGE
    func = getattr(args, "func", None)
    if func is None:
        where = _missing_subcommand(parser, argv)
        print(f"usage error: a command is required (see `{where} --help`)", file=sys.stderr)
        return EXIT_USAGE
    try:
        return int(func(args) or 0)
    except UsageError as exc:
        print(f"usage error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
