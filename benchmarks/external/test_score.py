"""Tests for the external evaluation set's scorer and reference answers."""
from __future__ import annotations

import copy
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import score as S  # noqa: E402
from set_checks import reference_matches  # noqa: E402

QS = S.load_questions()
BY_ID = {q["id"]: q for q in QS}


def nat(kind, value, **kw):
    return {"id": "t", "style": "natural", "question": "q?", "frame": "df", "table": "x.csv",
            "answer": {"kind": kind, "value": value, **kw}}


def closed(**parts):
    return {"id": "t", "style": "closed", "question": "q", "frame": "df", "table": "x.csv",
            "answer": {"parts": parts}}


# ------------------------------------------------------------------ set shape
def test_set_shape():
    assert len(QS) >= 64
    styles = Counter(q["style"] for q in QS)
    assert abs(styles["closed"] - styles["natural"]) <= len(QS) // 5
    assert len({q["id"] for q in QS}) == len(QS)
    tables = {q["table"] for q in QS}
    assert 12 <= len(tables) <= 16
    for t in tables:
        assert (HERE / "tables" / t).exists()
    total = sum(p.stat().st_size for p in (HERE / "tables").glob("*.csv"))
    assert total < 5 * 1024 * 1024
    for q in QS:
        assert q["style"] in ("closed", "natural")
        if q["style"] == "closed":
            assert "Format:" in q["question"]
            for name in q["answer"]["parts"]:
                assert f"@{name}[" in q["question"], (q["id"], name)
        else:
            assert "Answer:" not in q["question"] and "@" not in q["question"]
            assert q["answer"]["kind"] in ("number", "count", "label", "yesno", "list")


def test_wordings():
    ws = S.load_wordings()
    assert len(ws) >= 6
    assert any(w["template"] == "" for w in ws)
    q = next(q for q in QS if q["style"] == "natural")
    for w in ws:
        p = S.prompt_for(q, w)
        assert p.startswith(q["question"]) and p.endswith(w["template"].strip())
    c = next(q for q in QS if q["style"] == "closed")
    assert S.prompt_for(c, ws[0]) == c["question"]


# ------------------------------------------------------------------ references
@pytest.mark.parametrize("qid", [q["id"] for q in QS])
def test_reference_reproduces_answer(qid):
    reference_matches(S, BY_ID[qid])


def test_second_method_agrees():
    pytest.importorskip("statsmodels")
    import crosscheck

    assert crosscheck.check() == []


@pytest.mark.parametrize("qid", [q["id"] for q in QS])
def test_reference_answer_scores_correct(qid):
    """A reply stating the stored answer in the expected form is judged correct."""
    q = BY_ID[qid]
    ans = q["answer"]
    if q["style"] == "closed":
        reply = "Done.\n" + " ".join(f"@{n}[{s['value']}]" for n, s in ans["parts"].items())
    elif ans["kind"] == "list":
        reply = "Answer: " + ", ".join(ans["value"])
    else:
        reply = f"Some working.\nAnswer: {ans['value']}"
    assert S.score(q, reply)["correct"], S.score(q, reply)


# ------------------------------------------------------------------ closed scoring
def test_closed_right_and_wrong():
    q = closed(mean={"kind": "float", "value": 17.43, "tolerance": 0.01},
               year={"kind": "int", "value": 2015},
               sig={"kind": "text", "value": "not normal"})
    assert S.score(q, "@mean[17.43] @year[2015] @sig[not normal]")["correct"]
    assert S.score(q, "@year[2015]\n@mean[17.435]\n@sig[Not Normal]")["correct"]
    assert S.score(q, "@mean[`17.43`] @year[\"2015\"] @sig['not normal']")["correct"]
    assert S.score(q, "@mean[17.43] @year[2,015] @sig[not normal]")["correct"]
    assert S.score(q, "@mean[17.43] @year[2015.0] @sig[not normal]")["correct"]
    assert not S.score(q, "@mean[17.45] @year[2015] @sig[not normal]")["correct"]
    assert not S.score(q, "@mean[17.43] @year[2014] @sig[not normal]")["correct"]
    assert not S.score(q, "@mean[17.43] @year[2015] @sig[normal]")["correct"]
    r = S.score(q, "@mean[17.43] @year[2015]")
    assert not r["correct"] and "@sig missing" in r["why"]
    assert not S.score(q, "mean 17.43, year 2015, not normal")["correct"]


def test_closed_last_occurrence_wins():
    q = closed(n={"kind": "int", "value": 40})
    assert S.score(q, "first guess @n[39] ... corrected: @n[40]")["correct"]
    assert not S.score(q, "@n[40] ... on reflection @n[41]")["correct"]


