"""The held-out set's questions and how their reference answers are computed.

Two styles, five of each per file:

* ``closed`` — the question, its constraints, and the ``@name[value]`` form the result must be
  put in (scored by ``answers_score.score_answer``, like the development set);
* ``natural`` — a question as a user would type it, ending by asking for a final line
  ``Answer: <value>``: yes/no, a category, a number or a list (scored by
  ``heldout_score.score_natural``).

References are computed with pandas and SciPy from the file as
:func:`~.heldout_data.read_reference` reads it; a reference whose answer would hang on a tie
refuses (raises). Wording, files and column names share nothing with the development set.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Literal, Sequence

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["Slot", "Reply", "HeldoutQuestion", "HELDOUT", "HELDOUT_CATEGORIES", "heldout_question",
           "heldout_reference"]

HELDOUT_CATEGORIES = ("counts", "filter", "groupby", "topk", "share", "quantile", "spread", "correlation",
                      "tests", "outliers", "derived", "dates", "missing", "dedup", "regression")
Style = Literal["closed", "natural"]


@dataclass(frozen=True)
class Slot:
    """One ``@name[value]`` slot of a closed-form answer (duck-compatible with the dev ``Part``)."""

    name: str
    kind: Literal["int", "float", "text"]
    decimals: int = 0
    how: str = ""

    def describe(self) -> str:
        if self.kind == "int":
            return f"{self.name} as an integer"
        if self.kind == "float":
            return f"{self.name} to {self.decimals} decimals" + (f" ({self.how})" if self.how else "")
        return f"{self.name} as {self.how or 'it is written in the file'}"


@dataclass(frozen=True)
class Reply:
    """What a natural question's ``Answer:`` line must hold."""

    kind: Literal["yesno", "category", "number", "list"]
    decimals: int | None = None              # numbers: the precision asked (0: a whole number)
    tolerance: float | None = None           # numbers: an absolute tolerance instead
    ordered: bool = False                    # lists: the order matters

    def ask(self, what: str = "") -> str:
        if self.kind == "yesno":
            return "Close with a final line reading `Answer: yes` or `Answer: no`."
        if self.kind == "category":
            return f"Close with a final line `Answer: <{what or 'the value'}>`."
        if self.kind == "number":
            if self.decimals == 0:
                return "Close with a final line `Answer: <the count>`, a whole number."
            return f"Close with a final line `Answer: <the number>`, to {self.decimals} decimals."
        order = "in that order" if self.ordered else "in any order"
        return f"Close with a final line `Answer: <{what or 'the items'}>`, separated by commas, {order}."


Reference = Callable[[pd.DataFrame], Any]


@dataclass(frozen=True)
class HeldoutQuestion:
    id: str
    file: str
    category: str
    style: Style
    text: str
    reference: Reference
    parts: tuple[Slot, ...] = ()           # closed
    reply: Reply | None = None             # natural
    what: str = ""                         # natural: what the answer names

    @property
    def prompt(self) -> str:
        if self.style == "closed":
            forms = " ".join(f"@{s.name}[value]" for s in self.parts)
            hows = "; ".join(s.describe() for s in self.parts)
            return f"{self.text} Put the result in the form {forms}, with {hows}."
        assert self.reply is not None
        return f"{self.text} {self.reply.ask(self.what)}"


def _closed(id: str, file: str, category: str, text: str, slots: Sequence[Slot], ref: Reference) -> HeldoutQuestion:
    return HeldoutQuestion(id, file, category, "closed", " ".join(text.split()), ref, parts=tuple(slots))


def _natural(id: str, file: str, category: str, text: str, reply: Reply, ref: Reference,
             what: str = "") -> HeldoutQuestion:
    return HeldoutQuestion(id, file, category, "natural", " ".join(text.split()), ref, reply=reply, what=what)


def _i(name: str) -> Slot:
    return Slot(name, "int")


def _f(name: str, decimals: int, how: str = "") -> Slot:
    return Slot(name, "float", decimals, how)


def _t(name: str, how: str) -> Slot:
    return Slot(name, "text", 0, how)


YES_NO = Reply("yesno")
COUNT = Reply("number", 0)


def _number(decimals: int) -> Reply:
    return Reply("number", decimals)


CATEGORY = Reply("category")


def _items(ordered: bool) -> Reply:
    return Reply("list", ordered=ordered)


# -- reference helpers (refuse ties) ---------------------------------------------------------------

def _rank(values: pd.Series, *, k: int = 1, lowest: bool = False) -> list[Any]:
    """The labels of the ``k`` highest (or lowest) values; refuses a tie at or next to the cut."""
    ordered = values.dropna().sort_values(ascending=lowest, kind="stable")
    if len(ordered) <= k:
        raise ValueError("too few groups to rank")
    head = list(ordered.items())[: k + 1]
    for (_, a), (_, b) in zip(head, head[1:]):
        if math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12):
            raise ValueError(f"a tie decides the ranking: {head}")
    return [label for label, _ in head[:k]]


