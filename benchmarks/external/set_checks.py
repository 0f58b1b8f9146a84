"""The checks every external set's questions get, whatever the set: each reference reproduces
its stored answer, a second independent computation agrees, the scorer accepts the stored
answer written as a reply and rejects wrong ones, the prompts use the shared wordings, and
``questions.json`` is what the set's builder writes.

A set's ``test_score.py`` takes them with ``globals().update(stored_answer_tests(S, package))``
(``S`` its ``score`` module); pytest collects them there, parametrized over that set's questions.
"""
from __future__ import annotations

import importlib
import json
from typing import Any, Callable

import pytest

__all__ = ["stored_answer_tests", "reference_matches"]


def reference_matches(S: Any, q: dict) -> None:
    """Assert that question ``q``'s reference code (run by the set's ``score`` module ``S``)
    reproduces its stored answer, within half the scorer's tolerance."""
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


def stored_answer_tests(S: Any, package: str, *, needs: str = "scipy") -> dict[str, Callable[..., Any]]:
    """The tests, bound to the set whose ``score`` module is ``S`` (in ``package``); ``needs``:
    the module its cross-check imports (the test skips without it)."""
    QS = S.load_questions()
    BY_ID = {q["id"]: q for q in QS}
    CLOSED = [q for q in QS if q["style"] == "closed"]
    NATURAL = [q for q in QS if q["style"] == "natural"]

    # ------------------------------------------------------------------ references
    @pytest.mark.parametrize("qid", [q["id"] for q in QS])
    def test_reference_reproduces_answer(qid):
        reference_matches(S, BY_ID[qid])


    def test_second_method_agrees():
        pytest.importorskip(needs)
        crosscheck = importlib.import_module(f"{package}.crosscheck")

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
        build_questions = importlib.import_module(f"{package}.build_questions")

        built = build_questions.build()
        assert json.loads(json.dumps(built)) == QS

    return {name: value for name, value in locals().items() if name.startswith("test_")}
