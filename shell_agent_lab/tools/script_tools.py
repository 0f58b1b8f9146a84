"""Executable scripts as tools.

A script in the tools directory describes itself in ``#`` comments within its first 20
lines::

    #!/usr/bin/env bash
    # @tool: word_count
    # @description: Count words in a file of the session's work directory
    # @param: path string "File name inside the work directory"
    # @category: read
    # @timeout: 10

The arguments arrive as one JSON object on stdin; ``SHELL_AGENT_LAB_WORK_DIR`` names the
session's work directory. stdout and stderr are returned together, capped; a script that
runs past its timeout is killed with its whole process group. Write and execute scripts
ask for approval by default.
"""
from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._workdir import ensure_work_dir
from .registry import ToolContext, ToolDescriptor, ToolError, ToolResult

__all__ = ["ScriptTool", "parse_script_header", "load_script_tools", "run_script",
           "DEFAULT_TIMEOUT", "MAX_OUTPUT_BYTES", "WORK_DIR_ENV"]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30
MAX_OUTPUT_BYTES = 1024 * 1024
HEADER_LINES = 20
WORK_DIR_ENV = "SHELL_AGENT_LAB_WORK_DIR"

_DIRECTIVE = re.compile(r"^#\s*@(\w+)\s*:?\s*(.*?)\s*$")
_PARAM = re.compile(r'^(\w+)\s+(\w+)(?:\s+"((?:[^"\\]|\\.)*)"|\s+(.*))?$')
_TYPES = {"string": "string", "str": "string", "int": "integer", "integer": "integer",
          "number": "number", "float": "number", "bool": "boolean", "boolean": "boolean",
          "array": "array", "object": "object"}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class ScriptTool:
    path: Path
    name: str
    description: str = ""
    params: list[tuple[str, str, str]] = field(default_factory=list)   # (name, json type, help)
    category: str = "read"
    timeout: int = DEFAULT_TIMEOUT

    def schema(self) -> dict[str, Any]:
        props = {n: {"type": t, **({"description": h} if h else {})} for n, t, h in self.params}
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if self.params:
            schema["required"] = [n for n, _, _ in self.params]
        return schema


def parse_script_header(path: Path, text: str) -> ScriptTool | None:
    """Read the header directives; ``None`` when the file declares no ``@tool``."""
    found: dict[str, Any] = {"params": []}
    for line in text.splitlines()[:HEADER_LINES]:
        if line.startswith("#!"):
            continue
        m = _DIRECTIVE.match(line.strip())
        if not m:
            continue
        key, value = m.group(1).lower(), m.group(2)
        if key == "param":
            pm = _PARAM.match(value)
            if not pm:
                log.warning("%s: ignoring malformed @param %r", path, value)
                continue
            ptype = _TYPES.get(pm.group(2).lower())
            if ptype is None:
                log.warning("%s: unknown @param type %r, using string", path, pm.group(2))
                ptype = "string"
            found["params"].append((pm.group(1), ptype, (pm.group(3) or pm.group(4) or "").strip()))
        elif key in ("tool", "description", "category", "timeout"):
            found[key] = value
    if not found.get("tool"):
        return None
    name = found["tool"].strip().replace("-", "_").lower()
    if not _NAME.match(name):
        log.warning("%s: tool name %r is not snake_case; skipped", path, name)
        return None
    category = (found.get("category") or "read").strip().lower()
    if category not in ("read", "write", "execute"):
        log.warning("%s: unknown @category %r, using read", path, category)
        category = "read"
    timeout = DEFAULT_TIMEOUT
    if found.get("timeout"):
        try:
            timeout = int(found["timeout"])
            if timeout <= 0:
                raise ValueError
        except ValueError:
            log.warning("%s: invalid @timeout %r, using %ss", path, found["timeout"], DEFAULT_TIMEOUT)
            timeout = DEFAULT_TIMEOUT
    return ScriptTool(path=path, name=name, description=found.get("description", "").strip(),
                      params=found["params"], category=category, timeout=timeout)


