"""``pytest --nbval notebooks/``: each notebook replays its own cassette, offline.

nbval starts one kernel per notebook; just before it does, the kernel's environment is set
here: ``SHELL_AGENT_LAB_CASSETTE=cassettes/<name>.json`` (the model is replayed, matched on the
conversation; a request the cassette has not seen fails the cell) and a data directory shared by
the notebooks of one group, in order (``memory_part2`` remembers what ``memory_part1`` said; the
groups are in ``tests/nbval/notebooks_src.py``). Each run gets fresh data directories in a
temporary folder, or under ``SHELL_AGENT_LAB_NBVAL_DATA`` when that names one; the user's own
data directory and settings (``SHELL_AGENT_LAB_*``, ``JPY_*``) never reach these kernels.
Volatile text (ids, dates, temporary paths) goes through ``tests/nbval/sanitize.cfg`` unless
``--nbval-sanitize-with`` names another file.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NBVAL_TESTS = HERE.parent / "tests" / "nbval"
ENV_DATA = "SHELL_AGENT_LAB_NBVAL_DATA"
_CLEARED = ("JPY_", "SHELL_AGENT_LAB_")

_state: dict = {"notebook": None, "saved": None, "data": None, "own_data": False}


def _groups() -> list[list[str]]:
    spec = importlib.util.spec_from_file_location("_nbval_notebooks_src", NBVAL_TESTS / "notebooks_src.py")
    if spec is None or spec.loader is None:     # pragma: no cover - a checkout without the tests
        return []
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.GROUPS)


def _group_of(name: str) -> str:
    for group in _state["groups"]:
        if name in group:
            return group[0]
    return name


def kernel_env(name: str, base: dict[str, str], data_dir: Path) -> dict[str, str]:
    """The environment the kernel of notebook ``name`` starts with."""
    env = {k: v for k, v in base.items() if not k.startswith(_CLEARED)}
    env.update({"SHELL_AGENT_LAB_DATA_DIR": str(data_dir), "SHELL_AGENT_LAB_REPLAY": "replay",
                "SHELL_AGENT_LAB_REPLAY_MATCH": "conversation"})
    cassette = HERE / "cassettes" / f"{name}.json"
    if cassette.is_file():
        env["SHELL_AGENT_LAB_CASSETTE"] = str(cassette)
    return env


def pytest_configure(config: pytest.Config) -> None:
    if not getattr(config.option, "nbval", False) and not getattr(config.option, "nbval_lax", False):
        return
    if getattr(config.option, "nbval_sanitize_with", None) is None:
        config.option.nbval_sanitize_with = str(NBVAL_TESTS / "sanitize.cfg")
    _state["saved"] = dict(os.environ)
    _state["groups"] = _groups()
    chosen = os.environ.get(ENV_DATA)
    _state["own_data"] = not chosen
    _state["data"] = Path(chosen) if chosen else Path(tempfile.mkdtemp(prefix="sal-nbval-"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the first cell of a notebook (when nbval starts its kernel): its environment."""
    path = Path(str(item.path))
    if _state["saved"] is None or path.suffix != ".ipynb" or path.parent != HERE or _state["notebook"] == path:
        return
    _state["notebook"] = path
    env = kernel_env(path.stem, _state["saved"], _state["data"] / _group_of(path.stem))
    os.environ.clear()
    os.environ.update(env)


def pytest_unconfigure(config: pytest.Config) -> None:
    saved = _state["saved"]
    if saved is None:
        return
    os.environ.clear()
    os.environ.update(saved)
    if _state["own_data"]:
        shutil.rmtree(_state["data"], ignore_errors=True)
    _state.update(notebook=None, saved=None, data=None)
