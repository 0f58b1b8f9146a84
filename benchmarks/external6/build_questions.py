"""Build questions.json from the question specifications below.

Each reference answer is computed by running the question's `reference_code` on the
committed CSV (see `run_reference` in score.py for the execution convention: the table is
loaded with `pd.read_csv` into the variable named by `frame`; `pd`, `np` and `stats`
(scipy.stats) are available; the code assigns `result`). Closed questions return a dict
of parts; natural questions return a single value.

Run by hand:  python benchmarks/external6/build_questions.py
An independent second computation of every answer lives in crosscheck.py.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x6"

# Closed part spec: ("float", decimals) | ("int",) | ("text",)
# Natural spec: dict(kind=..., tolerance=..., ordered=..., choices=...)

QUESTIONS: list[dict] = []


def closed(table, frame, topics, question, code, parts):
    QUESTIONS.append(dict(table=table, frame=frame, style="closed", topics=topics,
                          question=question.strip(), reference_code=code.strip(),
                          _parts=parts))


def natural(table, frame, topics, question, code, **spec):
    QUESTIONS.append(dict(table=table, frame=frame, style="natural", topics=topics,
                          question=question.strip(), reference_code=code.strip(),
                          _spec=spec))


def choices_of(table, column):
    """Every value the label could take: the column's distinct values, as written."""
    import pandas as pd

    vals = pd.read_csv(HERE / "tables" / table)[column].dropna().unique()
    return sorted(str(v) for v in vals)


# ---------------------------------------------------------------- hhs_breaches
T = "hhs_breaches.csv"
closed(T, "breaches", ["missing", "strings", "share"], r"""
The `Web.Description` column of the HHS breach reports is blank in two different ways: some cells are truly empty, and many hold the placeholder text `\N` (a backslash and a capital N) left over from a database export. Count each kind, and work out what share of all reports carries a real description.
Constraints: a real description is a non-empty cell whose text is not exactly `\N`.
Report, one per line:
@empty_cells[integer]
@placeholder_cells[integer]
@pct_described[percentage of all rows, 1 d.p., without the % sign]
""", r"""
w = breaches["Web.Description"]
placeholder = w.fillna("").eq("\\N")
result = {"empty_cells": int(w.isna().sum()),
          "placeholder_cells": int(placeholder.sum()),
          "pct_described": float((w.notna() & ~placeholder).mean() * 100)}
""", {"empty_cells": ("int",), "placeholder_cells": ("int",), "pct_described": ("float", 1)})

closed(T, "breaches", ["dates", "groupby"], """
Parse `Breach.Submission.Date` (ISO dates). Which calendar year received the most breach reports and how many, on which day of the week are reports most often submitted, and in which month were the most individuals affected in total (summing `Individuals.Affected`)?
Reply with @busiest_year[yyyy], @reports_in_busiest_year[a count], @top_weekday[the English weekday name, e.g. Monday] and @peak_month[year and month as YYYY-MM].
""", """
d = pd.to_datetime(breaches["Breach.Submission.Date"])
years = d.dt.year.value_counts()
weekdays = d.dt.day_name().value_counts()
months = breaches.groupby(d.dt.strftime("%Y-%m"))["Individuals.Affected"].sum()
result = {"busiest_year": int(years.idxmax()), "reports_in_busiest_year": int(years.max()),
          "top_weekday": str(weekdays.idxmax()), "peak_month": str(months.idxmax())}
""", {"busiest_year": ("int",), "reports_in_busiest_year": ("int",), "top_weekday": ("text",), "peak_month": ("text",)})

closed(T, "breaches", ["strings", "count"], """
`Type.of.Breach` can name several breach types in one cell, separated by commas (for example "Loss, Theft"). Split every cell into its single types and tally them.
Constraints: split on the commas and strip the spaces around each piece (one cell has a trailing space); a report counts once for each type it names.
Return these fields:
@distinct_types[number of different single types]
@multi_type_reports[reports that name more than one type]
@second_type[the second most frequent single type, spelled as in the data]
@second_type_reports[how many reports name it]
""", """
types = breaches["Type.of.Breach"].str.split(",").apply(lambda parts: [p.strip() for p in parts])
single = types.explode()
vc = single.value_counts()
result = {"distinct_types": int(single.nunique()), "multi_type_reports": int((types.str.len() > 1).sum()),
          "second_type": str(vc.index[1]), "second_type_reports": int(vc.iloc[1])}
""", {"distinct_types": ("int",), "multi_type_reports": ("int",), "second_type": ("text",), "second_type_reports": ("int",)})

natural(T, "breaches", ["groupby", "summary"], "Which type of covered entity has the highest median number of individuals affected per breach?", """
result = str(breaches.groupby("Covered.Entity.Type")["Individuals.Affected"].median().idxmax())
""", kind="label", choices=choices_of(T, "Covered.Entity.Type"))

natural(T, "breaches", ["count", "filter"], "how many breaches affected 100,000 people or more?", """
result = int((breaches["Individuals.Affected"] >= 100000).sum())
""", kind="count")

natural(T, "breaches", ["share", "filter"], "And what percentage of all the individuals affected in the table do those big breaches account for?", """
big = breaches["Individuals.Affected"] >= 100000
result = float(breaches.loc[big, "Individuals.Affected"].sum() / breaches["Individuals.Affected"].sum() * 100)
""", kind="number", tolerance=0.05)