def _best(values: pd.Series, *, lowest: bool = False) -> tuple[Any, float]:
    (label,) = _rank(values, lowest=lowest)
    return label, float(values[label])


def _n(mask: pd.Series) -> int:
    return int(mask.fillna(False).astype(bool).sum())


def _pairs(x: pd.Series, y: pd.Series) -> pd.DataFrame:
    return pd.concat([x.rename("x"), y.rename("y")], axis=1).dropna()


def _r(x: pd.Series, y: pd.Series, method: str = "pearson") -> float:
    both = _pairs(x, y)
    return float(both["x"].corr(both["y"], method=method))


def _strongest(frame: pd.DataFrame, target: str, candidates: Sequence[str], method: str = "pearson") -> tuple[str, float]:
    values = pd.Series({c: _r(frame[c], frame[target], method) for c in candidates})
    label, _ = _best(values.abs())
    return str(label), float(values[label])


def _ols(x: pd.Series, y: pd.Series) -> tuple[float, float, float]:
    both = _pairs(x, y)
    fit = stats.linregress(both["x"].to_numpy(float), both["y"].to_numpy(float))
    return float(fit.slope), float(fit.intercept), float(fit.rvalue) ** 2


def _welch(a: pd.Series, b: pd.Series, alternative: str = "two-sided") -> tuple[float, float]:
    result = stats.ttest_ind(a.dropna().to_numpy(float), b.dropna().to_numpy(float), equal_var=False,
                             alternative=alternative)
    return float(result.statistic), float(result.pvalue)


def _chi_square(a: pd.Series, b: pd.Series) -> tuple[float, float, int]:
    result = stats.chi2_contingency(pd.crosstab(a, b).to_numpy(), correction=False)
    return float(result.statistic), float(result.pvalue), int(result.dof)


def _anova(values: pd.Series, groups: pd.Series) -> tuple[float, float]:
    samples = [v.dropna().to_numpy(float) for _, v in values.groupby(groups)]
    result = stats.f_oneway(*samples)
    return float(result.statistic), float(result.pvalue)


def _zscore_count(values: pd.Series, threshold: float, ddof: int = 1) -> int:
    v = values.dropna()
    return int(((v - v.mean()).abs() / v.std(ddof=ddof) > threshold).sum())


def _fences(values: pd.Series, k: float) -> tuple[float, float]:
    v = values.dropna()
    q1, q3 = float(v.quantile(.25)), float(v.quantile(.75))
    return q1 - k * (q3 - q1), q3 + k * (q3 - q1)


def _decision(p: float, alpha: float) -> bool:
    """The test's verdict; refuses a p-value too close to the threshold to be a fair question."""
    if 0.5 * alpha < p < 2 * alpha:
        raise ValueError(f"p = {p:.4g} is too close to alpha = {alpha}")
    return p < alpha


# -- meter_readings_2023.csv -----------------------------------------------------------------------

_MT = "meter_readings_2023.csv"
_KWH = ("reading_kwh_peak", "reading_kwh_offpeak", "reading_kwh_shoulder")

_meters = [
    _closed("mt-01", _MT, "groupby",
            "Taking reading_kwh_total per row (N/A, -- and blank cells are missing and left out), which "
            "tariff_code has the largest average reading_kwh_total, and what is that average?",
            [_t("tariff", "the tariff code"), _f("avg_kwh", 2)],
            lambda f: dict(zip(("tariff", "avg_kwh"), _best(f.groupby("tariff_code")["reading_kwh_total"].mean())))),
    _closed("mt-02", _MT, "correlation",
            "Compute Pearson's r between outdoor_temp_c_avg and reading_kwh_total using only the rows where both "
            "values are present.",
            [_f("r", 4)], lambda f: {"r": _r(f["outdoor_temp_c_avg"], f["reading_kwh_total"])}),
    _closed("mt-03", _MT, "dates",
            "read_ts holds timestamps such as 2023-03-27T21:40. Count the readings taken at night, meaning the "
            "hour of read_ts is 22, 23, or 0 through 5.",
            [_i("night_reads")], lambda f: {"night_reads": _n(f["read_ts"].dt.hour.isin([22, 23, 0, 1, 2, 3, 4, 5]))}),
    _closed("mt-04", _MT, "outliers",
            "Standardise demand_kw_max with its mean and its sample standard deviation (ddof = 1) and flag the "
            "rows whose absolute z-score is greater than 3. How many rows are flagged?",
            [_i("flagged")], lambda f: {"flagged": _zscore_count(f["demand_kw_max"], 3, 1)}),
    _closed("mt-05", _MT, "share",
            "Over the whole file, add up reading_kwh_peak, reading_kwh_offpeak and reading_kwh_shoulder. What "
            "percentage of that grand total is off-peak energy?",
            [_f("offpeak_pct", 2, "a percentage between 0 and 100")],
            lambda f: {"offpeak_pct": 100 * f["reading_kwh_offpeak"].sum() / f[list(_KWH)].sum().sum()}),
    _natural("mt-06", _MT, "missing",
             "Looking only at the meters with has_solar = Y, how many of their rows are missing the "
             "export_kwh_solar figure (it shows up as -- in the export)?",
             COUNT, lambda f: _n(f["has_solar"].fillna(False) & f["export_kwh_solar"].isna())),
    _natural("mt-07", _MT, "dedup",
             "I suspect some meter readings were exported twice. How many rows are exact copies of a row "
             "that appears earlier in the file?",
             COUNT, lambda f: int(f.duplicated().sum())),
    _natural("mt-08", _MT, "tests",
             "Is average consumption (reading_kwh_total) different for the E7 tariff than for STD? Check it "
             "with Welch's t-test, two-sided, at the 5% significance level, skipping rows with no total.",
             YES_NO, lambda f: _decision(_welch(f.loc[f["tariff_code"] == "E7", "reading_kwh_total"],
                                                f.loc[f["tariff_code"] == "STD", "reading_kwh_total"])[1], .05)),
    _natural("mt-09", _MT, "topk",
             "Which three site_code values account for the biggest total billing in bill_amount_gbp (amounts "
             "look like £1,234.56)? Largest first.",
             _items(True), lambda f: [str(s) for s in _rank(f.groupby("site_code")["bill_amount_gbp"].sum(), k=3)],
             what="three site codes"),
    _natural("mt-10", _MT, "regression",
             "If I regress bill_amount_gbp on reading_kwh_total by ordinary least squares (rows with both "
             "values), what is the slope in pounds per kWh?",
             _number(4), lambda f: _ols(f["reading_kwh_total"], f["bill_amount_gbp"])[0]),
]

