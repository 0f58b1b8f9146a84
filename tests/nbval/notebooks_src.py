"""The example notebooks' source cells (kinds: ``md``, ``code``, and ``raises`` for a code cell
that is meant to fail — tagged ``raises-exception`` for nbclient and nbval) (``python tests/nbval/record.py`` writes and executes them).

Kept as code so the notebooks stay reviewable and regenerable; the committed ``.ipynb`` files
hold the recorded outputs nbval compares against.
"""
from __future__ import annotations

LOAD = "%load_ext shell_agent_lab"
READ_ONLY_FREE = ('# read-only SQL may run without asking; loading files and deeper analysis still ask\n'
                  '%config ShellAgent.approval_overrides = {"query_sql": False, "create_chart": False}')

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "quickstart": [
        ("md", "# Quickstart: ask questions about a CSV\n\n"
               "Load a file with pandas as usual, then ask with `%agent`. The assistant sees the DataFrame "
               "(without copying it), runs SQL on it through DuckDB, and answers in the cell. What it "
               "discovers goes to **Findings**; what it learns about you goes to **Memory**."),
        ("code", "import pandas as pd\n\nsales = pd.read_csv(\"sales.csv\")\nsales.head()"),
        ("code", LOAD),
        ("code", READ_ONLY_FREE),
        ("md", "Ask a question. A trailing `?` is fine: the question goes to the assistant, not to IPython's help."),
        ("code", "%agent Which region had the highest total revenue in the sales table?"),
        ("md", "`r = %agent …` keeps the reply: its text, the tables and the SQL it ran."),
        ("code", "r = %agent What was the total revenue per product?\nr.sql"),
        ("md", "Findings and Memory for this notebook (in JupyterLab these are live widgets that update "
               "in place; here they print as tables)."),
        ("code", "%agent /findings"),
        ("code", "%agent /memory"),
    ],
    "dataframe_chart": [
        ("md", "# Explore a live DataFrame and chart it\n\n"
               "DataFrames in the notebook are queryable by their variable names. Charts come back as "
               "Vega-Lite, which JupyterLab draws natively."),
        ("code", "import pandas as pd\n\nmonthly = (pd.read_csv(\"sales.csv\")\n"
                 "           .groupby(\"month\", as_index=False)[[\"units\", \"revenue\"]].sum())\nmonthly.tail(3)"),
        ("code", LOAD),
        ("code", READ_ONLY_FREE),
        ("code", "%agent /data"),
        ("code", "%agent Draw a line chart of revenue by month from the monthly DataFrame."),
        ("md", "The DataFrame is live: add a column and `/data` shows it at once."),
        ("code", "monthly[\"revenue_k\"] = (monthly[\"revenue\"] / 1000).round(1)\n%agent /data"),
    ],
    "memory_part1": [
        ("md", "# Memory across notebooks (1 of 2)\n\n"
               "Tell the assistant how you like to work. Preferences you state go to **Global Memory** "
               "and follow you to every notebook; facts about this notebook's data stay here."),
        ("code", LOAD),
        ("code", "%config ShellAgent.auto_extract = True   # learn from each turn (on by default for remote models)"),
        ("code", "%agent I prefer amounts rounded to whole euros."),
        ("md", "Preferences are also learned from what you say (extraction after each turn, shown below when "
               "it found something). You can always state one directly:"),
        ("code", "%agent /remember Our fiscal year starts in April --category decision"),
        ("code", "%agent /memory"),
    ],
    "memory_part2": [
        ("md", "# Memory across notebooks (2 of 2)\n\n"
               "A different notebook is a different session: its own conversation, tables and findings. "
               "Global Memory from part 1 is still here."),
        ("code", LOAD),
        ("code", "%agent /memory"),
        ("code", "%agent From what you remember about me, without using tools: when does our fiscal year start?"),
    ],
    "private_session": [
        ("md", "# A private session\n\n"
               "`/private` starts a session for this notebook that never writes to Global Memory, and "
               "refuses Pin. Use it for sensitive data."),
        ("code", LOAD),
        ("code", "%config ShellAgent.auto_extract = True"),
        ("code", "%agent /private"),
        ("code", "%agent I prefer to see salaries in thousands. The payroll table is confidential."),
        ("md", "Stating a preference directly is refused here too:"),
        ("raises", "%agent /remember Salaries are shown in thousands"),
        ("code", "%agent /memory"),
        ("code", "%agent /sessions"),
    ],
    "analyze_findings": [
        ("md", "# Analyse a table and keep the Findings\n\n"
               "`analyze_data` reads a table in windows (watch the window k/N progress) and records what "
               "it finds as Findings, each with a severity. Approve the plan in the Approval widget; "
               "here the notebook approves it up front."),
        ("code", LOAD),
        ("code", "%config ShellAgent.approval_overrides = {\"load_data\": False, \"analyze_data\": False, "
                 "\"query_sql\": False}"),
        ("code", "%agent Load the file orders.csv into a table named orders."),
        ("code", "%agent Call the analyze_data tool with table orders and the prompt: find unusual amounts "
                 "and refunds."),
        ("md", "Ask for a finding directly, too (this one asks first by default):"),
        ("code", "%config ShellAgent.approval_overrides = {\"promote_finding\": False}\n"
                 "%agent Call the promote_finding tool with content: Order 1080 has an unusually large amount "
                 "of 4999.0"),
        ("code", "%agent /findings"),
    ],
    "export_import": [
        ("md", "# Export a session and import it again\n\n"
               "A session — its conversation, memory, findings and tables — travels as one `.shellagent` file."),
        ("code", "import pandas as pd\n\nsales = pd.read_csv(\"sales.csv\")"),
        ("code", LOAD),
        ("code", READ_ONLY_FREE),
        ("code", "%agent How many rows does the sales table have?"),
        ("code", "import tempfile\n\nbundle_dir = tempfile.mkdtemp()\n%agent /export {bundle_dir}/sales-review.shellagent"),
        ("code", "%agent /import {bundle_dir}/sales-review.shellagent"),
        ("code", "%agent /sessions"),
    ],
}

#: notebooks that share one data directory, in order (Global Memory flows from one to the next)
GROUPS: list[list[str]] = [["quickstart"], ["memory_part1", "memory_part2"], ["analyze_findings"],
                           ["private_session"], ["export_import"], ["dataframe_chart"]]
