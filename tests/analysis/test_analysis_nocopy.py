"""Live DataFrames are scanned in place: registering and querying a big frame does not copy it."""
from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import psutil
import pytest

from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings

ROWS = 10_000_000


@pytest.mark.slow
def test_ten_million_rows_are_queried_without_a_copy(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({
        "key": rng.integers(0, 1000, ROWS, dtype=np.int64),
        "a": rng.random(ROWS),
        "b": rng.integers(-50, 50, ROWS, dtype=np.int64),
        "c": rng.standard_normal(ROWS),
    })
    frame_bytes = int(frame.memory_usage(index=False, deep=True).sum())
    assert frame_bytes >= 300 * 1024 ** 2
    namespace = {"big": frame}
    gc.collect()
    process = psutil.Process()
    before = process.memory_info().rss
    engine = AnalysisEngine(tmp_path / "analysis.duckdb", namespace=lambda: namespace,
                            settings=AnalysisSettings())
    try:
        result = engine.query("SELECT key, sum(a) AS sa, sum(b) AS sb, avg(c) AS ac, count(*) AS n "
                              "FROM big GROUP BY key ORDER BY key", path="analyze")
        grown = process.memory_info().rss - before
    finally:
        engine.close()
    print(f"NOCOPY grown={grown / 2**20:.1f} MiB frame={frame_bytes / 2**20:.1f} MiB ratio={grown / frame_bytes:.3f}")
    assert grown < 0.25 * frame_bytes, f"RSS grew by {grown / 2**20:.0f} MiB for a {frame_bytes / 2**20:.0f} MiB frame"
    expected = frame.groupby("key").agg(sa=("a", "sum"), sb=("b", "sum"), ac=("c", "mean"), n=("a", "size")).reset_index()
    got = result.to_pandas()
    assert got["key"].tolist() == expected["key"].tolist()
    assert got["n"].tolist() == expected["n"].tolist()
    assert got["sb"].tolist() == expected["sb"].tolist()
    np.testing.assert_allclose(got["sa"], expected["sa"], rtol=1e-9)
    np.testing.assert_allclose(got["ac"], expected["ac"], rtol=1e-9, atol=1e-12)
