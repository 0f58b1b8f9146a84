"""Tests for the fourth external evaluation set: shape of the set, reference answers, the
independent cross-check, the scorer on the stored answers (general extraction, as the
earlier sets), and the scorer under each of this set's own answer-format wordings."""
from __future__ import annotations

import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

try:
    from benchmarks.external import score as BASE
except ImportError:  # run from this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.external import score as BASE
from benchmarks.external.set_checks import stored_answer_tests
from benchmarks.external4 import score as S

HERE = Path(__file__).resolve().parent
QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}
CLOSED = [q for q in QS if q["style"] == "closed"]
NATURAL = [q for q in QS if q["style"] == "natural"]
WORDINGS = S.load_wordings()
WORDING_IDS = [w["id"] for w in WORDINGS]

CATEGORIES = {"groupby", "correlation", "test", "regression", "missing", "outliers", "dates", "filter",
              "topk", "distribution", "feature engineering", "duplicates", "summary", "change", "share",
              "count", "strings"}


# ------------------------------------------------------------------ the module
def test_module_points_at_this_folder():
    assert S.HERE == HERE and S.TABLES == HERE / "tables"
    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score",
                 "parse_number", "answer_text"):
        assert callable(getattr(S, name)), name
    assert S.parse_number is BASE.parse_number and S.answer_text is BASE.answer_text
    q = QS[0]
    assert S.run_reference(q) is not None
    assert not (BASE.TABLES / q["table"]).exists()


# ------------------------------------------------------------------ set shape
def _earlier_data_sets() -> tuple[set[str], set[str]]:
    """File stems and data-set names (package/item) listed by the earlier sets' SOURCES.md."""
    files, sets = set(), set()
    for folder in ("external", "external2", "external3"):
        for line in (HERE.parent / folder / "SOURCES.md").read_text().splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 4 and cells[0].startswith("`") and cells[0].endswith(".csv`"):
                files.add(cells[0].strip("`")[:-4].lower())
                sets.add(re.sub(r"`|\(.*?\)", "", cells[3]).strip().lower())
    return files, sets


def _own_sources() -> list[list[str]]:
    out = []
    for line in (HERE / "SOURCES.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`") and cells[0].endswith(".csv`"):
            out.append(cells)
    return out


def test_set_shape():
    assert len(QS) == 60
    styles = Counter(q["style"] for q in QS)
    assert styles["closed"] == 36 and styles["natural"] == 24
    assert [q["id"] for q in QS] == [f"x4-{i:02d}" for i in range(1, len(QS) + 1)]
    order = [q["table"] for q in QS]
    starts = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(starts) == len(set(order)), "questions are grouped by table"
    for q in QS:
        assert set(q) == {"id", "table", "frame", "style", "topics", "question", "answer", "reference_code"}
        assert q["frame"].isidentifier() and q["frame"] not in {"pd", "np", "stats", "result"}
        assert q["topics"] and q["topics"][0] in CATEGORIES, (q["id"], q["topics"])
        assert all(t in CATEGORIES for t in q["topics"]), (q["id"], q["topics"])


def test_tables_are_new_and_small():
    csvs = sorted((HERE / "tables").glob("*.csv"))
    assert len(csvs) == 10
    assert {q["table"] for q in QS} == {p.name for p in csvs}
    files, sets = _earlier_data_sets()
    assert len(files) >= 36 and len(sets) >= 36  # the three earlier sets' tables were all read
    own = _own_sources()
    assert sorted(c[0].strip("`") for c in own) == [p.name for p in csvs]
    for cells in own:
        ds = re.sub(r"`|\(.*?\)", "", cells[3]).strip().lower()
        assert ds not in sets, ds
    for p in csvs:
        assert p.stat().st_size < 3 * 1024 * 1024, p.name
        assert p.stem.lower() not in files, p.name
        with open(p, newline="") as fh:
            rs = list(csv.reader(fh))
        assert 150 <= len(rs) - 1 <= 10000 and 5 <= len(rs[0]) <= 15, (p.name, len(rs) - 1, len(rs[0]))
        # SOURCES.md states the shape
        cells = next(c for c in own if c[0].strip("`") == p.name)
        assert cells[1].replace(" ", "") == f"{len(rs) - 1}\u00d7{len(rs[0])}", (p.name, cells[1])
    for t in {q["table"] for q in QS}:
        per = Counter(q["style"] for q in QS if q["table"] == t)
        assert 3 <= per["closed"] <= 4 and 2 <= per["natural"] <= 3, (t, per)
        assert len({q["frame"] for q in QS if q["table"] == t}) == 1
    # messy realities: missing values in at least half of the tables, dates in two
    with_missing = [p.name for p in csvs if ",," in p.read_text() or ",\n" in p.read_text()]
    assert len(with_missing) >= 5, with_missing


