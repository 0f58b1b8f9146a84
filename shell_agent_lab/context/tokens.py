"""A cheap, deterministic token estimate used for every budget decision.

``max(utf8_bytes / 4, 2 * cjk_chars + int(1.3 * words))``: the byte rule fits English and code,
the second rule keeps CJK text (about one token per character or more) from being undercounted.
"""
from __future__ import annotations

__all__ = ["estimate_tokens"]


def _is_cjk(code: int) -> bool:
    return 0x3000 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF


def estimate_tokens(text: str) -> int:
    """Estimated token count of ``text`` (0 for the empty string)."""
    if not text:
        return 0
    by_bytes = len(text.encode("utf-8")) // 4
    if text.isascii():
        cjk = 0
    else:
        cjk = sum(1 for ch in text if _is_cjk(ord(ch)))
    by_words = 2 * cjk + int(1.3 * len(text.split()))
    return max(by_bytes, by_words)