# -- ClinicVisits.csv ------------------------------------------------------------------------------

_CV = "ClinicVisits.csv"
_cv_bands = [0, 18, 40, 65, 200]
_cv_labels = ["0-17", "18-39", "40-64", "65+"]


def _cv_band_means(f: pd.DataFrame) -> pd.Series:
    bands = pd.cut(f["PatientAgeYears"], _cv_bands, right=False, labels=_cv_labels)
    return f["SystolicBP"].groupby(bands, observed=True).mean()


_clinic = [
    _closed("cv-01", _CV, "quantile",
            "WaitMinutes uses ? for unknown waits. What is its 90th percentile, interpolating linearly between "
            "the ordered values (numpy's default method)?",
            [_f("p90_wait", 1)], lambda f: {"p90_wait": f["WaitMinutes"].quantile(.9)}),
    _closed("cv-02", _CV, "spread",
            "Give the sample standard deviation (divide by n - 1) of BmiValue separately for visits with "
            "SmokerFlag TRUE and with SmokerFlag FALSE; unknown BMI values (?) are dropped.",
            [_f("sd_smokers", 3), _f("sd_nonsmokers", 3)],
            lambda f: {"sd_smokers": f.loc[f["SmokerFlag"] == True, "BmiValue"].std(ddof=1),  # noqa: E712
                       "sd_nonsmokers": f.loc[f["SmokerFlag"] == False, "BmiValue"].std(ddof=1)}),  # noqa: E712
    _closed("cv-03", _CV, "tests",
            "Run a one-way ANOVA of WaitMinutes across the ClinicCode groups, leaving out unknown waits. Report "
            "the F statistic, and whether the group means differ at the 1% level (yes or no).",
            [_f("f_stat", 2), _t("differ", "yes or no")],
            lambda f: (lambda r: {"f_stat": r[0], "differ": "yes" if _decision(r[1], .01) else "no"})(
                _anova(f["WaitMinutes"], f["ClinicCode"]))),
    _closed("cv-04", _CV, "dates",
            "VisitDate is written day/month/year. Which calendar month (1 to 12) had the most visits, and how "
            "many visits was that?",
            [_i("busiest_month"), _i("visits")],
            lambda f: (lambda m: {"busiest_month": int(m), "visits": _n(f["VisitDate"].dt.month == m)})(
                _rank(f["VisitDate"].dt.month.value_counts())[0])),
    _closed("cv-05", _CV, "filter",
            "Count the visits with a TriageLevel of 1 or 2 whose SystolicBP is 160 or higher.",
            [_i("urgent_hypertensive")],
            lambda f: {"urgent_hypertensive": _n(f["TriageLevel"].isin([1, 2]) & (f["SystolicBP"] >= 160))}),
    _natural("cv-06", _CV, "dates",
             "Do patients who check in before noon (CheckInTime earlier than 12:00) wait longer on average, in "
             "WaitMinutes, than those checking in at 12:00 or later?",
             YES_NO, lambda f: bool(_morning_wait(f))),
    _natural("cv-07", _CV, "share",
             "Of the visits diagnosed I10 (DiagnosisCode), what percentage had FollowUpRequired set to TRUE?",
             _number(1), lambda f: 100 * f.loc[f["DiagnosisCode"] == "I10", "FollowUpRequired"].astype(float).mean()),
    _natural("cv-08", _CV, "correlation",
             "Which of SystolicBP, HeartRateBpm, BmiValue and PatientAgeYears moves most closely with "
             "DiastolicBP by Spearman rank correlation (largest absolute value, rows where both are known)?",
             CATEGORY, lambda f: _strongest(f, "DiastolicBP", ["SystolicBP", "HeartRateBpm", "BmiValue",
                                                               "PatientAgeYears"], "spearman")[0],
             what="the column name"),
    _natural("cv-09", _CV, "groupby",
             "Which InsuranceType has the highest median CopayAmount? The amounts are dollar strings.",
             CATEGORY, lambda f: str(_best(f.groupby("InsuranceType")["CopayAmount"].median())[0]),
             what="the insurance type"),
    _natural("cv-10", _CV, "derived",
             "Put PatientAgeYears into the bands 0-17, 18-39, 40-64 and 65+. Which bands have an average "
             "SystolicBP above 125?",
             _items(False), lambda f: [str(b) for b, v in _cv_band_means(f).items() if v > 125],
             what="the band labels"),
]