def test_closed_questions_carry_their_format():
    for q in CLOSED:
        assert "format" in q["question"].lower(), q["id"]
        parts = q["answer"]["parts"]
        assert parts
        for name, spec in parts.items():
            assert re.fullmatch(r"\w+", name)
            assert f"@{name}[" in q["question"], (q["id"], name)
            assert spec["kind"] in ("int", "float", "text")
            if spec["kind"] == "float":
                assert spec["tolerance"] in (0.1, 0.01, 0.001, 0.0001), (q["id"], name)
    inline = [q for q in CLOSED if not re.search(r"(^|\n)\s*(Answer )?Format", q["question"])]
    own_line = [q for q in CLOSED if re.search(r"(^|\n)(Answer )?Format", q["question"])]
    assert len(inline) >= 3 and len(own_line) >= 12
    assert sum("Constraints:" in q["question"] for q in CLOSED) >= 12
    tails = {re.split(r"format\W", q["question"], maxsplit=1, flags=re.I)[1].strip() for q in CLOSED}
    assert len(tails) == len(CLOSED), "every format description is worded differently"
    n_parts = Counter(len(q["answer"]["parts"]) for q in CLOSED)
    assert n_parts[1] == 0 or n_parts[1] <= 6
    assert sum(v for k, v in n_parts.items() if k >= 2) >= 25 and sum(v for k, v in n_parts.items() if k >= 3) >= 10
    cats = Counter(t for q in CLOSED for t in q["topics"])
    for c in ("summary", "correlation", "test", "outliers", "missing", "groupby", "feature engineering",
              "regression", "dates", "strings", "distribution"):
        assert cats[c] >= 1, c
    text = " ".join(q["question"].lower() for q in CLOSED)
    for method in ("chi-square", "t-test", "anova", "shapiro", "z-score", "iqr", "skew", "kurtosis",
                   "pearson", "spearman", "regression"):
        assert method in text, method


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


def test_follow_ups_come_right_after_a_question_on_the_same_table():
    follow = [i for i, q in enumerate(QS) if q["style"] == "natural" and re.match(r"and\b", q["question"], re.I)]
    assert len(follow) >= 2
    for i in follow:
        prev = QS[i - 1]
        assert prev["style"] == "natural" and prev["table"] == QS[i]["table"], QS[i]["id"]


# ------------------------------------------------------------------ the wordings
def test_wordings_are_new():
    assert len(WORDINGS) == 8
    assert len(set(WORDING_IDS)) == 8
    old = json.loads((HERE.parent / "external" / "wordings.json").read_text())
    assert len(old) == 13

    def norm(t):
        return re.sub(r"\s+", " ", t.strip().lower())

    old_templates = {norm(w["template"]) for w in old}
    old_ids = {w["id"] for w in old}
    for w in WORDINGS:
        assert set(w) == {"id", "template", "extract"}, w
        assert w["extract"].strip()
        assert w["id"] not in old_ids
        assert norm(w["template"]) not in old_templates
        if w["template"].strip():
            assert w["id"] in S.EXTRACTORS
            # not one of the first set's forms in other words
            assert "answer:" not in w["template"].lower() and "boxed" not in w["template"].lower()
            assert "<answer>" not in w["template"].lower() and "the answer is" not in w["template"].lower()
    assert len({norm(w["template"]) for w in WORDINGS}) == 8


