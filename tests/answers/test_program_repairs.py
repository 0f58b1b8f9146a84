"""Slips code mends without asking the model again: renamed keywords, yes/no columns."""
from __future__ import annotations

import pandas as pd
import pytest

from shell_agent_lab.analysis.engine import MISSING_MARKERS
from shell_agent_lab.answers.program_repairs import (fitted_unpacks, flag_columns, flags_used, mended_calls, offsets_respelled,
                                                     masks_parenthesised, reduced_whole, series_grouped, bare_columns,
                                                     explodes_framed, frames_respelled)


@pytest.mark.parametrize("code, expected", [
    ("q = np.nanquantile(x, 0.25, interpolation='linear')", "q = np.nanquantile(x, 0.25, method='linear')"),
    ("q = numpy.percentile(x, [25, 75], interpolation='midpoint')", "q = numpy.percentile(x, [25, 75], method='midpoint')"),
    ("r = stats.iqr(x, method='linear')", "r = stats.iqr(x, interpolation='linear')"),
    ("r = iqr(x, method='linear')", "r = iqr(x, interpolation='linear')"),
    ("s = df['é'].quantile(0.5, interpolation='linear')", "s = df['é'].quantile(0.5, interpolation='linear')"),
    ("q = np.quantile(x, 0.5, method='linear')", "q = np.quantile(x, 0.5, method='linear')"),
    ("q = np.quantile(x, 0.5, method='linear', interpolation='linear')",
     "q = np.quantile(x, 0.5, method='linear', interpolation='linear')"),      # both given: left to fail
    ("print('a', end=')'", "print('a', end=')'"),                             # does not parse: as it is
    ("m = df.groupby('région')['b', 'c'].mean()", "m = df.groupby('région')[['b', 'c']].mean()"),
    ("m = df.groupby('a')[['b', 'c']].mean()", "m = df.groupby('a')[['b', 'c']].mean()"),
    ("m = df.groupby('a')['b'].mean()", "m = df.groupby('a')['b'].mean()"),
    ("s = 'é\u2028'\nm = df.groupby('a')['b', 'c'].mean()", "s = 'é\u2028'\nm = df.groupby('a')[['b', 'c']].mean()"),
])
def test_calls_are_written_as_their_library_takes_them(code, expected):
    assert mended_calls(code)[0] == expected


def test_yes_no_columns_are_found_with_the_values_they_write():
    frame = pd.DataFrame({"a": ["Yes", "No", None, "n/a"], "b": ["Y", "N", "Y", "Y"], "c": ["TRUE", "false", "TRUE", "--"],
                          "d": ["Yes", "No", "Maybe", "No"], "e": [1, 0, 1, 0], "f": ["Web", "App", "Web", "App"]})
    assert flag_columns(frame, MISSING_MARKERS) == {"a": ("Yes", "No"), "b": ("Y", "N"), "c": ("TRUE", "false")}


def test_a_flag_column_compared_with_its_values_is_not_used_as_booleans():
    flags = {"Converted": ("Yes", "No"), "Churned": ("Y", "N")}
    code = "a = df['Converted'].mean()\nb = (df['Churned'] == 'Y').sum()\nc = df['Other'].sum()"
    assert flags_used(code, flags) == {"Converted": ("Yes", "No")}
    assert flags_used("df[", flags) == {}


def test_changes_made_in_place_become_assignments_that_run_and_pass_the_check():
    from shell_agent_lab.answers.program_check import check_program
    from shell_agent_lab.answers.program_prompt import own_frames
    from shell_agent_lab.answers.program_repairs import without_inplace
    from shell_agent_lab.answers.program_run import run_program_in_kernel

    code = ("kept = df[df['sales'] > 0]\n"
            "kept.dropna(subset=['units'], inplace=True)\n"
            "kept['units'].fillna(0, inplace=True)\n"
            "if len(kept):\n"
            "    kept.sort_values('sales',\n"
            "                     inplace=True)\n"
            "kept['share'] = kept['sales'] / kept['sales'].sum()\n"
            "print(round(kept['share'].sum(), 2), kept.fillna(0, inplace=False).shape[0] > 0)")
    mended, changed = without_inplace(code)
    assert changed == ["line 2: inplace=True → assignment", "line 3: inplace=True → assignment",
                       "line 5: inplace=True → assignment"]
    assert "kept = kept.dropna(subset=['units'])" in mended and "kept['units'] = kept['units'].fillna(0)" in mended
    assert "    kept = kept.sort_values('sales')" in mended and "inplace=False" in mended
    # a frame taken from a given one and then written to: the program works on its own view
    program = own_frames(mended, ["df"])
    assert check_program(program, given=["df"]) == []
    frame = pd.DataFrame({"sales": [1.0, 2.0, 0.0], "units": [1, None, 3]})
    run = run_program_in_kernel(program, {"df": frame})
    assert run.ok and run.stdout == "1.0 True\n", run.error
    assert frame["units"].isna().sum() == 1 and "share" not in frame          # the notebook's frame as it was
    assert without_inplace("df.dropna(inplace=True") == ("df.dropna(inplace=True", [])


