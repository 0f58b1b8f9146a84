"""Hand-built bundles: one well-formed baseline and a corpus of hostile variants.

Every hostile case is a function ``(dir) -> (path, expected substring of the error)``; the
tests feed each to the validator and to the real import and check the data dir afterwards.
"""
from __future__ import annotations

import json
import stat
import struct
import zipfile
from pathlib import Path
from typing import Callable

OBJ_A = "a" * 32
OBJ_B = "0123456789abcdef" * 2


def manifest(**override) -> dict:
    body = {
        "kind": "shell-agent-lab-session",
        "schema_version": 1,
        "exported_at": "2026-11-20T10:00:00+00:00",
        "exported_by_app_version": "0.1.0",
        "session": {"original_id": "s-old", "title": "Sales review", "private": False,
                    "profile": None, "notebook_path": "sales.ipynb"},
    }
    body.update(override)
    return body


def records() -> list[dict]:
    return [
        {"seq": 1, "role": "user", "content": "look at object:" + OBJ_A,
         "created_at": "2026-11-20T09:00:00+00:00"},
        {"seq": 2, "role": "assistant", "content": f"See ![chart](object:{OBJ_B}) and {OBJ_A}.",
         "created_at": "2026-11-20T09:00:05+00:00"},
    ]


def objects_index() -> list[dict]:
    return [
        {"id": OBJ_A, "type": "markdown", "mime_type": "text/markdown", "name": "notes.md",
         "size": 5, "created_at": "2026-11-20T09:00:00+00:00"},
        {"id": OBJ_B, "type": "image", "mime_type": "image/png", "name": "c.png",
         "size": 4, "created_at": "2026-11-20T09:00:01+00:00"},
    ]


def baseline_entries() -> list[tuple[str, bytes]]:
    return [
        ("manifest.json", json.dumps(manifest()).encode()),
        ("records.json", json.dumps(records()).encode()),
        ("session_memory.json", b"[]"),
        ("findings.json", b"[]"),
        ("summaries.json", json.dumps([{"key": "k1", "summary": f"used {OBJ_A}",
                                        "created_at": "2026-11-20T09:01:00+00:00"}]).encode()),
        ("objects/index.json", json.dumps(objects_index()).encode()),
        ("objects/data/" + OBJ_A, b"# hi\n"),
        ("objects/data/" + OBJ_B, b"\x89PNG"),
    ]


