"""A data question answered by a pandas program: the model writes it, the product runs it on a
view of the notebook's DataFrame and writes the answer; its cell reproduces the number."""
from __future__ import annotations

import contextlib
import io

import pandas as pd
import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.answers.program_prompt import with_imports
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.notebook.cells import cells_for

SALES = pd.DataFrame({"region": ["West", "East", "West", "South"],
                      "Price (USD)": ["$1,200.50", "$80", "$15.25", "n/a"], "units": [3, 5, 7, 2]})


def _run_cell(source: str, frames: dict) -> object:
    """What ``%%agent_program`` does with a program cell: its body, in the sandbox, over the
    frames its first line names."""
    from shell_agent_lab.answers.program_run import run_program

    first, _, body = source.partition("\n")
    assert first.split()[0] == "%%agent_program"
    run = run_program(body, {n: frames[n] for n in first.split()[1:]}, checked=False)
    assert run.ok and run.isolated, run.error
    return run


def _program(body: str) -> str:
    return f"Here is the program:\n```python\n{body}\n```"


def _ask(program_agent, programs: list[str], question: str, **kw):
    """``question`` asked of an agent whose model writes ``programs`` in turn: the reply and the model."""
    backend = ScriptedBackend([_program(p) for p in programs])
    agent, _ = program_agent(backend, **kw)
    return agent.run(question), backend


@pytest.fixture()
def program_agent(store, settings):
    agents = []

    def make(backend, frame=SALES, approval="ask", clock=None):
        # "ask" with nobody to ask declines every tool that needs approval: a program needs none
        settings.tool_set, settings.approval_policy, settings.answer_strategy = "compact", approval, "program"
        namespace = {"sales": frame}
        agent = Agent(store=store, registry=default_registry(), events=EventBus(), settings=settings,
                      backend=backend, clock=clock,
                      engine_factory=lambda s: AnalysisEngine(store.session_dir(s.id) / "analysis.duckdb",
                                                              namespace=lambda: namespace))
        agent.open_session(None, notebook_path=f"program-{len(agents)}.ipynb")
        agents.append(agent)
        return agent, namespace

    yield make
    for agent in agents:
        agent.close()


def test_the_answer_is_composed_from_what_the_program_printed(program_agent):
    code = ("d = sales.copy()\n"
            "d['price'] = pd.to_numeric(d['Price (USD)'].str.replace(r'[^0-9.]', '', regex=True), errors='coerce')\n"
            "avg = d.loc[d['region'] == 'West', 'price'].mean()\n"
            "print(f'@avg[{avg}]')")
    backend = ScriptedBackend([_program(code)])
    agent, _ = program_agent(backend)
    r = agent.run("What is the average price in the West? End your answer with @avg[value] "
                  "(rounded to 2 decimal places).")
    assert r.error is None
    assert r.text == "@avg[607.88]"                    # 607.875, rounded by code as asked
    assert len(backend.requests) == 1 and backend.requests[0].tools == []
    prompt = backend.requests[0].messages[-1].content
    assert "'Price (USD)' (float64, read from text" in prompt and "@avg[" in prompt
    [activity] = r.tool_activity
    assert activity.name == "run_pandas" and activity.status == "success"


def test_a_program_that_writes_to_the_frame_works_on_its_own_view(program_agent):
    code = ("import pandas as pd\nsales = pd.read_csv('sales.csv')\n"
            "sales['total'] = sales['units'] * 2\nprint(f\"@total[{sales['total'].sum()}]\")")
    backend = ScriptedBackend([_program(code)])
    agent, namespace = program_agent(backend)
    before = namespace["sales"].copy(deep=True)
    r = agent.run("Twice the units, summed? End your answer with @total[value] (a whole number).")
    assert r.text == "@total[34]"
    pd.testing.assert_frame_equal(namespace["sales"], before)
    [cell] = cells_for(r, "Twice the units, summed?")
    assert "read_csv" not in cell.source and "sales_view = sales.copy(deep=False)" in cell.source
    assert cell.source.startswith("%%agent_program sales\n# shell-agent-lab: Twice the units")
    # the cell reproduces the number in the sandbox, as %%agent_program runs it, and leaves the frame alone
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(_run_cell(cell.source, {"sales": namespace["sales"]}).stdout, end="")
    assert "@total[34]" in out.getvalue()
    pd.testing.assert_frame_equal(namespace["sales"], before)


def test_a_failing_program_goes_back_once_with_its_error(program_agent):
    bad = "print(f\"@n[{sales['Area'].nunique()}]\")"
    good = "print(f\"@n[{sales['region'].nunique()}]\")"
    r, backend = _ask(program_agent, [bad, good],
                      "How many regions are there? End your answer with @n[value] (a whole number).")
    assert r.text == "@n[3]"
    retry = backend.requests[1].messages
    assert [m.role for m in retry] == ["system", "user"]                 # asked afresh, its program not shown
    assert retry[1].content.startswith(backend.requests[0].messages[1].content)   # the same prompt first
    assert "failed at this line:\n    print(f\"@n[{sales['Area'].nunique()}]\")" in retry[1].content
    assert "KeyError" in retry[1].content and "columns are: region, Price (USD), units" in retry[1].content


def test_when_no_program_succeeds_the_answer_says_it_could_not_compute_and_why(program_agent):
    bad = "print(sales['nope'])"
    backend = ScriptedBackend([_program(bad), _program("print(sales['nope'].sum())")])
    agent, _ = program_agent(backend, approval="approve")
    r = agent.run("How many rows are there? End your answer with @n[value] (a whole number).")
    # one plain sentence of what was tried; the traceback stays in the program's cell
    assert r.text.startswith("I could not compute n: I wrote and ran 2 pandas programs for it and each stopped "
                             "with an error (the last: KeyError") and "Traceback" not in r.text
    assert "query_sql" in r.text                                    # what to try
    assert len(backend.requests) == 2                                # no tool loop after the programs
    assert [(a.name, a.status) for a in r.tool_activity] == [("run_pandas", "error")] * 2


def test_a_retry_that_repeats_the_failed_program_is_asked_again_sampled(program_agent):
    bad = "print(f\"@n[{sales['Area'].nunique()}]\")"
    # the same program told its error: comments, imports and blank lines do not make it another
    again = f"import pandas as pd\n\n# count the regions\n{bad}  # as asked"
    good = "print(f\"@n[{sales['region'].nunique()}]\")"
    r, backend = _ask(program_agent, [bad, again, good],
                      "How many regions are there? End your answer with @n[value] (a whole number).")
    assert r.text == "@n[3]"
    temperatures = [q.options.temperature for q in backend.requests]
    assert temperatures == [0.0, 0.0, 0.7]
    # the sampled request is the retry's request: why the first program failed, not its program
    assert backend.requests[2].messages == backend.requests[1].messages
    # the repeat never ran: two programs ran, the failed one and the one that answered
    assert [a.status for a in r.tool_activity] == ["error", "success"]