def test_prompt_for():
    q, c = NATURAL[0], CLOSED[0]
    for w in WORDINGS:
        for arg in (w, w["id"]):
            p = S.prompt_for(q, arg)
            assert p.startswith(q["question"]) and p.endswith(w["template"].strip())
            assert S.prompt_for(c, arg) == c["question"]
    assert S.prompt_for(q, None) == q["question"]
    assert S.prompt_for(q, {"id": "none", "template": ""}) == q["question"]
    assert S.prompt_for(q, "Say it plainly.") == q["question"] + "\n\nSay it plainly."


# replies in each wording's form -------------------------------------------------
def _py(value, kind):
    if kind == "yesno":
        return "True" if value == "yes" else "False"
    if kind == "list":
        return repr([str(v) for v in value])
    if kind in ("number", "count"):
        return str(value)
    return repr(str(value))


def _text(value, kind):
    if kind == "yesno":
        return "Yes" if value == "yes" else "No"
    if kind == "list":
        return ", ".join(str(v) for v in value)
    return str(value)


def in_form(wid: str, value, kind: str, variant: int = 0) -> str:
    """A reply giving ``value`` in the form wording ``wid`` asks for (after some working)."""
    v = _text(value, kind)
    if wid == "yaml_result":
        if kind == "list" and variant:
            body = "result:\n" + "\n".join(f"  - {x}" for x in value)
        elif kind == "list":
            body = "result: [" + ", ".join(str(x) for x in value) + "]"
        else:
            body = f"result: {v}"
        return f"I filtered the rows and grouped them.\n\n```yaml\n{body}\n```"
    if wid == "xml_attribute":
        return f"I filtered the rows and grouped them.\n<result value=\"{v}\"/>" if not variant else \
            f"Computed.\n<result value='{v}' />"
    if wid == "double_braces":
        return f"I filtered the rows and grouped them, which gives {{{{ {v} }}}}" if not variant else \
            f"Result: {{{{{v}}}}}."
    if wid == "result_heading":
        return f"I filtered the rows and grouped them.\n\n## Result\n{v}" if not variant else \
            f"Working.\n\n## **Result**\n\n**{v}**\n"
    if wid == "python_assign":
        return f"I filtered the rows and grouped them.\nfinal_value = {_py(value, kind)}" if not variant else \
            f"```python\nfinal_value = {_py(value, kind)}\n```"
    if wid == "guillemets":
        return f"I filtered the rows and grouped them: \u00ab{v}\u00bb" if not variant else \
            f"Final: \u00ab {v} \u00bb."
    if wid == "answer_first":
        return f"{v}\n\nI filtered the rows and grouped them." if not variant else f"**{v}**\n\nMethod: grouped."
    if wid == "blockquote":
        return f"I filtered the rows and grouped them.\n\n> {v}" if not variant else f"Working.\n\n> **{v}**\n"
    raise KeyError(wid)


def wrong_value(q):
    ans = q["answer"]
    k = ans["kind"]
    if k == "number":
        return round(ans["value"] + 3 * ans["tolerance"] + 0.01, 6)
    if k == "count":
        return ans["value"] + 1
    if k == "label":
        return next(c for c in ans["choices"] if c != ans["value"] and ans["value"].lower() not in c.lower())
    if k == "yesno":
        return "no" if ans["value"] == "yes" else "yes"
    v = list(ans["value"])
    return list(reversed(v)) if ans["ordered"] else v[:-1]


def not_in_form(value, kind):
    """The answer stated in the first set's forms, but in none of this set's."""
    v = _text(value, kind)
    return f"I computed it from the table.\n\nAnswer: {v}\n\n**{v}**\n\n\\boxed{{{v}}}"


NEAR_MISSES = {
    "yaml_result": "```yaml\nanswer: {v}\n```",
    "xml_attribute": "<answer value=\"{v}\"/>",
    "double_braces": "{{ {v} }",
    "result_heading": "## Answer\n{v}",
    "python_assign": "answer = {v}",
    "guillemets": "\"{v}\"",
    "answer_first": "Let me look at the table first.\n\n{v}",
    "blockquote": "Result: {v}",
}


