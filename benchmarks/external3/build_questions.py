"""Build questions.json from the question specifications below.

Each reference answer is computed by running the question's
`reference_code` on the committed CSV (see `run_reference` in score.py for
the execution convention: the table is loaded with `pd.read_csv` into the
variable named by `frame`; `pd`, `np` and `stats` (scipy.stats) are
available; the code assigns `result`). Closed questions return a dict of
parts; natural questions return a single value.

Run by hand:  python benchmarks/external3/build_questions.py
An independent second computation of every answer lives in crosscheck.py.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

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
    import pandas as pd

    vals = pd.read_csv(HERE / "tables" / table)[column].dropna().unique()
    return sorted(str(v) for v in vals)


# ---------------------------------------------------------------- gss_vocab
T = "gss_vocab.csv"
closed(T, "gss", ["missing", "share"], """
How many respondents have no vocabulary test score (`vocab`), and what percentage of all the rows in the table do they make up?
Constraints: count empty cells only; the percentage is taken over every row of the table.
Format:
@missing_vocab[count]
@missing_pct[pct]
where count is a whole number and pct is a percentage with two digits after the decimal point, written without the % sign.
""", """
m = gss["vocab"].isna()
result = {"missing_vocab": int(m.sum()), "missing_pct": float(m.mean() * 100)}
""", {"missing_vocab": ("int",), "missing_pct": ("float", 2)})

closed(T, "gss", ["groupby", "dates"], """
Which survey year has the highest average vocabulary score, and what is that average?
Constraints: ignore the rows where `vocab` is missing.
Format: @best_year[year] @mean_vocab[average]
Give the year as an integer and the average rounded to 3 decimals.
""", """
m = gss.dropna(subset=["vocab"]).groupby("year")["vocab"].mean()
result = {"best_year": int(m.idxmax()), "mean_vocab": float(m.max())}
""", {"best_year": ("int",), "mean_vocab": ("float", 3)})

closed(T, "gss", ["test", "groupby"], """
Test whether `nativeBorn` and `educGroup` are independent, using a chi-square test of independence on their contingency table.
Constraints: drop the rows where either column is missing; no continuity correction; significance level 0.05.
Format:
@chi2_stat[statistic]
@degrees_of_freedom[df]
@independent[verdict]
statistic rounded to 1 decimal place; df an integer; verdict is "no" if the p-value is below 0.05 and "yes" otherwise.
""", """
d = gss.dropna(subset=["nativeBorn", "educGroup"])
ct = pd.crosstab(d["nativeBorn"], d["educGroup"])
chi2, p, dof, _ = stats.chi2_contingency(ct, correction=False)
result = {"chi2_stat": float(chi2), "degrees_of_freedom": int(dof), "independent": "no" if p < 0.05 else "yes"}
""", {"chi2_stat": ("float", 1), "degrees_of_freedom": ("int",), "independent": ("text",)})

closed(T, "gss", ["filter", "count"], """
How many women surveyed in 2016 who were born in the country, aged 30 to 39 (both ends included), scored 8 or more on the vocabulary test? Format: @n_respondents[n], n being an integer.
""", """
d = gss[(gss["year"] == 2016) & (gss["gender"] == "female") & (gss["nativeBorn"] == "yes")
        & gss["age"].between(30, 39) & (gss["vocab"] >= 8)]
