"""Tests for the fifth external evaluation set: shape of the set, reference answers, the
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
from benchmarks.external5 import score as S

HERE = Path(__file__).resolve().parent
QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}
CLOSED = [q for q in QS if q["style"] == "closed"]
NATURAL = [q for q in QS if q["style"] == "natural"]
WORDINGS = S.load_wordings()
WORDING_IDS = [w["id"] for w in WORDINGS]
EARLIER = ("external", "external2", "external3", "external4")

CATEGORIES = {"groupby", "correlation", "test", "regression", "missing", "outliers", "dates", "filter",
              "topk", "distribution", "feature engineering", "duplicates", "summary", "change", "share",
              "count", "strings"}
# the line that introduces the answer format of a closed question
FORMAT_WORD = re.compile(r"format|answer with", re.I)
OWN_LINE = re.compile(r"(^|\n)(Format|Output format|Answer format|Use this format|Please format|Give the answer in this"
                      r"|Expected output format|Formatting|Required format|Answer with)\b", re.I)


# ------------------------------------------------------------------ the module
def test_module_points_at_this_folder():
    assert S.HERE == HERE and S.TABLES == HERE / "tables"
    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score", "extract",
                 "parse_number", "answer_text"):
        assert callable(getattr(S, name)), name
    assert S.parse_number is BASE.parse_number and S.answer_text is BASE.answer_text
    assert S.WORDINGS == HERE / "wordings.json"
    q = QS[0]
    assert S.run_reference(q) is not None
    assert not (BASE.TABLES / q["table"]).exists()


def test_same_public_api_as_the_fourth_set():
    from benchmarks.external4 import score as S4

    def public(mod):
        return {n for n, v in vars(mod).items() if not n.startswith("_") and not isinstance(v, type(sys))
                and getattr(v, "__module__", mod.__name__) in (mod.__name__, BASE.__name__)}

    missing = {n for n in public(S4) if not hasattr(S, n)}
    assert not missing, missing
    import inspect

    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score", "extract"):
        assert inspect.signature(getattr(S, name)).parameters.keys() == \
            inspect.signature(getattr(S4, name)).parameters.keys(), name
    assert set(S.EXTRACTORS) == set(WORDING_IDS)


# ------------------------------------------------------------------ set shape
def _sources_rows(folder: str) -> list[list[str]]:
    out = []
    for line in (HERE.parent / folder / "SOURCES.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`") and cells[0].endswith(".csv`"):
            out.append(cells)
    return out


def _data_set(cells: list[str]) -> str:
    return re.sub(r"`|\(.*?\)", "", cells[3]).strip().lower()


def _earlier_data_sets() -> tuple[set[str], set[str]]:
    """File stems and data-set names (package/item) listed by the earlier sets' SOURCES.md."""
    files, sets = set(), set()
    for folder in EARLIER:
        for cells in _sources_rows(folder):
            files.add(cells[0].strip("`")[:-4].lower())
            sets.add(_data_set(cells))
    return files, sets


def test_set_shape():
    assert len(QS) == 60
    styles = Counter(q["style"] for q in QS)
    assert styles["closed"] == 36 and styles["natural"] == 24
    assert [q["id"] for q in QS] == [f"x5-{i:02d}" for i in range(1, len(QS) + 1)]
    order = [q["table"] for q in QS]
    starts = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(starts) == len(set(order)), "questions are grouped by table"
    for q in QS:
        assert set(q) == {"id", "table", "frame", "style", "topics", "question", "answer", "reference_code"}
        assert q["frame"].isidentifier() and q["frame"] not in {"pd", "np", "stats", "result"}
        assert q["topics"] and q["topics"][0] in CATEGORIES, (q["id"], q["topics"])
        assert all(t in CATEGORIES for t in q["topics"]), (q["id"], q["topics"])
        assert "result" in q["reference_code"]
    assert len({q["question"] for q in QS}) == len(QS)


