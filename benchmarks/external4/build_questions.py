"""Build questions.json from the question specifications below.

Each reference answer is computed by running the question's `reference_code` on the
committed CSV (see `run_reference` in score.py for the execution convention: the table is
loaded with `pd.read_csv` into the variable named by `frame`; `pd`, `np` and `stats`
(scipy.stats) are available; the code assigns `result`). Closed questions return a dict
of parts; natural questions return a single value.

Run by hand:  python benchmarks/external4/build_questions.py
An independent second computation of every answer lives in crosscheck.py.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x4"

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


# ---------------------------------------------------------------- credit_data
T = "credit_data.csv"
closed(T, "credit", ["missing", "count"], """
Look at the missing values of the credit table. How many rows have at least one empty cell, and which column has the most empty cells?
Format:
@rows_with_missing[n]
@most_missing_column[column]
n is a whole number; column is the column name exactly as it appears in the header.
""", """
result = {"rows_with_missing": int(credit.isna().any(axis=1).sum()),
          "most_missing_column": str(credit.isna().sum().idxmax())}
""", {"rows_with_missing": ("int",), "most_missing_column": ("text",)})

closed(T, "credit", ["test", "share"], """
Is the credit `Status` (good/bad) associated with having previous `Records`? Run a chi-square test of independence on the 2x2 contingency table of the two columns.
Constraints: Pearson's chi-square without Yates' continuity correction; significance level 0.01.
Format: @chi_square[value rounded to two decimals] @verdict[dependent or independent] — "dependent" when the p-value is below 0.01.
""", """
ct = pd.crosstab(credit["Status"], credit["Records"])
chi2, p, dof, _ = stats.chi2_contingency(ct, correction=False)
result = {"chi_square": float(chi2), "verdict": "dependent" if p < 0.01 else "independent"}
""", {"chi_square": ("float", 2), "verdict": ("text",)})

closed(T, "credit", ["feature engineering", "groupby"], """
Create a new column `loan_to_price`, the requested `Amount` divided by the `Price` of the purchased good. What is the mean of this ratio for the applicants with a good status, and for those with a bad status?
Answer Format: @ratio_good[x] @ratio_bad[y], with x and y as decimal fractions (not percentages) to 3 places.
""", """
r = credit["Amount"] / credit["Price"]
m = r.groupby(credit["Status"]).mean()
result = {"ratio_good": float(m["good"]), "ratio_bad": float(m["bad"])}
""", {"ratio_good": ("float", 3), "ratio_bad": ("float", 3)})

closed(T, "credit", ["outliers", "distribution"], """
Detect outliers in `Income` with the 1.5 x IQR rule.
Constraints: ignore missing incomes; Q1 and Q3 by linear interpolation (the default of pandas' quantile); an outlier lies strictly above Q3 + 1.5*IQR or strictly below Q1 - 1.5*IQR.
Format:
@upper_fence[number with one decimal]
@n_outliers[integer count of outlying incomes]
""", """
inc = credit["Income"].dropna()
q1, q3 = inc.quantile(0.25), inc.quantile(0.75)
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
result = {"upper_fence": float(hi), "n_outliers": int(((inc > hi) | (inc < lo)).sum())}
""", {"upper_fence": ("float", 1), "n_outliers": ("int",)})

natural(T, "credit", ["groupby", "share"], "Which job type has the highest share of applicants with a bad credit status?", """
share = credit.dropna(subset=["Job"]).groupby("Job")["Status"].apply(lambda s: (s == "bad").mean())
result = str(share.idxmax())
""", kind="label", choices=choices_of(T, "Job"))

natural(T, "credit", ["summary", "filter"], "what's the median income of the applicants who own their home?", """
result = float(credit.loc[credit["Home"] == "owner", "Income"].median())
""", kind="number", tolerance=0.5)

# ---------------------------------------------------------------- uk_smoking
T = "uk_smoking.csv"
closed(T, "smoking", ["groupby", "share"], """
For each `region`, compute the percentage of respondents who smoke (`smoke` equal to "Yes"). Which region has the highest smoking rate, and what is it?
Format: @top_region[region name as written in the data] @smoking_pct[percentage, 2 decimal places, no % sign]
""", """
pct = smoking.groupby("region")["smoke"].apply(lambda s: (s == "Yes").mean() * 100)
result = {"top_region": str(pct.idxmax()), "smoking_pct": float(pct.max())}
""", {"top_region": ("text",), "smoking_pct": ("float", 2)})

closed(T, "smoking", ["test", "groupby"], """
Do smokers and non-smokers differ in age? Compare the `age` of the two groups defined by `smoke` with a two-sample t-test.
Constraints: Welch's t-test (unequal variances), smokers as the first sample, two-sided, alpha = 0.05.
Format: @t_stat[t] @mean_age_gap[d] @significant[yes or no]
where t is rounded to 2 decimals, d is the mean age of smokers minus that of non-smokers in years, rounded to 2 decimals, and significant is "yes" when p < 0.05.
""", """
a = smoking.loc[smoking["smoke"] == "Yes", "age"]
b = smoking.loc[smoking["smoke"] == "No", "age"]
t, p = stats.ttest_ind(a, b, equal_var=False)
result = {"t_stat": float(t), "mean_age_gap": float(a.mean() - b.mean()), "significant": "yes" if p < 0.05 else "no"}
""", {"t_stat": ("float", 2), "mean_age_gap": ("float", 2), "significant": ("text",)})

closed(T, "smoking", ["feature engineering", "filter"], """
For the smokers, estimate cigarettes per week as 5 * `amt_weekdays` + 2 * `amt_weekends`. What is the mean of this new variable over the smokers, and how many smokers smoke more than 140 cigarettes a week?
Constraints: smokers are the rows with `smoke` == "Yes"; "more than 140" means strictly greater.
Format -> @weekly_mean[mean rounded to 1 decimal], @heavy_smokers[count]
""", """
s = smoking[smoking["smoke"] == "Yes"]
w = 5 * s["amt_weekdays"] + 2 * s["amt_weekends"]
result = {"weekly_mean": float(w.mean()), "heavy_smokers": int((w > 140).sum())}
""", {"weekly_mean": ("float", 1), "heavy_smokers": ("int",)})

closed(T, "smoking", ["summary", "distribution"], """
The `gross_income` column holds income bands as text. Order the eight bands from lowest to highest ("Under 2,600", "2,600 to 5,200", "5,200 to 10,400", "10,400 to 15,600", "15,600 to 20,800", "20,800 to 28,600", "28,600 to 36,400", "Above 36,400") and leave out the answers "Refused" and "Unknown". Which band contains the median respondent, and how many respondents have a known band?
Format:
@median_band[the band, copied exactly as it is written in the data, e.g. 2,600 to 5,200]
@known_income[number of respondents]
""", """
order = ["Under 2,600", "2,600 to 5,200", "5,200 to 10,400", "10,400 to 15,600", "15,600 to 20,800",
         "20,800 to 28,600", "28,600 to 36,400", "Above 36,400"]
g = smoking.loc[smoking["gross_income"].isin(order), "gross_income"]
codes = np.sort(g.map({b: i for i, b in enumerate(order)}).to_numpy())
n = len(codes)
assert codes[(n - 1) // 2] == codes[n // 2]
result = {"median_band": order[int(codes[n // 2])], "known_income": int(n)}
""", {"median_band": ("text",), "known_income": ("int",)})

natural(T, "smoking", ["groupby", "share"], "Are women more likely to smoke than men in this survey?", """
rate = smoking.groupby("gender")["smoke"].apply(lambda s: (s == "Yes").mean())
result = "yes" if rate["Female"] > rate["Male"] else "no"
""", kind="yesno")

natural(T, "smoking", ["groupby", "filter"], "list the marital statuses in which more than 30% of the people smoke", """
rate = smoking.groupby("marital_status")["smoke"].apply(lambda s: (s == "Yes").mean() * 100)
result = sorted(str(k) for k in rate[rate > 30].index)
""", kind="list", ordered=False)

# ---------------------------------------------------------------- london_murders
T = "london_murders.csv"
closed(T, "murders", ["dates", "groupby"], """
Parse the `date` column and extract the calendar month. Pooling all years, which month of the year has the most murders, and how many?
Format:
@busiest_month[month number, 1-12]
@murders_in_month[count]
Both values are integers.
""", """
m = pd.to_datetime(murders["date"]).dt.month.value_counts()
result = {"busiest_month": int(m.idxmax()), "murders_in_month": int(m.max())}
""", {"busiest_month": ("int",), "murders_in_month": ("int",)})

closed(T, "murders", ["dates", "groupby"], """
On which day of the week were the most murders recorded? Parse `date` to find the weekday of each murder. Format: @weekday[the full English name of the day, e.g. Tuesday].
""", """
d = pd.to_datetime(murders["date"]).dt.day_name().value_counts()
result = {"weekday": str(d.idxmax())}
""", {"weekday": ("text",)})

closed(T, "murders", ["dates", "change"], """
Sort the murders by date and compute the number of days between consecutive murders. What is the longest gap, and on which dates does it start and end?
Constraints: murders on the same date give a gap of 0 days.
Format: @longest_gap_days[integer] @gap_start[YYYY-MM-DD] @gap_end[YYYY-MM-DD]
""", """
d = pd.to_datetime(murders["date"]).sort_values().reset_index(drop=True)
gaps = d.diff().dt.days
i = int(gaps.idxmax())
result = {"longest_gap_days": int(gaps.max()), "gap_start": d[i - 1].strftime("%Y-%m-%d"),
          "gap_end": d[i].strftime("%Y-%m-%d")}
""", {"longest_gap_days": ("int",), "gap_start": ("text",), "gap_end": ("text",)})

natural(T, "murders", ["groupby", "filter"], "Which borough had the most murders in 2008?", """
result = str(murders.loc[murders["year"] == 2008, "borough"].value_counts().idxmax())
""", kind="label", choices=choices_of(T, "borough"))

natural(T, "murders", ["count", "filter"], "How many of the victims were teenagers, aged 13 to 19?", """
result = int(murders["age"].between(13, 19).sum())
""", kind="count")

natural(T, "murders", ["count", "filter"], "And how many of those teenage victims were killed in Newham?", """
result = int((murders["age"].between(13, 19) & (murders["borough"] == "Newham")).sum())
""", kind="count")

# ---------------------------------------------------------------- cpus
T = "cpus.csv"
closed(T, "cpus", ["missing", "groupby"], """
What percentage of the Intel processors (`company` == "Intel") have no `boost_clock` value?
Format: @intel_missing_pct[...], a percentage of Intel's rows given with two digits after the decimal point.
""", """
m = cpus.groupby("company")["boost_clock"].apply(lambda s: s.isna().mean() * 100)
result = {"intel_missing_pct": float(m["Intel"])}
""", {"intel_missing_pct": ("float", 2)})

closed(T, "cpus", ["regression", "correlation"], """
Regress the thermal design power `tdp` on the number of `cores` with ordinary least squares (with an intercept), using every row.
Format: @slope[watts per core] @intercept[watts] @r2[coefficient of determination]
Round the slope and the intercept to 2 decimals and r2 to 3 decimals.
""", """
res = stats.linregress(cpus["cores"], cpus["tdp"])
result = {"slope": float(res.slope), "intercept": float(res.intercept), "r2": float(res.rvalue ** 2)}
""", {"slope": ("float", 2), "intercept": ("float", 2), "r2": ("float", 3)})

closed(T, "cpus", ["dates", "count"], """
Using the `released` date (skip the rows where it is missing), find the calendar month in which the most processors were released, pooled over all years, and the release year with the fewest processors.
Format:
@top_month[1-12] @top_month_count[n] @quietest_year[yyyy]
all three as integers.
""", """
d = pd.to_datetime(cpus["released"].dropna())
m = d.dt.month.value_counts()
y = d.dt.year.value_counts()
result = {"top_month": int(m.idxmax()), "top_month_count": int(m.max()), "quietest_year": int(y.idxmin())}
""", {"top_month": ("int",), "top_month_count": ("int",), "quietest_year": ("int",)})

closed(T, "cpus", ["strings", "groupby"], """
Intel's Core processors carry a tier in their `name`, e.g. "Core i5-2430M" is tier i5. Extract the tier (i3, i5, i7 or i9) from the names that follow the pattern "Core i<digit>". How many processors have a tier, and which tier has the highest mean `base_clock`?
Format: @tiered[integer] @fastest_tier[i3, i5, i7 or i9] @tier_mean_clock[GHz to 3 decimals]
""", """
tier = cpus["name"].str.extract(r"Core (i[3579])", expand=False)
m = cpus.groupby(tier)["base_clock"].mean()
result = {"tiered": int(tier.notna().sum()), "fastest_tier": str(m.idxmax()), "tier_mean_clock": float(m.max())}
""", {"tiered": ("int",), "fastest_tier": ("text",), "tier_mean_clock": ("float", 3)})

natural(T, "cpus", ["count", "topk"], "Which codename has the most processors in the table?", """
result = str(cpus["codename"].value_counts().idxmax())
""", kind="label", choices=choices_of(T, "codename"))

natural(T, "cpus", ["groupby", "summary"], "is the median TDP of AMD chips higher than Intel's?", """
m = cpus.groupby("company")["tdp"].median()
result = "yes" if m["AMD"] > m["Intel"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- davis
T = "davis.csv"
closed(T, "davis", ["feature engineering", "outliers"], """
Add a body-mass index column, BMI = `weight` / (`height` / 100) ** 2 (weight in kg, height in cm). Give the mean and the median BMI of the women (`sex` == "F"), and the number of people (both sexes) with a BMI of 30 or more.
Format:
@mean_bmi_women[two decimals]
@median_bmi_women[two decimals]
@n_bmi_30_plus[whole number]
""", """
bmi = davis["weight"] / (davis["height"] / 100) ** 2
w = bmi[davis["sex"] == "F"]
result = {"mean_bmi_women": float(w.mean()), "median_bmi_women": float(w.median()), "n_bmi_30_plus": int((bmi >= 30).sum())}
""", {"mean_bmi_women": ("float", 2), "median_bmi_women": ("float", 2), "n_bmi_30_plus": ("int",)})

closed(T, "davis", ["correlation", "outliers"], """
How closely does the reported weight (`repwt`) track the measured `weight`? Compute the Pearson correlation over the rows where both are present; then again after also dropping the rows where measured and reported weight differ by more than 50 kg.
Format: @r_all[r] @r_clean[r] (each r to three decimal places)
""", """
d = davis.dropna(subset=["repwt"])
r_all = d["weight"].corr(d["repwt"])
c = d[(d["weight"] - d["repwt"]).abs() <= 50]
result = {"r_all": float(r_all), "r_clean": float(c["weight"].corr(c["repwt"]))}
""", {"r_all": ("float", 3), "r_clean": ("float", 3)})

closed(T, "davis", ["test"], """
Do people report their height accurately? Run a paired t-test of measured `height` against reported `repht`.
Constraints: only rows where `repht` is present; two-sided; significance level 0.05.
Format: @t_statistic[t, 3 decimals] @p_value[p, 4 decimals] @conclusion[significant difference or no significant difference]
""", """
d = davis.dropna(subset=["repht"])
t, p = stats.ttest_rel(d["height"], d["repht"])
result = {"t_statistic": float(t), "p_value": float(p),
          "conclusion": "significant difference" if p < 0.05 else "no significant difference"}
""", {"t_statistic": ("float", 3), "p_value": ("float", 4), "conclusion": ("text",)})

natural(T, "davis", ["summary", "feature engineering"], "On average, how much does a woman's measured weight differ from her reported weight? Take measured minus reported, over the women who reported a weight.", """
d = davis[(davis["sex"] == "F")].dropna(subset=["repwt"])
result = float((d["weight"] - d["repwt"]).mean())
""", kind="number", tolerance=0.01)

natural(T, "davis", ["summary", "feature engineering"], "And for the men?", """
d = davis[(davis["sex"] == "M")].dropna(subset=["repwt"])
result = float((d["weight"] - d["repwt"]).mean())
""", kind="number", tolerance=0.01)

natural(T, "davis", ["outliers", "count"], "how many people have a measured weight more than 3 standard deviations away from the mean?", """
z = (davis["weight"] - davis["weight"].mean()) / davis["weight"].std()
result = int((z.abs() > 3).sum())
""", kind="count")

# ---------------------------------------------------------------- slid
T = "slid.csv"
closed(T, "slid", ["missing", "duplicates"], """
Describe the data quality of the SLID table: the percentage of rows with a missing `wages` value, the number of complete rows (no missing value in any column), and the number of rows that exactly repeat an earlier row.
Constraints: for the repeats, compare whole rows and treat two missing cells as equal (the behaviour of pandas' duplicated with its defaults).
Format: @wages_missing_pct[percentage, 2 d.p.] @complete_rows[count] @repeated_rows[count]
""", """
result = {"wages_missing_pct": float(slid["wages"].isna().mean() * 100),
          "complete_rows": int(slid.notna().all(axis=1).sum()),
          "repeated_rows": int(slid.duplicated().sum())}
""", {"wages_missing_pct": ("float", 2), "complete_rows": ("int",), "repeated_rows": ("int",)})

closed(T, "slid", ["regression"], """
Fit the multiple linear regression wages = b0 + b1 * education + b2 * age by ordinary least squares.
Constraints: use the rows where `wages`, `education` and `age` are all present.
Format:
@b_education[coefficient of education, 4 decimals]
@b_age[coefficient of age, 4 decimals]
@r_squared[R-squared, 4 decimals]
@n_used[number of rows used]
""", """
d = slid.dropna(subset=["wages", "education", "age"])
X = np.column_stack([np.ones(len(d)), d["education"], d["age"]])
b, *_ = np.linalg.lstsq(X, d["wages"].to_numpy(), rcond=None)
resid = d["wages"].to_numpy() - X @ b
r2 = 1 - (resid @ resid) / ((d["wages"] - d["wages"].mean()) ** 2).sum()
result = {"b_education": float(b[1]), "b_age": float(b[2]), "r_squared": float(r2), "n_used": int(len(d))}
""", {"b_education": ("float", 4), "b_age": ("float", 4), "r_squared": ("float", 4), "n_used": ("int",)})

closed(T, "slid", ["test", "groupby"], """
Test whether mean hourly `wages` differ between the three `language` groups with a one-way ANOVA.
Constraints: drop the rows where wages or language is missing; alpha = 0.05.
Format: @f_value[F statistic rounded to three decimals] @means_differ[one of: yes, no]
""", """
d = slid.dropna(subset=["wages", "language"])
F, p = stats.f_oneway(*[g["wages"].to_numpy() for _, g in d.groupby("language")])
result = {"f_value": float(F), "means_differ": "yes" if p < 0.05 else "no"}
""", {"f_value": ("float", 3), "means_differ": ("text",)})

closed(T, "slid", ["distribution", "summary"], """
Describe the shape of the `wages` distribution (missing values excluded).
Constraints: use the bias-corrected sample skewness and excess kurtosis, i.e. what pandas' Series.skew() and Series.kurt() return (scipy: skew(..., bias=False) and kurtosis(..., bias=False)).
Format: the skewness as @wage_skew[...] and the excess kurtosis as @wage_kurtosis[...], both with 3 decimals, plus @shape[right-skewed or left-skewed].
""", """
w = slid["wages"].dropna()
result = {"wage_skew": float(w.skew()), "wage_kurtosis": float(w.kurt()),
          "shape": "right-skewed" if w.skew() > 0 else "left-skewed"}
""", {"wage_skew": ("float", 3), "wage_kurtosis": ("float", 3), "shape": ("text",)})

natural(T, "slid", ["summary", "filter"], "What's the median hourly wage of the women?", """
result = float(slid.loc[slid["sex"] == "Female", "wages"].median())
""", kind="number", tolerance=0.005)

natural(T, "slid", ["groupby", "summary"], "Do French speakers earn more on average than English speakers?", """
m = slid.groupby("language")["wages"].mean()
result = "yes" if m["French"] > m["English"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- teaching_ratings
T = "teaching_ratings.csv"
closed(T, "ratings", ["correlation", "test"], """
Is an instructor's `beauty` score correlated with the course evaluation (`eval`)? Compute Pearson's r and test it at the 5% level.
Format: @pearson_r[r to 4 decimals] @correlation_significant[true or false]
(true when the two-sided p-value is below 0.05)
""", """
r, p = stats.pearsonr(ratings["beauty"], ratings["eval"])
result = {"pearson_r": float(r), "correlation_significant": "true" if p < 0.05 else "false"}
""", {"pearson_r": ("float", 4), "correlation_significant": ("text",)})

closed(T, "ratings", ["test", "groupby"], """
Compare the evaluation scores (`eval`) of courses taught by male and by female instructors with Welch's two-sample t-test (male minus female, two-sided). Report the t statistic and the decision at alpha = 0.01.
Format: @t_value[t, 3 decimal places] @decision[reject H0 / fail to reject H0]
""", """
m = ratings.loc[ratings["gender"] == "male", "eval"]
f = ratings.loc[ratings["gender"] == "female", "eval"]
t, p = stats.ttest_ind(m, f, equal_var=False)
result = {"t_value": float(t), "decision": "reject H0" if p < 0.01 else "fail to reject H0"}
""", {"t_value": ("float", 3), "decision": ("text",)})

closed(T, "ratings", ["feature engineering", "filter"], """
Define each course's response rate as `students` (those who filled in the evaluation) divided by `allstudents` (those enrolled). How many courses have a response rate strictly below one half? Format: @low_response_courses[count]
""", """
rr = ratings["students"] / ratings["allstudents"]
result = {"low_response_courses": int((rr < 0.5).sum())}
""", {"low_response_courses": ("int",)})

natural(T, "ratings", ["groupby", "summary"], "Which division's courses get the higher average evaluation, upper or lower?", """
m = ratings.groupby("division")["eval"].mean()
result = str(m.idxmax())
""", kind="label", choices=choices_of(T, "division"))

natural(T, "ratings", ["count"], "how many different instructors are in the data?", """
result = int(ratings["prof"].nunique())
""", kind="count")

natural(T, "ratings", ["summary", "filter"], "What's the mean evaluation score of the courses taught by instructors who are not native English speakers?", """
result = float(ratings.loc[ratings["native"] == "no", "eval"].mean())
""", kind="number", tolerance=0.005)

# ---------------------------------------------------------------- sacramento
T = "sacramento.csv"
closed(T, "homes", ["strings", "count"], """
The `zip` column stores ZIP codes as text with a leading "z" (for example z95838). Strip the letter and convert the codes to integers. How many distinct ZIP codes are there, and what are the smallest and the largest?
Format: @distinct_zips[n] @min_zip[5-digit integer] @max_zip[5-digit integer]
""", """
z = homes["zip"].str.lstrip("z").astype(int)
result = {"distinct_zips": int(z.nunique()), "min_zip": int(z.min()), "max_zip": int(z.max())}
""", {"distinct_zips": ("int",), "min_zip": ("int",), "max_zip": ("int",)})

closed(T, "homes", ["strings", "groupby"], """
City names are written in upper case with underscores (e.g. EL_DORADO_HILLS). Clean them into title case with spaces ("El Dorado Hills"). Among the cities with at least 20 sales, which one has the highest median sale `price`, and what is that median?
Format:
@city[the cleaned city name]
@median_price[whole dollars, an integer]
""", """
city = homes["city"].str.replace("_", " ").str.title()
n = city.value_counts()
med = homes.groupby(city)["price"].median()[n[n >= 20].index]
result = {"city": str(med.idxmax()), "median_price": int(round(med.max()))}
""", {"city": ("text",), "median_price": ("int",)})

closed(T, "homes", ["outliers", "summary"], """
Flag price outliers with z-scores: z = (price - mean) / standard deviation, using the sample standard deviation (ddof = 1). How many homes have |z| > 3, and what is the lowest price among them?
Format: @n_price_outliers[integer] @lowest_outlier_price[integer, in dollars]
""", """
z = (homes["price"] - homes["price"].mean()) / homes["price"].std()
out = homes.loc[z.abs() > 3, "price"]
result = {"n_price_outliers": int(len(out)), "lowest_outlier_price": int(out.min())}
""", {"n_price_outliers": ("int",), "lowest_outlier_price": ("int",)})

natural(T, "homes", ["topk", "filter"], "In which city is the most expensive home?", """
result = str(homes.loc[homes["price"].idxmax(), "city"])
""", kind="label", choices=choices_of(T, "city"))

natural(T, "homes", ["groupby", "filter"], "For which numbers of bedrooms is the median price above $300,000?", """
m = homes.groupby("beds")["price"].median()
result = [str(k) for k in sorted(m[m > 300000].index)]
""", kind="list", ordered=False)

natural(T, "homes", ["count", "filter"], "how many homes have more bathrooms than bedrooms?", """
result = int((homes["baths"] > homes["beds"]).sum())
""", kind="count")

# ---------------------------------------------------------------- acs12
T = "acs12.csv"
closed(T, "acs", ["missing", "filter"], """
How many respondents have a missing `income`, and how old is the oldest of them?
Format: @missing_income[count] @oldest_without_income[age in years]
(both whole numbers)
""", """
m = acs[acs["income"].isna()]
result = {"missing_income": int(len(m)), "oldest_without_income": int(m["age"].max())}
""", {"missing_income": ("int",), "oldest_without_income": ("int",)})

closed(T, "acs", ["test", "groupby"], """
Test whether `employment` status is independent of `gender` with a chi-square test of independence.
Constraints: drop rows with a missing employment status; use scipy.stats.chi2_contingency with its defaults on the gender x employment table; alpha 0.05.
Format:
@chi2[statistic, 3 decimals]
@dof[degrees of freedom]
@result[independent / not independent]
""", """
d = acs.dropna(subset=["employment", "gender"])
chi2, p, dof, _ = stats.chi2_contingency(pd.crosstab(d["gender"], d["employment"]))
result = {"chi2": float(chi2), "dof": int(dof), "result": "not independent" if p < 0.05 else "independent"}
""", {"chi2": ("float", 3), "dof": ("int",), "result": ("text",)})

closed(T, "acs", ["groupby", "feature engineering"], """
Among employed respondents (`employment` == "employed"), compute the mean `income` for each education level (`edu`). Which level has the highest mean income, what is it, and how many times the mean income of the "hs or lower" group is it?
Constraints: ignore rows with missing income or education.
Format: @top_edu[edu level as in the data] @top_mean_income[dollars, 1 decimal] @times_hs[ratio, 2 decimals]
""", """
e = acs[acs["employment"] == "employed"].dropna(subset=["income", "edu"])
m = e.groupby("edu")["income"].mean()
result = {"top_edu": str(m.idxmax()), "top_mean_income": float(m.max()), "times_hs": float(m.max() / m["hs or lower"])}
""", {"top_edu": ("text",), "top_mean_income": ("float", 1), "times_hs": ("float", 2)})

closed(T, "acs", ["distribution", "test"], """
Is the travel time to work (`time_to_work`) normally distributed? Apply the Shapiro-Wilk test to the non-missing values and also report their skewness.
Constraints: alpha = 0.05; skewness as scipy.stats.skew with its default (biased) estimator.
Format: @shapiro_w[W statistic to 4 decimals]; @normality[normal / not normal]; @skewness[3 decimals]
""", """
t = acs["time_to_work"].dropna()
W, p = stats.shapiro(t)
result = {"shapiro_w": float(W), "normality": "normal" if p >= 0.05 else "not normal", "skewness": float(stats.skew(t))}
""", {"shapiro_w": ("float", 4), "normality": ("text",), "skewness": ("float", 3)})

natural(T, "acs", ["summary"], "what's the median travel time to work, in minutes?", """
result = float(acs["time_to_work"].median())
""", kind="number", tolerance=0.5)

natural(T, "acs", ["count", "topk"], "Rank the birth quarters from the most common to the least common.", """
result = [str(k) for k in acs["birth_qrtr"].value_counts().index]
""", kind="list", ordered=True)

# ---------------------------------------------------------------- anes96
T = "anes96.csv"
closed(T, "anes", ["feature engineering", "groupby"], """
Recode party identification `PID` into three groups: Democrat (codes 0-2), Independent (code 3) and Republican (codes 4-6). For each group, what percentage of respondents expect to vote for Dole (`vote` == 1)?
Format:
@dole_pct_democrat[x]
@dole_pct_independent[y]
@dole_pct_republican[z]
x, y and z are percentages (0-100) with one decimal.
""", """
grp = pd.cut(anes["PID"], [-1, 2, 3, 6], labels=["democrat", "independent", "republican"])
pct = anes.groupby(grp, observed=True)["vote"].mean() * 100
result = {f"dole_pct_{k}": float(pct[k]) for k in ["democrat", "independent", "republican"]}
""", {"dole_pct_democrat": ("float", 1), "dole_pct_independent": ("float", 1), "dole_pct_republican": ("float", 1)})

closed(T, "anes", ["correlation"], """
How strongly does a respondent's own left-right placement (`selfLR`) go with their party identification (`PID`)? Compute Spearman's rank correlation coefficient (average ranks for ties). The answer format is @spearman_rho[rho, rounded to 3 d.p.]
""", """
rho, p = stats.spearmanr(anes["selfLR"], anes["PID"])
result = {"spearman_rho": float(rho)}
""", {"spearman_rho": ("float", 3)})

closed(T, "anes", ["test", "groupby"], """
Are expected Dole voters (`vote` == 1) older than expected Clinton voters (`vote` == 0)? Run Welch's t-test on `age` (Dole voters as the first group, two-sided).
Constraints: significance level 0.05.
Format: @t[statistic, 3 decimals] @p[p-value, 3 decimals] @age_difference[significant or not significant]
""", """
a = anes.loc[anes["vote"] == 1, "age"]
b = anes.loc[anes["vote"] == 0, "age"]
t, p = stats.ttest_ind(a, b, equal_var=False)
result = {"t": float(t), "p": float(p), "age_difference": "significant" if p < 0.05 else "not significant"}
""", {"t": ("float", 3), "p": ("float", 3), "age_difference": ("text",)})

closed(T, "anes", ["outliers", "share"], """
`popul` is the population of the respondent's census place, in thousands. Using the 1.5 x IQR rule (quartiles by linear interpolation), find the upper fence and count the respondents above it (strictly), and give their share of all respondents.
Format: @fence[two decimals] @above_fence[count] @share_above[percent, one decimal]
""", """
q1, q3 = anes["popul"].quantile([0.25, 0.75])
hi = q3 + 1.5 * (q3 - q1)
n = int((anes["popul"] > hi).sum())
result = {"fence": float(hi), "above_fence": n, "share_above": float(n / len(anes) * 100)}
""", {"fence": ("float", 2), "above_fence": ("int",), "share_above": ("float", 1)})

natural(T, "anes", ["share"], "What percentage of the respondents expect to vote for Dole?", """
result = float(anes["vote"].mean() * 100)
""", kind="number", tolerance=0.05)

natural(T, "anes", ["groupby", "filter"], "which education levels (the educ codes) have more than 40% of respondents intending to vote Dole?", """
m = anes.groupby("educ")["vote"].mean()
result = [str(int(k)) for k in sorted(m[m > 0.4].index)]
""", kind="list", ordered=False)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external4.score import run_reference
    except ImportError:  # run as a script
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external4.score import run_reference

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
