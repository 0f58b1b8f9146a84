"""The example notebooks' source cells (kinds: ``md``, ``code``, and ``raises`` for a code cell
that is meant to fail — tagged ``raises-exception`` for nbclient and nbval) (``python tests/nbval/record.py`` writes and executes them).

Kept as code so the notebooks stay reviewable and regenerable; the committed ``.ipynb`` files
hold the recorded outputs nbval compares against.
"""
from __future__ import annotations

LOAD = "%load_ext shell_agent_lab"
SALES = "import pandas as pd\n\nsales = pd.read_csv(\"sales.csv\")"
HEADLESS = ("In JupyterLab, a tool that needs your approval shows an **Approval** widget under the cell. "
            "This notebook also runs unattended (in CI), where nobody can click *Approve*, so the next "
            "cell allows the tools it uses up front; anything else would be declined with a notice.")
READ_ONLY_FREE = ('# read-only SQL and charts run without asking; loading files and deeper analysis still ask\n'
                  '%config ShellAgent.approval_overrides = {"query_sql": False, "create_chart": False}')

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "quickstart": [
        ("md", "# Quickstart: ask questions about a CSV\n\n"
               "Load a file with pandas as usual, then ask with `%agent`. The assistant sees the DataFrame "
               "(without copying it), runs SQL on it through DuckDB, and answers in the cell. Discoveries "
               "you want to keep go to **Findings**; what you tell it about yourself goes to **Memory**."),
        ("code", SALES + "\nsales.head()"),
        ("code", LOAD),
        ("md", HEADLESS),
        ("code", '# read-only SQL, charts and recording a Finding run without asking\n'
                 '%config ShellAgent.approval_overrides = {"query_sql": False, "create_chart": False, '
                 '"promote_finding": False}'),
        ("md", "Ask a question. A trailing `?` is fine: the question goes to the assistant, not to IPython's "
               "help. `r = %agent …` keeps the reply: its text, the tables, the SQL it ran and the Findings "
               "it recorded. Naming the tool (`promote_finding`) makes the request unambiguous for the small "
               "embedded model."),
        ("code", "r = %agent Which region had the highest total revenue in the sales table? Record the answer "
                 "as a finding with promote_finding."),
        ("code", "r.sql"),
        ("md", "Ask follow-up questions in the same notebook: each one is answered from a new query, "
               "never from memory of the last answer."),
        ("code", "%agent What are the average units for each product in the sales table?"),
        ("code", "%agent And which product has the highest total revenue?"),
        ("md", "Tell it something about yourself with `/remember`: it goes to **Global Memory**, which every "
               "notebook sees. (With memory extraction on — the default for remote models — a preference "
               "you state in a question is picked up the same way; see `memory_part1.ipynb`.)"),
        ("code", "%agent /remember I report revenue in euros --category preference"),
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
        ("md", HEADLESS),
        ("code", READ_ONLY_FREE),
        ("code", "%agent /data"),
        ("code", "%agent Draw a line chart of revenue by month from the monthly DataFrame."),
        ("code", "%agent Which month had the highest revenue in monthly, and how much was it?"),
        ("md", "The DataFrame is live: add a column and `/data` shows it at once; the next question can use it."),
        ("code", "monthly[\"revenue_k\"] = (monthly[\"revenue\"] / 1000).round(1)\n%agent /data"),
    ],
    "memory_part1": [
        ("md", "# Memory across notebooks (1 of 2)\n\n"
               "Tell the assistant how you like to work. Preferences you state go to **Global Memory** "
               "and follow you to every notebook; facts about this notebook's data stay here. Run "
               "`memory_part2.ipynb` next."),
        ("code", SALES),
        ("code", LOAD),
        ("md", HEADLESS + "\n\nThe embedded model does not learn from every turn by default (it costs a "
               "model call per turn); this notebook switches that on, so a preference you state in passing "
               "is picked up after the turn."),
        ("code", '%config ShellAgent.approval_overrides = {"query_sql": False}\n'
                 '%config ShellAgent.auto_extract = True   # learn from each turn (on by default for remote models)'),
        ("code", "%agent I prefer amounts rounded to whole euros. What is the total revenue in the sales table?"),
        ("md", "The preference was stated in your words, so it went to Global Memory. You can also state "
               "one directly:"),
        ("code", "%agent /remember Our fiscal year starts in April --category decision"),
        ("code", "%agent /memory"),
    ],
    "memory_part2": [
        ("md", "# Memory across notebooks (2 of 2)\n\n"
               "A different notebook is a different session: its own conversation, tables and findings. "
               "Global Memory from part 1 is still here, and the assistant uses it."),
        ("code", SALES),
        ("code", LOAD),
        ("md", HEADLESS),
        ("code", '%config ShellAgent.approval_overrides = {"query_sql": False}'),
        ("code", "%agent /memory"),
        ("md", "This question does not say how to round: \"as I prefer\" refers to Global Memory, which "
               "holds the preference stated in part 1. (The small embedded model applies a remembered "
               "preference when the question points at it; larger models do it unasked.)"),
        ("code", "%agent What is the average revenue per region in the sales table? Round the amounts as I prefer."),
        ("code", "%agent From what you remember about me, without using tools: when does our fiscal year start?"),
    ],
    "private_session": [
        ("md", "# A private session\n\n"
               "`/private` starts a session for this notebook that never writes to Global Memory, and "
               "refuses Pin. Use it for sensitive data, such as this (generated) payroll table."),
        ("code", "import pandas as pd\n\npayroll = pd.DataFrame({\n"
                 "    \"employee\": [\"Ana\", \"Ben\", \"Caro\", \"Dev\", \"Eli\", \"Fay\"],\n"
                 "    \"department\": [\"Sales\", \"Sales\", \"IT\", \"IT\", \"HR\", \"HR\"],\n"
                 "    \"salary\": [52000, 61000, 73000, 68000, 49000, 55000],\n})"),
        ("code", LOAD),
        ("md", HEADLESS + " Learning from each turn is switched on too, to show that even then nothing "
               "reaches Global Memory."),
        ("code", '%config ShellAgent.approval_overrides = {"query_sql": False}\n'
                 '%config ShellAgent.auto_extract = True'),
        ("code", "%agent /private"),
        ("code", "%agent I prefer to see salaries in thousands of euros. What is the average salary per "
                 "department in the payroll table?"),
        ("md", "Stating a preference directly is refused here too:"),
        ("raises", "%agent /remember Salaries are shown in thousands"),
        ("md", "Global Memory stayed empty; anything learned stays in this private session."),
        ("code", "%agent /memory"),
        ("code", "%agent /sessions"),
    ],
    "analyze_findings": [
        ("md", "# Analyse a table and keep the Findings\n\n"
               "`analyze_data` reads a table in windows (watch the window k/N progress) and records what "
               "it finds as Findings, each with a severity. `orders.csv` (generated) has a few problems "
               "planted in it: an amount far above the rest, a negative amount, an order with missing "
               "values, an order listed twice, a date years ahead, and a run of refunds. Approve the plan "
               "in the Approval widget; here the notebook approves it up front."),
        ("code", LOAD),
        ("code", "%config ShellAgent.approval_overrides = {\"load_data\": False, \"analyze_data\": False, "
                 "\"query_sql\": False}\n"
                 "# reading the table window by window takes a few minutes on 2 cores: no time limit here\n"
                 "%config ShellAgent.question_budget = 0"),
        ("code", "%agent Load the file orders.csv into a table named orders."),
        ("code", "%agent Call the analyze_data tool with table orders and the prompt: find unusual amounts, "
                 "refunds and data errors."),
        ("md", "The Findings of this notebook, with their severities (in JupyterLab this is a live widget "
               "that updates in place; here it prints as a table). The full report is a session object: "
               "`%agent /objects` lists it."),
        ("code", "%agent /findings"),
    ],
    "export_import": [
        ("md", "# Export a session and import it again\n\n"
               "A session — its conversation, memory, findings and tables — travels as one `.shellagent` file."),
        ("code", SALES),
        ("code", LOAD),
        ("md", HEADLESS),
        ("code", '%config ShellAgent.approval_overrides = {"promote_finding": False}'),
        ("md", "Record a Finding in this session (July's total comes from `sales.csv`: 14,157):"),
        ("code", "%agent Call the promote_finding tool with content: July 2024 had the highest monthly "
                 "revenue of the year (14,157)."),
        ("code", "import tempfile\n\nbundle_dir = tempfile.mkdtemp()\n%agent /export {bundle_dir}/sales-review.shellagent"),
        ("code", "%agent /import {bundle_dir}/sales-review.shellagent"),
        ("code", "%agent /sessions"),
        ("md", "Switch to the imported copy: its Findings came along."),
        ("code", "%agent /session New Session (imported)\n%agent /findings"),
    ],
}

