"""The object store: blobs on disk (0600), metadata in SQLite."""
from __future__ import annotations

import re

import pytest

from shell_agent_lab.store import NotFoundError, ValidationError


def test_put_get_list_delete(store, session):
    text = "# Report\n\nRevenue grew.\n".encode()
    meta = store.objects.put(session.id, text, type="report", mime_type="text/markdown", name="r.md")
    assert re.fullmatch(r"[0-9a-f]{32}", meta.id)
    assert meta.size == len(text) and meta.lines == 4 and meta.tokens > 0 and meta.name == "r.md"
    got_meta, data = store.objects.get(meta.id)
    assert data == text and got_meta == meta
    path = store.data_dir / "objects" / meta.id
    assert path.exists() and (path.stat().st_mode & 0o777) == 0o600
    img = store.objects.put(session.id, b"\x89PNG....", type="image", mime_type="image/png")
    assert img.lines == 0
    assert [m.id for m in store.objects.list(session.id)] == [meta.id, img.id]
    assert [m.id for m in store.objects.list(session.id, type="image")] == [img.id]
    assert store.objects.delete(meta.id) is True
    assert not path.exists()
    with pytest.raises(NotFoundError):
        store.objects.get(meta.id)
    assert store.objects.delete(meta.id) is False


def test_bad_input(store, session):
    with pytest.raises(ValidationError, match="object type"):
        store.objects.put(session.id, b"x", type="video")
    with pytest.raises(NotFoundError):
        store.objects.put("sess-missing", b"x", type="blob")
    with pytest.raises(NotFoundError):
        store.objects.meta("../../etc/passwd")
    assert store.objects.list(session.id) == []
    assert list((store.data_dir / "objects").glob("*")) == []


def test_objects_directory_is_private(store, session):
    meta = store.objects.put(session.id, b"x", type="blob")
    root = store.data_dir / "objects"
    assert (root.stat().st_mode & 0o777) == 0o700
    assert store.objects.path(meta.id).parent == root
