"""The token estimator and budget validation."""
from __future__ import annotations

import pytest

from shell_agent_lab.context import Budget, estimate_tokens


def test_estimator_uses_bytes_for_ascii():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a" * 400) == 100
    # many short words: 1.3 tokens per word wins over bytes/4
    assert estimate_tokens("a b c d e f g h") == int(1.3 * 8)


def test_estimator_counts_cjk_twice():
    text = "日本語のテキスト"          # 8 characters in U+3000–U+9FFF, one word, 24 bytes
    assert estimate_tokens(text) == 2 * 8 + int(1.3 * 1)
    assert estimate_tokens("豈" * 4) == 2 * 4 + 1      # U+F900 compatibility ideographs count too


def test_budget_defaults_and_raw_budget():
    budget = Budget(max_context_tokens=10_000, output_reserve=1_000)
    assert budget.raw_budget(1_000) == 8_000 - 400 - 1_200
    assert Budget().raw_budget(5_000) is None
    assert Budget(max_context_tokens=100).raw_budget(500) == 0


@pytest.mark.parametrize("kwargs, words", [
    ({"max_context_tokens": -1}, "max_context_tokens"),
    ({"output_reserve": 1.5}, "output_reserve"),
    ({"far_share": 1.2}, "far_share"),
    ({"far_share": 0.6, "near_share": 0.5}, "below 1"),
    ({"anchor_threshold": 0}, "anchor_threshold"),
    ({"window_step": -0.1}, "window_step"),
])
def test_bad_budgets_are_refused_with_one_clear_line(kwargs, words):
    with pytest.raises(ValueError) as info:
        Budget(**kwargs)
    assert words in str(info.value) and "\n" not in str(info.value)