def test_a_tests_result_unpacked_into_the_wrong_number_of_names_is_fitted():
    from scipy import stats

    a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 3.5, 4.0, 6.0]
    table = [[10, 20], [20, 15]]
    code = ("t, p, _ = stats.ttest_ind(a, b, equal_var=False)\n"
            "(r, pr, _, _) = pearsonr(a, b)\n"
            "chi2, pc, dof, _, _ = stats.chi2_contingency(table)\n"
            "s, q = stats.shapiro(a)\n")
    mended, changed = fitted_unpacks(code)
    assert mended.splitlines() == ["t, p = stats.ttest_ind(a, b, equal_var=False)", "r, pr = pearsonr(a, b)",
                                   "chi2, pc, dof, _ = stats.chi2_contingency(table)", "s, q = stats.shapiro(a)"]
    assert changed == ["line 1: ttest_ind unpacked into 2 names", "line 2: pearsonr unpacked into 2 names",
                       "line 3: chi2_contingency unpacked into 4 names"]
    scope = {"stats": stats, "pearsonr": stats.pearsonr, "a": a, "b": b, "table": table}
    exec(mended, scope)
    assert scope["dof"] == 1 and 0 < scope["pc"] < 1 and scope["t"] == stats.ttest_ind(a, b, equal_var=False).statistic
    # a name past the fields that nothing reads goes too
    unread = "t, p, significant = stats.ttest_ind(a, b)\nanswer = {'t': t, 'significant': p < 0.05}"
    assert fitted_unpacks(unread)[0].splitlines()[0] == "t, p = stats.ttest_ind(a, b)"
    # too few names, each at its own field or named after none: the fields after them are left out
    few = "chi2, p_value, dof = stats.chi2_contingency(table)\nslope, b = linregress(a, b)"
    mended, changed = fitted_unpacks(few)
    assert mended.splitlines() == ["chi2, p_value, dof, _ = stats.chi2_contingency(table)",
                                   "slope, b, _, _, _ = linregress(a, b)"]
    exec(mended, {**scope, "linregress": stats.linregress})
    # too few names of which one is another field's (which field each meant is not known), a name
    # past the fields that is read later, an unknown call, code that does not parse: as written
    for kept in ("chi2, p, expected = stats.chi2_contingency(table)", "t, p, df = stats.ttest_ind(a, b)\nprint(df)",
                 "x, y, z = my_fit(a)", "t, p, _ = ttest_ind(a,", "slope, pvalue = linregress(a, b)"):
        assert fitted_unpacks(kept) == (kept, [])


@pytest.mark.parametrize("code, grouped", [
    ("answer = tx.loc[tx['year'] == 2014, 'sales'].sum().idxmax()",
     "answer = tx.loc[tx['year'] == 2014].groupby('city')['sales'].sum().idxmax()"),
    ("top = df[df['x'] > 1]['pts'].mean().idxmin()\nanswer = top",
     "top = df[df['x'] > 1].groupby('city')['pts'].mean().idxmin()\nanswer = top"),
    ("answer = df['pts'].sum().nlargest(3).index.tolist()",
     "answer = df.groupby('city')['pts'].sum().nlargest(3).index.tolist()"),
])
def test_one_column_reduced_then_asked_per_label_is_grouped_by_the_column_the_answer_names(code, grouped):
    from shell_agent_lab.answers.program_repairs import grouped_reductions

    assert grouped_reductions(code, "city")[0] == grouped


