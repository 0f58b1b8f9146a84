"""The answer benchmark's questions and how their reference answers are computed.

Every question names its file, its category and the parts of its answer; the prompt ends with
the closed form the answer must use (``@region[…], @revenue[…]``) and each number's rounding.
Reference answers are computed here with pandas and SciPy from
the file as :func:`~.answers_data.read_reference` reads it, never written down: change the
generator and the answers follow. Conventions stated once for all questions:

* counts count rows as the file has them, duplicates included, unless the question drops them;
* a missing value (empty, ``NA``, ``n/a``, ``-``, ``null``) is left out of every aggregate;
* standard deviations say whether they divide by n−1 (sample) or n (population); quartiles
  interpolate linearly (pandas ``quantile``, DuckDB ``quantile_cont``); skewness and kurtosis
  are the bias-corrected sample estimates (pandas ``skew``/``kurt``, DuckDB
  ``skewness``/``kurtosis``); t-tests are Welch's, two-sided; chi-square tests are Pearson's
  without continuity correction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from scipy import stats

__all__ = ["Part", "Question", "QUESTIONS", "CATEGORIES", "question", "reference_answers"]

CATEGORIES = ("counts", "filter", "groupby", "topk", "share", "dates", "central", "spread", "shape",
              "correlation", "outliers", "tests", "regression", "missing", "dedup")
Kind = Literal["int", "float", "text"]


@dataclass(frozen=True)
class Part:
    """One named part of an answer: ``@name[value]``."""

    name: str
    kind: Kind
    decimals: int = 0
    note: str = ""          # how to write it, for text parts ("the region's name")

    def instruction(self) -> str:
        if self.kind == "int":
            how = "a whole number"
        elif self.kind == "float":
            how = f"rounded to {self.decimals} decimal place{'s' if self.decimals != 1 else ''}"
        else:
            how = self.note or "as written in the data"
        if self.kind != "text" and self.note:
            how = f"{self.note}, {how}"
        return f"@{self.name}[value] ({how})"


Reference = Callable[[pd.DataFrame], Mapping[str, Any]]


@dataclass(frozen=True)
class Question:
    id: str
    file: str
    category: str
    text: str
    parts: tuple[Part, ...]
    reference: Reference

    @property
    def prompt(self) -> str:
        """What the benchmark asks: the question, then the answer's closed form."""
        forms = [p.instruction() for p in self.parts]
        joined = forms[0] if len(forms) == 1 else ", ".join(forms[:-1]) + " and " + forms[-1]
        return f"{self.text} End your answer with {joined}."


def _q(id: str, file: str, category: str, text: str, parts: Sequence[Part], reference: Reference) -> Question:
    return Question(id, file, category, " ".join(text.split()), tuple(parts), reference)


def _int(name: str, note: str = "") -> Part:
    return Part(name, "int", 0, note)


def _num(name: str, decimals: int, note: str = "") -> Part:
    return Part(name, "float", decimals, note)


def _text(name: str, note: str) -> Part:
    return Part(name, "text", 0, note)


PCT = "a percentage from 0 to 100"


# -- reference helpers ---------------------------------------------------------------------------

def _top(values: pd.Series, *, smallest: bool = False, k: int = 1) -> list[tuple[Any, float]]:
    """The ``k`` best (label, value) pairs; refuses a tie that would make the answer ambiguous."""
    ordered = values.dropna().sort_values(ascending=smallest, kind="stable")
    if len(ordered) <= k:
        raise ValueError("not enough groups for a top-k answer")
    head = list(ordered.items())[: k + 1]
    for (_, a), (_, b) in zip(head, head[1:]):
        if math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12):
            raise ValueError(f"tie in a top-k answer: {head}")
    return [(label, float(v)) for label, v in head[:k]]


def _count(mask: pd.Series) -> int:
    return int(mask.fillna(False).astype(bool).sum())


def _percent(part: float, whole: float) -> float:
    return 100.0 * part / whole


def _iqr_outliers(values: pd.Series) -> int:
    v = values.dropna()
    q1, q3 = v.quantile(.25), v.quantile(.75)
    spread = q3 - q1
    return int(((v < q1 - 1.5 * spread) | (v > q3 + 1.5 * spread)).sum())


def _z_outliers(values: pd.Series) -> int:
    v = values.dropna()
    return int(((v - v.mean()).abs() / v.std(ddof=1) > 3).sum())


def _fit(x: pd.Series, y: pd.Series) -> tuple[float, float, float]:
    """Least squares y = a + b·x over the rows where both are present: (b, a, R²)."""
    both = pd.concat([x, y], axis=1).dropna()
    xs, ys = both.iloc[:, 0].to_numpy(float), both.iloc[:, 1].to_numpy(float)
    dx, dy = xs - xs.mean(), ys - ys.mean()
    slope = float((dx * dy).sum() / (dx * dx).sum())
    r = float((dx * dy).sum() / math.sqrt((dx * dx).sum() * (dy * dy).sum()))
    return slope, float(ys.mean() - slope * xs.mean()), r * r


