"""Split a text document into line-aligned chunks for windowed reading (pure).

Rules:

* chunks end at line boundaries and aim at ``target_tokens`` (default 2,000); none exceeds
  about 1.5× the target;
* when a chunk must end, it snaps back to the last Markdown heading in its second half, so a
  section starts a chunk; otherwise the next chunk repeats the last ~10% of the previous one (whole lines, at
  least one);
* a single line longer than the target is force-broken into pieces;
* an empty document gives no chunks; more than ``max_chunks`` raises :class:`ChunkLimitError`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import AnalysisError

__all__ = ["Chunk", "ChunkLimitError", "chunk_text", "estimate_tokens", "TARGET_TOKENS", "MAX_CHUNKS"]

TARGET_TOKENS = 2_000
MAX_CHUNKS = 200
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")


class ChunkLimitError(AnalysisError):
    """The document needs more chunks than allowed."""


def estimate_tokens(text: str) -> int:
    """max(bytes/4, 2·CJK characters + 1.3·words)."""
    cjk = sum(1 for ch in text if 0x3000 <= ord(ch) <= 0x9FFF or 0xF900 <= ord(ch) <= 0xFAFF)
    return max(len(text.encode("utf-8")) // 4, 2 * cjk + int(1.3 * len(text.split())))


@dataclass(frozen=True)
class Chunk:
    index: int          # 0-based
    start_line: int     # 1-based, inclusive
    end_line: int       # 1-based, inclusive
    text: str
    tokens: int


def _pieces(lines: list[str], target: int) -> list[tuple[int, str, int]]:
    """(line number, text, tokens) units; over-long lines become several units of one line."""
    units: list[tuple[int, str, int]] = []
    max_chars = max(16, target * 4)
    for number, line in enumerate(lines, start=1):
        tokens = estimate_tokens(line)
        if tokens <= target:
            units.append((number, line, tokens))
            continue
        step = max_chars
        if 2 * sum(1 for ch in line[:1000] if ord(ch) >= 0x3000) > 500:
            step = max(8, target // 2)  # dense CJK text: about two tokens per character
        for start in range(0, len(line), step):
            piece = line[start:start + step]
            units.append((number, piece, estimate_tokens(piece)))
    return units


def chunk_text(text: str, *, target_tokens: int = TARGET_TOKENS, overlap: float = 0.1,
               max_chunks: int = MAX_CHUNKS) -> list[Chunk]:
    if target_tokens <= 0:
        raise ValueError("target_tokens must be positive")
    if not text or not text.strip():
        return []
    lines = text.splitlines()
    units = _pieces(lines, target_tokens)
    overlap_tokens = int(target_tokens * max(0.0, min(0.5, overlap)))
    chunks: list[Chunk] = []
    start = 0
    while start < len(units):
        end = start
        used = 0
        while end < len(units) and (end == start or used + units[end][2] <= target_tokens):
            used += units[end][2]
            end += 1
        snapped = False
        if end < len(units):
            # snap back to a heading in the second half of this chunk
            running = 0
            cut = end
            for i in range(start, end):
                if i > start and _HEADING.match(units[i][1]) and running >= used // 2:
                    cut = i
                    snapped = True
                running += units[i][2]
            if snapped:
                end = cut
            elif _HEADING.match(units[end][1]):
                snapped = True  # the next chunk starts at a heading anyway
        body = units[start:end]
        chunks.append(Chunk(index=len(chunks), start_line=body[0][0], end_line=body[-1][0],
                            text="\n".join(u[1] for u in body), tokens=sum(u[2] for u in body)))
        if len(chunks) > max_chunks:
            raise ChunkLimitError(
                f"the document needs more than {max_chunks} chunks of ~{target_tokens:,} tokens; "
                "read parts of it with get_text or search it with grep_text, or analyse a line range.")
        if end >= len(units):
            break
        if snapped or overlap_tokens == 0:
            start = end
            continue
        back = end
        kept = 0
        while back - 1 > start and kept < overlap_tokens:
            back -= 1
            kept += units[back][2]
        start = back if back > start else end
    return chunks