@pytest.mark.parametrize("code", [
    "answer = df.groupby('city')['pts'].sum().idxmax()",         # already per group
    "answer = df.resample('M')['pts'].sum().idxmax()",
    "answer = df[['a', 'b']].sum().idxmax()",                     # several columns: a label per column
    "answer = df['city'].count().idxmax()",                       # the label column itself
    "answer = df['pts'].sum()",
    "answer = (",
])
def test_other_reductions_are_left_as_written(code):
    from shell_agent_lab.answers.program_repairs import grouped_reductions

    assert grouped_reductions(code, "city") == (code, [])
    assert grouped_reductions("answer = df['pts'].sum().idxmax()", None) == ("answer = df['pts'].sum().idxmax()", [])


_SURVEY = pd.DataFrame({"income": [10.0, 12, 11, 20, 22, 21, 30, 29, 31, None],
                        "education": ["P", "P", "P", "S", "S", "S", "U", "U", "U", "U"],
                        "klass": [1, 1, 1, 2, 2, 2, 3, 3, 3, 3],
                        "sex": ["F", "M"] * 5})


@pytest.mark.parametrize("code, expected", [
    ("f, p = f_oneway(df['income'], df['education'])",
     "f, p = f_oneway(*[g.dropna() for _, g in df.groupby('education')['income']])"),
    # numeric codes group too (they run, and answer wrongly, as written)
    ("res = stats.kruskal(d['income'], d['klass'])",
     "res = stats.kruskal(*[g.dropna() for _, g in d.groupby('klass')['income']])"),
    ("t, p = ttest_ind(df['income'], df['sex'], equal_var=False)",
     "t, p = ttest_ind(*[g.dropna() for _, g in df.groupby('sex')['income']], equal_var=False)"),
    # one number per group (a sample of one has no variance): each group's values
    ("f, p = f_oneway(*df.dropna().groupby('education')['income'].mean())",
     "f, p = f_oneway(*[g.dropna() for _, g in df.dropna().groupby('education')['income']])"),
    ("means = df.groupby('sex')['income'].median()\nt, p = stats.ttest_ind(*means)",
     "means = df.groupby('sex')['income'].median()\nt, p = stats.ttest_ind(*[g.dropna() for _, g in df.groupby('sex')['income']])"),
    # the numbers per group passed whole, as one sample (such a test always refuses one)
    ("means = df.groupby('education')['income'].mean()\nf, p = f_oneway(means)",
     "means = df.groupby('education')['income'].mean()\nf, p = f_oneway(*[g.dropna() for _, g in df.groupby('education')['income']])"),
    ("f, p = stats.kruskal(df.groupby('klass')['income'].mean())",
     "f, p = stats.kruskal(*[g.dropna() for _, g in df.groupby('klass')['income']])"),
])
def test_a_grouping_column_passed_as_a_sample_is_the_values_split_by_it(code, expected):
    from shell_agent_lab.answers.program_repairs import distinct_counter, sampled_groups

    mended, changed = sampled_groups(code, distinct_counter({"df": _SURVEY}))
    assert mended == expected and len(changed) == 1


@pytest.mark.parametrize("code", [
    "f, p = f_oneway(df['income'], df['klass'].astype(float))",      # not a column as written
    "f, p = f_oneway(a['income'], b['education'])",                   # two frames: not one split
    "t, p = ttest_ind(df['income'], df['education'])",               # three groups for a two-sample test
    "f, p = f_oneway(df['education'], df['income'])",                # the many-valued column is second
    "r = pearsonr(df['income'], df['klass'])",                       # not a group comparison
    "f, p = f_oneway(df['income'], df['nowhere'])",
    "f, p = f_oneway(df['income'],",
    "t, p = ttest_ind(*df.groupby('education')['income'].mean())",     # three groups, two-sample test
    "m = df.groupby('sex')['income'].mean()\nm = m * 2\nf, p = f_oneway(*m)",   # bound twice
    # also bound by a loop, a tuple's targets, an augmented assignment: its value depends on where
    "m = df.groupby('sex')['income'].mean()\nfor m in [df['income']]:\n    pass\nf, p = f_oneway(*m)",
    "m = df.groupby('sex')['income'].mean()\nm, k = m, 1\nf, p = f_oneway(*m)",
    "m = df.groupby('sex')['income'].mean()\nm += 1\nf, p = f_oneway(*m)",
    "f, p = f_oneway(*[df['income'], df['klass']])",
    "f, p = f_oneway(df['income'])",                                  # one column: not per group
])
def test_other_test_calls_are_left_as_written(code):
    from shell_agent_lab.answers.program_repairs import distinct_counter, sampled_groups

    assert sampled_groups(code, distinct_counter({"df": _SURVEY})) == (code, [])


