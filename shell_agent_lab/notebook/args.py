"""Parse what follows ``%agent`` / ``%%agent`` into typed arguments.

Pure logic: no IPython, no agent. ``parse_line`` and ``parse_cell`` return either an
:class:`Ask` (a message for the model) or one of the command dataclasses; bad input raises
:class:`UsageError` whose message is one actionable line.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Callable, Union

__all__ = [
    "UsageError", "Ask", "Command", "Pin", "Remember", "Forget", "SessionSwitch", "Export", "Import",
    "Choice", "Connect", "Sql", "Sessions", "Attach", "Objects", "Parsed", "parse_line", "parse_cell", "COMMANDS", "usage",
]


class UsageError(ValueError):
    """The input cannot be understood; the message says how to fix it."""


@dataclass(frozen=True)
class Ask:
    """One turn for the model."""

    message: str
    profile: str | None = None
    #: None = decide from the frontend (stream when a human watches)
    stream: bool | None = None
    timeout: float | None = None
    #: files sent with the question (``--attach``: a document or an image; ``--image``: images only)
    attach: tuple[str, ...] = ()
    images: tuple[str, ...] = ()


@dataclass(frozen=True)
class Command:
    """A slash command without arguments (``/help``, ``/findings``, ``/reset`` …)."""

    name: str


@dataclass(frozen=True)
class Pin:
    """``/pin ID [--category preference|decision]``: a Finding or Session Memory entry to Global Memory."""

    target: str
    category: str = "decision"
    name: str = "pin"


@dataclass(frozen=True)
class Remember:
    """``/remember FACT [--category preference|decision]``: add to Global Memory by hand."""

    fact: str
    category: str = "preference"
    name: str = "remember"


@dataclass(frozen=True)
class Forget:
    """``/forget ID [ID …]`` or ``/forget --all-session``: delete memory entries or findings."""

    targets: tuple[str, ...] = ()
    all_session: bool = False
    name: str = "forget"


@dataclass(frozen=True)
class SessionSwitch:
    """``/session NAME``: bind this notebook to the named session (created when new)."""

    title: str
    name: str = "session"


@dataclass(frozen=True)
class Sessions:
    """``/sessions`` lists; ``/sessions rename ID|TITLE NEW TITLE`` renames one;
    ``/sessions delete ID [--yes]`` deletes one (without ``--yes`` it only says what would go)."""

    action: str | None = None
    target: str | None = None
    title: str | None = None
    yes: bool = False
    name: str = "sessions"


@dataclass(frozen=True)
class Export:
    """``/export [PATH]``: write this session to a ``.shellagent`` bundle."""

    path: str | None = None
    name: str = "export"


@dataclass(frozen=True)
class Import:
    """``/import PATH``: add a session from a ``.shellagent`` bundle."""

    path: str
    name: str = "import"


@dataclass(frozen=True)
class Choice:
    """``/model [NAME]`` or ``/profile [NAME]``: show, or switch to NAME."""

    name: str
    value: str | None = None


@dataclass(frozen=True)
class Connect:
    """``/connect`` lists connections; ``/connect NAME URL`` adds one; ``/disconnect NAME`` removes one."""

    name: str
    connection: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class Sql:
    """``/sql [N]``: insert the SQL of the last turn (or its N-th query) as the next cell."""

    index: int | None = None
    name: str = "sql"


@dataclass(frozen=True)
class Attach:
    """``/attach PATH [PATH …]``: store text documents or images with this session."""

    paths: tuple[str, ...]
    name: str = "attach"


@dataclass(frozen=True)
class Objects:
    """``/objects`` lists this session's objects; ``/objects delete ID [ID …]`` deletes some."""

    delete: tuple[str, ...] = ()
    name: str = "objects"


Parsed = Union[Ask, Command, Pin, Remember, Forget, SessionSwitch, Export, Import, Choice, Sql, Attach, Objects,
               Sessions, Connect]

_PIN_CATEGORIES = ("preference", "decision")


def _no_args(name: str) -> Callable[[list[str]], Parsed]:
    def parse(argv: list[str]) -> Parsed:
        if argv:
            raise UsageError(f"/{name} takes no arguments; usage: {usage(name)}")
        return Command(name)
    return parse


