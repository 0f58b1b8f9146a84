"""Build questions.json for the eleventh external evaluation set (folder external11).

Each answer is computed by running the question's `reference_code` on the committed CSV
(see `run_reference` in score.py: the table is read with `pd.read_csv` into the variable
named by `frame`; `pd`, `np` and `stats` (scipy.stats) are defined; the code assigns
`result`). Closed questions return a dict of parts, natural ones a single value.

Run by hand:  python benchmarks/external11/build_questions.py
crosscheck.py recomputes every answer a second, independent way.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x11"
QUESTIONS: list[dict] = []


def closed(table, frame, topics, question, code, parts):
    QUESTIONS.append(dict(table=table, frame=frame, style="closed", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _parts=parts))


def natural(table, frame, topics, question, code, **spec):
    QUESTIONS.append(dict(table=table, frame=frame, style="natural", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _spec=spec))


# ---------------------------------------------------------------- innsbruck_rain_forecasts
T = "innsbruck_rain_forecasts.csv"
closed(T, "ibk", ["dates", "missing", "share"], """
Each row of the Innsbruck table is one date (`date`, ISO text) between January 2000 and September 2013, with `rain`, the accumulated precipitation observed at Innsbruck airport (mm), and `rainfc.1` to `rainfc.11`, the forecasts of that amount by the 11 members of a reforecast ensemble. The series is meant to be daily. How many calendar days between the first and the last date have no row, in how many separate gaps (runs of consecutive missing days) do they fall, which calendar year misses the most days, and on what percentage of the rows was no rain at all observed?
Constraints: the span runs from the first to the last date, both included; a dry row has `rain` exactly 0.
The grader picks up these four lines:
@days_without_row[count]
@separate_gaps[count]
@year_most_days_missing[four digits]
@dry_rows_pct[percent, one decimal]
""", """
d = pd.to_datetime(ibk["date"])
missing = pd.date_range(d.min(), d.max()).difference(d)
gaps = int((pd.Series(missing).diff() != pd.Timedelta(days=1)).sum())
result = {"days_without_row": int(len(missing)), "separate_gaps": gaps,
          "year_most_days_missing": int(pd.Series(missing.year).value_counts().idxmax()),
          "dry_rows_pct": float(100 * (ibk["rain"] == 0).mean())}
""", {"days_without_row": ("int",), "separate_gaps": ("int",), "year_most_days_missing": ("int",),
      "dry_rows_pct": ("float", 1)})

closed(T, "ibk", ["feature engineering", "correlation", "share"], """
Take the ensemble mean, the plain average of the 11 member columns on each row, as the forecast. How closely does it follow the observed `rain`, by how much does it over-forecast on average, which single member agrees best with the observations, and on what share of the rows did less rain fall than even the driest member predicted?
Constraints: Pearson correlation over all rows; the over-forecast is the mean of (ensemble mean - rain); "agrees best" means the highest Pearson r with `rain`; "less than the driest member" is strict.
Hand the four results in as @ensmean_r[3 decimals], @mean_overforecast_mm[2 decimals], @best_member[column name as in the header] and @below_every_member_pct[percent, 1 decimal].
""", """
fc = ibk.filter(like="rainfc")
ens = fc.mean(axis=1)
result = {"ensmean_r": float(ens.corr(ibk["rain"])), "mean_overforecast_mm": float((ens - ibk["rain"]).mean()),
          "best_member": str(fc.corrwith(ibk["rain"]).idxmax()),
          "below_every_member_pct": float(100 * (ibk["rain"] < fc.min(axis=1)).mean())}
""", {"ensmean_r": ("float", 3), "mean_overforecast_mm": ("float", 2), "best_member": ("text",),
      "below_every_member_pct": ("float", 1)})

closed(T, "ibk", ["test", "dates", "groupby"], """
Is the observed precipitation seasonal? Give each date its meteorological season, DJF (December to February), MAM, JJA or SON, and compare `rain` across the four seasons; name the wettest season and the driest calendar month.
Constraints: Kruskal-Wallis H test, scipy.stats.kruskal with one sample of `rain` per season; wettest and driest by the mean of `rain`; significance level 0.1%; month names in English.
Send the following, each on a line to itself:
@kruskal_h[two decimals]
@wettest_season[DJF, MAM, JJA or SON]
@driest_month[month name]
@seasons_differ[yes/no]
""", """
d = pd.to_datetime(ibk["date"])
season = d.dt.month.map({12: "DJF", 1: "DJF", 2: "DJF", 3: "MAM", 4: "MAM", 5: "MAM",
                         6: "JJA", 7: "JJA", 8: "JJA", 9: "SON", 10: "SON", 11: "SON"})