def test_a_retry_that_keeps_the_statement_that_failed_is_asked_again_sampled(program_agent):
    bad = "big = sales[sales['units'].count() >= 3]\nanswer = {'n': big['region'].nunique()}"
    # another program, but the failing statement and all it reads are kept: it fails the same way
    kept = ("big = sales[sales['units'].count() >= 3]\nbig = big.groupby('region').filter(lambda r: len(r) >= 1)\n"
            "answer = {'n': len(big)}")
    good = "big = sales.groupby('region').filter(lambda r: len(r) >= 2)\nanswer = {'n': big['region'].nunique()}"
    r, backend = _ask(program_agent, [bad, kept, good], "How many regions have at least two rows? Format: @n[a whole number]")
    assert r.text == "@n[1]"
    assert [q.options.temperature for q in backend.requests] == [0.0, 0.0, 0.7]
    assert [a.status for a in r.tool_activity] == ["error", "success"]       # the kept one never ran


def test_a_retry_that_changes_what_the_failed_statement_reads_runs(program_agent):
    bad = "s = sales['units'] * 2\nanswer = {'n': s['x']}"
    # the same failing statement, but what it reads is computed anew: its outcome is not known
    fixed = "s = pd.Series({'x': 2})\nanswer = {'n': s['x']}"
    r, backend = _ask(program_agent, [bad, fixed], "How many? Format: @n[a whole number]")
    assert r.text == "@n[2]"
    assert [q.options.temperature for q in backend.requests] == [0.0, 0.0]


class _Clock:
    """Seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _late(clock: _Clock, seconds: float, text: str):
    """A model reply that takes ``seconds`` of the test's clock to write."""
    def write(messages, tools):
        clock.now += seconds
        return text
    return write


def _out_of_time(program_agent, settings, first: str, second: str, question: str):
    """Ask ``question`` with a 60 s budget: the model writes ``first``, then ``second`` arrives
    61 s later (after the budget ran out). The agent and its result."""
    settings.question_budget = 60
    clock = _Clock()
    backend = ScriptedBackend([_program(first), _late(clock, 61, _program(second))])
    agent, _ = program_agent(backend, clock=clock)
    return agent, agent.run(question)


def test_a_value_computed_before_the_time_ran_out_still_answers(program_agent, settings):
    # the first program binds a number where the region's name is asked (so it goes back); the
    # retry is still being written when the budget ends: the computed value is shown, not lost
    first = "answer = {'region': sales.groupby('region')['units'].sum().max()}"
    _, r = _out_of_time(program_agent, settings, first, "answer = {'region': 'West'}",
                        "Which region sold the most units? Format: @region[the region's name]")
    assert r.error is None and "@region[10]" in r.text
    assert "could not answer in time" not in r.text and "Time ran out" not in r.text
    assert [a.status for a in r.tool_activity] == ["success"]


def test_programs_that_failed_before_the_time_ran_out_are_said_and_kept(program_agent, settings, store):
    agent, r = _out_of_time(program_agent, settings, "answer = {'n': sales['Area'].nunique()}",
                            "answer = {'n': 3}", "How many regions are there? Format: @n[a whole number]")
    assert r.text.startswith("I could not answer in time (the 60 s set by ShellAgent.question_budget): the "
                             "program the model wrote computed no answer (KeyError")
    assert "it is in the cell below" in r.text and "first reply" not in r.text
    assert [(a.name, a.status) for a in r.tool_activity] == [("run_pandas", "error")]
    kept = [x for x in store.list_records(agent.session.id) if x.role == "assistant" and x.tool_calls]
    assert kept and "['Area']" in kept[0].tool_calls[0]["arguments"]["code"]


def test_sampled_programs_that_all_repeat_it_end_in_one_plain_sentence(program_agent):
    bad = "print(sales['nope'])"
    backend = ScriptedBackend([_program(bad)] * 4)
    agent, _ = program_agent(backend, approval="approve")
    r = agent.run("How many rows are there? End your answer with @n[value] (a whole number).")
    assert r.text.startswith("I could not compute n:")
    assert [q.options.temperature for q in backend.requests] == [0.0, 0.0, 0.7, 0.7]
    assert len(r.tool_activity) == 2                     # the first, and the last repeat


def test_program_shape_reads_what_a_program_does_not_how_it_is_written():
    from shell_agent_lab.agent._program_attempt import program_shape

    plain = "t = df.groupby('a')['b'].sum()\nanswer = t.idxmax()"
    dressed = ('"""Totals."""\nimport pandas as pd\nfrom scipy import stats\ndf = pd.read_csv("df.csv")\n\n# totals per a\n'
               "t = df.groupby('a')['b'].sum()   # sum\n\nanswer = t.idxmax()\n")
    assert program_shape(plain) == program_shape(dressed)
    assert program_shape(plain) != program_shape(plain.replace("sum", "mean"))
    assert program_shape(plain) != program_shape(plain.replace("'b'", "'c'"))
    # rounding or retyping a value computes the same thing
    assert program_shape("m = d['x'].mean()\nanswer = {'m': round(m, 2), 'n': int(len(d))}") == \
        program_shape("m = d['x'].mean().round(1)\nanswer = {'m': m, 'n': len(d)}")
    broken = "x = df[df['a'] == 1]]\nanswer = x"
    assert program_shape(broken) == program_shape("# what x is\n" + broken + "   # done")
    assert program_shape(broken) != program_shape(broken.replace("1]]", "2]]"))


def test_a_question_not_about_the_data_goes_to_the_loop(program_agent, settings):
    settings.route_by_model = True
    backend = ScriptedBackend(['{"way": "reply"}', "Hello! Ask me about your data."])
    agent, _ = program_agent(backend)
    assert agent.run("hello there").text == "Hello! Ask me about your data."
    route, loop = backend.requests
    assert route.options.response_format["title"] == "route" and loop.tools   # the loop's request, with tools


def test_imports_are_added_for_the_cell():
    assert with_imports("x = np.mean([1])\nprint(stats.norm.cdf(0))") == \
        "import numpy as np\nfrom scipy import stats\nx = np.mean([1])\nprint(stats.norm.cdf(0))"
    assert with_imports("import numpy as np\nprint(np.pi)") == "import numpy as np\nprint(np.pi)"


