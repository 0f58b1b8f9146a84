"""Shared fixtures: every test gets its own data directory, and no test reaches a real model."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path, monkeypatch):
    """Point the data dir at a fresh temporary folder and strip real model credentials."""
    data = tmp_path / "data"
    monkeypatch.setenv("SHELL_AGENT_LAB_DATA_DIR", str(data))
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "GEMINI_API_KEY",
                "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(key, raising=False)
    yield data


@pytest.fixture
def store(_isolated_data_dir):
    """A real store in the test's data directory (folders may override it, e.g. with a clock)."""
    from shell_agent_lab.store import Store

    opened = Store.open(_isolated_data_dir)
    yield opened
    opened.close()


def pytest_sessionfinish(session, exitstatus):
    # no tests collected must fail the run, never pass silently
    if exitstatus == 5:
        session.exitstatus = 1