def _corr(x: pd.Series, y: pd.Series, method: str = "pearson") -> float:
    both = pd.concat([x, y], axis=1).dropna()
    return float(both.iloc[:, 0].corr(both.iloc[:, 1], method=method))


def _welch(a: pd.Series, b: pd.Series) -> tuple[float, float]:
    """Welch's two-sided t-test over the present values: (t, p)."""
    result = stats.ttest_ind(a.dropna().to_numpy(float), b.dropna().to_numpy(float), equal_var=False)
    return float(result.statistic), float(result.pvalue)


def _chi2(a: pd.Series, b: pd.Series) -> tuple[float, float]:
    """Pearson's chi-square test of independence, no continuity correction: (statistic, p).
    Rows whose label is missing are left out of the table."""
    result = stats.chi2_contingency(pd.crosstab(a, b).to_numpy(), correction=False)
    return float(result.statistic), float(result.pvalue)


# -- sales_orders.csv ----------------------------------------------------------------------------

def _revenue(f: pd.DataFrame) -> pd.Series:
    return f["Units"] * f["Unit Price (USD)"] * (1 - f["Discount"].fillna(0) / 100)


def _sales_busiest_month(f: pd.DataFrame) -> dict[str, Any]:
    d = f["Order Date"]
    ((month, orders),) = _top(d[d.dt.year == 2023].dt.month.value_counts())
    return {"month": int(month), "orders": int(orders)}


_SALES = "sales_orders.csv"
_sales = [
    _q("sales-01", _SALES, "counts", "How many rows are returned orders (Returned? is Yes)?",
       [_int("returned")], lambda f: {"returned": _count(f["Returned?"])}),
    _q("sales-02", _SALES, "groupby",
       "The revenue of an order is Units × Unit Price (USD) × (1 − Discount / 100); a missing Discount "
       "(empty or -) counts as 0%. Which Region has the highest total revenue, and what is that total?",
       [_text("region", "the region's name"), _num("revenue", 2)],
       lambda f: dict(zip(("region", "revenue"), _top(_revenue(f).groupby(f["Region"]).sum())[0]))),
    _q("sales-03", _SALES, "topk",
       "Which Sales Rep sold the most Units in the Technology product category, and how many units?",
       [_text("rep", "the sales rep's name"), _int("units")],
       lambda f: dict(zip(("rep", "units"), _top(
           f[f["Product Category"] == "Technology"].groupby("Sales Rep")["Units"].sum())[0]))),
    _q("sales-04", _SALES, "share", "What percentage of the rows are in the Furniture product category?",
       [_num("share", 2, PCT)],
       lambda f: {"share": _percent(_count(f["Product Category"] == "Furniture"), len(f))}),
    _q("sales-05", _SALES, "dates",
       "Order Date is written MM/DD/YYYY. In which month of 2023 were the most orders placed (counting rows), "
       "and how many?",
       [_int("month", "the month's number, 1-12"), _int("orders")], _sales_busiest_month),
    _q("sales-06", _SALES, "central", "What is the median Unit Price (USD) of the Appliances orders?",
       [_num("median", 2)],
       lambda f: {"median": f.loc[f["Product Category"] == "Appliances", "Unit Price (USD)"].median()}),
    _q("sales-07", _SALES, "dedup",
       "Some rows are exact duplicates of another row. How many rows remain after dropping exact duplicates?",
       [_int("rows")], lambda f: {"rows": len(f.drop_duplicates())}),
    _q("sales-08", _SALES, "missing", "How many rows have no Discount (the cell is empty or -)?",
       [_int("missing")], lambda f: {"missing": int(f["Discount"].isna().sum())}),
    _q("sales-09", _SALES, "filter",
       "How many rows are orders from the East region with at least 6 Units and a Unit Price (USD) above $500?",
       [_int("orders")],
       lambda f: {"orders": _count((f["Region"] == "East") & (f["Units"] >= 6) & (f["Unit Price (USD)"] > 500))}),
    _q("sales-10", _SALES, "spread",
       "What is the sample standard deviation (dividing by n − 1) of Units over the South region's rows?",
       [_num("sd", 3)], lambda f: {"sd": f.loc[f["Region"] == "South", "Units"].std(ddof=1)}),
]

# -- clinical_trial.csv --------------------------------------------------------------------------

_TRIAL = "clinical_trial.csv"


def _change(f: pd.DataFrame, arm: str) -> pd.Series:
    rows = f[f["arm"] == arm]
    return (rows["week12.sbp"] - rows["baseline.sbp"]).dropna()


def _trial_ttest(f: pd.DataFrame) -> dict[str, Any]:
    t, p = _welch(_change(f, "Drug B"), _change(f, "Placebo"))
    return {"t": t, "p": p}


def _trial_chi2(f: pd.DataFrame) -> dict[str, Any]:
    stat, p = _chi2(f["arm"], f["adverse.event"])
    return {"chi2": stat, "p": p}