def test_the_split_program_computes_the_test_over_the_groups():
    from scipy import stats

    from shell_agent_lab.answers.program_repairs import distinct_counter, sampled_groups

    code = "from scipy.stats import f_oneway\nf, p = f_oneway(df['income'], df['education'])"
    mended, _ = sampled_groups(code, distinct_counter({"df": _SURVEY}))
    scope = {"df": _SURVEY}
    exec(mended, scope)        # noqa: S102 - a test's own program
    expected = stats.f_oneway(*[_SURVEY.loc[_SURVEY["education"] == e, "income"].dropna() for e in "PSU"])
    assert scope["f"] == pytest.approx(expected.statistic) and scope["p"] == pytest.approx(expected.pvalue)
    means = "from scipy.stats import f_oneway\nm = df.groupby('education')['income'].mean()\nf, p = f_oneway(*m)"
    scope = {"df": _SURVEY}
    exec(sampled_groups(means, distinct_counter({"df": _SURVEY}))[0], scope)   # noqa: S102
    assert scope["f"] == pytest.approx(expected.statistic)


@pytest.mark.parametrize("code, whole", [
    ("lead = polls['clinton'] - polls['trump'].mean()\nanswer = {'lead': round(lead, 2)}",
     "lead = (polls['clinton'] - polls['trump']).mean()\nanswer = {'lead': round(lead, 2)}"),
    ("n = (w['month'] == 7) & (w['temp'] > 85) & (w['humid'] > 60).sum()\nanswer = {'n': n}",
     "n = ((w['month'] == 7) & (w['temp'] > 85) & (w['humid'] > 60)).sum()\nanswer = {'n': n}"),
    ("d = a['x'] / b['y'].median(skipna=True)\nm = d\nanswer = {'m': m}",      # followed back through names
     "d = (a['x'] / b['y']).median(skipna=True)\nm = d\nanswer = {'m': m}"),
    ("answer = {'gap': df.a - df.b.mean() - df.c.mean()}",                    # one rewrite, the outermost
     "answer = {'gap': (df.a - df.b.mean() - df.c).mean()}"),
])
def test_a_reduction_of_the_last_operand_alone_is_taken_over_the_whole_operation(code, whole):
    mended, changed = reduced_whole(code, ["lead", "n", "m", "gap"])
    assert mended == whole
    assert [c.split(": ", 1)[1] for c in changed] == ["a reduction of the last operand alone → of the whole operation"]


@pytest.mark.parametrize("code", [
    "answer = {'z': df['x'] - df['x'].mean()}",                               # a part not named: left alone
    "answer = {'lead': df.a.max()}\nother = df.a - df.b.sum()",             # not what computes the part
    "answer = {'lead': df['a'].sum() / df['b'].sum()}",                       # two reductions: one value
    "answer = {'lead': 100 * df['a'].mean()}",                                # a number times a reduction
    "answer = {'lead': df['a'].mean()",                                       # does not parse
])
def test_reductions_outside_the_parts_that_came_out_as_many_values_are_left_as_written(code):
    assert reduced_whole(code, ["lead"]) == (code, [])


def test_the_whole_reduction_computes_what_the_program_meant():
    frame = pd.DataFrame({"a": [3.0, 5.0, 10.0], "b": [1.0, 2.0, 3.0]})
    code, _ = reduced_whole("lead = frame['a'] - frame['b'].mean()\nanswer = {'lead': lead}", ["lead"])
    scope = {"frame": frame}
    exec(code, scope)
    assert scope["answer"]["lead"] == pytest.approx(4.0)


@pytest.mark.parametrize("code, mended", [
    ("m = stocks[stocks['date'].dt.year == 2005]['price'].groupby('symbol').mean()",
     "m = stocks[stocks['date'].dt.year == 2005].groupby('symbol')['price'].mean()"),
    ("m = stocks['price'].groupby('symbol').sum().idxmax()", "m = stocks.groupby('symbol')['price'].sum().idxmax()"),
])
def test_a_column_grouped_by_another_columns_name_is_written_as_the_frame_grouped(code, mended):
    assert series_grouped(code, ["symbol", "date", "price"])[0] == mended


