"""Fixtures for the analysis tests: an engine over a temporary session directory."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings


@pytest.fixture
def namespace() -> dict:
    return {}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "notebooks"
    path.mkdir()
    return path


@pytest.fixture
def make_engine(tmp_path: Path, namespace: dict, workdir: Path):
    engines: list[AnalysisEngine] = []

    def make(settings: AnalysisSettings | None = None, *, db: Path | None = None, ns: dict | None = None,
             memory: bool = False):
        target = None if memory else db if db is not None else tmp_path / "session" / "analysis.duckdb"
        use = namespace if ns is None else ns
        engine = AnalysisEngine(target, namespace=lambda: use, base_dir=workdir,
                                settings=settings or AnalysisSettings(threads=1))
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def engine(make_engine):
    return make_engine()


@pytest.fixture
def sales_csv(workdir: Path) -> Path:
    path = workdir / "sales.csv"
    lines = ["region,day,amount,product"]
    for i in range(200):
        lines.append(f"{['north', 'south', 'east', 'west'][i % 4]},2024-01-{i % 28 + 1:02d},{(i * 37) % 101 + 0.5},p{i % 7}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def session_id(store) -> str:
    return store.create_session(title="analysis").id


@pytest.fixture
def events() -> list:
    return []


@pytest.fixture
def make_ctx(store, session_id, engine, events):
    from shell_agent_lab.agent._ask import tool_ask
    from shell_agent_lab.tools.registry import ToolContext

    def make(backend=None, **extra):
        extra.setdefault("cancel", threading.Event())
        return ToolContext(session_id=session_id, store=store, engine=engine,
                           ask=tool_ask(backend, extra["cancel"]),
                           publish=lambda type, data: events.append((type, data)),
                           tool_call_id="call-1", turn_id="turn-1", **extra)

    return make


@pytest.fixture
def tools():
    from shell_agent_lab.analysis import analysis_tools

    return {d.name: d for d in analysis_tools()}
