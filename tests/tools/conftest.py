from __future__ import annotations

import pytest

from tests.support.extension_agents import ExtensionAgents


@pytest.fixture
def agents(store):
    """Build real agents with the user's tools installed; all stopped after the test."""
    built = ExtensionAgents(store)
    yield built
    built.close()