def test_closed_percent_and_int_strictness():
    q = closed(share={"kind": "float", "value": 82.8, "tolerance": 0.1},
               n={"kind": "int", "value": 6})
    assert S.score(q, "@share[82.8%] @n[6]")["correct"]
    assert not S.score(q, "@share[82.8] @n[6.5]")["correct"]
    assert not S.score(q, "@share[82.8] @n[5 or 6]")["correct"]


# ------------------------------------------------------------------ natural: numbers
def test_number_formats():
    q = nat("number", 48.870637, tolerance=0.05)
    for reply in ["Answer: 48.87", "Answer: 48.87%", "Answer: **48.87%**", "Answer: `48.9`",
                  "about half.\nAnswer: 48.87 %", "**Answer:** 48.87",
                  "Final answer: 48.87", "Answer:\n48.87", "The share of sunny days is 48.87%.",
                  "Answer: 48.87% (714 of 1461 days)", "Answer: \\boxed{48.87}",
                  "Answer: 48.87% of days were sunny", "The share is high.\n\\boxed{48.87}",
                  "The share is high.\n<answer>48.87</answer>", "<answer>\n48.87%\n</answer>"]:
        assert S.score(q, reply)["correct"], reply
    for reply in ["Answer: 0.4887", "Answer: 49.0", "Answer: 48.87 or 28.13", "Answer: between 48 and 49",
                  "I could not compute it.", ""]:
        assert not S.score(q, reply)["correct"], reply


def test_the_answer_sentence_a_wording_asks_for():
    lst = nat("list", ["China", "India", "United States"], ordered=True)
    assert S.score(lst, "By population in 2007.\nThe answer is China, India, United States.")["correct"]
    assert not S.score(lst, "The answer is India, China, United States.")["correct"]
    num = nat("number", 12.5, tolerance=0.05)
    assert S.score(num, "The mean is computed over all rows.\nThe answer is 12.5.")["correct"]


def test_number_thousands_and_currency():
    q = nat("number", 14088.008738, tolerance=1)
    assert S.score(q, "Answer: $14,088.01")["correct"]
    assert S.score(q, "Answer: 14088")["correct"]
    assert S.score(q, "Answer: about $14,088 per year")["correct"]
    assert not S.score(q, "Answer: 14,100")["correct"]


def test_number_negative_and_labelled():
    q = nat("number", -0.778427, tolerance=0.01)
    assert S.score(q, "Answer: -0.78")["correct"]
    assert S.score(q, "Answer: \u22120.778")["correct"]
    assert S.score(q, "Answer: r = -0.778")["correct"]
    assert S.score(q, "Answer: the correlation is -0.78 (strong, negative)")["correct"]
    assert not S.score(q, "Answer: 0.78")["correct"]


def test_number_ordinals_and_decades_are_not_the_answer():
    q = nat("number", 598.0, tolerance=0.5)
    assert S.score(q, "Answer: The 90th percentile of depth is 598 km")["correct"]
    q2 = nat("number", 7.2775, tolerance=0.01)
    assert S.score(q2, "Answer: 1980s average: 7.28%")["correct"]
    q3 = nat("number", 25.528914, tolerance=0.05)
    assert S.score(q3, "Answer: 25.53% of 3rd class passengers survived")["correct"]


def test_count_exact():
    q = nat("count", 1039)
    assert S.score(q, "Answer: 1,039")["correct"]
    assert S.score(q, "Answer: 1039 rows")["correct"]
    assert not S.score(q, "Answer: 1040")["correct"]
    assert not S.score(q, "Answer: 1039.5")["correct"]


def test_answer_line_last_one_wins_and_fallback():
    q = nat("count", 37)
    assert S.score(q, "Answer: 36\nWait, recount.\nAnswer: 37")["correct"]
    assert not S.score(q, "Answer: 37\nActually no.\nAnswer: 36")["correct"]
    assert S.score(q, "I counted the rows.\n\nThere are 37 rows with no Ozone value.")["correct"]
    assert S.score(q, "```python\ndf['Ozone'].isna().sum()\n```\nThere are 37.")["correct"]


# ------------------------------------------------------------------ natural: labels
CH = ["Adelie", "Chinstrap", "Gentoo"]


def test_label_variants():
    q = nat("label", "Gentoo", choices=CH)
    for reply in ["Answer: Gentoo", "Answer: gentoo", "Answer: `Gentoo`", "Answer: 'Gentoo'",
                  "Answer: **Gentoo**", "Answer: Gentoo.", "Answer: Gentoo (5076 g)",
                  "Answer: the Gentoo penguins", "Gentoo penguins are heaviest. Gentoo is the answer."]:
        assert S.score(q, reply)["correct"], reply
    for reply in ["Answer: Adelie", "Answer: Gentoo or Adelie", "Answer: Gentoo, Chinstrap",
                  "Answer: Gentoos"]:
        assert not S.score(q, reply)["correct"], reply