def _parse_pin(argv: list[str]) -> Parsed:
    category = "decision"
    rest: list[str] = []
    it = iter(argv)
    for tok in it:
        if tok in ("--category", "-c"):
            category = next(it, "")
        elif tok.startswith("--category="):
            category = tok.split("=", 1)[1]
        elif tok in _PIN_CATEGORIES and rest:
            category = tok
        else:
            rest.append(tok)
    if category not in _PIN_CATEGORIES:
        raise UsageError(f"/pin category must be preference or decision, not {category!r}; usage: {usage('pin')}")
    if len(rest) != 1:
        raise UsageError(f"/pin needs exactly one finding or memory id; usage: {usage('pin')}")
    return Pin(rest[0], category)


def _parse_remember(argv: list[str]) -> Parsed:
    category = "preference"
    words: list[str] = []
    it = iter(argv)
    for tok in it:
        if tok in ("--category", "-c"):
            category = next(it, "")
        elif tok.startswith("--category="):
            category = tok.split("=", 1)[1]
        else:
            words.append(tok)
    if category not in _PIN_CATEGORIES:
        raise UsageError(f"/remember category must be preference or decision, not {category!r}; "
                         f"usage: {usage('remember')}")
    fact = " ".join(words).strip()
    if not fact:
        raise UsageError(f"/remember needs the fact to remember; usage: {usage('remember')}")
    return Remember(fact, category)


def _parse_forget(argv: list[str]) -> Parsed:
    if argv == ["--all-session"]:
        return Forget(all_session=True)
    if not argv or any(t.startswith("-") for t in argv):
        raise UsageError(f"/forget needs one or more finding or memory ids; usage: {usage('forget')}")
    return Forget(tuple(argv))


def _parse_session(argv: list[str]) -> Parsed:
    title = " ".join(argv).strip()
    if not title:
        raise UsageError(f"/session needs a name; usage: {usage('session')}")
    if len(title) > 200 or any(ord(c) < 32 for c in title):
        raise UsageError("/session name must be one line of at most 200 characters")
    return SessionSwitch(title)


def _parse_sessions(argv: list[str]) -> Parsed:
    if not argv:
        return Sessions()
    action, rest = argv[0], argv[1:]
    if action == "rename":
        if len(rest) < 2:
            raise UsageError("/sessions rename needs the session (id, id prefix or quoted title) and the new title; "
                             f"usage: {usage('sessions')}")
        title = " ".join(rest[1:]).strip()
        if not title or len(title) > 200 or any(ord(c) < 32 for c in title):
            raise UsageError("/sessions rename: the new title must be one line of 1 to 200 characters")
        return Sessions("rename", rest[0], title)
    if action == "delete":
        yes = any(t in ("--yes", "-y") for t in rest)
        ids = [t for t in rest if t not in ("--yes", "-y")]
        if len(ids) != 1 or ids[0].startswith("-"):
            raise UsageError(f"/sessions delete needs one session id (from %agent /sessions); usage: {usage('sessions')}")
        return Sessions("delete", ids[0], yes=yes)
    raise UsageError(f"/sessions takes nothing, 'rename ID NEW TITLE' or 'delete ID [--yes]'; usage: {usage('sessions')}")


def _parse_export(argv: list[str]) -> Parsed:
    if len(argv) > 1:
        raise UsageError(f"/export takes at most one path (quote paths with spaces); usage: {usage('export')}")
    return Export(argv[0] if argv else None)


def _parse_import(argv: list[str]) -> Parsed:
    if len(argv) != 1:
        raise UsageError(f"/import needs the path of a .shellagent file; usage: {usage('import')}")
    return Import(argv[0])


def _choice(name: str) -> Callable[[list[str]], Parsed]:
    def parse(argv: list[str]) -> Parsed:
        if len(argv) > 1:
            raise UsageError(f"/{name} takes at most one name; usage: {usage(name)}")
        return Choice(name, argv[0] if argv else None)
    return parse


def _parse_connect(argv: list[str]) -> Parsed:
    if argv and len(argv) != 2:
        raise UsageError(f"/connect takes a name and a URL, or nothing to list; usage: {usage('connect')}")
    return Connect("connect", *argv) if argv else Connect("connect")


def _parse_disconnect(argv: list[str]) -> Parsed:
    if len(argv) != 1:
        raise UsageError(f"/disconnect takes one connection name; usage: {usage('disconnect')}")
    return Connect("disconnect", argv[0])


def _parse_sql(argv: list[str]) -> Parsed:
    if not argv:
        return Sql()
    if len(argv) == 1 and argv[0].isdigit() and int(argv[0]) >= 1:
        return Sql(int(argv[0]))
    raise UsageError(f"/sql takes an optional query number (1, 2, …); usage: {usage('sql')}")


def _parse_attach(argv: list[str]) -> Parsed:
    if not argv:
        raise UsageError(f"/attach needs one or more file paths (quote paths with spaces); usage: {usage('attach')}")
    return Attach(tuple(argv))


