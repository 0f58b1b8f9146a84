"""Tests for the third external evaluation set: shape of the set, reference
answers, the independent cross-check, and the scorer on the stored answers."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.external import score as BASE
from benchmarks.external3 import score as S

HERE = Path(__file__).resolve().parent
QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}
CLOSED = [q for q in QS if q["style"] == "closed"]
NATURAL = [q for q in QS if q["style"] == "natural"]

CATEGORIES = {"groupby", "correlation", "test", "regression", "missing", "outliers", "dates", "filter",
              "topk", "distribution", "feature engineering", "duplicates", "summary", "change", "share",
              "count"}
EARLIER_SET_TABLES = {"airquality", "cars", "cps1985", "fair", "macrodata", "mpg", "msleep", "penguins",
                      "planes", "quakes", "salaries", "seattle_weather", "stocks", "titanic_survival",
                      "toothgrowth", "txhousing", "gapminder", "starwars", "house_prices", "chile", "arrests",
                      "nyc_weather", "polls_2016", "births14", "ames", "fertility", "co2", "la_riots"}


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
    assert len(QS) == 48
    styles = Counter(q["style"] for q in QS)
    assert styles["closed"] == 28 and styles["natural"] == 20
    assert [q["id"] for q in QS] == [f"x3-{i:02d}" for i in range(1, len(QS) + 1)]
    # grouped by table
    order = [q["table"] for q in QS]
    starts = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(starts) == len(set(order))
    for q in QS:
        assert set(q) == {"id", "table", "frame", "style", "topics", "question", "answer", "reference_code"}
        assert q["frame"].isidentifier() and q["frame"] not in {"pd", "np", "stats", "result"}
        assert q["topics"] and q["topics"][0] in CATEGORIES, (q["id"], q["topics"])


def test_tables():
    csvs = sorted((HERE / "tables").glob("*.csv"))
    assert len(csvs) == 8
    assert {q["table"] for q in QS} == {p.name for p in csvs}
    for p in csvs:
        assert p.stat().st_size < 3 * 1024 * 1024, p.name
        assert p.stem not in EARLIER_SET_TABLES
    for t in {q["table"] for q in QS}:
        per = Counter(q["style"] for q in QS if q["table"] == t)
        assert 3 <= per["closed"] <= 4 and 2 <= per["natural"] <= 3, (t, per)
    for p in csvs:
        import csv

        with open(p, newline="") as fh:
            rs = list(csv.reader(fh))
        assert 100 <= len(rs) - 1 <= 30000 and len(rs[0]) < 40, (p.name, len(rs) - 1, len(rs[0]))
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
    assert len(inline) >= 3 and len(own_line) >= 12
    assert sum("Constraints:" in q["question"] for q in CLOSED) >= 10
    # several wordings of the format descriptions
    tails = {q["question"].split("Format:", 1)[1].strip() for q in CLOSED}
    assert len(tails) == len(CLOSED)


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
    assert kinds["yesno"] >= 3 and kinds["list"] >= 3


# ------------------------------------------------------------------ references
@pytest.mark.parametrize("qid", [q["id"] for q in QS])
def test_reference_reproduces_answer(qid):
    q = BY_ID[qid]
    got = S.run_reference(q)
    ans = q["answer"]
    if q["style"] == "closed":
        assert set(got) == set(ans["parts"])
        for name, spec in ans["parts"].items():
            v = got[name]
            if spec["kind"] == "float":
                assert abs(float(v) - spec["value"]) <= spec["tolerance"] / 2 + 1e-9, (name, v)
            elif spec["kind"] == "int":
                assert int(v) == spec["value"] and float(v) == int(v)
            else:
                assert str(v) == spec["value"]
    else:
        k = ans["kind"]
        if k == "number":
            assert abs(float(got) - ans["value"]) <= max(ans["tolerance"] / 2, 1e-6)
        elif k == "count":
            assert int(got) == ans["value"]
        elif k == "list":
            assert list(got) == ans["value"]
        else:
            assert str(got) == ans["value"]


def test_second_method_agrees():
    pytest.importorskip("scipy")
    from benchmarks.external3 import crosscheck

    assert crosscheck.check() == []


# ------------------------------------------------------------------ the scorer on the stored answers
def _decimals(tol: float) -> int:
    return round(-__import__("math").log10(tol))


def _closed_reply(q, override=None):
    vals = []
    for n, s in q["answer"]["parts"].items():
        v = s["value"]
        if s["kind"] == "float":
            v = f"{v:.{_decimals(s['tolerance'])}f}"
        if override and n in override:
            v = override[n]
        vals.append(f"@{n}[{v}]")
    return "I computed it.\n" + "\n".join(vals)


@pytest.mark.parametrize("qid", [q["id"] for q in QS])
def test_stored_answer_scores_correct(qid):
    """A reply stating the stored answer in the asked form is judged correct."""
    q = BY_ID[qid]
    ans = q["answer"]
    if q["style"] == "closed":
        for reply in (_closed_reply(q),
                      " ".join(f"@{n}[{s['value']}]" for n, s in ans["parts"].items())):
            assert S.score(q, reply)["correct"], (reply, S.score(q, reply))
        return
    if ans["kind"] == "list":
        replies = ["Answer: " + ", ".join(ans["value"]), "Answer: [" + ", ".join(ans["value"]) + "]"]
        if not ans["ordered"]:
            replies.append("Answer: " + ", ".join(reversed(ans["value"])))
    elif ans["kind"] == "yesno":
        replies = [f"Answer: {ans['value']}", "Answer: " + ("True" if ans["value"] == "yes" else "False")]
    elif ans["kind"] == "number":
        replies = [f"Answer: {ans['value']}", f"Some working.\nAnswer: {ans['value']:.2f}"]
    else:
        replies = [f"Answer: {ans['value']}", f"The answer is {ans['value']}."]
    for reply in replies:
        assert S.score(q, reply)["correct"], (reply, S.score(q, reply))


def _wrong_text(value: str) -> str:
    swap = {"yes": "no", "no": "yes", "True": "False", "False": "True", "positive": "negative",
            "significant": "not significant"}
    if value in swap:
        return swap[value]
    if ", " in value:  # a list inside one part: the order matters
        items = value.split(", ")
        return ", ".join(items[1:] + items[:1])
    return value + "x"


@pytest.mark.parametrize("qid", [q["id"] for q in CLOSED])
def test_closed_wrong_parts_score_wrong(qid):
    q = BY_ID[qid]
    for name, spec in q["answer"]["parts"].items():
        if spec["kind"] == "int":
            bad = str(spec["value"] + 1)
        elif spec["kind"] == "float":
            bad = repr(spec["value"] + 3 * spec["tolerance"])
        else:
            bad = _wrong_text(spec["value"])
        r = S.score(q, _closed_reply(q, {name: bad}))
        assert not r["correct"], (name, bad, r)
    # a missing part, or the values without the @name[...] wrapping, is wrong
    first = next(iter(q["answer"]["parts"]))
    assert not S.score(q, _closed_reply(q).replace(f"@{first}[", f"{first}: [", 1))["correct"]
    assert not S.score(q, " ".join(str(s["value"]) for s in q["answer"]["parts"].values()))["correct"]


@pytest.mark.parametrize("qid", [q["id"] for q in NATURAL])
def test_natural_wrong_answers_score_wrong(qid):
    q = BY_ID[qid]
    ans = q["answer"]
    k = ans["kind"]
    if k == "number":
        bads = [f"Answer: {ans['value'] + 3 * ans['tolerance'] + 0.01}",
                f"Answer: {ans['value']} or {ans['value'] + 10}"]
    elif k == "count":
        bads = [f"Answer: {ans['value'] + 1}", f"Answer: {ans['value'] - 1} or {ans['value']}"]
    elif k == "label":
        other = next(c for c in ans["choices"] if c != ans["value"] and ans["value"] not in c)
        bads = [f"Answer: {other}", f"Answer: {ans['value']} or {other}"]
    elif k == "yesno":
        bads = ["Answer: " + ("no" if ans["value"] == "yes" else "yes"), "Answer: maybe"]
    else:
        v = ans["value"]
        bads = ["Answer: " + ", ".join(v[:-1]), "Answer: " + ", ".join(v + ["Nowhere"])]
        if ans["ordered"]:
            bads.append("Answer: " + ", ".join(reversed(v)))
    for reply in bads:
        assert not S.score(q, reply)["correct"], reply
    assert not S.score(q, "I could not work it out.")["correct"]


def test_prompt_for_uses_the_shared_wordings():
    ws = S.load_wordings()
    assert any(w["template"] == "" for w in ws)
    for w in ws:
        p = S.prompt_for(NATURAL[0], w)
        assert p.startswith(NATURAL[0]["question"]) and p.endswith(w["template"].replace("{frame}", NATURAL[0]["frame"]).strip())
    assert S.prompt_for(CLOSED[0], ws[0]) == CLOSED[0]["question"]


def test_questions_json_is_what_the_builder_writes():
    from benchmarks.external3 import build_questions

    built = build_questions.build()
    assert json.loads(json.dumps(built)) == QS