def _trial_busiest_month(f: pd.DataFrame) -> dict[str, Any]:
    ((month, n),) = _top(f["enrolled"].dt.strftime("%Y-%m").value_counts())
    return {"month": month, "subjects": int(n)}


_trial = [
    _q("trial-01", _TRIAL, "counts", "How many subjects are in the Drug B arm?",
       [_int("subjects")], lambda f: {"subjects": _count(f["arm"] == "Drug B")}),
    _q("trial-02", _TRIAL, "missing",
       "week12.sbp is missing for subjects who dropped out (written NA, n/a or left empty). "
       "How many subjects have no week12.sbp?",
       [_int("missing")], lambda f: {"missing": int(f["week12.sbp"].isna().sum())}),
    _q("trial-03", _TRIAL, "central",
       "Among Drug A subjects with a week12.sbp value, what is the mean change week12.sbp − baseline.sbp?",
       [_num("change", 2)], lambda f: {"change": _change(f, "Drug A").mean()}),
    _q("trial-04", _TRIAL, "tests",
       "Run Welch's two-sample t-test (unequal variances, two-sided) on the change week12.sbp − baseline.sbp "
       "of Drug B versus Placebo, over subjects with a week12.sbp value. What are t (Drug B minus Placebo) "
       "and the p-value?",
       [_num("t", 3), _num("p", 4)], _trial_ttest),
    _q("trial-05", _TRIAL, "tests",
       "Run Pearson's chi-square test of independence between arm and adverse.event (the 3 × 2 table of "
       "counts, no continuity correction). What are the chi-square statistic and the p-value?",
       [_num("chi2", 3), _num("p", 4)], _trial_chi2),
    _q("trial-06", _TRIAL, "spread",
       "What are the sample standard deviation (dividing by n − 1) and the population standard deviation "
       "(dividing by n) of Größe (cm)?",
       [_num("sample_sd", 3), _num("population_sd", 3)],
       lambda f: {"sample_sd": f["Größe (cm)"].std(ddof=1), "population_sd": f["Größe (cm)"].std(ddof=0)}),
    _q("trial-07", _TRIAL, "correlation",
       "What is the Pearson correlation between weight.kg and Größe (cm), over the subjects where both are "
       "present (weight.kg is NA for some)?",
       [_num("r", 4)], lambda f: {"r": _corr(f["weight.kg"], f["Größe (cm)"])}),
    _q("trial-08", _TRIAL, "share",
       "Which arm has the highest percentage of subjects with an adverse event (adverse.event is Yes), and what "
       "is that percentage?",
       [_text("arm", "the arm's name"), _num("percent", 2, PCT)],
       lambda f: dict(zip(("arm", "percent"), _top(f.groupby("arm")["adverse.event"].mean() * 100)[0]))),
    _q("trial-09", _TRIAL, "dates",
       "enrolled is an ISO date. In which calendar month were the most subjects enrolled, and how many?",
       [_text("month", "the month as YYYY-MM"), _int("subjects")], _trial_busiest_month),
]

# -- housing.csv ---------------------------------------------------------------------------------

_HOUSING = "housing.csv"


def _price_fit(f: pd.DataFrame) -> tuple[float, float, float]:
    return _fit(f["Living area (sq ft)"], f["Price (USD)"])


_housing = [
    _q("housing-01", _HOUSING, "regression",
       "Fit the least-squares line Price (USD) = a + b × Living area (sq ft) over all listings. What are the "
       "slope b and the intercept a?",
       [_num("slope", 2), _num("intercept", 2)],
       lambda f: dict(zip(("slope", "intercept"), _price_fit(f)[:2]))),
    _q("housing-02", _HOUSING, "regression",
       "What is the R² (coefficient of determination) of the least-squares line of Price (USD) on "
       "Living area (sq ft), over all listings?",
       [_num("r2", 4)], lambda f: {"r2": _price_fit(f)[2]}),
    _q("housing-03", _HOUSING, "groupby",
       "Which Neighbourhood has the highest median Price (USD), and what is that median?",
       [_text("neighbourhood", "the neighbourhood's name"), _num("median", 2)],
       lambda f: dict(zip(("neighbourhood", "median"),
                          _top(f.groupby("Neighbourhood")["Price (USD)"].median())[0]))),
    _q("housing-04", _HOUSING, "outliers",
       "Using the 1.5 × IQR rule on Price (USD), with quartiles by linear interpolation (as pandas quantile() "
       "and DuckDB quantile_cont compute them), how many listings are below Q1 − 1.5·IQR or above "
       "Q3 + 1.5·IQR?",
       [_int("outliers")], lambda f: {"outliers": _iqr_outliers(f["Price (USD)"])}),
    _q("housing-05", _HOUSING, "filter",
       "How many listings have at least 4 Bedrooms, a Garage (Yes) and a Price (USD) below $400,000?",
       [_int("listings")],
       lambda f: {"listings": _count((f["Bedrooms"] >= 4) & f["Garage"] & (f["Price (USD)"] < 400_000))}),
    _q("housing-06", _HOUSING, "dates",
       "Sold on is written DD.MM.YYYY. On which day of the week were the most houses sold?",
       [_text("weekday", "the weekday's English name, e.g. Monday")],
       lambda f: {"weekday": _top(f["Sold on"].dt.day_name().value_counts())[0][0]}),
    _q("housing-07", _HOUSING, "missing",
       "Lot size (acres) is missing for some listings (written - or left empty). How many listings have no "
       "lot size, and what is the mean lot size over the listings that have one?",
       [_int("missing"), _num("mean", 3)],
       lambda f: {"missing": int(f["Lot size (acres)"].isna().sum()), "mean": f["Lot size (acres)"].mean()}),
    _q("housing-08", _HOUSING, "shape",
       "What is the sample skewness of Price (USD) (the bias-adjusted Fisher–Pearson coefficient, as pandas "
       "skew() and DuckDB skewness() compute it)?",
       [_num("skewness", 4)], lambda f: {"skewness": f["Price (USD)"].skew()}),
    _q("housing-09", _HOUSING, "central",
       "Each listing's price per square foot is Price (USD) ÷ Living area (sq ft). What is the mean price per "
       "square foot over all listings?",
       [_num("mean", 2)], lambda f: {"mean": (f["Price (USD)"] / f["Living area (sq ft)"]).mean()}),
]

