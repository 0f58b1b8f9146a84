"""Tools over the session's objects: list_objects, get_object, get_text, grep_text, analyze_text."""
from __future__ import annotations

import re
from typing import Any

import duckdb
import pyarrow as pa

from ..sharing import label
from ..tools.registry import ToolContext, ToolDescriptor, ToolError, ToolResult
from . import summarizer
from ._tooling import ask_model, guarded, has_store, int_arg, store_of, text_arg, wrap
from .chunker import chunk_text
from .tools_findings import promote_run, save_report

__all__ = ["text_tools", "parse_lines"]

_TEXT_TYPES = ("markdown", "report")
_GET_OBJECT_BYTES = 30_000
_OUTPUT_CHARS = 10_000
_GET_TEXT_LINES = 1_000
_MAX_PATTERN = 500
_MAX_LINE_SCAN = 10_000
_OBJECT_ID = re.compile(r"^(?:object:)?([0-9a-f]{32}|[0-9a-f]{12})$")


def parse_lines(spec: Any, total: int) -> tuple[int, int]:
    """``"10-20"``, ``"10-"``, ``"-20"``, ``"15"`` or ``None`` -> 1-based inclusive (start, end)."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return 1, max(1, total)
    if isinstance(spec, int):
        return spec, spec
    if not isinstance(spec, str):
        raise ToolError("'lines' must look like 120-240.")
    match = re.fullmatch(r"\s*(\d*)\s*(?:[-:]\s*(\d*))?\s*", spec)
    if not match or not (match.group(1) or match.group(2)):
        raise ToolError(f"'lines' must look like 120-240, not {spec!r}.")
    start = int(match.group(1)) if match.group(1) else 1
    if match.group(2) is None and "-" not in spec and ":" not in spec:
        end = start
    else:
        end = int(match.group(2)) if match.group(2) else total
    if start < 1 or end < start:
        raise ToolError(f"line range {spec!r} is empty; lines are numbered from 1.")
    if start > total:
        raise ToolError(f"line {start} is past the end; the object has {total} lines.")
    return start, min(end, total)


def _object(ctx: ToolContext, raw: str, *, text_only: bool = True) -> tuple[Any, bytes]:
    store = store_of(ctx)
    match = _OBJECT_ID.match(raw.strip().lower())
    if not match:
        raise ToolError(f"{raw!r} is not an object id; list_objects shows the ids.")
    from ..store.errors import NotFoundError
    try:
        meta, data = store.objects.get(match.group(1))
    except NotFoundError:
        raise ToolError(f"no object {match.group(1)} in this session; list_objects shows the ids.") from None
    if meta.session_id not in (None, ctx.session_id):
        raise ToolError(f"no object {match.group(1)} in this session; list_objects shows the ids.")
    if text_only and meta.type not in _TEXT_TYPES and not (meta.mime_type or "").startswith("text/"):
        raise ToolError(f"object {meta.id} is a {meta.type}, not a text document.")
    return meta, data


def _re2_hits(lines: list[str], first: int, pattern: str) -> list[int]:
    """Line numbers (from ``first``) whose text matches ``pattern``, using DuckDB's RE2 engine
    (linear time, so a hostile pattern cannot stall the kernel)."""
    conn = duckdb.connect(":memory:", config={
        "enable_external_access": False, "autoinstall_known_extensions": False,
        "autoload_known_extensions": False, "python_enable_replacements": False, "threads": 1})
    try:
        numbered = pa.table({"n": list(range(first, first + len(lines))),
                             "line": [line[:_MAX_LINE_SCAN] for line in lines]})
        conn.register("doc", numbered)
        rows = conn.execute("SELECT n FROM doc WHERE regexp_matches(line, $p) ORDER BY n",
                            {"p": pattern}).fetchall()
    except duckdb.Error as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid pattern"
        raise ToolError(f"invalid pattern (RE2 syntax): {message}") from exc
    finally:
        conn.close()
    return [r[0] for r in rows]


def _clip(text: str, limit: int = _OUTPUT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [output truncated at {limit:,} characters; ask for fewer lines]"


@guarded
def _list_objects(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    type_filter = args.get("type_filter") or "all"
    if type_filter not in ("image", "blob", "report", "markdown", "all"):
        raise ToolError("type_filter must be image, blob, report, markdown or all.")
    metas = store_of(ctx).objects.list(ctx.session_id, None if type_filter == "all" else type_filter)
    if not metas:
        return ToolResult("No objects in this session.")
    lines = []
    for meta in metas:
        extra = f", {meta.lines:,} lines, ~{meta.tokens:,} tokens" if meta.type in _TEXT_TYPES else ""
        lines.append(f"- {meta.id} {meta.type} {meta.name or '(unnamed)'} ({meta.size:,} bytes{extra})")
    return ToolResult("\n".join(lines), data={"sharing": label("schema")})   # names and sizes


@guarded
def _get_object(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    meta, data = _object(ctx, text_arg(args, "id", max_chars=100), text_only=False)
    if meta.type == "image":
        return ToolResult(f"__IMAGE_RECALL_BLOB__{meta.id}__")
    if meta.type in _TEXT_TYPES or (meta.mime_type or "").startswith("text/"):
        body = data[:_GET_OBJECT_BYTES].decode("utf-8", errors="replace")
        more = f"\n… [truncated: {len(data):,} bytes in total; use get_text for line ranges]" if len(data) > _GET_OBJECT_BYTES else ""
        return ToolResult(f"{meta.name or meta.id} ({meta.type}):\n{body}{more}")
    return ToolResult(f"{meta.id}: {meta.type} {meta.name or '(unnamed)'}, {meta.mime_type or 'unknown type'}, "
                      f"{meta.size:,} bytes (binary; content not shown).")


def _text_lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines()


@guarded
def _get_text(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    meta, data = _object(ctx, text_arg(args, "object", max_chars=100))
    lines = _text_lines(data)
    start, end = parse_lines(args.get("lines"), len(lines))
    end = min(end, start + _GET_TEXT_LINES - 1)
    body = "\n".join(f"{n}: {lines[n - 1]}" for n in range(start, end + 1))
    return ToolResult(_clip(f"{meta.name or meta.id}, lines {start}-{end} of {len(lines)}:\n{body}"))


@guarded
def _grep_text(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    meta, data = _object(ctx, text_arg(args, "object", max_chars=100))
    pattern = text_arg(args, "pattern", max_chars=_MAX_PATTERN)
    max_matches = int_arg(args, "max_matches", 200, low=1, high=1000)
    context = int_arg(args, "context_lines", 2, low=0, high=20)
    lines = _text_lines(data)
    start, end = parse_lines(args.get("lines"), len(lines))
    hits = _re2_hits(lines[start - 1:end], start, pattern)
    hit_set = set(hits)
    if not hits:
        return ToolResult(f"No match for {pattern!r} in {meta.name or meta.id} (lines {start}-{end}).")
    shown = hits[:max_matches]
    out: list[str] = []
    last = 0
    for n in shown:
        lo, hi = max(start, n - context), min(end, n + context)
        if out and lo > last + 1:
            out.append("--")
        for m in range(max(lo, last + 1), hi + 1):
            out.append(f"{m}{':' if m in hit_set else '-'} {lines[m - 1]}")
        last = max(last, hi)
    head = f"{len(hits)} matching line(s) in {meta.name or meta.id}" + (f", first {len(shown)} shown" if len(hits) > len(shown) else "") + ":"
    return ToolResult(_clip(head + "\n" + "\n".join(out)))


_TEXT_SYSTEM = summarizer.TEXT_SYSTEM_PROMPT


@guarded
def _analyze_text(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    meta, data = _object(ctx, text_arg(args, "object", max_chars=100))
    perspective = text_arg(args, "perspective", max_chars=4000)
    lines = _text_lines(data)
    if not lines:
        return ToolResult(f"{meta.name or meta.id} is empty; nothing to analyse.")
    start, end = parse_lines(args.get("lines"), len(lines))
    chunks = chunk_text("\n".join(lines[start - 1:end]))
    if not chunks:
        return ToolResult(f"lines {start}-{end} of {meta.name or meta.id} are blank; nothing to analyse.")
    spans = [(i, 1) for i in range(len(chunks))]

    def fetch(index: int, _limit: int) -> str:
        chunk = chunks[index]
        return f"(lines {chunk.start_line + start - 1}-{chunk.end_line + start - 1})\n{chunk.text}"

    name = meta.name or meta.id
    run = summarizer.run_windows(
        spans, fetch, lambda system, user, schema: ask_model(
            ctx, system, user, response_format=schema, temperature=summarizer.WINDOW_TEMPERATURE),
        goal=perspective,
        label=f"{name} chunk", wrap=lambda text: wrap(ctx, text), cancel=ctx.cancel,
        progress=lambda k, n: ctx.progress(f"chunk {k}/{n}", k, n), system_prompt=_TEXT_SYSTEM)
    if run.error and run.windows == 0:
        raise ToolError(f"analysis {run.error}")
    ids, duplicates = promote_run(ctx, run, tag=name[:60], source="analyze_text")
    report = summarizer.render_report(run, title=f"Reading of {name}", goal=perspective,
                                      source=f"object {meta.id}, lines {start}-{end}")
    saved = save_report(ctx, f"Reading of {name}", report)
    lines_out = [f"Read {name} in {run.windows} chunk(s)" + (" (cancelled early)" if run.cancelled else "") + "."
             + (f" It {run.error}." if run.error else ""),
                 f"Summary: {run.summary or '(none)'}",
                 f"Findings recorded: {len(ids)}" + (f" ({duplicates} already known)" if duplicates else "") + "."]
    lines_out += [f"- [{f.severity}] {f.description}" for f in run.findings[:20]]
    lines_out.append(f"Full report saved as object {saved['id']}; it is shown to the user, do not restate it.")
    return ToolResult("\n".join(lines_out), data={"findings": ids, "report": saved})


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


_OBJECT = {"type": "string", "description": "Object id (32 hex characters) from list_objects."}
_LINES = {"type": "string", "description": "Line range such as 120-240 (1-based, inclusive)."}


def text_tools() -> list[ToolDescriptor]:
    return [
        ToolDescriptor(
            "list_objects", "List this session's objects (reports, attached documents, images) with ids, sizes, lines and tokens.",
            _obj({"type_filter": {"type": "string", "enum": ["image", "blob", "report", "markdown", "all"]}}, []),
            _list_objects, available=has_store, source="analysis"),
        ToolDescriptor(
            "get_object", "Fetch one object: text documents are returned (first 30,000 bytes), images are shown again.",
            _obj({"id": _OBJECT}, ["id"]), _get_object, available=has_store, source="analysis"),
        ToolDescriptor(
            "get_text", "Read numbered lines of a text document (at most 1,000 lines per call).",
            _obj({"object": _OBJECT, "lines": _LINES}, ["object", "lines"]), _get_text,
            available=has_store, source="analysis"),
        ToolDescriptor(
            "grep_text", "Search a text document with a regular expression; returns matching lines with context.",
            _obj({"object": _OBJECT, "pattern": {"type": "string", "description": "Regular expression."},
                  "lines": _LINES,
                  "max_matches": {"type": "integer", "description": "Default 200."},
                  "context_lines": {"type": "integer", "description": "Lines around each match, default 2."}},
                 ["object", "pattern"]), _grep_text, available=has_store, source="analysis"),
        ToolDescriptor(
            "analyze_text", "Read a whole text document in overlapping chunks from a perspective; "
            "records findings and writes a report.",
            _obj({"object": _OBJECT, "perspective": {"type": "string", "description": "What to look for."},
                  "lines": _LINES}, ["object", "perspective"]), _analyze_text,
            available=has_store, source="analysis"),
    ]
