"""A session's DuckDB with connections beside it, as the agent builds it."""
from __future__ import annotations

from typing import Any

from shell_agent_lab.analysis.engine import AnalysisEngine
from shell_agent_lab.engines import Connections, Sources


def sources(tmp_path, namespace: dict[str, Any] | None = None, *, settings: Any = None, **urls: str) -> Sources:
    ns = namespace if namespace is not None else {}
    local = AnalysisEngine(tmp_path / "analysis.duckdb", namespace=lambda: ns, settings=settings)
    connections = Connections()
    for name, url in urls.items():
        connections.add(name, url)
    return Sources(local, connections)


def close(src: Sources) -> None:
    src.connections.close()
    src.local.close()