def test_label_prefix_choice_not_confused():
    q = nat("label", "AIRBUS INDUSTRIE", choices=["AIRBUS", "AIRBUS INDUSTRIE", "BOEING"])
    assert S.score(q, "Answer: AIRBUS INDUSTRIE")["correct"]
    assert S.score(q, "Answer: Airbus Industrie with 400 planes")["correct"]
    assert not S.score(q, "Answer: AIRBUS")["correct"]
    assert not S.score(q, "Answer: AIRBUS INDUSTRIE and AIRBUS")["correct"]


def test_label_without_choices_is_exact():
    q = nat("label", "Houston")
    assert S.score(q, "Answer: houston")["correct"]
    assert not S.score(q, "Answer: Houston or Dallas")["correct"]


# ------------------------------------------------------------------ natural: yes/no
def test_yesno():
    q = nat("yesno", "yes")
    for reply in ["Answer: Yes", "Answer: yes.", "Answer: True", "Answer: `True`",
                  "Answer: Yes, strongly (r = 0.89)", "Yes. The correlation is 0.89."]:
        assert S.score(q, reply)["correct"], reply
    for reply in ["Answer: No", "Answer: False", "Answer: yes/no", "Answer: maybe",
                  "The correlation is 0.89."]:
        assert not S.score(q, reply)["correct"], reply
    qn = nat("yesno", "no")
    assert S.score(qn, "Answer: No, it went down slightly")["correct"]
    assert S.score(qn, "Answer: False")["correct"]
    assert not S.score(qn, "Answer: Yes")["correct"]


# ------------------------------------------------------------------ natural: lists
def test_list_ordered():
    q = nat("list", ["Gentoo", "Chinstrap", "Adelie"], ordered=True)
    for reply in ["Answer: Gentoo, Chinstrap, Adelie", "Answer: [Gentoo, Chinstrap, Adelie]",
                  "Answer: ['Gentoo', 'Chinstrap', 'Adelie']", "Answer: Gentoo > Chinstrap > Adelie",
                  "Answer: Gentoo (5076 g), Chinstrap (3733 g), Adelie (3701 g)",
                  "Answer: gentoo; chinstrap; adelie"]:
        assert S.score(q, reply)["correct"], reply
    for reply in ["Answer: Chinstrap, Gentoo, Adelie", "Answer: Gentoo, Chinstrap",
                  "Answer: Gentoo, Chinstrap, Adelie, Emperor"]:
        assert not S.score(q, reply)["correct"], reply


def test_list_unordered():
    q = nat("list", ["carni", "insecti", "omni"], ordered=False)
    assert S.score(q, "Answer: [omni, carni, insecti]")["correct"]
    assert S.score(q, "Answer: insecti, omni and carni")["correct"]
    assert not S.score(q, "Answer: [omni, carni]")["correct"]
    assert not S.score(q, "Answer: [omni, carni, insecti, herbi]")["correct"]


# ------------------------------------------------------------------ real questions
def test_real_question_examples():
    q = BY_ID["ext-05"]  # a percentage question
    v = q["answer"]["value"]
    assert S.score(q, f"Answer: {v:.2f}%")["correct"]
    assert not S.score(q, f"Answer: {v / 100:.4f}")["correct"]
    lab = next(x for x in QS if x["style"] == "natural" and x["answer"]["kind"] == "label")
    other = next(c for c in lab["answer"]["choices"] if c != lab["answer"]["value"])
    assert S.score(lab, f"Answer: {lab['answer']['value']}")["correct"]
    assert not S.score(lab, f"Answer: {other}")["correct"]
    assert not S.score(lab, f"Answer: {lab['answer']['value']} or {other}")["correct"]
    c = next(x for x in QS if x["style"] == "closed" and len(x["answer"]["parts"]) >= 3)
    wrong = copy.deepcopy(c)
    reply = " ".join(f"@{n}[{s['value']}]" for n, s in c["answer"]["parts"].items())
    assert S.score(wrong, reply)["correct"]
    first = next(iter(c["answer"]["parts"]))
    assert not S.score(c, reply.replace(f"@{first}[", f"@{first}[x", 1))["correct"]


def test_score_result_shape():
    r = S.score(QS[0], "nothing")
    assert set(r) == {"correct", "found", "why"} and r["correct"] is False
    json.dumps(r)


def test_number_first_stated_value_wins_over_commentary():
    q = nat("number", 14088.008738, tolerance=1)
    assert S.score(q, "Answer: 14088 dollars, which is about 13.9% more")["correct"]
    assert S.score(q, "Answer: The difference is $14,088, which is about 13.9% higher")["correct"]
    assert not S.score(q, "Answer: 13.9% higher, i.e. $14,088")["correct"]