h, p = stats.kruskal(*[g for _, g in ibk["rain"].groupby(season)])
result = {"kruskal_h": float(h), "wettest_season": str(ibk["rain"].groupby(season).mean().idxmax()),
          "driest_month": str(ibk["rain"].groupby(d.dt.month_name()).mean().idxmin()),
          "seasons_differ": "yes" if p < 0.001 else "no"}
""", {"kruskal_h": ("float", 2), "wettest_season": ("text",), "driest_month": ("text",), "seasons_differ": ("text",)})

natural(T, "ibk", ["count", "filter"], "on how many dates did the observed rain come out higher than every one of the 11 member forecasts?", """
result = int((ibk["rain"] > ibk.filter(like="rainfc").max(axis=1)).sum())
""", kind="count")

natural(T, "ibk", ["dates", "topk"], "And in which month of the year does that happen most often?", """
above = ibk["rain"] > ibk.filter(like="rainfc").max(axis=1)
result = str(pd.to_datetime(ibk.loc[above, "date"]).dt.month_name().value_counts().idxmax())
""", kind="label", choices="MONTHS")

# ---------------------------------------------------------------- mid_atlantic_wages
T = "mid_atlantic_wages.csv"
closed(T, "wages", ["strings", "topk", "summary"], """
The wage table describes 3,000 male workers in the Mid-Atlantic region of the US surveyed between 2003 and 2009; `wage` is in thousands of dollars and `logwage` is its natural log. The categorical columns put a numeric prefix before each label, as in `2. Married`. Which column tells us nothing because it holds the same value in every row, how do the five marital statuses (`maritl`) rank by mean wage, and is `logwage` the log of `wage` on every row?
Constraints: rank by the plain mean of `wage`, highest first, writing the statuses without their numeric prefix (`Married`, not `2. Married`); "the log on every row" means |exp(logwage) - wage| < 0.001 throughout.
Three bracketed results to finish: @constant_column[column name], @status_ranking[the five statuses joined by " > "], @logwage_consistent[yes or no]
""", """
const = [c for c in wages.columns if wages[c].nunique(dropna=False) == 1]
status = wages["maritl"].str.replace(r"^\\d+\\.\\s*", "", regex=True)
order = wages["wage"].groupby(status).mean().sort_values(ascending=False)
result = {"constant_column": ", ".join(const), "status_ranking": " > ".join(order.index),
          "logwage_consistent": "yes" if (np.exp(wages["logwage"]) - wages["wage"]).abs().max() < 0.001 else "no"}
""", {"constant_column": ("text",), "status_ranking": ("text",), "logwage_consistent": ("text",)})

closed(T, "wages", ["test", "groupby"], """
Every worker is in one of two job classes, coded `1. Industrial` and a second code starting with `2.` in `jobclass`. Do the log wages of the two classes differ? Take the second class minus the first throughout.
Constraints: Welch's t test, scipy.stats.ttest_ind(second, first, equal_var=False) on `logwage`, with its Welch-Satterthwaite degrees of freedom; the wage gap is the difference of the mean `wage` (thousands of dollars), second minus first; significance at 0.1%.
Write these down, a line each:
@welch_t[3 decimals]
@welch_df[1 decimal]
@mean_wage_gap[2 decimals]
@gap_significant[yes/no]
""", """
first = wages[wages["jobclass"].str.startswith("1.")]
second = wages[wages["jobclass"].str.startswith("2.")]
t = stats.ttest_ind(second["logwage"], first["logwage"], equal_var=False)
result = {"welch_t": float(t.statistic), "welch_df": float(t.df),
          "mean_wage_gap": float(second["wage"].mean() - first["wage"].mean()),
          "gap_significant": "yes" if t.pvalue < 0.001 else "no"}