# -- employees.csv -------------------------------------------------------------------------------

_HR = "employees.csv"


def _remote_ttest(f: pd.DataFrame) -> dict[str, Any]:
    support = f[f["Department"] == "Support"]
    salary = support["Annual salary"]
    remote = support["Remote?"] == True          # noqa: E712 (a nullable boolean column)
    return {"p": _welch(salary[remote], salary[~remote])[1]}


_hr = [
    _q("hr-01", _HR, "groupby",
       "Which Department has the highest mean Annual salary (missing salaries, written null or left empty, "
       "ignored), and what is that mean?",
       [_text("department", "the department's name"), _num("mean", 2)],
       lambda f: dict(zip(("department", "mean"), _top(f.groupby("Department")["Annual salary"].mean())[0]))),
    _q("hr-02", _HR, "dates", "Hire date is an ISO date. How many employees were hired in 2019?",
       [_int("hired")], lambda f: {"hired": _count(f["Hire date"].dt.year == 2019)}),
    _q("hr-03", _HR, "share", "What percentage of the Engineering employees work remotely (Remote? is Yes)?",
       [_num("percent", 2, PCT)],
       lambda f: {"percent": 100 * f.loc[f["Department"] == "Engineering", "Remote?"].mean()}),
    _q("hr-04", _HR, "spread",
       "What is the sample standard deviation (dividing by n − 1) of Annual salary for Job level L3, "
       "ignoring missing salaries?",
       [_num("sd", 2)], lambda f: {"sd": f.loc[f["Job level"] == "L3", "Annual salary"].std(ddof=1)}),
    _q("hr-05", _HR, "correlation",
       "What is the Spearman rank correlation between Performance (1-5) and Satisfaction (1–10) (the Pearson "
       "correlation of their ranks, tied values getting their average rank)?",
       [_num("rho", 4)], lambda f: {"rho": _corr(f["Performance (1-5)"], f["Satisfaction (1–10)"], "spearman")}),
    _q("hr-06", _HR, "topk", "Which three Offices have the most employees, from the most to the fewest?",
       [_text("first", "an office name"), _text("second", "an office name"), _text("third", "an office name")],
       lambda f: dict(zip(("first", "second", "third"),
                          (label for label, _ in _top(f["Office"].value_counts(), k=3))))),
    _q("hr-07", _HR, "missing", "How many employees have no Annual salary (written null or left empty)?",
       [_int("missing")], lambda f: {"missing": int(f["Annual salary"].isna().sum())}),
    _q("hr-08", _HR, "outliers",
       "For the employees with an Annual salary, compute z = (salary − mean) / sample standard deviation "
       "(dividing by n − 1). How many have |z| > 3?",
       [_int("outliers")], lambda f: {"outliers": _z_outliers(f["Annual salary"])}),
    _q("hr-09", _HR, "tests",
       "In the Support department, run Welch's t-test (two-sided, unequal variances) comparing Annual salary "
       "of remote employees (Remote? is Yes) with the others, ignoring missing salaries. What is the p-value?",
       [_num("p", 4)], _remote_ttest),
]

# -- web_sessions.csv ----------------------------------------------------------------------------

_WEB = "web_sessions.csv"


def _busiest_hour(f: pd.DataFrame) -> dict[str, Any]:
    ((hour, n),) = _top(f["Start time"].dt.hour.value_counts())
    return {"hour": int(hour), "sessions": int(n)}


