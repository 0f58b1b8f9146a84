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

from shell_agent_lab.store.similarity import (  # noqa: E402
    canonical_text,
    contrast_conflict,
    normalize,
    protected_tokens,
    similarity_tokens,
)

# Pairs that say different things. Every pair is close enough in words to merge on Jaccard
# alone (checked below), so each one really tests the protected token it is labelled with.
NEAR_MISSES = [
    ("Revenue grew 12% in Q3", "Revenue grew 21% in Q3"),                         # number
    ("Revenue grew 12% in Q3", "Revenue grew 12% in Q4"),                         # identifier
    ("price correlates strongly with daily volume",
     "price does not correlate strongly with daily volume"),                      # negation
    ("price correlates strongly with daily volume",
     "price doesn't correlate strongly with daily volume"),                       # contraction
    ("mean order value rose", "median order value rose"),                         # statistic
    ("p95 latency of checkout rose", "p50 latency of checkout rose"),
    ("sum of refunds doubled last week", "count of refunds doubled last week"),
    ("EU churn spiked", "US churn spiked"),                                       # place
    ("Churn spiked in the North region", "Churn spiked in the South region"),
    ("The order_total column has nulls", "The order_subtotal column has nulls"),  # column
    ("Sales in Tokyo rose after the promotion", "Sales in Osaka rose after the promotion"),
    ("User prefers plotly for revenue charts", "User prefers seaborn for revenue charts"),
    ("Conversion fell 3.5% after launch", "Conversion fell 5.3% after launch"),
]

# (class, a, b): one contrast or lexicon class per row, several rows per class
CLASS_NEAR_MISSES = [
    # direction of change, verbs and comparatives in one class
    ("direction", "Revenue grew sharply in Q3 for the EU region",
     "Revenue fell sharply in Q3 for the EU region"),
    ("direction", "Order volume increased in the Tokyo store last month",
     "Order volume decreased in the Tokyo store last month"),
    ("direction", "Support tickets went up after the release",
     "Support tickets went down after the release"),
    ("direction", "Average basket size is higher for mobile shoppers",
     "Average basket size is lower for mobile shoppers"),
    ("direction", "Conversion stayed above target in the EU", "Conversion stayed below target in the EU"),
    ("direction", "Customers order more items on weekends", "Customers order fewer items on weekends"),
    ("direction", "User wants more detail in revenue summaries",
     "User wants less detail in revenue summaries"),
    ("direction", "Revenue grew in Q3 and fell in Q4 for the EU", "Revenue grew in Q3 and Q4 for the EU"),
    ("direction", "Revenue rose sharply in the EU in Q3", "Revenue dropped sharply in the EU in Q3"),
    # before / after
    ("timing", "Refunds rose before the promotion", "Refunds rose after the promotion"),
    ("timing", "Churn was measured prior to the price change",
     "Churn was measured following the price change"),
    ("timing", "Cart abandonment spiked earlier in the checkout flow",
     "Cart abandonment spiked later in the checkout flow"),
    # lower-case places: countries, US states, regions, multi-word places, demonyms
    ("place", "Churn spiked in germany", "Churn spiked in france"),
    ("place", "Sales dropped in texas last quarter", "Sales dropped in ohio last quarter"),
    ("place", "Revenue grew in europe this year", "Revenue grew in asia this year"),
    ("place", "Shipping delays hit customers in new york", "Shipping delays hit customers in new jersey"),
    ("place", "most refunds came from german customers", "most refunds came from french customers"),
    ("place", "Churn spiked in germany", "Churn spiked"),
    # spelled-out numbers, ordinals, multipliers, dozens and scale words
    ("number word", "Revenue grew twelve percent in Q3", "Revenue grew twenty percent in Q3"),
    ("number word", "Revenue grew twelve percent in Q3", "Revenue grew 20% in Q3"),
    ("number word", "Three stores in Berlin ran out of stock", "Five stores in Berlin ran out of stock"),
    ("number word", "The third quarter had the most returns", "The fourth quarter had the most returns"),
    ("number word", "Sales doubled after the launch", "Sales tripled after the launch"),
    ("number word", "Traffic halved during the outage", "Traffic doubled during the outage"),
    ("number word", "A dozen stores reported missing stock", "Two dozen stores reported missing stock"),
    ("number word", "Revenue reached 3 million in March", "Revenue reached 3 billion in March"),
    ("number word", "Twenty-one orders failed validation", "Twenty-two orders failed validation"),
    # new / returning
    ("age", "Revenue grew for new customers", "Revenue grew for returning customers"),
    ("age", "Average order value is highest among new users",
     "Average order value is highest among existing users"),
    # first / last, previous / next
    ("sequence", "Refunds spiked in the first week of the sale", "Refunds spiked in the last week of the sale"),
    ("sequence", "User wants the start date column shown", "User wants the end date column shown"),
    ("relative time", "The churn report covers the previous month", "The churn report covers the next month"),
    # with / without, include / exclude, show / hide, enable / disable
    ("toggle", "Revenue figures include refunds", "Revenue figures exclude refunds"),
    ("toggle", "The sales dashboard shows the legend", "The sales dashboard hides the legend"),
    ("toggle", "User wants charts with a log scale", "User wants charts without a log scale"),
    ("toggle", "Autosave is enabled for the sales notebook", "Autosave is disabled for the sales notebook"),
    ("toggle", "Turn on gridlines in revenue charts", "Turn off gridlines in revenue charts"),
    ("toggle", "User wants revenue charts with gridlines on", "User wants revenue charts with gridlines off"),
    ("retention", "Keep outliers before computing revenue growth",
     "Remove outliers before computing revenue growth"),
    # good / bad, best / worst, positive / negative, gain / loss, top / bottom
    ("quality", "Model fit is good for the EU data", "Model fit is bad for the EU data"),
    ("quality", "Best sellers were in the toys category", "Worst sellers were in the toys category"),
    ("sign", "Price and volume have a positive correlation", "Price and volume have a negative correlation"),
    ("gain/loss", "The EU unit made a profit in Q3", "The EU unit made a loss in Q3"),
    ("extreme", "Top 10 products by revenue in the EU", "Bottom 10 products by revenue in the EU"),
    ("level", "Churn is high among trial accounts", "Churn is low among trial accounts"),
    # a word and its negating prefix
    ("prefix", "All rows in the export are complete", "All rows in the export are incomplete"),
    ("prefix", "Invoices from the EU batch are paid", "Invoices from the EU batch are unpaid"),
    # named alternatives of analysis work
    ("sort", "User wants tables sorted descending by revenue", "User wants tables sorted ascending by revenue"),
    ("chart", "User prefers bar charts for revenue reports", "User prefers line charts for revenue reports"),
    ("file format", "User wants exports saved as csv files", "User wants exports saved as parquet files"),
    ("period", "Revenue per day rose in the EU", "Revenue per week rose in the EU"),
    ("period", "User reviews the sales dashboard weekly", "User reviews the sales dashboard monthly"),
    ("theme", "User wants the dashboard in dark mode", "User wants the dashboard in light mode"),
    ("axis scale", "User wants revenue charts on a log scale", "User wants revenue charts on a linear scale"),
    ("currency", "Revenue is reported in dollars for the EU", "Revenue is reported in euros for the EU"),
    ("measure", "Revenue grew 5% in Q3 in the EU", "Cost grew 5% in Q3 in the EU"),
    ("measure", "Average price rose in the West region last month",
     "Average discount rose in the West region last month"),
    ("measure", "Refunds spiked for the Gadget product in March",
     "Orders spiked for the Gadget product in March"),
    ("measure", "Profit is reported weekly for the sales team", "Margin is reported weekly for the sales team"),
    ("side", "User wants the legend placed on the left side", "User wants the legend placed on the right side"),
    ("outcome", "The nightly sales load job passed", "The nightly sales load job failed"),
    ("flow", "User wants Excel exports of the sales table", "User wants Excel imports of the sales table"),
]

