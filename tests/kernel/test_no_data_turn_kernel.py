"""No model turn without data: with the session's analysis database held by another kernel, a
question about the data is answered with why and what to do, and the model is not asked; a
message that is not about the data still reaches the model."""
from __future__ import annotations

import pytest
from kernelhelpers import text_of

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

AGENT = "__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent()"
FRAME = "import pandas as pd\ndf = pd.DataFrame({'smoker': ['yes', 'no', 'yes'], 'charges': [3.5, 1.25, 4.0]})"


def test_a_data_question_is_not_sent_to_the_model_when_another_kernel_holds_the_tables(start_kernel):
    first = start_kernel(notebook="shared.ipynb", script=[])
    first.run(FRAME)
    assert first.value(f"{AGENT}.engine() is not None")             # the first kernel holds the database
    second = start_kernel(notebook="shared.ipynb", script=["Hello! Ask me about your data.", "a guess"])
    second.run(FRAME)
    assert second.value(f"{AGENT}.session.id") == first.value(f"{AGENT}.session.id")

    out = text_of(second.run("%agent What is the average charge for smokers in df?")["outputs"])
    assert "open in another kernel" in out and "shut that kernel down" in out
    assert "not sent to the model" in out and "a guess" not in out
    assert second.value(f"len({AGENT}.backend.requests)") == 0           # the model was never asked
    records = second.value(f"[(r.role, r.content) for r in {AGENT}.store.list_records({AGENT}.session.id)]")
    assert records[-2] == ["user", "What is the average charge for smokers in df?"]
    assert records[-1][0] == "assistant" and "open in another kernel" in records[-1][1]

    # chat without data still works here
    out = text_of(second.run("%agent hello there")["outputs"])
    assert "Hello! Ask me about your data." in out
    assert second.value(f"len({AGENT}.backend.requests)") == 1