def _morning_wait(f: pd.DataFrame) -> bool:
    hour = pd.to_datetime(f["CheckInTime"], format="%H:%M").dt.hour
    morning, later = f.loc[hour < 12, "WaitMinutes"].mean(), f.loc[hour >= 12, "WaitMinutes"].mean()
    if math.isclose(morning, later, rel_tol=1e-9):
        raise ValueError("equal waits")
    return bool(morning > later)


# -- library loans export.csv ----------------------------------------------------------------------

_LB = "library loans export.csv"

_library = [
    _closed("lb-01", _LB, "dates",
            "Dates in this export are YYYY/MM/DD. A loan came back late when its Return Date falls after its Due "
            "Date; loans with no Return Date are still out and do not count. How many loans came back late?",
            [_i("late_returns")], lambda f: {"late_returns": _n(f["Return Date"] > f["Due Date"])}),
    _closed("lb-02", _LB, "groupby",
            "Which Branch Name has the highest mean Renewal Count, and what is that mean?",
            [_t("branch", "the branch name"), _f("mean_renewals", 3)],
            lambda f: dict(zip(("branch", "mean_renewals"), _best(f.groupby("Branch Name")["Renewal Count"].mean())))),
    _closed("lb-03", _LB, "quantile",
            "Page Count is only filled for books (the word none marks the rest). Find its lower and upper "
            "quartiles with linear interpolation.",
            [_f("q1_pages", 1), _f("q3_pages", 1)],
            lambda f: {"q1_pages": f["Page Count"].quantile(.25), "q3_pages": f["Page Count"].quantile(.75)}),
    _closed("lb-04", _LB, "tests",
            "Does whether a fine was charged (Fine Charged) depend on Item Type? Apply Pearson's chi-square test "
            "of independence to their contingency table without Yates' correction and report the statistic and "
            "its degrees of freedom.",
            [_f("chi_sq", 2), _i("dof")],
            lambda f: (lambda r: {"chi_sq": r[0], "dof": r[2]})(_chi_square(f["Item Type"], f["Fine Charged"]))),
    _closed("lb-05", _LB, "share",
            "What percentage of all loan rows went through the App Checkout Channel?",
            [_f("app_pct", 2, "a percentage between 0 and 100")],
            lambda f: {"app_pct": 100 * _n(f["Checkout Channel"] == "App") / len(f)}),
    _natural("lb-06", _LB, "counts",
             "How many distinct borrowers (Borrower Ref) show up in this loans export?",
             COUNT, lambda f: int(f["Borrower Ref"].nunique())),
    _natural("lb-07", _LB, "missing",
             "Which columns have any missing values at all? Count both the word none and an empty cell as "
             "missing.",
             _items(False), lambda f: [str(c) for c in f.columns if f[c].isna().any()], what="the column names"),
    _natural("lb-08", _LB, "dedup",
             "Once rows that are exact duplicates are dropped, how many loans are left?",
             COUNT, lambda f: len(f.drop_duplicates())),
    _natural("lb-09", _LB, "topk",
             "Among Audiobook loans (Item Type), which two Genre Code values occur most often? Most frequent first.",
             _items(True), lambda f: [str(g) for g in _rank(f.loc[f["Item Type"] == "Audiobook", "Genre Code"].value_counts(),
                                                             k=2)],
             what="two genre codes"),
    _natural("lb-10", _LB, "dates",
             "Which day of the week sees the most checkouts, going by Checkout Date?",
             CATEGORY, lambda f: str(_rank(f["Checkout Date"].dt.day_name().value_counts())[0]),
             what="the weekday, e.g. Tuesday"),
]

# -- rides.march-april.csv -------------------------------------------------------------------------

_RD = "rides.march-april.csv"


def _ride_bucket(f: pd.DataFrame) -> pd.Series:
    hour = f["pickup.ts"].dt.hour
    return pd.Series(np.select([hour < 6, hour < 12, hour < 18], ["night", "morning", "afternoon"], "evening"),
                     index=f.index)


