"""The form an earlier answer was written in, kept on its record and taken again (pure)."""
from shell_agent_lab.agent._answer_form import Form, earlier_form, form_meta
from shell_agent_lab.answers.templates import Template

RULE = "Put the answer alone on the line after a rule made of ---."


def _meta(question, opening="---\n", closing="", bracketed=False):
    return {"computed": True, "form": form_meta(Form(Template(opening, closing, "", (0, 0)), bracketed), question)}


def test_the_latest_form_for_a_shared_instruction_sentence_is_taken():
    metas = [_meta(f"How many? {RULE}", "--- \n"), {"computed": True}, _meta(f"Which one? {RULE}", "---\n", "", True)]
    got = earlier_form(metas, f"Some context first. And the mean? {RULE}")
    assert got == Form(Template("---\n", "", "", (0, 0)), True)


def test_no_form_for_another_instruction_or_one_made_of_other_words():
    metas = [_meta(f"How many? {RULE}")]
    assert earlier_form(metas, "And the mean? Put it in bold.") is None
    # the same instruction sentence, but the form's words are not the new question's
    said = _meta(f"How many? {RULE}", "Total: ")
    assert earlier_form([said], f"How many? {RULE}") is None


def test_malformed_records_are_passed_over():
    good = _meta(f"How many? {RULE}")
    bad = [None, {"form": "x"}, {"form": {"said": [RULE], "opening": 3, "closing": ""}}, {"form": {"said": 7}}]
    assert earlier_form([good, *bad], f"And? {RULE}") is not None
    assert earlier_form(bad, f"And? {RULE}") is None