result = {"n_respondents": int(len(d))}
""", {"n_respondents": ("int",)})

natural(T, "gss", ["count", "groupby"], "Which survey year has the most respondents?", """
vc = gss["year"].value_counts()
result = str(vc.idxmax())
""", kind="label", choices=choices_of(T, "year"))

natural(T, "gss", ["groupby", "summary"], "Do men score higher than women on the vocabulary test, on average?", """
m = gss.dropna(subset=["vocab"]).groupby("gender")["vocab"].mean()
result = "yes" if m["male"] > m["female"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- storms
T = "storms.csv"
closed(T, "storms", ["regression", "correlation"], """
Fit a simple linear regression with `pressure` as the response and `wind` as the only predictor, over all rows of the table. What are the slope and the coefficient of determination?
Constraints: ordinary least squares with an intercept.
Format: @slope[b] @r_squared[r2] — b in hPa per knot rounded to 3 decimals, r2 between 0 and 1 rounded to 3 decimals.
""", """
res = stats.linregress(storms["wind"], storms["pressure"])
result = {"slope": float(res.slope), "r_squared": float(res.rvalue ** 2)}
""", {"slope": ("float", 3), "r_squared": ("float", 3)})

closed(T, "storms", ["groupby", "topk"], """
Treat a storm as one combination of `name` and `year`. Which storm reached the highest `wind` speed of all, and what was that speed?
Format:
@storm_name[name]
@storm_year[year]
@peak_wind[speed]
name as written in the data, year as a four-digit integer, speed in knots as an integer.
""", """
peak = storms.groupby(["name", "year"])["wind"].max()
name, year = peak.idxmax()
result = {"storm_name": str(name), "storm_year": int(year), "peak_wind": int(peak.max())}
""", {"storm_name": ("text",), "storm_year": ("int",), "peak_wind": ("int",)})

closed(T, "storms", ["dates", "filter"], """
Build a timestamp for every record from `year`, `month`, `day` and `hour`. For the storm named "Katrina" in 2005, how many hours passed between its first and its last record, and how many records does it have?
Constraints: only rows with name "Katrina" and year 2005.
Format: @duration_hours[h] @n_records[n] (h and n are both whole numbers)
""", """
d = storms[(storms["name"] == "Katrina") & (storms["year"] == 2005)]
ts = pd.to_datetime(d[["year", "month", "day", "hour"]])
result = {"duration_hours": int((ts.max() - ts.min()) / pd.Timedelta(hours=1)), "n_records": int(len(d))}
""", {"duration_hours": ("int",), "n_records": ("int",)})

natural(T, "storms", ["count", "filter"], "How many distinct storms (name + year) have the status hurricane in at least one of their records?", """
h = storms[storms["status"] == "hurricane"]
result = int(h[["name", "year"]].drop_duplicates().shape[0])
""", kind="count")

natural(T, "storms", ["groupby", "filter"], "give me the years that had more than 20 different storms (a storm being a name + year pair)", """
n = storms[["name", "year"]].drop_duplicates().groupby("year").size()
result = sorted(str(y) for y in n[n > 20].index)
""", kind="list", ordered=False)

natural(T, "storms", ["missing", "share"], "what percentage of the records have no tropical storm force diameter?", """
result = float(storms["tropicalstorm_force_diameter"].isna().mean() * 100)
""", kind="number", tolerance=0.1)

# ---------------------------------------------------------------- us_diseases
T = "us_diseases.csv"
closed(T, "diseases", ["missing", "count"], """
How many rows have no `population` value, and how many distinct states do those rows belong to? Format: @rows_missing_population[integer] @states_affected[integer]
""", """
m = diseases[diseases["population"].isna()]
result = {"rows_missing_population": int(len(m)), "states_affected": int(m["state"].nunique())}
""", {"rows_missing_population": ("int",), "states_affected": ("int",)})

closed(T, "diseases", ["feature engineering", "groupby"], """
For Measles only, compute a yearly rate per 100,000 people adjusted for incomplete reporting: rate = count / weeks_reporting * 52 / population * 100000. Which state and year has the highest rate, and what is it?
Constraints: keep only rows with `weeks_reporting` greater than 0 and a recorded `population`.
Format:
@state[state name as spelled in the table]
@year[four-digit year]
@rate[the rate, one decimal place]
""", """
d = diseases[(diseases["disease"] == "Measles") & (diseases["weeks_reporting"] > 0)].dropna(subset=["population"]).copy()
d["rate"] = d["count"] / d["weeks_reporting"] * 52 / d["population"] * 100000
top = d.loc[d["rate"].idxmax()]
result = {"state": str(top["state"]), "year": int(top["year"]), "rate": float(top["rate"])}
""", {"state": ("text",), "year": ("int",), "rate": ("float", 1)})

closed(T, "diseases", ["topk", "groupby"], """
Which three states reported the most Polio cases in total, over all years?
Format: @top_states[s1, s2, s3]
List the three state names inside the brackets from the largest total to the smallest, separated by ", ".
""", """
tot = diseases[diseases["disease"] == "Polio"].groupby("state")["count"].sum().sort_values(ascending=False)
result = {"top_states": ", ".join(tot.index[:3])}
""", {"top_states": ("text",)})

closed(T, "diseases", ["change", "groupby"], """
Add up the Measles counts of all states for each year. In which year was this national total the highest, and by what percentage did the national total fall from 1962 to 1970, computed as (1 - total_1970 / total_1962) * 100?
Format: @peak_year[year] @drop_pct[percent]
Here year is an integer and percent a number with one digit after the decimal point.
""", """
tot = diseases[diseases["disease"] == "Measles"].groupby("year")["count"].sum()
result = {"peak_year": int(tot.idxmax()), "drop_pct": float((1 - tot[1970] / tot[1962]) * 100)}
""", {"peak_year": ("int",), "drop_pct": ("float", 1)})

natural(T, "diseases", ["groupby", "summary"], "Which disease has the largest total number of reported cases across all states and years?", """
result = str(diseases.groupby("disease")["count"].sum().idxmax())
""", kind="label", choices=choices_of(T, "disease"))

natural(T, "diseases", ["filter", "count"], "how many rows say zero weeks were reported?", """
result = int((diseases["weeks_reporting"] == 0).sum())
""", kind="count")

# ---------------------------------------------------------------- student_survey
T = "student_survey.csv"
closed(T, "survey", ["test", "groupby"], """
Do male and female students differ in height? Run Welch's two-sample t-test on `Height`, male minus female.
Constraints: drop rows where `Sex` or `Height` is missing; two-sided test; significance level 0.01.
Format:
@t_stat[t]
@significant[yes/no]
t rounded to 2 decimal places; the second part is yes when p < 0.01, otherwise no.
""", """
d = survey.dropna(subset=["Sex", "Height"])
t, p = stats.ttest_ind(d.loc[d["Sex"] == "Male", "Height"], d.loc[d["Sex"] == "Female", "Height"], equal_var=False)
result = {"t_stat": float(t), "significant": "yes" if p < 0.01 else "no"}
""", {"t_stat": ("float", 2), "significant": ("text",)})

closed(T, "survey", ["missing", "feature engineering"], """
How many students have at least one missing value anywhere in their row? Then fill the missing `Pulse` values with the median pulse of the students who have one, and report the mean of the filled `Pulse` column.
Format: @incomplete_rows[count] @mean_pulse_filled[mean]
(count: an integer; mean: rounded to two decimals)
""", """
filled = survey["Pulse"].fillna(survey["Pulse"].median())
result = {"incomplete_rows": int(survey.isna().any(axis=1).sum()), "mean_pulse_filled": float(filled.mean())}
""", {"incomplete_rows": ("int",), "mean_pulse_filled": ("float", 2)})

closed(T, "survey", ["outliers", "distribution"], """
Flag outliers in `Age` with the 1.5 × IQR rule: a value is an outlier if it is below Q1 − 1.5·IQR or above Q3 + 1.5·IQR.
Constraints: quartiles computed with linear interpolation (pandas' default `quantile`); use every student.
Format:
@n_outliers[number of outlying students, integer]
@upper_fence[Q3 + 1.5·IQR, rounded to 3 decimals]
""", """
q1, q3 = survey["Age"].quantile([0.25, 0.75])
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
result = {"n_outliers": int(((survey["Age"] < lo) | (survey["Age"] > hi)).sum()), "upper_fence": float(hi)}
""", {"n_outliers": ("int",), "upper_fence": ("float", 3)})

natural(T, "survey", ["share", "missing"], "Among the students who answered the smoking question, what percentage never smoke?", """
s = survey["Smoke"].dropna()
result = float((s == "Never").mean() * 100)
""", kind="number", tolerance=0.1)

natural(T, "survey", ["groupby"], "Which smoking group has the highest average pulse?", """
result = str(survey.groupby("Smoke")["Pulse"].mean().idxmax())
""", kind="label", choices=choices_of(T, "Smoke"))

natural(T, "survey", ["count", "topk"], "List the answers to the clapping question (`Clap`) from most to least common.", """
result = [str(v) for v in survey["Clap"].value_counts().index]
""", kind="list", ordered=True)

# ---------------------------------------------------------------- airports
T = "airports.csv"
closed(T, "airports", ["missing"], """
How many airports have no `city` recorded, and how many have no `state` recorded?
Format: @missing_city[an integer] @missing_state[an integer]
""", """
result = {"missing_city": int(airports["city"].isna().sum()), "missing_state": int(airports["state"].isna().sum())}
""", {"missing_city": ("int",), "missing_state": ("int",)})

closed(T, "airports", ["groupby", "count"], """
Which state has the largest number of airports, and how many airports does it have?
Constraints: rows without a state are ignored.
Format:
@state[two-letter code]
@n_airports[count]
(count is a whole number)
""", """
vc = airports["state"].value_counts()
result = {"state": str(vc.idxmax()), "n_airports": int(vc.max())}
""", {"state": ("text",), "n_airports": ("int",)})

closed(T, "airports", ["filter", "feature engineering"], """
How many airports have the word "municipal" in their `name`, ignoring case? And how many airports lie both north of latitude 60 and west of longitude −150 (strict inequalities)?
Format: @municipal[n1] @far_northwest[n2] — both are integer counts.
""", """
mun = airports["name"].str.contains("municipal", case=False, na=False)
nw = (airports["latitude"] > 60) & (airports["longitude"] < -150)
result = {"municipal": int(mun.sum()), "far_northwest": int(nw.sum())}
""", {"municipal": ("int",), "far_northwest": ("int",)})

closed(T, "airports", ["groupby", "filter", "summary"], """
Consider only the states with at least 100 airports. Which of them has the southernmost mean latitude, and what is that mean latitude?
Constraints: the mean is over all airports of the state; rows without a state are ignored.
Format:
@southernmost_state[code as in the data]
@mean_latitude[degrees, rounded to 2 decimal places]
""", """
g = airports.groupby("state")["latitude"].agg(["mean", "size"])
g = g[g["size"] >= 100]
result = {"southernmost_state": str(g["mean"].idxmin()), "mean_latitude": float(g["mean"].min())}
""", {"southernmost_state": ("text",), "mean_latitude": ("float", 2)})

natural(T, "airports", ["topk", "count"], "Which city names are shared by at least nine airports?", """
vc = airports["city"].value_counts()
result = sorted(str(c) for c in vc[vc >= 9].index)
""", kind="list", ordered=False)

natural(T, "airports", ["filter", "count"], "is there any airport in the table located south of the equator?", """
result = "yes" if (airports["latitude"] < 0).any() else "no"
""", kind="yesno")

# ---------------------------------------------------------------- grunfeld
T = "grunfeld.csv"
closed(T, "grunfeld", ["regression"], """
Regress gross investment (`invest`) on the market value of the firm (`value`) by ordinary least squares with an intercept, pooling all firms and years. Report the slope and the R-squared.
Format:
@slope[slope, 4 decimal places]
@r2[R-squared, 3 decimal places]
""", """
res = stats.linregress(grunfeld["value"], grunfeld["invest"])
result = {"slope": float(res.slope), "r2": float(res.rvalue ** 2)}
""", {"slope": ("float", 4), "r2": ("float", 3)})

closed(T, "grunfeld", ["change", "groupby"], """
For every firm, compute the percentage change of `invest` from 1935 to 1954: (invest in 1954 / invest in 1935 − 1) × 100. Which firm grew the most, and by how much?
Format: @firm[firm name exactly as in the data] @growth_pct[percentage rounded to 1 decimal, without the % sign]
""", """
w = grunfeld.pivot(index="firm", columns="year", values="invest")
g = (w[1954] / w[1935] - 1) * 100
result = {"firm": str(g.idxmax()), "growth_pct": float(g.max())}
""", {"firm": ("text",), "growth_pct": ("float", 1)})

closed(T, "grunfeld", ["test", "groupby"], """
Is the mean investment the same for all firms? Run a one-way ANOVA of `invest` with `firm` as the grouping factor.
Constraints: all rows; significance level 0.05.
Format:
@f_statistic[F]
@equal_means[decision]
F rounded to 2 decimals; decision must be "rejected" if p < 0.05 and "not rejected" otherwise.
""", """
groups = [g["invest"].to_numpy() for _, g in grunfeld.groupby("firm")]
F, p = stats.f_oneway(*groups)
result = {"f_statistic": float(F), "equal_means": "rejected" if p < 0.05 else "not rejected"}
""", {"f_statistic": ("float", 2), "equal_means": ("text",)})

natural(T, "grunfeld", ["filter", "topk"], "Which firm had the largest capital stock in 1954?", """
d = grunfeld[grunfeld["year"] == 1954]
result = str(d.loc[d["capital"].idxmax(), "firm"])
""", kind="label", choices=choices_of(T, "firm"))

natural(T, "grunfeld", ["groupby", "filter"], "list the firms whose average investment over the whole period is above 100", """
m = grunfeld.groupby("firm")["invest"].mean()
result = sorted(str(f) for f in m[m > 100].index)
""", kind="list", ordered=False)

natural(T, "grunfeld", ["filter", "summary"], "Did General Motors invest more than US Steel in every single year?", """
w = grunfeld.pivot(index="year", columns="firm", values="invest")
result = "yes" if (w["General Motors"] > w["US Steel"]).all() else "no"
""", kind="yesno")

# ---------------------------------------------------------------- economics
T = "economics.csv"
closed(T, "econ", ["dates", "groupby"], """
Extract the year from `date` and average the personal savings rate (`psavert`) by year. Which year has the highest average, and what is it?
Constraints: only years with all 12 monthly observations present.
Format:
@year[YYYY]
@avg_psavert[average, 2 decimals]
""", """
d = econ.assign(year=pd.to_datetime(econ["date"]).dt.year)
g = d.groupby("year")["psavert"].agg(["mean", "size"])
g = g[g["size"] == 12]
result = {"year": int(g["mean"].idxmax()), "avg_psavert": float(g["mean"].max())}
""", {"year": ("int",), "avg_psavert": ("float", 2)})

closed(T, "econ", ["feature engineering", "dates"], """
Create an unemployment share column equal to `unemploy` / `pop` × 100 (both are in thousands). In which month is it the highest, and what is its value?
Format: @month[the `date` of that row, as YYYY-MM-DD] @share[value rounded to three decimal places]
""", """
s = econ["unemploy"] / econ["pop"] * 100
i = s.idxmax()
result = {"month": str(econ.loc[i, "date"]), "share": float(s[i])}
""", {"month": ("text",), "share": ("float", 3)})

closed(T, "econ", ["change", "dates"], """
Compute the month-over-month change in the number of unemployed (`unemploy`, in thousands), with the rows in date order. Which month saw the largest single-month increase, and how large was it?
Format:
@date_of_jump[date]
@increase[thousands]
where date is written as in the `date` column and thousands is an integer.
""", """
d = econ.sort_values("date")
ch = d["unemploy"].diff()
i = ch.idxmax()
result = {"date_of_jump": str(d.loc[i, "date"]), "increase": int(ch[i])}
""", {"date_of_jump": ("text",), "increase": ("int",)})

closed(T, "econ", ["correlation", "test"], """
Compute the Pearson correlation between the personal savings rate (`psavert`) and the median duration of unemployment (`uempmed`), and test it.
Constraints: all months; two-sided test, alpha = 0.05.
Format:
@pearson_r[r to 3 decimals]
@direction["positive" or "negative" if significant, "none" if not]
""", """
r, p = stats.pearsonr(econ["psavert"], econ["uempmed"])
result = {"pearson_r": float(r), "direction": ("positive" if r > 0 else "negative") if p < 0.05 else "none"}
""", {"pearson_r": ("float", 3), "direction": ("text",)})

natural(T, "econ", ["filter", "count"], "How many months had a personal savings rate below 3%?", """
result = int((econ["psavert"] < 3).sum())
""", kind="count")

natural(T, "econ", ["filter", "summary"], "what was the median unemployment duration in the month with the most unemployed people?", """
result = float(econ.loc[econ["unemploy"].idxmax(), "uempmed"])
""", kind="number", tolerance=0.05)

# ---------------------------------------------------------------- reported_heights
T = "reported_heights.csv"
closed(T, "heights", ["missing", "feature engineering"], """
The `height` column is free text. Convert it to numbers, treating anything that does not parse as a number as missing. How many entries fail to parse, and how many parsed values lie between 50 and 84 inches (inclusive)?
Constraints: use pd.to_numeric with errors="coerce" and no other clean-up.
Format:
@unparseable[count]
@plausible_inches[count]
Both counts are integers.
""", """
h = pd.to_numeric(heights["height"], errors="coerce")
result = {"unparseable": int(h.isna().sum()), "plausible_inches": int(h.between(50, 84).sum())}
""", {"unparseable": ("int",), "plausible_inches": ("int",)})

closed(T, "heights", ["groupby", "filter"], """
Keep only the entries whose `height` parses as a number between 50 and 84 inclusive (pd.to_numeric with errors="coerce"). By how many inches does the mean male height exceed the mean female height? Format: @gap_inches[x] with x given to 2 decimal places.
""", """
h = pd.to_numeric(heights["height"], errors="coerce")
d = heights.assign(h=h)[h.between(50, 84)]
m = d.groupby("sex")["h"].mean()
result = {"gap_inches": float(m["Male"] - m["Female"])}
""", {"gap_inches": ("float", 2)})

closed(T, "heights", ["dates", "share"], """
Parse `time_stamp` as a date-time and extract the year. Which year has the most reports, and what percentage of all reports fall in that year?
Format: @busiest_year[year] @pct_of_reports[percentage]
The year is a whole number; round the percentage to one decimal.
""", """
y = pd.to_datetime(heights["time_stamp"]).dt.year
vc = y.value_counts()
result = {"busiest_year": int(vc.idxmax()), "pct_of_reports": float(vc.max() / len(heights) * 100)}
""", {"busiest_year": ("int",), "pct_of_reports": ("float", 1)})

natural(T, "heights", ["count"], "How many reports come from females?", """
result = int((heights["sex"] == "Female").sum())
""", kind="count")

natural(T, "heights", ["summary", "filter"], "Looking only at heights that are plain numbers between 50 and 84, is the median male height above 69 inches?", """
h = pd.to_numeric(heights["height"], errors="coerce")
d = heights.assign(h=h)[h.between(50, 84)]
result = "yes" if d.loc[d["sex"] == "Male", "h"].median() > 69 else "no"
""", kind="yesno")

natural(T, "heights", ["topk", "count"], "what are the three most common entries in the height column, most common first?", """
result = [str(v) for v in heights["height"].value_counts().index[:3]]
""", kind="list", ordered=True)

def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external3.score import run_reference
    except ImportError:  # run as a script
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external3.score import run_reference

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
        out.append({"id": f"x3-{i:02d}", "table": q["table"], "frame": q["frame"],
                    "style": q["style"], "topics": q["topics"], "question": q["question"],
                    "answer": answer, "reference_code": q["reference_code"]})
    return out


def main() -> None:
    qs = build()
    (HERE / "questions.json").write_text(json.dumps(qs, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(qs)} questions")


if __name__ == "__main__":
    main()