# ---------------------------------------------------------------- dunn_run
T = "dunn_run.csv"
closed(T, "runners", ["strings", "count"], """
The `city` column of the Get It Dunn race results was typed in by the runners themselves, so one town turns up in several capitalisations ("Menomonie", "MENOMONIE", "menomonie"). How many distinct city values are there as written, how many once the values are lower-cased and stripped of surrounding spaces, and how many runners give Menomonie as their city?
Constraints: only capitalisation and surrounding spaces are normalised, so misspellings such as "Menomine" stay distinct; an empty cell is not a city.
Write the result as @raw_cities[whole number] @normalised_cities[whole number] @menomonie_runners[whole number]
""", """
norm = runners["city"].str.strip().str.lower()
result = {"raw_cities": int(runners["city"].nunique()), "normalised_cities": int(norm.nunique()),
          "menomonie_runners": int((norm == "menomonie").sum())}
""", {"raw_cities": ("int",), "normalised_cities": ("int",), "menomonie_runners": ("int",)})

closed(T, "runners", ["test", "groupby"], """
In the 2018 5k (`date` 2018-05-12, `race` "5k"), did men and women finish in different times? Compare the `run_time_minutes` of the men (`sex` "M") with those of the women ("F").
Constraints: Welch's t-test (scipy.stats.ttest_ind with equal_var=False), men as the first sample, two-sided, significance level 0.01.
Fill in:
@t_value[t statistic, rounded to 2 decimal places]
@mean_gap[mean time of the men minus mean time of the women, minutes, 2 decimal places]
@significant[yes or no]
""", """
k = runners[(runners["date"] == "2018-05-12") & (runners["race"] == "5k")]
men, women = k.loc[k["sex"] == "M", "run_time_minutes"], k.loc[k["sex"] == "F", "run_time_minutes"]
t, p = stats.ttest_ind(men, women, equal_var=False)
result = {"t_value": float(t), "mean_gap": float(men.mean() - women.mean()), "significant": "yes" if p < 0.01 else "no"}
""", {"t_value": ("float", 2), "mean_gap": ("float", 2), "significant": ("text",)})

closed(T, "runners", ["feature engineering", "groupby"], """
Put the 5k runners of both years into age groups (under 20, 20 to 39, 40 to 59, and 60 or older) and give the median finishing time of each group.
Constraints: the bins are [0, 20), [20, 40), [40, 60) and [60, infinity), closed on the left; runners without an age are left out of the groups and counted separately.
Expected parts: @median_under_20[minutes, to the hundredth] @median_20_39[minutes, to the hundredth] @median_40_59[minutes, to the hundredth] @median_60_plus[minutes, to the hundredth] @no_age[number of 5k runners without an age]
""", """
k = runners[runners["race"] == "5k"]
g = pd.cut(k["age"], [0, 20, 40, 60, np.inf], right=False, labels=["u20", "20-39", "40-59", "60+"])
med = k.groupby(g, observed=True)["run_time_minutes"].median()
result = {"median_under_20": float(med["u20"]), "median_20_39": float(med["20-39"]),
          "median_40_59": float(med["40-59"]), "median_60_plus": float(med["60+"]),
          "no_age": int(k["age"].isna().sum())}
""", {"median_under_20": ("float", 2), "median_20_39": ("float", 2), "median_40_59": ("float", 2),
      "median_60_plus": ("float", 2), "no_age": ("int",)})

closed(T, "runners", ["duplicates", "dates"], """
Some people ran in both years, but the table has no runner ID. Identify a runner by `first_name`, `last_initial`, `sex` and `race` together. How many such keys occur on both race dates, and how many keys occur more than once on the same date (people the key cannot tell apart)? Then, for the 5k only, take the keys that occur exactly once in 2017 and exactly once in 2018: how many of those runners are matched, and how many of them were faster in 2018?
Your answer should contain @keys_on_both_dates[count], @ambiguous_keys[count], @matched_5k_runners[count] and @faster_in_2018[count].
""", """
key = ["first_name", "last_initial", "sex", "race"]
per = runners.groupby(key + ["date"]).size()
on_dates = per.reset_index().groupby(key)["date"].nunique()
ambiguous = per[per > 1].reset_index()[key].drop_duplicates()
k5 = per.xs("5k", level="race")
once = k5[k5 == 1].reset_index()
once = once.groupby(["first_name", "last_initial", "sex"]).filter(lambda g: len(g) == 2)
times = runners[runners["race"] == "5k"].merge(once[["first_name", "last_initial", "sex", "date"]])
wide = times.pivot_table(index=["first_name", "last_initial", "sex"], columns="date", values="run_time_minutes")
result = {"keys_on_both_dates": int((on_dates == 2).sum()), "ambiguous_keys": int(len(ambiguous)),
          "matched_5k_runners": int(len(wide)), "faster_in_2018": int((wide["2018-05-12"] < wide["2017-05-13"]).sum())}
""", {"keys_on_both_dates": ("int",), "ambiguous_keys": ("int",), "matched_5k_runners": ("int",), "faster_in_2018": ("int",)})

natural(T, "runners", ["filter", "summary"], "Tell me the winning time of the 2018 half-marathon, in minutes.", """
h = runners[(runners["race"] == "half-marathon") & (runners["date"] == "2018-05-12")]
result = float(h["run_time_minutes"].min())
""", kind="number", tolerance=0.01)

