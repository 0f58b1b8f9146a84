"""The guarded in-kernel runner (shell_agent_lab.answers.program_run.run_program_in_kernel), the
one a program gets only after a person approved it where no sandbox can be set up: hostile
programs leave the user's frames and files alone, analyst programs print the right values, and
nothing (output, warnings, exceptions, the trace function) leaks out. The sandboxed runner and
the red-team corpus are tested in tests/sandbox."""
from __future__ import annotations

import json
import os
import sys
import threading
import time
import warnings

import pandas as pd
import pytest
from scipy import stats

from shell_agent_lab.answers.program_run import ProgramRun
from shell_agent_lab.answers.program_run import run_program_in_kernel as run_program

from .hostile_programs import HOSTILE
from .legit_programs import LEGIT, sales_frames


def _snapshot(frame: pd.DataFrame) -> dict:
    return {"copy": frame.copy(deep=True), "index_name": frame.index.name,
            "columns_name": frame.columns.name, "attrs": json.dumps(frame.attrs),
            "dtypes": frame.dtypes.to_dict(), "columns": list(frame.columns),
            "flags": frame.flags.allows_duplicate_labels}


def _assert_unchanged(frame: pd.DataFrame, before: dict) -> None:
    pd.testing.assert_frame_equal(frame, before["copy"], check_exact=True)
    assert frame.index.name == before["index_name"]
    assert frame.columns.name == before["columns_name"]
    assert json.dumps(frame.attrs) == before["attrs"]
    assert frame.dtypes.to_dict() == before["dtypes"]
    assert list(frame.columns) == before["columns"]
    assert frame.flags.allows_duplicate_labels == before["flags"]


def _files(*folders) -> set[str]:
    return {os.path.join(root, name) for folder in folders
            for root, dirs, names in os.walk(folder) for name in names + dirs}


@pytest.fixture
def frames():
    return sales_frames()


