"""Generate the wire types from ``shell_agent_lab/notebook/protocol.json``: the panel's
``src/protocol.generated.ts`` and the kernel's ``shell_agent_lab/protocol_types.py``.

The schema is the single description of the side-panel protocol and of the agent's events; the
TypeScript types and the Python ``TypedDict``s are derived from it so neither side can drift.
Run after editing the schema::

    python labextension/scripts/gen_protocol_types.py          # rewrite both files
    python labextension/scripts/gen_protocol_types.py --check  # exit 1 when either is stale
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "shell_agent_lab" / "notebook" / "protocol.json"
TARGET = ROOT / "labextension" / "src" / "protocol.generated.ts"
PY_TARGET = ROOT / "shell_agent_lab" / "protocol_types.py"


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


# -- Python ----------------------------------------------------------------------------------


class _PyTypes:
    """The Python rendering: one TypedDict per object with properties (nested ones named after
    their place), aliases for the other definitions; annotations as strings (forward references)."""

    def __init__(self) -> None:
        self.blocks: list[str] = []

    def expr(self, schema: dict[str, Any], name: str) -> str:
        if not schema:
            return "Any"
        if "$ref" in schema:
            return _pascal(schema["$ref"].rsplit("/", 1)[-1])
        if "const" in schema:
            return f"Literal[{_py_literal(schema['const'])}]"
        if "enum" in schema:
            return f"Literal[{', '.join(_py_literal(v) for v in schema['enum'])}]"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return " | ".join(self.expr(s, f"{name}{i}") for i, s in enumerate(schema[key], 1))
        types = schema.get("type")
        if isinstance(types, list):
            return " | ".join(self.expr({**schema, "type": t}, name) for t in types)
        simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
        if types in simple:
            return simple[types]
        if types == "array":
            return f"list[{self.expr(schema.get('items', {}), name + 'Item')}]"
        if types == "object":
            props = schema.get("properties", {})
            extra = schema.get("additionalProperties", True)
            if not props:
                return f"dict[str, {self.expr(extra, name + 'Value')}]" if isinstance(extra, dict) else "dict[str, Any]"
            self.typed_dict(name, schema)
            return name
        raise ValueError(f"unsupported schema fragment: {schema!r}")

    def typed_dict(self, name: str, schema: dict[str, Any]) -> None:
        required = set(schema.get("required", []))
        fields = []
        for key, sub in schema.get("properties", {}).items():
            text = self.expr(sub, name + _pascal(key))
            fields.append(f"    {key!r}: {text if key in required else f'NotRequired[{text}]'!r},")
        self.blocks.append(f"{name} = TypedDict({name!r}, {{\n" + "\n".join(fields) + "\n})")

    def alias(self, name: str, schema: dict[str, Any]) -> None:
        if schema.get("type") == "object" and schema.get("properties"):
            self.typed_dict(name, schema)
        else:
            self.blocks.append(f"{name}: TypeAlias = {self.expr(schema, name)!r}")


def _py_literal(value: Any) -> str:
    return repr(value)


def render_python(schema: dict[str, Any]) -> str:
    types = _PyTypes()
    for name, sub in schema["$defs"].items():
        types.alias(_pascal(name), sub)
    ops = schema["ops"]
    for op, spec in ops.items():
        types.alias(f"{_pascal(op)}Args", spec["args"])
        types.alias(f"{_pascal(op)}Result", spec["result"])
    events = schema["events"]
    for ev, sub in events.items():
        types.alias(f"{_pascal(ev)}Event", sub)
    commands = schema.get("commands", {})
    for cmd, sub in commands.items():
        types.alias(f"{_pascal(cmd)}Command", {k: v for k, v in sub.items() if k != "description"})
    names = sorted(b.split(" ", 1)[0].rstrip(":") for b in types.blocks)
    fields = {ev: tuple(sub.get("required", [])) for ev, sub in events.items()}
    out = [
        '"""Wire types of the side-panel protocol and the agent\'s events, GENERATED from',
        "``shell_agent_lab/notebook/protocol.json`` by ``labextension/scripts/gen_protocol_types.py``.",
        "Do not edit by hand: edit the schema and regenerate (a test fails when this file is stale).",
        '"""',
        "from __future__ import annotations",
        "",
        "import sys",
        "from typing import Any, Literal, TypeAlias, TypedDict",
        "",
        "if sys.version_info >= (3, 11):",
        "    from typing import NotRequired",
        "else:  # pragma: no cover",
        "    from typing_extensions import NotRequired",
        "",
        "__all__ = [",
        *(f"    {n!r}," for n in ["PROTOCOL_VERSION", "COMM_TARGET", "OP_NAMES", "EVENT_NAMES", "EVENT_FIELDS",
                               "COMMAND_NAMES", *names]),
        "]",
        "",
        f"PROTOCOL_VERSION = {int(schema['version'])}",
        f"COMM_TARGET = {schema['comm_target']!r}",
        f"OP_NAMES: tuple[str, ...] = {tuple(ops)!r}",
        "#: every event of the agent's bus, in the schema's order",
        f"EVENT_NAMES: tuple[str, ...] = {tuple(events)!r}",
        "#: event name -> the keys its payload always carries",
        "EVENT_FIELDS: dict[str, tuple[str, ...]] = {",
        *(f"    {ev!r}: {keys!r}," for ev, keys in fields.items()),
        "}",
        f"COMMAND_NAMES: tuple[str, ...] = {tuple(commands)!r}",
        "",
    ]
    for block in types.blocks:
        out += ["", block]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    outputs = {TARGET: render(schema), PY_TARGET: render_python(schema)}
    if "--check" in argv:
        stale = [path for path, text in outputs.items()
                 if (path.read_text(encoding="utf-8") if path.exists() else "") != text]
        for path in stale:
            print(f"{path} is stale: run python labextension/scripts/gen_protocol_types.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
