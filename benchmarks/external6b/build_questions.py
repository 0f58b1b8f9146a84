"""Build questions.json for the sixth external evaluation set (folder external6b).

Each answer is computed by running the question's `reference_code` on the committed CSV
(see `run_reference` in score.py: the table is read with `pd.read_csv` into the variable
named by `frame`; `pd`, `np` and `stats` (scipy.stats) are defined; the code assigns
`result`). Closed questions return a dict of parts, natural ones a single value.

Run by hand:  python benchmarks/external6b/build_questions.py
crosscheck.py recomputes every answer a second, independent way.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x6"
QUESTIONS: list[dict] = []


def closed(table, frame, topics, question, code, parts):
    QUESTIONS.append(dict(table=table, frame=frame, style="closed", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _parts=parts))


def natural(table, frame, topics, question, code, **spec):
    QUESTIONS.append(dict(table=table, frame=frame, style="natural", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _spec=spec))


def choices_of(table, column):
    import pandas as pd

    df = pd.read_csv(HERE / "tables" / table)
    return sorted(str(v) for v in df[column].dropna().unique())


# ---------------------------------------------------------------- cia_factbook
T = "cia_factbook.csv"
closed(T, "cia", ["missing", "count"], """
The CIA World Factbook extract has one row per country or territory and ten numeric indicators, many of them blank for small territories. How many rows have no `population`, how many rows have all ten numeric indicators filled in, and which indicator is blank most often?
Report as: @no_population[whole number] @complete_rows[whole number] @most_missing[the column name as it appears in the header]
""", """
num = cia.drop(columns=["country"])
result = {"no_population": int(cia["population"].isna().sum()),
          "complete_rows": int(num.notna().all(axis=1).sum()),
          "most_missing": str(num.isna().sum().idxmax())}
""", {"no_population": ("int",), "complete_rows": ("int",), "most_missing": ("text",)})

closed(T, "cia", ["feature engineering", "topk"], """
Derive two columns: density = population / area (people per square km) and internet_pct = 100 * internet_users / population. Restrict to rows with an area of at least 10,000 sq km. Which country is the densest, what is its density, and which country has the highest internet_pct?
Constraints: rows missing any of the values a column needs are left out of that column's ranking.
Reply using these tags, each on a line of its own:
@densest_country[name exactly as in the data]
@density[people per sq km, rounded to one decimal]
@most_online[name exactly as in the data]
""", """
big = cia[cia["area"] >= 10000].copy()
big["density"] = big["population"] / big["area"]
big["internet_pct"] = 100 * big["internet_users"] / big["population"]
d = big.dropna(subset=["density"])
i = big.dropna(subset=["internet_pct"])
result = {"densest_country": str(d.loc[d["density"].idxmax(), "country"]),
          "density": float(d["density"].max()),
          "most_online": str(i.loc[i["internet_pct"].idxmax(), "country"])}
""", {"densest_country": ("text",), "density": ("float", 1), "most_online": ("text",)})

closed(T, "cia", ["correlation"], """
Is a high birth rate associated with a shorter life expectancy? Compute the Pearson correlation between `birth_rate` and `life_exp_at_birth` and the Spearman rank correlation between `infant_mortality_rate` and `life_exp_at_birth`.
Constraints: each coefficient uses the rows where both of its columns are present (pairwise deletion).
Expected reply — @pearson_birth_life[keep three digits after the point], @spearman_infant_life[keep three digits after the point], @both_negative[yes or no].
""", """
a = cia[["birth_rate", "life_exp_at_birth"]].dropna()
b = cia[["infant_mortality_rate", "life_exp_at_birth"]].dropna()
r = float(a["birth_rate"].corr(a["life_exp_at_birth"]))
rho = float(stats.spearmanr(b["infant_mortality_rate"], b["life_exp_at_birth"])[0])
result = {"pearson_birth_life": r, "spearman_infant_life": rho,
          "both_negative": "yes" if r < 0 and rho < 0 else "no"}
