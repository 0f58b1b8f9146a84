"""Build questions.json for the eighth external evaluation set (folder external8).

Each answer is computed by running the question's `reference_code` on the committed CSV
(see `run_reference` in score.py: the table is read with `pd.read_csv` into the variable
named by `frame`; `pd`, `np` and `stats` (scipy.stats) are defined; the code assigns
`result`). Closed questions return a dict of parts, natural ones a single value.

Run by hand:  python benchmarks/external8/build_questions.py
crosscheck.py recomputes every answer a second, independent way.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x8"
QUESTIONS: list[dict] = []


def closed(table, frame, topics, question, code, parts):
    QUESTIONS.append(dict(table=table, frame=frame, style="closed", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _parts=parts))


def natural(table, frame, topics, question, code, **spec):
    QUESTIONS.append(dict(table=table, frame=frame, style="natural", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _spec=spec))


# ---------------------------------------------------------------- gestation_chds
T = "gestation_chds.csv"
closed(T, "chds", ["test", "groupby"], """
The Child Health and Development Studies table has one row per baby boy, with the birth weight `wt` in ounces and the mother's smoking status in `smoke`. Do babies of mothers who smoke now weigh less at birth than babies of mothers who never smoked?
Constraints: Welch's two-sample t-test (scipy.stats.ttest_ind with equal_var=False), the "now" group first, two-sided, decided at the 1% level.
Fill in the four brackets, one per line:
@mean_wt_now[ounces, 2 decimals]
@mean_wt_never[ounces, 2 decimals]
@welch_t[2 decimals]
@decision[reject or retain]
""", """
a = chds.loc[chds["smoke"] == "now", "wt"]
b = chds.loc[chds["smoke"] == "never", "wt"]
t, p = stats.ttest_ind(a, b, equal_var=False)
result = {"mean_wt_now": float(a.mean()), "mean_wt_never": float(b.mean()), "welch_t": float(t),
          "decision": "reject" if p < 0.01 else "retain"}
""", {"mean_wt_now": ("float", 2), "mean_wt_never": ("float", 2), "welch_t": ("float", 2), "decision": ("text",)})

closed(T, "chds", ["dates", "count"], """
Birth dates are stored as YYYY-MM-DD text in the `date` column. Parse them and find the calendar month with the most births, the day of the week on which the fewest babies were born, and how many babies were born before 1 January 1965.
Report back with @busiest_month[as YYYY-MM], @quietest_weekday[English day name, e.g. Tuesday] and @born_before_1965[whole number].
""", """
d = pd.to_datetime(chds["date"])
m = d.dt.strftime("%Y-%m").value_counts()
w = d.dt.day_name().value_counts()
result = {"busiest_month": str(m.idxmax()), "quietest_weekday": str(w.idxmin()),
          "born_before_1965": int((d < pd.Timestamp("1965-01-01")).sum())}
""", {"busiest_month": ("text",), "quietest_weekday": ("text",), "born_before_1965": ("int",)})

closed(T, "chds", ["missing", "correlation"], """
Several parental measurements are blank. Compute the Pearson correlation between gestation length (`gestation`, days) and birth weight (`wt`), count the rows where the father's height `dht` is blank, and name the column with the most blanks overall.
Constraints: the correlation uses only the rows where both columns are filled in.
Your reply should contain @r_gestation_wt[three decimals] @blank_dht[count] @most_blank_column[column name exactly as in the header]
""", """
x = chds[["gestation", "wt"]].dropna()
result = {"r_gestation_wt": float(x["gestation"].corr(x["wt"])), "blank_dht": int(chds["dht"].isna().sum()),
          "most_blank_column": str(chds.isna().sum().idxmax())}