@pytest.mark.parametrize("label,source,expected", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_program_changes_nothing(label, source, expected, frames, tmp_path,
                                         monkeypatch):
    watched = tmp_path / "watched"
    watched.mkdir()
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    before = {name: _snapshot(frame) for name, frame in frames.items()}
    files_before = _files(watched, workdir)
    options_before = pd.get_option("display.max_rows")

    # a short limit where the limit is the point; elsewhere room for a loaded machine
    run = run_program(source.replace("{tmp}", str(watched)), frames,
                      timeout=1.0 if expected == "stopped" else 30.0)

    assert isinstance(run, ProgramRun)
    for name, frame in frames.items():
        _assert_unchanged(frame, before[name])
    assert _files(watched, workdir) == files_before
    assert pd.get_option("display.max_rows") == options_before
    assert not hasattr(pd.DataFrame, "foo")
    if expected == "refused":
        assert run.refused and not run.ok and run.stdout == ""
        assert run.error.startswith("the program was refused: ")
    elif expected == "blocked":
        assert not run.ok and "refused while running" in run.error, run.error
    elif expected == "stopped":
        assert run.timed_out and run.error.startswith("stopped after 1 s (time limit)")
        assert run.seconds < 5
    elif expected == "error":
        assert not run.ok and not run.refused and run.error
    else:
        assert run.ok, run.error


def test_laundered_writes_ran_and_still_left_the_frame_alone(frames):
    source = ("d = dict(x=df)['x']\nd.loc[0, 'sales'] = 99\nd['new'] = 1\n"
              "d.index.name = 'z'\nd.attrs['source']['file'] = 'other'\n"
              "print(d.loc[0, 'sales'], d.index.name, d.attrs['source']['file'])")
    before = _snapshot(frames["df"])
    run = run_program(source, frames)
    assert run.ok, run.error
    assert run.stdout == "99.0 z other\n"  # the program saw its own writes
    _assert_unchanged(frames["df"], before)


def test_math_module_unchanged_after_laundered_write(frames):
    import math
    run = run_program("import math\nm = dict(x=math)['x']\nm.pi = 3", frames)
    assert "refused while running: programs may not change modules" in run.error
    assert math.pi == pytest.approx(3.14159, abs=1e-5)


@pytest.mark.parametrize("label,source,expected", LEGIT, ids=[lg[0] for lg in LEGIT])
def test_analyst_program_prints_the_right_values(label, source, expected, frames):
    before = {name: _snapshot(frame) for name, frame in frames.items()}
    run = run_program(source, frames)
    assert run.ok, run.error
    assert run.refused == []
    assert run.stdout == expected
    for name, frame in frames.items():
        _assert_unchanged(frame, before[name])


def test_scipy_tests_match_scipy_called_directly(frames):
    df = frames["df"]
    a, b = df.loc[df.segment == "A", "sales"], df.loc[df.segment == "B", "sales"]
    t = stats.ttest_ind(a, b)
    r = stats.pearsonr(df["sales"], df["units"])
    source = """
from scipy import stats
a = df.loc[df['segment'] == 'A', 'sales']
b = df.loc[df['segment'] == 'B', 'sales']
t = stats.ttest_ind(a, b)
r = stats.pearsonr(df['sales'], df['units'])
print(f"@t[{t.statistic:.4f}] @p[{t.pvalue:.4f}] @r[{r.statistic:.4f}]")
"""
    run = run_program(source, frames)
    assert run.ok, run.error
    assert run.stdout == (f"@t[{t.statistic:.4f}] @p[{t.pvalue:.4f}] "
                          f"@r[{r.statistic:.4f}]\n")
    assert 0.85 < r.statistic < 1  # sales and units rise together in the fixture


def test_missing_column_error_lists_the_columns(frames):
    run = run_program("x = 1\nprint(df['Revenue'].sum())", {"df": frames["df"]})
    assert not run.ok
    assert run.error == ("line 2: KeyError: 'Revenue' — columns are: region, sales, units, "
                         "price_text, when, segment, stock, kind, at, thin")


def test_the_slips_small_models_make_get_a_hint_not_the_column_list(frames):
    run = run_program("i = df['sales'].idxmax()\nprint(i.strftime('%Y'))", {"df": frames["df"]})
    assert "'int' object has no attribute 'strftime' — idxmax()/idxmin() give a row's index label" in run.error
    assert "frame.loc[label, 'column']" in run.error and "columns are" not in run.error
    run = run_program("import pandas as pd\nprint(pd.ols(y=df['sales'], x=df['units']))", {"df": frames["df"]})
    assert "module 'pandas' has no attribute 'ols' — for a least-squares line use stats.linregress(x, y)" in run.error
    run = run_program("from scipy import stats\nslope, intercept, r = stats.linregress(df['units'], df['sales'])\n"
                      "print(slope)", {"df": frames["df"]})
    assert "line 2: ValueError: too many values to unpack (expected 3) — linregress gives slope, intercept, " \
           "rvalue, pvalue, stderr" in run.error
    run = run_program("print(df['region'].sum() / len(df))", {"df": frames["df"]})
    assert "TypeError" in run.error and "compare it with a value first, e.g. (frame['column'] == 'Yes').sum()" in run.error
    run = run_program("import pandas as pd\nprint(pd.time(12, 0))", {"df": frames["df"]})
    assert "pandas has no time: compare the hour of a datetime column instead" in run.error
    run = run_program("from scipy import stats\nprint(stats.mstats.iqr(df['sales']))", {"df": frames["df"]})
    assert "has no attribute 'iqr' — for the interquartile range use stats.iqr(values)" in run.error
    run = run_program("print(df['sales'].zscore())", {"df": frames["df"]})
    assert "'Series' object has no attribute 'zscore' — a Series has no zscore: use stats.zscore(values)" in run.error


def test_missing_attribute_error_lists_columns_of_every_frame(frames):
    run = run_program("print(df.Revenue)", frames)
    assert run.error.startswith("line 1: AttributeError: 'DataFrame' object has no attribute "
                                "'Revenue' — columns: df: region, sales")
    assert "targets: region, manager, target" in run.error


def test_refusal_does_not_run_and_names_the_line(frames):
    run = run_program("print('ran')\nimport os", frames)
    assert not run.ok and run.stdout == ""
    assert run.refused == ["line 2: imports are limited to pandas, numpy, scipy, math, "
                           "statistics, datetime, re, collections, functools, fractions: "
                           "remove `import os`"]
    assert run.error == "the program was refused: " + run.refused[0]


def test_time_limit_stops_a_python_loop_and_says_so(frames):
    started = time.monotonic()
    run = run_program("n = 0\nwhile n >= 0:\n    n = n + 1", frames, timeout=0.5)
    assert time.monotonic() - started < 3
    assert run.timed_out and not run.ok
    assert run.error == ("stopped after 0.5 s (time limit): compute less, or use vectorised "
                         "pandas operations instead of Python loops")


def test_time_limit_stops_a_lambda_pandas_calls(frames):
    big = pd.DataFrame({"v": range(2_000_000)})
    run = run_program("print(df['v'].apply(lambda x: x * 2).sum())", {"df": big}, timeout=0.3)
    assert run.timed_out, run.error


def test_output_is_captured_and_truncated(frames, capsys):
    run = run_program("for i in range(1000):\n    print('line', i)", frames,
                      max_output_chars=50)
    assert run.ok
    assert run.stdout.startswith("line 0\nline 1\n")
    assert "… (output truncated:" in run.stdout
    assert len(run.stdout.split("\n…")[0]) == 50
    assert capsys.readouterr().out == ""  # nothing reached the process's stdout


def test_warnings_are_recorded_not_shown(frames):
    source = "import numpy as np\nprint(np.log(df['sales'] - 1000).isna().sum())"
    with warnings.catch_warnings(record=True) as outside:
        warnings.simplefilter("always")
        run = run_program(source, frames)
    assert run.ok, run.error
    assert run.stdout == "8\n"
    assert any("RuntimeWarning" in w for w in run.warnings)
    assert outside == []


def test_values_keep_small_jsonable_results(frames):
    source = ("total = df['sales'].sum()\nn = len(df)\nby = df.groupby('segment')['units'].sum()\n"
              "name = 'x'\nmissing = float('nan')\nbig = df.copy()\npairs = [1, 2.5, 'a']\n"
              "import pandas as pd\nwhen = pd.Timestamp('2023-03-01')\n")
    run = run_program(source, frames)
    assert run.ok, run.error
    assert run.values == {"total": 961.25, "n": 8, "by": {"A": 19, "B": 14}, "name": "x",
                          "missing": None, "pairs": [1, 2.5, "a"],
                          "when": "2023-03-01 00:00:00"}
    json.dumps(run.values, allow_nan=False)


def test_rows_picked_from_a_column_come_back_as_their_values(frames):
    """``frame.nlargest(2, …)['region']`` keeps the rows' labels as its index: those are no part
    of the result. A Series indexed by what its values are of (a group, value_counts) keeps them."""
    source = ("answer = {'top': df.nlargest(2, 'sales')['region'], 'by': df.groupby('segment')['units'].sum(),\n"
              "          'counts': df['segment'].value_counts(), 'built': pd.Series([3, 1]),\n"
              "          'years': pd.Series({2019: 5, 2020: 7}), 'moved': df.set_index('units')['region'].head(2)}\n"
              "picked = df.sort_values('sales').tail(2)['sales']\n")
    run = run_program("import pandas as pd\n" + source, frames)
    assert run.ok, run.error
    got = run.values["answer"]
    assert got["top"] == ["West", "South"] and run.values["picked"] == [150.0, 300.0]
    assert got["by"] == {"A": 19, "B": 14} and set(got["counts"]) == {"A", "B"}
    # built by the program, or indexed by another column: the labels are data
    assert got["built"] == {"0": 3, "1": 1} and got["years"] == {"2019": 5, "2020": 7}
    assert got["moved"] == {"3": "North", "2": "South"}


def test_an_answer_is_never_dropped_for_its_type(frames):
    """A month as a Period, the top names as an Index, numbers as an array, a frame: each part
    comes back (as its text when JSON has no place for it), and one odd part does not take the
    others."""
    source = ("import pandas as pd\nimport numpy as np\n"
              "by_month = df.groupby(pd.to_datetime(df['when']).dt.to_period('M')).size()\n"
              "answer = {'busiest': by_month.idxmax(), 'count': by_month.max(),\n"
              "          'top': df.groupby('region')['sales'].sum().nlargest(2).index,\n"
              "          'spread': np.array([1.5, 2.0]), 'table': df[['region', 'sales']].head(2),\n"
              "          'column': df[['region']].head(1)}\n")
    run = run_program(source, frames)
    assert run.ok, run.error
    got = run.values["answer"]
    assert isinstance(got["busiest"], str) and len(got["busiest"]) == 7          # "2023-03"
    assert isinstance(got["count"], int) and isinstance(got["top"], list) and len(got["top"]) == 2
    assert got["spread"] == [1.5, 2.0] and "region" in got["table"] and "sales" in got["table"]
    assert got["column"] == ["North"]                       # a frame of one column is its values
    json.dumps(run.values, allow_nan=False)


def test_a_long_row_mask_comes_back_as_a_mask_the_check_sends_back():
    """``answer = f['x'] > 5`` over 900 rows is one True/False per row, not the answer about them:
    it comes back as the first rows' truths (never as the Series' text), so the answer's check
    sees a mask and asks once for the reduction; a mask inside a dict of parts likewise."""
    from shell_agent_lab.answers.spec import read_spec
    from shell_agent_lab.answers.values import take_values
    from shell_agent_lab.answers.write import retry_message
    big = pd.DataFrame({"x": [i % 7 for i in range(900)]})
    run = run_program("answer = big['x'] > 5\n", {"big": big})
    assert run.ok, run.error
    mask = run.values["answer"]
    assert isinstance(mask, list) and len(mask) == 500 and mask[:7] == [False] * 6 + [True]
    spec = read_spec("Does any row have x above 5? Answer yes or no.")
    told = retry_message(spec, take_values(spec, {"answer": mask})) or ""
    assert "one True/False for each of 500 rows" in told and ".any()" in told
    parts = run_program("answer = {'flag': (big['x'] > 5).to_numpy(), 'n': int((big['x'] > 5).sum())}\n",
                        {"big": big})
    assert parts.values["answer"]["n"] == 128 and parts.values["answer"]["flag"][:7] == [False] * 6 + [True]
    # a nullable mask's missing values select no row; the mask still comes back as one
    gaps = pd.DataFrame({"x": pd.array([None if i % 5 == 0 else i % 7 for i in range(900)], dtype="Int64")})
    nullable = run_program("answer = gaps['x'] > 5\n", {"gaps": gaps})
    assert nullable.ok, nullable.error
    assert nullable.values["answer"][:7] == [False] * 6 + [True]


def test_the_callers_trace_function_is_restored(frames):
    def tracer(frame, event, arg):
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        run_program("while True:\n    pass", frames, timeout=0.2)
        run_program("print(1)", frames)
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(previous)


def test_other_threads_run_untimed_and_keep_their_stdout(frames, capsys):
    done = threading.Event()
    counted = []

    def busy():
        n = 0
        end = time.monotonic() + 0.6
        while time.monotonic() < end:
            n += 1
        counted.append(n)
        print("from the other thread")
        done.set()

    worker = threading.Thread(target=busy)
    worker.start()
    run = run_program("while True:\n    pass", frames, timeout=0.3)
    worker.join(5)
    assert run.timed_out
    assert done.is_set() and counted[0] > 0  # the time limit did not reach the other thread
    assert capsys.readouterr().out == "from the other thread\n"


def test_exceptions_never_escape(frames):
    assert run_program("raise ValueError('boom')", frames).error == "line 1: ValueError: boom"
    assert run_program("x = 1", {"not a name": frames["df"]}).error.startswith(
        "frame names must be identifiers")
    assert run_program("assert False, 'nope'", frames).error == "line 1: AssertionError: nope"


def test_a_program_may_catch_its_own_errors_but_not_the_guards(frames):
    run = run_program("try:\n    print('x', file=df)\nexcept Exception:\n    print('caught')",
                      frames)
    assert not run.ok and run.stdout == ""
    assert "refused while running: `print` writes only to the program's output" in run.error


def test_imports_are_loaded_before_the_clock_starts(frames):
    run = run_program("import scipy.optimize as opt\nprint(round(opt.brentq(lambda x: x - 1, "
                      "0, 2), 3))", frames, timeout=5)
    assert run.ok, run.error
    assert run.stdout == "1.0\n"


@pytest.mark.skipif(int(pd.__version__.split(".")[0]) >= 3,
                    reason="pandas 3 always copies on write; the option exists only in pandas 2")
def test_copy_on_write_option_is_restored_under_pandas_2(frames):  # pragma: no cover
    before = pd.get_option("mode.copy_on_write")
    run = run_program("d = dict(x=df)['x']\nd.loc[0, 'sales'] = 1", frames)
    assert run.ok
    assert pd.get_option("mode.copy_on_write") == before
    assert frames["df"].loc[0, "sales"] == 120.0


def test_format_guard_holds_behind_the_static_rule():
    # the check refuses every `.format` but on a literal template; the guard refuses the same
    # templates at run time, whatever the check saw
    from shell_agent_lab.answers._program_guards import Blocked, guarded_attr

    assert guarded_attr("@{}[{:.2f}]", "format")("a", 1.234) == "@a[1.23]"
    for template in ("{0.__globals__}", "{0[k]}", "{0:{1.real}}"):
        with pytest.raises(Blocked):
            guarded_attr(template, "format")
    with pytest.raises(Blocked):
        guarded_attr(str, "format")


def test_a_library_call_that_imports_what_is_loaded_runs_and_the_programs_own_import_does_not():
    """pandas' Timestamp.strftime imports `time` from compiled code, which finds the program's
    guarded __import__: that import is the library's and is handed the loaded module; the same
    module imported by the program itself is refused at run time (past the static check)."""
    frame = pd.DataFrame({"month": pd.to_datetime(["2024-01-01", "2024-02-01"]), "revenue": [1.0, 3.0]})
    run = run_program("m = monthly.loc[monthly['revenue'].idxmax(), 'month']\nprint(m.strftime('%Y-%m'))",
                      {"monthly": frame})
    assert run.ok and run.stdout == "2024-02\n"
    from shell_agent_lab.answers._program_guards import Blocked, Capture, make_builtins
    for code in ("import time", "import os", "from os import path"):
        with pytest.raises(Blocked, match="is not allowed"):
            exec(compile(code, "<program>", "exec"), {"__builtins__": make_builtins(Capture(1000))})


def test_dates_left_as_text_get_a_hint_to_read_them():
    run = run_program("print(df['d'].dt.day_name().mode()[0])", {"df": pd.DataFrame({"d": ["2023/01/03"]})})
    assert "Can only use .dt accessor" in run.error and "pd.to_datetime(frame['column'], errors='coerce')" in run.error


def test_an_answer_of_many_names_comes_back_as_its_values_and_other_variables_stay_small():
    frame = pd.DataFrame({"firm": [f"F{i % 30}" for i in range(120)], "capital": range(120)})
    source = "answer = df[df['capital'] > 50]['firm']\nkept = df['capital'].tolist()\n"
    run = run_program(source, {"df": frame})
    assert run.ok, run.error
    assert run.values["answer"] == [f"F{i % 30}" for i in range(51, 120)]     # 69 names, not a printed Series
    assert "kept" not in run.values                                             # 120 numbers: not kept
