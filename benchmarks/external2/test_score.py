"""Tests for the second external evaluation set: shape of the set, reference
answers, the independent cross-check, and the scorer on the stored answers."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path


from benchmarks.external import score as BASE
from benchmarks.external.set_checks import stored_answer_tests
from benchmarks.external2 import score as S

HERE = Path(__file__).resolve().parent
QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}
CLOSED = [q for q in QS if q["style"] == "closed"]
NATURAL = [q for q in QS if q["style"] == "natural"]

CATEGORIES = {"groupby", "correlation", "test", "regression", "missing", "outliers", "dates", "filter",
              "topk", "distribution", "feature engineering", "duplicates", "summary", "change", "share",
              "count"}
FIRST_SET_TABLES = {"airquality", "cars", "cps1985", "fair", "macrodata", "mpg", "msleep", "penguins",
                    "planes", "quakes", "salaries", "seattle_weather", "stocks", "titanic_survival",
                    "toothgrowth", "txhousing"}


# ------------------------------------------------------------------ the module
def test_module_points_at_this_folder():
    assert S.HERE == HERE and S.TABLES == HERE / "tables"
    assert S.score is BASE.score and S.prompt_for is BASE.prompt_for
    assert S.load_wordings() == BASE.load_wordings()
    q = QS[0]
    assert S.run_reference(q) is not None
    assert not (BASE.TABLES / q["table"]).exists()


# ------------------------------------------------------------------ set shape
def test_set_shape():
    assert len(QS) >= 64
    styles = Counter(q["style"] for q in QS)
    assert styles["closed"] == 44 and styles["natural"] == 20
    assert [q["id"] for q in QS] == [f"x2-{i:02d}" for i in range(1, len(QS) + 1)]
    for q in QS:
        assert set(q) == {"id", "table", "frame", "style", "topics", "question", "answer", "reference_code"}
        assert q["frame"].isidentifier() and q["frame"] not in {"pd", "np", "stats", "result"}
        assert q["topics"] and q["topics"][0] in CATEGORIES, (q["id"], q["topics"])


def test_tables():
    csvs = sorted((HERE / "tables").glob("*.csv"))
    assert 10 <= len(csvs) <= 14
    assert {q["table"] for q in QS} == {p.name for p in csvs}
    for p in csvs:
        assert p.stat().st_size < 3 * 1024 * 1024, p.name
        assert p.stem not in FIRST_SET_TABLES
    for t in {q["table"] for q in QS}:
        per = Counter(q["style"] for q in QS if q["table"] == t)
        assert 3 <= per["closed"] <= 4 and 1 <= per["natural"] <= 2, (t, per)
        assert len({q["frame"] for q in QS if q["table"] == t}) == 1


def test_closed_questions_carry_their_format():
    for q in CLOSED:
        assert "Format:" in q["question"], q["id"]
        parts = q["answer"]["parts"]
        assert parts
        for name, spec in parts.items():
            assert re.fullmatch(r"\w+", name)
            assert f"@{name}[" in q["question"], (q["id"], name)
            assert spec["kind"] in ("int", "float", "text")
            if spec["kind"] == "float":
                assert spec["tolerance"] in (0.1, 0.01, 0.001, 0.0001), (q["id"], name)
    # the format descriptions vary: some inline, some on lines of their own
    inline = [q for q in CLOSED if not re.search(r"(^|\n)\s*(Answer )?Format:", q["question"])]
    own_line = [q for q in CLOSED if re.search(r"(^|\n)Format:", q["question"])]
    assert len(inline) >= 3 and len(own_line) >= 20


def test_natural_questions_are_plain():
    for q in NATURAL:
        assert "Answer:" not in q["question"] and "@" not in q["question"]
        assert "Format" not in q["question"]
        ans = q["answer"]
        assert ans["kind"] in ("number", "count", "label", "yesno", "list")
        if ans["kind"] == "label":
            assert ans["value"] in ans["choices"]
        if ans["kind"] == "number":
            assert ans["tolerance"] > 0
    kinds = Counter(q["answer"]["kind"] for q in NATURAL)
    assert set(kinds) == {"number", "count", "label", "yesno", "list"}


# the reference, cross-check, scorer and builder checks every set gets
globals().update(stored_answer_tests(S, "benchmarks.external2", needs="statsmodels"))