@pytest.mark.parametrize("wid", WORDING_IDS)
@pytest.mark.parametrize("qid", [q["id"] for q in NATURAL])
def test_reply_in_the_wordings_form(qid, wid):
    q = BY_ID[qid]
    ans = q["answer"]
    for variant in (0, 1):
        r = S.score(q, in_form(wid, ans["value"], ans["kind"], variant), wid)
        assert r["correct"], (variant, r)
    # the wrong value in the right form
    bad = wrong_value(q)
    r = S.score(q, in_form(wid, bad, ans["kind"]), wid)
    assert not r["correct"], r
    # the right value, but not in the asked form
    r = S.score(q, not_in_form(ans["value"], ans["kind"]), wid)
    assert not r["correct"], r
    if wid != "answer_first":
        assert "not in the asked form" in r["why"], r
    near = NEAR_MISSES[wid].replace("{v}", _text(ans["value"], ans["kind"]))
    assert not S.score(q, near, wid)["correct"], near
    # the wording given as a dict works as its id does
    w = next(x for x in WORDINGS if x["id"] == wid)
    assert S.score(q, in_form(wid, ans["value"], ans["kind"]), w)["correct"]


@pytest.mark.parametrize("wid", [w for w in WORDING_IDS if w != "answer_first"])
@pytest.mark.parametrize("qid", [q["id"] for q in NATURAL])
def test_the_last_occurrence_of_the_form_counts(qid, wid):
    q = BY_ID[qid]
    ans = q["answer"]
    right = in_form(wid, ans["value"], ans["kind"])
    wrong = in_form(wid, wrong_value(q), ans["kind"])
    assert S.score(q, wrong + "\n\nOn second thought:\n" + right, wid)["correct"]
    assert not S.score(q, right + "\n\nOn second thought:\n" + wrong, wid)["correct"]


def test_answer_first_reads_the_first_line_only():
    q = next(x for x in NATURAL if x["answer"]["kind"] == "count")
    v = q["answer"]["value"]
    assert S.score(q, f"{v}\n\nAnswer: {v + 1}", "answer_first")["correct"]
    assert not S.score(q, f"{v + 1}\n\nAnswer: {v}", "answer_first")["correct"]
    assert S.score(q, f"```\n{v}\n```\nthe count", "answer_first")["correct"]
    assert not S.score(q, "", "answer_first")["correct"]


@pytest.mark.parametrize("qid", [q["id"] for q in QS])
def test_no_wording_is_the_first_sets_general_extraction(qid):
    q = BY_ID[qid]
    ans = q["answer"]
    if q["style"] == "closed":
        reply = " ".join(f"@{n}[{s['value']}]" for n, s in ans["parts"].items())
        for w in [None] + WORDING_IDS:
            assert S.score(q, reply, w) == BASE.score(q, reply)
        assert S.score(q, reply)["correct"]
        return
    replies = [f"Working.\nAnswer: {_text(ans['value'], ans['kind'])}",
               f"The answer is {_text(ans['value'], ans['kind'])}.",
               not_in_form(wrong_value(q), ans["kind"]), "I could not work it out."]
    empty = {"id": "none", "template": ""}
    for reply in replies:
        assert S.score(q, reply) == BASE.score(q, reply)
        assert S.score(q, reply, empty) == BASE.score(q, reply)
    assert S.score(q, replies[0])["correct"] and not S.score(q, replies[2])["correct"]


def test_unknown_wording_id_is_an_error():
    with pytest.raises(KeyError):
        S.score(NATURAL[0], "x", "no-such-wording")


# the forms, case by case ----------------------------------------------------------
def nat(kind, value, **kw):
    return {"id": "t", "style": "natural", "question": "q?", "frame": "df", "table": "x.csv",
            "answer": {"kind": kind, "value": value, **kw}}


NUM = nat("number", 14088.008738, tolerance=1)
LAB = nat("label", "AIRBUS INDUSTRIE", choices=["AIRBUS", "AIRBUS INDUSTRIE", "BOEING"])
LST = nat("list", ["Gentoo", "Chinstrap", "Adelie"], ordered=True)
YES = nat("yesno", "yes")


def ok(q, reply, wid):
    return S.score(q, reply, wid)["correct"]