@pytest.mark.parametrize("code", [
    "m = stocks['price'].groupby('nope').mean()",               # not a column: the error says so
    "m = stocks['price'].groupby('price').mean()",              # grouped by itself
    "m = stocks['price'].groupby(stocks['symbol']).mean()",     # a Series to group by: fine as it is
    "m = stocks.groupby('symbol')['price'].mean()",
])
def test_other_groupings_are_left_as_they_are(code):
    assert series_grouped(code, ["symbol", "date", "price"]) == (code, [])


def test_the_grouped_frame_computes_what_the_program_meant():
    frame = pd.DataFrame({"symbol": ["A", "B", "A", "B"], "price": [1.0, 5.0, 3.0, 7.0], "year": [2005] * 4})
    code, _ = series_grouped("m = stocks[stocks['year'] == 2005]['price'].groupby('symbol').mean()",
                             ["symbol", "price", "year"])
    scope = {"stocks": frame}
    exec(code, scope)
    assert scope["m"].to_dict() == {"A": 2.0, "B": 6.0}


@pytest.mark.parametrize("code, mended", [
    ("w = weather[weather['origin'] == 'JFK' & (weather['month'] == 7)]",
     "w = weather[(weather['origin'] == 'JFK') & (weather['month'] == 7)]"),
    ("n = (f['a'] > 5 & f['b'] < 3).sum()", "n = ((f['a'] > 5) & (f['b'] < 3)).sum()"),
    ("n = f[f['m'] == 7 | (f['d'] == 1)]", "n = f[(f['m'] == 7) | (f['d'] == 1)]"),
])
def test_a_value_compared_then_taken_into_an_and_is_written_as_the_two_masks(code, mended):
    assert masks_parenthesised(code)[0] == mended


@pytest.mark.parametrize("code", [
    "w = weather[(weather['origin'] == 'JFK') & (weather['month'] == 7)]",
    "n = f['flags'] == (f['a'] & f['b'])",           # two columns anded on purpose, then compared
    "n = f['x'] == 3",
])
def test_masks_written_as_meant_are_left_as_they_are(code):
    assert masks_parenthesised(code) == (code, [])


def test_the_parenthesised_masks_count_what_the_program_meant():
    weather = pd.DataFrame({"origin": ["JFK", "LGA", "JFK"], "month": [7, 7, 6]})
    code, _ = masks_parenthesised("n = len(weather[weather['origin'] == 'JFK' & (weather['month'] == 7)])")
    scope = {"weather": weather}
    exec(code, scope)
    assert scope["n"] == 1


@pytest.mark.parametrize("code, mended", [
    ("yearly = co2['co2'].resample('Y').mean()", "yearly = co2['co2'].resample('YE').mean()"),
    ("m = f.set_index('date').resample(rule='M')['x'].sum()", "m = f.set_index('date').resample(rule='ME')['x'].sum()"),
    ("q = f.resample('2Q').size()", "q = f.resample('2QE').size()"),
    ("a = f.resample('A-DEC').mean()", "a = f.resample('YE-DEC').mean()"),
    ("h = f['t'].dt.floor('H')", "h = f['t'].dt.floor('h')"),
    ("r = s.rolling('30T').mean()", "r = s.rolling('30min').mean()"),
    ("g = f.groupby(pd.Grouper(key='date', freq='M'))['x'].sum()",
     "g = f.groupby(pd.Grouper(key='date', freq='ME'))['x'].sum()"),
    ("d = pd.date_range('2020-01-01', periods=3, freq='H')", "d = pd.date_range('2020-01-01', periods=3, freq='h')"),
])
def test_a_frequency_alias_pandas_renamed_is_written_as_it_names_it_now(code, mended):
    assert offsets_respelled(code)[0] == mended


@pytest.mark.parametrize("code", [
    "p = f['date'].dt.to_period('M')",          # a period alias: 'M' is right there
    "w = f.resample('W').mean()",
    "m = f.resample('ME').mean()",
    "r = s.rolling(7).mean()",
    "x = s.round(2)",
    "d = f.resample('D').sum()",
])
def test_aliases_pandas_takes_are_left_as_written(code):
    assert offsets_respelled(code) == (code, [])


def test_the_respelled_resample_runs():
    frame = pd.DataFrame({"x": [1.0, 2.0, 4.0]}, index=pd.to_datetime(["2020-01-05", "2020-02-05", "2021-03-01"]))
    scope = {"f": frame}
    exec(offsets_respelled("yearly = f['x'].resample('Y').mean()")[0], scope)
    assert list(scope["yearly"]) == [1.5, 4.0]