""", {"r_gestation_wt": ("float", 3), "blank_dht": ("int",), "most_blank_column": ("text",)})

natural(T, "chds", ["summary", "filter"], "What's the average birth weight in pounds for babies whose mothers smoke now?", """
result = float(chds.loc[chds["smoke"] == "now", "wt"].mean() / 16)
""", kind="number", tolerance=0.02)

natural(T, "chds", ["groupby", "topk"], "Which mother's race group has the lightest babies on average?", """
result = str(chds.groupby("race")["wt"].mean().idxmin())
""", kind="label", choices="RACES")

# ---------------------------------------------------------------- australian_polls
T = "australian_polls.csv"
closed(T, "polls", ["dates", "groupby"], """
Each of the 239 Australian opinion polls (2004-2007) has a field period from `startDate` to `endDate` (YYYY-MM-DD). Define the field length as endDate minus startDate in days. Which survey house (`org`) has the longest mean field length, what is that mean, and how many polls ended in calendar year 2006?
Mark the results as @longest_field_org[org exactly as written], @longest_mean_days[2 d.p.], @ended_in_2006[integer].
""", """
s = pd.to_datetime(polls["startDate"])
e = pd.to_datetime(polls["endDate"])
m = (e - s).dt.days.groupby(polls["org"]).mean()
result = {"longest_field_org": str(m.idxmax()), "longest_mean_days": float(m.max()),
          "ended_in_2006": int((e.dt.year == 2006).sum())}
""", {"longest_field_org": ("text",), "longest_mean_days": ("float", 2), "ended_in_2006": ("int",)})

closed(T, "polls", ["test", "dates"], """
Kevin Rudd took over the Labor leadership on 4 December 2006. Compare the ALP vote share (`ALP`, percent) in polls whose `startDate` is on or after 2006-12-04 with the polls that started earlier.
Constraints: Welch's t-test, scipy.stats.ttest_ind(..., equal_var=False), the Rudd-era polls passed first, two-sided, alpha = 0.05.
Complete these fields:
@mean_alp_rudd[to the hundredth]
@mean_alp_before[to the hundredth]
@welch_t[to one decimal]
@verdict[reject or retain]
@gap_over_5_points[yes or no: is the Rudd-era mean more than 5 points higher]
""", """
r = pd.to_datetime(polls["startDate"]) >= pd.Timestamp("2006-12-04")
a, b = polls.loc[r, "ALP"], polls.loc[~r, "ALP"]
t, p = stats.ttest_ind(a, b, equal_var=False)
result = {"mean_alp_rudd": float(a.mean()), "mean_alp_before": float(b.mean()), "welch_t": float(t),
          "verdict": "reject" if p < 0.05 else "retain", "gap_over_5_points": "yes" if a.mean() - b.mean() > 5 else "no"}
""", {"mean_alp_rudd": ("float", 2), "mean_alp_before": ("float", 2), "welch_t": ("float", 1),
      "verdict": ("text",), "gap_over_5_points": ("text",)})

closed(T, "polls", ["correlation", "topk", "missing"], """
How strongly do the Labor and Liberal shares move against each other? Compute the Pearson correlation of `ALP` with `Lib` over all polls. Also name the three survey houses that ran the most polls and count the polls whose `remark` is blank.
Place the values here:
@r_alp_lib[rounded to 3 decimal places]
@busiest_houses[the three org names, most polls first, joined by a semicolon and a space]
@blank_remarks[number of polls]
""", """
vc = polls["org"].value_counts()
result = {"r_alp_lib": float(polls["ALP"].corr(polls["Lib"])),
          "busiest_houses": "; ".join(str(x) for x in vc.index[:3]),
          "blank_remarks": int(polls["remark"].isna().sum())}
""", {"r_alp_lib": ("float", 3), "busiest_houses": ("text",), "blank_remarks": ("int",)})

natural(T, "polls", ["missing", "count"], "how many polls have no source listed", """
result = int(polls["source"].isna().sum())
""", kind="count")

natural(T, "polls", ["missing", "summary"], "And for the polls that do have a source, what's the mean sample size?", """
result = float(polls.loc[polls["source"].notna(), "sampleSize"].mean())
""", kind="number", tolerance=0.5)

# ---------------------------------------------------------------- ontario_towns
T = "ontario_towns.csv"
closed(T, "towns", ["groupby", "count"], """
The Ontario table lists all 414 local municipalities with their census subdivision type (`csd_type`) and census populations. Group by `csd_type` and take the median of `population_2021`. Which type has the highest median, what is the median for villages, and how many municipalities are townships?
Encode the answers as @highest_median_type[csd_type value], @village_median[people, whole number], @n_townships[integer]
""", """
m = towns.groupby("csd_type")["population_2021"].median()
result = {"highest_median_type": str(m.idxmax()), "village_median": int(round(float(m["village"]))),
          "n_townships": int((towns["csd_type"] == "township").sum())}