def _per_km(f: pd.DataFrame) -> pd.Series:
    ok = f["fare.total"].notna() & (f["distance.km"] > 0)
    return f.loc[ok, "fare.total"] / f.loc[ok, "distance.km"]


_rides = [
    _closed("rd-01", _RD, "dates",
            "Split trips by the hour of pickup.ts: night is 00:00-05:59, morning 06:00-11:59, afternoon "
            "12:00-17:59 and evening 18:00-23:59. Which part of the day has the most trips, and how many?",
            [_t("daypart", "night, morning, afternoon or evening"), _i("trips")],
            lambda f: (lambda b: {"daypart": b, "trips": _n(_ride_bucket(f) == b)})(
                str(_rank(_ride_bucket(f).value_counts())[0]))),
    _closed("rd-02", _RD, "derived",
            "Define fare per km as fare.total divided by distance.km, for trips with a fare.total (#N/A or blank "
            "means none) and a distance above zero. What is its median?",
            [_f("median_fare_per_km", 3)], lambda f: {"median_fare_per_km": _per_km(f).median()}),
    _closed("rd-03", _RD, "spread",
            "duration.min is written like 12.5 min. What is the population standard deviation (ddof = 0) of "
            "duration.min over Comfort trips (vehicle.class)?",
            [_f("pop_sd", 3)],
            lambda f: {"pop_sd": f.loc[f["vehicle.class"] == "Comfort", "duration.min"].std(ddof=0)}),
    _closed("rd-04", _RD, "regression",
            "Fit fare.total = a + b * distance.km by least squares over the trips that have a fare.total. Report "
            "the slope b, the intercept a and R squared.",
            [_f("b", 4), _f("a", 3), _f("r_squared", 4)],
            lambda f: dict(zip(("b", "a", "r_squared"), _ols(f["distance.km"], f["fare.total"])))),
    _closed("rd-05", _RD, "correlation",
            "Of distance.km, duration.min, wait.min and tip.amount, which has the largest absolute Pearson "
            "correlation with fare.total (each pair over the rows where both are known), and what is the "
            "coefficient?",
            [_t("column", "the column name"), _f("r", 4)],
            lambda f: dict(zip(("column", "r"), _strongest(f, "fare.total", ["distance.km", "duration.min",
                                                                             "wait.min", "tip.amount"])))),
    _natural("rd-06", _RD, "filter",
             "How many trips used promo code AIRPORT5 and were picked up in zone AIR?",
             COUNT, lambda f: _n((f["promo.code"] == "AIRPORT5") & (f["pickup.zone"] == "AIR"))),
    _natural("rd-07", _RD, "share",
             "What share of trips ran with a surge multiplier (fare.surge_mult) above 1.0, as a percentage?",
             _number(1), lambda f: 100 * _n(f["fare.surge_mult"] > 1.0) / len(f)),
    _natural("rd-08", _RD, "tests",
             "Do card payers tip a higher tip.pct than cash payers? Use a one-sided Welch t-test (card greater "
             "than cash) and call it significant only if p < 0.01.",
             YES_NO, lambda f: _decision(_welch(f.loc[f["payment.method"] == "card", "tip.pct"],
                                                f.loc[f["payment.method"] == "cash", "tip.pct"], "greater")[1], .01)),
    _natural("rd-09", _RD, "groupby",
             "Which vehicle.class gets the best average rating.by_rider (blank and #N/A ratings skipped)?",
             CATEGORY, lambda f: str(_best(f.groupby("vehicle.class")["rating.by_rider"].mean())[0]),
             what="the vehicle class"),
    _natural("rd-10", _RD, "outliers",
             "Using Tukey fences with k = 3, i.e. below Q1 - 3*IQR or above Q3 + 3*IQR (quartiles linearly "
             "interpolated), how many trips have an outlying distance.km?",
             COUNT, lambda f: (lambda lo_hi: _n((f["distance.km"] < lo_hi[0]) | (f["distance.km"] > lo_hi[1])))(
                 _fences(f["distance.km"], 3))),
]

# -- QA_Inspections.csv ----------------------------------------------------------------------------

_QA = "QA_Inspections.csv"


def _fail_rate(f: pd.DataFrame) -> pd.Series:
    return 100 * (f["Result"] == "FAIL").groupby(f["Line"]).mean()