""", {"pearson_birth_life": ("float", 3), "spearman_infant_life": ("float", 3), "both_negative": ("text",)})

natural(T, "cia", ["count", "filter"], "How many countries are shrinking, i.e. have a negative population growth rate?", """
result = int((cia["population_growth_rate"] < 0).sum())
""", kind="count")

natural(T, "cia", ["topk", "filter"], "And which of those has the largest population?", """
s = cia[cia["population_growth_rate"] < 0]
result = str(s.loc[s["population"].idxmax(), "country"])
""", kind="label", choices="NEG_GROWTH")

# ---------------------------------------------------------------- cholera_1849
T = "cholera_1849.csv"
closed(T, "chol", ["dates", "groupby"], """
This table gives daily deaths in London in 1849, one row per day and cause (cholera or diarrhoea). Parse `date` as a date. Looking at cholera alone, which calendar month had the most deaths, how many deaths did that month have, and on which day did cholera kill the most people?
Fill in, one line per part:
@peak_month[month number, 1-12]
@peak_month_deaths[integer]
@worst_day[date written YYYY-MM-DD]
""", """
c = chol[chol["cause_of_death"] == "Cholera"].copy()
c["date"] = pd.to_datetime(c["date"])
m = c.groupby(c["date"].dt.month)["deaths"].sum()
result = {"peak_month": int(m.idxmax()), "peak_month_deaths": int(m.max()),
          "worst_day": c.loc[c["deaths"].idxmax(), "date"].strftime("%Y-%m-%d")}
""", {"peak_month": ("int",), "peak_month_deaths": ("int",), "worst_day": ("text",)})

closed(T, "chol", ["share", "groupby"], """
What percentage of all deaths recorded in the table (both causes together) are cholera deaths, and on which day of the week were the most diarrhoea deaths recorded in total?
Provide @cholera_pct[a percentage, one digit after the decimal point, without the % sign] and @diarrhoea_weekday[one of Mon, Tue, Wed, Thu, Fri, Sat, Sun].
""", """
tot = chol.groupby("cause_of_death")["deaths"].sum()
d = chol[chol["cause_of_death"] == "Diarrhaea"].groupby("day_of_week")["deaths"].sum()
result = {"cholera_pct": float(100 * tot["Cholera"] / tot.sum()), "diarrhoea_weekday": str(d.idxmax())}
""", {"cholera_pct": ("float", 1), "diarrhoea_weekday": ("text",)})

closed(T, "chol", ["test", "dates"], """
Did daily cholera deaths differ between the first half of 1849 (January to June) and the second half (July to December)? Use the cholera rows only and compare the daily death counts of the two halves.
Constraints: Welch's t-test (scipy.stats.ttest_ind with equal_var=False), first half passed first; decide at alpha = 0.05.
Write your result like this (one per line):
@mean_first_half[mean daily deaths, 2 dp]
@mean_second_half[mean daily deaths, 2 dp]
@t_statistic[2 dp]
@verdict[reject or retain the null hypothesis of equal means]
""", """
c = chol[chol["cause_of_death"] == "Cholera"]
mo = pd.to_datetime(c["date"]).dt.month
a, b = c.loc[mo <= 6, "deaths"], c.loc[mo >= 7, "deaths"]
t, p = stats.ttest_ind(a, b, equal_var=False)
result = {"mean_first_half": float(a.mean()), "mean_second_half": float(b.mean()), "t_statistic": float(t),
          "verdict": "reject" if p < 0.05 else "retain"}
