"""Build questions.json from the question specifications below.

Each reference answer is computed by running the question's `reference_code` on the
committed CSV (see `run_reference` in score.py for the execution convention: the table is
loaded with `pd.read_csv` into the variable named by `frame`; `pd`, `np` and `stats`
(scipy.stats) are available; the code assigns `result`). Closed questions return a dict
of parts; natural questions return a single value.

Run by hand:  python benchmarks/external5/build_questions.py
An independent second computation of every answer lives in crosscheck.py.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x5"

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


def choices_of(table, column, where=None):
    """Every value the label could take: the column's distinct values (optionally only on
    the rows where where[0] == where[1])."""
    import pandas as pd

    df = pd.read_csv(HERE / "tables" / table)
    if where is not None:
        df = df[df[where[0]] == where[1]]
    vals = df[column].dropna().unique()
    return sorted(str(v) for v in vals)


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]

# ---------------------------------------------------------------- bakeoff_challenges
T = "bakeoff_challenges.csv"
closed(T, "bake", ["missing", "count"], """
The Bake Off table has one row per baker per episode, and it keeps a row for every episode of a series even after the baker has left; in those rows `result`, `signature`, `technical` and `showstopper` are empty. Count the rows with an empty `result`, count the rows where the baker did take part (a non-empty `result`) but no technical rank is recorded, and find the column with the most empty cells.
Output format, one part per line:
@absent_rows[integer]
@appeared_without_rank[integer]
@emptiest_column[a column name, spelled as in the header]
""", """
appeared = bake["result"].notna()
result = {"absent_rows": int((~appeared).sum()),
          "appeared_without_rank": int((appeared & bake["technical"].isna()).sum()),
          "emptiest_column": str(bake.isna().sum().idxmax())}
""", {"absent_rows": ("int",), "appeared_without_rank": ("int",), "emptiest_column": ("text",)})

closed(T, "bake", ["strings", "groupby"], """
How many baker-episode rows mention chocolate in the signature bake or in the showstopper, and which series has the most such rows?
Constraints: match the word "chocolate" as a substring in any capitalisation; a row counts once even when both bakes mention it; empty bakes never match.
Answer format — @chocolate_rows[a whole number] followed by @top_series[the series number, 1 to 10].
""", """
hit = (bake["signature"].str.contains("chocolate", case=False, na=False)
       | bake["showstopper"].str.contains("chocolate", case=False, na=False))
per = bake[hit].groupby("series").size()
result = {"chocolate_rows": int(hit.sum()), "top_series": int(per.idxmax())}
""", {"chocolate_rows": ("int",), "top_series": ("int",)})

closed(T, "bake", ["test", "groupby"], """
Do the bakers named Star Baker rank better in that episode's technical challenge than the bakers sent home? Compare the `technical` ranks of the rows with `result` == "STAR BAKER" against those with `result` == "OUT" with a Mann-Whitney U test.
Constraints: drop rows without a technical rank; scipy.stats.mannwhitneyu with its defaults (two-sided), the Star Baker ranks passed as the first sample; significance level 0.01.
Use this format:
@u_statistic[U of the first sample, one decimal]
@median_star[median technical rank of the Star Bakers, one decimal]
@median_out[median technical rank of the eliminated bakers, one decimal]
@different[yes if p < 0.01, otherwise no]
""", """
s = bake.loc[bake["result"] == "STAR BAKER", "technical"].dropna()
o = bake.loc[bake["result"] == "OUT", "technical"].dropna()
u, p = stats.mannwhitneyu(s, o, alternative="two-sided")
result = {"u_statistic": float(u), "median_star": float(s.median()), "median_out": float(o.median()),
          "different": "yes" if p < 0.01 else "no"}
""", {"u_statistic": ("float", 1), "median_star": ("float", 1), "median_out": ("float", 1), "different": ("text",)})

closed(T, "bake", ["topk", "groupby"], """
Who was named Star Baker most often, and how many times? Then look at the ten series winners (`result` == "WINNER" in a final): which winner had the worst (highest) mean technical rank over all the episodes of their series in which they have a rank?
Constraints: a baker is identified by `series` and `baker` together, since first names repeat across series.
The answer must follow this format: @most_star_baker[first name as written] @star_count[count] @worst_winner[first name as written] @worst_winner_mean[mean rank, round to 3 dp]
""", """
sb = bake[bake["result"] == "STAR BAKER"].groupby(["series", "baker"]).size()
top = sb.idxmax()
winners = bake.loc[bake["result"] == "WINNER", ["series", "baker"]]
m = bake.merge(winners, on=["series", "baker"]).groupby(["series", "baker"])["technical"].mean()
worst = m.idxmax()
result = {"most_star_baker": str(top[1]), "star_count": int(sb.max()),
          "worst_winner": str(worst[1]), "worst_winner_mean": float(m.max())}
