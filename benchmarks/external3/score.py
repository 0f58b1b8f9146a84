"""Scoring for the third external evaluation set.

The scoring rules are those of `benchmarks/external/score.py`, and the loaders those of the
second set's `score.py` (`load_questions`, `load_wordings`, `run_reference`, `prompt_for`,
`score`), pointed at this folder's `questions.json` and `tables/`.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

try:
    from benchmarks.external2 import score as _second
except ImportError:  # run as a script from this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.external2 import score as _second

from benchmarks.external2.score import *  # noqa: E402,F401,F403

# this folder's files (set after the star import, which brings the second set's own)
HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables"
WORDINGS = _second.WORDINGS

_score_closed = _second._score_closed
_score_natural = _second._score_natural
_norm_label = _second._norm_label
_split_list = _second._split_list
prompt_for = _second.prompt_for
score = _second.score
parse_number = _second.parse_number
answer_text = _second.answer_text
load_wordings = _second.load_wordings


def load_questions() -> list[dict]:
    return json.loads((HERE / "questions.json").read_text())


def run_reference(q: dict) -> Any:
    """Run q["reference_code"] with the table loaded as q["frame"]; return `result`."""
    return _second.run_in(TABLES, q)