""", {"mean_first_half": ("float", 2), "mean_second_half": ("float", 2), "t_statistic": ("float", 2), "verdict": ("text",)})

natural(T, "chol", ["count", "filter"], "on how many days did cholera kill more than 400 people", """
result = int(((chol["cause_of_death"] == "Cholera") & (chol["deaths"] > 400)).sum())
""", kind="count")

natural(T, "chol", ["dates", "filter"], "And what was the first date that happened?", """
c = chol[(chol["cause_of_death"] == "Cholera") & (chol["deaths"] > 400)]
result = str(pd.to_datetime(c["date"]).min().strftime("%Y-%m-%d"))
""", kind="label", choices="DATES")

# ---------------------------------------------------------------- nba_players_2019
T = "nba_players_2019.csv"
closed(T, "nba", ["groupby", "topk"], """
Heights in the 2019 NBA roster table are in inches. Take the mean height of each listed `position` (seven labels, including combined ones such as Guard-Forward). Which position is tallest on average, what is that mean, and which position is shortest on average?
Deliver the answer as @tallest_position[position label as written] @tallest_mean_height[inches, rounded to two decimals] @shortest_position[position label as written]
""", """
m = nba.groupby("position")["height"].mean()
result = {"tallest_position": str(m.idxmax()), "tallest_mean_height": float(m.max()),
          "shortest_position": str(m.idxmin())}
""", {"tallest_position": ("text",), "tallest_mean_height": ("float", 2), "shortest_position": ("text",)})

closed(T, "nba", ["strings", "duplicates"], """
Surnames repeat across the league. How many distinct last names are shared by two or more players, which last name is the most common, and how many players have a hyphen in their last name?
Constraints: compare last names exactly as written; the one player with no last name is ignored.
Respond with the following fields:
@shared_surnames[count]
@commonest_surname[surname]
@hyphenated[count]
""", """
ln = nba["last_name"].dropna()
vc = ln.value_counts()
result = {"shared_surnames": int((vc >= 2).sum()), "commonest_surname": str(vc.idxmax()),
          "hyphenated": int(ln.str.contains("-", regex=False).sum())}
""", {"shared_surnames": ("int",), "commonest_surname": ("text",), "hyphenated": ("int",)})

closed(T, "nba", ["test", "groupby"], """
Do heights differ between the three single positions Guard, Forward and Center? Leave out the combined positions and run a one-way ANOVA on height.
Constraints: scipy.stats.f_oneway with the groups in the order Guard, Forward, Center.
Template: @f_stat[F statistic, nearest integer] @df_within[integer] @differ[yes if p < 0.001, no otherwise]
""", """
g = [nba.loc[nba["position"] == p, "height"] for p in ("Guard", "Forward", "Center")]
f, p = stats.f_oneway(*g)
result = {"f_stat": int(round(float(f))), "df_within": int(sum(len(x) for x in g) - 3),
          "differ": "yes" if p < 0.001 else "no"}
""", {"f_stat": ("int",), "df_within": ("int",), "differ": ("text",)})

natural(T, "nba", ["groupby", "topk"], "Which three teams have the tallest rosters on average? tallest first", """
m = nba.groupby("team")["height"].mean().sort_values(ascending=False)
result = [str(t) for t in m.index[:3]]
""", kind="list", ordered=True)

natural(T, "nba", ["groupby", "topk"], "And the shortest roster?", """
result = str(nba.groupby("team")["height"].mean().idxmin())
""", kind="label", choices="TEAMS")

# ---------------------------------------------------------------- ca_schools
T = "ca_schools.csv"
closed(T, "schools", ["feature engineering", "filter"], """
For the California school districts compute the pupil-teacher ratio, students / teachers. Which district (the `school` column) has the highest ratio, what is it, and how many districts have a ratio below 19?
Output spec — @highest_ratio_school[school name as written] @highest_ratio[ratio, 2 d.p.] @below_19[number of districts]
""", """
r = schools["students"] / schools["teachers"]
result = {"highest_ratio_school": str(schools.loc[r.idxmax(), "school"]), "highest_ratio": float(r.max()),
          "below_19": int((r < 19).sum())}