def test_a_loaded_table_is_read_into_a_frame_and_its_cell_gets_it_by_name(store, settings, tmp_path):
    from shell_agent_lab.agent._program_path import cell_code

    csv = tmp_path / "trips.csv"
    csv.write_text("city,km\nOslo,3.5\nBergen,10\nOslo,4.5\n", encoding="utf-8")
    settings.tool_set, settings.answer_strategy = "compact", "program"
    code = "print(f\"@km[{trips.loc[trips['city'] == 'Oslo', 'km'].sum()}]\")"
    backend = ScriptedBackend([_program(code)])
    agent = Agent(store=store, registry=default_registry(), events=EventBus(), settings=settings, backend=backend,
                  engine_factory=lambda s: AnalysisEngine(store.session_dir(s.id) / "analysis.duckdb",
                                                          namespace=lambda: {}))
    agent.open_session(None, notebook_path="tables.ipynb")
    try:
        agent.engine().load(str(csv), "trips")
        r = agent.run("Total km in Oslo? End your answer with @km[value] (rounded to 1 decimal place).")
        assert r.text == "@km[8.0]"
        assert "DataFrame `trips` (3 rows" in backend.requests[0].messages[-1].content
        [cell] = cells_for(r, "Total km in Oslo?")
        assert cell.source.startswith("%%agent_program trips\n")
        assert cell_code(code, ["trips"], ["trips"]).startswith("%%agent_program trips\n")
        assert "@km[8.0]" in _run_cell(cell.source, {"trips": agent.engine().frame("trips")}).stdout
    finally:
        agent.close()


def test_the_operation_path_picks_computed_values_for_the_slots(program_agent, settings):
    import json

    from shell_agent_lab.llm.scripted import reply

    op = {"op": "aggregate", "table": "sales", "measures": [{"fn": "sum", "column": "units"}],
          "group_by": ["region"], "order": "desc", "limit": 1}
    backend = ScriptedBackend([reply(json.dumps(op)), reply(json.dumps({"region": "West", "units": "10"}))])
    agent, _ = program_agent(backend)
    settings.answer_strategy = "operation"
    r = agent.run("Which region sold the most units, and how many? End your answer with @region[value] "
                  "(the region's name) and @units[value] (a whole number).")
    assert r.text == "@region[West]\n@units[10]"
    first, second = backend.requests
    assert first.options.response_format["title"] == "operation"
    choice = second.options.response_format["properties"]
    assert set(choice) == {"region", "units"} and "West" in choice["region"]["enum"]
    [activity] = r.tool_activity
    assert activity.name == "operation" and activity.ran["sql"]
    [cell] = cells_for(r, "Which region sold the most units?")
    assert cell.source.startswith("%%agent_sql")


def test_the_choice_is_held_to_computed_values():
    from shell_agent_lab.answers.choose import candidates, choice_schema, parse_choice
    from shell_agent_lab.answers.forms import read_form

    form = read_form("t and p? @t[value] (rounded to 2 decimal places) and @p[value] (rounded to 4 decimal places)")
    options = candidates({"t": -1.99461, "p": 0.0462674, "df": 512.3})
    schema = choice_schema(form, options)
    assert schema["properties"]["t"]["enum"] == ["-1.99461", "0.0462674", "512.3"]
    assert parse_choice('{"t": "-1.99461", "p": "0.0462674"}', form, options) == {"t": "-1.99461", "p": "0.0462674"}
    assert parse_choice('{"t": "-2.5", "p": "0.0462674"}', form, options) is None      # not computed


def test_below_rows_the_program_prompt_holds_no_value_and_errors_are_scrubbed():
    from shell_agent_lab.agent._program_path import answer_by_program
    from shell_agent_lab.answers.program_run import run_program
    from shell_agent_lab.sharing import scrub_error

    frame = pd.DataFrame({"name": ["CANARY-7f3a", "Bo"], "amount": ["987654.321", "$5"]})
    bad = "print(float(df['name'].iloc[0]))"
    backend = ScriptedBackend([_program(bad), _program("print(f\"@n[{len(df)}]\")")])
    out = answer_by_program(backend=backend, engine=None, frames={"df": frame}, run_program=run_program,
                            question="How many rows? End your answer with @n[value] (a whole number).",
                            values=False, scrub=scrub_error)
    assert out.composed is not None and out.composed.text == "@n[2]"
    sent = " ".join(m.content for r in backend.requests for m in r.messages)
    assert "CANARY" not in sent and "987654" not in sent
    assert "'name' (" in sent and "could not convert" in sent          # names and the error's shape stay


def test_a_nan_printed_for_a_part_goes_back_saying_missing_values_must_be_dropped(program_agent):
    nan = "import numpy as np\nprint(f\"@avg[{np.mean(sales['Price (USD)'].to_numpy())}]\")"
    fixed = "print(f\"@avg[{sales['Price (USD)'].dropna().mean()}]\")"
    backend = ScriptedBackend([_program(nan), _program(fixed)])
    agent, _ = program_agent(backend)
    r = agent.run("What is the average price? End your answer with @avg[value] (rounded to 2 decimal places).")
    assert r.text == "@avg[431.92]"
    told = backend.requests[1].messages[-1].content
    assert "avg: it came out as NaN" in told and "Drop missing values first" in told


def test_a_question_that_leans_on_an_earlier_one_gets_the_earlier_question_not_its_answer(program_agent):
    first = "print(f\"@n[{(sales['region'] == 'West').sum()}]\")"
    second = "print(f\"@n[{(sales['region'] == 'East').sum()}]\")"
    backend = ScriptedBackend([_program(first), _program(first), _program(second)])
    agent, _ = program_agent(backend)
    agent.run("How many rows have region West? End your answer with @n[value] (a whole number).")
    agent.run("How many rows have units above 2? End your answer with @n[value] (a whole number).")
    assert "earlier one" not in backend.requests[1].messages[-1].content     # standalone
    agent.run("And for East? End your answer with @n[value] (a whole number).")
    prompt = backend.requests[2].messages[-1].content
    assert "follows this earlier one, already answered" in prompt and "units above 2" in prompt
    assert "region West" not in prompt                            # the last question only
    assert "@n[2]" not in prompt and "@n[3]" not in prompt         # shown answers, the model printed them again


