"""Attach the user's text documents and images to the session's object store.

Three doors, one path: ``%agent /attach PATH …`` (and ``/objects`` to list or delete),
``%agent --attach PATH`` / ``--image PATH`` on a question, and :func:`shell_agent_lab.attach`
in a code cell (a path or bytes).

* Paths follow ``load_data``'s rules: absolute, ``~``-expanded, or relative to the notebook's
  directory; regular files only; symbolic links, directories and control characters refused.
* Images are recognised by their first bytes (PNG, JPEG, GIF, WebP), never by the suffix; a
  file named like an image that is not one is refused. Everything else must be UTF-8 text.
* Sizes: the store's object cap for documents; images also stay within what model APIs
  accept inline (20 MiB).
* An image is only attached while the session's model can see images (one line says how to
  switch otherwise).

Objects attached with ``/attach`` or ``attach()`` are announced with the next ``%agent``
question of the session (the anchor lines of REFERENCE §1.8 before the question text; the
context builder sends the images themselves along); ``--attach`` / ``--image`` announce them
with the question they are given on. The model can also find them with ``list_objects``.
"""
from __future__ import annotations

import os
import re
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ..context.anchors import document_anchor, image_anchor

__all__ = [
    "AttachError", "IMAGE_MAX_BYTES", "sniff_image", "classify", "resolve_path", "read_file",
    "store_bytes", "attach_paths", "compose", "queue", "take_pending", "pending", "forget_pending",
    "check_images", "describe", "attach",
]

#: images are sent inline to the model; the providers accept about this much
IMAGE_MAX_BYTES = 20 * 1024 * 1024

_TEXT_MIME = {
    ".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv",
    ".tsv": "text/tab-separated-values", ".json": "application/json", ".jsonl": "application/json",
    ".py": "text/x-python", ".html": "text/html", ".htm": "text/html", ".xml": "text/xml",
    ".yaml": "text/yaml", ".yml": "text/yaml", ".sql": "text/x-sql",
}
_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp"}
_ID_PREFIX = re.compile(r"^(?:object:)?([0-9a-f]{6,32})$")


class AttachError(ValueError):
    """The file cannot be attached; the message says what to do instead."""


def _human(size: float) -> str:
    from ..analysis.loader import human_bytes

    return human_bytes(size)


def sniff_image(data: bytes) -> str | None:
    """The image MIME type from the first bytes, or None: PNG, JPEG, GIF and WebP only."""
    head = bytes(data[:16])
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def classify(data: bytes, name: str, mime: str | None = None) -> tuple[str, str]:
    """(object type, MIME type) of an attachment: ``image`` by magic bytes, else UTF-8 ``markdown``."""
    label = name or "the data"
    image = sniff_image(data)
    if image:
        if mime and not mime.startswith("image/"):
            raise AttachError(f"{label} is a {image.split('/')[1].upper()} image, not {mime}; drop mime= or pass an image type")
        return "image", image
    suffix = Path(name or "").suffix.lower()
    if (mime or "").startswith("image/") or suffix in _IMAGE_SUFFIXES:
        raise AttachError(f"{label} is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise); "
                          "convert it to one of those")
    if b"\x00" in data:
        raise AttachError(f"{label} is binary, not text; attach text files (UTF-8) or PNG/JPEG/GIF/WebP images")
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AttachError(f"{label} is not UTF-8 text (invalid byte at offset {exc.start}); "
                          "save it as UTF-8 and attach it again") from None
    return "markdown", mime or _TEXT_MIME.get(suffix, "text/plain")


def resolve_path(raw: Any, base: Path | None) -> Path:
    """``raw`` (absolute, ``~``-prefixed or relative to ``base``) as a path, refusing the unsafe."""
    if not isinstance(raw, (str, os.PathLike)) or not str(raw).strip():
        raise AttachError("the path is empty; give the path of a text file or an image")
    text = os.fspath(raw)
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise AttachError("the path contains control characters (e.g. a newline); pass the plain path")
    path = Path(text.strip()).expanduser()
    if not path.is_absolute():
        path = Path(base if base is not None else Path.cwd()) / path
    return Path(os.path.normpath(path))