def _parse_objects(argv: list[str]) -> Parsed:
    if not argv:
        return Objects()
    if argv[0] == "delete" and len(argv) > 1:
        return Objects(tuple(argv[1:]))
    raise UsageError(f"/objects takes nothing or 'delete ID [ID …]'; usage: {usage('objects')}")


def _parse_tools(argv: list[str]) -> Parsed:
    if argv not in ([], ["reload"]):
        raise UsageError(f"/tools takes nothing or 'reload'; usage: {usage('tools')}")
    return Command("tools")


def _parse_mcp(argv: list[str]) -> Parsed:
    if not (argv == [] or (len(argv) == 2 and argv[0] == "restart")):
        raise UsageError(f"/mcp takes nothing or 'restart NAME'; usage: {usage('mcp')}")
    return Command("mcp")


def _parse_fix(argv: list[str]) -> Parsed:
    if argv not in ([], ["accept"], ["insert"]):
        raise UsageError(f"/fix takes nothing, 'accept' or 'insert'; usage: {usage('fix')}")
    return Command("fix")


def _parse_replay_check(argv: list[str]) -> Parsed:
    if len(argv) > 1:
        raise UsageError(f"/replay-check takes at most one notebook path; usage: {usage('replay-check')}")
    return Command("replay-check")


@dataclass(frozen=True)
class _Spec:
    usage: str
    summary: str
    parse: Callable[[list[str]], Parsed] = field(compare=False)


#: every slash command: usage line, one-line summary, parser (the dispatch table's keys)
COMMANDS: dict[str, _Spec] = {
    "help": _Spec("/help", "list the commands", _no_args("help")),
    "findings": _Spec("/findings", "show this session's Findings (widget)", _no_args("findings")),
    "memory": _Spec("/memory", "show Global and Session Memory (widget)", _no_args("memory")),
    "data": _Spec("/data", "show tables and live DataFrames (widget)", _no_args("data")),
    "sessions": _Spec("/sessions [rename ID|TITLE NEW TITLE | delete ID [--yes]]",
                      "list all sessions, rename one, or delete one (asks first)", _parse_sessions),
    "session": _Spec("/session NAME", "use the session NAME for this notebook (created when new)", _parse_session),
    "private": _Spec("/private", "start a private session for this notebook (never writes Global Memory)",
                     _no_args("private")),
    "model": _Spec("/model [NAME]", "show the model, or switch to NAME", _choice("model")),
    "profile": _Spec("/profile [NAME]", "list profiles, or bind this session to NAME", _choice("profile")),
    "status": _Spec("/status", "show the model, the state, and where requests go at which data-sharing level",
                    _no_args("status")),
    "pin": _Spec("/pin ID [--category preference|decision]", "pin a Finding or Session Memory entry to Global Memory",
                 _parse_pin),
    "remember": _Spec("/remember FACT [--category preference|decision]",
                      "add a preference or decision to Global Memory yourself", _parse_remember),
    "forget": _Spec("/forget ID [ID …]", "delete Findings or memory entries by id", _parse_forget),
    "export": _Spec("/export [PATH]", "export this session to a .shellagent bundle", _parse_export),
    "import": _Spec("/import PATH", "import a session from a .shellagent bundle", _parse_import),
    "reset": _Spec("/reset", "start a new session for this notebook", _no_args("reset")),
    "stop": _Spec("/stop", "stop the running turn", _no_args("stop")),
    "sql": _Spec("/sql [N]", "insert the SQL the last turn ran as the next cell", _parse_sql),
    "tools": _Spec("/tools [reload]", "list the tools the model may call and which ask first; reload rereads "
                   "script tools", _parse_tools),
    "mcp": _Spec("/mcp [restart NAME]", "show MCP servers and their state, or restart one", _parse_mcp),
    "attach": _Spec("/attach PATH [PATH …]", "attach text documents or images (PNG, JPEG, GIF, WebP) to this "
                    "session; the next question carries them", _parse_attach),
    "connect": _Spec("/connect [NAME URL]", "list connections, or add NAME: a postgresql:// or sc:// (Spark "
                     "Connect) URL, read-only", _parse_connect),
    "disconnect": _Spec("/disconnect NAME", "remove the connection NAME", _parse_disconnect),
    "objects": _Spec("/objects [delete ID …]", "list this session's attached documents, images and reports, or "
                     "delete some", _parse_objects),
    "cells": _Spec("/cells", "write the SQL and code behind the last answer as cells below "
                             "(only those not in the notebook yet)", _no_args("cells")),
    "fix": _Spec("/fix [accept|insert]", "propose a fix for the last failed cell, shown as a difference; accept "
                 "replaces the cell with it, insert puts it below", _parse_fix),
    "replay-check": _Spec("/replay-check [PATH]", "re-run the notebook without a model and list the stated "
                          "numbers no cell reproduces", _parse_replay_check),
}