def test_below_rows_a_programs_answer_is_shown_but_the_model_never_reads_it_later(program_agent, settings):
    """At "schema" (and "aggregates") the answer a program's output was composed into holds the
    data: the user reads it whole; later requests and memory extraction read a placeholder."""
    settings.data_sharing, settings.route_by_model = "schema", True
    code = "print(f\"@n[{(sales['units'] * 1000003).sum()}]\")"          # 17 units → 17000051
    backend = ScriptedBackend([_program(code), '{"way": "reply"}', "I computed it in the notebook."])
    agent, _ = program_agent(backend)
    first = agent.run("What is the weighted unit count in sales? End your answer with @n[value] (a whole number).")
    assert first.text == "@n[17000051]"                                  # composed here, not masked
    agent.run("And why is that so high?")                               # leans on it: earlier turns are shown
    later = "\n".join(m.content for m in backend.requests[-1].messages)
    assert "17000051" not in later and "computed in the notebook from the data" in later
    from shell_agent_lab.context.extraction import Extractor
    records = [r for r in agent.store.list_records(agent.session.id) if r.role != "tool"]
    window = type("W", (), {"records": records, "tool_originated": True})()
    def sent(level):
        return "\n".join(m.content for m in Extractor(agent.store, lambda *a: None)._request(agent.session.id,
                                                                                          window, level))
    assert "17000051" not in sent("schema") and "17000051" not in sent("aggregates")
    assert "17000051" in sent("rows")                                   # at rows extraction reads it as before


def test_a_value_outside_the_options_the_question_lists_goes_back_with_them(program_agent):
    hour = "print(f\"@region[{sales['units'].idxmax()}]\")"
    label = "print(f\"@region[{sales.loc[sales['units'].idxmax(), 'region']} (7 units)]\")"
    backend = ScriptedBackend([_program(hour), _program(label)])
    agent, _ = program_agent(backend)
    r = agent.run("Which region sold the most units in one order? Put the result in the form @region[value], "
                  "with region as North, South, East or West.")
    assert r.text == "@region[West]"
    told = backend.requests[1].messages[-1].content
    assert "region came out as 2, but the question asks for one of North, South, East, West" in told


def test_a_statistic_bound_where_a_count_or_a_yes_no_is_asked_goes_back_once(program_agent):
    """chi2_contingency's fields bound to the wrong parts: the p-value lands in the degrees of
    freedom and the statistic in the yes/no part; both go back with what each part holds."""
    wrong = ("from scipy import stats\nt = pd.crosstab(sales['region'], sales['units'] > 2)\n"
             "res = stats.chi2_contingency(t)\nanswer = {'dof': float(res.pvalue), 'independent': float(res.statistic)}")
    right = ("from scipy import stats\nt = pd.crosstab(sales['region'], sales['units'] > 2)\n"
             "res = stats.chi2_contingency(t)\n"
             "answer = {'dof': int(res.dof), 'independent': 'yes' if res.pvalue >= 0.05 else 'no'}")
    backend = ScriptedBackend([_program(wrong), _program(right)])
    agent, _ = program_agent(backend)
    r = agent.run("Are region and large orders independent (chi-square)?\n"
                  "Format: @dof[degrees of freedom, an integer] @independent[yes or no]")
    told = backend.requests[1].messages[-1].content
    assert "dof came out as" in told and "but the question asks for a whole number" in told
    assert "independent came out as" in told and "but the question asks for yes or no" in told
    assert r.text == "@dof[2]\n@independent[Yes]"         # 3 regions x 2: (3 - 1) x (2 - 1)


def test_a_regression_written_with_scikit_learn_runs_on_the_stand_in_and_its_cell_reproduces_it(program_agent):
    frame = pd.DataFrame({"km": [1.0, 2.0, 3.0, 4.0, None], "fare": [3.1, 4.9, 7.2, 8.8, 5.0]})
    code = ("from sklearn.linear_model import LinearRegression\n"
            "from sklearn.metrics import r2_score\n"
            "both = trips.dropna()\n"
            "model = LinearRegression().fit(both[['km']], both['fare'])\n"
            "print(f\"@b[{model.coef_[0]:.4f}] @r2[{r2_score(both['fare'], model.predict(both[['km']])):.4f}]\")")
    backend = ScriptedBackend([_program(code)])
    agent, namespace = program_agent(backend, frame=frame)
    namespace["trips"] = namespace.pop("sales")
    r = agent.run("Fit fare = a + b * km. Put the result in the form @b[value] @r2[value], both to 4 decimals.")
    fit = __import__("scipy.stats", fromlist=["linregress"]).linregress([1, 2, 3, 4], [3.1, 4.9, 7.2, 8.8])
    assert r.text == f"@b[{fit.slope:.4f}]\n@r2[{fit.rvalue ** 2:.4f}]"
    [cell] = cells_for(r, "Fit fare")
    assert cell.source.startswith("%%agent_program trips\n# shell-agent-lab: Fit fare\n"
                                  "from shell_agent_lab.answers.least_squares import LinearRegression, r2_score\n")
    assert "sklearn" not in cell.source
    # the stand-ins are imported inside the sandbox, as the cell says
    assert f"@b[{fit.slope:.4f}]" in _run_cell(cell.source, {"trips": frame}).stdout


def test_a_yes_no_column_summed_as_numbers_runs_again_read_as_booleans_without_asking_again(program_agent):
    frame = pd.DataFrame({"Device": ["Mobile", "Web", "Mobile", "Mobile", "Web"],
                          "Converted": ["Yes", "No", "No", "N/A", "Yes"]})
    code = ("m = visits[visits['Device'] == 'Mobile']['Converted']\n"
            "print(f\"@percent[{m.sum() / m.count() * 100:.2f}]\")")
    backend = ScriptedBackend([_program(code)])
    agent, namespace = program_agent(backend, frame=frame)
    namespace["visits"] = namespace.pop("sales")
    r = agent.run("What percentage of the Mobile visits converted? End your answer with @percent[value] "
                  "(rounded to 2 decimal places).")
    assert r.text == "@percent[50.00]"                  # 1 of the 2 known, the N/A left out
    assert len(backend.requests) == 1                    # mended by code, not asked again
    [cell] = cells_for(r, "What percentage of the Mobile visits converted?")
    assert "['Converted'].str.strip().map({'Yes': True, 'No': False}).astype('boolean')" in cell.source
    assert "@percent[50.00]" in _run_cell(cell.source, {"visits": frame}).stdout
    assert frame["Converted"].tolist() == ["Yes", "No", "No", "N/A", "Yes"]


def test_a_program_that_compares_a_yes_no_column_with_its_values_keeps_it_as_text(program_agent):
    frame = pd.DataFrame({"Converted": ["Yes", "No", "Yes"], "spend": ["1", "x", "3"]})
    code = "print(f\"@n[{(visits['Converted'] == 'Yes').sum() + visits['spend'].sum()}]\")"
    backend = ScriptedBackend([_program(code), _program("print(f\"@n[{(visits['Converted'] == 'Yes').sum()}]\")")])
    agent, namespace = program_agent(backend, frame=frame)
    namespace["visits"] = namespace.pop("sales")
    r = agent.run("How many converted? End your answer with @n[value] (a whole number).")
    assert r.text == "@n[2]" and len(backend.requests) == 2      # the failure went back to the model
    [cell] = cells_for(r, "How many converted?")
    assert ".map({" not in cell.source