def read_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file (not a link) of at most ``max_bytes``."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise AttachError(f"no such file: {path}") from None
    except OSError as exc:
        raise AttachError(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise AttachError(f"{path} is a symbolic link; attach the file it points to by its real path")
    if stat.S_ISDIR(info.st_mode):
        raise AttachError(f"{path} is a directory; give the path of one file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise AttachError(f"{path} is not a regular file (device, pipe or socket)")
    if info.st_size > max_bytes:
        raise AttachError(f"{path.name} is {_human(info.st_size)}, over the {_human(max_bytes)} attachment limit; "
                          "attach a smaller file")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:      # swapped for a link since the check, or not readable
        raise AttachError(f"cannot read {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise AttachError(f"{path} is not a regular file (device, pipe or socket)")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise AttachError(f"{path.name} grew past the {_human(max_bytes)} attachment limit while it was read")
    return data


def _object_cap(store: Any) -> int:
    caps = getattr(store, "caps", None)
    return int(getattr(caps, "object_bytes", 50 * 1024 * 1024))


def store_bytes(store: Any, session_id: str, data: bytes, *, name: str, mime: str | None = None,
                want: str | None = None) -> Any:
    """Check and store one attachment; returns its :class:`~shell_agent_lab.store.models.ObjectMeta`.

    ``want="image"`` refuses anything that is not an image (``--image``)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise AttachError("attach() takes a path or bytes")
    data = bytes(data)
    cap = _object_cap(store)
    if len(data) > cap:
        raise AttachError(f"{name or 'the data'} is {_human(len(data))}, over the {_human(cap)} attachment limit; "
                          "attach a smaller file")
    type_, mime_type = classify(data, name, mime)
    if want == "image" and type_ != "image":
        raise AttachError(f"{name or 'the data'} is not an image (PNG, JPEG, GIF or WebP); use --attach for documents")
    if type_ == "image" and len(data) > IMAGE_MAX_BYTES:
        raise AttachError(f"{name or 'the image'} is {_human(len(data))}; models take images up to "
                          f"{_human(IMAGE_MAX_BYTES)}: scale it down")
    from ..store.errors import StoreError

    try:
        return store.objects.put(session_id, data, type=type_, mime_type=mime_type, name=name or "")
    except StoreError as exc:
        raise AttachError(str(exc)) from None


@dataclass(frozen=True)
class _Loaded:
    path: Path
    data: bytes
    type: str
    mime: str


def _load(raw: Any, base: Path | None, cap: int, want: str | None) -> _Loaded:
    path = resolve_path(raw, base)
    data = read_file(path, cap)
    type_, mime = classify(data, path.name)
    if want == "image" and type_ != "image":
        raise AttachError(f"{path.name} is not an image (PNG, JPEG, GIF or WebP); use --attach for documents")
    if type_ == "image" and len(data) > IMAGE_MAX_BYTES:
        raise AttachError(f"{path.name} is {_human(len(data))}; models take images up to "
                          f"{_human(IMAGE_MAX_BYTES)}: scale it down")
    return _Loaded(path, data, type_, mime)


def check_images(agent: Any, names: Iterable[str]) -> None:
    """Refuse (one line) when images are to go to a model that cannot see them."""
    names = list(names)
    if not names:
        return
    backend = agent.backend
    if getattr(getattr(backend, "capabilities", None), "images", False):
        return
    raise AttachError(f"the model {backend.identity} cannot read images ({', '.join(names)}); "
                      "switch to one that can with %agent /model NAME or --profile NAME")


def attach_paths(agent: Any, paths: Iterable[Any], base: Path | None, *, images_only: Iterable[Any] = (),
                 names: Iterable[str | None] = ()) -> list[Any]:
    """Read, check and store files for the agent's session; all are checked before any is stored.

    ``images_only`` are further paths that must be images (``--image``); ``names`` optionally
    label the objects in order (the file name otherwise)."""
    store = agent.store
    cap = _object_cap(store)
    image_paths = list(images_only)
    loaded = [_load(p, base, cap, None) for p in paths] + [_load(p, base, cap, "image") for p in image_paths]
    if not loaded:
        raise AttachError("nothing to attach; give one or more paths")
    check_images(agent, [x.path.name for x in loaded if x.type == "image"])
    from ..store.errors import StoreError

    session_id = agent.session.id
    metas: list[Any] = []
    labels = list(names)
    try:
        for i, item in enumerate(loaded):
            label = (labels[i] if i < len(labels) else None) or item.path.name
            metas.append(store.objects.put(session_id, item.data, type=item.type, mime_type=item.mime,
                                           name=label))
    except StoreError as exc:
        for meta in metas:          # all or nothing
            store.objects.delete(meta.id)
        raise AttachError(str(exc)) from None
    return metas


def base_for(agent: Any, notebook_path: str | None) -> Path:
    """Where relative paths start: the analysis engine's base (load_data's), else the notebook's directory."""
    try:
        engine = agent.engine()
    except Exception:
        engine = None
    base = getattr(engine, "base_dir", None)
    if base is not None:
        return Path(base)
    from .identity import base_dir

    return base_dir(notebook_path)


# -- anchors and the per-session queue --------------------------------------------------------
def anchor(meta: Any) -> str:
    if meta.type == "image":
        return image_anchor(meta.id)
    return document_anchor(meta.id, meta.name or meta.id, meta.tokens)


def compose(message: str, metas: Iterable[Any]) -> str:
    """The question with one anchor line per attached object in front of it."""
    lines = [anchor(m) for m in metas]
    return "\n".join([*lines, message]) if lines else message


_pending_lock = threading.Lock()
_pending: dict[str, list[Any]] = {}


def queue(session_id: str, metas: Iterable[Any]) -> None:
    with _pending_lock:
        _pending.setdefault(session_id, []).extend(metas)


def pending(session_id: str) -> list[Any]:
    with _pending_lock:
        return list(_pending.get(session_id, ()))


def take_pending(session_id: str, store: Any = None) -> list[Any]:
    """Remove and return the session's queued objects (with ``store``: those that still exist)."""
    with _pending_lock:
        metas = _pending.pop(session_id, [])
    if store is None:
        return metas
    from ..store.errors import StoreError

    live = []
    for meta in metas:
        try:
            store.objects.meta(meta.id)
        except StoreError:
            continue
        live.append(meta)
    return live


def forget_pending(object_ids: Iterable[str]) -> None:
    gone = set(object_ids)
    with _pending_lock:
        for sid in list(_pending):
            _pending[sid] = [m for m in _pending[sid] if m.id not in gone]
            if not _pending[sid]:
                del _pending[sid]


def describe(meta: Any) -> str:
    """One Markdown line for a listing."""
    size = _human(meta.size)
    extra = f", {meta.lines:,} lines, ~{meta.tokens:,} tokens" if meta.type in ("markdown", "report") else ""
    kind = "document" if meta.type == "markdown" else meta.type
    return f"`{meta.id}` {kind} **{meta.name or '(unnamed)'}** ({meta.mime_type or 'unknown type'}, {size}{extra})"


def resolve_ids(store: Any, session_id: str, texts: Iterable[str]) -> list[str]:
    """Object ids (or unique prefixes of at least 6 hex digits) of this session's objects."""
    mine = [m.id for m in store.objects.list(session_id)]
    out: list[str] = []
    for text in texts:
        match = _ID_PREFIX.match(text.strip().lower())
        if not match:
            raise ValueError(f"{text!r} is not an object id (32 hex digits, or the first 6 or more; /objects lists them)")
        hits = [i for i in mine if i.startswith(match.group(1))]
        if not hits:
            raise ValueError(f"no object {text} in this session (/objects lists them)")
        if len(hits) > 1:
            raise ValueError(f"{text} matches {len(hits)} objects; give more digits")
        out.append(hits[0])
    return out


# -- the Python API ---------------------------------------------------------------------------
def attach(source: Any, *, name: str | None = None, mime: str | None = None) -> Any:
    """Attach a file (path) or bytes to this notebook's session; the next ``%agent`` question carries it.

    ``name`` labels the object (default: the file's name, or "attachment" for bytes); ``mime`` may assert the kind
    (an ``image/…`` type must match the bytes). Returns the stored object's metadata (``.id``).
    Raises ``ValueError`` with one line when the file cannot be attached.
    """
    from .runtime import get_runtime

    rt = get_runtime()
    agent = rt.agent
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        label = name or "attachment"
        type_, _ = classify(data, label, mime)
        if type_ == "image":
            check_images(agent, [label])
        meta = store_bytes(agent.store, agent.session.id, data, name=label, mime=mime)
    elif isinstance(source, (str, os.PathLike)):
        if mime is not None:
            raise AttachError("mime= is for bytes; a file's kind is read from its content")
        [meta] = attach_paths(agent, [source], base_for(agent, rt.notebook_path), names=[name])
    else:
        raise AttachError(f"attach() takes a path or bytes, not {type(source).__name__}")
    queue(agent.session.id, [meta])
    return meta
