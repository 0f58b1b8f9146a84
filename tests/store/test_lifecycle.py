"""Relevance decay, lifecycle states and eviction order."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from shell_agent_lab.store.lifecycle import decayed_relevance, derive_state, eviction_key


@pytest.mark.parametrize(
    "relevance,rate,expected",
    [
        (1.0, 0.93, 0.93),
        (0.0, 0.93, 0.0),
        (-0.5, 0.93, 0.0),
        (0.8, 1.5, 0.8),   # rate > 1: no-op
        (0.8, -1.0, 0.8),  # rate < 0: no-op
        (0.8, 0.0, 0.8),   # rate 0: no-op
        (0.8, 1.0, 0.8),
    ],
)
def test_decayed_relevance(relevance, rate, expected):
    assert decayed_relevance(relevance, rate) == pytest.approx(expected)


def test_twelve_and_thirty_two_decays_land_in_the_documented_bands():
    r = 1.0
    for _ in range(12):
        r = decayed_relevance(r)
    assert 0.40 <= r <= 0.45
    for _ in range(20):
        r = decayed_relevance(r)
    assert 0.09 <= r <= 0.12


def test_fresh_window_ignores_relevance():
    assert [derive_state(0.05, 5, t) for t in (5, 6, 7)] == ["fresh"] * 3
    assert derive_state(0.05, 5, 8) == "archived"


@pytest.mark.parametrize(
    "relevance,state", [(0.4, "active"), (0.39, "dormant"), (0.1, "archived"), (1.0, "active")]
)
def test_state_buckets(relevance, state):
    assert derive_state(relevance, 0, 10) == state


def test_zero_thresholds_fall_back_to_defaults():
    assert derive_state(0.39, 0, 10, fresh_turns=0, dormant_below=0, archived_at_or_below=0) == "dormant"


def test_eviction_order():
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    t1 = datetime(2026, 1, 2, tzinfo=timezone.utc)
    keys = {
        "fresh": eviction_key("fresh", 1.0, t0, 1),
        "active": eviction_key("active", 0.9, t0, 2),
        "dormant": eviction_key("dormant", 0.3, t1, 3),
        "archived_recent": eviction_key("archived", 0.05, t1, 4),
        "superseded": eviction_key("fresh", 1.0, t1, 5, superseded=True),
    }
    assert sorted(keys, key=keys.get) == ["superseded", "archived_recent", "dormant", "active", "fresh"]
    assert eviction_key("active", 0.5, t0, 9) < eviction_key("active", 0.6, t0, 1)
    assert eviction_key("active", 0.5, t0, 9) < eviction_key("active", 0.5, t1, 1)