PAIRS_APART = NEAR_MISSES + [(a, b) for _, a, b in CLASS_NEAR_MISSES]
_IDS = [f"{i}" for i in range(len(NEAR_MISSES))] + [
    f"{cls}-{i}" for i, (cls, _, _) in enumerate(CLASS_NEAR_MISSES)
]


def _close(a: str, b: str) -> bool:
    return normalize(a) == normalize(b) or jaccard(similarity_tokens(a), similarity_tokens(b)) >= 0.5


@pytest.mark.parametrize("a,b", PAIRS_APART, ids=_IDS)
def test_each_near_miss_would_merge_on_words_alone(a, b):
    assert _close(a, b)


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
    # the same side of a contrast class, or silence about it, still merges
    ("Revenue grew sharply in Q3 in the EU region", "In Q3 EU region revenue grew sharply"),
    ("User prefers bar charts", "The user prefers bar charts"),
    ("Revenue rose sharply in the EU in Q3", "Revenue grew sharply in the EU in Q3"),
    ("Refunds rose after the promotion", "After the promotion, refunds rose"),
    ("User doesn't want dark mode", "User does not want dark mode"),
    ("Revenue figures include refunds", "Revenue figures include all refunds"),
    # places written either way, spelled-out and written numbers
    ("Churn spiked in Germany", "churn spiked in germany"),
    ("Shipping delays hit customers in New York", "shipping delays hit customers in new york"),
    ("most refunds came from german customers", "most refunds came from customers in germany"),
    ("Revenue grew twelve percent in Q3", "Revenue grew 12% in Q3"),
    ("Revenue grew 12 percent in Q3", "Revenue grew 12% in Q3"),
    ("Sales doubled after the launch", "After the launch, sales doubled"),
    ("Revenue reached 3 million in March", "Revenue reached 3,000,000 in March"),
    ("Refunds spiked in the first week of the sale", "Refunds spiked in the 1st week of the sale"),
    ("A dozen stores reported missing stock", "12 stores reported missing stock"),
]


