"""Plumbing shared by the command groups: the parser registry, exit codes, output helpers.

A command is an ``argparse`` sub-parser whose ``func`` default is called as
``func(args, out=None, err=None) -> exit status`` (``None`` means ``sys.stdout`` / ``sys.stderr``
at call time).
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, TextIO

__all__ = [
    "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_NOT_FOUND", "EXIT_REFUSED",
    "UsageError", "CommandError", "Parser", "open_store", "with_store", "print_json", "iso",
    "write_private_file",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_REFUSED = 0, 1, 2, 3, 4


class UsageError(Exception):
    """Bad arguments: one line on stderr, exit status 2."""


class CommandError(Exception):
    """A failure with its own exit status: one line on stderr, exit ``code``."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that reports usage errors as one line instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see `{self.prog} --help`)")


StoreHandler = Callable[[Any, argparse.Namespace, TextIO], int]


def open_store() -> Any:
    """The store in the data directory every kernel uses (see :func:`shell_agent_lab.paths.data_dir`:
    ``$SHELL_AGENT_LAB_DATA_DIR``, else ``ShellAgent.data_dir`` from the configuration, else the
    default). An unreadable configuration file raises ``ConfigFileError``."""
    from ..paths import data_dir
    from ..store import Store

    return Store.open(data_dir())


def with_store(handler: StoreHandler) -> Callable[..., int]:
    """Wrap ``handler(store, args, out)`` as a command: open the store, map store errors to one
    line on stderr and an exit status, close the store."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
        from .._config_file import ConfigFileError
        from ..store import InvalidImportError, NotFoundError, StoreError, ValidationError

        out = out or sys.stdout
        err = err or sys.stderr
        try:
            store = open_store()
        except (StoreError, ConfigFileError) as exc:
            err.write(f"error: {exc}\n")
            return EXIT_FAILED
        try:
            return handler(store, args, out)
        except CommandError as exc:
            err.write(f"error: {exc}\n")
            return exc.code
        except NotFoundError as exc:
            err.write(f"error: {exc}\n")
            return EXIT_NOT_FOUND
        except (InvalidImportError, ValidationError) as exc:
            err.write(f"error: {exc}\n")
            return EXIT_FAILED
        except StoreError as exc:
            err.write(f"error: {exc}\n")
            return EXIT_FAILED
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            err.write(f"error: {where}{exc.strerror or exc}\n")
            return EXIT_FAILED
        finally:
            store.close()

    return run


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def print_json(out: TextIO, data: Any) -> None:
    json.dump(data, out, ensure_ascii=False, indent=2)
    out.write("\n")


def write_private_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (0600) through a temporary file and a rename."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
