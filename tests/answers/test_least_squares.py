"""scikit-learn's LinearRegression and metrics as numpy stand-ins: the same numbers, and only
the imports that have a stand-in are taken out of a program."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from shell_agent_lab.answers.least_squares import (LinearRegression, import_line, mean_absolute_error,
                                                   mean_squared_error, r2_score, stand_ins)
from shell_agent_lab.answers.program_run import run_program

X = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [2.0, 1, 4, 3, 6, 5]})
Y = pd.Series([3.0, 4.1, 8.2, 8.9, 13.1, 13.8])


def test_one_feature_matches_linregress():
    fit = stats.linregress(X["a"], Y)
    model = LinearRegression().fit(X[["a"]], Y)
    assert model.coef_[0] == pytest.approx(fit.slope) and model.intercept_ == pytest.approx(fit.intercept)
    assert model.score(X[["a"]], Y) == pytest.approx(fit.rvalue ** 2)


def test_several_features_match_numpy_least_squares():
    design = np.column_stack([np.ones(6), X.to_numpy()])
    want = np.linalg.lstsq(design, Y.to_numpy(), rcond=None)[0]
    model = LinearRegression().fit(X, Y)
    assert [model.intercept_, *model.coef_] == pytest.approx(list(want))
    guess = model.predict(X)
    assert mean_squared_error(Y, guess) == pytest.approx(float(((Y - guess) ** 2).mean()))
    assert mean_absolute_error(Y, guess) == pytest.approx(float((Y - guess).abs().mean()))
    assert r2_score(Y, guess) == pytest.approx(model.score(X, Y))
    assert LinearRegression(fit_intercept=False).fit(X[["a"]], Y).intercept_ == 0.0


@pytest.mark.parametrize("features, target, message", [
    (X["a"], Y, "use df[['column']]"),
    (pd.DataFrame({"a": [1.0, None, 3]}), [1, 2, 3], "drop the rows with missing values"),
    (X[["a"]], Y[:3], "X has 6 rows but y has 3"),
])
def test_bad_input_says_what_to_do(features, target, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        LinearRegression().fit(features, target)


def test_only_imports_with_a_stand_in_are_taken_out():
    code = ("import pandas as pd\nfrom sklearn.linear_model import LinearRegression as LR\n"
            "from sklearn.metrics import r2_score, mean_squared_error\nprint(1)")
    rewritten, names = stand_ins(code)
    assert rewritten == "import pandas as pd\n\n\nprint(1)"          # the lines stay: error line numbers hold
    assert sorted(names) == ["LR", "mean_squared_error", "r2_score"]
    assert import_line(names) == ("from shell_agent_lab.answers.least_squares import "
                                  "LinearRegression as LR, mean_squared_error, r2_score")
    for other in ("from sklearn.cluster import KMeans", "from sklearn.linear_model import LinearRegression, Ridge",
                  "import sklearn"):
        assert stand_ins(other) == (other, {})


def test_the_runner_still_refuses_the_rest_of_scikit_learn():
    run = run_program("from sklearn.cluster import KMeans\nprint(1)", {"df": X})
    assert not run.ok and "sklearn" in (run.error or "") + " ".join(getattr(run, "refused", []) or [])