def test_numpys_renamed_quantile_keyword_is_written_the_new_way(program_agent):
    code = "print(f\"@q[{np.quantile(sales['units'], 0.25, interpolation='linear')}]\")"
    backend = ScriptedBackend([_program(code)])
    agent, _ = program_agent(backend)
    r = agent.run("What is the lower quartile of units? End your answer with @q[value] (to 2 decimals).")
    assert r.text == "@q[2.75]" and len(backend.requests) == 1


def test_the_program_binds_its_values_by_name_and_its_cell_returns_them(program_agent):
    code = ("west = sales.loc[sales['region'] == 'West', 'units']\n"
            "print('West orders:', len(west))\n"
            "answer = {'units': west.sum(), 'share': west.sum() / sales['units'].sum()}")
    backend = ScriptedBackend([_program(code)])
    agent, namespace = program_agent(backend)
    r = agent.run("How many units did the West sell, and what share of all units is that? Put the result in the "
                  "form @units[value] @share[value], with units as an integer; share to 3 decimals.")
    assert r.text == "West orders: 2\n@units[10]\n@share[0.588]"          # printed text shown, not parsed
    prompt = backend.requests[0].messages[-1].content
    assert prompt.endswith("answer = {'units': units, 'share': share}  # units: a whole number; share: a number")
    [cell] = cells_for(r, "How many units did the West sell?")
    assert cell.source.startswith("%%agent_program sales\n")
    # %%agent_program returns the answer the program bound, computed in the sandbox
    assert _run_cell(cell.source, {"sales": namespace["sales"]}).values["answer"]["units"] == 10


def test_a_row_label_stated_as_a_name_goes_back_once_and_is_never_dropped(program_agent):
    frame = pd.DataFrame({"PLAYER_ID": [2544, 2818, 2544], "PLAYER_NAME": ["LeBron James", "Bo Outlaw", "LeBron James"],
                          "PTS": [2000, 900, 2100]})
    label = "answer = frame_pts = sales.groupby('PLAYER_ID')['PTS'].sum().idxmax()"
    name = "answer = sales.groupby('PLAYER_NAME')['PTS'].sum().idxmax()"
    backend = ScriptedBackend([_program(label), _program(name)])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("Which player scored the most total points across all seasons?")
    assert "LeBron James" in r.text
    told = backend.requests[1].messages[-1].content
    assert "came out as 2544" in told and "which player" in told and "'PLAYER_NAME'" in told
    # the retry fails too: the first value is still shown, with what did not fit
    backend = ScriptedBackend([_program(label), _program("answer = sales['nope'].max()")])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("Which player scored the most total points across all seasons?")
    assert "2544" in r.text and "is a number where a name" in r.text and "could not compute" not in r.text


def test_a_label_that_is_not_a_value_of_its_column_goes_back_once_and_is_still_shown(program_agent):
    """``@top_region[region]`` ties the part to the ``region`` column: a value of another column
    (``'$80'``) goes back with the column's values; kept when the retry does no better."""
    frame = SALES.assign(rep=["Ann", "Bo", "Cy", "Di"])
    other = "answer = {'top_region': sales.loc[sales['units'].idxmax(), 'rep']}"
    right = "answer = {'top_region': sales.loc[sales['units'].idxmax(), 'region']}"
    question = "Which region had the order with the most units?\nFormat: @top_region[region]"
    backend = ScriptedBackend([_program(other), _program(right)])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run(question)
    assert r.text == "@top_region[West]"
    first, told = backend.requests[0].messages[-1].content, backend.requests[1].messages[-1].content
    assert "top_region: a name from column 'region'" in first
    assert ("top_region: 'Cy' is not a value of column 'region' (it holds 'West', 'East', 'South'); bind the "
            "value of 'region' the question asks for, read from that column.") in told
    # every run misses (the retry and its sampled redraws write it again): the value is shown
    # with what did not fit, never dropped
    backend = ScriptedBackend([_program(other)] * 4)
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run(question)
    assert "@top_region[Cy]" in r.text and "is not a value of column 'region'" in r.text
    assert "could not compute" not in r.text
    # a value of the column answers at once
    backend = ScriptedBackend([_program(right)])
    agent, _ = program_agent(backend, frame=frame)
    assert agent.run(question).text == "@top_region[West]" and len(backend.requests) == 1


def test_a_text_column_summed_goes_back_once_saying_so(program_agent):
    frame = pd.DataFrame({"air": list("YNYYYNYYNY"), "units": range(10)})
    joined = "answer = sales['air'].sum()\nprint(f'{answer} houses have air conditioning')"
    counted = "answer = int((sales['air'] == 'Y').sum())\nprint(f'{answer} houses have air conditioning')"
    backend = ScriptedBackend([_program(joined), _program(counted)])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("How many houses have air conditioning?")
    assert "7 houses have air conditioning" in r.text and "YNYY" not in r.text
    told = backend.requests[1].messages[-1].content
    assert ("the answer: 'YNYYYNYYNY' is the values of column 'air' written end to end (.sum() of a text column "
            "joins its text): compare the column with the value asked about first, then count or sum the matches.") in told


def test_a_tests_result_unpacked_into_too_many_names_runs_without_asking_again(program_agent):
    code = ("from scipy import stats\n"
            "t, p, _ = stats.ttest_ind(sales.loc[sales['region'] == 'West', 'units'], sales['units'])\n"
            "answer = {'t': t, 'p': p}")
    backend = ScriptedBackend([_program(code)])
    agent, _ = program_agent(backend)
    r = agent.run("Do Western orders differ in units? Format: @t[value] @p[value], both to 3 decimals")
    assert len(backend.requests) == 1 and "@t[" in r.text and "could not compute" not in r.text
    [activity] = r.tool_activity
    assert "t, p = stats.ttest_ind(" in activity.ran["code"][0]       # the cell runs as it was mended


def test_the_answer_line_takes_the_form_the_question_shows_and_the_program_is_asked_without_it(program_agent):
    backend = ScriptedBackend([_program("answer = int(sales['units'].sum())")])
    agent, _ = program_agent(backend)
    r = agent.run("How many units were sold in all? Put your final answer within \\boxed{}.")
    assert r.error is None
    assert r.text.splitlines()[-1] == "\\boxed{17}"
    prompt = backend.requests[0].messages[-1].content
    assert "How many units were sold in all?" in prompt and "boxed" not in prompt