""", {"welch_t": ("float", 3), "welch_df": ("float", 1), "mean_wage_gap": ("float", 2), "gap_significant": ("text",)})

closed(T, "wages", ["outliers", "share"], """
The upper tail of `wage` looks bunched. Find the upper Tukey fence, Q3 + 1.5 x IQR, of all 3,000 wages, count the workers strictly beyond it and look at who they are: what percentage of them have an advanced degree (`education` = `5. Advanced Degree`), and which exact wage value occurs most often among them, and how many times?
Constraints: quartiles by linear interpolation (pandas' default quantile); wages compared at full precision.
Record them under these tags: @upper_fence[2 dp] @above_fence[count] @advanced_degree_pct[percent, 1 dp] @modal_high_wage[2 dp] @modal_high_wage_count[count]
""", """
q1, q3 = wages["wage"].quantile(0.25), wages["wage"].quantile(0.75)
fence = q3 + 1.5 * (q3 - q1)
hi = wages[wages["wage"] > fence]
vc = hi["wage"].value_counts()
result = {"upper_fence": float(fence), "above_fence": int(len(hi)),
          "advanced_degree_pct": float(100 * (hi["education"] == "5. Advanced Degree").mean()),
          "modal_high_wage": float(vc.idxmax()), "modal_high_wage_count": int(vc.max())}
""", {"upper_fence": ("float", 2), "above_fence": ("int",), "advanced_degree_pct": ("float", 1),
      "modal_high_wage": ("float", 2), "modal_high_wage_count": ("int",)})

natural(T, "wages", ["filter", "summary"], "What's the median wage of the workers whose education is '4. College Grad' and who are under 35?", """
g = wages[(wages["education"] == "4. College Grad") & (wages["age"] < 35)]
result = float(g["wage"].median())
""", kind="number", tolerance=0.05)

natural(T, "wages", ["share", "filter"], "And do more than a quarter of them have no health insurance?", """
g = wages[(wages["education"] == "4. College Grad") & (wages["age"] < 35)]
result = "yes" if (g["health_ins"] == "2. No").mean() > 0.25 else "no"
""", kind="yesno")

# ---------------------------------------------------------------- french_fries_sensory
T = "french_fries_sensory.csv"
closed(T, "fries", ["missing", "duplicates", "count"], """
In the french-fries experiment each taster (`subject`) scored fries cooked in one of three oils (`treatment` 1 to 3) on five flavours (`potato`, `buttery`, `grassy`, `rancid`, `painty`), in each of ten weeks (`time`), twice (`rep` 1 and 2). A complete design would have one row for every taster, week, oil and replicate. How many of those combinations have no row, which tasters miss some, how many rows lack at least one of the five scores, and does any combination appear more than once?
Constraints: the full design is built from the 12 tasters in the table, weeks 1-10, oils 1-3 and replicates 1-2.
Close with the following lines:
@missing_combinations[count]
@incomplete_tasters[subject numbers, ascending, separated by "; "]
@rows_missing_a_score[count]
@duplicated_combination[yes/no]
""", """
keys = ["subject", "time", "treatment", "rep"]
full = pd.MultiIndex.from_product([sorted(fries["subject"].unique()), range(1, 11), range(1, 4), range(1, 3)], names=keys)
missing = full.difference(pd.MultiIndex.from_frame(fries[keys]))
flav = ["potato", "buttery", "grassy", "rancid", "painty"]
result = {"missing_combinations": int(len(missing)),
          "incomplete_tasters": "; ".join(str(s) for s in sorted(set(missing.get_level_values("subject")))),
          "rows_missing_a_score": int(fries[flav].isna().any(axis=1).sum()),
          "duplicated_combination": "yes" if fries.duplicated(keys).any() else "no"}
""", {"missing_combinations": ("int",), "incomplete_tasters": ("text",), "rows_missing_a_score": ("int",),
      "duplicated_combination": ("text",)})

closed(T, "fries", ["test", "missing"], """
Are the two replicates of a tasting consistent? Pair each taster's `potato` score in replicate 1 with the one in replicate 2 for the same week and oil, keeping only the pairs in which both scores are present.
Constraints: Wilcoxon signed-rank test, scipy.stats.wilcoxon(rep1, rep2) with its defaults (two-sided, zero differences dropped); 5% level, the replicates being consistent when the test does not reject.
Your brackets: @paired_tastings[count], @zero_differences[count], @wilcoxon_statistic[1 dp], @replicates[consistent or inconsistent].
""", """
p = fries.pivot_table(index=["subject", "time", "treatment"], columns="rep", values="potato").dropna()
w, pval = stats.wilcoxon(p[1], p[2])
result = {"paired_tastings": int(len(p)), "zero_differences": int((p[1] == p[2]).sum()), "wilcoxon_statistic": float(w),
          "replicates": "consistent" if pval >= 0.05 else "inconsistent"}
""", {"paired_tastings": ("int",), "zero_differences": ("int",), "wilcoxon_statistic": ("float", 1),
      "replicates": ("text",)})

closed(T, "fries", ["correlation", "change", "groupby"], """
Fries taste more rancid as the oil ages. Measure how `rancid` goes with the week, and for each oil the change in mean `rancid` from week 1 to week 10. Which oil's score rose the most and by how much, and which rose the least?
Constraints: Spearman's rho between `time` and `rancid` over the rows where `rancid` is present (scipy.stats.spearmanr); weekly means skip blank scores.
Reply ending: @rho_week_rancid[3 decimals] @steepest_oil[treatment number] @steepest_rise[2 decimals] @flattest_oil[treatment number]
""", """
x = fries.dropna(subset=["rancid"])
rho, _ = stats.spearmanr(x["time"], x["rancid"])
m = fries.groupby(["treatment", "time"])["rancid"].mean().unstack()
rise = m[10] - m[1]
result = {"rho_week_rancid": float(rho), "steepest_oil": int(rise.idxmax()), "steepest_rise": float(rise.max()),
          "flattest_oil": int(rise.idxmin())}
""", {"rho_week_rancid": ("float", 3), "steepest_oil": ("int",), "steepest_rise": ("float", 2), "flattest_oil": ("int",)})

natural(T, "fries", ["topk", "filter"], "Rank the three oils by their average painty score in week 10, most painty first.", """
m = fries[fries["time"] == 10].groupby("treatment")["painty"].mean().sort_values(ascending=False)
result = [str(t) for t in m.index]
""", kind="list", ordered=True)

natural(T, "fries", ["groupby", "topk"], "which taster gives the highest buttery scores on average?", """
result = str(fries.groupby("subject")["buttery"].mean().idxmax())
""", kind="label", choices="TASTERS")

# ---------------------------------------------------------------- world_bank_population
T = "world_bank_population.csv"
closed(T, "wb", ["missing", "strings", "count"], """
The World Bank file has one row per code and indicator: `country` is a three-letter code (some codes stand for regions or income groups, such as `WLD` for the world) and `indicator` one of `SP.POP.TOTL` (total population), `SP.POP.GROW` (its growth, percent), `SP.URB.TOTL` (urban population) and `SP.URB.GROW` (its growth), with one column per year from 2000 to 2017. Audit the gaps: how many distinct codes are there, how many rows have a blank year, which code is blank on all four indicators, and which codes lack only the two urban indicators?
Constraints: a row counts as having a gap if any of its 18 year cells is empty.
Leave the answers in @distinct_codes[count], @rows_with_gaps[count], @blank_everywhere[code] and @urban_gaps_only[codes in alphabetical order joined by " & "].
""", """
years = [c for c in wb.columns if c.isdigit()]
gap = wb[years].isna().any(axis=1)
per = wb[gap].groupby("country")["indicator"].apply(set)
allblank = [c for c, s in per.items() if len(s) == 4]
urban = sorted(c for c, s in per.items() if s == {"SP.URB.TOTL", "SP.URB.GROW"})
result = {"distinct_codes": int(wb["country"].nunique()), "rows_with_gaps": int(gap.sum()),
          "blank_everywhere": ", ".join(allblank), "urban_gaps_only": " & ".join(urban)}
""", {"distinct_codes": ("int",), "rows_with_gaps": ("int",), "blank_everywhere": ("text",), "urban_gaps_only": ("text",)})

closed(T, "wb", ["change", "topk", "feature engineering"], """
Compare each code's total population (`SP.POP.TOTL`) in 2017 with its 2000 value. Which code grew fastest and by what percentage, how many codes shrank, and which code had the lowest urban share in 2017, urban population over total population?
Constraints: growth is 100 x (2017 / 2000 - 1); codes with a blank in a year used are left out; shrinking means growth below 0.
Lines to give back:
@fastest_growing[code]
@its_growth_pct[1 decimal]
@shrinking_codes[count]
@least_urban_2017[code]
""", """
pop = wb[wb["indicator"] == "SP.POP.TOTL"].set_index("country")
urb = wb[wb["indicator"] == "SP.URB.TOTL"].set_index("country")
g = (100 * (pop["2017"] / pop["2000"] - 1)).dropna()
share = (urb["2017"] / pop["2017"]).dropna()
result = {"fastest_growing": str(g.idxmax()), "its_growth_pct": float(g.max()), "shrinking_codes": int((g < 0).sum()),
          "least_urban_2017": str(share.idxmin())}
""", {"fastest_growing": ("text",), "its_growth_pct": ("float", 1), "shrinking_codes": ("int",), "least_urban_2017": ("text",)})

closed(T, "wb", ["correlation", "test"], """
Do more urban places grow more slowly? For 2017, take each code's urban share (100 x `SP.URB.TOTL` / `SP.POP.TOTL`) and its population growth (`SP.POP.GROW`); then check how persistent growth is by setting `SP.POP.GROW` in 2000 against 2017.
Constraints: Spearman's rho for share against growth over the codes that have both (scipy.stats.spearmanr, its two-sided p judged at 0.1%, and the link must be negative to count); Pearson's r for the 2000 against the 2017 growth over the codes that have both years.
Post these, one per line:
@codes_compared[count]
@rho_share_growth[3 decimals]
@negative_link_significant[yes/no]
@growth_persistence_r[3 decimals]
""", """
pop = wb[wb["indicator"] == "SP.POP.TOTL"].set_index("country")
urb = wb[wb["indicator"] == "SP.URB.TOTL"].set_index("country")
grow = wb[wb["indicator"] == "SP.POP.GROW"].set_index("country")
x = pd.DataFrame({"share": 100 * urb["2017"] / pop["2017"], "growth": grow["2017"]}).dropna()
rho, p = stats.spearmanr(x["share"], x["growth"])
y = grow[["2000", "2017"]].dropna()
result = {"codes_compared": int(len(x)), "rho_share_growth": float(rho),
          "negative_link_significant": "yes" if (rho < 0 and p < 0.001) else "no",
          "growth_persistence_r": float(y["2000"].corr(y["2017"]))}
""", {"codes_compared": ("int",), "rho_share_growth": ("float", 3), "negative_link_significant": ("text",),
      "growth_persistence_r": ("float", 3)})

natural(T, "wb", ["filter", "change"], "List the codes whose population growth (SP.POP.GROW) was negative in every year from 2000 to 2017.", """
g = wb[wb["indicator"] == "SP.POP.GROW"].set_index("country")[[str(y) for y in range(2000, 2018)]]
result = sorted(str(c) for c in g.index[(g < 0).all(axis=1)])
""", kind="list", ordered=False)

natural(T, "wb", ["count", "change"], "And how many of those lost more than 15% of their total population between 2000 and 2017?", """
years = [str(y) for y in range(2000, 2018)]
g = wb[wb["indicator"] == "SP.POP.GROW"].set_index("country")[years]
neg = g.index[(g < 0).all(axis=1)]
pop = wb[wb["indicator"] == "SP.POP.TOTL"].set_index("country").loc[neg]
result = int((100 * (1 - pop["2017"] / pop["2000"]) > 15).sum())
""", kind="count")

# ---------------------------------------------------------------- quinidine_kinetics
T = "quinidine_kinetics.csv"
closed(T, "quin", ["missing", "count"], """
The quinidine file comes from the routine care of patients (`Subject`) taking the drug by mouth: a row with `dose` (mg) records a dose given, a row with `conc` (serum concentration, mg/L) a blood sample, and `time` counts hours since the patient entered the study. Count the patients, the blood-sample rows, the dose rows and the rows that are neither; how many patients have a single blood sample, and which dose was given most often?
Constraints: rows are classified by which of `conc` and `dose` is non-blank; the dose in mg as written in the table.
Enter the tallies as @patients[count] @sample_rows[count] @dose_rows[count] @neither_rows[count] @single_sample_patients[count] @commonest_dose_mg[whole mg]
""", """
samples = quin["conc"].notna()
doses = quin["dose"].notna()
per = quin[samples].groupby("Subject").size()
result = {"patients": int(quin["Subject"].nunique()), "sample_rows": int(samples.sum()), "dose_rows": int(doses.sum()),
          "neither_rows": int((~samples & ~doses).sum()), "single_sample_patients": int((per == 1).sum()),
          "commonest_dose_mg": int(quin["dose"].value_counts().idxmax())}
""", {"patients": ("int",), "sample_rows": ("int",), "dose_rows": ("int",), "neither_rows": ("int",),
      "single_sample_patients": ("int",), "commonest_dose_mg": ("int",)})

closed(T, "quin", ["regression", "correlation"], """
Quinidine binds to alpha-1 acid glycoprotein (`glyco`, mg/dL). Does the serum concentration rise with it? On the blood-sample rows, fit `conc` against `glyco`.
Constraints: ordinary least squares, scipy.stats.linregress(glyco, conc), over the rows with `conc` present.
Spell the fit out line by line:
@slope_per_mg_dl[4 decimals]
@intercept_mg_l[3 decimals]
@r_squared[3 decimals]
""", """
s = quin.dropna(subset=["conc"])
fit = stats.linregress(s["glyco"], s["conc"])
result = {"slope_per_mg_dl": float(fit.slope), "intercept_mg_l": float(fit.intercept), "r_squared": float(fit.rvalue ** 2)}
""", {"slope_per_mg_dl": ("float", 4), "intercept_mg_l": ("float", 3), "r_squared": ("float", 3)})

closed(T, "quin", ["test", "groupby"], """
Patients with low creatinine clearance (`Creatinine` = `< 50`) clear the drug more slowly. Are the concentrations measured in them higher than in the samples with clearance `>= 50`?
Constraints: Mann-Whitney U test, scipy.stats.mannwhitneyu(low, normal) with its defaults (two-sided), over the blood-sample rows grouped by the `Creatinine` value on each row; "higher" needs a significant test at 5% and a higher median.
Tags wanted, one to a line:
@u_low_clearance[1 decimal]
@median_conc_low[mg/L, 1 decimal]
@median_conc_normal[mg/L, 1 decimal]
@higher_at_5pct[yes/no]
""", """
s = quin.dropna(subset=["conc"])
low = s.loc[s["Creatinine"] == "< 50", "conc"]
normal = s.loc[s["Creatinine"] == ">= 50", "conc"]
u, p = stats.mannwhitneyu(low, normal)
result = {"u_low_clearance": float(u), "median_conc_low": float(low.median()), "median_conc_normal": float(normal.median()),
          "higher_at_5pct": "yes" if (p < 0.05 and low.median() > normal.median()) else "no"}
""", {"u_low_clearance": ("float", 1), "median_conc_low": ("float", 1), "median_conc_normal": ("float", 1),
      "higher_at_5pct": ("text",)})

natural(T, "quin", ["count", "filter"], "How many of the patients are Black?", """
result = int(quin.loc[quin["Race"] == "Black", "Subject"].nunique())
""", kind="count")

natural(T, "quin", ["groupby", "summary"], "And are they taller on average than the Latin patients?", """
h = quin.groupby("Subject").agg(race=("Race", "first"), height=("Height", "first")).groupby("race")["height"].mean()
result = "yes" if h["Black"] > h["Latin"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- bangladesh_contraception
T = "bangladesh_contraception.csv"
closed(T, "bfs", ["feature engineering", "distribution"], """
In this extract of the 1988 Bangladesh Fertility Survey, `age` is not in years: it is each woman's age centred on a constant. Take the youngest woman in the table to have been 16. Recover the constant and the ages in whole years, then count the women under 20 and find the most common age.
Constraints: the constant is 16 minus the smallest `age`; whole years by rounding `age` + constant to the nearest integer.
The reply should end with @centring_constant[2 decimals], @under_20[count] and @modal_age[years].
""", """
k = 16 - bfs["age"].min()
years = (bfs["age"] + k).round().astype(int)
result = {"centring_constant": float(k), "under_20": int((years < 20).sum()), "modal_age": int(years.value_counts().idxmax())}
""", {"centring_constant": ("float", 2), "under_20": ("int",), "modal_age": ("int",)})

closed(T, "bfs", ["test", "share"], """
Is contraceptive use (`use`, Y or N) associated with living in an urban area (`urban`, Y or N)? Cross-tabulate the two and give the rate of use in each kind of area.
Constraints: chi-square test of independence, scipy.stats.chi2_contingency on the 2 x 2 table with its default Yates continuity correction; 1% level; rates as percentages of the women living in each kind of area.
Key lines:
@chi_square_yates[3 decimals]
@urban_use_pct[1 decimal]
@rural_use_pct[1 decimal]
@associated[yes/no]
""", """
chi, p, dof, _ = stats.chi2_contingency(pd.crosstab(bfs["urban"], bfs["use"]))
rate = (bfs["use"] == "Y").groupby(bfs["urban"]).mean()
result = {"chi_square_yates": float(chi), "urban_use_pct": float(100 * rate["Y"]), "rural_use_pct": float(100 * rate["N"]),
          "associated": "yes" if p < 0.01 else "no"}
""", {"chi_square_yates": ("float", 3), "urban_use_pct": ("float", 1), "rural_use_pct": ("float", 1), "associated": ("text",)})

closed(T, "bfs", ["groupby", "topk", "missing"], """
The districts are numbered 1 to 61. Which number has no women in the table, how many districts have no urban respondent at all, and among the districts with at least 30 women, which has the highest and which the lowest rate of contraceptive use?
Constraints: a district's rate is the share of its women with `use` = Y; "at least 30" includes 30.
Slot the answers in here: @absent_district[number] @all_rural_districts[count] @highest_use_district[number] @lowest_use_district[number]
""", """
absent = sorted(set(range(1, 62)) - set(bfs["district"]))
g = bfs.groupby("district").agg(n=("use", "size"), rate=("use", lambda s: (s == "Y").mean()),
                                urban=("urban", lambda s: (s == "Y").sum()))
big = g[g["n"] >= 30]
result = {"absent_district": int(absent[0]), "all_rural_districts": int((g["urban"] == 0).sum()),
          "highest_use_district": int(big["rate"].idxmax()), "lowest_use_district": int(big["rate"].idxmin())}
""", {"absent_district": ("int",), "all_rural_districts": ("int",), "highest_use_district": ("int",),
      "lowest_use_district": ("int",)})

natural(T, "bfs", ["share", "filter"], "what percentage of the women with no living children use contraception?", """
result = float(100 * (bfs.loc[bfs["livch"] == "0", "use"] == "Y").mean())
""", kind="number", tolerance=0.1)

natural(T, "bfs", ["share", "groupby", "topk"], "And which number-of-children group has the highest rate of use?", """
result = str((bfs["use"] == "Y").groupby(bfs["livch"]).mean().idxmax())
""", kind="label", choices="LIVCH")


def _choices(name: str) -> list[str]:
    import calendar

    import pandas as pd

    if name == "MONTHS":
        return list(calendar.month_name)[1:]
    if name == "TASTERS":
        df = pd.read_csv(HERE / "tables" / "french_fries_sensory.csv")
        return [str(v) for v in sorted(df["subject"].unique())]
    if name == "LIVCH":
        df = pd.read_csv(HERE / "tables" / "bangladesh_contraception.csv")
        return sorted(str(v) for v in df["livch"].dropna().unique())
    raise KeyError(name)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external11.score import run_reference
    except ImportError:
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external11.score import run_reference

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
