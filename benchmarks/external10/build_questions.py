"""Build questions.json for the tenth external evaluation set (folder external10).

Each answer is computed by running the question's `reference_code` on the committed CSV
(see `run_reference` in score.py: the table is read with `pd.read_csv` into the variable
named by `frame`; `pd`, `np` and `stats` (scipy.stats) are defined; the code assigns
`result`). Closed questions return a dict of parts, natural ones a single value.

Run by hand:  python benchmarks/external10/build_questions.py
crosscheck.py recomputes every answer a second, independent way.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x10"
QUESTIONS: list[dict] = []


def closed(table, frame, topics, question, code, parts):
    QUESTIONS.append(dict(table=table, frame=frame, style="closed", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _parts=parts))


def natural(table, frame, topics, question, code, **spec):
    QUESTIONS.append(dict(table=table, frame=frame, style="natural", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _spec=spec))


# ---------------------------------------------------------------- ncaa_basketball_rpi
T = "ncaa_basketball_rpi.csv"
closed(T, "ncaa", ["groupby", "topk"], """
Each row of this table is one NCAA men's basketball team in one of four seasons, with its conference, its win-loss record and `winperc`, the percentage of its games it won. Pool the four seasons. Which conference has the best average `winperc` over its team-seasons, which has the worst, and which three teams won the most games altogether?
Constraints: a conference's average is the plain mean over its rows, not weighted by games played; a team's total is the sum of `wins` over its four rows.
Close your reply with these lines:
@best_conference[conference as written]
@worst_conference[conference as written]
@most_wins_top3[three team names, most wins first, joined by " / "]
""", """
m = ncaa.groupby("conference")["winperc"].mean()
w = ncaa.groupby("team")["wins"].sum().sort_values(ascending=False)
result = {"best_conference": str(m.idxmax()), "worst_conference": str(m.idxmin()),
          "most_wins_top3": " / ".join(str(t) for t in w.index[:3])}
""", {"best_conference": ("text",), "worst_conference": ("text",), "most_wins_top3": ("text",)})

closed(T, "ncaa", ["test", "groupby"], """
Were the team-seasons that reached the NCAA tournament (`tourney` = 1) already rated better before the season began? `prerpi` is the preseason RPI rank, so a lower number is a better rating. Compare the preseason ranks of tournament and non-tournament rows.
Constraints: Mann-Whitney U test, scipy.stats.mannwhitneyu(tournament, others) with its defaults (two-sided), so U belongs to the tournament group; decide at the 1% level.
Finish with @u_statistic[one decimal], @median_prerpi_tourney[rank], @median_prerpi_others[rank, one decimal] and @shift_significant[yes or no].
""", """
a = ncaa.loc[ncaa["tourney"] == 1, "prerpi"]
b = ncaa.loc[ncaa["tourney"] == 0, "prerpi"]
u, p = stats.mannwhitneyu(a, b)
result = {"u_statistic": float(u), "median_prerpi_tourney": int(a.median()), "median_prerpi_others": float(b.median()),
          "shift_significant": "yes" if p < 0.01 else "no"}
""", {"u_statistic": ("float", 1), "median_prerpi_tourney": ("int",), "median_prerpi_others": ("float", 1),
      "shift_significant": ("text",)})

closed(T, "ncaa", ["strings", "dates", "correlation"], """
`year` holds the season as text, for example 2003-2004. Take the calendar year in which each season starts (the digits before the hyphen, as a number). In which starting year did the fewest teams of the table reach the tournament, which team had the best post-season RPI (`postrpi` 1 is the top) in the season that started in 2015, and how closely do the preseason and post-season ranks agree?
Constraints: Spearman's rank correlation, scipy.stats.spearmanr(prerpi, postrpi), over all 336 rows.
Mark up the outcome as @fewest_bids_start_year[four digits], @top_team_2015[team name] and @rank_agreement_rho[three decimals].
""", """
start = ncaa["year"].str.split("-").str[0].astype(int)
bids = ncaa["tourney"].groupby(start).sum()
s15 = ncaa[start == 2015]
rho, _ = stats.spearmanr(ncaa["prerpi"], ncaa["postrpi"])
result = {"fewest_bids_start_year": int(bids.idxmin()), "top_team_2015": str(s15.loc[s15["postrpi"].idxmin(), "team"]),
          "rank_agreement_rho": float(rho)}