def test_parts_shown_as_an_object_come_back_as_one_object(program_agent):
    backend = ScriptedBackend([_program("total = sales['units'].sum()\nbest = sales.groupby('region')['units'].sum().idxmax()\n"
                                        "answer = {'total': total, 'best': best}")])
    agent, _ = program_agent(backend)
    r = agent.run('How many units were sold, and which region sold the most? Reply with JSON: '
                  '{"total": <integer>, "best": "<region name>"}')
    assert r.error is None
    assert r.text.splitlines()[-1] == '{"total": 17, "best": "West"}'
    assert "answer = {'total': total, 'best': best}" in backend.requests[0].messages[-1].content


def test_a_text_no_row_holds_goes_back_as_the_reason_for_the_nan_it_led_to(program_agent):
    wrong = "answer = sales.loc[sales['region'] == 'west', 'units'].mean()"
    right = "answer = sales.loc[sales['region'] == 'West', 'units'].mean()"
    backend = ScriptedBackend([_program(wrong), _program(right)])
    agent, _ = program_agent(backend)
    r = agent.run("What is the mean of units in the West region?")
    assert r.text.endswith("5")
    told = backend.requests[1].messages[-1].content
    assert "compares column 'region' with 'west', which is not one of its values (it holds 'West')" in told
    assert "Drop missing values" not in told


def test_a_column_reduced_to_one_number_then_asked_for_its_label_runs_per_value_of_the_named_column(program_agent):
    backend = ScriptedBackend([_program("answer = sales['units'].sum().idxmax()")])
    agent, _ = program_agent(backend)
    r = agent.run("Which region sold the most units?")
    assert r.error is None and r.text.endswith("West")
    assert len(backend.requests) == 1                 # mended, not sent back


def test_a_reduction_bound_to_the_last_operand_alone_runs_again_over_the_whole_operation(program_agent):
    code = ("gap = sales['units'] - sales['Price (USD)'].mean()\n"
            "answer = {'gap': round(gap, 2)}")
    backend = ScriptedBackend([_program(code)])
    agent, _ = program_agent(backend)
    r = agent.run("On average, by how much do units fall short of the price? Format: @gap[value], 2 decimals")
    assert len(backend.requests) == 1                    # mended by code, not asked again
    assert r.text == "@gap[-426.92]", r.text             # the rows with a price: (3-1200.5 + 5-80 + 7-15.25) / 3
    [activity] = r.tool_activity
    assert "gap = (sales_view['units'] - sales_view['Price (USD)']).mean()" in activity.ran["code"][0]


def test_a_count_of_a_mask_written_on_its_last_condition_alone_runs_again_counting_the_whole_mask(program_agent):
    frame = pd.DataFrame({"month": [7] * 300 + [8] * 300, "temp": [90.0, 80.0] * 300})
    code = "hot = (sales['month'] == 7) & (sales['temp'] > 85).sum()\nanswer = {'hot': hot}"
    backend = ScriptedBackend([_program(code)])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("How many July rows are above 85? Format: @hot[n], an integer")
    assert len(backend.requests) == 1 and r.text == "@hot[150]", r.text    # 600 flags came back as text


def test_a_prose_answer_bound_as_nan_goes_back_though_its_sentence_was_printed(program_agent):
    frame = pd.DataFrame({"Indicator Name": ["Fertility rate, total (births per woman)"] * 3,
                          "2000": [1.5, 2.5, 4.0]})
    none = ("answer = rates[rates['Indicator Name'] == 'Fertility rate (births per 1,000 people)']['2000'].median()\n"
            "print('The median fertility rate in 2000 was', answer)")
    some = ("answer = rates['2000'].median()\n"
            "print('The median fertility rate in 2000 was', answer)")
    backend = ScriptedBackend([_program(none), _program(some)])
    agent, namespace = program_agent(backend, frame=frame)
    namespace["rates"] = namespace.pop("sales")
    r = agent.run("What was the median fertility rate in 2000?")
    assert len(backend.requests) == 2
    told = backend.requests[1].messages[-1].content
    assert "'Fertility rate (births per 1,000 people)'" in told and "births per woman" in told   # what selected nothing
    assert "2.5" in r.text and "nan" not in r.text.lower(), r.text


def test_a_difference_of_one_value_with_itself_goes_back_naming_its_two_sides(program_agent):
    frame = pd.DataFrame({"region": ["West", "East", "West", "South"], "units": [3, 5, 9, 2]})
    itself = ("rate = sales.groupby('region')['units'].mean()\nbest = rate.idxmax()\n"
              "answer = {'best': best, 'gap': rate.max() - rate[best]}")
    other = ("rate = sales.groupby('region')['units'].mean()\nbest = rate.idxmax()\n"
             "answer = {'best': best, 'gap': rate.max() - rate.drop(best).max()}")
    backend = ScriptedBackend([_program(itself), _program(other)])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("Which region has the highest mean units, and by how much does it exceed the next one? "
                  "Format: @best[region] @gap[value]")
    assert len(backend.requests) == 2
    told = backend.requests[1].messages[-1].content
    assert "gap: it is 0 because `rate.max()` and `rate[best]` came out as the same value" in told, told
    assert r.text == "@best[West]\n@gap[1]", r.text          # West 6, East 5, South 2


def test_a_zero_that_is_the_answer_is_kept_when_the_program_computes_it_again(program_agent):
    frame = pd.DataFrame({"team": ["a", "a", "b", "b"], "score": [1, 3, 2, 2]})
    code = ("a = sales.loc[sales['team'] == 'a', 'score'].mean()\nb = sales.loc[sales['team'] == 'b', 'score'].mean()\n"
            "answer = {'gap': a - b}")
    backend = ScriptedBackend([_program(code)] * 4)
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("By how much does team a's mean score exceed team b's? Format: @gap[value]")
    # asked once more (the two means are equal), and sampled twice more when it wrote the same
    assert len(backend.requests) == 4
    assert r.text.splitlines()[-1] == "@gap[0]", r.text
    assert "Note: @gap[…]: it is 0 because `a`" in r.text, r.text