_web = [
    _q("web-01", _WEB, "share", "What percentage of the Mobile sessions converted (Converted is Yes)?",
       [_num("percent", 2, PCT)],
       lambda f: {"percent": 100 * f.loc[f["Device"] == "Mobile", "Converted"].mean()}),
    _q("web-02", _WEB, "dates",
       "Start time is written YYYY-MM-DD HH:MM:SS. In which hour of the day did the most sessions start "
       "(counting rows), and how many?",
       [_int("hour", "0-23"), _int("sessions")], _busiest_hour),
    _q("web-03", _WEB, "dates", "How many rows are sessions that started on a Saturday or a Sunday?",
       [_int("sessions")], lambda f: {"sessions": _count(f["Start time"].dt.day_of_week >= 5)}),
    _q("web-04", _WEB, "central", "What is the median Duration (s) of the bounced sessions (Bounced is Yes)?",
       [_num("median", 1)], lambda f: {"median": f.loc[f["Bounced"] == True, "Duration (s)"].median()}),  # noqa: E712
    _q("web-05", _WEB, "groupby",
       "Among the converted sessions, which utm.source has the highest average Order value, and what is it?",
       [_text("source", "the utm.source value"), _num("average", 2)],
       lambda f: dict(zip(("source", "average"), _top(
           f[f["Converted"] == True].groupby("utm.source")["Order value"].mean())[0]))),  # noqa: E712
    _q("web-06", _WEB, "tests",
       "Run Pearson's chi-square test of independence between Device and Converted (the 3 × 2 table of counts, "
       "no continuity correction). What is the p-value?",
       [_num("p", 4)], lambda f: {"p": _chi2(f["Device"], f["Converted"])[1]}),
    _q("web-07", _WEB, "correlation", "What is the Pearson correlation between Pages/visit and Duration (s)?",
       [_num("r", 4)], lambda f: {"r": _corr(f["Pages/visit"], f["Duration (s)"])}),
    _q("web-08", _WEB, "filter",
       "How many rows are sessions from Deutschland in Firefox that viewed more than 3 pages (Pages/visit)?",
       [_int("sessions")],
       lambda f: {"sessions": _count((f["Country"] == "Deutschland") & (f["Browser"] == "Firefox")
                                     & (f["Pages/visit"] > 3))}),
    _q("web-09", _WEB, "dedup", "Some rows are duplicated. How many distinct session_id values are there?",
       [_int("sessions")], lambda f: {"sessions": int(f["session_id"].nunique())}),
]

# -- weather_daily.csv ---------------------------------------------------------------------------

_WEATHER = "weather_daily.csv"


def _station(f: pd.DataFrame, name: str) -> pd.DataFrame:
    return f[f["Station"] == name]


def _wettest_month(f: pd.DataFrame) -> dict[str, Any]:
    ((month, total),) = _top(f.groupby(f["Date"].dt.month)["Precip. (mm)"].sum())
    return {"month": int(month), "total": total}


def _temp_fit(f: pd.DataFrame) -> dict[str, Any]:
    slope, _, r2 = _fit(f["Temp.max (°C)"], f["Temp.min (°C)"])
    return {"slope": slope, "r2": r2}


_weather = [
    _q("weather-01", _WEATHER, "dates", "What was the average Temp.max (°C) at Zürich-Fluntern in July 2021?",
       [_num("mean", 2)],
       lambda f: {"mean": _station(f, "Zürich-Fluntern").pipe(
           lambda s: s.loc[s["Date"].dt.month == 7, "Temp.max (°C)"].mean())}),
    _q("weather-02", _WEATHER, "topk",
       "Which Station had the highest total Precip. (mm) in 2021 (missing values, written - or left empty, "
       "ignored), and what was that total?",
       [_text("station", "the station's name"), _num("total", 1)],
       lambda f: dict(zip(("station", "total"), _top(f.groupby("Station")["Precip. (mm)"].sum())[0]))),
    _q("weather-03", _WEATHER, "counts", "On how many days was Temp.min (°C) below 0 at Oslo-Blindern?",
       [_int("days")], lambda f: {"days": _count(_station(f, "Oslo-Blindern")["Temp.min (°C)"] < 0)}),
    _q("weather-04", _WEATHER, "correlation",
       "What is the Pearson correlation between Temp.max (°C) and Humidity % over all rows?",
       [_num("r", 4)], lambda f: {"r": _corr(f["Temp.max (°C)"], f["Humidity %"])}),
    _q("weather-05", _WEATHER, "shape",
       "What is the excess kurtosis of Wind (km/h) over all rows (the bias-corrected sample estimate, as pandas "
       "kurt() and DuckDB kurtosis() compute it)?",
       [_num("kurtosis", 4)], lambda f: {"kurtosis": f["Wind (km/h)"].kurt()}),
    _q("weather-06", _WEATHER, "missing", "How many rows have no Precip. (mm) value (written - or left empty)?",
       [_int("missing")], lambda f: {"missing": int(f["Precip. (mm)"].isna().sum())}),
    _q("weather-07", _WEATHER, "spread",
       "What is the interquartile range (Q3 − Q1, quartiles by linear interpolation) of Temp.min (°C) at Kraków?",
       [_num("iqr", 2)],
       lambda f: {"iqr": _station(f, "Kraków")["Temp.min (°C)"].pipe(lambda s: s.quantile(.75) - s.quantile(.25))}),
    _q("weather-08", _WEATHER, "dates",
       "Which month had the highest total Precip. (mm) summed over all stations, and what was that total?",
       [_int("month", "the month's number, 1-12"), _num("total", 1)], _wettest_month),
    _q("weather-09", _WEATHER, "regression",
       "Fit the least-squares line Temp.min (°C) = a + b × Temp.max (°C) over all rows. What are the slope b "
       "and the R²?",
       [_num("slope", 4), _num("r2", 4)], _temp_fit),
]

