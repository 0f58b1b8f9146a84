"""Which messages are answered without the model when the session's tables cannot be opened."""
from __future__ import annotations

import pandas as pd

from shell_agent_lab.agent._no_data import no_data_answer

HELD = ("AnalysisError: the analysis database /d/analysis.duckdb is open in another kernel (PID 42): its tables "
        "are used from there; chat, memory and Findings work here — shut that kernel down and run this again "
        "to use them here")
NS = {"df": pd.DataFrame({"smoker": ["yes"], "charges": [1.0]}), "_hidden": 1, "n": 3}


def test_a_data_question_gets_the_reason_and_what_to_do():
    text = no_data_answer("What is the average charge for smokers?", HELD, None, NS)
    assert text is not None and text.startswith("This question needs the session's data")
    assert "AnalysisError" not in text and "(PID 42)" in text and "shut that kernel down" in text


def test_a_question_naming_a_dataframe_or_its_column_counts_as_about_the_data():
    assert no_data_answer("show me df", HELD, None, NS) is not None
    assert no_data_answer("what about smoker", HELD, None, NS) is not None


def test_other_messages_and_open_databases_go_to_the_model():
    assert no_data_answer("hello, who are you?", HELD, None, NS) is None
    assert no_data_answer("What is the average charge?", None, None, NS) is None        # no database at all
    assert no_data_answer("What is the average charge?", HELD, object(), NS) is None    # it opened after all