def test_a_value_the_question_names_and_the_program_never_selects_goes_back_and_the_run_selecting_it_answers(
        program_agent):
    frame = pd.DataFrame({"origin": ["JFK", "LGA"] * 4, "month": [7] * 8, "temp": [90.0, 91.0, 80.0, 95.0] * 2})
    every = "hot = ((sales['month'] == 7) & (sales['temp'] > 85)).sum()\nanswer = {'hot': hot}"
    some = ("hot = ((sales['origin'] == 'JFK') & (sales['month'] == 7) & (sales['temp'] > 85)).sum()\n"
            "answer = {'hot': hot}")
    backend = ScriptedBackend([_program(every), _program(some)])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("How many July records from JFK are above 85 degrees? Format: @hot[n], an integer")
    told = backend.requests[1].messages[-1].content
    assert "the question names 'JFK', a value of column 'origin', but the program never uses" in told, told
    assert r.text == "@hot[2]", r.text                   # not the 6 over every origin


def test_a_program_that_reads_the_named_column_its_own_way_is_not_sent_back(program_agent):
    frame = pd.DataFrame({"origin": ["JFK", "LGA"] * 4, "temp": [90.0, 91.0, 80.0, 95.0] * 2})
    code = "hottest = sales.groupby('origin')['temp'].max()\nanswer = {'top': hottest.max()}"
    backend = ScriptedBackend([_program(code)])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("What is the highest temperature at any origin, JFK included? Format: @top[value]")
    assert len(backend.requests) == 1 and r.text == "@top[95]", r.text


def test_what_a_failing_program_computed_before_its_failing_line_is_shown_never_dropped(program_agent):
    code = ("total = int(sales['units'].sum())\n"
            "best = sales.groupby('region')['units'].sum().idxmax() / 2\n"
            "answer = {'total': total, 'best': best}")
    backend = ScriptedBackend([_program(code), _program(code.replace("/ 2", "- 1"))])
    agent, _ = program_agent(backend)
    r = agent.run("How many units were sold, and which region sold the most? Format: @total[n] @best[region]")
    lines = r.text.splitlines()
    assert "@total[17]" in lines, r.text                      # computed before the failing line: kept
    assert "@best: could not compute (the program stopped before it, line 6: TypeError: unsupported operand" in r.text
    assert lines[0].startswith("The program stopped before its end (line 6: TypeError"), r.text


def test_a_run_that_finishes_answers_over_one_that_stopped_with_more_values(program_agent):
    stops = "total = int(sales['units'].sum())\nbest = 1 / 0\nanswer = {'total': total, 'best': best}"
    finishes = "answer = {'total': int(sales['units'].sum()) + 0, 'best': sales.groupby('region')['units'].sum().idxmax()}"
    backend = ScriptedBackend([_program(stops), _program(finishes)])
    agent, _ = program_agent(backend)
    r = agent.run("How many units were sold, and which region sold the most? Format: @total[n] @best[region]")
    assert r.text == "@total[17]\n@best[West]", r.text


def test_a_value_bound_before_the_failing_line_that_does_not_fit_the_data_says_so(program_agent):
    frame = pd.DataFrame({"region": ["West", "East", "West"], "paid": ["Yes", "No", "Yes"], "units": [3, 5, 7]})
    code = ("best = sales['paid'].iloc[1]\n"
            "total = sales['units'].sum() / 'x'\n"
            "answer = {'best': best, 'total': total}")
    backend = ScriptedBackend([_program(code), _program(code.replace("/ 'x'", "+ 'x'"))])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("Which region sold the most units, and how many were sold? Format: @best[region] @total[n]")
    assert "@best[No]" in r.text and "Note: @best[…]: 'No' is not a value of column 'region'" in r.text, r.text
    assert "@total: could not compute (the program stopped before it" in r.text, r.text


def test_a_hint_names_the_frame_as_given_not_the_programs_own_view_of_it(program_agent):
    # the program changes `sales`, so it runs on its own view (`sales_view`); a hint that names
    # the frame the failing line used names that view, and the model copied the name
    bad = "sales['few'] = sales['units'] < 3\nbest = sales[sales['few']].idxmax()\nanswer = best"
    good = "answer = sales.loc[sales['units'] < 3, 'units'].idxmax()"
    r, backend = _ask(program_agent, [bad, good], "Which row has the fewest units? Answer: <row>")
    told = backend.requests[1].messages[1].content
    assert "sales[sales['few']].idxmax() ranks every column of a frame" in told
    assert "sales_view" not in told


def test_a_form_the_question_asks_in_words_is_printed_by_the_model_and_written_by_code(program_agent):
    question = "How many units were sold? Close your reply with the number inside a pair of triple colons."
    program = "answer = int(sales['units'].sum())\nprint(f'{answer} units were sold.')"
    backend = ScriptedBackend([_program(program), _program('print(f":::{answer}:::")')])
    agent, _ = program_agent(backend)
    r = agent.run(question)
    assert r.error is None and r.text.splitlines()[-1] == ":::17:::"
    assert "17 units were sold." in r.text
    # asked after the program, in the same conversation: the server reads only the new request
    first, form = backend.requests
    assert [m.content for m in form.messages[:2]] == [m.content for m in first.messages]
    assert form.messages[2].role == "assistant" and "answer = int(" in form.messages[2].content


def test_a_printed_form_with_words_the_question_lacks_or_a_failed_request_changes_nothing(program_agent):
    from shell_agent_lab.llm.errors import UnreachableError

    question = "How many units were sold? Keep it short."
    program = "answer = int(sales['units'].sum())\nprint(f'{answer} units were sold.')"
    for second in (_program('print(f"Total units: {answer} pcs")'), UnreachableError("down")):
        backend = ScriptedBackend([_program(program), second])
        agent, _ = program_agent(backend)
        r = agent.run(question)
        assert r.error is None and r.text == "17 units were sold.", r.text
        assert len(backend.requests) == 2
    # one sentence asks nothing of the reply's form: no request
    backend = ScriptedBackend([_program(program)])
    agent, _ = program_agent(backend)
    assert agent.run("How many units were sold?").text == "17 units were sold."
    assert len(backend.requests) == 1


def test_marks_the_question_names_in_words_make_the_form_when_the_model_writes_none(program_agent):
    program = "answer = int(sales['units'].sum())\nprint(answer)"
    for question, last in [
            ("How many units were sold? Close with a line that begins with the sign ☛ and then the number.", "☛ 17"),
            ("How many units were sold? Give it between the corner brackets 「 and 」 at the very end.", "「17」")]:
        # the model, asked for its print line, prints the bare value: the marks make the form
        backend = ScriptedBackend([_program(program), _program("print(answer)")])
        agent, _ = program_agent(backend)
        r = agent.run(question)
        assert r.error is None and r.text.splitlines()[-1] == last, r.text
        assert len(backend.requests) == 1              # the marks' form writes all: nothing more asked
    # a form the model printed with the mark is its own (words of the question around it)
    backend = ScriptedBackend([_program('answer = int(sales["units"].sum())\nprint(f"☛ sign: {answer}")')])
    agent, _ = program_agent(backend)
    r = agent.run("How many units were sold? Close with a line that begins with the sign ☛ and then the number.")
    assert r.text.splitlines()[-1] == "☛ sign: 17"


