"""Helpers for the notebook tests (a module of its own: `conftest` names clash across test folders)."""
from __future__ import annotations

from IPython.utils.capture import capture_output


def run(ip, code: str):
    """Run a cell; return (result, captured) with display outputs."""
    with capture_output() as cap:
        result = ip.run_cell(code, store_history=True)
    return result, cap
