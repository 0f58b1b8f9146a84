"""Which texts merge, which stay apart, and which reverse an older preference."""
from __future__ import annotations

import pytest

from shell_agent_lab.store.similarity import (
    is_duplicate,
    jaccard,
    protected_agree,
    reversed_object,
    supersedes,
    token_set,
)

NEAR_MISSES = [
    ("Revenue grew 12% in Q3", "Revenue grew 21% in Q3"),                         # number
    ("Revenue grew 12% in Q3", "Revenue grew 12% in Q4"),                         # identifier
    ("price correlates with volume", "price does not correlate with volume"),    # negation
    ("price correlates with volume", "price doesn't correlate with volume"),     # contraction
    ("mean order value rose", "median order value rose"),                         # statistic
    ("p95 latency of checkout rose", "p50 latency of checkout rose"),
    ("sum of refunds doubled last week", "count of refunds doubled last week"),
    ("EU churn spiked", "US churn spiked"),                                       # place
    ("Churn spiked in the North region", "Churn spiked in the South region"),
    ("The order_total column has nulls", "The order_subtotal column has nulls"),  # column
    ("Sales in Tokyo rose after the promotion", "Sales in Osaka rose after the promotion"),
    ("User prefers plotly", "User prefers seaborn"),
    ("Conversion fell 3.5% after launch", "Conversion fell 5.3% after launch"),
]

PARAPHRASES = [
    ("Revenue grew 12% in Q3", "In Q3, revenue grew 12%"),
    (
        "On 2026-02-16 the Tokyo Widget sales hit an outlier value of 99999",
        "Tokyo Widget sales spiked to 99999 on 2026-02-16, an outlier",
    ),
    ("User is analyzing Q1 sales data", "User is analyzing Q1 sales numbers"),
    ("User prefers plotly for charts", "User prefers plotly for charting"),
    ("price does not correlate with volume", "Price doesn't correlate with volume."),
    ("Mean order value rose in the EU", "The average order value rose in the EU"),
    ("Revenue was 1,000,000 in March", "revenue was 1000000 in March"),
    ("Tokyo sales hit 99999", "tokyo sales hit 99999!!"),
]


@pytest.mark.parametrize("a,b", NEAR_MISSES)
def test_near_misses_stay_apart(a, b):
    assert not is_duplicate(b, a)
    assert not is_duplicate(a, b)


@pytest.mark.parametrize("a,b", PARAPHRASES)
def test_true_paraphrases_merge(a, b):
    assert is_duplicate(b, a)


def test_empty_text_is_never_a_duplicate():
    assert not is_duplicate("   ", "something")
    assert not is_duplicate("something", "")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Hello, World!", {"hello", "world"}),
        ("日本語 テスト", {"日本語", "テスト"}),
        ("mixed CJK と english 123", {"mixed", "cjk", "と", "english", "123"}),
        ("", set()),
    ],
)
def test_token_set(text, expected):
    assert token_set(text) == expected


@pytest.mark.parametrize(
    "a,b,score", [({"a", "b"}, {"a", "c"}, 1 / 3), (set(), set(), 0.0), ({"a"}, {"a"}, 1.0)]
)
def test_jaccard(a, b, score):
    assert jaccard(a, b) == pytest.approx(score)


def test_capitalised_name_must_appear_on_both_sides():
    assert protected_agree("Sales in Tokyo rose", "sales in tokyo rose")
    assert not protected_agree("Sales in Tokyo rose", "Sales rose")


SUPERSEDES = [
    ("User no longer prefers seaborn; use plotly", "User prefers seaborn", True),
    ("User no longer prefers seaborn; use plotly", "User prefers seaborn for heatmaps", True),
    ("User no longer prefers seaborn; use plotly", "User prefers matplotlib", False),
    ("Use plotly instead of seaborn", "User prefers seaborn", True),
    ("User switched from pandas to polars", "User works with pandas", True),
    ("User stopped using Excel exports", "User wants Excel exports", True),
    ("User doesn't want dark mode anymore", "User wants dark mode", True),
    ("User now prefers plotly over seaborn", "User prefers seaborn", True),
    ("User switched to polars from pandas", "User works with pandas", True),
    ("User prefers plotly over seaborn", "User prefers seaborn", False),  # no sign of a change
    ("User prefers seaborn", "User no longer prefers seaborn; use plotly", False),
    ("User prefers plotly", "User prefers seaborn", False),
]


@pytest.mark.parametrize("new,old,expected", SUPERSEDES)
def test_supersedes(new, old, expected):
    assert supersedes(new, old) is expected


def test_reversed_object_is_empty_without_a_reversal():
    assert reversed_object("User prefers plotly for charts") == frozenset()
