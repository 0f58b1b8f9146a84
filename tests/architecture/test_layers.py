"""The layers hold: import-linter's contracts (``.importlinter``) and no import cycles.

Each contract is also shown to fail: a copy of the package with one forbidden import added
breaks exactly the contract that forbids it (a contract that cannot fail would prove nothing).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CYCLES = Path(__file__).with_name("import_cycles.py")

# (contract name as written in .importlinter, module to edit, the forbidden import to add)
VIOLATIONS = [
    ("Layers: front doors > agent", "bundle/errors.py", "from ..agent import commands"),
    ("The store imports nothing above it", "store/models.py", "from ..context import tokens"),
    ("The model layer knows no store", "llm/types.py", "from ..store import errors"),
    ("Analysis knows no model, agent or notebook", "analysis/errors.py", "from ..llm import errors"),
    ("Tools know no agent or notebook", "tools/registry.py", "from ..notebook import identity"),
    ("Context knows no agent or notebook", "context/tokens.py", "from ..agent import _types"),
    ("The agent knows no front door and no widgets or comms", "agent/_types.py", "import ipywidgets"),
    ("Connections know no agent, notebook or tools", "engines/__init__.py", "from ..tools import registry"),
]


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(root / ".importlinter")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _verdicts(output: str) -> dict[str, str]:
    """Contract name (its first words) -> KEPT | BROKEN, from lint-imports' summary."""
    flat = re.sub(r"\s*\n\s*", " ", output)
    return {name: verdict for name, *_ in VIOLATIONS
            for verdict in re.findall(re.escape(name) + r".*? (KEPT|BROKEN)", flat)[:1]}


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "shell_agent_lab", tmp_path / "shell_agent_lab",
                    ignore=shutil.ignore_patterns("__pycache__", "labextension"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_the_contracts_hold():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = _verdicts(result.stdout)
    assert verdicts == {name: "KEPT" for name, *_ in VIOLATIONS}, result.stdout


@pytest.mark.parametrize(("contract", "module", "line"), VIOLATIONS, ids=[v[1] for v in VIOLATIONS])
def test_a_forbidden_import_breaks_its_contract(package_copy, contract, module, line):
    path = package_copy / "shell_agent_lab" / module
    path.write_text(path.read_text() + f"\n{line}  # added by the test\n")
    result = _lint(package_copy)
    assert result.returncode == 1, result.stdout + result.stderr
    assert _verdicts(result.stdout)[contract] == "BROKEN", result.stdout


def test_there_are_no_import_cycles():
    result = subprocess.run([sys.executable, str(CYCLES), "shell_agent_lab"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, "import cycles:\n" + result.stdout + result.stderr


def test_an_import_cycle_is_found(package_copy):
    models = package_copy / "shell_agent_lab" / "store" / "models.py"
    models.write_text(models.read_text() + "\nfrom . import memory  # added by the test\n")
    result = subprocess.run([sys.executable, str(CYCLES), "shell_agent_lab"], cwd=package_copy,
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(package_copy)})
    assert result.returncode == 1
    assert "shell_agent_lab.store.memory" in result.stdout and "shell_agent_lab.store.models" in result.stdout