def test_tables_are_new_and_small():
    csvs = sorted((HERE / "tables").glob("*.csv"))
    assert len(csvs) == 10
    assert {q["table"] for q in QS} == {p.name for p in csvs}
    files, sets = _earlier_data_sets()
    assert len(files) >= 46 and len(sets) >= 46  # the four earlier sets' tables were all read
    own = _sources_rows("external5")
    assert sorted(c[0].strip("`") for c in own) == [p.name for p in csvs]
    assert len({_data_set(c) for c in own}) == 10
    for cells in own:
        assert "/" in _data_set(cells) or "." in _data_set(cells), cells
        assert _data_set(cells) not in sets, _data_set(cells)
    for p in csvs:
        assert p.stat().st_size < 3 * 1024 * 1024, p.name
        assert p.stem.lower() not in files, p.name
        with open(p, newline="", encoding="utf-8") as fh:
            rs = list(csv.reader(fh))
        assert 150 <= len(rs) - 1 <= 10000 and 5 <= len(rs[0]) <= 15, (p.name, len(rs) - 1, len(rs[0]))
        cells = next(c for c in own if c[0].strip("`") == p.name)
        assert cells[1].replace(" ", "") == f"{len(rs) - 1}\u00d7{len(rs[0])}", (p.name, cells[1])
    for t in {q["table"] for q in QS}:
        per = Counter(q["style"] for q in QS if q["table"] == t)
        assert 3 <= per["closed"] <= 4 and 2 <= per["natural"] <= 3, (t, per)
        assert len({q["frame"] for q in QS if q["table"] == t}) == 1
    # messy realities: missing values in at least half of the tables, ISO dates as text in two
    with_missing = [p.name for p in csvs if ",," in p.read_text() or ",\n" in p.read_text()]
    assert len(with_missing) >= 5, with_missing
    with_dates = [p.name for p in csvs if re.search(r"(^|,)\d{4}-\d\d-\d\d(,|$)", p.read_text(), re.M)]
    assert len(with_dates) >= 2, with_dates


def _format_tail(question: str) -> str:
    m = FORMAT_WORD.search(question)
    assert m, question
    return question[m.end():].strip(" :.-\u2014\n")


def test_closed_questions_carry_their_format():
    for q in CLOSED:
        assert FORMAT_WORD.search(q["question"]), q["id"]
        parts = q["answer"]["parts"]
        assert parts
        for name, spec in parts.items():
            assert re.fullmatch(r"\w+", name)
            assert f"@{name}[" in q["question"], (q["id"], name)
            assert spec["kind"] in ("int", "float", "text")
            if spec["kind"] == "float":
                assert spec["tolerance"] in (0.1, 0.01, 0.001, 0.0001), (q["id"], name)
    own_line = [q for q in CLOSED if OWN_LINE.search(q["question"])]
    inline = [q for q in CLOSED if q not in own_line]
    assert len(inline) >= 3 and len(own_line) >= 12, (len(inline), len(own_line))
    assert sum("Constraints:" in q["question"] for q in CLOSED) >= 12
    tails = {_format_tail(q["question"]) for q in CLOSED}
    assert len(tails) == len(CLOSED), "every format description is worded differently"
    # ... and differently from the fourth set's
    from benchmarks.external4 import score as S4

    old = {re.split(r"format\W", q["question"], maxsplit=1, flags=re.I)[1].strip()
           for q in S4.load_questions() if q["style"] == "closed"}
    assert not tails & old
    heads = Counter(FORMAT_WORD.search(q["question"]).group(0).lower() for q in CLOSED)
    assert heads["answer with"] >= 1
    lines = Counter(m.group(2).lower() for q in CLOSED for m in [OWN_LINE.search(q["question"])] if m)
    assert len(lines) >= 6, lines  # the format line is introduced in several ways
    n_parts = Counter(len(q["answer"]["parts"]) for q in CLOSED)
    assert n_parts[1] == 0 or n_parts[1] <= 6
    assert sum(v for k, v in n_parts.items() if k >= 2) >= 25 and sum(v for k, v in n_parts.items() if k >= 3) >= 10
    # precision stated in several ways
    text = " ".join(q["question"].lower() for q in CLOSED)
    for way in ("two decimal places", "3 dp", "nearest integer", "one decimal", "three decimals", "4 d.p.",
                "3 decimal places", "as a percentage"):
        assert way in text, way
    # parts that are words, yes/no answers, choices between a few labels, and lists
    texts = [s["value"] for q in CLOSED for s in q["answer"]["parts"].values() if s["kind"] == "text"]
    assert len(texts) >= 20
    assert sum(v in ("yes", "no") for v in texts) >= 3
    assert sum(", " in v for v in texts) >= 2
    cats = Counter(t for q in CLOSED for t in q["topics"])
    for c in ("correlation", "test", "outliers", "missing", "groupby", "feature engineering", "regression",
              "dates", "strings", "distribution", "topk", "count", "duplicates", "change", "share"):
        assert cats[c] >= 1, c
    for method in ("chi-square", "t-test", "anova", "shapiro", "mann-whitney", "iqr", "skew", "pearson",
                   "spearman", "least squares", "standard deviation"):
        assert method in text, method


