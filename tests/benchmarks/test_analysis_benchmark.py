"""The analysis benchmark's harness on a few thousand rows: every side runs in its own process,
answers every query, and agrees with the engine on the size of every answer."""
from __future__ import annotations

import json
import re

import pytest

from benchmarks import analysis


@pytest.mark.slow
def test_every_side_answers_every_query_with_the_engines_row_counts(tmp_path, capsys):
    analysis.main(["--rows", "3000", "--runs", "2", "--data", str(tmp_path)])
    table = capsys.readouterr().out
    assert "Row counts that differ" not in table
    header = [cell.strip() for cell in table.splitlines()[2].strip("|").split("|")]
    assert header[1:5] == ["engine", "pandas", "polars", "DuckDB"]
    for name in analysis.QUERIES:
        line = next(line for line in table.splitlines() if line.startswith(f"| (b) {name} "))
        assert len(re.findall(r"\d+\.\d+ \(\d+\.\d+–\d+\.\d+\)×", line)) == 3   # a ratio for each peer
    recorded = json.loads((tmp_path / "analysis-orders_3000.json").read_text())
    assert {side: len(runs) for side, runs in recorded["runs"].items()} == \
        {"engine": 2, "pandas": 2, "polars": 2, "duckdb": 2}
    engine = recorded["runs"]["engine"][0]
    assert engine["rows"] == 3000 and engine["first_rows"] == recorded["runs"]["polars"][0]["first_rows"] > 1
    assert recorded["limited"]["rows"] == 3000


def test_medians_and_ratios_are_taken_within_rounds():
    assert analysis._median([3.0, 1.0, 2.0]) == 2.0
    assert analysis._median([4.0, 1.0, 2.0, 3.0]) == 2.5
    engine = {"queries": {n: {"seconds": 1.0} for n in analysis.QUERIES}}
    peer = {"queries": {n: {"seconds": 4.0 if i % 2 else 1.0} for i, n in enumerate(analysis.QUERIES)}}
    assert abs(analysis._gmean(analysis.suite_ratios(engine, peer)) - 2.0) < 1e-9