def test_a_form_the_model_shows_after_its_program_is_written_with_the_computed_value(program_agent):
    question = "How many units were sold? Finish with a heading `## Total` and the answer on the line below it."
    program = "answer = int(sales['units'].sum())\nprint(answer)"
    # the model wrote a guess after the program; the form is its, the value the program's
    backend = ScriptedBackend([f"```python\n{program}\n```\n\n## Total\n40"])
    agent, _ = program_agent(backend)
    r = agent.run(question)
    assert r.error is None and r.text.endswith("## Total\n17") and "40" not in r.text
    assert len(backend.requests) == 1                   # read from the reply: nothing more asked


def test_a_shown_form_without_a_word_the_question_quotes_makes_the_model_print_one(program_agent):
    question = ("How many units were sold? Close with a TOML block (```toml ... ```) holding one key, "
                "`total`, whose value is the answer.")
    program = "answer = int(sales['units'].sum())\nprint(answer)"
    # the block the model showed has no `total` key: its print line, asked next, has it
    shown = f"```python\n{program}\n```\n\n```toml\n40\n```"
    backend = ScriptedBackend([shown, _program('print(f"```toml\\ntotal = {answer}\\n```")')])
    agent, _ = program_agent(backend)
    r = agent.run(question)
    assert r.error is None and r.text.endswith("```toml\ntotal = 17\n```"), r.text
    assert len(backend.requests) == 2
    # asked and still without the key: the form shown is written, the fewest words missing
    backend = ScriptedBackend([shown, _program('print(f"```\\n{answer}\\n```")')])
    agent, _ = program_agent(backend)
    r = agent.run(question)
    assert r.error is None and r.text.endswith("```toml\n17\n```"), r.text
    assert backend.requests[1].messages[-1].content.endswith("writing `total` as the question does.")


def test_a_form_the_model_writes_out_when_asked_for_its_print_line_is_read(program_agent):
    question = "How many units were sold? End with a line starting with `> ` that holds the answer."
    program = "answer = int(sales['units'].sum())"
    backend = ScriptedBackend([_program(program), "> `answer`"])
    agent, _ = program_agent(backend)
    r = agent.run(question)
    assert r.error is None and r.text.splitlines()[-1] == "> 17", r.text


def test_a_form_a_failed_first_program_showed_is_written_with_the_second_programs_value(program_agent):
    question = "How many units were sold? Draw a rule, a line with only --- on it, and put the answer on the next line."
    # the first program fails, but showed the form; the second shows none and prints bare
    failing = "```python\nanswer = int(sales['units'].sum() / 'x')\n```\n\n---\n40"
    backend = ScriptedBackend([failing, _program("answer = int(sales['units'].sum())\nprint(answer)"),
                               _program("print(answer)")])
    agent, _ = program_agent(backend)
    r = agent.run(question)
    assert r.error is None and r.text.endswith("---\n17") and "40" not in r.text, r.text
    assert len(backend.requests) == 2                   # the form was read: no print line asked


def test_a_form_an_earlier_answer_took_for_the_same_instruction_is_taken_again(program_agent):
    rule = "Draw a rule, a line with only --- on it, and put the answer on the next line."
    backend = ScriptedBackend([_program("answer = int(sales['units'].sum())") + "\n\n---\n40",
                               _program("answer = int(sales['units'].max())\nprint(answer)"),
                               _program("print(answer)"),
                               _program("answer = int(sales['units'].min())\nprint(answer)"),
                               _program("print(answer)")])
    agent, _ = program_agent(backend)
    assert agent.run(f"How many units were sold? {rule}").text.endswith("---\n17")
    # the next question gives the same instruction; its program shows no form: the earlier one is written
    r = agent.run(f"And the most units in one sale? {rule}")
    assert r.error is None and r.text.endswith("---\n7"), r.text
    assert len(backend.requests) == 2                   # no print line asked
    # another instruction: the earlier form is not taken
    r = agent.run("And the fewest? Give it in a sentence after a heading.")
    assert "---" not in r.text, r.text


def test_a_frame_respelled_and_a_column_written_bare_are_mended_before_the_check(program_agent):
    # refused as written: `Sales` and `region` are not defined
    r, backend = _ask(program_agent, ["answer = int(Sales[region == 'West']['units'].sum())"],
                      "How many units were sold in the West?")
    assert r.error is None and "10" in r.text, r.text
    assert len(backend.requests) <= 2          # no retry was asked for the program


def test_a_row_number_bound_for_which_thing_it_is_is_read_from_its_row_by_code(program_agent):
    frame = pd.DataFrame({"name": [f"Town {i}" for i in range(12)], "density": [float(i % 7) for i in range(12)]})
    backend = ScriptedBackend([_program("answer = sales['density'].idxmax()"),
                               _program("answer = sales.loc[sales['density'].idxmax(), 'name']")])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("Which municipality is the densest?")
    assert len(backend.requests) == 1, r.text                  # the program was mended, not asked again
    assert r.text.endswith("Town 6"), r.text


def test_a_row_number_where_a_value_of_its_row_was_asked_is_read_by_code(program_agent):
    frame = pd.DataFrame({"Year": list(range(1920, 1932)), "jobless": [float(i % 7) for i in range(12)],
                          "source": ["A"] * 12})
    backend = ScriptedBackend([_program("peak = sales['jobless'].idxmax()\n"
                                        "answer = {'peak_year': peak, 'peak_rate': sales['jobless'].max()}")])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("When was unemployment worst? Give @peak_year[yyyy] and @peak_rate[x].")
    assert len(backend.requests) == 1, r.text
    assert "@peak_year[1926]" in r.text and "@peak_rate[6" in r.text, r.text


def test_a_row_number_with_no_column_to_read_goes_back_to_the_model(program_agent):
    # no column names the rows (a handful of repeated labels): the model is shown how, once
    frame = pd.DataFrame({"kind": ["a", "b"] * 6, "density": [float(i % 7) for i in range(12)]})
    backend = ScriptedBackend([_program("answer = sales['density'].idxmax()"),
                               _program("answer = sales.loc[sales['density'].idxmax(), 'kind']")])
    agent, _ = program_agent(backend, frame=frame)
    r = agent.run("Which municipality is the densest?")
    assert len(backend.requests) == 2, r.text
    told = backend.requests[1].messages[-1].content
    assert "6 is the number of the row .idxmax() found in 'density', not a municipality" in told
    assert r.text.endswith("a"), r.text