def test_natural_questions_are_plain():
    for q in NATURAL:
        assert "Answer:" not in q["question"] and "@" not in q["question"]
        assert "format" not in q["question"].lower()
        ans = q["answer"]
        assert ans["kind"] in ("number", "count", "label", "yesno", "list")
        if ans["kind"] == "label":
            assert ans["value"] in ans["choices"] and len(ans["choices"]) >= 3
        if ans["kind"] == "number":
            assert ans["tolerance"] > 0
        if ans["kind"] == "list":
            assert len(ans["value"]) >= 3 and all("," not in str(v) for v in ans["value"])
    kinds = Counter(q["answer"]["kind"] for q in NATURAL)
    assert set(kinds) == {"number", "count", "label", "yesno", "list"}
    assert kinds["yesno"] >= 3 and kinds["list"] >= 3
    assert any(q["answer"]["kind"] == "list" and q["answer"]["ordered"] for q in NATURAL)
    assert any(q["answer"]["kind"] == "list" and not q["answer"]["ordered"] for q in NATURAL)
    # phrasing varies: imperatives, questions, terse lower-case notes, two sentences of context
    texts = [q["question"] for q in NATURAL]
    assert sum(bool(re.match(r"(Give|Find|List|Show|Tell)\b", t)) for t in texts) >= 3
    assert sum(t.endswith("?") for t in texts) >= 12
    assert sum(t[0].islower() for t in texts) >= 3
    assert sum(len(re.findall(r"[.?!](\s|$)", t)) >= 2 for t in texts) >= 2


def test_follow_ups_come_right_after_a_question_on_the_same_table():
    follow = [i for i, q in enumerate(QS) if q["style"] == "natural" and re.match(r"and\b", q["question"], re.I)]
    assert len(follow) >= 3
    for i in follow:
        prev = QS[i - 1]
        assert prev["style"] == "natural" and prev["table"] == QS[i]["table"], QS[i]["id"]


# ------------------------------------------------------------------ the wordings
def test_wordings_are_new():
    assert len(WORDINGS) == 8
    assert len(set(WORDING_IDS)) == 8

    def norm(t):
        return re.sub(r"\s+", " ", t.strip().lower())

    old = json.loads((HERE.parent / "external" / "wordings.json").read_text())
    old += json.loads((HERE.parent / "external4" / "wordings.json").read_text())
    assert len(old) == 13 + 8
    old_templates = {norm(w["template"]) for w in old}
    old_ids = {w["id"] for w in old}
    for w in WORDINGS:
        assert set(w) == {"id", "template", "extract"}, w
        assert w["extract"].strip() and w["template"].strip()
        assert w["id"] not in old_ids
        assert norm(w["template"]) not in old_templates
        assert w["id"] in S.EXTRACTORS
        t = w["template"].lower()
        # not one of the earlier sets' forms in other words
        for earlier in ("answer:", "boxed", "<answer>", "the answer is", "yaml", "{{", "## result", "final_value",
                        "\u00ab", "first line", "blockquote", "bold", "final answer:"):
            assert earlier not in t, (w["id"], earlier)
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
def _text(value, kind):
    if kind == "yesno":
        return "Yes" if value == "yes" else "No"
    if kind == "list":
        return ", ".join(str(v) for v in value)
    return str(value)


def _literal(value, kind, multiline=False):
    """The value as a TOML / JSON literal (the two agree for these values)."""
    if kind == "yesno":
        return "true" if value == "yes" else "false"
    if kind == "list":
        items = [json.dumps(str(v)) for v in value]
        if multiline:
            return "[\n" + "".join(f"  {i},\n" for i in items) + "]"
        return "[" + ", ".join(items) + "]"
    if kind in ("number", "count"):
        return str(value)
    return json.dumps(str(value))


