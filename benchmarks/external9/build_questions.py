"""Build questions.json for the ninth external evaluation set (folder external9).

Each answer is computed by running the question's `reference_code` on the committed CSV
(see `run_reference` in score.py: the table is read with `pd.read_csv` into the variable
named by `frame`; `pd`, `np` and `stats` (scipy.stats) are defined; the code assigns
`result`). Closed questions return a dict of parts, natural ones a single value.

Run by hand:  python benchmarks/external9/build_questions.py
crosscheck.py recomputes every answer a second, independent way.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x9"
QUESTIONS: list[dict] = []


def closed(table, frame, topics, question, code, parts):
    QUESTIONS.append(dict(table=table, frame=frame, style="closed", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _parts=parts))


def natural(table, frame, topics, question, code, **spec):
    QUESTIONS.append(dict(table=table, frame=frame, style="natural", topics=topics,
                          question=question.strip(), reference_code=code.strip(), _spec=spec))


# ---------------------------------------------------------------- iowa_hawks
T = "iowa_hawks.csv"
closed(T, "hawks", ["test", "groupby"], """
Hawks were trapped and measured at Lake MacBride near Iowa City. `Species` is RT (red-tailed), SS (sharp-shinned) or CH (Cooper's), `Sex` is F or M where it was determined, and `Weight` is in grams. Female sharp-shinned hawks are said to be far heavier than the males; check it on the SS birds that have both a sex and a weight.
Constraints: Welch's test, scipy.stats.ttest_ind(females, males, equal_var=False), with the females as the first sample; two-sided; significance judged at the 1% level.
Write one bracket per line:
@female_mean_g[grams, 1 decimal]
@male_mean_g[grams, 1 decimal]
@welch_statistic[to 2 places]
@significant_at_1pct[yes/no]
""", """
ss = hawks[(hawks["Species"] == "SS")].dropna(subset=["Sex", "Weight"])
f = ss.loc[ss["Sex"] == "F", "Weight"]
m = ss.loc[ss["Sex"] == "M", "Weight"]
t, p = stats.ttest_ind(f, m, equal_var=False)
result = {"female_mean_g": float(f.mean()), "male_mean_g": float(m.mean()), "welch_statistic": float(t),
          "significant_at_1pct": "yes" if p < 0.01 else "no"}
""", {"female_mean_g": ("float", 1), "male_mean_g": ("float", 1), "welch_statistic": ("float", 2),
      "significant_at_1pct": ("text",)})

closed(T, "hawks", ["dates", "count"], """
The capture date is spread over three integer columns, `Year`, `Month` and `Day`. Put them together into one real date per capture. On which day of the week were the most hawks caught, on how many distinct calendar dates was at least one bird caught, and which month-and-day, ignoring the year, saw the most captures summed over all the years?
The grader looks for @top_weekday[English weekday], @capture_dates[integer] and @peak_day_of_year[MM-DD, e.g. 09-30].
""", """
d = pd.to_datetime(hawks[["Year", "Month", "Day"]].rename(columns=str.lower))
md = d.dt.strftime("%m-%d").value_counts()
result = {"top_weekday": str(d.dt.day_name().value_counts().idxmax()), "capture_dates": int(d.nunique()),
          "peak_day_of_year": str(md.idxmax())}
""", {"top_weekday": ("text",), "capture_dates": ("int",), "peak_day_of_year": ("text",)})

closed(T, "hawks", ["missing", "outliers", "duplicates"], """
A data-quality pass over the hawk table. Count the rows with no `Sex` recorded and the rows whose `BandNumber` is empty or only whitespace. Then look at the hind-claw length `Hallux` of the red-tailed hawks (Species RT): values above Q3 + 1.5 x IQR look like typing slips.
Constraints: blank Hallux cells are left out; the quartiles are pandas' default (linear interpolation) quantiles of the RT values only; "above" is strict.
Each result sits in its own tag:
@sex_missing[count]
@band_blank[count]
@rt_hallux_fence[mm, one decimal]
@rt_hallux_flagged[count]
""", """
rt = hawks.loc[hawks["Species"] == "RT", "Hallux"].dropna()
q1, q3 = rt.quantile(0.25), rt.quantile(0.75)
fence = q3 + 1.5 * (q3 - q1)
result = {"sex_missing": int(hawks["Sex"].isna().sum()),
          "band_blank": int(hawks["BandNumber"].fillna("").str.strip().eq("").sum()),
          "rt_hallux_fence": float(fence), "rt_hallux_flagged": int((rt > fence).sum())}
""", {"sex_missing": ("int",), "band_blank": ("int",), "rt_hallux_fence": ("float", 1), "rt_hallux_flagged": ("int",)})

natural(T, "hawks", ["summary", "filter"], "What's the median wing length for the Cooper's hawks (Species CH)?", """
result = float(hawks.loc[hawks["Species"] == "CH", "Wing"].median())
""", kind="number", tolerance=0.5)

natural(T, "hawks", ["groupby", "topk"], "And which species code has the longest tails on average?", """
result = str(hawks.groupby("Species")["Tail"].mean().idxmax())
""", kind="label", choices="SPECIES")

# ---------------------------------------------------------------- boston_marathon_winners
T = "boston_marathon_winners.csv"
closed(T, "boston", ["strings", "feature engineering", "filter"], """
The Boston Marathon table has one row per event and year (1897-2019); `Time` is text such as 02:03:02, hours:minutes:seconds. Convert it to minutes. Who ran the fastest time in the Women's open champion event, in which year, and how many Men's open division winners finished in under 2 hours 10 minutes?
Constraints: the single row without a time (a year with no contestants) is skipped; "under" is strict.
Post the three values as @fastest_woman[full name as in Champion] @her_year[four digits] @men_under_2h10[count]
""", """
mins = pd.to_timedelta(boston["Time"]).dt.total_seconds() / 60
w = mins[boston["Event"] == "Women's open champion"]
men = mins[boston["Event"] == "Men's open division"]
i = w.idxmin()
result = {"fastest_woman": str(boston.loc[i, "Champion"]), "her_year": int(boston.loc[i, "Year"]),
          "men_under_2h10": int((men < 130).sum())}
""", {"fastest_woman": ("text",), "her_year": ("int",), "men_under_2h10": ("int",)})

closed(T, "boston", ["topk", "share", "count"], """
Counting all five events together, which countries have produced the most winners? Name the top three, give the share of the Men's open division wins that went to runners from Kenya, and count how many different countries appear at all.
Constraints: the one row whose `Country` is blank does not count as a country.
Lines to return:
@top_countries[three country names, most wins first, separated by "; "]
@kenya_share_men_pct[percent of the Men's open division rows, 1 decimal]
@countries_with_a_win[integer]
""", """
vc = boston["Country"].value_counts()
men = boston[boston["Event"] == "Men's open division"]
result = {"top_countries": "; ".join(str(c) for c in vc.index[:3]),
          "kenya_share_men_pct": float(100 * (men["Country"] == "Kenya").mean()),
          "countries_with_a_win": int(boston["Country"].nunique())}
""", {"top_countries": ("text",), "kenya_share_men_pct": ("float", 1), "countries_with_a_win": ("int",)})

closed(T, "boston", ["regression", "filter"], """
Have the men's winning times kept falling since mid-century? Fit an ordinary least-squares line of the Men's open division winning time, in minutes, on `Year`, over the races of 1950 to 2019 inclusive.
Constraints: scipy.stats.linregress(Year, minutes).
Answer slots: @minutes_per_year[the slope, 4 decimals], @fit_r2[3 decimals], @trend_at_2020[fitted minutes for 2020, 2 decimals].
""", """
men = boston[(boston["Event"] == "Men's open division") & boston["Year"].between(1950, 2019)]
mins = pd.to_timedelta(men["Time"]).dt.total_seconds() / 60
fit = stats.linregress(men["Year"], mins)
result = {"minutes_per_year": float(fit.slope), "fit_r2": float(fit.rvalue ** 2),
          "trend_at_2020": float(fit.intercept + fit.slope * 2020)}
""", {"minutes_per_year": ("float", 4), "fit_r2": ("float", 3), "trend_at_2020": ("float", 2)})

natural(T, "boston", ["count", "filter"], "how many Boston wins, across all the divisions, went to athletes from Japan", """
result = int((boston["Country"] == "Japan").sum())
""", kind="count")

natural(T, "boston", ["topk", "count"], "Who has won at Boston more often than anyone else, counting every division?", """
result = str(boston["Champion"].value_counts().idxmax())
""", kind="label", choices="CHAMPIONS")

# ---------------------------------------------------------------- durham_pm25_2011
T = "durham_pm25_2011.csv"
closed(T, "pm", ["dates", "groupby"], """
The Durham, NC air-quality file holds daily PM2.5 means (`daily_mean_pm2_5_concentration`, micrograms per cubic metre) for 2011 from one site, with `date` written as M/D/YY text (1/3/11 is 3 January 2011). Some dates have two rows, one per monitor (`poc`). Parse the dates, then find the month with the highest mean concentration, the number of distinct dates, and the day of the week with the highest mean concentration.
Constraints: means are taken over rows (the two monitors are not combined first); month and weekday names in English.
A line for each result:
@dirtiest_month[month name]
@distinct_dates[integer]
@dirtiest_weekday[weekday name]
""", """
d = pd.to_datetime(pm["date"], format="%m/%d/%y")
c = pm["daily_mean_pm2_5_concentration"]
result = {"dirtiest_month": str(c.groupby(d.dt.month_name()).mean().idxmax()), "distinct_dates": int(d.nunique()),
          "dirtiest_weekday": str(c.groupby(d.dt.day_name()).mean().idxmax())}
""", {"dirtiest_month": ("text",), "distinct_dates": ("int",), "dirtiest_weekday": ("text",)})

closed(T, "pm", ["missing", "correlation"], """
Most rows have a blank `daily_aqi_value`. How many are blank, what is the Pearson correlation between the PM2.5 concentration and the AQI over the rows that have both, and do all the rows carrying an AQI come from monitor poc 1?
Be sure your reply includes @aqi_blank[whole number], @r_conc_aqi[4 decimal places] and @aqi_only_poc1[yes or no].
""", """
x = pm.dropna(subset=["daily_aqi_value"])
result = {"aqi_blank": int(pm["daily_aqi_value"].isna().sum()),
          "r_conc_aqi": float(x["daily_mean_pm2_5_concentration"].corr(x["daily_aqi_value"])),
          "aqi_only_poc1": "yes" if (x["poc"] == 1).all() else "no"}
""", {"aqi_blank": ("int",), "r_conc_aqi": ("float", 4), "aqi_only_poc1": ("text",)})

closed(T, "pm", ["test", "dates"], """
On the dates where both monitors reported, do they agree? Pair the poc 1 and poc 3 readings by date and test whether the mean difference is zero.
Constraints: paired t-test, scipy.stats.ttest_rel(poc1, poc3), so each difference is poc 1 minus poc 3; two-sided; 5% level.
For the record:
@paired_days[count]
@mean_difference[micrograms per cubic metre, 3 decimals]
@t_paired[2 decimals]
@h0_decision[reject or retain]
""", """
w = pm.pivot_table(index="date", columns="poc", values="daily_mean_pm2_5_concentration").dropna()
t, p = stats.ttest_rel(w[1], w[3])
result = {"paired_days": int(len(w)), "mean_difference": float((w[1] - w[3]).mean()), "t_paired": float(t),
          "h0_decision": "reject" if p < 0.05 else "retain"}
""", {"paired_days": ("int",), "mean_difference": ("float", 3), "t_paired": ("float", 2), "h0_decision": ("text",)})

natural(T, "pm", ["count", "filter"], "how many readings in the Durham data are above 15", """
result = int((pm["daily_mean_pm2_5_concentration"] > 15).sum())
""", kind="count")

natural(T, "pm", ["dates", "groupby", "topk"], "Give me the three months with the highest average PM2.5, worst first.", """
d = pd.to_datetime(pm["date"], format="%m/%d/%y")
m = pm["daily_mean_pm2_5_concentration"].groupby(d.dt.month_name()).mean().sort_values(ascending=False)
result = [str(x) for x in m.index[:3]]
""", kind="list", ordered=True)

# ---------------------------------------------------------------- us_gdp_presidents
T = "us_gdp_presidents.csv"
closed(T, "usgdp", ["change", "topk"], """
`realGDPperCapita` is real GDP per person in constant dollars, one row per year, and `executive` names who held office. By how many percent did it change from 1929 to 1933, in which year was the largest one-year percentage drop, and who was the executive in that year?
Constraints: one-year changes only between consecutive calendar years (the earliest rows are a decade apart), computed as 100 x (this year / previous year - 1).
Bracketed answers wanted: @depression_change_pct[signed, 2 decimals] @worst_year[year] @executive_then[as spelled in the table]
""", """
r = usgdp.set_index("Year")["realGDPperCapita"]
step = usgdp["Year"].diff().eq(1).to_numpy()
pc = (100 * (r / r.shift(1) - 1))[step].dropna()
y = int(pc.idxmin())
result = {"depression_change_pct": float(100 * (r[1933] / r[1929] - 1)), "worst_year": y,
          "executive_then": str(usgdp.set_index("Year").loc[y, "executive"])}
""", {"depression_change_pct": ("float", 2), "worst_year": ("int",), "executive_then": ("text",)})

closed(T, "usgdp", ["missing", "feature engineering", "topk"], """
The `unemployment` column mixes units: up to 1947 it is a fraction (0.05 means 5%), from 1948 on it is already a percent; `unempSource` names the series each value comes from. How many years have no unemployment figure, which year had the highest rate and what was it, and which source covers the most years?
Constraints: put everything on the percent scale by multiplying the values of the years before 1948 by 100; blanks stay blank.
List them, one per line:
@unemployment_blank[number of years]
@peak_unemployment_year[year]
@peak_unemployment_pct[1 decimal]
@longest_source[the unempSource value]
""", """
u = usgdp["unemployment"].where(usgdp["Year"] >= 1948, usgdp["unemployment"] * 100)
i = u.idxmax()
result = {"unemployment_blank": int(u.isna().sum()), "peak_unemployment_year": int(usgdp.loc[i, "Year"]),
          "peak_unemployment_pct": float(u[i]), "longest_source": str(usgdp["unempSource"].value_counts().idxmax())}
""", {"unemployment_blank": ("int",), "peak_unemployment_year": ("int",), "peak_unemployment_pct": ("float", 1),
      "longest_source": ("text",)})

closed(T, "usgdp", ["correlation", "test", "count"], """
In the post-war years 1948 to 2020 inclusive, is the federal budget balance related to unemployment? Correlate `unemployment` with `fedSurplus_pGDP` (the surplus as a share of GDP, negative for a deficit), and count the years of that span with a surplus (`fedSurplus` above 0).
Constraints: Pearson's r with its two-sided p-value from scipy.stats.pearsonr; significance at 0.05.
Quote them as @r_unemp_surplus[3 dp], @significant[yes or no] and @surplus_years[count].
""", """
x = usgdp[usgdp["Year"].between(1948, 2020)]
r, p = stats.pearsonr(x["unemployment"], x["fedSurplus_pGDP"])
result = {"r_unemp_surplus": float(r), "significant": "yes" if p < 0.05 else "no",
          "surplus_years": int((x["fedSurplus"] > 0).sum())}
""", {"r_unemp_surplus": ("float", 3), "significant": ("text",), "surplus_years": ("int",)})

natural(T, "usgdp", ["groupby", "topk"], "Which war in this table cost the most battle deaths in total?", """
result = str(usgdp.groupby("war")["battleDeaths"].sum().idxmax())
""", kind="label", choices="WARS")

natural(T, "usgdp", ["change", "filter"], "And did real GDP per person rise in every year of that war, compared with the year before?", """
war = usgdp.groupby("war")["battleDeaths"].sum().idxmax()
r = usgdp.set_index("Year")["realGDPperCapita"]
years = usgdp.loc[usgdp["war"] == war, "Year"]
result = "yes" if all(r[y] > r[y - 1] for y in years) else "no"
""", kind="yesno")

# ---------------------------------------------------------------- grinnell_house_sales
T = "grinnell_house_sales.csv"
closed(T, "homes", ["dates", "count"], """
In the Grinnell, Iowa house-sales table, `Date` is a plain count of days from 1 January 1960 (the SAS convention), so 16695 is 16 September 2005. Decode it. What is the earliest sale date, in which calendar month (all years together) were the fewest houses sold, on which day of the week were the most sold, and does the decoded date agree with YearSold, MonthSold and DaySold in every row?
Lay the four answers out like this:
@first_sale[YYYY-MM-DD]
@quietest_sale_month[month name]
@busiest_sale_weekday[weekday name]
@dates_consistent[yes/no]
""", """
d = pd.Timestamp("1960-01-01") + pd.to_timedelta(homes["Date"], unit="D")
same = (d.dt.year == homes["YearSold"]) & (d.dt.month == homes["MonthSold"]) & (d.dt.day == homes["DaySold"])
result = {"first_sale": d.min().strftime("%Y-%m-%d"), "quietest_sale_month": str(d.dt.month_name().value_counts().idxmin()),
          "busiest_sale_weekday": str(d.dt.day_name().value_counts().idxmax()),
          "dates_consistent": "yes" if same.all() else "no"}
""", {"first_sale": ("text",), "quietest_sale_month": ("text",), "busiest_sale_weekday": ("text",),
      "dates_consistent": ("text",)})

closed(T, "homes", ["test", "share"], """
Did the share of houses selling for at least their asking price change after the 2008 crash? Split the sales by `YearSold` into 2005-2008 and 2009-2015, flag a sale when `SalePrice` >= `ListPrice`, and test independence on the resulting 2 x 2 table.
Constraints: scipy.stats.chi2_contingency on the crosstab with its default settings (Yates' correction on); 5% level.
Your findings: @chi2_stat[3 decimals] @pct_at_or_above_2005_2008[percent of that period's sales, 1 decimal] @period_effect[reject or retain]
""", """
early = homes["YearSold"] <= 2008
hit = homes["SalePrice"] >= homes["ListPrice"]
chi, p, dof, _ = stats.chi2_contingency(pd.crosstab(early, hit))
result = {"chi2_stat": float(chi), "pct_at_or_above_2005_2008": float(100 * hit[early].mean()),
          "period_effect": "reject" if p < 0.05 else "retain"}
""", {"chi2_stat": ("float", 3), "pct_at_or_above_2005_2008": ("float", 1), "period_effect": ("text",)})

closed(T, "homes", ["regression", "missing"], """
How much does each extra square foot add to the sale price? Regress `SalePrice` on `SquareFeet`.
Constraints: the rows with a blank SquareFeet are dropped (the zeros in CostPerSqFt on those rows are not data); scipy.stats.linregress(SquareFeet, SalePrice).
Below, one bracket each:
@dollars_per_sqft[2 decimals]
@intercept_dollars[1 decimal]
@r_sq[3 decimals]
@sqft_blank[rows dropped]
""", """
x = homes.dropna(subset=["SquareFeet"])
fit = stats.linregress(x["SquareFeet"], x["SalePrice"])
result = {"dollars_per_sqft": float(fit.slope), "intercept_dollars": float(fit.intercept),
          "r_sq": float(fit.rvalue ** 2), "sqft_blank": int(homes["SquareFeet"].isna().sum())}
""", {"dollars_per_sqft": ("float", 2), "intercept_dollars": ("float", 1), "r_sq": ("float", 3), "sqft_blank": ("int",)})

natural(T, "homes", ["change", "groupby"], "By what percent did the median sale price change between the 2009 sales and the 2013 sales?", """
m = homes.groupby("YearSold")["SalePrice"].median()
result = float(100 * (m[2013] / m[2009] - 1))
""", kind="number", tolerance=0.2)

natural(T, "homes", ["duplicates", "strings"], "List every address that shows up three times in the sales.", """
vc = homes["Address"].str.strip().value_counts()
result = sorted(str(a) for a in vc[vc == 3].index)
""", kind="list", ordered=False)

# ---------------------------------------------------------------- tipi_personality
T = "tipi_personality.csv"
closed(T, "tipi", ["outliers", "missing", "summary"], """
The TIPI survey has 1,799 respondents, five trait scores on a 1-7 scale and a set of demographic answers; `age` contains at least one impossible value. Count the ages above 100, give the median age over all rows, the mean age once the ages above 100 are removed, and name the column with the most blank cells.
Hand over @impossible_ages[count], @median_age_all[whole years], @mean_age_clean[2 decimals], @emptiest_field[column name as in the header].
""", """
ok = tipi["age"] <= 100
result = {"impossible_ages": int((~ok).sum()), "median_age_all": int(tipi["age"].median()),
          "mean_age_clean": float(tipi.loc[ok, "age"].mean()), "emptiest_field": str(tipi.isna().sum().idxmax())}
""", {"impossible_ages": ("int",), "median_age_all": ("int",), "mean_age_clean": ("float", 2), "emptiest_field": ("text",)})

closed(T, "tipi", ["test", "share"], """
Is having voted (`voted`, Yes/No) associated with `gender` (F/M)? Leave out the rows with a blank `voted`, cross-tabulate the two and test.
Constraints: scipy.stats.chi2_contingency with its defaults (Yates-corrected for a 2 x 2 table); decide at alpha = 0.01.
Line-by-line results:
@chi2_gender_voted[2 decimals]
@pct_women_voted[1 decimal]
@gender_vote_independent[yes or no]
""", """
x = tipi.dropna(subset=["voted"])
chi, p, dof, _ = stats.chi2_contingency(pd.crosstab(x["gender"], x["voted"]))
result = {"chi2_gender_voted": float(chi), "pct_women_voted": float(100 * (x.loc[x["gender"] == "F", "voted"] == "Yes").mean()),
          "gender_vote_independent": "no" if p < 0.01 else "yes"}
""", {"chi2_gender_voted": ("float", 2), "pct_women_voted": ("float", 1), "gender_vote_independent": ("text",)})

closed(T, "tipi", ["correlation", "groupby", "topk"], """
Which trait moves most strongly against Neuroticism? Among Extraversion, Conscientiousness, Agreeableness and Openness, find the one whose Pearson correlation with Neuroticism is the most negative, and that correlation; then find the `education` level with the highest mean Conscientiousness.
The brackets to fill are @anti_neurotic_trait[trait name] @r_with_neuroticism[4 decimals] @most_conscientious_education[education code as written]
""", """
traits = ["Extraversion", "Conscientiousness", "Agreeableness", "Openness"]
r = tipi[traits].corrwith(tipi["Neuroticism"])
result = {"anti_neurotic_trait": str(r.idxmin()), "r_with_neuroticism": float(r.min()),
          "most_conscientious_education": str(tipi.groupby("education")["Conscientiousness"].mean().idxmax())}
""", {"anti_neurotic_trait": ("text",), "r_with_neuroticism": ("float", 4), "most_conscientious_education": ("text",)})

natural(T, "tipi", ["groupby", "summary"], "Are native English speakers more agreeable on average than non-native ones?", """
m = tipi.groupby("engnat")["Agreeableness"].mean()
result = "yes" if m["Native"] > m["Non-native"] else "no"
""", kind="yesno")

natural(T, "tipi", ["summary", "filter"], "And what's the mean Openness score of the non-native speakers?", """
result = float(tipi.loc[tipi["engnat"] == "Non-native", "Openness"].mean())
""", kind="number", tolerance=0.01)


def _choices(name: str) -> list[str]:
    import pandas as pd

    if name == "SPECIES":
        df = pd.read_csv(HERE / "tables" / "iowa_hawks.csv")
        return sorted(str(v) for v in df["Species"].dropna().unique())
    if name == "CHAMPIONS":
        df = pd.read_csv(HERE / "tables" / "boston_marathon_winners.csv")
        return sorted(str(v) for v in df["Champion"].dropna().unique() if v != "No Contestants")
    if name == "WARS":
        df = pd.read_csv(HERE / "tables" / "us_gdp_presidents.csv")
        return sorted(str(v) for v in df["war"].dropna().unique())
    raise KeyError(name)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external9.score import run_reference
    except ImportError:
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external9.score import run_reference

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