def usage(name: str | None = None) -> str:
    """The usage line of one command, or of the magic itself."""
    if name is None:
        return ("%agent [--profile NAME] [--no-stream] [--timeout SECONDS] [--attach PATH] [--image PATH] MESSAGE"
                "  |  %agent /COMMAND (see %agent /help)")
    return COMMANDS[name].usage


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, posix=True)
    except ValueError as exc:
        raise UsageError(f"cannot parse the arguments ({exc}); check the quotes") from None


def _parse_command(text: str) -> Parsed:
    argv = _split(text[1:])
    if not argv:
        raise UsageError("empty command after '/'; try %agent /help")
    name = argv[0].lower()
    spec = COMMANDS.get(name)
    if spec is None:
        known = ", ".join("/" + n for n in COMMANDS)
        raise UsageError(f"unknown command /{name}; known commands: {known}")
    return spec.parse(argv[1:])


def _take_path(key: str, text: str) -> tuple[str, str]:
    """The path at the start of ``text`` (one word, or quoted to keep spaces) and what follows."""
    if text[:1] in ('"', "'"):
        end = text.find(text[0], 1)
        if end < 0:
            raise UsageError(f"{key}: the path's closing quote is missing")
        path, rest = text[1:end], text[end + 1:]
        if rest and not rest[0].isspace():
            raise UsageError(f"{key}: put a space after the quoted path")
    else:
        path, _, rest = text.partition(" ")
    if not path.strip():
        raise UsageError(f"{key} needs a file path; usage: {usage()}")
    return path, rest


def _take_options(text: str) -> tuple[dict, str]:
    """Peel ``--option`` tokens off the front of ``text``; return (options, rest-verbatim)."""
    opts: dict = {}
    rest = text.lstrip()
    while rest.startswith("-"):
        flag = rest.split(None, 1)[0].partition("=")[0]
        if flag in ("--attach", "--image"):
            after = rest[len(flag):]
            path, tail = _take_path(flag, after[1:] if after.startswith("=") else after.lstrip())
            opts.setdefault("images" if flag == "--image" else "attach", []).append(path)
            rest = tail.lstrip()
            continue
        head, _, tail = rest.partition(" ")
        if head == "--":
            rest = tail.lstrip()
            break
        key, eq, val = head.partition("=")
        if key == "--no-stream":
            opts["stream"] = False
        elif key == "--stream":
            opts["stream"] = True
        elif key in ("--profile", "--timeout"):
            if not eq:
                val, _, tail = tail.lstrip().partition(" ")
            if not val:
                raise UsageError(f"{key} needs a value; usage: {usage()}")
            if key == "--profile":
                opts["profile"] = val
            else:
                try:
                    opts["timeout"] = float(val)
                except ValueError:
                    raise UsageError(f"--timeout needs a number of seconds, not {val!r}") from None
                if opts["timeout"] <= 0:
                    raise UsageError("--timeout must be a positive number of seconds")
        else:
            raise UsageError(f"unknown option {key}; usage: {usage()}")
        rest = tail.lstrip()
    for key in ("attach", "images"):
        if key in opts:
            opts[key] = tuple(opts[key])
    return opts, rest


def parse_line(line: str) -> Parsed:
    """Parse ``%agent <line>``."""
    opts, rest = _take_options(line.strip())
    if rest.startswith("/"):
        if opts:
            raise UsageError("options such as --profile apply to messages, not to /commands")
        return _parse_command(rest)
    if not rest.strip():
        if "attach" in opts or "images" in opts:
            raise UsageError("nothing to ask about the attachment; add a question, or attach without one: "
                             "%agent /attach PATH")
        raise UsageError(f"nothing to ask; usage: {usage()}")
    return Ask(rest.strip(), **opts)


def parse_cell(line: str, cell: str) -> Parsed:
    """Parse ``%%agent <line>`` followed by the cell body (the message)."""
    opts, first = _take_options(line.strip())
    body = cell.strip("\n")
    message = "\n".join(p for p in (first, body) if p.strip()).strip()
    if message.startswith("/") and not opts and "\n" not in message:
        return _parse_command(message)
    if not message:
        raise UsageError("the %%agent cell is empty; write your question below the first line")
    return Ask(message, **opts)