# -- survey_responses.csv ------------------------------------------------------------------------

_SURVEY = "survey_responses.csv"
_Q1, _Q2, _Q3, _Q4 = ("Q1. Overall satisfaction (1-5)", "Q2. Would recommend?", "Q3. importance.score",
                      "Q4. Monthly spend (€)")

_survey = [
    _q("survey-01", _SURVEY, "central", f"What is the mean {_Q1} of the respondents in Age group 25-34?",
       [_num("mean", 3)], lambda f: {"mean": f.loc[f["Age group"] == "25-34", _Q1].mean()}),
    _q("survey-02", _SURVEY, "share",
       f"Among the respondents who answered {_Q2} with Yes or No (n/a left out), what percentage said Yes?",
       [_num("percent", 2, PCT)], lambda f: {"percent": 100 * f[_Q2].dropna().mean()}),
    _q("survey-03", _SURVEY, "tests",
       f"Run Pearson's chi-square test of independence between Age group and {_Q2} (Yes or No; n/a left out: "
       "a 5 × 2 table of counts, no continuity correction). What is the p-value?",
       [_num("p", 4)], lambda f: {"p": _chi2(f["Age group"], f[_Q2])[1]}),
    _q("survey-04", _SURVEY, "correlation",
       f"What is the Spearman rank correlation between {_Q1} and {_Q3} over the respondents with both? {_Q3} "
       "is missing when written -, n/a or left empty; tied values get their average rank.",
       [_num("rho", 4)], lambda f: {"rho": _corr(f[_Q1], f[_Q3], "spearman")}),
    _q("survey-05", _SURVEY, "groupby",
       f"Which Income bracket has the highest median {_Q4}, and what is that median?",
       [_text("bracket", "the bracket as written in the data"), _num("median", 2)],
       lambda f: dict(zip(("bracket", "median"), _top(f.groupby("Income bracket")[_Q4].median())[0]))),
    _q("survey-06", _SURVEY, "dates",
       "Submitted is written DD.MM.YYYY. How many rows are responses submitted in March 2021?",
       [_int("responses")],
       lambda f: {"responses": _count((f["Submitted"].dt.year == 2021) & (f["Submitted"].dt.month == 3))}),
    _q("survey-07", _SURVEY, "missing",
       f"{_Q3} is missing when written -, n/a or left empty. How many rows miss it, and what is its mean over "
       "the rows that have it?",
       [_int("missing"), _num("mean", 3)],
       lambda f: {"missing": int(f[_Q3].isna().sum()), "mean": f[_Q3].mean()}),
    _q("survey-08", _SURVEY, "dedup", "How many rows are exact duplicates of an earlier row?",
       [_int("duplicates")], lambda f: {"duplicates": int(f.duplicated().sum())}),
    _q("survey-09", _SURVEY, "shape",
       f"What is the sample skewness of {_Q4} (the bias-adjusted Fisher–Pearson coefficient, as pandas skew() "
       "and DuckDB skewness() compute it)?",
       [_num("skewness", 4)], lambda f: {"skewness": f[_Q4].skew()}),
]

# -- shipments.csv -------------------------------------------------------------------------------

_SHIP = "shipments.csv"
_DELIVERY = ("Delivery time is Delivered − Ship date in days (both written MM/DD/YYYY; shipments without a "
             "Delivered date, empty or -, are left out).")


def _delivery_days(f: pd.DataFrame) -> pd.Series:
    return (f["Delivered"] - f["Ship date"]).dt.days


def _carrier_ttest(f: pd.DataFrame) -> dict[str, Any]:
    days = _delivery_days(f)
    return {"p": _welch(days[f["Carrier"] == "FedEx"], days[f["Carrier"] == "DHL"])[1]}


def _cost_fit(f: pd.DataFrame) -> dict[str, Any]:
    slope, intercept, _ = _fit(f["Weight (kg)"], f["Cost"])
    return {"slope": slope, "intercept": intercept}


