"""The reproducibility check's pure parts: which numbers an answer states, which produced
numbers reproduce them, which cells are questions; and the one-line tool summaries."""
from __future__ import annotations

import pytest

from shell_agent_lab.agent._summaries import result_summary
from shell_agent_lab.notebook.replay_check import (Stated, _is_question, check_notebook, numbers_in, reproduces,
                                                   stated_numbers)


def _numbers(text, question=""):
    return [s.text for s, _ in stated_numbers(text, question)]


def test_stated_numbers_skip_ids_small_counts_and_the_questions_own():
    text = ("West leads with 38,988 (12% of all) in Q3; finding f-20261124-001 has 3 rows; "
            "the top 5 averages are 55.42 and -1.5 on 2024-07-01.")
    assert _numbers(text, "the top 5 regions") == ["38,988", "12%", "55.42", "-1.5"]


@pytest.mark.parametrize("stated, produced, ok", [
    (Stated("55.42", 55.42, 2), [55.416667], True),
    (Stated("55.42", 55.42, 2), [55.43], False),
    (Stated("38,988", 38988.0, 0), [38988.0], True),
    (Stated("38,988", 38988.0, 0), [38989.0], False),
    (Stated("12%", 12.0, 0, True), [0.121], True),
    (Stated("12%", 12.0, 0, True), [12.4], True),
    (Stated("12%", 12.0, 0, True), [0.13], False),
])
def test_a_number_is_reproduced_at_the_precision_it_was_stated(stated, produced, ok):
    assert reproduces(stated, produced) is ok


def test_numbers_in_outputs_read_text_html_tables_and_chart_data():
    outputs = [{"output_type": "stream", "text": "mean = 2.5\n"},
               {"output_type": "execute_result", "data": {"text/html": "<td>1,204.75</td>"}},
               {"output_type": "display_data", "data": {"application/vnd.vegalite.v5+json": {"data": {"values": [
                   {"total": 310.5, "flag": True}]}}}}]
    assert numbers_in(outputs) == [2.5, 1204.75, 310.5]


@pytest.mark.parametrize("source, question", [
    ("%agent Which region leads?", "Which region leads?"),
    ("r = %agent --profile work Which region leads?", "Which region leads?"),
    ("%agent --no-stream Which region leads?", "Which region leads?"),
    ("%%agent --timeout 60\nWhich region\nleads?", "Which region leads?"),
    ("%agent /cells", None),
    ("%%agent_sql\nSELECT 1", None),
    ("x = 1", None),
])
def test_which_cells_ask_a_question(source, question):
    assert _is_question(source) == question


def test_check_names_the_number_no_cell_produced():
    nb = {"cells": [
        {"cell_type": "code", "source": "%agent Which region leads?", "outputs": [
            {"output_type": "display_data", "data": {"text/markdown": "N leads with 14.0; S has 10.5."}}]},
        {"cell_type": "code", "source": "%%agent_sql\nSELECT 1", "outputs": [
            {"output_type": "execute_result", "data": {"text/plain": "  region  total\n0 N 14.0"}}]},
    ]}
    report = check_notebook(nb)
    assert report.checked == 2 and [m.number for m in report.mismatches] == ["10.5"]
    assert "cell 0 (Which region leads?): 10.5" in report.markdown()


def test_an_answer_built_on_a_model_made_result_is_listed_not_checked():
    nb = {"cells": [{"cell_type": "code", "source": "%agent analyse orders", "outputs": [
        {"output_type": "display_data", "data": {"text/plain": "✓ analyze_data — done: 6 findings"}},
        {"output_type": "display_data", "data": {"text/markdown": "Row 82 has 4999.0."}}]}]}
    report = check_notebook(nb)
    assert report.ok and report.checked == 0 and "analyze_data" in report.notes[0]


@pytest.mark.parametrize("text, line", [
    ("| region | total |\n|---|---|\n| N | 14 |\n| S | 10 |\n(2 rows)", "2 rows × 2 columns: region, total"),
    ("| a |\n|---|\n| 1 |\n(1,234 rows; first 1 shown)", "1,234 rows × 1 column: a"),
    ("region = West\ntotal = 38988.0\n(1 row)", "1 row: region = West, total = 38988.0"),
    ("Loaded 91 rows into table orders.\ncolumns: a", "Loaded 91 rows into table orders."),
    ("", ""),
])
def test_tool_results_read_as_one_line(text, line):
    assert result_summary(text) == line