""", {"highest_ratio_school": ("text",), "highest_ratio": ("float", 2), "below_19": ("int",)})

closed(T, "schools", ["regression"], """
Regress the district's average math score `math` on district `income` (in thousands of dollars) by ordinary least squares with an intercept. Report the slope, the intercept and the R-squared.
Put the numbers into @slope[3 decimals] @intercept[2 decimals] @r_squared[3 decimals], inline, separated by spaces.
""", """
b, a = np.polyfit(schools["income"], schools["math"], 1)
r = schools["income"].corr(schools["math"])
result = {"slope": float(b), "intercept": float(a), "r_squared": float(r ** 2)}
""", {"slope": ("float", 3), "intercept": ("float", 2), "r_squared": ("float", 3)})

closed(T, "schools", ["test", "groupby"], """
Districts are either KK-06 or KK-08 (`grades`). Do their mean reading scores differ? Also give the mean `read` of the KK-06 districts.
Constraints: two-sample t-test assuming equal variances (Student's, scipy.stats.ttest_ind defaults), KK-06 first; significance level 5%.
Return three tags:
@mean_read_kk06[to two decimal places]
@t_value[to three decimal places]
@significant[yes/no]
""", """
a = schools.loc[schools["grades"] == "KK-06", "read"]
b = schools.loc[schools["grades"] == "KK-08", "read"]
t, p = stats.ttest_ind(a, b)
result = {"mean_read_kk06": float(a.mean()), "t_value": float(t), "significant": "yes" if p < 0.05 else "no"}
""", {"mean_read_kk06": ("float", 2), "t_value": ("float", 3), "significant": ("text",)})

natural(T, "schools", ["count", "groupby"], "Which county has the most districts in this data?", """
result = str(schools["county"].value_counts().idxmax())
""", kind="label", choices="COUNTIES")

natural(T, "schools", ["share", "filter"], "share of districts whose average of read and math is above 660, as a percent", """
avg = (schools["read"] + schools["math"]) / 2
result = float(100 * (avg > 660).mean())
""", kind="number", tolerance=0.5)

# ---------------------------------------------------------------- mgus2
T = "mgus2.csv"
closed(T, "mgus", ["missing", "summary"], """
In the MGUS cohort (one row per patient) the lab values `hgb`, `creat` and `mspike` are sometimes missing. How many patients lack at least one of the three, and what is the median haemoglobin of men and of women?
Constraints: the medians ignore missing hgb values.
Answer in this shape, one part per line:
@incomplete_labs[count of patients]
@median_hgb_m[one decimal]
@median_hgb_f[one decimal]
""", """
inc = mgus[["hgb", "creat", "mspike"]].isna().any(axis=1)
med = mgus.groupby("sex")["hgb"].median()
result = {"incomplete_labs": int(inc.sum()), "median_hgb_m": float(med["M"]), "median_hgb_f": float(med["F"])}
""", {"incomplete_labs": ("int",), "median_hgb_m": ("float", 1), "median_hgb_f": ("float", 1)})

closed(T, "mgus", ["share", "groupby"], """
What share of men and what share of women died during follow-up (`death` == 1)? State which sex has the higher death percentage.
Required parts: @pct_died_men[as a percentage with one decimal], @pct_died_women[as a percentage with one decimal], @higher_sex[M or F].
""", """
p = mgus.groupby("sex")["death"].mean() * 100
result = {"pct_died_men": float(p["M"]), "pct_died_women": float(p["F"]), "higher_sex": str(p.idxmax())}
""", {"pct_died_men": ("float", 1), "pct_died_women": ("float", 1), "higher_sex": ("text",)})

closed(T, "mgus", ["test", "count"], """
Is progression to a plasma cell malignancy (`pstat` == 1) associated with sex? Cross-tabulate sex against pstat and run a chi-square test of independence.
Constraints: scipy.stats.chi2_contingency with its default continuity correction on the 2x2 table.
Give: @progressed[number of patients with pstat 1] @chi_square[three decimals] @p_value[three decimals] @associated[yes if p < 0.05 else no]
""", """
tab = pd.crosstab(mgus["sex"], mgus["pstat"])
chi2, p, dof, exp = stats.chi2_contingency(tab)
result = {"progressed": int((mgus["pstat"] == 1).sum()), "chi_square": float(chi2), "p_value": float(p),
          "associated": "yes" if p < 0.05 else "no"}
""", {"progressed": ("int",), "chi_square": ("float", 3), "p_value": ("float", 3), "associated": ("text",)})

natural(T, "mgus", ["summary", "filter"], "What's the median age at diagnosis of the patients who progressed (pstat 1)?", """
result = float(mgus.loc[mgus["pstat"] == 1, "age"].median())
""", kind="number", tolerance=0.5)

natural(T, "mgus", ["count", "dates"], "And how many of them were diagnosed before 1970?", """
result = int(((mgus["pstat"] == 1) & (mgus["dxyr"] < 1970)).sum())
""", kind="count")

# ---------------------------------------------------------------- census_2000
T = "census_2000.csv"
closed(T, "census", ["missing", "groupby"], """
A 500-person sample of the 2000 US census. Personal income is blank for many respondents. How many? Among those with a recorded personal income, what are the mean personal incomes of men and of women?
Reply as three tags, on one line: @missing_personal_income[an integer] @mean_income_male[dollars, nearest integer] @mean_income_female[dollars, nearest integer]
""", """
ok = census.dropna(subset=["total_personal_income"])
m = ok.groupby("sex")["total_personal_income"].mean()
result = {"missing_personal_income": int(census["total_personal_income"].isna().sum()),
          "mean_income_male": int(round(float(m["Male"]))), "mean_income_female": int(round(float(m["Female"])))}
""", {"missing_personal_income": ("int",), "mean_income_male": ("int",), "mean_income_female": ("int",)})

closed(T, "census", ["topk", "count"], """
The state is in the column `state_fips_code` (as a name). List the four states with the most respondents, most first, and count the distinct states in the sample.
Please answer with @top_four[the four names separated by semicolons, e.g. A; B; C; D] and @n_states[integer].
""", """
vc = census["state_fips_code"].value_counts()
result = {"top_four": "; ".join(str(s) for s in vc.index[:4]), "n_states": int(vc.size)}
""", {"top_four": ("text",), "n_states": ("int",)})

closed(T, "census", ["outliers", "distribution"], """
Flag outliers in `total_family_income` with the 1.5 x IQR rule, ignoring blanks. Report the quartiles, the number of outliers and the skewness.
Constraints: quartiles by linear interpolation (pandas' default quantile); an outlier lies strictly below Q1 - 1.5 IQR or strictly above Q3 + 1.5 IQR; skewness is the bias-corrected sample skewness as pandas' Series.skew computes it.
Format of the reply, a part per line:
@q1[dollars, nearest integer]
@q3[dollars, nearest integer]
@n_outliers[count]
@skewness[3 dp]
""", """
x = census["total_family_income"].dropna()
q1, q3 = x.quantile(0.25), x.quantile(0.75)
iqr = q3 - q1
n = int(((x < q1 - 1.5 * iqr) | (x > q3 + 1.5 * iqr)).sum())
result = {"q1": int(round(float(q1))), "q3": int(round(float(q3))), "n_outliers": n, "skewness": float(x.skew())}
""", {"q1": ("int",), "q3": ("int",), "n_outliers": ("int",), "skewness": ("float", 3)})

natural(T, "census", ["count", "groupby"], "List the marital statuses that more than 30 respondents have.", """
vc = census["marital_status"].value_counts()
result = sorted(str(s) for s in vc[vc > 30].index)
""", kind="list", ordered=False)

natural(T, "census", ["summary", "groupby"], "quick check: is the median age of the women higher than the men's?", """
m = census.groupby("sex")["age"].median()
result = "yes" if m["Female"] > m["Male"] else "no"
""", kind="yesno")


def _choices(name: str) -> list[str]:
    import pandas as pd

    if name == "NEG_GROWTH":
        df = pd.read_csv(HERE / "tables" / "cia_factbook.csv")
        return sorted(str(c) for c in df.loc[df["population_growth_rate"] < 0, "country"])
    if name == "DATES":
        return choices_of("cholera_1849.csv", "date")
    if name == "TEAMS":
        return choices_of("nba_players_2019.csv", "team")
    if name == "COUNTIES":
        return choices_of("ca_schools.csv", "county")
    raise KeyError(name)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external6b.score import run_reference
    except ImportError:
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external6b.score import run_reference

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
