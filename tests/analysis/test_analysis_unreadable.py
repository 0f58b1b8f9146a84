"""A data file the kernel cannot read gives one actionable line and creates no table."""
from __future__ import annotations

from tests.support.file_permissions import run_honouring_permissions


def test_unreadable_csv_is_refused_with_a_clear_error(tmp_path):
    data = tmp_path / "sales.csv"
    data.write_text("region,revenue\nWest,1\n", encoding="utf-8")
    data.chmod(0)
    db = tmp_path / "session" / "analysis.duckdb"
    result = run_honouring_permissions(
        "import sys\n"
        "from shell_agent_lab.analysis import AnalysisEngine, LoadError\n"
        f"engine = AnalysisEngine({str(db)!r}, namespace=dict)\n"
        "try:\n"
        f"    engine.load({str(data)!r}, 'sales')\n"
        "except LoadError as exc:\n"
        "    print(exc)\n"
        "    print([t.name for t in engine.tables()])\n"
        "    sys.exit(3)\n")
    assert result.returncode == 3, result.stderr
    message, tables = result.stdout.strip().splitlines()
    assert "not readable" in message and "check its permissions" in message
    assert tables == "[]"