def in_form(wid: str, value, kind: str, variant: int = 0) -> str:
    """A reply giving ``value`` in the form wording ``wid`` asks for (after some working)."""
    v = _text(value, kind)
    work = "I filtered the rows, grouped them and checked the result."
    if wid == "table_row":
        return f"{work}\n\n| key | value |\n|---|---|\n| answer | {v} |" if not variant else \
            f"Summary:\n\n| **Answer** | **{v}** |\n"
    if wid == "result_arrow":
        return f"{work}\nRESULT >>> {v}" if not variant else f"Done.\n\n**RESULT** >>>  {v}\n"
    if wid == "toml_line":
        return f"{work}\n\nanswer = {_literal(value, kind)}" if not variant else \
            f"{work}\n\n```toml\nanswer = {_literal(value, kind, multiline=True)}\n```"
    if wid == "therefore":
        return f"{work}\n\u2234 {v}" if not variant else f"Working.\n\n\u2234 **{v}**\n"
    if wid == "html_comment":
        return f"{work}\n<!-- result: {v} -->" if not variant else f"Done.\n<!--\nresult: {v}\n-->\n"
    if wid == "latex_fbox":
        return f"{work} So the answer is $\\fbox{{{v}}}$." if not variant else f"\\[\\fbox{{\\text{{{v}}}}}\\]"
    if wid == "json_value":
        if not variant:
            return f"{work}\n\n```json\n{{\"value\": {_literal(value, kind)}}}\n```"
        return f"Done.\n\n```\n{{\n  \"value\": {_literal(value, kind, multiline=True)}\n}}\n```"
    if wid == "after_rule":
        return f"{work}\n\n---\n{v}" if not variant else f"{work}\n\n-----\n\n**{v}**\n"
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
    """The answer stated in the earlier sets' forms, but in none of this set's."""
    v = _text(value, kind)
    return (f"I computed it from the table.\n\nAnswer: {v}\n\n**{v}**\n\n\\boxed{{{v}}}\n\n{{{{ {v} }}}}\n\n"
            f"<result value=\"{v}\"/>\n\n> {v}\n\nfinal_value = {json.dumps(v)}")