_ship = [
    _q("ship-01", _SHIP, "groupby",
       f"{_DELIVERY} Which Carrier has the shortest mean delivery time, and what is it?",
       [_text("carrier", "the carrier's name"), _num("days", 2)],
       lambda f: dict(zip(("carrier", "days"), _top(_delivery_days(f).groupby(f["Carrier"]).mean(),
                                                    smallest=True)[0]))),
    _q("ship-02", _SHIP, "share", "What percentage of the Express shipments (Service level) were On time?",
       [_num("percent", 2, PCT)],
       lambda f: {"percent": 100 * f.loc[f["Service level"] == "Express", "On time"].mean()}),
    _q("ship-03", _SHIP, "regression",
       "Fit the least-squares line Cost = a + b × Weight (kg) over all shipments. What are the slope b and "
       "the intercept a?",
       [_num("slope", 4), _num("intercept", 2)], _cost_fit),
    _q("ship-04", _SHIP, "outliers",
       "How many shipments have a Weight (kg) whose z-score (from the mean and the sample standard deviation, "
       "dividing by n − 1) is above 3 in absolute value?",
       [_int("outliers")], lambda f: {"outliers": _z_outliers(f["Weight (kg)"])}),
    _q("ship-05", _SHIP, "missing", "How many shipments have no Delivered date (empty or -)?",
       [_int("missing")], lambda f: {"missing": int(f["Delivered"].isna().sum())}),
    _q("ship-06", _SHIP, "topk", "Which two Destinations have the highest total Cost, the highest first?",
       [_text("first", "a destination"), _text("second", "a destination")],
       lambda f: dict(zip(("first", "second"),
                          (label for label, _ in _top(f.groupby("Destination")["Cost"].sum(), k=2))))),
    _q("ship-07", _SHIP, "filter",
       "How many damaged shipments (Damaged? is Yes) carried by UPS weighed more than 50 kg?",
       [_int("shipments")],
       lambda f: {"shipments": _count(f["Damaged?"] & (f["Carrier"] == "UPS") & (f["Weight (kg)"] > 50))}),
    _q("ship-08", _SHIP, "tests",
       f"{_DELIVERY} Run Welch's t-test (two-sided, unequal variances) comparing the delivery time of FedEx "
       "with that of DHL. What is the p-value?",
       [_num("p", 4)], _carrier_ttest),
    _q("ship-09", _SHIP, "dates",
       "Ship date is written MM/DD/YYYY. On which day of the week were the most shipments sent?",
       [_text("weekday", "the weekday's English name, e.g. Monday")],
       lambda f: {"weekday": _top(f["Ship date"].dt.day_name().value_counts())[0][0]}),
]

# -- malaria_estimates.csv -----------------------------------------------------------------------

_MALARIA = "malaria_estimates.csv"
_POINT = ("No. of cases and No. of deaths hold a point estimate followed by its uncertainty range in "
          "brackets, e.g. 630308[495000-801000]: use the point estimate; - means missing.")

_malaria = [
    _q("malaria-01", _MALARIA, "groupby",
       f"{_POINT} Which WHO region had the most cases in 2020, and how many (the sum of the point estimates)?",
       [_text("region", "the WHO region code"), _int("cases")],
       lambda f: dict(zip(("region", "cases"), (lambda r: (r[0], int(r[1])))(
           _top(f[f["Year"] == 2020].groupby("WHO region")["No. of cases"].sum())[0])))),
    _q("malaria-02", _MALARIA, "topk",
       f"{_POINT} Which Country has the most deaths summed over all years and age groups, and how many?",
       [_text("country", "the country's name"), _int("deaths")],
       lambda f: dict(zip(("country", "deaths"), (lambda r: (r[0], int(r[1])))(
           _top(f.groupby("Country")["No. of deaths"].sum())[0])))),
    _q("malaria-03", _MALARIA, "central",
       "Incidence per 1000 sometimes carries a footnote marker * after the number (ignore the marker). What is "
       "the median Incidence per 1000 over the rows of Year 2015?",
       [_num("median", 2)], lambda f: {"median": f.loc[f["Year"] == 2015, "Incidence per 1000"].median()}),
    _q("malaria-04", _MALARIA, "filter", "How many rows have Reported? = No and a Year of 2015 or later?",
       [_int("rows")], lambda f: {"rows": _count((f["Reported?"] == False) & (f["Year"] >= 2015))}),  # noqa: E712
    _q("malaria-05", _MALARIA, "share",
       f"{_POINT} What percentage of all deaths (the sum of the point estimates over all rows) are in "
       "Age group <5?",
       [_num("percent", 2, PCT)],
       lambda f: {"percent": _percent(f.loc[f["Age group"] == "<5", "No. of deaths"].sum(),
                                      f["No. of deaths"].sum())}),
    _q("malaria-06", _MALARIA, "dates",
       f"{_POINT} In which Year was the total number of cases (all countries and age groups) the highest?",
       [_int("year")], lambda f: {"year": int(_top(f.groupby("Year")["No. of cases"].sum())[0][0])}),
    _q("malaria-07", _MALARIA, "correlation",
       f"{_POINT} What is the Pearson correlation between the cases and deaths point estimates, over the rows "
       "where both are present?",
       [_num("r", 4)], lambda f: {"r": _corr(f["No. of cases"], f["No. of deaths"])}),
    _q("malaria-08", _MALARIA, "spread",
       "Incidence per 1000 sometimes carries a footnote marker * after the number (ignore the marker). What is "
       "the sample standard deviation (dividing by n − 1) of Incidence per 1000 in WHO region AFR?",
       [_num("sd", 2)], lambda f: {"sd": f.loc[f["WHO region"] == "AFR", "Incidence per 1000"].std(ddof=1)}),
    _q("malaria-09", _MALARIA, "counts", "How many distinct countries are in the table?",
       [_int("countries")], lambda f: {"countries": int(f["Country"].nunique())}),
]