_AIRPORTS = pd.DataFrame({"state": ["AK", "AK", "AK", "TX", "TX", "CA"],
                          "latitude": [61.0, 64.0, 58.0, 30.0, 29.0, 34.0]})


@pytest.mark.parametrize("code", [
    "big = airports[airports['state'].value_counts() >= 2]",
    "big = airports.loc[airports.groupby('state').size() >= 2]",
    "counts = airports['state'].value_counts()\nbig = airports[counts >= 2]",
    "big = airports[(airports.groupby('state')['latitude'].count() >= 2) & (airports['latitude'] > 0)]",
])
def test_rows_kept_by_the_count_of_their_value_are_mapped_onto_the_rows(code):
    from shell_agent_lab.answers.program_repairs import counts_on_rows

    scope = {"airports": _AIRPORTS}
    try:                                              # as written, pandas refuses the mask or aligns it
        exec(code, scope)                             # noqa: S102 - a test's own program
    except (pd.errors.IndexingError, ValueError, KeyError):
        pass
    else:
        assert sorted(scope["big"]["state"]) != ["AK", "AK", "AK", "TX", "TX"]
    mended, changed = counts_on_rows(code)
    assert len(changed) == 1 and ".map(" in mended
    scope = {"airports": _AIRPORTS}
    exec(mended, scope)                               # noqa: S102
    assert sorted(scope["big"]["state"]) == ["AK", "AK", "AK", "TX", "TX"]


@pytest.mark.parametrize("code", [
    "big = airports[airports['state'].map(airports['state'].value_counts()) >= 2]",   # already on the rows
    "counts = airports['state'].value_counts()\nbig = counts[counts >= 2]",           # the counts themselves
    "big = other[airports['state'].value_counts() >= 2]",                            # another frame
    "big = airports[airports['latitude'] > 30]",
    "big = airports[airports['state'].value_counts(",
])
def test_other_masks_are_left_as_written(code):
    from shell_agent_lab.answers.program_repairs import counts_on_rows

    assert counts_on_rows(code) == (code, [])


def test_a_module_reached_through_another_that_lacks_it_is_written_as_itself():
    from shell_agent_lab.answers.program_repairs import modules_respelled

    code = "x = pd.np.log(f['a'])\nw, p = pd.stats.shapiro(x)\nanswer = {'w': w, 'n': pd.np.size(x)}"
    mended, where = modules_respelled(code)
    assert mended == "x = np.log(f['a'])\nw, p = stats.shapiro(x)\nanswer = {'w': w, 'n': np.size(x)}"
    assert len(where) == 3
    # attributes the module has, and names that are no handed module, stay
    for kept in ("x = pd.api.types.is_numeric_dtype(f['a'])", "y = np.linalg.norm(v)", "z = pd.np_value"):
        assert modules_respelled(kept) == (kept, [])
    ns = {}
    exec("import numpy as np, pandas as pd\nfrom scipy import stats\n" + mended.replace("f['a']", "[1.0, 2.0, 4.0]"), ns)
    assert ns["answer"]["n"] == 3


@pytest.mark.parametrize("code, mended", [
    ("fast = runners[race == '5k']", "fast = runners[runners['race'] == '5k']"),
    ("m = runners[(sex == 'M') & (age > 40)]['time'].mean()",
     "m = runners[(runners['sex'] == 'M') & (runners['age'] > 40)]['time'].mean()"),
])
def test_a_column_written_as_a_bare_name_is_the_frames_column(code, mended):
    assert bare_columns(code, "runners", ["race", "sex", "age", "time"])[0] == mended


@pytest.mark.parametrize("code", [
    "age = runners['age']\nold = runners[age > 40]",              # bound by the program: its own name
    "for sex in ['M', 'F']:\n    n = len(runners[runners['sex'] == sex])",
    "n = len(runners[runners['race'] == '5k'])",                  # no bare name
    "top = max(runners['time'])",                                 # a builtin, though a column is so named
    "x = runners[nope == 1]",                                     # no such column: the check says so
])
def test_names_the_program_binds_builtins_and_unknown_names_are_left(code):
    assert bare_columns(code, "runners", ["race", "sex", "age", "time", "max"]) == (code, [])