NEAR_MISSES = {
    "table_row": "| result | {v} |",
    "result_arrow": "RESULT: {v}\nRESULT >> {v}",
    "toml_line": "answer == {v}\nanswers = {v}",
    "therefore": "Therefore {v}\n\u2235 {v}",
    "html_comment": "<!-- {v} -->\n<!-- answer: {v} -->",
    "latex_fbox": "\\boxed{{v}}\n\\framebox{{v}}",
    "json_value": "```json\n{\"answer\": \"{v}\"}\n```\n{\"value\": \"{v}\"}",
    "after_rule": "{v}\n\n---",
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
    for variant in (0, 1):
        r = S.score(q, in_form(wid, bad, ans["kind"], variant), wid)
        assert not r["correct"], (variant, r)
    # the right value, but not in the asked form
    r = S.score(q, not_in_form(ans["value"], ans["kind"]), wid)
    assert not r["correct"] and "not in the asked form" in r["why"], r
    near = NEAR_MISSES[wid].replace("{v}", _text(ans["value"], ans["kind"]))
    r = S.score(q, near, wid)
    assert not r["correct"] and "not in the asked form" in r["why"], (near, r)
    # the wording given as a dict works as its id does
    w = next(x for x in WORDINGS if x["id"] == wid)
    assert S.score(q, in_form(wid, ans["value"], ans["kind"]), w)["correct"]


@pytest.mark.parametrize("wid", WORDING_IDS)
@pytest.mark.parametrize("qid", [q["id"] for q in NATURAL])
def test_the_last_occurrence_of_the_form_counts(qid, wid):
    q = BY_ID[qid]
    ans = q["answer"]
    right = in_form(wid, ans["value"], ans["kind"])
    wrong = in_form(wid, wrong_value(q), ans["kind"])
    assert S.score(q, wrong + "\n\nOn second thought:\n" + right, wid)["correct"]
    assert not S.score(q, right + "\n\nOn second thought:\n" + wrong, wid)["correct"]


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
LAB = nat("label", "Liberal Democrat", choices=["Conservative", "Labour", "Liberal Democrat"])
LST = nat("list", ["Umbria", "East-Liguria", "West-Liguria"], ordered=True)
YES = nat("yesno", "yes")


def ok(q, reply, wid):
    return S.score(q, reply, wid)["correct"]


def test_table_row_form():
    w = "table_row"
    assert ok(NUM, "| answer | 14,088 |", w)
    assert ok(NUM, "|answer|14088.0|", w)
    assert ok(NUM, "| `answer` | $14,088 |", w)
    assert ok(LST, "| Answer | Umbria, East-Liguria, West-Liguria |", w)
    assert ok(YES, "| field | value |\n| --- | --- |\n| answer | Yes |", w)
    assert not ok(NUM, "answer | 14088", w)  # not a table row
    assert not ok(NUM, "| answer |  |", w)
    assert not ok(NUM, "| answers | 14088 |", w)
    assert not ok(LST, "| answer | Umbria, West-Liguria, East-Liguria |", w)


def test_result_arrow_form():
    w = "result_arrow"
    assert ok(NUM, "RESULT >>> 14088", w)
    assert ok(NUM, "result >>> 14,088.01 dollars", w)
    assert ok(LAB, "  RESULT>>>Liberal Democrat", w)
    assert not ok(NUM, "The RESULT >>> 14088", w)  # the marker opens the line
    assert not ok(NUM, "RESULT >>>", w)
    assert not ok(NUM, "RESULT > 14088", w)


def test_toml_form():
    w = "toml_line"
    assert ok(NUM, "answer = 14088.01", w)
    assert ok(NUM, "answer = 14_088", w)
    assert ok(LAB, 'answer = "Liberal Democrat"', w)
    assert ok(LAB, "answer = 'Liberal Democrat'", w)
    assert ok(YES, "answer = true", w)
    assert ok(LST, 'answer = ["Umbria", "East-Liguria", "West-Liguria"]', w)
    assert ok(LST, "answer = ['Umbria', 'East-Liguria', 'West-Liguria']  # by mean", w)
    assert ok(LST, 'answer = [\n  "Umbria",\n  "East-Liguria",\n  "West-Liguria",\n]', w)
    assert not ok(LST, 'answer = ["Umbria", "West-Liguria", "East-Liguria"]', w)
    assert not ok(YES, "answer = false", w)
    assert not ok(NUM, "result = 14088", w)
    assert not ok(NUM, "answer == 14088", w)


def test_therefore_form():
    w = "therefore"
    assert ok(NUM, "\u2234 14,088", w)
    assert ok(YES, "Working.\n\u2234 Yes, it is.", w)
    assert ok(LAB, "**\u2234** Liberal Democrat", w)
    assert not ok(NUM, "so \u2234 14088", w)
    assert not ok(NUM, "\u2234\nthen 14088", w)


def test_html_comment_form():
    w = "html_comment"
    assert ok(NUM, "Done. <!-- result: 14088 -->", w)
    assert ok(LAB, "<!--RESULT:Liberal Democrat-->", w)
    assert ok(LST, "<!-- result: Umbria, East-Liguria, West-Liguria -->", w)
    assert not ok(NUM, "<!-- result 14088 -->", w)
    assert not ok(NUM, "<!-- note: the mean --> result: 14088", w)
    assert not ok(NUM, "<!-- result: 14088", w)  # never closed


def test_fbox_form():
    w = "latex_fbox"
    assert ok(NUM, "$\\fbox{14,088}$", w)
    assert ok(NUM, "\\fbox{$14{,}088$}", w)
    assert ok(LAB, "\\fbox{\\textbf{Liberal Democrat}}", w)
    assert ok(YES, "\\fbox{ Yes }", w)
    assert not ok(NUM, "\\fbox{14088", w)
    assert not ok(NUM, "\\boxed{14088}", w)
    assert not ok(NUM, "\\fbox{}", w)


def test_json_form():
    w = "json_value"
    assert ok(NUM, '```json\n{"value": 14088.01}\n```', w)
    assert ok(NUM, '```json\n{"value": "14,088"}\n```', w)
    assert ok(LST, '```\n{"value": ["Umbria", "East-Liguria", "West-Liguria"]}\n```', w)
    assert ok(YES, '```json\n{"value": true}\n```', w)
    assert ok(LAB, '```json\n{"value": "Liberal Democrat",}\n```', w)  # a trailing comma is forgiven
    assert not ok(NUM, '```python\n{"value": 14088}\n```', w)
    assert not ok(NUM, '{"value": 14088}', w)  # not in a fenced block
    assert not ok(NUM, '```json\n{"result": 14088}\n```', w)
    assert not ok(YES, '```json\n{"value": false}\n```', w)


def test_after_rule_form():
    w = "after_rule"
    assert ok(NUM, "Working.\n\n---\n14,088", w)
    assert ok(NUM, "Working.\n---\n\n14088.0\n", w)
    assert ok(LAB, "intro\n---\nwrong\n\n----------\nLiberal Democrat", w)
    assert not ok(NUM, "Working.\n14088\n---", w)
    assert not ok(NUM, "| a | b |\n|---|---|\n| 1 | 14088 |", w)  # a table separator is no rule
    assert not ok(NUM, "- - -\n14088", w)


def test_score_result_shape():
    for wid in [None] + WORDING_IDS:
        r = S.score(NATURAL[0], "nothing", wid)
        assert set(r) == {"correct", "found", "why"} and r["correct"] is False
        json.dumps(r)


# ------------------------------------------------------------------ the checks every set gets
_SHARED = stored_answer_tests(S, "benchmarks.external5", needs="scipy")
# that one asks for the first set's shared wordings (with an empty one); this set has its own
_SHARED.pop("test_prompt_for_uses_the_shared_wordings")
globals().update(_SHARED)