""", {"most_star_baker": ("text",), "star_count": ("int",), "worst_winner": ("text",), "worst_winner_mean": ("float", 3)})

natural(T, "bake", ["count", "filter"], "How many times did the winner of the week's technical challenge (rank 1) also get Star Baker in that same episode?", """
result = int(((bake["technical"] == 1) & (bake["result"] == "STAR BAKER")).sum())
""", kind="count")

natural(T, "bake", ["groupby", "filter"], "Give me the names of the bakers who were Star Baker three or more times in their series.", """
sb = bake[bake["result"] == "STAR BAKER"].groupby(["series", "baker"]).size()
result = sorted(str(name) for (series, name) in sb[sb >= 3].index)
""", kind="list", ordered=False)

# ---------------------------------------------------------------- drag_race_queens
T = "drag_race_queens.csv"
closed(T, "queens", ["groupby", "strings"], """
Seasons are labelled as text, "S01" to "S14". Turn them into season numbers and compute the mean `age` of each season's cast. Which season had the youngest cast on average, what was that mean age, and which season had the oldest cast?
Format. Write @youngest_season[season number as a plain integer], @youngest_mean_age[mean age in years to two decimal places] and @oldest_season[season number as a plain integer].
""", """
num = queens["season"].str[1:].astype(int)
m = queens.groupby(num)["age"].mean()
result = {"youngest_season": int(m.idxmin()), "youngest_mean_age": float(m.min()), "oldest_season": int(m.idxmax())}
""", {"youngest_season": ("int",), "youngest_mean_age": ("float", 2), "oldest_season": ("int",)})

closed(T, "queens", ["strings", "count"], """
The `hometown` column reads "City, State" (for example "Chicago, Illinois"). Extract the state as the text after the last comma, with surrounding spaces removed, so "Toronto, Ontario, Canada" gives "Canada". Which state is home to the most queens, how many, and how many distinct states (including territories and countries) appear?
Give the answer in this format:
@top_state[state name]
@top_state_queens[integer]
@distinct_states[integer]
""", """
state = queens["hometown"].str.rsplit(",", n=1).str[-1].str.strip()
vc = state.value_counts()
result = {"top_state": str(vc.idxmax()), "top_state_queens": int(vc.max()), "distinct_states": int(state.nunique())}
""", {"top_state": ("text",), "top_state_queens": ("int",), "distinct_states": ("int",)})

closed(T, "queens", ["dates", "count"], """
Parse the date of birth `dob` (YYYY-MM-DD; one queen has none, leave her out). In which calendar month were the most queens born, how many queens were born in 1990 or later, and who is the oldest queen by date of birth?
Format: @birth_month[month as a number from 1 to 12]; @born_1990_or_later[number of queens]; @oldest_by_dob[contestant name exactly as in the data].
""", """
d = pd.to_datetime(queens["dob"])
ok = d.notna()
months = d[ok].dt.month.value_counts()
result = {"birth_month": int(months.idxmax()), "born_1990_or_later": int((d[ok].dt.year >= 1990).sum()),
          "oldest_by_dob": str(queens.loc[d.idxmin(), "contestant"])}
""", {"birth_month": ("int",), "born_1990_or_later": ("int",), "oldest_by_dob": ("text",)})

natural(T, "queens", ["count", "duplicates"], "how many queens competed in more than one season?", """
result = int((queens["contestant"].value_counts() > 1).sum())
""", kind="count")

natural(T, "queens", ["count", "topk"], "Which season had the biggest cast?", """
result = str(queens["season"].value_counts().idxmax())
""", kind="label", choices=choices_of(T, "season"))

natural(T, "queens", ["summary", "filter"], "And how old was the youngest queen in that season?", """
big = queens["season"].value_counts().idxmax()
result = int(queens.loc[queens["season"] == big, "age"].min())
""", kind="number", tolerance=0.5)

# ---------------------------------------------------------------- us_births_1978
T = "us_births_1978.csv"
closed(T, "births", ["test", "dates"], """
Are fewer babies born at weekends? Split the days of 1978 into weekend days (`wday` "Sat" or "Sun") and weekdays, and compare the daily `births` of the two groups.
Constraints: Welch's two-sample t-test (unequal variances), weekend days as the first sample, two-sided, alpha = 0.05.
Format
@t_stat[t statistic, rounded to two decimal places]
@weekend_minus_weekday[difference of the mean daily births, one decimal]
@significant[yes or no]
""", """
we = births["wday"].isin(["Sat", "Sun"])
t, p = stats.ttest_ind(births.loc[we, "births"], births.loc[~we, "births"], equal_var=False)
result = {"t_stat": float(t), "weekend_minus_weekday": float(births.loc[we, "births"].mean() - births.loc[~we, "births"].mean()),
          "significant": "yes" if p < 0.05 else "no"}
