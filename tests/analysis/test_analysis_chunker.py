"""Text chunking rules."""
from __future__ import annotations

import pytest

from shell_agent_lab.analysis.chunker import ChunkLimitError, chunk_text, estimate_tokens


def _doc(sections: int, lines_per: int, words: int = 20) -> str:
    out = []
    for s in range(sections):
        out.append(f"# Section {s}")
        out += [f"s{s} line {i} " + "word " * words for i in range(lines_per)]
    return "\n".join(out)


def test_empty_and_blank_give_no_chunks():
    assert chunk_text("") == [] and chunk_text("  \n\n ") == []


def test_a_small_document_is_one_chunk():
    chunks = chunk_text("# Title\nhello\nworld")
    assert len(chunks) == 1 and (chunks[0].start_line, chunks[0].end_line) == (1, 3)
    assert chunks[0].text == "# Title\nhello\nworld"


def test_no_chunk_is_much_larger_than_the_target_and_all_lines_are_covered():
    text = _doc(12, 40)
    chunks = chunk_text(text, target_tokens=500)
    assert len(chunks) > 3
    assert all(c.tokens <= 750 for c in chunks)
    covered = set()
    for c in chunks:
        covered.update(range(c.start_line, c.end_line + 1))
    assert covered == set(range(1, len(text.splitlines()) + 1))


def test_boundaries_fall_between_lines():
    lines = [f"line {i} " + "x" * 50 for i in range(300)]
    for chunk in chunk_text("\n".join(lines), target_tokens=300):
        assert chunk.text.splitlines() == lines[chunk.start_line - 1:chunk.end_line]


def test_headings_start_chunks():
    text = _doc(6, 15)            # sections of ~450 tokens, chunks of ~600
    chunks = chunk_text(text, target_tokens=600)
    lines = text.splitlines()
    assert len(chunks) == 6
    assert all(lines[c.start_line - 1].startswith("# Section") for c in chunks)
    long_sections = chunk_text(_doc(3, 40), target_tokens=600)
    assert not any(c.text.splitlines()[-1].startswith("# ") for c in long_sections[:-1])


def test_overlap_without_headings_is_about_ten_percent():
    lines = [f"row {i} " + "y " * 30 for i in range(400)]
    chunks = chunk_text("\n".join(lines), target_tokens=400, overlap=0.1)
    for before, after in zip(chunks, chunks[1:]):
        shared = before.end_line - after.start_line + 1
        assert shared >= 1
        shared_tokens = sum(estimate_tokens(lines[n - 1]) for n in range(after.start_line, before.end_line + 1))
        assert shared_tokens <= 40 + 45   # the budget, overshot by at most one line


def test_a_long_line_is_force_broken():
    text = "short\n" + "z" * 20_000 + "\nend"
    chunks = chunk_text(text, target_tokens=1000)
    assert len(chunks) >= 5
    assert all(c.tokens <= 1500 for c in chunks)
    assert "".join(c.text for c in chunks if c.start_line == 2 and c.end_line == 2).count("z") >= 20_000


def test_too_many_chunks_is_an_error():
    with pytest.raises(ChunkLimitError, match="more than 3 chunks"):
        chunk_text(_doc(20, 40), target_tokens=200, max_chunks=3)


def test_cjk_text_is_counted_denser():
    assert estimate_tokens("日本語のテキスト" * 10) > estimate_tokens("abcdefgh" * 10)
    chunks = chunk_text("\n".join(["日本語のテキストです。" * 20] * 50), target_tokens=500)
    assert len(chunks) > 1