def test_yaml_form():
    w = "yaml_result"
    assert ok(NUM, "```yaml\nresult: 14,088\n```", w)
    assert ok(NUM, "```yml\nresult: \"14088.01\"\n```", w)
    assert ok(NUM, "```\nresult: 14088\n```", w)
    assert ok(LST, "```yaml\nresult:\n  - Gentoo\n  - Chinstrap\n  - Adelie\n```", w)
    assert ok(LST, "```yaml\nresult: [Gentoo, Chinstrap, Adelie]\n```", w)
    assert ok(YES, "```yaml\nresult: true\n```", w)
    assert not ok(LST, "```yaml\nresult:\n  - Chinstrap\n  - Gentoo\n  - Adelie\n```", w)
    assert not ok(NUM, "```python\nresult: 14088\n```", w)
    assert not ok(NUM, "result: 14088", w)  # not in a code block
    assert not ok(NUM, "```yaml\nvalue: 14088\n```", w)


def test_xml_form():
    w = "xml_attribute"
    assert ok(LAB, '<result value="Airbus Industrie"/>', w)
    assert ok(LAB, "<result value='AIRBUS INDUSTRIE'></result>", w)
    assert ok(NUM, '<Result  value = "$14,088" />', w)
    assert not ok(LAB, '<result value="AIRBUS"/>', w)
    assert not ok(LAB, "<result>AIRBUS INDUSTRIE</result>", w)
    assert not ok(NUM, '<result value=""/>', w)


def test_braces_form():
    w = "double_braces"
    assert ok(NUM, "So {{14088}}.", w)
    assert ok(NUM, "{{ **14,088.01** }}", w)
    assert ok(LST, "{{Gentoo, Chinstrap, Adelie}}", w)
    assert not ok(NUM, "{14088}", w)
    assert not ok(NUM, "[[14088]]", w)
    assert not ok(LAB, "{{ AIRBUS INDUSTRIE or BOEING }}", w)


def test_heading_form():
    w = "result_heading"
    assert ok(NUM, "## Result\n\n14088", w)
    assert ok(NUM, "### Result\n14,088.0 dollars", w)
    assert ok(NUM, "## Result: 14088", w)
    assert ok(YES, "## Result\nYes.", w)
    assert not ok(NUM, "## Results\n14088", w)
    assert not ok(NUM, "## Result\n\n## Notes\n14088", w)
    assert not ok(NUM, "Result\n14088", w)


def test_python_form():
    w = "python_assign"
    assert ok(NUM, "final_value = 14088.01", w)
    assert ok(NUM, "final_value = 14088  # dollars", w)
    assert ok(LAB, 'final_value = "AIRBUS INDUSTRIE"', w)
    assert ok(YES, "final_value = True  # the mean is higher", w)
    assert ok(LST, "final_value = [\n    'Gentoo',\n    'Chinstrap',\n    'Adelie',\n]", w)
    assert not ok(LST, "final_value = ['Gentoo', 'Adelie', 'Chinstrap']", w)
    assert not ok(NUM, "value = 14088", w)
    assert not ok(NUM, "final_value == 14088", w)


def test_guillemets_form():
    w = "guillemets"
    assert ok(LAB, "\u00abAIRBUS INDUSTRIE\u00bb", w)
    assert ok(LAB, "C'est \u00ab\u00a0airbus industrie\u00a0\u00bb.", w)
    assert not ok(LAB, "\u201cAIRBUS INDUSTRIE\u201d", w)
    assert not ok(LAB, "\u00abBOEING\u00bb", w)


def test_blockquote_form():
    w = "blockquote"
    assert ok(NUM, "Done.\n\n> 14,088", w)
    assert ok(NUM, "Done.\n\n> > 14088.0\n", w)
    assert ok(YES, "> Yes, it is.", w)
    assert not ok(NUM, "Done.\n\n14088", w)
    assert not ok(NUM, "> 15000\nthen 14088", w)


def test_score_result_shape():
    for wid in [None] + WORDING_IDS:
        r = S.score(NATURAL[0], "nothing", wid)
        assert set(r) == {"correct", "found", "why"} and r["correct"] is False
        json.dumps(r)


# ------------------------------------------------------------------ the checks every set gets
_SHARED = stored_answer_tests(S, "benchmarks.external4", needs="scipy")
# that one asks for the first set's shared wordings (with an empty one); this set has its own
_SHARED.pop("test_prompt_for_uses_the_shared_wordings")
globals().update(_SHARED)