@pytest.mark.parametrize("a,b", PAIRS_APART, ids=_IDS)
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
    # polarity flips: the same statement with negation or the on/off side reversed, both ways
    ("User wants charts without a log scale", "User wants charts with a log scale", True),
    ("User wants charts with a log scale", "User wants charts without a log scale", True),
    ("Never round figures to 2 decimals", "Always round figures to 2 decimals", True),
    ("Don't round figures to 2 decimals", "Round figures to 2 decimals", True),
    ("Round figures to 2 decimals", "Do not round figures to 2 decimals", True),
    ("User disabled autosave in notebooks", "User enabled autosave in notebooks", True),
    ("User wants the legend hidden", "User wants the legend shown", True),
    ("Exclude refunds from revenue totals", "Include refunds in revenue totals", True),
    ("User avoids pie charts", "User likes pie charts", True),
    ("The dataset has no header row", "The dataset has a header row", True),
    # ... but not when the topic or anything protected differs, or the polarity is the same
    ("User never wants pie charts", "User wants charts", False),
    ("User wants charts", "User never wants pie charts", False),
    ("User wants charts without a log scale", "User wants bar charts with a log scale", False),
    ("Never round figures to 3 decimals", "Always round figures to 2 decimals", False),
    ("User does not want dark mode", "User doesn't want dark mode", False),
    ("User wants charts with a log scale", "User wants charts with a log scale", False),
    ("Don't show the legend without a title", "Show the legend with a title", False),  # no clear polarity
]


@pytest.mark.parametrize("new,old,expected", SUPERSEDES)
def test_supersedes(new, old, expected):
    assert supersedes(new, old) is expected


def test_reversed_object_is_empty_without_a_reversal():
    assert reversed_object("User prefers plotly for charts") == frozenset()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("grew twelve percent", "grew 12%"),
        ("grew 12 percent", "grew 12%"),
        ("twenty-one orders", "21 orders"),
        ("one hundred and five rows", "105 rows"),
        ("two thousand and twenty-four", "2024"),
        ("3.5 million users", "3500000 users"),
        ("a dozen stores", "12 stores"),
        ("two dozen stores", "24 stores"),
        ("the third quarter", "the 3rd quarter"),
        ("the twenty-first row", "the 21st row"),
        ("sales doubled", "sales 2x"),
        ("traffic halved", "traffic 0.5x"),
        ("doesn't correlate", "does not correlate"),
        ("can't load", "can not load"),
        ("turn off gridlines", "turn switchoff gridlines"),
        ("charts with gridlines on.", "charts with gridlines switchon."),
        ("sales on monday", "sales on monday"),  # a preposition, not a switch
        # not numbers: pronoun "one", "second" as a unit of time, a run that is not a number
        ("the one with nulls", "the one with nulls"),
        ("requests per second", "requests per second"),
        ("one two three", "1 2 3"),
        ("someone loaded it", "someone loaded it"),
    ],
)
def test_canonical_text_reads_numbers_as_digits(text, expected):
    assert canonical_text(text) == expected


def test_spelled_and_written_numbers_protect_alike():
    assert protected_tokens("grew twelve percent").numbers == protected_tokens("grew 12%").numbers
    assert protected_tokens("the first week").numbers == protected_tokens("the 1st week").numbers
    assert protected_tokens("sales doubled").numbers == protected_tokens("sales grew 2x").numbers
    assert protected_tokens("3 million").numbers != protected_tokens("3 billion").numbers


def test_places_from_the_lexicon_are_canonical():
    assert protected_tokens("churn in germany").places == {"germany"}
    assert protected_tokens("german customers").places == {"germany"}
    assert protected_tokens("customers in new york").places == {"new york"}
    assert protected_tokens("sales in the usa").places == {"united states"}
    assert protected_tokens("sales in the united states").places == {"united states"}
    assert protected_tokens("the user told us").places == frozenset()  # "us" is a pronoun


def test_new_in_a_place_name_is_not_the_new_of_new_customers():
    assert "age:new" not in protected_tokens("customers in new york").contrasts
    assert "age:new" in protected_tokens("new customers in york").contrasts


def test_contrast_conflict_needs_both_sides_to_take_a_side():
    assert contrast_conflict({"direction:up"}, {"direction:down"})
    assert contrast_conflict({"direction:up", "direction:down"}, {"direction:up"})
    assert not contrast_conflict({"direction:up"}, set())
    assert not contrast_conflict({"direction:up"}, {"timing:after"})
    assert not contrast_conflict({"toggle:on"}, {"toggle:off"}, skip=frozenset({"toggle"}))


def test_legacy_signature_without_contrasts_still_loads():
    from shell_agent_lab.store.similarity import Signature

    sig = Signature.loads("revenu grew", '[["revenue","grew"],["12%"],false,[],["q3"],[]]')
    assert sig.protected.numbers == {"12%"} and sig.protected.contrasts == frozenset()
    assert sig.protected.places == frozenset()
