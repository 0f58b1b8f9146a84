"""Object anchors at the head of a user message (REFERENCE §1.8).

A message that carries attachments begins with one line per object::

    Image (object ID: 0123…):
    Document (object ID: 4567…, name: notes.md, 3k tokens):
    what the user asked

When the message is rendered for the model, the anchor lines stay outside the guard envelope
(they are generated here, never free text: ids are 32 hex digits and names are reduced to a safe
alphabet) and each image anchor brings that image's bytes along as ``Message.images``.
"""
from __future__ import annotations

import re

__all__ = ["image_anchor", "document_anchor", "safe_name", "split_anchors"]

_NAME_CHARS = re.compile(r"[^A-Za-z0-9._ ()+\-]")
_MAX_NAME = 80
_IMAGE = re.compile(r"Image \(object ID: ([0-9a-f]{32})\):")
_DOCUMENT = re.compile(r"Document \(object ID: ([0-9a-f]{32}), name: [A-Za-z0-9._ ()+\-]{1,80}, \d+k? tokens\):")


def safe_name(name: str) -> str:
    """A file name reduced to letters, digits and ``._ ()+-`` (at most 80 characters)."""
    cleaned = _NAME_CHARS.sub("_", (name or "").strip())[:_MAX_NAME].strip()
    return cleaned or "document"


def image_anchor(object_id: str) -> str:
    return f"Image (object ID: {object_id}):"


def document_anchor(object_id: str, name: str, tokens: int) -> str:
    size = f"{round(tokens / 1000)}k" if tokens >= 1000 else str(max(0, int(tokens)))
    return f"Document (object ID: {object_id}, name: {safe_name(name)}, {size} tokens):"


def split_anchors(text: str) -> tuple[list[str], list[str], str]:
    """(anchor lines, image ids in order, the rest of the text) of a user message.

    Only whole lines at the very start count; the first line that is not an anchor ends them.
    """
    anchors: list[str] = []
    images: list[str] = []
    rest = text
    while rest:
        line, nl, tail = rest.partition("\n")
        image = _IMAGE.fullmatch(line)
        if image:
            images.append(image.group(1))
        elif not _DOCUMENT.fullmatch(line):
            break
        anchors.append(line)
        rest = tail if nl else ""
    return anchors, images, rest
