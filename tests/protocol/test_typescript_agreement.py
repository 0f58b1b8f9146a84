"""The panel's TypeScript and the kernel's Python speak the same protocol.

* the TS wire types (``labextension/src/protocol.generated.ts``) are exactly what the schema
  generates, so editing either one alone fails here;
* the whole panel type-checks against those types (every request it builds, every result it
  reads), and a schema change the panel was not updated for makes that type-check fail;
* the request builder the panel really runs emits messages the schema (and so the kernel) accepts.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shell_agent_lab.notebook import comm

from .conftest import SCHEMA_PATH, assert_valid

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "labextension"
TSC = LAB / "node_modules" / "typescript" / "bin" / "tsc"
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(
    NODE is None or not TSC.exists(),
    reason="needs node and labextension/node_modules (run `make setup`, which runs jlpm install)",
)

#: one valid argument object per op (the builder's output must pass the schema with these)
EXAMPLES = {
    "hello": {"protocol": 1, "client": "jupyterlab", "notebook_path": "a.ipynb", "session_key": "abc"},
    "send": {"message": "which regions had anomalous weeks?"},
    "abort": {},
    "approve": {"request_id": "r1", "approved": False, "feedback": "add a LIMIT"},
    "history": {},
    "memory_list": {},
    "memory_pin": {"entry_id": 3, "category": "decision"},
    "memory_demote": {"entry_id": 4},
    "memory_edit": {"scope": "global", "entry_id": 4, "fact": "FY starts in April"},
    "memory_delete": {"scope": "session", "ids": [1, 2]},
    "findings_list": {},
    "findings_add": {"content": "Week 12 dropped", "tags": ["high"]},
    "findings_pin": {"finding_id": "f-1", "category": "preference"},
    "findings_delete": {"ids": ["f-1", "f-2"]},
    "data_list": {},
    "sessions_list": {},
    "sessions_rename": {"session_id": "s1", "title": "Q1"},
    "sessions_delete": {"session_id": "s1"},
    "sessions_export": {"session_id": "s1"},
    "sessions_import": {"filename": "s.shellagent", "data_base64": "UEsDBA=="},
    "objects_attach": {"filename": "notes.md", "data_base64": "aGk="},
    "settings_get": {},
    "settings_set": {"approvals": {"query_sql": "allow"}, "auto_extraction": True},
    "notebook_cells": {"cells": [{"index": 1, "kind": "code", "source": "1/0", "output": "",
                                  "error": "ZeroDivisionError: division by zero", "id": "c1"}]},
    "cells_changed": {"turn": "3f2a9c01b7de", "inserted": ["c10"],
                      "replaced": [{"id": "c9", "source": "x = 1", "metadata": {"tags": []}}],
                      "removed": [{"id": "c8", "source": "y = 2", "metadata": {}, "after_id": "c7"}]},
    "undo_cells": {"turn": "3f2a9c01b7de"},
}


def _generator():
    spec = importlib.util.spec_from_file_location("gen_protocol_types", LAB / "scripts" / "gen_protocol_types.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def test_generated_typescript_is_up_to_date():
    gen = _generator()
    committed = (LAB / "src" / "protocol.generated.ts").read_text()
    assert committed == gen.render(_schema()), (
        "labextension/src/protocol.generated.ts differs from the schema: "
        "run python labextension/scripts/gen_protocol_types.py")


def test_generated_python_is_up_to_date():
    gen = _generator()
    committed = (LAB.parent / "shell_agent_lab" / "protocol_types.py").read_text()
    assert committed == gen.render_python(_schema()), (
        "shell_agent_lab/protocol_types.py differs from the schema: "
        "run python labextension/scripts/gen_protocol_types.py")


def test_the_check_fails_when_a_generated_file_is_stale(tmp_path, monkeypatch):
    gen = _generator()
    for target in ("TARGET", "PY_TARGET"):
        stale = tmp_path / f"{target}.txt"
        stale.write_text("stale")
        fresh = {name: tmp_path / f"{name}-fresh.txt" for name in ("TARGET", "PY_TARGET")}
        monkeypatch.setattr(gen, "TARGET", fresh["TARGET"])
        monkeypatch.setattr(gen, "PY_TARGET", fresh["PY_TARGET"])
        assert gen.main([]) == 0 and gen.main(["--check"]) == 0
        monkeypatch.setattr(gen, target, stale)
        assert gen.main(["--check"]) == 1


def test_a_schema_change_alone_changes_the_generated_python():
    gen = _generator()
    schema = _schema()
    schema["events"]["queued"]["properties"]["queued_at"] = schema["events"]["queued"]["properties"].pop("at")
    assert gen.render_python(schema) != (LAB.parent / "shell_agent_lab" / "protocol_types.py").read_text()


def test_a_schema_change_alone_changes_the_generated_types():
    gen = _generator()
    schema = _schema()
    props = schema["ops"]["send"]["args"]["properties"]
    props["text"] = props.pop("message")
    schema["ops"]["send"]["args"]["required"] = ["text"]
    assert gen.render(schema) != (LAB / "src" / "protocol.generated.ts").read_text()


def test_examples_cover_every_op_and_match_the_schema():
    assert set(EXAMPLES) == set(comm.load_protocol()["ops"])
    for op, args in EXAMPLES.items():
        assert_valid(f"#/ops/{op}/args", args)


def _tsc(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run([NODE, str(TSC), "--noEmit", "-p", str(project)], capture_output=True, text=True,
                          timeout=240, cwd=project)


def _copy_project(tmp_path: Path) -> Path:
    project = tmp_path / "lab"
    shutil.copytree(LAB / "src", project / "src")
    shutil.copy(LAB / "tsconfig.json", project / "tsconfig.json")
    os.symlink(LAB / "node_modules", project / "node_modules")
    cfg = json.loads((project / "tsconfig.json").read_text())
    cfg["compilerOptions"].update({"composite": False, "incremental": False, "declaration": False})
    (project / "tsconfig.json").write_text(json.dumps(cfg))
    return project


@needs_node
def test_the_panel_type_checks_against_the_generated_types(tmp_path):
    result = _tsc(_copy_project(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


@needs_node
def test_a_schema_change_the_panel_was_not_updated_for_fails_the_type_check(tmp_path):
    project = _copy_project(tmp_path)
    schema = _schema()
    props = schema["ops"]["send"]["args"]["properties"]
    props["text"] = props.pop("message")          # the kernel would now expect {text}
    schema["ops"]["send"]["args"]["required"] = ["text"]
    (project / "src" / "protocol.generated.ts").write_text(_generator().render(schema))
    result = _tsc(project)
    assert result.returncode != 0
    assert "chat.ts" in result.stdout and "message" in result.stdout


@needs_node
def test_a_panel_side_change_alone_fails_the_type_check(tmp_path):
    project = _copy_project(tmp_path)
    chat = project / "src" / "tabs" / "chat.ts"
    source = chat.read_text()
    assert "this.host.request('send', { message }" in source
    chat.write_text(source.replace("this.host.request('send', { message }", "this.host.request('send', { text: message }"))
    result = _tsc(project)
    assert result.returncode != 0 and "chat.ts" in result.stdout


@needs_node
def test_the_request_builder_emits_schema_valid_messages(tmp_path):
    out = tmp_path / "cjs"
    compiled = subprocess.run(
        [NODE, str(TSC), "--module", "commonjs", "--target", "ES2019", "--moduleResolution", "node", "--skipLibCheck",
         "--strict", "--lib", "DOM,ES2019", "--outDir", str(out),
         str(LAB / "src" / "client.ts"), str(LAB / "src" / "protocol.generated.ts")],
        capture_output=True, text=True, timeout=240, cwd=LAB)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    script = (
        "const c = require(process.argv[1]); const ex = JSON.parse(process.argv[2]);"
        "const out = {}; for (const [op, args] of Object.entries(ex)) out[op] = c.buildRequest('id-' + op, op, args);"
        "process.stdout.write(JSON.stringify(out));"
    )
    env = {**os.environ, "NODE_PATH": str(LAB / "node_modules")}
    run = subprocess.run([NODE, "-e", script, str(out / "client.js"), json.dumps(EXAMPLES)],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    built = json.loads(run.stdout)
    for op, message in built.items():
        assert_valid("#/$defs/RequestMessage", message)
        assert message["op"] == op and message["args"] == EXAMPLES[op]
        assert_valid(f"#/ops/{op}/args", message["args"])


def test_a_python_side_shape_change_alone_fails_validation(call, monkeypatch):
    original = comm._OPS["abort"]
    monkeypatch.setitem(comm._OPS, "abort", lambda d, a: {**original(d, a), "stopped": True})
    with pytest.raises(AssertionError, match="abort/result"):
        call("abort")


@needs_node
def test_an_event_payload_change_the_panel_was_not_updated_for_fails_the_type_check(tmp_path):
    project = _copy_project(tmp_path)
    schema = _schema()
    event = schema["events"]["stream_token"]
    event["properties"]["turn"] = event["properties"].pop("turn_id")   # the kernel would now send {turn}
    event["required"] = ["turn", "text"]
    (project / "src" / "protocol.generated.ts").write_text(_generator().render(schema))
    result = _tsc(project)
    assert result.returncode != 0 and "chat.ts" in result.stdout, result.stdout