""", {"fewest_bids_start_year": ("int",), "top_team_2015": ("text",), "rank_agreement_rho": ("float", 3)})

natural(T, "ncaa", ["count", "groupby"], "how many teams made the tournament in all four seasons?", """
result = int((ncaa.groupby("team")["tourney"].sum() == 4).sum())
""", kind="count")

natural(T, "ncaa", ["groupby", "topk"], "And which conference do most of those teams play in?", """
t = ncaa.groupby("team")["tourney"].sum()
always = t[t == 4].index
result = str(ncaa[ncaa["team"].isin(always)].drop_duplicates("team")["conference"].value_counts().idxmax())
""", kind="label", choices="CONFERENCES")

# ---------------------------------------------------------------- liver_transplant_waitlist
T = "liver_transplant_waitlist.csv"
closed(T, "waitlist", ["test", "groupby"], """
Patients joined a liver transplant waiting list between 1990 and 1999. `futime` counts the days from joining the list to the final outcome in `event` (ltx = transplanted, death, withdraw, censored) and `abo` is the blood group. Among the patients who did receive a liver, does the time they waited differ between blood groups?
Constraints: Kruskal-Wallis H test, scipy.stats.kruskal with one sample of `futime` per blood group (A, AB, B, O) from the ltx rows only; significance level 0.1%.
Set the findings down one per line:
@kruskal_h[two decimals]
@longest_median_wait_group[blood group]
@that_group_median_days[days]
@groups_differ[yes/no]
""", """
ltx = waitlist[waitlist["event"] == "ltx"]
groups = {k: g["futime"] for k, g in ltx.groupby("abo")}
h, p = stats.kruskal(*groups.values())
med = ltx.groupby("abo")["futime"].median()
result = {"kruskal_h": float(h), "longest_median_wait_group": str(med.idxmax()), "that_group_median_days": int(med.max()),
          "groups_differ": "yes" if p < 0.001 else "no"}
""", {"kruskal_h": ("float", 2), "longest_median_wait_group": ("text",), "that_group_median_days": ("int",),
      "groups_differ": ("text",)})

closed(T, "waitlist", ["missing", "dates", "share"], """
Look at the waiting-list table for gaps and for the trend in listings. How many patients have no `age`, did every one of them end up transplanted, in which `year` (the year the patient joined the list) were the most patients added, and what percentage of those who joined in 1990-1994 died while waiting?
Constraints: the percentage counts rows with `event` = death among all patients who joined in those five years, both ends included.
Pass back @age_blank[count] @blank_age_all_ltx[yes/no] @peak_listing_year[year] @died_waiting_pct_1990_1994[percent, 1 dp]
""", """
blank = waitlist["age"].isna()
early = waitlist[waitlist["year"].between(1990, 1994)]
result = {"age_blank": int(blank.sum()), "blank_age_all_ltx": "yes" if (waitlist.loc[blank, "event"] == "ltx").all() else "no",
          "peak_listing_year": int(waitlist["year"].value_counts().idxmax()),
          "died_waiting_pct_1990_1994": float(100 * (early["event"] == "death").mean())}