def _read_capped(stream: Any, limit: int, sink: list[bytes], total: list[int]) -> None:
    kept = 0
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        total[0] += len(chunk)
        if kept < limit:
            piece = chunk[: limit - kept]
            sink.append(piece)
            kept += len(piece)
        # keep draining past the cap so the child never blocks on a full pipe


def run_script(path: Path, args: dict[str, Any], *, timeout: float, work_dir: Path | None = None,
               max_output: int = MAX_OUTPUT_BYTES, cancel: threading.Event | None = None) -> tuple[int | None, str, bool]:
    """Run ``path`` with ``args`` as JSON on stdin. Returns (exit code, output, timed_out)."""
    env = dict(os.environ)
    if work_dir is not None:
        env[WORK_DIR_ENV] = str(work_dir)
    proc = subprocess.Popen([str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, cwd=str(work_dir) if work_dir else None,
                            env=env, start_new_session=True)
    chunks: list[bytes] = []
    total = [0]
    reader = threading.Thread(target=_read_capped, args=(proc.stdout, max_output, chunks, total), daemon=True)
    reader.start()
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(args).encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    timed_out = False
    deadline = time.monotonic() + timeout
    while True:
        try:
            proc.wait(timeout=0.05)
            break
        except subprocess.TimeoutExpired:
            timed_out = time.monotonic() >= deadline
            if timed_out or (cancel is not None and cancel.is_set()):
                _kill_group(proc)
                break
    reader.join(timeout=2)
    output = b"".join(chunks).decode("utf-8", errors="replace")
    if total[0] > max_output:
        output += f"\n[output truncated at {max_output} bytes; {total[0]} bytes in all]"
    return proc.returncode, output, timed_out


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:  # pragma: no cover - the kernel reaps it eventually
        pass


def _handler_for(script: ScriptTool):
    def handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        expected = {n for n, _, _ in script.params}
        missing = sorted(expected - set(args))
        if missing:
            raise ToolError(f"missing required argument(s): {', '.join(missing)}")
        unknown = sorted(set(args) - expected)
        if unknown:
            raise ToolError(f"unknown argument(s): {', '.join(unknown)}")
        work_dir = ensure_work_dir(ctx.work_dir) if ctx.work_dir else None
        code, output, timed_out = run_script(script.path, args, timeout=script.timeout,
                                             work_dir=work_dir, cancel=ctx.cancel)
        if timed_out:
            raise ToolError(f"script tool {script.name} timed out after {script.timeout}s and was killed"
                            + (f"; output so far:\n{output}" if output else ""))
        if code != 0:
            raise ToolError(f"script tool {script.name} exited with status {code}:\n{output}".rstrip())
        return ToolResult(output or "(no output)")

    return handler


def load_script_tools(directory: Path) -> list[ToolDescriptor]:
    """Descriptors for every executable script with a ``@tool`` header in ``directory``."""
    directory = Path(directory).expanduser()
    if not directory.is_dir():
        return []
    descriptors: list[ToolDescriptor] = []
    for path in sorted(directory.iterdir()):
        if path.is_symlink() or not path.is_file():
            continue
        if not os.access(path, os.X_OK):
            log.info("%s is not executable; not offered as a tool", path)
            continue
        try:
            head = path.open("r", encoding="utf-8", errors="replace").read(8192)
        except OSError as exc:
            log.warning("cannot read %s: %s", path, exc)
            continue
        script = parse_script_header(path, head)
        if script is None:
            continue
        descriptors.append(ToolDescriptor(
            name=script.name,
            description=script.description or f"Run the script {path.name}.",
            parameters=script.schema(),
            handler=_handler_for(script),
            category=script.category,  # type: ignore[arg-type]
            approval_default=script.category in ("write", "execute"),
            dialog="execute" if script.category != "read" else None,
            source="script",
        ))
    return descriptors