def test_the_bare_column_runs_as_the_column_it_names():
    frame = pd.DataFrame({"race": ["5k", "10k", "5k"], "time": [20.0, 45.0, 30.0]})
    code, where = bare_columns("m = runners[race == '5k']['time'].mean()", "runners", list(frame.columns))
    scope = {"runners": frame}
    exec(code, scope)
    assert scope["m"] == 25.0 and where == ["line 1: a column written as a bare name → the frame's column"]


def test_a_column_exploded_into_itself_is_the_frame_exploded_on_it():
    frame = pd.DataFrame({"kind": ["Theft, Loss", "Hacking", "Theft"], "n": [1, 2, 3]})
    code = ("breaches['kind'] = breaches['kind'].str.split(',').explode()\n"
            "breaches['kind'] = breaches['kind'].str.strip()\n"
            "counts = breaches['kind'].value_counts()")
    mended, where = explodes_framed(code)
    assert mended.splitlines()[0] == "breaches = breaches.assign(kind=breaches['kind'].str.split(',')).explode('kind')"
    assert where == ["line 1: a column exploded into itself → the frame exploded on the column"]
    with pytest.raises(ValueError):
        exec(code, {"breaches": frame.copy()})          # as written, pandas refuses it
    scope = {"breaches": frame.copy()}
    exec(mended, scope)
    assert scope["counts"].to_dict() == {"Theft": 2, "Loss": 1, "Hacking": 1}
    odd = "f['a b'] = f['a b'].str.split(';').explode()"
    assert explodes_framed(odd)[0] == "f = f.assign(**{'a b': f['a b'].str.split(';')}).explode('a b')"
    # anything else exploded is left as written
    for kept in ("items = f['kind'].str.split(',').explode()", "f['k'] = f['k'].explode('x')"):
        assert explodes_framed(kept) == (kept, [])


def test_a_frames_name_respelled_but_for_case_is_the_frame():
    code = "kept = Forbes.dropna(subset=['profits'])\nn = len(FORBES)"
    assert frames_respelled(code, ["forbes", "sales"])[0] == "kept = forbes.dropna(subset=['profits'])\nn = len(forbes)"
    for kept in ("Forbes = forbes.copy()\nn = len(Forbes)",       # the program's own name
                 "n = len(forbes)", "n = len(Other)"):
        assert frames_respelled(kept, ["forbes"]) == (kept, [])
    # two frames named alike but for case: which one is not known
    assert frames_respelled("n = len(SALES)", ["sales", "Sales"]) == ("n = len(SALES)", [])


@pytest.mark.parametrize("code, mended", [
    ("w = f['birth'].dt.weekday_name.value_counts()", "w = f['birth'].dt.day_name().value_counts()"),
    ("w = pd.to_datetime(f['birth']).dt.weekday_name", "w = pd.to_datetime(f['birth']).dt.day_name()"),
    ("w = f['birth'].dt.weekday_name()", "w = f['birth'].dt.day_name()"),
    ("k = f['birth'].dt.week.max()", "k = f['birth'].dt.isocalendar().week.max()"),
    ("k = f['birth'].dt.weekofyear", "k = f['birth'].dt.isocalendar().week"),
    ("for name, col in f.iteritems():\n    pass", "for name, col in f.items():\n    pass"),
    ("up = f['x'].is_monotonic", "up = f['x'].is_monotonic_increasing"),
])
def test_a_member_pandas_took_away_is_written_as_what_it_offers_now(code, mended):
    from shell_agent_lab.answers.program_repairs import members_respelled
    out, changed = members_respelled(code)
    assert out == mended and changed


@pytest.mark.parametrize("code", [
    "w = f.week.max()",                       # a column named week, not the datetime accessor's
    "w = f['birth'].dt.day_name()",
    "k = f['birth'].dt.isocalendar().week",
    "for name, col in f.items():\n    pass",
    "up = f['x'].is_monotonic_increasing",
])
def test_members_pandas_has_are_left_as_written(code):
    from shell_agent_lab.answers.program_repairs import members_respelled
    assert members_respelled(code) == (code, [])


def test_the_respelled_weekday_runs_and_counts_by_name():
    from shell_agent_lab.answers.program_repairs import members_respelled
    frame = pd.DataFrame({"birth": pd.to_datetime(["2024-01-01", "2024-01-08", "2024-01-03"])})
    scope = {"f": frame, "pd": pd}
    exec(members_respelled("quietest = f['birth'].dt.weekday_name.value_counts().idxmin()")[0], scope)
    assert scope["quietest"] == "Wednesday"