natural(T, "runners", ["groupby", "summary"], "Was the 2018 half-marathon field younger on average than the 2017 one?", """
h = runners[runners["race"] == "half-marathon"]
m = h.groupby("date")["age"].mean()
result = "yes" if m["2018-05-12"] < m["2017-05-13"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- forbes2000
T = "forbes2000.csv"
closed(T, "forbes", ["missing", "count"], """
In the Forbes 2000 list of 2004 (money in billions of US dollars), how many companies have no `profits` figure, how many made a loss (profits below zero), how many report profits of exactly zero, and which company made the biggest loss?
Answer layout:
@missing_profits[n]
@loss_makers[n]
@zero_profit[n]
@biggest_loss[company name exactly as in `name`]
""", """
p = forbes["profits"]
result = {"missing_profits": int(p.isna().sum()), "loss_makers": int((p < 0).sum()),
          "zero_profit": int((p == 0).sum()), "biggest_loss": str(forbes.loc[p.idxmin(), "name"])}
""", {"missing_profits": ("int",), "loss_makers": ("int",), "zero_profit": ("int",), "biggest_loss": ("text",)})

closed(T, "forbes", ["regression"], """
How does company value scale with size? Fit log10(marketvalue) = b0 + b1*log10(sales) + b2*log10(assets) by ordinary least squares over all 2,000 companies.
Deliver the result as @b0[...], @b1[...], @b2[...] and @r_squared[...], each rounded to 3 dp.
""", """
X = np.column_stack([np.ones(len(forbes)), np.log10(forbes["sales"]), np.log10(forbes["assets"])])
y = np.log10(forbes["marketvalue"]).to_numpy()
b, *_ = np.linalg.lstsq(X, y, rcond=None)
resid = y - X @ b
result = {"b0": float(b[0]), "b1": float(b[1]), "b2": float(b[2]),
          "r_squared": float(1 - resid @ resid / ((y - y.mean()) @ (y - y.mean())))}
""", {"b0": ("float", 3), "b1": ("float", 3), "b2": ("float", 3), "r_squared": ("float", 3)})

closed(T, "forbes", ["groupby", "topk"], """
Profit margin is `profits` / `sales`. Among the countries with at least 20 companies in the list (taking `country` exactly as written), which has the highest median margin, what is it, and which country has the lowest median margin?
Constraints: companies without a profits figure are dropped before the margins are computed; the 20-company threshold counts all of a country's companies.
Structure the reply like this:
@top_country[country as written]
@top_median_margin[median margin as a fraction, 3 decimal places]
@bottom_country[country as written]
""", """
n = forbes["country"].value_counts()
big = forbes[forbes["country"].isin(n[n >= 20].index) & forbes["profits"].notna()]
m = (big["profits"] / big["sales"]).groupby(big["country"]).median()
result = {"top_country": str(m.idxmax()), "top_median_margin": float(m.max()), "bottom_country": str(m.idxmin())}
""", {"top_country": ("text",), "top_median_margin": ("float", 3), "bottom_country": ("text",)})

closed(T, "forbes", ["test", "groupby"], """
Do market values differ between the five most common categories (Banking, Diversified financials, Insurance, Utilities and Materials)? Run a one-way ANOVA of log10(`marketvalue`) across these five categories.
Constraints: scipy.stats.f_oneway; alpha = 0.01.
Template: @f_stat[F, three decimals] @p_value[p, four decimals] @conclusion[write "means differ" or "no evidence"]
""", """
top5 = forbes["category"].value_counts().index[:5]
groups = [np.log10(forbes.loc[forbes["category"] == c, "marketvalue"]) for c in top5]
f, p = stats.f_oneway(*groups)
result = {"f_stat": float(f), "p_value": float(p), "conclusion": "means differ" if p < 0.01 else "no evidence"}
""", {"f_stat": ("float", 3), "p_value": ("float", 4), "conclusion": ("text",)})

natural(T, "forbes", ["groupby", "topk"], "Give me the three countries with the largest combined market value, biggest first.", """
result = [str(c) for c in forbes.groupby("country")["marketvalue"].sum().sort_values(ascending=False).index[:3]]
""", kind="list", ordered=True)

natural(T, "forbes", ["groupby", "summary"], "Which category made the most profit in total?", """
result = str(forbes.groupby("category")["profits"].sum().idxmax())
""", kind="label", choices=choices_of(T, "category"))

# ---------------------------------------------------------------- marathon_training
T = "marathon_training.csv"
closed(T, "training", ["dates", "groupby"], """
This is one marathoner's training log, 2002 to 2006. `Date` is text in month/day/year form (e.g. 1/13/2002). Parse it and total the `Miles` by calendar year. Which year has the most miles, what is that total, and in which calendar month (pooling the years) were the most runs logged?
Give back @top_year[yyyy] @top_year_miles[total miles, to one decimal place] @busiest_month[month number, 1-12].
""", """
d = pd.to_datetime(training["Date"], format="%m/%d/%Y")
miles = training.groupby(d.dt.year)["Miles"].sum()
result = {"top_year": int(miles.idxmax()), "top_year_miles": float(miles.max()),
          "busiest_month": int(d.dt.month.value_counts().idxmax())}
""", {"top_year": ("int",), "top_year_miles": ("float", 1), "busiest_month": ("int",)})

closed(T, "training", ["change", "dates"], """
Sort the runs by date. What is the longest break between two consecutive training dates, in days, on what date did training resume after it, and on how many dates were two runs logged?
Respond using
@longest_break_days[integer]
@resumed_on[date as YYYY-MM-DD]
@double_days[integer]
""", """
d = pd.to_datetime(training["Date"], format="%m/%d/%Y")
days = pd.Series(d.drop_duplicates().sort_values().to_numpy())
gap = days.diff().dt.days
result = {"longest_break_days": int(gap.max()), "resumed_on": days[gap.idxmax()].strftime("%Y-%m-%d"),
          "double_days": int((d.value_counts() == 2).sum())}
""", {"longest_break_days": ("int",), "resumed_on": ("text",), "double_days": ("int",)})

closed(T, "training", ["outliers", "distribution"], """
Look at the distribution of `PaceMin` (minutes per mile): flag outliers with the 1.5 x IQR rule and measure the skewness.
Constraints: the one run without a pace is dropped; quartiles by linear interpolation (pandas' default); an outlier lies strictly outside a fence; skewness is scipy.stats.skew with its default bias=True.
Put your answer in the shape @upper_fence[4 decimals] @outliers[count] @skewness[3 decimal places] @longer_tail[right or left]
""", """
p = training["PaceMin"].dropna()
q1, q3 = p.quantile(0.25), p.quantile(0.75)
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
sk = stats.skew(p)
result = {"upper_fence": float(hi), "outliers": int(((p < lo) | (p > hi)).sum()), "skewness": float(sk),
          "longer_tail": "right" if sk > 0 else "left"}
""", {"upper_fence": ("float", 4), "outliers": ("int",), "skewness": ("float", 3), "longer_tail": ("text",)})

natural(T, "training", ["count", "filter"], "How many of the logged runs were 20 miles or longer?", """
result = int((training["Miles"] >= 20).sum())
""", kind="count")

natural(T, "training", ["groupby", "summary"], "Some entries record which shoes were worn. Which shoe brand goes with the fastest average pace?", """
result = str(training.groupby("ShoeBrand")["PaceMin"].mean().idxmin())
""", kind="label", choices=choices_of(T, "ShoeBrand"))

natural(T, "training", ["groupby", "filter"], "And if brands with fewer than 20 runs are ignored?", """
g = training.groupby("ShoeBrand")["PaceMin"]
m = g.mean()[g.size() >= 20]
result = str(m.idxmin())
""", kind="label", choices=choices_of(T, "ShoeBrand"))

# ---------------------------------------------------------------- us_seatbelts
T = "us_seatbelts.csv"
closed(T, "belts", ["missing", "groupby"], """
The seat-belt usage rate (`seatbelt`) is missing for many state-years of this 1983-1997 panel. How many values are missing, what is the last year with any missing value, and how many states have a rate for every year?
Return, each on its own line:
@missing_rates[n]
@last_year_with_gaps[yyyy]
@complete_states[n]
""", """
miss = belts["seatbelt"].isna()
complete = belts.groupby("state")["seatbelt"].apply(lambda s: s.notna().all())
result = {"missing_rates": int(miss.sum()), "last_year_with_gaps": int(belts.loc[miss, "year"].max()),
          "complete_states": int(complete.sum())}
""", {"missing_rates": ("int",), "last_year_with_gaps": ("int",), "complete_states": ("int",)})

closed(T, "belts", ["correlation"], """
Is higher seat-belt use associated with fewer road deaths? On the state-years that have a usage rate, correlate `seatbelt` with `fatalities` (deaths per million traffic miles).
Constraints: Pearson's r and Spearman's rho (average ranks for ties), both on the same rows.
The reply must contain exactly these tags: @pearson_r[to 3 decimals] @spearman_rho[to 3 decimals] @rows_used[count] @sign[positive or negative]
""", """
c = belts.dropna(subset=["seatbelt"])
r = stats.pearsonr(c["seatbelt"], c["fatalities"])[0]
rho = stats.spearmanr(c["seatbelt"], c["fatalities"])[0]
result = {"pearson_r": float(r), "spearman_rho": float(rho), "rows_used": int(len(c)),
          "sign": "positive" if r > 0 else "negative"}
""", {"pearson_r": ("float", 3), "spearman_rho": ("float", 3), "rows_used": ("int",), "sign": ("text",)})

closed(T, "belts", ["change", "groupby"], """
Compare each state's fatality rate in 1997 with its rate in 1983. How many states saw the rate go up, which state had the largest percentage decline, and how large was that decline?
Constraints: percentage change = (rate 1997 - rate 1983) / rate 1983 * 100; DC counts as a state.
Submit as @states_with_rise[count] @largest_decline_state[two-letter code] @largest_decline_pct[size of the decline as a positive percentage, 1 decimal]
""", """
w = belts.pivot(index="state", columns="year", values="fatalities")
pct = (w[1997] - w[1983]) / w[1983] * 100
result = {"states_with_rise": int((pct > 0).sum()), "largest_decline_state": str(pct.idxmin()),
          "largest_decline_pct": float(-pct.min())}
""", {"states_with_rise": ("int",), "largest_decline_state": ("text",), "largest_decline_pct": ("float", 1)})

closed(T, "belts", ["test", "groupby"], """
Did state-years with a 65 mph speed limit (`speed65` == "yes") have different fatality rates from the rest? Pool all the years.
Constraints: Welch two-sample t-test, the "yes" group first, two-sided, alpha 0.05.
Fields to report: @t[t statistic, 2 dp] @mean_65[mean rate of the yes group, 4 d.p.] @mean_other[mean rate of the others, 4 d.p.] @verdict[different or not different]
""", """
yes = belts.loc[belts["speed65"] == "yes", "fatalities"]
other = belts.loc[belts["speed65"] != "yes", "fatalities"]
t, p = stats.ttest_ind(yes, other, equal_var=False)
result = {"t": float(t), "mean_65": float(yes.mean()), "mean_other": float(other.mean()),
          "verdict": "different" if p < 0.05 else "not different"}
""", {"t": ("float", 2), "mean_65": ("float", 4), "mean_other": ("float", 4), "verdict": ("text",)})

natural(T, "belts", ["groupby", "topk"], "Over 1983-1997, which state had the highest average fatality rate?", """
result = str(belts.groupby("state")["fatalities"].mean().idxmax())
""", kind="label", choices=choices_of(T, "state"))

natural(T, "belts", ["count", "filter"], "in 1990, how many states (DC included) had no seat belt law enforcement at all?", """
result = int(((belts["year"] == 1990) & (belts["enforce"] == "no")).sum())
""", kind="count")

# ---------------------------------------------------------------- air_crashes
T = "air_crashes.csv"
closed(T, "crashes", ["test", "groupby"], """
Is the cause of a fatal crash related to the phase of flight? Keep the three main phases (landing, en route, take-off) and run a chi-square test of independence of `Phase` and `Cause` on their contingency table.
Constraints: scipy.stats.chi2_contingency with its defaults; significance level 0.05.
Write back @chi2[statistic, 2 decimal places] @dof[degrees of freedom] @relationship[dependent or independent]
""", """
sub = crashes[crashes["Phase"].isin(["landing", "en route", "take-off"])]
chi2, p, dof, _ = stats.chi2_contingency(pd.crosstab(sub["Phase"], sub["Cause"]))
result = {"chi2": float(chi2), "dof": int(dof), "relationship": "dependent" if p < 0.05 else "independent"}
""", {"chi2": ("float", 2), "dof": ("int",), "relationship": ("text",)})

closed(T, "crashes", ["dates", "groupby"], """
Using the crash `date`, on which day of the week did the most crashes happen, which calendar month (pooled over all years) has the highest total `Fatalities`, and what is the longest stretch between two consecutive crash dates?
Constraints: several crashes on one date count as one date when measuring the gaps; a gap is the difference of the two dates in days.
Layout of the answer, one tag per line:
@top_weekday[full English name]
@deadliest_month[1-12]
@longest_gap_days[integer]
""", """
d = pd.to_datetime(crashes["date"])
days = pd.Series(d.drop_duplicates().sort_values().to_numpy())
result = {"top_weekday": str(d.dt.day_name().value_counts().idxmax()),
          "deadliest_month": int(crashes.groupby(d.dt.month)["Fatalities"].sum().idxmax()),
          "longest_gap_days": int(days.diff().dt.days.max())}
""", {"top_weekday": ("text",), "deadliest_month": ("int",), "longest_gap_days": ("int",)})

closed(T, "crashes", ["outliers", "distribution"], """
Deaths per crash are very skewed. Compute Tukey's upper fence Q3 + 1.5*IQR for `Fatalities`, count the crashes above it, and compare the skewness of `Fatalities` with that of its natural logarithm.
Constraints: quartiles with linear interpolation; "above" means strictly greater; skewness with the scipy.stats.skew defaults (biased).
Provide @upper_fence[one decimal], @above_fence[count], @skew_raw[2 dp] and @skew_log[2 dp].
""", """
f = crashes["Fatalities"]
q1, q3 = f.quantile(0.25), f.quantile(0.75)
hi = q3 + 1.5 * (q3 - q1)
result = {"upper_fence": float(hi), "above_fence": int((f > hi).sum()),
          "skew_raw": float(stats.skew(f)), "skew_log": float(stats.skew(np.log(f)))}
""", {"upper_fence": ("float", 1), "above_fence": ("int",), "skew_raw": ("float", 2), "skew_log": ("float", 2)})

natural(T, "crashes", ["count", "filter"], "How many crashes killed more than 200 people?", """
result = int((crashes["Fatalities"] > 200).sum())
""", kind="count")

natural(T, "crashes", ["groupby", "summary"], "Which cause accounts for the most deaths overall?", """
result = str(crashes.groupby("Cause")["Fatalities"].sum().idxmax())
""", kind="label", choices=choices_of(T, "Cause"))

natural(T, "crashes", ["share", "groupby"], "And what percentage of all the deaths is that?", """
s = crashes.groupby("Cause")["Fatalities"].sum()
result = float(s.max() / s.sum() * 100)
""", kind="number", tolerance=0.05)

# ---------------------------------------------------------------- piracy_votes
T = "piracy_votes.csv"
closed(T, "piracy", ["strings", "count"], """
In the SOPA/PIPA table the `party` codes carry a leading space (" D", " R", " I") and `name` is written "Last, First". After stripping the spaces, how many members belong to each party, and what is the most common first name?
Hand in @democrats[n] @republicans[n] @independents[n] @commonest_first_name[the first name as written]
""", """
party = piracy["party"].str.strip()
first = piracy["name"].str.split(",", n=1).str[1].str.strip()
result = {"democrats": int((party == "D").sum()), "republicans": int((party == "R").sum()),
          "independents": int((party == "I").sum()), "commonest_first_name": str(first.value_counts().idxmax())}
""", {"democrats": ("int",), "republicans": ("int",), "independents": ("int",), "commonest_first_name": ("text",)})

closed(T, "piracy", ["test"], """
For the members with a declared position, compare Democrats and Republicans: classify `stance` "yes" as support and "no" or "leaning no" as opposition, drop "unknown", "undecided" and the independents, and test whether support depends on party.
Constraints: a 2x2 table of party by support; scipy.stats.chi2_contingency with its defaults (so Yates' continuity correction is applied); alpha = 0.01.
Required tags: @chi_square[3 decimals] @p[4 decimals] @more_supportive_party[D or R] @reject_independence[yes/no]
""", """
party = piracy["party"].str.strip()
k = piracy[piracy["stance"].isin(["yes", "no", "leaning no"]) & party.isin(["D", "R"])]
kp = party[k.index]
support = k["stance"] == "yes"
chi2, p, dof, _ = stats.chi2_contingency(pd.crosstab(kp, support))
rate = support.groupby(kp).mean()
result = {"chi_square": float(chi2), "p": float(p), "more_supportive_party": str(rate.idxmax()),
          "reject_independence": "yes" if p < 0.01 else "no"}
""", {"chi_square": ("float", 3), "p": ("float", 4), "more_supportive_party": ("text",), "reject_independence": ("text",)})

closed(T, "piracy", ["feature engineering", "groupby"], """
Define net industry money as `money_pro` - `money_con` (contributions from groups for the bills minus those from groups against them). Compute it for the members who have both figures and take its median within each `stance`.
Constraints: negative contribution amounts are kept as they are; a member missing either figure has no net value.
Fill the blanks: @no_net_members[members lacking one of the two figures] @top_stance[the stance with the highest median net] @top_median[its median, a whole number of dollars] @bottom_stance[the stance with the lowest median net]
""", """
net = piracy["money_pro"] - piracy["money_con"]
m = net.groupby(piracy["stance"]).median()
result = {"no_net_members": int(net.isna().sum()), "top_stance": str(m.idxmax()),
          "top_median": int(round(m.max())), "bottom_stance": str(m.idxmin())}
""", {"no_net_members": ("int",), "top_stance": ("text",), "top_median": ("int",), "bottom_stance": ("text",)})

closed(T, "piracy", ["correlation"], """
How closely do the two money columns move together? Over the members with both figures, compute Spearman's rho and Pearson's r between `money_pro` and `money_con`.
Report as @rho[rounded to two places] @r[rounded to two places] @pairs[number of members used]
""", """
c = piracy.dropna(subset=["money_pro", "money_con"])
result = {"rho": float(stats.spearmanr(c["money_pro"], c["money_con"])[0]),
          "r": float(stats.pearsonr(c["money_pro"], c["money_con"])[0]), "pairs": int(len(c))}
""", {"rho": ("float", 2), "r": ("float", 2), "pairs": ("int",)})

natural(T, "piracy", ["count", "groupby"], "List the states with at least 25 members in this table.", """
vc = piracy["state"].value_counts()
result = sorted(str(s) for s in vc[vc >= 25].index)
""", kind="list", ordered=False)

natural(T, "piracy", ["count", "filter"], "how many senators had come out in favour (stance yes)?", """
result = int(((piracy["chamber"] == "senate") & (piracy["stance"] == "yes")).sum())
""", kind="count")

# ---------------------------------------------------------------- commodity_prices
T = "commodity_prices.csv"
closed(T, "prices", ["change", "dates"], """
Average the monthly Brent price (`oil_brent`, dollars a barrel) over each calendar year, then take the percentage change of each year's average against the year before. Which year had the biggest rise, how big was it, and which year had the biggest fall?
Answer using the tags @biggest_rise_year[yyyy], @biggest_rise_pct[percent with one decimal, no % sign] and @biggest_fall_year[yyyy].
""", """
d = pd.to_datetime(prices["date"])
yoy = prices.groupby(d.dt.year)["oil_brent"].mean().pct_change() * 100
result = {"biggest_rise_year": int(yoy.idxmax()), "biggest_rise_pct": float(yoy.max()),
          "biggest_fall_year": int(yoy.idxmin())}
""", {"biggest_rise_year": ("int",), "biggest_rise_pct": ("float", 1), "biggest_fall_year": ("int",)})

closed(T, "prices", ["correlation", "feature engineering"], """
Compute month-on-month returns, the percentage change from each month to the next, for `oil_brent`, `oil_dubai`, `coffee_arabica` and `coffee_robustas`. What is the Pearson correlation of the Brent and Dubai returns, and of the two coffee returns?
Constraints: the rows are in date order; the first month has no return and is dropped.
Spell out the answer as
@r_oil[3 decimals]
@r_coffee[3 decimals]
@returns_used[number of monthly returns in each series]
""", """
r = prices.sort_values("date")[["oil_brent", "oil_dubai", "coffee_arabica", "coffee_robustas"]].pct_change().dropna()
result = {"r_oil": float(stats.pearsonr(r["oil_brent"], r["oil_dubai"])[0]),
          "r_coffee": float(stats.pearsonr(r["coffee_arabica"], r["coffee_robustas"])[0]),
          "returns_used": int(len(r))}
""", {"r_oil": ("float", 3), "r_coffee": ("float", 3), "returns_used": ("int",)})

closed(T, "prices", ["distribution", "test"], """
Are arabica coffee's monthly log returns normally distributed? Let r_t = ln(p_t / p_(t-1)) for `coffee_arabica`, computed on the full monthly series, and keep the returns of the months January 2000 to December 2022.
Constraints: Shapiro-Wilk test (scipy.stats.shapiro), alpha = 0.05; skewness from scipy.stats.skew (biased).
Output: @w_stat[W with four digits after the decimal point] @normal[yes or no] @skewness[three digits after the decimal point] @n_returns[count]
""", """
s = prices.sort_values("date")
r = np.log(s["coffee_arabica"]).diff()
keep = r[(s["date"] >= "2000-01-01") & r.notna()]
w, p = stats.shapiro(keep)
result = {"w_stat": float(w), "normal": "yes" if p >= 0.05 else "no", "skewness": float(stats.skew(keep)),
          "n_returns": int(len(keep))}
""", {"w_stat": ("float", 4), "normal": ("text",), "skewness": ("float", 3), "n_returns": ("int",)})

closed(T, "prices", ["topk", "dates"], """
Which three months had the highest Brent price, and in which month did Brent first go above 100 dollars a barrel?
Reply in this shape: @top_months[the three months as YYYY-MM, highest first, separated by " / "] @first_above_100[YYYY-MM]
""", """
s = prices.sort_values("date")
top = s.nlargest(3, "oil_brent")["date"].str[:7]
result = {"top_months": " / ".join(top), "first_above_100": str(s.loc[s["oil_brent"] > 100, "date"].iloc[0][:7])}
""", {"top_months": ("text",), "first_above_100": ("text",)})

natural(T, "prices", ["change", "dates"], "By what percentage did the average Brent price rise from 2021 to 2022?", """
y = prices.groupby(pd.to_datetime(prices["date"]).dt.year)["oil_brent"].mean()
result = float((y[2022] / y[2021] - 1) * 100)
""", kind="number", tolerance=0.05)

natural(T, "prices", ["filter", "summary"], "Brent and Dubai are both crude benchmarks. Was Dubai ever dearer than Brent in the same month?", """
result = "yes" if (prices["oil_dubai"] > prices["oil_brent"]).any() else "no"
""", kind="yesno")

# ---------------------------------------------------------------- blizzard_salary
T = "blizzard_salary.csv"
closed(T, "pay", ["feature engineering", "summary"], """
Blizzard employees reported their pay per year, per hour or per week (`salary_type`). Put everything on an annual basis (hourly x 2080, weekly x 52, yearly as reported) and treat annual figures below 10,000 as unusable, since some are placeholders such as 1.0. How many usable salaries are there, what is their median, and how many of the usable ones came from hourly reports?
The expected reply is @usable[count] @median_annual[dollars, to the nearest whole number] @from_hourly[count]
""", """
annual = pay["current_salary"] * pay["salary_type"].map({"year": 1, "hour": 2080, "week": 52})
ok = annual >= 10000
result = {"usable": int(ok.sum()), "median_annual": int(round(annual[ok].median())),
          "from_hourly": int((ok & (pay["salary_type"] == "hour")).sum())}
""", {"usable": ("int",), "median_annual": ("int",), "from_hourly": ("int",)})

closed(T, "pay", ["test", "groupby"], """
Do raises (`percent_incr`) differ by `performance_rating`? Use the Kruskal-Wallis H test across the four ratings.
Constraints: scipy.stats.kruskal; rows missing either value are dropped; alpha = 0.001.
Use these tags, in order: @h_stat[H, two places of decimals] @differ[yes/no] @best_rating[the rating with the highest mean raise] @best_mean[that mean raise, two places of decimals]
""", """
k = pay.dropna(subset=["percent_incr", "performance_rating"])
groups = [g["percent_incr"] for _, g in k.groupby("performance_rating")]
h, p = stats.kruskal(*groups)
m = k.groupby("performance_rating")["percent_incr"].mean()
result = {"h_stat": float(h), "differ": "yes" if p < 0.001 else "no", "best_rating": str(m.idxmax()), "best_mean": float(m.max())}
""", {"h_stat": ("float", 2), "differ": ("text",), "best_rating": ("text",), "best_mean": ("float", 2)})

closed(T, "pay", ["strings", "test"], """
Do engineers earn more? Call a respondent an engineer when `current_title` contains "engineer" in any capitalisation. Among the yearly salaries (`salary_type` "year") of at least 10,000, compare the engineers with everyone else.
Constraints: Mann-Whitney U test with the scipy defaults (two-sided), engineers as the first sample; alpha 0.05; a missing title is not an engineer.
Tags: @engineer_titles[rows whose title mentions engineer, whatever the salary type] @median_engineers[one decimal] @median_others[one decimal] @significant[true or false]
""", """
eng = pay["current_title"].str.contains("engineer", case=False, na=False)
y = (pay["salary_type"] == "year") & (pay["current_salary"] >= 10000)
a, b = pay.loc[y & eng, "current_salary"], pay.loc[y & ~eng, "current_salary"]
u, p = stats.mannwhitneyu(a, b, alternative="two-sided")
result = {"engineer_titles": int(eng.sum()), "median_engineers": float(a.median()), "median_others": float(b.median()),
          "significant": "true" if p < 0.05 else "false"}
""", {"engineer_titles": ("int",), "median_engineers": ("float", 1), "median_others": ("float", 1), "significant": ("text",)})

closed(T, "pay", ["dates", "count"], """
`timestamp` is text such as "7/31/20 15:03" (month/day/two-digit year, 24-hour clock). On which day were the most responses submitted and how many, how many responses came in after August 2020, and in which hour of the day were the most responses made?
Enter @busiest_day[YYYY-MM-DD] @busiest_day_responses[n] @after_august[n] @busiest_hour[0-23]
""", """
ts = pd.to_datetime(pay["timestamp"], format="%m/%d/%y %H:%M")
days = ts.dt.strftime("%Y-%m-%d").value_counts()
result = {"busiest_day": str(days.idxmax()), "busiest_day_responses": int(days.max()),
          "after_august": int((ts >= "2020-09-01").sum()), "busiest_hour": int(ts.dt.hour.value_counts().idxmax())}
""", {"busiest_day": ("text",), "busiest_day_responses": ("int",), "after_august": ("int",), "busiest_hour": ("int",)})

natural(T, "pay", ["groupby", "filter"], "Looking only at yearly salaries, which location has the highest median pay among the locations with at least 10 such responses?", """
y = pay[pay["salary_type"] == "year"]
g = y.groupby("location")["current_salary"]
m = g.median()[g.size() >= 10]
result = str(m.idxmax())
""", kind="label", choices=choices_of(T, "location"))

natural(T, "pay", ["groupby", "summary"], "contractors vs full-time staff: do contractors get smaller raises on average?", """
m = pay.groupby("status")["percent_incr"].mean()
result = "yes" if m["Contractor"] < m["Full Time Employee"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- paris_metro
T = "paris_metro.csv"
closed(T, "metro", ["strings", "count"], """
`lines` lists the metro lines that serve a station, separated by commas ("1, 5, 8"); "3bis" and "7bis" are lines of their own. How many different lines appear, how many stations are served by three or more lines, and which stations are served by the most lines?
State your result as @distinct_lines[n] @three_plus[n] @most_connected[the station names in alphabetical order, joined by " & "]
""", """
lines = metro["lines"].str.split(",").apply(lambda parts: [p.strip() for p in parts])
n = lines.str.len()
result = {"distinct_lines": int(lines.explode().nunique()), "three_plus": int((n >= 3).sum()),
          "most_connected": " & ".join(sorted(metro.loc[n == n.max(), "name"]))}
""", {"distinct_lines": ("int",), "three_plus": ("int",), "most_connected": ("text",)})

closed(T, "metro", ["outliers", "summary"], """
One station's coordinates look wrong. Standardise `latitude` with its mean and sample standard deviation and flag the stations with |z| > 3; separately, flag the latitudes outside the 1.5 x IQR fences.
Constraints: ddof = 1 for the standard deviation; quartiles by linear interpolation; an IQR outlier lies strictly outside a fence.
Express the answer as @z_flagged[count] @flagged_station[the |z| > 3 station, name as written] @iqr_flagged[count] @mean_latitude_rest[mean latitude of the stations not flagged by z, 4 decimals]
""", """
lat = metro["latitude"]
z = (lat - lat.mean()) / lat.std(ddof=1)
q1, q3 = lat.quantile(0.25), lat.quantile(0.75)
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
flag = z.abs() > 3
result = {"z_flagged": int(flag.sum()), "flagged_station": str(metro.loc[flag, "name"].iloc[0]),
          "iqr_flagged": int(((lat < lo) | (lat > hi)).sum()), "mean_latitude_rest": float(lat[~flag].mean())}
""", {"z_flagged": ("int",), "flagged_station": ("text",), "iqr_flagged": ("int",), "mean_latitude_rest": ("float", 4)})

closed(T, "metro", ["test", "missing"], """
Are stations with an RER connection busier? Compare the annual `passengers` of the stations with a non-empty `connect_rer` against those of the stations without one.
Constraints: stations without a passenger count are left out (report how many); Mann-Whitney U with the scipy defaults (two-sided), RER stations as the first sample; significance level 0.001.
Return a line like @no_passenger_count[n] @u[U, nearest integer] @median_rer[passengers, nearest integer] @reject[yes or no]
""", """
k = metro.dropna(subset=["passengers"])
rer = k["connect_rer"].notna()
u, p = stats.mannwhitneyu(k.loc[rer, "passengers"], k.loc[~rer, "passengers"], alternative="two-sided")
result = {"no_passenger_count": int(metro["passengers"].isna().sum()), "u": int(round(u)),
          "median_rer": int(round(k.loc[rer, "passengers"].median())), "reject": "yes" if p < 0.001 else "no"}
""", {"no_passenger_count": ("int",), "u": ("int",), "median_rer": ("int",), "reject": ("text",)})

natural(T, "metro", ["topk"], "List the five busiest stations by passengers, busiest first.", """
result = [str(s) for s in metro.sort_values("passengers", ascending=False)["name"].head(5)]
""", kind="list", ordered=True)

natural(T, "metro", ["summary"], "median yearly ridership per station?", """
result = float(metro["passengers"].median())
""", kind="number", tolerance=1)

natural(T, "metro", ["filter", "count"], "And how many stations carry more than twice that?", """
result = int((metro["passengers"] > 2 * metro["passengers"].median()).sum())
""", kind="count")


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external6.score import run_reference
    except ImportError:  # run as a script
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external6.score import run_reference

    out = []
    for i, q in enumerate(QUESTIONS, 1):
        q = dict(q)
        parts = q.pop("_parts", None)
        spec = q.pop("_spec", None)
        value = run_reference(q)
        if parts is not None:
            if set(value) != set(parts):
                raise ValueError(f"question {i}: parts differ from result keys")
            built = {}
            for name, p in parts.items():
                v = value[name]
                if p[0] == "float":
                    built[name] = {"kind": "float", "value": round(float(v), p[1]), "tolerance": 10 ** -p[1]}
                elif p[0] == "int":
                    if float(v) != int(v):
                        raise ValueError(f"question {i}: {name} is not an integer: {v!r}")
                    built[name] = {"kind": "int", "value": int(v)}
                else:
                    built[name] = {"kind": "text", "value": str(v)}
            answer = {"parts": built}
        else:
            kind = spec["kind"]
            answer = {"kind": kind}
            if kind == "number":
                answer["value"] = round(float(value), 6)
                answer["tolerance"] = spec["tolerance"]
            elif kind == "count":
                answer["value"] = int(value)
            elif kind == "list":
                answer["value"] = list(value)
                answer["ordered"] = spec["ordered"]
            else:
                answer["value"] = str(value)
            if "choices" in spec:
                answer["choices"] = spec["choices"]
        out.append({"id": f"{PREFIX}-{i:02d}", "table": q["table"], "frame": q["frame"],
                    "style": q["style"], "topics": q["topics"], "question": q["question"],
                    "answer": answer, "reference_code": q["reference_code"]})
    return out


def main() -> None:
    qs = build()
    (HERE / "questions.json").write_text(json.dumps(qs, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(qs)} questions")


if __name__ == "__main__":
    main()