def write_zip(path: Path, entries: list[tuple[str | zipfile.ZipInfo, bytes]],
              compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in entries:
            if isinstance(name, zipfile.ZipInfo):
                zf.writestr(name, data)
            else:
                zf.writestr(name, data)
    return path


def _replace(entries, name, data):
    return [(n, data if n == name else d) for n, d in entries]


def _drop(entries, name):
    return [(n, d) for n, d in entries if n != name]


def _symlink_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def traversal(d: Path):
    return write_zip(d / "t.shellagent", baseline_entries() + [("../evil.txt", b"x")]), "traversal"


def traversal_nested(d: Path):
    return (write_zip(d / "t2.shellagent", baseline_entries() + [("objects/../../evil", b"x")]),
            "traversal")


def absolute(d: Path):
    return write_zip(d / "a.shellagent", baseline_entries() + [("/tmp/evil.txt", b"x")]), "absolute"


def drive_letter(d: Path):
    return write_zip(d / "dl.shellagent", baseline_entries() + [("C:/evil.txt", b"x")]), "absolute"


def backslash(d: Path):
    return (write_zip(d / "b.shellagent", baseline_entries() + [("objects\\..\\evil", b"x")]),
            "backslash")


def symlink(d: Path):
    entries = _drop(baseline_entries(), "objects/data/" + OBJ_A)
    entries.append((_symlink_info("objects/data/" + OBJ_A), b"/etc/passwd"))
    return write_zip(d / "s.shellagent", entries), "symbolic link"


def duplicate(d: Path):
    return (write_zip(d / "dup.shellagent", baseline_entries() + [("records.json", b"[]")]),
            "two entries named")


def unexpected(d: Path):
    return (write_zip(d / "u.shellagent", baseline_entries() + [("scripts/run.sh", b"rm -rf /")]),
            "unexpected entry")


def work_traversal(d: Path):
    return (write_zip(d / "wt.shellagent", baseline_entries() + [("work/../../../.bashrc", b"x")]),
            "traversal")


def work_symlink(d: Path):
    return (write_zip(d / "ws.shellagent", baseline_entries() + [(_symlink_info("work/key"), b"/root/.ssh/id_rsa")]),
            "symbolic link")


def work_file_under_file(d: Path):
    entries = baseline_entries() + [("work/out", b"a file"), ("work/out/inner.txt", b"x")]
    return write_zip(d / "wf.shellagent", entries), "which is a file"


def work_name_too_long(d: Path):
    return (write_zip(d / "wl.shellagent", baseline_entries() + [("work/" + "a" * 300, b"x")]),
            "unexpected entry")


def too_many(d: Path):
    extra = [(f"objects/data/{i:032x}", b"") for i in range(40)]
    return write_zip(d / "many.shellagent", baseline_entries() + extra), "entries"


def zip_bomb(d: Path):
    # 4 MiB of zeros deflates to ~4 KiB: a 1000x ratio (the tests' limits allow 200x past 1 MiB)
    entries = baseline_entries() + [("analysis.duckdb", b"\0" * (4 * 1024 * 1024))]
    return write_zip(d / "bomb.shellagent", entries), "zip bomb"


def declared_oversize(d: Path):
    entries = baseline_entries() + [("analysis.duckdb", b"DUCK" * (3 * 1024 * 1024))]
    return write_zip(d / "big.shellagent", entries, zipfile.ZIP_STORED), "declares"


def lying_sizes(d: Path):
    """Central directory and local header claim 100 bytes; the deflated data holds 2 MiB."""
    path = write_zip(d / "lie.shellagent", baseline_entries() + [("analysis.duckdb", b"\1" * (2 << 20))])
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("analysis.duckdb")
    # local header: uncompressed size at offset 22
    struct.pack_into("<I", raw, info.header_offset + 22, 100)
    # central directory record: find it by its signature and file name
    name = b"analysis.duckdb"
    pos = raw.rfind(b"PK\x01\x02", 0, raw.rfind(name) + 1)
    struct.pack_into("<I", raw, pos + 24, 100)
    path.write_bytes(bytes(raw))
    return path, "analysis.duckdb"


def no_manifest(d: Path):
    return write_zip(d / "nm.shellagent", _drop(baseline_entries(), "manifest.json")), "no manifest"


def bad_manifest_json(d: Path):
    entries = _replace(baseline_entries(), "manifest.json", b"{not json")
    return write_zip(d / "bm.shellagent", entries), "not valid UTF-8 JSON"


def manifest_not_object(d: Path):
    entries = _replace(baseline_entries(), "manifest.json", b"[1, 2]")
    return write_zip(d / "mno.shellagent", entries), "not a JSON object"


def manifest_missing_session(d: Path):
    body = manifest()
    del body["session"]
    entries = _replace(baseline_entries(), "manifest.json", json.dumps(body).encode())
    return write_zip(d / "ms.shellagent", entries), "'session'"


def manifest_private_not_bool(d: Path):
    body = manifest()
    body["session"]["private"] = "yes"
    entries = _replace(baseline_entries(), "manifest.json", json.dumps(body).encode())
    return write_zip(d / "mp.shellagent", entries), "'private'"


def wrong_schema_version(d: Path):
    entries = _replace(baseline_entries(), "manifest.json",
                       json.dumps(manifest(schema_version=2)).encode())
    return write_zip(d / "v2.shellagent", entries), "schema_version 2"


def schema_version_string(d: Path):
    entries = _replace(baseline_entries(), "manifest.json",
                       json.dumps(manifest(schema_version="1")).encode())
    return write_zip(d / "vs.shellagent", entries), "schema_version"


def wrong_kind(d: Path):
    entries = _replace(baseline_entries(), "manifest.json",
                       json.dumps(manifest(kind="shell-agent-v2-global-memory")).encode())
    return write_zip(d / "k.shellagent", entries), "kind"


def missing_records(d: Path):
    return write_zip(d / "nr.shellagent", _drop(baseline_entries(), "records.json")), "records.json"


def bad_record(d: Path):
    recs = records()
    recs[1]["role"] = "root"
    entries = _replace(baseline_entries(), "records.json", json.dumps(recs).encode())
    return write_zip(d / "br.shellagent", entries), "unknown role"


def record_wrong_type(d: Path):
    recs = records()
    recs[0]["content"] = {"x": 1}
    entries = _replace(baseline_entries(), "records.json", json.dumps(recs).encode())
    return write_zip(d / "bt.shellagent", entries), "wrong type"


def deeply_nested_json(d: Path):
    entries = _replace(baseline_entries(), "records.json", b"[" * 200_000 + b"]" * 200_000)
    return write_zip(d / "deep.shellagent", entries), "not valid UTF-8 JSON"


def huge_integer(d: Path):
    body = b'[{"seq": ' + b"9" * 50_000 + b', "role": "user", "content": "x", "created_at": "2026-11-20T09:00:00+00:00"}]'
    entries = _replace(baseline_entries(), "records.json", body)
    return write_zip(d / "bigint.shellagent", entries), "not valid UTF-8 JSON"


def not_utf8(d: Path):
    entries = _replace(baseline_entries(), "findings.json", b"[\xff\xfe]")
    return write_zip(d / "latin.shellagent", entries), "not valid UTF-8 JSON"


def missing_object(d: Path):
    return (write_zip(d / "mo.shellagent", _drop(baseline_entries(), "objects/data/" + OBJ_B)),
            "no data")


def orphan_object(d: Path):
    extra = "f" * 32
    return (write_zip(d / "oo.shellagent", baseline_entries() + [("objects/data/" + extra, b"x")]),
            "not listed in the index")


def object_size_mismatch(d: Path):
    index = objects_index()
    index[0]["size"] = 999
    entries = _replace(baseline_entries(), "objects/index.json", json.dumps(index).encode())
    return write_zip(d / "os.shellagent", entries), "the index says"


def truncated(d: Path):
    path = write_zip(d / "full.shellagent", baseline_entries())
    cut = d / "trunc.shellagent"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    path.unlink()
    return cut, "truncated"


def truncated_entry(d: Path):
    """Central directory intact, but an entry's data is damaged."""
    path = write_zip(d / "te.shellagent", baseline_entries())
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("records.json")
    start = info.header_offset + 30 + len(info.filename.encode())
    for i in range(start, start + info.compress_size):
        raw[i] = 0
    path.write_bytes(bytes(raw))
    return path, "records.json"


def not_a_zip(d: Path):
    p = d / "plain.shellagent"
    p.write_text("hello, I am not a zip")
    return p, "not a ZIP"


def fake_database(d: Path):
    entries = baseline_entries() + [("analysis.duckdb", b"this is not a database" * 10)]
    return write_zip(d / "fdb.shellagent", entries), "analysis database"


HOSTILE: dict[str, Callable[[Path], tuple[Path, str]]] = {
    f.__name__: f for f in (
        traversal, traversal_nested, absolute, drive_letter, backslash, symlink, duplicate,
        unexpected, work_traversal, work_symlink, work_file_under_file, work_name_too_long, too_many, zip_bomb, declared_oversize, lying_sizes, no_manifest,
        bad_manifest_json, manifest_not_object, manifest_missing_session,
        manifest_private_not_bool, wrong_schema_version, schema_version_string, wrong_kind,
        missing_records, bad_record, record_wrong_type, deeply_nested_json, huge_integer, not_utf8,
        missing_object, orphan_object,
        object_size_mismatch, truncated, truncated_entry, not_a_zip, fake_database,
    )
}
