"""Fixtures for the bundle tests: a source store and a fresh destination store."""
from __future__ import annotations

import pytest

from shell_agent_lab.store import Store


@pytest.fixture
def store(tmp_path):
    st = Store.open(tmp_path / "src-data")
    yield st
    st.close()


@pytest.fixture
def fresh_store(tmp_path):
    st = Store.open(tmp_path / "dst-data")
    yield st
    st.close()