_quality = [
    _closed("qa-01", _QA, "share",
            "Which Line has the highest FAIL rate in the Result column, and what is that rate as a percentage of "
            "the line's inspections?",
            [_t("line", "the line code"), _f("fail_pct", 2)],
            lambda f: dict(zip(("line", "fail_pct"), _best(_fail_rate(f))))),
    _closed("qa-02", _QA, "tests",
            "One-way ANOVA: does mean Diameter [mm] differ between the Lines? Report the F statistic and whether "
            "the difference is significant at alpha = 0.01 (yes or no).",
            [_f("f_value", 1), _t("significant", "yes or no")],
            lambda f: (lambda r: {"f_value": r[0], "significant": "yes" if _decision(r[1], .01) else "no"})(
                _anova(f["Diameter [mm]"], f["Line"]))),
    _closed("qa-03", _QA, "derived",
            "A part is out of tolerance when the absolute gap between Diameter [mm] and Diameter Target [mm] "
            "exceeds Diameter Tol [mm]. How many inspected parts are out of tolerance?",
            [_i("out_of_tol")],
            lambda f: {"out_of_tol": _n((f["Diameter [mm]"] - f["Diameter Target [mm]"]).abs() > f["Diameter Tol [mm]"])}),
    _closed("qa-04", _QA, "dates",
            "Inspected At values look like 08-Jan-2024 06:15. How many inspections happened on a Saturday or a "
            "Sunday?",
            [_i("weekend")], lambda f: {"weekend": _n(f["Inspected At"].dt.day_of_week >= 5)}),
    _closed("qa-05", _QA, "spread",
            "What is the coefficient of variation of Weight [g], i.e. its sample standard deviation (ddof = 1) "
            "divided by its mean, expressed as a percentage?",
            [_f("cv_pct", 3)], lambda f: {"cv_pct": 100 * f["Weight [g]"].std(ddof=1) / f["Weight [g]"].mean()}),
    _natural("qa-06", _QA, "tests",
             "Could Torque [Nm] be normally distributed? Use the Shapiro-Wilk test and treat p > 0.05 as "
             "consistent with normality. Is it consistent with normality?",
             YES_NO, lambda f: not _decision(float(stats.shapiro(f["Torque [Nm]"].dropna().to_numpy(float)).pvalue),
                                             .05)),
    _natural("qa-07", _QA, "correlation",
             "Which of Diameter [mm], Thickness [mm], Hardness [HRC] and Torque [Nm] is most strongly linked to "
             "Weight [g] by absolute Pearson correlation (pairwise complete rows)?",
             CATEGORY, lambda f: _strongest(f, "Weight [g]", ["Diameter [mm]", "Thickness [mm]", "Hardness [HRC]",
                                                              "Torque [Nm]"])[0],
             what="the column name"),
    _natural("qa-08", _QA, "groupby",
             "Which Operator has the lowest average Defects Total?",
             CATEGORY, lambda f: str(_best(f.groupby("Operator")["Defects Total"].mean(), lowest=True)[0]),
             what="the operator code"),
    _natural("qa-09", _QA, "missing",
             "How many inspections lack a Hardness [HRC] reading, a Thickness [mm] reading, or both? (-- and "
             "blank cells are missing.)",
             COUNT, lambda f: _n(f["Hardness [HRC]"].isna() | f["Thickness [mm]"].isna())),
    _natural("qa-10", _QA, "counts",
             "How many inspections on Shift C ended with a FAIL result?",
             COUNT, lambda f: _n((f["Shift"] == "C") & (f["Result"] == "FAIL"))),
]

# -- retail_returns_h2.csv -------------------------------------------------------------------------

_RR = "retail_returns_h2.csv"

_returns = [
    _closed("rr-01", _RR, "derived",
            "purchase_dt and return_dt are written like Jun 01 2023. Work out the number of days from purchase "
            "to return for every row and give the mean.",
            [_f("mean_days", 3)], lambda f: {"mean_days": (f["return_dt"] - f["purchase_dt"]).dt.days.mean()}),
    _closed("rr-02", _RR, "groupby",
            "refund_value_eur holds amounts like 1,234.50 EUR. Which dept_code has the largest total refund, and "
            "how much is it?",
            [_t("dept", "the department code"), _f("refund_total", 2)],
            lambda f: dict(zip(("dept", "refund_total"), _best(f.groupby("dept_code")["refund_value_eur"].sum())))),
    _closed("rr-03", _RR, "dedup",
            "Remove rows that exactly repeat another row, keeping one copy. How many rows does the table have "
            "afterwards?",
            [_i("unique_rows")], lambda f: {"unique_rows": len(f.drop_duplicates())}),
    _closed("rr-04", _RR, "tests",
            "Cross-tabulate reason_code against condition_grade and run Pearson's chi-square test of "
            "independence without continuity correction. Report the statistic and the p-value.",
            [_f("chi_sq", 2), _f("p_value", 4)],
            lambda f: (lambda r: {"chi_sq": r[0], "p_value": r[1]})(_chi_square(f["reason_code"], f["condition_grade"]))),
    _closed("rr-05", _RR, "share",
            "Across all rows, what fraction of the summed gross_value_eur was paid back as refund_value_eur? "
            "Give it as a percentage.",
            [_f("refunded_pct", 3)],
            lambda f: {"refunded_pct": 100 * f["refund_value_eur"].sum() / f["gross_value_eur"].sum()}),
    _natural("rr-06", _RR, "topk",
             "Which two stores (store_no) logged the most returns with reason code DEF? Put the larger first.",
             _items(True), lambda f: [str(s) for s in _rank(f.loc[f["reason_code"] == "DEF", "store_no"].value_counts(),
                                                             k=2)],
             what="two store numbers"),
    _natural("rr-07", _RR, "filter",
             "How many returns by loyalty members (loyalty_member = yes) carried a restocking fee above 0%?",
             COUNT, lambda f: _n(f["loyalty_member"].fillna(False) & (f["restocking_fee_pct"] > 0))),
    _natural("rr-08", _RR, "quantile",
             "What's the median unit_price_eur in the ELC department?",
             _number(2), lambda f: f.loc[f["dept_code"] == "ELC", "unit_price_eur"].median()),
    _natural("rr-09", _RR, "dates",
             "In which calendar month, going by return_dt, were the most items returned?",
             CATEGORY, lambda f: str(_rank(f["return_dt"].dt.month_name().value_counts())[0]),
             what="the month's English name, e.g. March"),
    _natural("rr-10", _RR, "missing",
             "How many rows don't have a customer_age_yrs value (it is written as missing or left blank)?",
             COUNT, lambda f: int(f["customer_age_yrs"].isna().sum())),
]

