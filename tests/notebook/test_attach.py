"""Attaching documents and images: /attach, /objects, --attach / --image, shell_agent_lab.attach()."""
from __future__ import annotations

import json
import os

import pytest
from nbhelpers import run

import shell_agent_lab
from shell_agent_lab.llm.scripted import call, reply
from shell_agent_lab.llm.types import Capabilities
from shell_agent_lab.notebook import attach as att
from shell_agent_lab.notebook.runtime import get_runtime

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
JPEG = b"\xff\xd8\xff\xe0" + b"\x00\x10JFIF" + bytes(30)
GIF = b"GIF89a" + bytes(20)
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(20)
NOTES = "# Field notes\nThe EU warehouse ran out of stock on 12 March.\nNothing else happened.\n"


def _texts(cap):
    return "\n".join(o.data.get("text/markdown") or o.data.get("text/plain") or "" for o in cap.outputs)


def _agent():
    return get_runtime().agent


def _objects():
    agent = _agent()
    return agent.store.objects.list(agent.session.id)


def _error(res) -> str:
    assert res.error_in_exec is not None, "the cell should have failed"
    return str(res.error_in_exec)


@pytest.fixture
def notes(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text(NOTES, encoding="utf-8")
    return path


@pytest.fixture
def chart(tmp_path):
    path = tmp_path / "chart.png"
    path.write_bytes(PNG)
    return path


# -- classification ---------------------------------------------------------------------------
@pytest.mark.parametrize("data,mime", [(PNG, "image/png"), (JPEG, "image/jpeg"), (GIF, "image/gif"),
                                       (WEBP, "image/webp"), (b"just text", None), (b"RIFF1234WAVE", None)])
def test_images_are_known_by_their_first_bytes(data, mime):
    assert att.sniff_image(data) == mime


def test_the_suffix_does_not_decide():
    assert att.classify(PNG, "scan.txt") == ("image", "image/png")
    with pytest.raises(att.AttachError, match="not a PNG, JPEG, GIF or WebP image"):
        att.classify(b"hello", "chart.png")
    with pytest.raises(att.AttachError, match="not UTF-8 text"):
        att.classify("café".encode("latin-1"), "notes.txt")
    with pytest.raises(att.AttachError, match="binary"):
        att.classify(b"%PDF\x00\x01", "paper.pdf")
    assert att.classify(b"a,b\n1,2\n", "t.csv") == ("markdown", "text/csv")
    assert att.classify(b"{}", "x.json") == ("markdown", "application/json")
    assert att.classify(b"print(1)", "x.py") == ("markdown", "text/x-python")
    assert att.classify(b"plain", "README") == ("markdown", "text/plain")


# -- /attach and /objects -----------------------------------------------------------------------
def test_attach_a_document_lists_it_and_the_next_question_carries_its_anchor(shell, backend, notes):
    res, cap = run(shell, "%agent /attach notes.md")
    res.raise_error()
    [meta] = _objects()
    assert (meta.type, meta.mime_type, meta.name, meta.session_id) == ("markdown", "text/markdown", "notes.md",
                                                                      _agent().session.id)
    assert meta.id in _texts(cap)
    res, cap = run(shell, "%agent /objects")
    res.raise_error()
    assert meta.id in _texts(cap) and "notes.md" in _texts(cap)

    backend.enqueue("It is about stock.")
    res, _ = run(shell, "%agent what are my notes about?")
    res.raise_error()
    user = backend.last_request.messages[-1]
    anchor = f"Document (object ID: {meta.id}, name: notes.md, {meta.tokens} tokens):"
    # the anchor is outside the guard envelope, the question inside it
    assert anchor + "\n<user_data_" in user.content
    assert user.content.index(anchor) < user.content.index("what are my notes about?")
    assert user.images == []
    backend.enqueue("Again.")
    res, _ = run(shell, "%agent and now?")
    res.raise_error()
    assert "Document (object ID" not in backend.last_request.messages[-1].content   # announced once


def test_grep_text_and_analyze_text_read_an_attached_document(shell, backend, notes):
    run(shell, "%agent /attach notes.md")[0].raise_error()
    [meta] = _objects()
    backend.enqueue(call("grep_text", {"object": meta.id, "pattern": "out of stock"}), "Found it.")
    res, _ = run(shell, "%agent when did we run out?")
    res.raise_error()
    tool = next(m for m in backend.last_request.messages if m.role == "tool")
    assert "2: The EU warehouse ran out of stock on 12 March." in tool.content

    chunk = json.dumps({"summary": "stock-out", "new_findings": [
        {"description": "EU warehouse stock-out on 12 March", "severity": "high"}]})
    backend.enqueue(call("analyze_text", {"object": meta.id, "perspective": "supply problems"}), chunk, "Read it.")
    res, _ = run(shell, "%agent read the notes for supply problems")
    res.raise_error()
    assert any("ran out of stock on 12 March" in r.last_user for r in backend.requests[-2:])   # the chunk
    result = [m for m in backend.last_request.messages if m.role == "tool"][-1]
    assert "Findings recorded: 1" in result.content
    findings = _agent().store.findings.list(_agent().session.id)
    assert any("stock-out on 12 March" in f.content for f in findings)


def test_list_objects_tool_shows_attachments(shell, backend, notes, chart):
    run(shell, "%agent /attach notes.md chart.png")[0].raise_error()
    backend.enqueue(call("list_objects", {}), "Two objects.")
    run(shell, "%agent what did I attach?")[0].raise_error()
    tool = next(m for m in backend.last_request.messages if m.role == "tool")
    assert "notes.md" in tool.content and "chart.png" in tool.content and "image" in tool.content


def test_an_image_reaches_an_image_capable_model_as_message_images(shell, backend, chart):
    backend.enqueue("A bar chart.")
    res, _ = run(shell, "%agent --image chart.png What does this show?")
    res.raise_error()
    [meta] = _objects()
    assert (meta.type, meta.mime_type) == ("image", "image/png")
    user = backend.last_request.messages[-1]
    assert user.images == [("image/png", PNG)]
    assert user.content.split("\n")[2] == f"Image (object ID: {meta.id}):"
    assert "What does this show?" in user.content


def test_attach_by_command_then_ask_sends_the_image_and_delete_stops_it(shell, backend, chart):
    run(shell, "%agent /attach chart.png")[0].raise_error()
    [meta] = _objects()
    backend.enqueue("Seen.", "Still seen.", "Gone.")
    run(shell, "%agent describe it")[0].raise_error()
    assert backend.last_request.messages[-1].images == [("image/png", PNG)]
    run(shell, "%agent more?")[0].raise_error()       # the image stays in the history's window
    assert [m.images for m in backend.last_request.messages if m.role == "user"][0] == [("image/png", PNG)]
    res, cap = run(shell, f"%agent /objects delete {meta.id[:8]}")
    res.raise_error()
    assert "Deleted 1 object" in _texts(cap) and _objects() == []
    run(shell, "%agent and now?")[0].raise_error()
    assert all(not m.images for m in backend.last_request.messages)


def test_cell_magic_attach_option(shell, backend, notes, chart):
    backend.enqueue("Both seen.")
    res, _ = run(shell, "%%agent --attach notes.md --attach=chart.png\nCompare the notes with the chart.\n")
    res.raise_error()
    user = backend.last_request.messages[-1]
    assert "Document (object ID:" in user.content and "Image (object ID:" in user.content
    assert user.images == [("image/png", PNG)]


def test_a_text_only_model_gets_a_one_line_error_and_nothing_is_stored(shell, backend, chart):
    backend.capabilities = Capabilities(streaming=True, native_tools=True, images=False)
    res, _ = run(shell, "%agent --image chart.png What does this show?")
    message = _error(res)
    assert "\n" not in message
    assert "cannot read images (chart.png)" in message and "/model" in message
    assert backend.requests == [] and _objects() == []
    res, _ = run(shell, "%agent /attach chart.png")
    assert "cannot read images" in _error(res) and _objects() == []


def test_a_pending_image_is_refused_when_the_model_changed_to_text_only(shell, backend, chart):
    run(shell, "%agent /attach chart.png")[0].raise_error()
    backend.capabilities = Capabilities(streaming=True, native_tools=True, images=False)
    res, _ = run(shell, "%agent what is it?")
    assert "/objects delete" in _error(res) and backend.requests == []
    [meta] = _objects()
    run(shell, f"%agent /objects delete {meta.id}")[0].raise_error()
    backend.enqueue("Fine.")
    run(shell, "%agent what is it?")[0].raise_error()
    assert "Image (object ID" not in backend.last_request.messages[-1].content


def test_a_text_only_model_never_gets_images_from_history(shell, backend, chart):
    run(shell, "%agent /attach chart.png")[0].raise_error()
    backend.enqueue("Seen.", "Text only.")
    run(shell, "%agent describe it")[0].raise_error()
    backend.capabilities = Capabilities(streaming=True, native_tools=True, images=False)
    run(shell, "%agent and in words?")[0].raise_error()
    assert all(not m.images for m in backend.last_request.messages)


# -- refusals ---------------------------------------------------------------------------------
def test_symlinks_directories_missing_and_control_characters_are_refused(shell, tmp_path, notes):
    os.symlink(notes, tmp_path / "link.md")
    (tmp_path / "folder").mkdir()
    for path, expected in [("link.md", "symbolic link"), ("folder", "is a directory"), ("missing.md", "no such file")]:
        assert expected in _error(run(shell, f"%agent /attach {path}")[0]), path
    assert "symbolic link" in _error(run(shell, "%agent --attach link.md what is it?")[0])
    with pytest.raises(ValueError, match="control characters"):
        shell_agent_lab.attach("notes\n.md")
    with pytest.raises(ValueError, match="symbolic link"):
        shell_agent_lab.attach(tmp_path / "link.md")
    assert _objects() == []


def test_oversize_files_are_refused_before_reading(shell, tmp_path, monkeypatch, notes, chart):
    from shell_agent_lab.store.models import Caps

    store = _agent().store
    monkeypatch.setattr(store, "caps", Caps(object_bytes=20))
    res, _ = run(shell, "%agent /attach notes.md")
    assert "over the 20 B attachment limit" in _error(res)
    monkeypatch.setattr(store, "caps", Caps())
    monkeypatch.setattr(att, "IMAGE_MAX_BYTES", 10)
    res, _ = run(shell, "%agent --image chart.png what?")
    assert "models take images up to 10 B" in _error(res)
    assert _objects() == []


def test_non_utf8_text_and_fake_images_are_refused(shell, tmp_path):
    (tmp_path / "old.txt").write_bytes("Grüße".encode("latin-1"))
    (tmp_path / "fake.png").write_text("not an image")
    assert "not UTF-8 text" in _error(run(shell, "%agent /attach old.txt")[0])
    assert "not a PNG, JPEG, GIF or WebP image" in _error(run(shell, "%agent /attach fake.png")[0])
    (tmp_path / "doc.md").write_text("hello")
    assert "not an image" in _error(run(shell, "%agent --image doc.md what?")[0])
    assert _objects() == []


def test_one_bad_path_stores_none(shell, notes):
    res, _ = run(shell, "%agent /attach notes.md missing.png")
    assert "no such file" in _error(res)
    assert _objects() == []


def test_objects_delete_refuses_unknown_ids_and_other_sessions(shell, notes):
    agent = _agent()
    other = agent.store.create_session(title="elsewhere").id
    theirs = agent.store.objects.put(other, b"secret", type="markdown", mime_type="text/plain", name="s.txt")
    assert "no object" in _error(run(shell, f"%agent /objects delete {theirs.id}")[0])
    assert "not an object id" in _error(run(shell, "%agent /objects delete xyz")[0])
    assert agent.store.objects.meta(theirs.id).id == theirs.id


# -- the Python API ---------------------------------------------------------------------------
def test_python_api_attaches_bytes_and_paths(shell, backend, notes):
    meta = shell_agent_lab.attach(b"col,val\nA,1\n", name="table.csv")
    assert (meta.type, meta.mime_type, meta.name) == ("markdown", "text/csv", "table.csv")
    image = shell_agent_lab.attach(GIF, name="anim")
    assert (image.type, image.mime_type) == ("image", "image/gif")
    doc = shell_agent_lab.attach(notes, name="my notes.md")
    assert doc.name == "my notes.md"
    with pytest.raises(ValueError, match="is a PNG image, not text/plain"):
        shell_agent_lab.attach(PNG, mime="text/plain")
    with pytest.raises(ValueError, match="not a PNG, JPEG, GIF or WebP image"):
        shell_agent_lab.attach(b"text", mime="image/png")
    with pytest.raises(ValueError, match="takes a path or bytes"):
        shell_agent_lab.attach(42)
    backend.enqueue("Three things.")
    run(shell, "%agent what did I give you?")[0].raise_error()
    user = backend.last_request.messages[-1]
    for m in (meta, image, doc):
        assert m.id in user.content
    assert "name: my notes.md," in user.content
    assert user.images == [("image/gif", GIF)]