""", {"age_blank": ("int",), "blank_age_all_ltx": ("text",), "peak_listing_year": ("int",),
      "died_waiting_pct_1990_1994": ("float", 1)})

closed(T, "waitlist", ["outliers", "feature engineering"], """
Very long stays on the list stand out in `futime`. Flag the stays beyond the upper Tukey fence, Q3 + 1.5 x IQR, of all 815 `futime` values, and describe the single longest stay.
Constraints: quartiles by linear interpolation (pandas' default quantile); "beyond" is strict; a year is 365.25 days.
Fill these in, a line apiece:
@upper_fence_days[2 decimals]
@stays_beyond_fence[count]
@longest_stay_years[2 decimals]
@longest_stay_outcome[event code as in the table]
""", """
q1, q3 = waitlist["futime"].quantile(0.25), waitlist["futime"].quantile(0.75)
fence = q3 + 1.5 * (q3 - q1)
i = waitlist["futime"].idxmax()
result = {"upper_fence_days": float(fence), "stays_beyond_fence": int((waitlist["futime"] > fence).sum()),
          "longest_stay_years": float(waitlist.loc[i, "futime"] / 365.25), "longest_stay_outcome": str(waitlist.loc[i, "event"])}
""", {"upper_fence_days": ("float", 2), "stays_beyond_fence": ("int",), "longest_stay_years": ("float", 2),
      "longest_stay_outcome": ("text",)})

natural(T, "waitlist", ["share", "filter"], "What percentage of the blood group O patients on the list ended up getting a transplant?", """
o = waitlist[waitlist["abo"] == "O"]
result = float(100 * (o["event"] == "ltx").mean())
""", kind="number", tolerance=0.1)

natural(T, "waitlist", ["share", "groupby"], "And is that share lower than it is for blood group A?", """
s = (waitlist["event"] == "ltx").groupby(waitlist["abo"]).mean()
result = "yes" if s["O"] < s["A"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- swiss_nox_2004
T = "swiss_nox_2004.csv"
closed(T, "nox", ["dates", "groupby"], """
The Swiss NOx file has one row per day of 2004 (`date`, ISO text) and one column per monitoring site, named by two-letter codes such as `ef` (Erstfeld) or `ri` (Rigi), each holding that day's mean in ppb. Put the readings in long form, one row per site and day, with the blank cells dropped. Which calendar month has the highest average reading, which weekday the lowest, and on which date is the average over the sites that reported the highest?
Constraints: month and weekday averages are taken over all site-day readings together, not over daily means; month and weekday names in English.
Conclude with @dirtiest_month[month name], @cleanest_weekday[weekday name] and @worst_day[YYYY-MM-DD].
""", """
long = nox.melt(id_vars="date", var_name="site", value_name="ppb").dropna(subset=["ppb"])
d = pd.to_datetime(long["date"])
result = {"dirtiest_month": str(long["ppb"].groupby(d.dt.month_name()).mean().idxmax()),
          "cleanest_weekday": str(long["ppb"].groupby(d.dt.day_name()).mean().idxmin()),
          "worst_day": str(long.groupby("date")["ppb"].mean().idxmax())}
""", {"dirtiest_month": ("text",), "cleanest_weekday": ("text",), "worst_day": ("text",)})

closed(T, "nox", ["missing", "outliers"], """
Some sites failed on some days. Which site has the most days without a reading, on how many days did all thirteen sites report, and how unusual are the high days at Erstfeld (`ef`), right beside the A2 motorway?
Constraints: for ef, the upper fence is Q3 + 1.5 x IQR of its non-blank values with pandas' default quantiles; count the days strictly above it.
Give each result a row of its own:
@most_gaps_site[site code]
@all_sites_days[count]
@ef_fence_ppb[1 decimal]
@ef_days_above[count]
""", """
sites = nox.drop(columns=["date"])
ef = nox["ef"].dropna()
q1, q3 = ef.quantile(0.25), ef.quantile(0.75)
fence = q3 + 1.5 * (q3 - q1)
result = {"most_gaps_site": str(sites.isna().sum().idxmax()), "all_sites_days": int(sites.notna().all(axis=1).sum()),
          "ef_fence_ppb": float(fence), "ef_days_above": int((ef > fence).sum())}
""", {"most_gaps_site": ("text",), "all_sites_days": ("int",), "ef_fence_ppb": ("float", 1), "ef_days_above": ("int",)})

closed(T, "nox", ["test", "correlation"], """
Lucerne centre (`lu`) and Sedel (`se`), a hill site just outside Lucerne above the A14, lie close together. Is the town-centre site systematically higher? Use the days on which both reported.
Constraints: Wilcoxon signed-rank test, scipy.stats.wilcoxon(lu, se) with its defaults (two-sided, zero differences dropped); 5% level; Pearson's r between the two series over the same days.
Answer these one under another:
@shared_days[count]
@wilcoxon_w[statistic, 1 decimal]
@lu_se_pearson[3 decimals]
@null_hypothesis[reject or retain]
""", """
both = nox[["lu", "se"]].dropna()
w, p = stats.wilcoxon(both["lu"], both["se"])
result = {"shared_days": int(len(both)), "wilcoxon_w": float(w), "lu_se_pearson": float(both["lu"].corr(both["se"])),
          "null_hypothesis": "reject" if p < 0.05 else "retain"}
""", {"shared_days": ("int",), "wilcoxon_w": ("float", 1), "lu_se_pearson": ("float", 3), "null_hypothesis": ("text",)})

natural(T, "nox", ["summary", "filter"], "List the sites whose average NOx over 2004 was above 40 ppb.", """
m = nox.drop(columns=["date"]).mean()
result = sorted(str(s) for s in m[m > 40].index)
""", kind="list", ordered=False)

natural(T, "nox", ["count", "filter"], "on how many days did at least one site go over 100 ppb", """
result = int((nox.drop(columns=["date"]) > 100).any(axis=1).sum())
""", kind="count")

# ---------------------------------------------------------------- ess9_great_britain
T = "ess9_great_britain.csv"
closed(T, "ess", ["dates", "missing"], """
Round 9 of the European Social Survey in Great Britain stores the first and last day of each interview as ISO dates (`stintrvw`, `endintrvw`). Audit them: how many interviews have no end date, how many are recorded as ending on an earlier date than they started, in which month did the most interviews start, and what is the latest start date?
Constraints: rows with a blank end date are left out of the ordering check; the month by its English name.
Lines expected at the end:
@no_end_date[count]
@ends_before_start[count]
@busiest_start_month[month name]
@final_start_date[ISO date]
""", """
st = pd.to_datetime(ess["stintrvw"])
en = pd.to_datetime(ess["endintrvw"])
result = {"no_end_date": int(en.isna().sum()), "ends_before_start": int((en < st).sum()),
          "busiest_start_month": str(st.dt.month_name().value_counts().idxmax()),
          "final_start_date": st.max().strftime("%Y-%m-%d")}
""", {"no_end_date": ("int",), "ends_before_start": ("int",), "busiest_start_month": ("text",), "final_start_date": ("text",)})

closed(T, "ess", ["test", "groupby"], """
`immigsent` adds up three 0-10 items on immigration (good for the economy, enriches the culture, makes the country a better place), so it runs from 0 to 30, higher being more favourable. Does it differ across the twelve values of `region`?
Constraints: one-way ANOVA, scipy.stats.f_oneway with one group per region, blank `immigsent` dropped; 1% level.
Wrap the results in @f_statistic[3 dp] @most_favourable_region[region as written] @least_favourable_region[region as written] @regions_differ[yes or no]
""", """
x = ess.dropna(subset=["immigsent"])
f, p = stats.f_oneway(*[g["immigsent"] for _, g in x.groupby("region")])
m = x.groupby("region")["immigsent"].mean()
result = {"f_statistic": float(f), "most_favourable_region": str(m.idxmax()), "least_favourable_region": str(m.idxmin()),
          "regions_differ": "yes" if p < 0.01 else "no"}
""", {"f_statistic": ("float", 3), "most_favourable_region": ("text",), "least_favourable_region": ("text",),
      "regions_differ": ("text",)})

closed(T, "ess", ["summary", "correlation", "missing"], """
Several columns of the survey file tell us nothing, because they hold one and the same value in every row. Name them, then measure how left-right self-placement (`lrscale`, 0 left to 10 right) goes with `immigsent`, and say how much of the household income decile `hinctnta` is missing.
Constraints: Spearman's rho over the rows where both are present (scipy.stats.spearmanr); the missing share is a percent of all 1,905 rows.
The checker expects @constant_columns[names in header order, separated by ", "], @rho_lr_immig[3 decimals] and @income_missing_pct[1 decimal].
""", """
const = [c for c in ess.columns if ess[c].nunique(dropna=False) == 1]
x = ess.dropna(subset=["lrscale", "immigsent"])
rho, _ = stats.spearmanr(x["lrscale"], x["immigsent"])
result = {"constant_columns": ", ".join(const), "rho_lr_immig": float(rho),
          "income_missing_pct": float(100 * ess["hinctnta"].isna().mean())}
""", {"constant_columns": ("text",), "rho_lr_immig": ("float", 3), "income_missing_pct": ("float", 1)})

natural(T, "ess", ["summary", "filter"], "What's the average age of the respondents interviewed in Wales?", """
result = float(ess.loc[ess["region"] == "Wales", "agea"].mean())
""", kind="number", tolerance=0.1)

natural(T, "ess", ["groupby", "summary"], "And is there any region whose respondents are older than that on average?", """
m = ess.groupby("region")["agea"].mean()
result = "yes" if (m.drop("Wales") > m["Wales"]).any() else "no"
""", kind="yesno")

# ---------------------------------------------------------------- us_state_production
T = "us_state_production.csv"
closed(T, "produc", ["change", "topk", "count"], """
The panel follows 48 contiguous US states yearly from 1970 to 1986: gross state product `gsp`, public (`pcap`) and private (`pc`) capital, employment `emp` (thousands) and the unemployment rate `unemp` (percent). State names are upper case with underscores, as in NEW_YORK. Compare each state's `gsp` in 1986 with its 1970 value. Which state grew fastest and by how many percent, which grew slowest, and how many states more than doubled their `gsp`?
Constraints: growth is 100 x (gsp in 1986 / gsp in 1970 - 1); "more than doubled" means growth strictly above 100%.
Name them as @fastest_state[as spelled in the table], @fastest_growth_pct[1 dp], @slowest_state[as spelled in the table], @states_doubled[count].
""", """
w = produc.pivot(index="state", columns="year", values="gsp")
g = 100 * (w[1986] / w[1970] - 1)
result = {"fastest_state": str(g.idxmax()), "fastest_growth_pct": float(g.max()), "slowest_state": str(g.idxmin()),
          "states_doubled": int((g > 100).sum())}
""", {"fastest_state": ("text",), "fastest_growth_pct": ("float", 1), "slowest_state": ("text",), "states_doubled": ("int",)})

closed(T, "produc", ["regression", "feature engineering"], """
How does output scale with private capital? Regress the natural log of `gsp` on the natural log of `pc` over all 816 state-years.
Constraints: ordinary least squares, scipy.stats.linregress(log pc, log gsp).
Stack the answers as follows:
@capital_elasticity[slope, 4 decimals]
@log_intercept[3 decimals]
@fit_r_squared[3 decimals]
""", """
fit = stats.linregress(np.log(produc["pc"]), np.log(produc["gsp"]))
result = {"capital_elasticity": float(fit.slope), "log_intercept": float(fit.intercept), "fit_r_squared": float(fit.rvalue ** 2)}
""", {"capital_elasticity": ("float", 4), "log_intercept": ("float", 3), "fit_r_squared": ("float", 3)})

closed(T, "produc", ["groupby", "topk", "filter"], """
Turn to unemployment. Which year has the highest average `unemp` across the 48 states, which state recorded the single highest rate of the whole panel and in which year, and how many state-years show double-digit unemployment, that is a rate of 10.0 or more?
Constraints: the yearly average is the unweighted mean of the 48 states' rates.
Keep to one tag per line:
@worst_year[year]
@peak_state[as spelled in the table]
@peak_year[year]
@double_digit_state_years[count]
""", """
i = produc["unemp"].idxmax()
result = {"worst_year": int(produc.groupby("year")["unemp"].mean().idxmax()), "peak_state": str(produc.loc[i, "state"]),
          "peak_year": int(produc.loc[i, "year"]), "double_digit_state_years": int((produc["unemp"] >= 10).sum())}
""", {"worst_year": ("int",), "peak_state": ("text",), "peak_year": ("int",), "double_digit_state_years": ("int",)})

natural(T, "produc", ["feature engineering", "topk"], "Which state produced the most output per worker in 1986, taking gsp divided by emp?", """
y = produc[produc["year"] == 1986]
result = str(y.loc[(y["gsp"] / y["emp"]).idxmax(), "state"])
""", kind="label", choices="STATES")

natural(T, "produc", ["filter", "summary"], "And was that state's unemployment rate in 1986 above the average of all 48 states that year?", """
y = produc[produc["year"] == 1986]
best = y.loc[(y["gsp"] / y["emp"]).idxmax()]
result = "yes" if best["unemp"] > y["unemp"].mean() else "no"
""", kind="yesno")

# ---------------------------------------------------------------- travel_mode_choice
T = "travel_mode_choice.csv"
closed(T, "travel", ["share", "groupby", "duplicates"], """
In this survey of travel between Sydney and Melbourne every traveller (`individual`) appears on four rows, one per `mode` (air, train, bus, car), and `choice` is yes on the mode actually taken. Check that layout and sum up the choices: does every traveller have exactly four rows and exactly one yes, which mode was taken most often, what share of the travellers flew, and what is the mean household `income` of those who took the train?
Constraints: shares and means are over travellers (their chosen rows), not over all 840 rows.
Put down @layout_ok[yes/no], @most_taken_mode[mode], @flew_pct[percent, 1 decimal] and @train_income_mean[2 decimals].
""", """
per = travel.groupby("individual").agg(rows=("mode", "size"), yes=("choice", lambda s: (s == "yes").sum()))
c = travel[travel["choice"] == "yes"]
result = {"layout_ok": "yes" if ((per["rows"] == 4) & (per["yes"] == 1)).all() else "no",
          "most_taken_mode": str(c["mode"].value_counts().idxmax()), "flew_pct": float(100 * (c["mode"] == "air").mean()),
          "train_income_mean": float(c.loc[c["mode"] == "train", "income"].mean())}
""", {"layout_ok": ("text",), "most_taken_mode": ("text",), "flew_pct": ("float", 1), "train_income_mean": ("float", 2)})

closed(T, "travel", ["test", "share"], """
Does travelling in a party change the mode people pick? Split the travellers into those travelling alone (`size` 1) and those in a party (`size` 2 or more), and cross-tabulate that against the mode they chose; which mode did the parties take most often?
Constraints: chi-square test of independence, scipy.stats.chi2_contingency on the 2 x 4 table (no continuity correction applies to it); significance at 1%.
The four entries, stacked:
@chi_square[3 decimals]
@degrees_of_freedom[integer]
@dependent_at_1pct[yes/no]
@parties_favourite_mode[mode]
""", """
c = travel[travel["choice"] == "yes"]
party = c["size"] > 1
chi, p, dof, _ = stats.chi2_contingency(pd.crosstab(party, c["mode"]))
result = {"chi_square": float(chi), "degrees_of_freedom": int(dof), "dependent_at_1pct": "yes" if p < 0.01 else "no",
          "parties_favourite_mode": str(c.loc[party, "mode"].value_counts().idxmax())}
""", {"chi_square": ("float", 3), "degrees_of_freedom": ("int",), "dependent_at_1pct": ("text",),
      "parties_favourite_mode": ("text",)})

closed(T, "travel", ["correlation", "regression"], """
Are richer travellers more likely to fly? On the 210 air rows, correlate household `income` with a 0/1 indicator of air having been chosen; then, on the 210 car rows, fit the generalised cost `gcost` against the in-vehicle time `travel` (minutes).
Constraints: Pearson's r with its two-sided p-value (scipy.stats.pearsonr), judged at 0.01; scipy.stats.linregress(travel, gcost) for the car fit.
State them in the brackets @income_air_r[3 dp], @income_effect_significant[yes or no], @car_cost_per_minute[4 dp], @car_fit_intercept[2 dp].
""", """
air = travel[travel["mode"] == "air"]
r, p = stats.pearsonr(air["income"], (air["choice"] == "yes").astype(int))
car = travel[travel["mode"] == "car"]
fit = stats.linregress(car["travel"], car["gcost"])
result = {"income_air_r": float(r), "income_effect_significant": "yes" if p < 0.01 else "no",
          "car_cost_per_minute": float(fit.slope), "car_fit_intercept": float(fit.intercept)}
""", {"income_air_r": ("float", 3), "income_effect_significant": ("text",), "car_cost_per_minute": ("float", 4),
      "car_fit_intercept": ("float", 2)})

natural(T, "travel", ["topk", "count"], "Rank the four modes by how many travellers chose them, most popular first.", """
c = travel[travel["choice"] == "yes"]
result = [str(m) for m in c["mode"].value_counts().index]
""", kind="list", ordered=True)

natural(T, "travel", ["count", "filter"], "How many travellers picked a mode that meant waiting more than 70 minutes at the terminal?", """
c = travel[travel["choice"] == "yes"]
result = int((c["wait"] > 70).sum())
""", kind="count")


def _choices(name: str) -> list[str]:
    import pandas as pd

    if name == "CONFERENCES":
        df = pd.read_csv(HERE / "tables" / "ncaa_basketball_rpi.csv")
        return sorted(str(v) for v in df["conference"].dropna().unique())
    if name == "STATES":
        df = pd.read_csv(HERE / "tables" / "us_state_production.csv")
        return sorted(str(v) for v in df["state"].dropna().unique())
    raise KeyError(name)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external10.score import run_reference
    except ImportError:
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external10.score import run_reference

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