# -- PlayerSeasons.csv -----------------------------------------------------------------------------

_PS = "PlayerSeasons.csv"


def _ppg_leader(f: pd.DataFrame) -> dict[str, Any]:
    ppg = f["PTS"] / f["GP"]
    (row,) = _rank(ppg)
    return {"player": str(f.loc[row, "PlayerCode"]), "ppg": float(ppg[row])}


_seasons = [
    _closed("ps-01", _PS, "derived",
            "Points per game is PTS divided by GP. Which row has the highest points per game? Give that row's "
            "PlayerCode and its points per game.",
            [_t("player", "the PlayerCode"), _f("ppg", 2)], _ppg_leader),
    _closed("ps-02", _PS, "groupby",
            "In SeasonLabel 2022-23, which TeamAbbr piled up the most PTS in total, and how many?",
            [_t("team", "the team abbreviation"), _i("points")],
            lambda f: (lambda r: {"team": str(r[0]), "points": int(r[1])})(
                _best(f[f["SeasonLabel"] == "2022-23"].groupby("TeamAbbr")["PTS"].sum()))),
    _closed("ps-03", _PS, "correlation",
            "Salary is written like $1,234,567. What is the Spearman rank correlation between Salary and PTS?",
            [_f("rho", 4)], lambda f: {"rho": _r(f["Salary"], f["PTS"], "spearman")}),
    _closed("ps-04", _PS, "regression",
            "Regress Salary on PTS with ordinary least squares. What are the slope (dollars per point) and R "
            "squared?",
            [_f("dollars_per_point", 2), _f("r_squared", 4)],
            lambda f: (lambda r: {"dollars_per_point": r[0], "r_squared": r[2]})(_ols(f["PTS"], f["Salary"]))),
    _closed("ps-05", _PS, "filter",
            "FG% is written like 47.3% (blank when FGA is 0). How many rows have an FG% of at least 50% together "
            "with at least 300 FGA?",
            [_i("efficient_rows")], lambda f: {"efficient_rows": _n((f["FG%"] >= 50) & (f["FGA"] >= 300))}),
    _natural("ps-06", _PS, "tests",
             "Do centers (Pos C) and guards (Pos G) shoot a different FG% on average? Use Welch's two-sided "
             "t-test at the 5% level, skipping blank FG% values.",
             YES_NO, lambda f: _decision(_welch(f.loc[f["Pos"] == "C", "FG%"], f.loc[f["Pos"] == "G", "FG%"])[1], .05)),
    _natural("ps-07", _PS, "quantile",
             "For forwards (Pos F), what is the 75th percentile of MIN, with linear interpolation?",
             _number(2), lambda f: f.loc[f["Pos"] == "F", "MIN"].quantile(.75)),
    _natural("ps-08", _PS, "share",
             "Pooling every row, what percentage of three-point attempts (3PA) were made (3PM)?",
             _number(2), lambda f: 100 * f["3PM"].sum() / f["3PA"].sum()),
    _natural("ps-09", _PS, "topk",
             "Give me the three teams (TeamAbbr) with the most total REB across all seasons, most first.",
             _items(True), lambda f: [str(t) for t in _rank(f.groupby("TeamAbbr")["REB"].sum(), k=3)],
             what="three team abbreviations"),
    _natural("ps-10", _PS, "dates",
             "BirthDate is MM/DD/YYYY. How many rows belong to players born before 1990?",
             COUNT, lambda f: _n(f["BirthDate"].dt.year < 1990)),
]

# -- claims register.csv ---------------------------------------------------------------------------

_CL = "claims register.csv"


def _fraud_share(f: pd.DataFrame) -> pd.Series:
    return 100 * f["Fraud Flag"].astype(float).groupby(f["Policy Type"]).mean()