""", {"highest_median_type": ("text",), "village_median": ("int",), "n_townships": ("int",)})

closed(T, "towns", ["strings", "missing"], """
Look at the `website` column. How many municipalities have no website, how many of the listed URLs contain "www.", and apart from .ca, which top-level domain (the letters after the last dot of the host) is the most common?
Deliverables, each on a separate line:
@no_website[count]
@www_sites[count]
@runner_up_domain[the domain letters without the dot, lower case]
""", """
w = towns["website"].dropna()
host = w.str.extract(r"^[A-Za-z]+://([^/]+)")[0]
tld = host.str.extract(r"\\.([A-Za-z]+)$")[0].str.lower().value_counts()
result = {"no_website": int(towns["website"].isna().sum()), "www_sites": int(w.str.contains("www.", regex=False).sum()),
          "runner_up_domain": str(tld.drop("ca").idxmax())}
""", {"no_website": ("int",), "www_sites": ("int",), "runner_up_domain": ("text",)})

closed(T, "towns", ["test", "groupby"], """
Did lower-tier municipalities grow faster than single-tier ones between 2016 and 2021? `pop_change_2016_2021_pct` holds the change as a fraction (0.05 = 5%); one municipality has it blank.
Constraints: blank rows dropped; Welch's t-test (scipy.stats.ttest_ind, equal_var=False) with the lower-tier group first; two-sided; 5% level.
Put your findings in @mean_lower[fraction, 4 decimals] @mean_single[fraction, 4 decimals] @t_value[2 decimals] @tiers_differ[yes or no]
""", """
x = towns.dropna(subset=["pop_change_2016_2021_pct"])
a = x.loc[x["status"] == "lower-tier", "pop_change_2016_2021_pct"]
b = x.loc[x["status"] == "single-tier", "pop_change_2016_2021_pct"]
t, p = stats.ttest_ind(a, b, equal_var=False)
result = {"mean_lower": float(a.mean()), "mean_single": float(b.mean()), "t_value": float(t),
          "tiers_differ": "yes" if p < 0.05 else "no"}
""", {"mean_lower": ("float", 4), "mean_single": ("float", 4), "t_value": ("float", 2), "tiers_differ": ("text",)})

natural(T, "towns", ["count", "filter"], "How many municipalities grew by more than 20% from 2016 to 2021?", """
result = int((towns["pop_change_2016_2021_pct"] > 0.2).sum())
""", kind="count")

natural(T, "towns", ["topk", "filter"], "Apart from Toronto, which municipality had the highest population density in 2021?", """
d = towns.loc[towns["name"] != "Toronto"].set_index("name")["density_2021"]
result = str(d.idxmax())
""", kind="label", choices="TOWNS")

# ---------------------------------------------------------------- baseball_1986
T = "baseball_1986.csv"
closed(T, "bb", ["missing", "groupby", "topk"], """
The 1986 baseball table has one row per hitter with the opening-day 1987 salary `sal87` (thousands of dollars), blank for some players. How many players have no salary, what is the median salary of those who have one, and, among the 1986 positions (`posit86`) held by at least 10 players in the table, which position has the highest mean salary?
Key results go in @no_salary[a count], @median_salary[one decimal] and @top_paying_position[position code as written].
""", """
s = bb["sal87"]
n = bb["posit86"].value_counts()
m = bb.groupby("posit86")["sal87"].mean()[n[n >= 10].index]
result = {"no_salary": int(s.isna().sum()), "median_salary": float(s.median()),
          "top_paying_position": str(m.idxmax())}
""", {"no_salary": ("int",), "median_salary": ("float", 1), "top_paying_position": ("text",)})

closed(T, "bb", ["regression"], """
How much is a 1986 hit worth in next season's pay? Regress `sal87` on `hits86` by ordinary least squares.
Constraints: only the players with a salary; scipy.stats.linregress(hits86, sal87).
Three numbers for the grader, line by line:
@slope[3 decimals]
@intercept[2 decimals]
@r_squared[3 decimals]
""", """
x = bb.dropna(subset=["sal87"])
fit = stats.linregress(x["hits86"], x["sal87"])
result = {"slope": float(fit.slope), "intercept": float(fit.intercept), "r_squared": float(fit.rvalue ** 2)}
""", {"slope": ("float", 3), "intercept": ("float", 2), "r_squared": ("float", 3)})

closed(T, "bb", ["feature engineering", "filter", "topk"], """
Batting average is hits86 / atbat86. Consider only the players with at least 300 at-bats in 1986. How many players qualify, who has the best average among them, and how many of them hit above .320?
Record them as @qualified[integer] @best_hitter[first name and last name separated by one space] @above_320[integer]
""", """
q = bb[bb["atbat86"] >= 300]
avg = q["hits86"] / q["atbat86"]
i = avg.idxmax()
result = {"qualified": int(len(q)), "best_hitter": f"{bb.loc[i, 'name1']} {bb.loc[i, 'name2']}",
          "above_320": int((avg > 0.320).sum())}
