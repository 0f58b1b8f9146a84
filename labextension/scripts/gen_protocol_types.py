"""Generate ``src/protocol.generated.ts`` from ``shell_agent_lab/notebook/protocol.json``.

The schema is the single description of the side-panel protocol; the TypeScript wire types are
derived from it so the panel cannot drift from the kernel. Run after editing the schema::

    python labextension/scripts/gen_protocol_types.py          # rewrite the TS file
    python labextension/scripts/gen_protocol_types.py --check  # exit 1 when it is stale
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "shell_agent_lab" / "notebook" / "protocol.json"
TARGET = ROOT / "labextension" / "src" / "protocol.generated.ts"


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def _literal(value: Any) -> str:
    return "null" if value is None else json.dumps(value)


def _ts(schema: dict[str, Any], indent: str = "") -> str:
    """Translate the JSON Schema subset the protocol uses into a TypeScript type expression."""
    if not schema:
        return "unknown"
    if "$ref" in schema:
        return _pascal(schema["$ref"].rsplit("/", 1)[-1])
    if "const" in schema:
        return _literal(schema["const"])
    if "enum" in schema:
        return " | ".join(_literal(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(_ts(s, indent) for s in schema[key])
    types = schema.get("type")
    if isinstance(types, list):
        return " | ".join(_ts({**schema, "type": t}, indent) for t in types)
    if types == "string":
        return "string"
    if types in ("integer", "number"):
        return "number"
    if types == "boolean":
        return "boolean"
    if types == "null":
        return "null"
    if types == "array":
        item = _ts(schema.get("items", {}), indent)
        return f"Array<{item}>"
    if types == "object":
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        if not props:
            if isinstance(extra, dict):
                return f"{{ [key: string]: {_ts(extra, indent)} }}"
            return "{ [key: string]: never }" if extra is False else "{ [key: string]: unknown }"
        required = set(schema.get("required", []))
        inner = indent + "  "
        lines = ["{"]
        for name, sub in props.items():
            opt = "" if name in required else "?"
            lines.append(f"{inner}{name}{opt}: {_ts(sub, inner)};")
        if extra is not False:
            lines.append(f"{inner}[key: string]: unknown;")
        lines.append(indent + "}")
        return "\n".join(lines)
    raise ValueError(f"unsupported schema fragment: {schema!r}")


def render(schema: dict[str, Any]) -> str:
    out = [
        "// GENERATED from shell_agent_lab/notebook/protocol.json by",
        "// labextension/scripts/gen_protocol_types.py. Do not edit by hand: edit the schema and regenerate.",
        "/* eslint-disable */",
        "",
        f"export const PROTOCOL_VERSION = {int(schema['version'])};",
        f"export const COMM_TARGET = {json.dumps(schema['comm_target'])};",
        "",
    ]
    for name, sub in schema["$defs"].items():
        out.append(f"export type {_pascal(name)} = {_ts(sub)};")
        out.append("")
    ops = schema["ops"]
    for op, spec in ops.items():
        out.append(f"/** {spec['description']} */")
        out.append(f"export type {_pascal(op)}Args = {_ts(spec['args'])};")
        out.append(f"export type {_pascal(op)}Result = {_ts(spec['result'])};")
        out.append("")
    out.append("/** Request arguments and response result of every op. */")
    out.append("export interface Ops {")
    for op in ops:
        out.append(f"  {op}: {{ args: {_pascal(op)}Args; result: {_pascal(op)}Result }};")
    out.append("}")
    out.append("export type OpName = keyof Ops;")
    out.append(f"export const OP_NAMES: ReadonlyArray<OpName> = {json.dumps(list(ops))};")
    out.append("")
    events = schema["events"]
    out.append("/** Payload (`data`) of every pushed event. */")
    out.append("export interface Events {")
    for ev, sub in events.items():
        body = _ts(sub, "  ")
        out.append(f"  {ev}: {body};")
    out.append("}")
    out.append("export type EventName = keyof Events;")
    out.append(f"export const EVENT_NAMES: ReadonlyArray<EventName> = {json.dumps(list(events))};")
    out.append("")
    commands = schema.get("commands", {})
    out.append("/** Arguments of every command the kernel may ask the panel to run. */")
    out.append("export interface Commands {")
    for name, sub in commands.items():
        spec = {k: v for k, v in sub.items() if k != "description"}
        out.append(f"  {name}: {_ts(spec, '  ')};")
    out.append("}")
    out.append("export type CommandName = keyof Commands;")
    out.append(f"export const COMMAND_NAMES: ReadonlyArray<CommandName> = {json.dumps(list(commands))};")
    out.append("")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    text = render(json.loads(SCHEMA.read_text(encoding="utf-8")))
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is stale: run python labextension/scripts/gen_protocol_types.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