_claims = [
    _closed("cl-01", _CL, "quantile",
            "Amount Claimed is a dollar string with thousands separators. Give its median and its 90th "
            "percentile (linear interpolation).",
            [_f("median_claim", 2), _f("p90_claim", 2)],
            lambda f: {"median_claim": f["Amount Claimed"].median(), "p90_claim": f["Amount Claimed"].quantile(.9)}),
    _closed("cl-02", _CL, "share",
            "Which Policy Type has the largest proportion of claims with Fraud Flag Y, and what is that proportion "
            "in percent?",
            [_t("policy", "the policy type"), _f("fraud_pct", 2)],
            lambda f: dict(zip(("policy", "fraud_pct"), _best(_fraud_share(f))))),
    _closed("cl-03", _CL, "dates",
            "Incident Time is a timestamp like 2023-04-18 21:07. How many incidents occurred in the evening, "
            "from 18:00 up to 23:59?",
            [_i("evening_incidents")], lambda f: {"evening_incidents": _n(f["Incident Time"].dt.hour >= 18)}),
    _closed("cl-04", _CL, "outliers",
            "Using the upper Tukey fence Q3 + 1.5*IQR on Amount Claimed (quartiles by linear interpolation), how "
            "many claims lie above it?",
            [_i("above_fence")], lambda f: {"above_fence": _n(f["Amount Claimed"] > _fences(f["Amount Claimed"], 1.5)[1])}),
    _closed("cl-05", _CL, "tests",
            "Compare Days To Settle between claims with Fraud Flag Y and those with N using Welch's unequal-"
            "variance t-test (two-sided; N/A values dropped). What is the t statistic, computed as flagged minus "
            "not flagged?",
            [_f("t_stat", 3)],
            lambda f: {"t_stat": _welch(f.loc[f["Fraud Flag"] == True, "Days To Settle"],  # noqa: E712
                                        f.loc[f["Fraud Flag"] == False, "Days To Settle"])[0]}),  # noqa: E712
    _natural("cl-06", _CL, "missing",
             "Days To Settle is N/A for some claims. Are the claims without a Days To Settle exactly the claims "
             "whose Claim Status is OPEN?",
             YES_NO, lambda f: bool((f["Days To Settle"].isna() == (f["Claim Status"] == "OPEN")).all())),
    _natural("cl-07", _CL, "counts",
             "How many claims were reported more than a week after the incident, i.e. Report Lag Days above 7?",
             COUNT, lambda f: _n(f["Report Lag Days"] > 7)),
    _natural("cl-08", _CL, "groupby",
             "Looking only at APPROVED claims, which Regional Office has the highest mean Amount Approved?",
             CATEGORY, lambda f: str(_best(f[f["Claim Status"] == "APPROVED"].groupby("Regional Office")
                                            ["Amount Approved"].mean())[0]),
             what="the office code"),
    _natural("cl-09", _CL, "correlation",
             "Is the Pearson correlation between Holder Age and Amount Claimed larger than 0.1 in absolute value?",
             YES_NO, lambda f: abs(_r(f["Holder Age"], f["Amount Claimed"])) > .1),
    _natural("cl-10", _CL, "derived",
             "For PARTIAL claims, divide Amount Approved by Amount Claimed row by row. What is the average of that "
             "ratio?",
             _number(3), lambda f: (f["Amount Approved"] / f["Amount Claimed"])[f["Claim Status"] == "PARTIAL"].mean()),
]

HELDOUT: tuple[HeldoutQuestion, ...] = tuple(_meters + _clinic + _library + _rides + _quality + _returns
                                             + _seasons + _claims)


def heldout_question(question_id: str) -> HeldoutQuestion:
    for q in HELDOUT:
        if q.id == question_id:
            return q
    raise KeyError(f"no held-out question {question_id!r}")


def _plain(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return value


def heldout_reference(q: HeldoutQuestion, frame: pd.DataFrame) -> dict[str, Any]:
    """The question's expected values: ``{slot: value}`` (closed) or ``{"answer": value}`` (natural)."""
    if q.style == "closed":
        raw = dict(q.reference(frame))
        if set(raw) != {s.name for s in q.parts}:
            raise ValueError(f"{q.id}: the reference gave {sorted(raw)}, the question asks {[s.name for s in q.parts]}")
        out: dict[str, Any] = {}
        for slot in q.parts:
            value = _plain(raw[slot.name])
            if slot.kind == "text":
                out[slot.name] = str(value)
            elif slot.kind == "int":
                if float(value) != int(value):
                    raise ValueError(f"{q.id}: {slot.name} should be whole, got {value!r}")
                out[slot.name] = int(value)
            else:
                number = float(value)
                if not math.isfinite(number):
                    raise ValueError(f"{q.id}: {slot.name} is not finite")
                out[slot.name] = number
        return out
    assert q.reply is not None
    value = _plain(q.reference(frame))
    kind = q.reply.kind
    if kind == "yesno":
        if not isinstance(value, bool):
            raise ValueError(f"{q.id}: a yes/no reference must be a bool, got {value!r}")
    elif kind == "category":
        value = str(value)
    elif kind == "list":
        value = [str(v) for v in value]
        if not value:
            raise ValueError(f"{q.id}: an empty list")
    else:
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{q.id}: not finite")
        if q.reply.decimals == 0:
            if value != int(value):
                raise ValueError(f"{q.id}: a count should be whole, got {value!r}")
            value = int(value)
    return {"answer": value}
