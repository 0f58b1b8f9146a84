"""Global Memory export/import envelope."""
from __future__ import annotations

import json

import pytest

from shell_agent_lab.store import Caps, InvalidImportError, parse_envelope


def test_export_import_roundtrip_preserves_fields(open_store, tmp_path):
    src = open_store()
    src.global_memory.add("User prefers Go", "preference", source="user_turn", native_fact="Goが好き",
                          tool_originated=True)
    src.global_memory.set("Always label axes", "decision")
    envelope = src.global_memory.export()
    assert envelope["kind"] == "shell-agent-lab-global-memory" and envelope["schema_version"] == 1
    assert envelope["exported_at"] and envelope["exported_by_app_version"]
    text = json.dumps(envelope)

    from shell_agent_lab.store import Store

    dst = Store.open(tmp_path / "other")
    try:
        result = dst.global_memory.import_(parse_envelope(text))
        assert (result.added, result.skipped) == (2, 0)
        before = {e.fact: e for e in src.global_memory.list()}
        for e in dst.global_memory.list():
            b = before[e.fact]
            assert (e.native_fact, e.category, e.source, e.tool_originated) == (
                b.native_fact, b.category, b.source, b.tool_originated)
            assert e.created_at == b.created_at and e.source_time == b.source_time
        assert [e.fact for e in dst.global_memory.list()] == [e.fact for e in src.global_memory.list()]
    finally:
        dst.close()


@pytest.mark.parametrize(
    "text,message",
    [
        ("not json at all", "not a JSON file"),
        ("[]", "expected a JSON object"),
        (json.dumps({"kind": "something-else", "schema_version": 1, "entries": []}), "kind is 'something-else'"),
        (json.dumps({"kind": "shell-agent-lab-global-memory", "schema_version": 2, "entries": []}), "schema_version 2"),
        (json.dumps({"kind": "shell-agent-lab-global-memory", "schema_version": True, "entries": []}), "schema_version True"),
        (json.dumps({"kind": "shell-agent-lab-global-memory", "schema_version": 1, "entries": {}}), "entries must be a list"),
    ],
)
def test_parse_rejects_foreign_files(text, message):
    with pytest.raises(InvalidImportError, match=message):
        parse_envelope(text)


def test_parse_accepts_a_valid_envelope():
    env = parse_envelope(json.dumps({"kind": "shell-agent-lab-global-memory", "schema_version": 1, "entries": []}))
    assert env["entries"] == []


def test_import_merges_skips_and_coerces(store):
    store.global_memory.add("User prefers Go", "preference", source="user_turn")
    envelope = {
        "kind": "shell-agent-lab-global-memory", "schema_version": 1,
        "entries": [
            {"fact": "User prefers Go", "category": "preference"},                       # duplicate
            {"fact": "   ", "category": "decision"},                                     # empty
            {"fact": "Use ISO dates", "category": "fact", "created_at": "2025-01-02T03:04:05Z"},
            {"fact": "Round to 2 decimals", "category": "preference", "source": "evil"},
        ],
    }
    result = store.global_memory.import_(envelope)
    assert (result.added, result.skipped, result.touched) == (2, 1, 1)   # a duplicate is merged, not skipped
    by_fact = {e.fact: e for e in store.global_memory.list()}
    assert by_fact["Use ISO dates"].category == "decision"
    assert by_fact["Use ISO dates"].created_at.isoformat() == "2025-01-02T03:04:05+00:00"
    assert by_fact["Round to 2 decimals"].source == ""
    assert by_fact["Round to 2 decimals"].created_at.year == 2026  # stamped now


def test_import_is_bounded_by_the_cap(open_store):
    store = open_store(Caps(global_memory=5))
    entries = [{"fact": f"fact number {i} about topic{i}", "category": "decision"} for i in range(20)]
    store.global_memory.import_({"kind": "shell-agent-lab-global-memory", "schema_version": 1, "entries": entries})
    assert len(store.global_memory.list()) == 5


def test_invalid_import_writes_nothing(store):
    store.global_memory.add("User prefers Go", "preference", source="user_turn")
    with pytest.raises(InvalidImportError):
        store.global_memory.import_({"kind": "shell-agent-lab-global-memory", "schema_version": 3, "entries": [{"fact": "x"}]})
    assert [e.fact for e in store.global_memory.list()] == ["User prefers Go"]
