"""Scoring for the second external evaluation set.

The scoring rules are those of `benchmarks/external/score.py`, re-exported
unchanged; this module only points the loaders at this folder's files:

* `load_questions()` reads `questions.json` beside this module.
* `load_wordings()` reads the shared `../external/wordings.json`.
* `run_reference(q)` executes a question's reference code on the CSV in this
  folder's `tables/` and returns its result.
* `prompt_for(q, wording)` and `score(q, reply_text)` are the existing ones.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

try:
    from benchmarks.external import score as _base
except ImportError:  # run as a script from this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.external import score as _base

from benchmarks.external.score import *  # noqa: E402,F401,F403

# this folder's files (set after the star import, which brings the base's own)
HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables"
WORDINGS = HERE.parent / "external" / "wordings.json"

# the private helpers too, for tests that want them
_score_closed = _base._score_closed
_score_natural = _base._score_natural
_norm_label = _base._norm_label
_split_list = _base._split_list
prompt_for = _base.prompt_for
score = _base.score
parse_number = _base.parse_number
answer_text = _base.answer_text


def load_questions() -> list[dict]:
    return json.loads((HERE / "questions.json").read_text())


def load_wordings() -> list[dict]:
    return json.loads(WORDINGS.read_text())


def run_reference(q: dict) -> Any:
    """Run q["reference_code"] with the table loaded as q["frame"]; return `result`."""
    return run_in(TABLES, q)


def run_in(tables: Path, q: dict) -> Any:
    """Run q["reference_code"] with its table of ``tables`` loaded as q["frame"]; return `result`."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    env: dict[str, Any] = {"pd": pd, "np": np, "stats": stats}
    env[q["frame"]] = pd.read_csv(tables / q["table"])
    exec(q["reference_code"], env)  # noqa: S102 - trusted, committed code
    return env["result"]