# -- district_cases_wide.csv ---------------------------------------------------------------------

_WIDE = "district_cases_wide.csv"
_MONTH_COLUMNS = [f"{m}.2020" for m in ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                        "Nov", "Dec")]
_COUNTS = ("Case counts are written with thousands separators, some with a footnote marker * after the "
           "number (ignore the marker); - or an empty cell means missing.")


def _month_fit(f: pd.DataFrame) -> dict[str, Any]:
    slope, _, r2 = _fit(f["Mar.2020"], f["Apr.2020"])
    return {"slope": slope, "r2": r2}


_wide = [
    _q("wide-01", _WIDE, "counts", f"{_COUNTS} How many rows have more than 1,000 cases in Mar.2020?",
       [_int("districts")], lambda f: {"districts": _count(f["Mar.2020"] > 1000)}),
    _q("wide-02", _WIDE, "groupby",
       f"{_COUNTS} Which Province has the highest total of Mar.2020 cases, and what is that total?",
       [_text("province", "the province's name"), _int("total")],
       lambda f: dict(zip(("province", "total"), (lambda r: (r[0], int(r[1])))(
           _top(f.groupby("Province")["Mar.2020"].sum())[0])))),
    _q("wide-03", _WIDE, "dates",
       f"{_COUNTS} Which month column of 2020 (Jan.2020 to Dec.2020) has the largest total over all rows?",
       [_text("month", "the column's name, e.g. Jan.2020")],
       lambda f: {"month": _top(f[_MONTH_COLUMNS].sum())[0][0]}),
    _q("wide-04", _WIDE, "missing",
       f"{_COUNTS} How many rows miss at least one of the twelve monthly values Jan.2020 to Dec.2020?",
       [_int("rows")], lambda f: {"rows": int(f[_MONTH_COLUMNS].isna().any(axis=1).sum())}),
    _q("wide-05", _WIDE, "central", f"{_COUNTS} What is the mean of 2019 total over all rows?",
       [_num("mean", 2)], lambda f: {"mean": f["2019 total"].mean()}),
    _q("wide-06", _WIDE, "regression",
       f"{_COUNTS} Fit the least-squares line Apr.2020 = a + b × Mar.2020 over the rows where both are present. "
       "What are the slope b and the R²?",
       [_num("slope", 4), _num("r2", 4)], _month_fit),
    _q("wide-07", _WIDE, "share",
       f"{_COUNTS} What percentage of the sum of 2019 total over all rows comes from the Coastal province?",
       [_num("percent", 2, PCT)],
       lambda f: {"percent": _percent(f.loc[f["Province"] == "Coastal", "2019 total"].sum(), f["2019 total"].sum())}),
    _q("wide-08", _WIDE, "outliers",
       f"{_COUNTS} Using the 1.5 × IQR rule on 2019 total (quartiles by linear interpolation), how many rows are "
       "below Q1 − 1.5·IQR or above Q3 + 1.5·IQR?",
       [_int("outliers")], lambda f: {"outliers": _iqr_outliers(f["2019 total"])}),
    _q("wide-09", _WIDE, "dedup",
       "Some rows are exact duplicates of another row. How many rows remain after dropping exact duplicates?",
       [_int("rows")], lambda f: {"rows": len(f.drop_duplicates())}),
]

QUESTIONS: tuple[Question, ...] = tuple(_sales + _trial + _housing + _hr + _web + _weather + _survey + _ship
                                        + _malaria + _wide)


def question(question_id: str) -> Question:
    for q in QUESTIONS:
        if q.id == question_id:
            return q
    raise KeyError(f"no question {question_id!r}")


def reference_answers(q: Question, frame: pd.DataFrame) -> dict[str, Any]:
    """The question's expected parts: text as ``str``, counts as ``int``, the rest as ``float``."""
    raw = dict(q.reference(frame))
    if set(raw) != {p.name for p in q.parts}:
        raise ValueError(f"{q.id}: the reference gave {sorted(raw)}, the question asks {[p.name for p in q.parts]}")
    out: dict[str, Any] = {}
    for part in q.parts:
        value = raw[part.name]
        if part.kind == "text":
            out[part.name] = str(value)
        elif part.kind == "int":
            if float(value) != int(value):
                raise ValueError(f"{q.id}: {part.name} should be a whole number, got {value!r}")
            out[part.name] = int(value)
        else:
            number = float(value)
            if not np.isfinite(number):
                raise ValueError(f"{q.id}: {part.name} is not finite ({value!r})")
            out[part.name] = number
    return out
