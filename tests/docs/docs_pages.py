"""Reading the documentation pages: fenced code blocks and their commands."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Block:
    lang: str
    text: str


def blocks(page: str) -> list[Block]:
    """Every fenced code block of ``docs/<page>`` in page order."""
    text = (DOCS / page).read_text("utf-8")
    return [Block(m.group(1), m.group(2)) for m in _FENCE.finditer(text)]


def shell_lines(block: Block) -> list[str]:
    return [line.strip() for line in block.text.splitlines()
            if line.strip() and not line.strip().startswith("#")]
