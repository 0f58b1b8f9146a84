"""The protocol schema is well formed and covers exactly what the kernel implements and publishes."""
from __future__ import annotations

import json
import re

from jsonschema import Draft202012Validator

from shell_agent_lab.notebook import comm

from .conftest import SCHEMA_PATH, assert_valid


def test_schema_is_valid_json_schema():
    root = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(root)
    for name, spec in root["ops"].items():
        Draft202012Validator.check_schema(spec["args"])
        Draft202012Validator.check_schema(spec["result"])
        assert spec["description"], name
    for name, spec in root["commands"].items():
        Draft202012Validator.check_schema(spec)
        assert spec["description"], name
    assert root["version"] == comm.PROTOCOL_VERSION
    assert root["comm_target"] == comm.COMM_TARGET


def test_every_op_has_a_handler_and_every_handler_an_op():
    root = json.loads(SCHEMA_PATH.read_text())
    assert set(root["ops"]) == set(comm._OPS)


_PUBLISHED = re.compile(r"""publish\(\s*["'](\w+)["']""")
_PAYLOAD = re.compile(r"""\(\s*["'](\w+)["'],\s*\{([^{}]*)\}""")
_KEY = re.compile(r"""["'](\w+)["']\s*:""")


def published_events(source: str, events: dict) -> tuple[set[str], list[tuple[str, str]]]:
    """Event names passed to ``publish(...)`` in ``source``, and (event, key) pairs of payload
    literals ``("event", {"key": ...})`` whose key the schema does not declare."""
    names = set(_PUBLISHED.findall(source))
    undeclared = [(name, key) for name, body in _PAYLOAD.findall(source) if name in events
                  for key in _KEY.findall(body) if key not in events[name].get("properties", {})]
    return names, undeclared


def test_every_published_event_and_payload_key_is_in_the_schema():
    events = json.loads(SCHEMA_PATH.read_text())["events"]
    package = SCHEMA_PATH.parents[1]
    names: set[str] = set()
    undeclared: list[tuple[str, str]] = []
    for path in package.rglob("*.py"):
        found, extra = published_events(path.read_text(encoding="utf-8"), events)
        names |= found
        undeclared += [(f"{path.relative_to(package)}: {event}", key) for event, key in extra]
    assert names <= set(events), f"published but not in protocol.json: {sorted(names - set(events))}"
    assert not undeclared, f"payload keys protocol.json does not declare: {undeclared}"


def test_an_undeclared_payload_key_is_found():
    events = json.loads(SCHEMA_PATH.read_text())["events"]
    source = 'return [("queued", {"message": m, "at": t, "turn": turn.id})]\nself.publish("no_such_event", {})'
    names, undeclared = published_events(source, events)
    assert names == {"no_such_event"} and undeclared == [("queued", "turn")]


def test_the_packaged_schema_is_the_one_loaded():
    assert comm.load_protocol() == json.loads(SCHEMA_PATH.read_text())


def test_envelopes_reject_wrong_versions_and_shapes():
    assert_valid("#/$defs/RequestMessage", {"v": 1, "id": "a", "op": "hello", "args": {}})
    for bad in ({"v": 2, "id": "a", "op": "hello", "args": {}},
                {"v": 1, "op": "hello", "args": {}},
                {"v": 1, "id": "a", "op": "hello", "args": {}, "extra": 1}):
        try:
            assert_valid("#/$defs/RequestMessage", bad)
        except AssertionError:
            continue
        raise AssertionError(f"accepted {bad}")


def test_the_protocol_page_names_every_op_and_event():
    page = (SCHEMA_PATH.parents[2] / "docs" / "protocol.md").read_text()
    root = json.loads(SCHEMA_PATH.read_text())
    missing = [f"`{name}`" for name in [*root["ops"], *root["events"], *root["commands"]] if f"`{name}`" not in page]
    assert not missing, f"docs/protocol.md does not mention {', '.join(missing)}"


def test_the_panel_and_the_kernel_package_share_one_version():
    from shell_agent_lab import __version__

    package = json.loads((SCHEMA_PATH.parents[2] / "labextension" / "package.json").read_text())
    assert package["version"] == __version__, "bump labextension/package.json with shell_agent_lab/_version.py"
    assert package["name"] == "shell-agent-lab" and package["jupyterlab"]["outputDir"] == "../shell_agent_lab/labextension"