""", {"qualified": ("int",), "best_hitter": ("text",), "above_320": ("int",)})

natural(T, "bb", ["groupby", "topk"], "Give the three 1986 teams with the highest average 1987 salary, best paid first.", """
m = bb.groupby("team86")["sal87"].mean().sort_values(ascending=False)
result = [str(x) for x in m.index[:3]]
""", kind="list", ordered=True)

natural(T, "bb", ["groupby", "summary"], "Did American League players (league86) earn more on average in 1987 than National League players?", """
m = bb.groupby("league86")["sal87"].mean()
result = "yes" if m["A"] > m["N"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- world_gdp_decades
T = "world_gdp_decades.csv"
closed(T, "gdp", ["missing", "count"], """
The World Bank table has three rows per country (`description` is GDP, GDP growth or GDP per capita) and one column per decade from year_1960 to year_2020, with many blanks. Looking only at the rows whose description is GDP: how many have a value in all seven year columns, which year column has the most blanks, and how many lack a 2020 value?
Needed in the reply: @complete_rows[whole number], @emptiest_column[column name], @missing_2020[whole number]
""", """
x = gdp[gdp["description"] == "GDP"]
yrs = [c for c in gdp.columns if c.startswith("year_")]
result = {"complete_rows": int(x[yrs].notna().all(axis=1).sum()), "emptiest_column": str(x[yrs].isna().sum().idxmax()),
          "missing_2020": int(x["year_2020"].isna().sum())}
""", {"complete_rows": ("int",), "emptiest_column": ("text",), "missing_2020": ("int",)})

closed(T, "gdp", ["share", "topk"], """
Use the 2020 GDP rows (description GDP). What percentage of the World row's 2020 GDP is the United States' 2020 GDP, which country has the fifth largest 2020 GDP, and how many countries had a 2020 GDP above one trillion US dollars?
Constraints: the World row is not a country and is left out of the ranking and the count.
Provide each figure in its own bracket: @us_share_pct[percent, 1 decimal], @fifth_largest[country name as written], @trillion_countries[count]
""", """
x = gdp[gdp["description"] == "GDP"].set_index("country")["year_2020"]
world = x["World"]
c = x.drop("World").dropna().sort_values(ascending=False)
result = {"us_share_pct": float(100 * x["United States"] / world), "fifth_largest": str(c.index[4]),
          "trillion_countries": int((c > 1e12).sum())}
""", {"us_share_pct": ("float", 1), "fifth_largest": ("text",), "trillion_countries": ("int",)})

closed(T, "gdp", ["test", "distribution"], """
2020 was a pandemic year. Take the GDP growth rows (description GDP growth, annual %) for 2020, without the World row and without blanks. Give the median growth, the number of countries whose growth was below -5%, and test whether mean growth is zero.
Constraints: one-sample t-test, scipy.stats.ttest_1samp(values, 0), two-sided.
Output lines wanted:
@median_growth[percent, 2 decimals]
@below_minus_5[count]
@t_stat[2 decimals]
@shrank_significantly[yes if the mean is negative and p < 0.05, otherwise no]
""", """
g = gdp[(gdp["description"] == "GDP growth") & (gdp["country"] != "World")]["year_2020"].dropna()
t, p = stats.ttest_1samp(g, 0)
result = {"median_growth": float(g.median()), "below_minus_5": int((g < -5).sum()), "t_stat": float(t),
          "shrank_significantly": "yes" if g.mean() < 0 and p < 0.05 else "no"}
""", {"median_growth": ("float", 2), "below_minus_5": ("int",), "t_stat": ("float", 2), "shrank_significantly": ("text",)})

natural(T, "gdp", ["count", "filter"], "how many countries had a GDP per capita under 1000 dollars in 2020", """
x = gdp[(gdp["description"] == "GDP per capita") & (gdp["country"] != "World")]
result = int((x["year_2020"] < 1000).sum())
""", kind="count")

natural(T, "gdp", ["filter"], "Which countries had a GDP per capita above $80,000 in 2020?", """
x = gdp[gdp["description"] == "GDP per capita"]
result = sorted(str(c) for c in x.loc[x["year_2020"] > 80000, "country"])
""", kind="list", ordered=False)

# ---------------------------------------------------------------- climber_drugs
T = "climber_drugs.csv"
closed(T, "climb", ["duplicates", "count"], """
In the Mont Blanc urine-sample table each row is one substance found in one sample, and `positive_sample` identifies the sample, so a sample with several substances has several rows. How many distinct samples are there, how many of them show more than one substance, and how many substances does the sample with the most rows show?
Use these markers: @distinct_samples[integer], @multi_substance[integer], @most_substances[integer]
""", """
vc = climb["positive_sample"].value_counts()
result = {"distinct_samples": int(vc.size), "multi_substance": int((vc > 1).sum()), "most_substances": int(vc.max())}
""", {"distinct_samples": ("int",), "multi_substance": ("int",), "most_substances": ("int",)})

closed(T, "climb", ["test", "share"], """
Was screening analysis (`screening_analysis` yes/no) used more at one hut than the other? Cross-tabulate `hut` against `screening_analysis` over all rows and test for independence.
Constraints: scipy.stats.chi2_contingency with its defaults, so Yates' continuity correction is applied to the 2 x 2 table; decide at the 5% level.
Slots for the grader:
@chi_square[rounded to 3 decimals]
@pct_screened_gouter[percent of the GOUTER rows with screening yes, 1 decimal]
@independence[reject or retain]
""", """
tab = pd.crosstab(climb["hut"], climb["screening_analysis"])
chi, p, dof, _ = stats.chi2_contingency(tab)
g = climb[climb["hut"] == "GOUTER"]
result = {"chi_square": float(chi), "pct_screened_gouter": float(100 * (g["screening_analysis"] == "yes").mean()),
          "independence": "reject" if p < 0.05 else "retain"}
""", {"chi_square": ("float", 3), "pct_screened_gouter": ("float", 1), "independence": ("text",)})

closed(T, "climb", ["outliers", "distribution"], """
The `concentration` values (ng/ml) are very skewed. Flag high outliers with Tukey's rule: a value strictly above Q3 + 1.5 x IQR.
Constraints: quartiles by pandas' default quantile (linear interpolation) over all 211 rows.
Tag the results this way: @upper_fence[one decimal] @high_outliers[integer] @top_substance[the substance of the single largest concentration]
""", """
q1, q3 = climb["concentration"].quantile(0.25), climb["concentration"].quantile(0.75)
hi = q3 + 1.5 * (q3 - q1)
result = {"upper_fence": float(hi), "high_outliers": int((climb["concentration"] > hi).sum()),
          "top_substance": str(climb.loc[climb["concentration"].idxmax(), "substance"])}
""", {"upper_fence": ("float", 1), "high_outliers": ("int",), "top_substance": ("text",)})

natural(T, "climb", ["count", "groupby"], "Was acetazolamide found in more samples at GOUTER than at COSM?", """
a = climb[climb["substance"] == "Acetazolamide"].groupby("hut")["positive_sample"].nunique()
result = "yes" if a["GOUTER"] > a["COSM"] else "no"
""", kind="yesno")

natural(T, "climb", ["share", "groupby"], "And what percentage of the GOUTER samples contained it?", """
g = climb[climb["hut"] == "GOUTER"]
result = float(100 * g.loc[g["substance"] == "Acetazolamide", "positive_sample"].nunique() / g["positive_sample"].nunique())
""", kind="number", tolerance=0.5)


def _choices(name: str) -> list[str]:
    import pandas as pd

    if name == "RACES":
        df = pd.read_csv(HERE / "tables" / "gestation_chds.csv")
        return sorted(str(v) for v in df["race"].dropna().unique())
    if name == "TOWNS":
        df = pd.read_csv(HERE / "tables" / "ontario_towns.csv")
        return sorted(str(v) for v in df["name"].dropna().unique())
    raise KeyError(name)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external8.score import run_reference
    except ImportError:
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external8.score import run_reference

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
                answer["choices"] = _choices(spec["choices"])
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