""", {"t_stat": ("float", 2), "weekend_minus_weekday": ("float", 1), "significant": ("text",)})

closed(T, "births", ["topk", "dates"], """
Find the three days of 1978 with the most births and the day of the week of the busiest one.
Required format: @top_dates[the three dates as YYYY-MM-DD, busiest first, separated by a comma and a space] and @top_weekday[the weekday as the three-letter abbreviation used in `wday`, such as Mon].
""", """
top = births.sort_values("births", ascending=False).head(3)
result = {"top_dates": ", ".join(top["date"]), "top_weekday": str(top["wday"].iloc[0])}
""", {"top_dates": ("text",), "top_weekday": ("text",)})

closed(T, "births", ["change", "dates"], """
Order the days by `date` and take the change in births from each day to the next. What is the largest one-day rise, on which date does it happen (the later day of the pair), and what is the largest one-day fall and its date?
Please format the answer as
@max_rise[births, nearest integer]
@rise_date[YYYY-MM-DD]
@max_fall[births, a negative integer]
@fall_date[YYYY-MM-DD]
""", """
s = births.sort_values("date").reset_index(drop=True)
d = s["births"].diff()
result = {"max_rise": int(d.max()), "rise_date": str(s.loc[d.idxmax(), "date"]),
          "max_fall": int(d.min()), "fall_date": str(s.loc[d.idxmin(), "date"])}
""", {"max_rise": ("int",), "rise_date": ("text",), "max_fall": ("int",), "fall_date": ("text",)})

closed(T, "births", ["outliers", "groupby"], """
Holidays show up as unusually quiet days. Standardise births within each day of the week: z = (births - mean of that weekday) / standard deviation of that weekday. Count the days with z below -2, and report the date with the lowest z and that z.
Constraints: the standard deviation is the sample one (ddof = 1), computed per `wday` group.
Expected output format: @quiet_days[count], @quietest_date[YYYY-MM-DD], @lowest_z[z, round to 2 dp]
""", """
g = births.groupby("wday")["births"]
z = (births["births"] - g.transform("mean")) / g.transform("std")
result = {"quiet_days": int((z < -2).sum()), "quietest_date": str(births.loc[z.idxmin(), "date"]),
          "lowest_z": float(z.min())}