#: after each question, the cell that writes the answer's cells (JupyterLab inserts and runs them
#: by itself; run unattended, ``%agent /cells`` writes them and the runner inserts them below)
CELLS = "%agent /cells"
CELLS_NOTE = ("The assistant's SQL and code become cells: in JupyterLab they are inserted under the question "
              "and run; run unattended (as here, in CI) `%agent /cells` writes them below. Each names the "
              "question it answers and, in its metadata, the cell that asked: running the question again "
              "replaces them in place (and `%agent /cells` adds only what is missing), so *Run All* keeps one "
              "copy of each and reproduces every number without a model (`%agent /replay-check` checks that).")
#: what the note said before cells had metadata (``record.py --adopt`` rewrites it)
CELLS_NOTE_BEFORE = ("The assistant's SQL and code become cells: in JupyterLab they are inserted under the question "
                     "and run; run unattended (as here, in CI) `%agent /cells` writes them below. Each names the "
                     "question it answers, and *Run All* reproduces every number without a model "
                     "(`%agent /replay-check` checks that).")


def _is_question(kind: str, source: str) -> bool:
    line = source.strip().splitlines()[-1] if source.strip() else ""
    return kind == "code" and ("%agent " in line and "%agent /" not in line)


def _with_cells(cells: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    noted = False
    for kind, source in cells:
        out.append((kind, source))
        if _is_question(kind, source):
            if not noted:
                out.append(("md", CELLS_NOTE))
                noted = True
            out.append(("code", CELLS))
    return out


NOTEBOOKS = {name: _with_cells(cells) for name, cells in NOTEBOOKS.items()}

#: notebooks that share one data directory, in order (Global Memory flows from one to the next)
GROUPS: list[list[str]] = [["quickstart"], ["memory_part1", "memory_part2"], ["analyze_findings"],
                           ["private_session"], ["export_import"], ["dataframe_chart"]]