""", {"quiet_days": ("int",), "quietest_date": ("text",), "lowest_z": ("float", 2)})

natural(T, "births", ["groupby", "dates"], "Which month of 1978 had the most births per day on average?", """
m = births.groupby("month")["births"].mean()
result = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"][int(m.idxmax()) - 1]
""", kind="label", choices=MONTHS)

natural(T, "births", ["share", "dates"], "what percentage of the year's births fell on a Saturday or a Sunday?", """
we = births["wday"].isin(["Sat", "Sun"])
result = float(births.loc[we, "births"].sum() / births["births"].sum() * 100)
""", kind="number", tolerance=0.05)

# ---------------------------------------------------------------- biopsy
T = "biopsy.csv"
closed(T, "biopsy", ["missing", "duplicates"], """
Check the data quality of the biopsy table: how many rows have no value for `V6` (bare nuclei), how many sample `ID`s occur on more than one row, and how many rows are exact repeats of an earlier row?
Constraints: for the repeats compare entire rows, with two empty cells counted as equal (pandas' duplicated with its defaults).
Answer with three whole numbers, in the format @missing_v6[n], @repeated_ids[n], @repeated_rows[n].
""", """
result = {"missing_v6": int(biopsy["V6"].isna().sum()),
          "repeated_ids": int((biopsy["ID"].value_counts() > 1).sum()),
          "repeated_rows": int(biopsy.duplicated().sum())}
""", {"missing_v6": ("int",), "repeated_ids": ("int",), "repeated_rows": ("int",)})

closed(T, "biopsy", ["correlation"], """
Among the nine cytology scores V1 to V9, which pair of different variables has the strongest Pearson correlation, and what is it?
Constraints: pairwise complete observations (each pair uses the rows where both are present, as DataFrame.corr does).
Format — @pair[the two names joined by a hyphen, lower number first, e.g. V4-V7] @pearson_r[r to three decimals]
""", """
cols = [f"V{i}" for i in range(1, 10)]
c = biopsy[cols].corr()
best = max(((a, b) for i, a in enumerate(cols) for b in cols[i + 1:]), key=lambda ab: c.loc[ab[0], ab[1]])
result = {"pair": f"{best[0]}-{best[1]}", "pearson_r": float(c.loc[best[0], best[1]])}
""", {"pair": ("text",), "pearson_r": ("float", 3)})

closed(T, "biopsy", ["test", "missing"], """
Is a missing `V6` value related to the diagnosis? Build the 2x2 table of `class` against whether V6 is missing and run a chi-square test of independence.
Constraints: scipy.stats.chi2_contingency with its defaults, so Yates' continuity correction is applied; alpha = 0.05.
Format (one per line):
@chi_square[statistic, 3 decimals]
@p_value[3 decimals]
@related[write "related" if p < 0.05, else "unrelated"]
""", """
ct = pd.crosstab(biopsy["class"], biopsy["V6"].isna())
chi2, p, dof, _ = stats.chi2_contingency(ct)
result = {"chi_square": float(chi2), "p_value": float(p), "related": "related" if p < 0.05 else "unrelated"}
""", {"chi_square": ("float", 3), "p_value": ("float", 3), "related": ("text",)})

closed(T, "biopsy", ["missing", "feature engineering"], """
Impute the missing `V6` values with the median V6 of the sample's own `class` (benign or malignant). Report the two class medians used and the overall mean of V6 after imputation.
Output format: @median_benign[...] @median_malignant[...] @mean_after[...] — medians with one decimal, the mean rounded to 3 dp.
""", """
med = biopsy.groupby("class")["V6"].median()
filled = biopsy["V6"].fillna(biopsy["class"].map(med))
result = {"median_benign": float(med["benign"]), "median_malignant": float(med["malignant"]), "mean_after": float(filled.mean())}
""", {"median_benign": ("float", 1), "median_malignant": ("float", 1), "mean_after": ("float", 3)})

natural(T, "biopsy", ["share"], "What percentage of the biopsies are malignant?", """
result = float((biopsy["class"] == "malignant").mean() * 100)
""", kind="number", tolerance=0.05)

natural(T, "biopsy", ["groupby", "topk"], "The nine scores V1 to V9 are cytology ratings from 1 to 10. Which of them shows the biggest gap in mean value between malignant and benign samples?", """
cols = [f"V{i}" for i in range(1, 10)]
gap = biopsy[biopsy["class"] == "malignant"][cols].mean() - biopsy[biopsy["class"] == "benign"][cols].mean()
result = str(gap.abs().idxmax())
""", kind="label", choices=[f"V{i}" for i in range(1, 10)])

# ---------------------------------------------------------------- un_countries
T = "un_countries.csv"
closed(T, "un", ["regression", "feature engineering"], """
Model female life expectancy as a linear function of the natural log of GDP per person: lifeExpF = a + b * ln(ppgdp), by ordinary least squares.
Constraints: use the countries where both `lifeExpF` and `ppgdp` are present.
Format: @slope_b[b, 3 decimals] @intercept_a[a, 3 decimals] @r_squared[R², 3 decimals] @n_countries[number of countries used]
""", """
d = un.dropna(subset=["lifeExpF", "ppgdp"])
res = stats.linregress(np.log(d["ppgdp"]), d["lifeExpF"])
result = {"slope_b": float(res.slope), "intercept_a": float(res.intercept), "r_squared": float(res.rvalue ** 2),
          "n_countries": int(len(d))}
""", {"slope_b": ("float", 3), "intercept_a": ("float", 3), "r_squared": ("float", 3), "n_countries": ("int",)})

closed(T, "un", ["missing", "groupby"], """
Several territories have almost no data. How many countries have a value in every column, how many have no `region`, and which region has the highest median `fertility` (and what is it)?
Constraints: medians over the countries of the region that have a fertility value.
Reply in the format @complete_rows[count] @no_region[count] @top_fertility_region[region as spelled in the data] @median_fertility[three decimals].
""", """
m = un.groupby("region")["fertility"].median()
result = {"complete_rows": int(un.notna().all(axis=1).sum()), "no_region": int(un["region"].isna().sum()),
          "top_fertility_region": str(m.idxmax()), "median_fertility": float(m.max())}
""", {"complete_rows": ("int",), "no_region": ("int",), "top_fertility_region": ("text",), "median_fertility": ("float", 3)})

closed(T, "un", ["strings", "count"], """
Look at the country names in `country`. How many contain the word "island" in any capitalisation (so "Islands" counts too), how many consist of more than one word (split on spaces), and which name is the longest (most characters, spaces included)?
Formatting: each on its own line,
@island_names[integer]
@multi_word_names[integer]
@longest_name[the country name, exactly as written]
""", """
c = un["country"]
result = {"island_names": int(c.str.contains("island", case=False).sum()),
          "multi_word_names": int((c.str.split(" ").str.len() > 1).sum()),
          "longest_name": str(c.loc[c.str.len().idxmax()])}
""", {"island_names": ("int",), "multi_word_names": ("int",), "longest_name": ("text",)})

natural(T, "un", ["topk"], "List the five countries with the highest female life expectancy, highest first.", """
result = [str(c) for c in un.sort_values("lifeExpF", ascending=False).head(5)["country"]]
""", kind="list", ordered=True)

natural(T, "un", ["filter", "topk"], "Which OECD member has the lowest GDP per capita?", """
o = un[un["group"] == "oecd"]
result = str(o.loc[o["ppgdp"].idxmin(), "country"])
""", kind="label", choices=choices_of(T, "country", where=("group", "oecd")))

natural(T, "un", ["filter", "summary"], "And what is its fertility rate?", """
o = un[un["group"] == "oecd"]
result = float(o.loc[o["ppgdp"].idxmin(), "fertility"])
""", kind="number", tolerance=0.005)

# ---------------------------------------------------------------- olive_oils
T = "olive_oils.csv"
closed(T, "olive", ["test", "groupby"], """
Does the oleic acid content differ between the three regions of Italy? Run a one-way ANOVA of `oleic` across `region`.
Constraints: scipy.stats.f_oneway; alpha 0.05.
Format: @f_statistic[F, to 3 decimal places] @df_between[integer] @df_within[integer] @conclusion[either "means differ" or "no difference"]
""", """
groups = [g["oleic"].to_numpy() for _, g in olive.groupby("region")]
F, p = stats.f_oneway(*groups)
result = {"f_statistic": float(F), "df_between": len(groups) - 1, "df_within": int(len(olive) - len(groups)),
          "conclusion": "means differ" if p < 0.05 else "no difference"}
""", {"f_statistic": ("float", 3), "df_between": ("int",), "df_within": ("int",), "conclusion": ("text",)})

closed(T, "olive", ["distribution", "test"], """
Is `linoleic` acid normally distributed among the oils from Southern Italy? Apply the Shapiro-Wilk test and give the sample skewness as well.
Constraints: only rows with `region` == "Southern Italy"; alpha = 0.05; skewness is scipy.stats.skew with its default (biased) estimator.
Format:
@w_statistic[W, 4 decimals]
@normal[yes or no]
@skewness[3 decimals]
@tail[longer tail on the "left" or the "right"]
""", """
x = olive.loc[olive["region"] == "Southern Italy", "linoleic"]
W, p = stats.shapiro(x)
sk = float(stats.skew(x))
result = {"w_statistic": float(W), "normal": "yes" if p >= 0.05 else "no", "skewness": sk,
          "tail": "right" if sk > 0 else "left"}
""", {"w_statistic": ("float", 4), "normal": ("text",), "skewness": ("float", 3), "tail": ("text",)})

closed(T, "olive", ["outliers"], """
Screen `stearic` acid for outliers in two ways: the 1.5 x IQR rule (Q1 and Q3 by linear interpolation, outliers strictly outside the fences) and |z| > 3 with z from the mean and the sample standard deviation.
Format: @iqr_upper_fence[upper fence, 4 d.p.], @iqr_outliers[count], @z_outliers[count]
""", """
x = olive["stearic"]
q1, q3 = x.quantile(0.25), x.quantile(0.75)
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
z = (x - x.mean()) / x.std()
result = {"iqr_upper_fence": float(hi), "iqr_outliers": int(((x < lo) | (x > hi)).sum()), "z_outliers": int((z.abs() > 3).sum())}
""", {"iqr_upper_fence": ("float", 4), "iqr_outliers": ("int",), "z_outliers": ("int",)})

closed(T, "olive", ["feature engineering", "groupby"], """
Create the ratio oleic / linoleic for every oil. Which region has the highest median ratio, which the lowest, and what is the highest median?
In the format: "@highest_region[region]", "@lowest_region[region]", "@highest_median[ratio rounded to two decimal places]", with regions written as in the data.
""", """
r = olive["oleic"] / olive["linoleic"]
m = r.groupby(olive["region"]).median()
result = {"highest_region": str(m.idxmax()), "lowest_region": str(m.idxmin()), "highest_median": float(m.max())}
""", {"highest_region": ("text",), "lowest_region": ("text",), "highest_median": ("float", 2)})

natural(T, "olive", ["groupby", "topk"], "mean oleic acid by area: which area comes out on top?", """
result = str(olive.groupby("area")["oleic"].mean().idxmax())
""", kind="label", choices=choices_of(T, "area"))

natural(T, "olive", ["groupby", "filter"], "Find the areas whose oils average more than 12% palmitic acid.", """
m = olive.groupby("area")["palmitic"].mean()
result = sorted(str(a) for a in m[m > 12].index)
""", kind="list", ordered=False)

# ---------------------------------------------------------------- temp_carbon
T = "temp_carbon.csv"
closed(T, "climate", ["missing", "dates"], """
The climate table mixes two series of different lengths: carbon emissions from 1751 and temperature anomalies from 1880. How many years have no `temp_anomaly`, how many have no `carbon_emissions`, how many years are complete in all five columns, and what is the first year with a temperature anomaly?
Format, each on a separate line:
@no_temperature[number of years]
@no_carbon[number of years]
@complete_years[number of years]
@first_temperature_year[four-digit year]
""", """
result = {"no_temperature": int(climate["temp_anomaly"].isna().sum()),
          "no_carbon": int(climate["carbon_emissions"].isna().sum()),
          "complete_years": int(climate.notna().all(axis=1).sum()),
          "first_temperature_year": int(climate.loc[climate["temp_anomaly"].notna(), "year"].min())}
""", {"no_temperature": ("int",), "no_carbon": ("int",), "complete_years": ("int",), "first_temperature_year": ("int",)})

closed(T, "climate", ["correlation"], """
How closely do the global temperature anomaly and carbon emissions move together? Over the years where both are present, compute Pearson's correlation coefficient and Spearman's rank correlation (average ranks for ties).
Constraints: a year is used only when both `temp_anomaly` and `carbon_emissions` are present.
Format @pearson[value] @spearman[value] @n_years[value]: both coefficients as decimals rounded to three places, n_years a whole number.
""", """
d = climate.dropna(subset=["temp_anomaly", "carbon_emissions"])
result = {"pearson": float(stats.pearsonr(d["temp_anomaly"], d["carbon_emissions"])[0]),
          "spearman": float(stats.spearmanr(d["temp_anomaly"], d["carbon_emissions"])[0]),
          "n_years": int(len(d))}
""", {"pearson": ("float", 3), "spearman": ("float", 3), "n_years": ("int",)})

closed(T, "climate", ["regression", "dates"], """
Estimate the warming trend since 1970: regress `temp_anomaly` on `year` by ordinary least squares over the years 1970 onwards that have an anomaly.
Format — put the slope in degrees per decade (ten times the per-year slope) in @trend_per_decade[3 decimals], the coefficient of determination in @r2[3 decimals], and the number of years in @years_used[integer].
""", """
d = climate[(climate["year"] >= 1970) & climate["temp_anomaly"].notna()]
res = stats.linregress(d["year"], d["temp_anomaly"])
result = {"trend_per_decade": float(res.slope * 10), "r2": float(res.rvalue ** 2), "years_used": int(len(d))}
""", {"trend_per_decade": ("float", 3), "r2": ("float", 3), "years_used": ("int",)})

natural(T, "climate", ["filter", "dates"], "Before 1940, was the global temperature anomaly ever above zero?", """
result = "yes" if (climate.loc[climate["year"] < 1940, "temp_anomaly"] > 0).any() else "no"
""", kind="yesno")

natural(T, "climate", ["filter", "dates"], "In which year did annual carbon emissions first exceed 5,000 million metric tons?", """
result = int(climate.loc[climate["carbon_emissions"] > 5000, "year"].min())
""", kind="number", tolerance=0.5)

natural(T, "climate", ["filter", "summary"], "And what was the global temperature anomaly in that year?", """
y = climate.loc[climate["carbon_emissions"] > 5000, "year"].min()
result = float(climate.loc[climate["year"] == y, "temp_anomaly"].iloc[0])
""", kind="number", tolerance=0.005)

# ---------------------------------------------------------------- aids_australia
T = "aids_australia.csv"
closed(T, "aids", ["dates", "count"], """
`diag` is the date of diagnosis stored as a day number, counted in days since 1 January 1960 (day 0 is 1960-01-01). Convert it to a calendar date. In which year were the most patients diagnosed, how many, and what is the earliest diagnosis date?
Format:
@peak_year[yyyy]
@diagnosed_in_peak_year[count]
@first_diagnosis[date written as YYYY-MM-DD]
""", """
d = pd.to_datetime(aids["diag"], unit="D", origin="1960-01-01")
y = d.dt.year.value_counts()
result = {"peak_year": int(y.idxmax()), "diagnosed_in_peak_year": int(y.max()),
          "first_diagnosis": d.min().strftime("%Y-%m-%d")}
""", {"peak_year": ("int",), "diagnosed_in_peak_year": ("int",), "first_diagnosis": ("text",)})

closed(T, "aids", ["test", "groupby"], """
Is the status at the end of observation (`status`, A = alive, D = dead) independent of the patient's `state`? Use a chi-square test of independence on the state x status table.
Constraints: scipy.stats.chi2_contingency with default settings; significance level 5%.
Format: @chi2_stat[round to 3 dp] @degrees_of_freedom[integer] @p[round to 3 dp] @verdict[one of "independent", "not independent"]
""", """
chi2, p, dof, _ = stats.chi2_contingency(pd.crosstab(aids["state"], aids["status"]))
result = {"chi2_stat": float(chi2), "degrees_of_freedom": int(dof), "p": float(p),
          "verdict": "not independent" if p < 0.05 else "independent"}
""", {"chi2_stat": ("float", 3), "degrees_of_freedom": ("int",), "p": ("float", 3), "verdict": ("text",)})

closed(T, "aids", ["feature engineering", "groupby"], """
Define the follow-up time of each patient as `death` - `diag` in days (the time to death or to the end of observation). Among the transmission categories (`T.categ`) with at least 40 patients, which has the longest median follow-up and which the shortest?
Use the format @longest_category[code as in T.categ] @longest_median[days, 1 decimal] @shortest_category[code as in T.categ] @shortest_median[days, 1 decimal]
""", """
fu = aids["death"] - aids["diag"]
g = fu.groupby(aids["T.categ"])
m = g.median()[g.size() >= 40]
result = {"longest_category": str(m.idxmax()), "longest_median": float(m.max()),
          "shortest_category": str(m.idxmin()), "shortest_median": float(m.min())}
""", {"longest_category": ("text",), "longest_median": ("float", 1), "shortest_category": ("text",), "shortest_median": ("float", 1)})

closed(T, "aids", ["outliers", "distribution"], """
Flag unusual ages at diagnosis with Tukey's fences: Q1 - 1.5*IQR and Q3 + 1.5*IQR.
Constraints: quartiles by linear interpolation (pandas' default); an outlier lies strictly outside a fence.
Format of the answer: @lower_fence[one decimal] @upper_fence[one decimal] @n_outliers[count] @n_above[count of the outliers above the upper fence]
""", """
q1, q3 = aids["age"].quantile(0.25), aids["age"].quantile(0.75)
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
result = {"lower_fence": float(lo), "upper_fence": float(hi),
          "n_outliers": int(((aids["age"] < lo) | (aids["age"] > hi)).sum()), "n_above": int((aids["age"] > hi).sum())}
""", {"lower_fence": ("float", 1), "upper_fence": ("float", 1), "n_outliers": ("int",), "n_above": ("int",)})

natural(T, "aids", ["share"], "percentage of patients who are female?", """
result = float((aids["sex"] == "F").mean() * 100)
""", kind="number", tolerance=0.05)

natural(T, "aids", ["test", "groupby"], "I want to know whether age at diagnosis is related to the outcome. Is the mean age of the patients who died significantly different from that of the patients still alive, with a Welch t-test at the 5% level?", """
t, p = stats.ttest_ind(aids.loc[aids["status"] == "D", "age"], aids.loc[aids["status"] == "A", "age"], equal_var=False)
result = "yes" if p < 0.05 else "no"
""", kind="yesno")

# ---------------------------------------------------------------- beps
T = "beps.csv"
closed(T, "beps", ["test", "groupby"], """
Did men and women vote differently in the British Election Panel Study? Test the independence of `gender` and `vote` with a chi-square test on their contingency table.
Constraints: scipy.stats.chi2_contingency (no continuity correction applies with more than one degree of freedom); alpha = 0.05.
Format: the statistic as @chi_sq[2 decimals], the degrees of freedom as @dof[integer], the p-value as @p_val[4 decimals] and the decision as @decision[reject or retain].
""", """
chi2, p, dof, _ = stats.chi2_contingency(pd.crosstab(beps["gender"], beps["vote"]))
result = {"chi_sq": float(chi2), "dof": int(dof), "p_val": float(p), "decision": "reject" if p < 0.05 else "retain"}
""", {"chi_sq": ("float", 2), "dof": ("int",), "p_val": ("float", 4), "decision": ("text",)})

closed(T, "beps", ["test", "groupby"], """
Are Conservative voters more Eurosceptic than Labour voters? `Europe` is an 11-point scale on which high scores are Eurosceptic. Compare the two groups with a Mann-Whitney U test.
Constraints: scipy.stats.mannwhitneyu, two-sided, Conservative voters as the first sample; alpha = 0.001.
Format:
@u_value[U statistic of the Conservative sample, nearest integer]
@median_conservative[integer]
@median_labour[integer]
@more_eurosceptic[Conservative or Labour, the group with the higher median]
""", """
c = beps.loc[beps["vote"] == "Conservative", "Europe"]
l = beps.loc[beps["vote"] == "Labour", "Europe"]
u, p = stats.mannwhitneyu(c, l, alternative="two-sided")
result = {"u_value": int(round(u)), "median_conservative": int(c.median()), "median_labour": int(l.median()),
          "more_eurosceptic": "Conservative" if c.median() > l.median() else "Labour"}
""", {"u_value": ("int",), "median_conservative": ("int",), "median_labour": ("int",), "more_eurosceptic": ("text",)})

closed(T, "beps", ["correlation"], """
How are the ratings of the two main party leaders related? Compute Spearman's rank correlation between `Blair` and `Hague` (average ranks for ties), and Pearson's r for comparison.
Format: @spearman_rho[rho] @pearson_r[r] @direction[positive or negative]. Give rho and r to three decimal places.
""", """
rho = stats.spearmanr(beps["Blair"], beps["Hague"])[0]
r = stats.pearsonr(beps["Blair"], beps["Hague"])[0]
result = {"spearman_rho": float(rho), "pearson_r": float(r), "direction": "positive" if rho > 0 else "negative"}
""", {"spearman_rho": ("float", 3), "pearson_r": ("float", 3), "direction": ("text",)})

closed(T, "beps", ["share", "feature engineering"], """
Bin the respondents by `age` into three groups: under 40, 40 to 59, and 60 and over. For each group compute the percentage voting Conservative.
Constraints: the bins are [0, 40), [40, 60) and [60, infinity), closed on the left.
Format: @pct_under_40[...] @pct_40_59[...] @pct_60_plus[...] @most_conservative_group[under 40, 40-59 or 60+], each percentage as a percentage with one decimal (no % sign).
""", """
g = pd.cut(beps["age"], [0, 40, 60, np.inf], right=False, labels=["under 40", "40-59", "60+"])
pct = beps.groupby(g, observed=True)["vote"].apply(lambda s: (s == "Conservative").mean() * 100)
result = {"pct_under_40": float(pct["under 40"]), "pct_40_59": float(pct["40-59"]), "pct_60_plus": float(pct["60+"]),
          "most_conservative_group": str(pct.idxmax())}
""", {"pct_under_40": ("float", 1), "pct_40_59": ("float", 1), "pct_60_plus": ("float", 1), "most_conservative_group": ("text",)})

natural(T, "beps", ["groupby", "summary"], "Kennedy's ratings: which party's voters rate him highest on average?", """
result = str(beps.groupby("vote")["Kennedy"].mean().idxmax())
""", kind="label", choices=choices_of(T, "vote"))

natural(T, "beps", ["count", "filter"], "Blair led the Labour party at the time. How many respondents gave him the top score of 5 but still voted Conservative?", """
result = int(((beps["Blair"] == 5) & (beps["vote"] == "Conservative")).sum())
""", kind="count")

# ---------------------------------------------------------------- econ_journals
T = "econ_journals.csv"
closed(T, "journals", ["regression", "feature engineering"], """
Following Stock and Watson, regress the log of library subscriptions on the log of the price per citation: ln(subs) = b0 + b1 * ln(price / citations), by ordinary least squares on all journals (natural logarithms).
Give the answer in the format @elasticity[b1] @constant[b0] @r_sq[R-squared], all three rounded to 3 decimal places.
""", """
x = np.log(journals["price"] / journals["citations"])
res = stats.linregress(x, np.log(journals["subs"]))
result = {"elasticity": float(res.slope), "constant": float(res.intercept), "r_sq": float(res.rvalue ** 2)}
""", {"elasticity": ("float", 3), "constant": ("float", 3), "r_sq": ("float", 3)})

closed(T, "journals", ["strings", "groupby"], """
How many journal titles begin with the words "Journal of"? Which publisher has the most journals in the table, and what is the mean library price of that publisher's journals?
Format:
@journal_of_titles[count]
@largest_publisher[publisher name as in the data]
@mean_price[US dollars, two decimal places]
""", """
top = journals["publisher"].value_counts().idxmax()
result = {"journal_of_titles": int(journals["title"].str.startswith("Journal of").sum()),
          "largest_publisher": str(top),
          "mean_price": float(journals.loc[journals["publisher"] == top, "price"].mean())}
""", {"journal_of_titles": ("int",), "largest_publisher": ("text",), "mean_price": ("float", 2)})

closed(T, "journals", ["feature engineering", "topk"], """
Compute each journal's price per citation (`price` / `citations`) and its age in 2000 (2000 - `foundingyear`). Which three journals cost the most per citation, and what is the median age of the journals?
Format: @top_price_per_citation[the three `abbrev` codes, most expensive first, separated by a comma and a space] @median_age[years, nearest integer]
""", """
cpp = journals["price"] / journals["citations"]
top = journals.loc[cpp.sort_values(ascending=False).index[:3], "abbrev"]
result = {"top_price_per_citation": ", ".join(top), "median_age": int(round((2000 - journals["foundingyear"]).median()))}
""", {"top_price_per_citation": ("text",), "median_age": ("int",)})

natural(T, "journals", ["groupby", "filter"], "Only counting fields with at least five journals, which field has the highest median price?", """
g = journals.groupby("field")["price"]
m = g.median()[g.size() >= 5]
result = str(m.idxmax())
""", kind="label", choices=choices_of(T, "field"))

natural(T, "journals", ["filter", "dates"], "Which society journals were founded before 1940? Titles please.", """
result = sorted(str(t) for t in journals.loc[(journals["society"] == "yes") & (journals["foundingyear"] < 1940), "title"])
""", kind="list", ordered=False)

natural(T, "journals", ["groupby", "summary"], "And taking all society journals together, are they cheaper on average than the other journals?", """
m = journals.groupby("society")["price"].mean()
result = "yes" if m["yes"] < m["no"] else "no"
""", kind="yesno")


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external5.score import run_reference
    except ImportError:  # run as a script
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external5.score import run_reference

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
