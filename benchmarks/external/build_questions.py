"""Build questions.json from the question specifications below.

Each reference answer is computed by running the question's
`reference_code` on the committed CSV (see `run_reference` in score.py for
the execution convention: the table is loaded with `pd.read_csv` into the
variable named by `frame`; `pd`, `np` and `stats` (scipy.stats) are
available; the code assigns `result`). Closed questions return a dict of
parts; natural questions return a single value.

Run by hand:  python benchmarks/external/build_questions.py
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


# ---------------------------------------------------------------- seattle
T = "seattle_weather.csv"
closed(T, "weather", ["filter", "count"], """
Count the days whose weather is recorded as "rain" and whose precipitation is greater than 10.
Constraints: use the `weather` and `precipitation` columns as they are; the precipitation comparison is strict (> 10).
Format: @rain_days[count] where count is an integer.
""", """
result = {"rain_days": int(((weather["weather"] == "rain") & (weather["precipitation"] > 10)).sum())}
""", {"rain_days": ("int",)})

closed(T, "weather", ["dates", "groupby"], """
Parse the `date` column as dates and compute the mean of `temp_max` for each calendar year. Report the year with the highest mean and that mean.
Format: @year[year] where year is a four-digit integer; @mean_temp_max[value] where value is a float rounded to two decimal places.
""", """
by_year = weather.groupby(pd.to_datetime(weather["date"]).dt.year)["temp_max"].mean()
result = {"year": int(by_year.idxmax()), "mean_temp_max": float(by_year.max())}
""", {"year": ("int",), "mean_temp_max": ("float", 2)})

closed(T, "weather", ["outliers", "quantiles"], """
Detect outliers in the `wind` column with the IQR rule: a value is an outlier when it is below Q1 - 1.5*IQR or above Q3 + 1.5*IQR, where Q1 and Q3 are the 25th and 75th percentiles and IQR = Q3 - Q1.
Format: @wind_outliers[n] where n is an integer count of outlying days; @upper_fence[value] where value is Q3 + 1.5*IQR rounded to two decimals.
""", """
q1, q3 = weather["wind"].quantile([0.25, 0.75])
iqr = q3 - q1
lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
result = {"wind_outliers": int(((weather["wind"] < lo) | (weather["wind"] > hi)).sum()), "upper_fence": float(hi)}
""", {"wind_outliers": ("int",), "upper_fence": ("float", 2)})

closed(T, "weather", ["dates", "groupby", "filter"], """
Restrict the data to the calendar year 2014 and add up `precipitation` for each month. Which month had the largest total?
Constraints: parse `date` as a date; months are numbered 1 to 12.
Format: @month[m] where m is an integer; @total_precipitation[value] where value is a float rounded to one decimal place.
""", """
d = weather.assign(date=pd.to_datetime(weather["date"]))
d = d[d["date"].dt.year == 2014]
m = d.groupby(d["date"].dt.month)["precipitation"].sum()
result = {"month": int(m.idxmax()), "total_precipitation": float(m.max())}
""", {"month": ("int",), "total_precipitation": ("float", 1)})

natural(T, "weather", ["share"], "what percentage of days were sunny?", """
result = float((weather["weather"] == "sun").mean() * 100)
""", kind="number", tolerance=0.05)

natural(T, "weather", ["dates", "groupby"], "Which year had the most total precipitation?", """
result = int(weather.groupby(pd.to_datetime(weather["date"]).dt.year)["precipitation"].sum().idxmax())
""", kind="number", tolerance=0)

natural(T, "weather", ["spread"], "What's the standard deviation of the daily max temperature?", """
result = float(weather["temp_max"].std())
""", kind="number", tolerance=0.01)

# ---------------------------------------------------------------- cars
T = "cars.csv"
natural(T, "cars", ["missing", "count"], "how many cars are missing a horsepower value?", """
result = int(cars["Horsepower"].isna().sum())
""", kind="count")

natural(T, "cars", ["correlation"], "What's the correlation between horsepower and miles per gallon?", """
result = float(cars["Horsepower"].corr(cars["Miles_per_Gallon"]))
""", kind="number", tolerance=0.01)

closed(T, "cars", ["regression"], """
Fit a simple linear regression by ordinary least squares with Miles_per_Gallon as the response and Weight_in_lbs as the single predictor (with an intercept). Drop rows where Miles_per_Gallon is missing before fitting.
Format: @slope[value] where value is the coefficient of Weight_in_lbs rounded to four decimal places; @r_squared[value] where value is the coefficient of determination rounded to three decimal places.
""", """
d = cars.dropna(subset=["Miles_per_Gallon"])
fit = stats.linregress(d["Weight_in_lbs"], d["Miles_per_Gallon"])
result = {"slope": float(fit.slope), "r_squared": float(fit.rvalue ** 2)}
""", {"slope": ("float", 4), "r_squared": ("float", 3)})

natural(T, "cars", ["groupby"], "Which origin has the best average fuel economy?", """
result = str(cars.groupby("Origin")["Miles_per_Gallon"].mean().idxmax())
""", kind="label", choices=choices_of(T, "Origin"))

closed(T, "cars", ["dates", "count", "groupby"], """
Extract the model year from the `Year` column (it holds dates). How many distinct model years are there, which model year has the most cars, and how many cars does that year have?
Format: @n_years[n] where n is an integer; @busiest_year[year] where year is a four-digit integer; @cars_in_busiest_year[count] where count is an integer.
""", """
yr = pd.to_datetime(cars["Year"]).dt.year
vc = yr.value_counts()
result = {"n_years": int(yr.nunique()), "busiest_year": int(vc.idxmax()), "cars_in_busiest_year": int(vc.max())}
""", {"n_years": ("int",), "busiest_year": ("int",), "cars_in_busiest_year": ("int",)})

# ---------------------------------------------------------------- stocks
T = "stocks.csv"
natural(T, "stocks", ["dates", "groupby", "filter"], "which stock had the highest average price in 2005?", """
d = stocks[pd.to_datetime(stocks["date"]).dt.year == 2005]
result = str(d.groupby("symbol")["price"].mean().idxmax())
""", kind="label", choices=choices_of(T, "symbol"))

closed(T, "stocks", ["dates", "share"], """
For the symbol AAPL, compute the percentage change in price from its earliest date to its latest date in the table: (last price / first price - 1) * 100.
Constraints: order the AAPL rows by date before taking the first and last price.
Format: @pct_change[value] where value is a float rounded to one decimal place.
""", """
a = stocks[stocks["symbol"] == "AAPL"].assign(date=lambda d: pd.to_datetime(d["date"])).sort_values("date")
result = {"pct_change": float((a["price"].iloc[-1] / a["price"].iloc[0] - 1) * 100)}
""", {"pct_change": ("float", 1)})

natural(T, "stocks", ["dates", "groupby"], "in which year was Microsoft's average price lowest?", """
m = stocks[stocks["symbol"] == "MSFT"]
result = int(m.groupby(pd.to_datetime(m["date"]).dt.year)["price"].mean().idxmin())
""", kind="number", tolerance=0)

closed(T, "stocks", ["spread", "count"], """
Calculate the sample standard deviation (ddof = 1) of `price` for the symbol GOOG, and the number of GOOG observations.
Format: @std_price[value] where value is a float rounded to two decimals; @n_obs[n] where n is an integer.
""", """
g = stocks.loc[stocks["symbol"] == "GOOG", "price"]
result = {"std_price": float(g.std(ddof=1)), "n_obs": int(g.size)}
""", {"std_price": ("float", 2), "n_obs": ("int",)})

# ---------------------------------------------------------------- penguins
T = "penguins.csv"
natural(T, "penguins", ["groupby", "topk"], "rank the species by mean body mass, heaviest first", """
result = [str(s) for s in penguins.groupby("species")["body_mass_g"].mean().sort_values(ascending=False).index]
""", kind="list", ordered=True)

closed(T, "penguins", ["test"], """
Among Adelie penguins, compare body_mass_g between males and females with Welch's two-sample t-test (unequal variances), males first. Exclude rows where sex or body_mass_g is missing.
Constraints: significance level 0.05, two-sided test.
Format: @t_stat[value] where value is the t statistic rounded to two decimals; @significant[answer] where answer is "yes" or "no".
""", """
a = penguins[penguins["species"] == "Adelie"].dropna(subset=["sex", "body_mass_g"])
t = stats.ttest_ind(a.loc[a["sex"] == "male", "body_mass_g"], a.loc[a["sex"] == "female", "body_mass_g"], equal_var=False)
result = {"t_stat": float(t.statistic), "significant": "yes" if t.pvalue < 0.05 else "no"}
""", {"t_stat": ("float", 2), "significant": ("text",)})

natural(T, "penguins", ["missing", "count"], "how many penguins have no recorded sex?", """
result = int(penguins["sex"].isna().sum())
""", kind="count")

closed(T, "penguins", ["correlation"], """
Compute the Pearson correlation coefficient between bill_length_mm and bill_depth_mm, first over all penguins and then over Gentoo penguins only. Drop rows where either column is missing.
Format: @r_all[value] and @r_gentoo[value], each a float rounded to three decimals.
""", """
def r(d):
    d = d[["bill_length_mm", "bill_depth_mm"]].dropna()
    return float(d["bill_length_mm"].corr(d["bill_depth_mm"]))
result = {"r_all": r(penguins), "r_gentoo": r(penguins[penguins["species"] == "Gentoo"])}
""", {"r_all": ("float", 3), "r_gentoo": ("float", 3)})

closed(T, "penguins", ["spread", "quantiles", "filter"], """
For Gentoo penguins, compute the interquartile range (75th percentile minus 25th percentile) and the sample standard deviation (ddof = 1) of flipper_length_mm, ignoring missing values.
Format: @iqr[value] where value is a float rounded to one decimal; @std[value] where value is a float rounded to two decimals.
""", """
g = penguins.loc[penguins["species"] == "Gentoo", "flipper_length_mm"].dropna()
result = {"iqr": float(g.quantile(0.75) - g.quantile(0.25)), "std": float(g.std(ddof=1))}
""", {"iqr": ("float", 1), "std": ("float", 2)})

natural(T, "penguins", ["quantiles", "filter"], "What's the median body mass of Chinstrap penguins?", """
result = float(penguins.loc[penguins["species"] == "Chinstrap", "body_mass_g"].median())
""", kind="number", tolerance=0.5)

# ---------------------------------------------------------------- airquality
T = "airquality.csv"
natural(T, "df", ["missing", "count"], "how many rows have no value for Ozone", """
result = int(df["Ozone"].isna().sum())
""", kind="count")

closed(T, "df", ["groupby", "missing"], """
Compute the mean Ozone for each Month, ignoring missing Ozone values. Which month has the highest mean?
Format: @month[m] where m is the month number as an integer; @mean_ozone[value] where value is that month's mean rounded to two decimals.
""", """
m = df.groupby("Month")["Ozone"].mean()
result = {"month": int(m.idxmax()), "mean_ozone": float(m.max())}
""", {"month": ("int",), "mean_ozone": ("float", 2)})

closed(T, "df", ["test", "normality"], """
Use the Shapiro-Wilk test to check whether the Temp column is normally distributed.
Constraints: significance level 0.05; the data are normal when the p-value is at least 0.05.
Format: @p_value[value] where value is the p-value rounded to four decimals; @normality[result] where result is "normal" or "not normal".
""", """
p = float(stats.shapiro(df["Temp"]).pvalue)
result = {"p_value": p, "normality": "normal" if p >= 0.05 else "not normal"}
""", {"p_value": ("float", 4), "normality": ("text",)})

natural(T, "df", ["missing", "share"], "what percentage of rows have no missing values at all?", """
result = float(df.notna().all(axis=1).mean() * 100)
""", kind="number", tolerance=0.05)

# ---------------------------------------------------------------- mpg
T = "mpg.csv"
natural(T, "mpg", ["duplicates", "count"], "how many rows are left if I drop exact duplicate rows?", """
result = int(len(mpg.drop_duplicates()))
""", kind="count")

closed(T, "mpg", ["groupby", "topk"], """
Compute the mean highway mileage (`hwy`) for each vehicle `class` and rank the classes from highest to lowest mean.
Format: @first[class] @second[class] @third[class], where each class is the class name exactly as it appears in the data.
""", """
top = mpg.groupby("class")["hwy"].mean().sort_values(ascending=False).index[:3]
result = {"first": str(top[0]), "second": str(top[1]), "third": str(top[2])}
""", {"first": ("text",), "second": ("text",), "third": ("text",)})

natural(T, "mpg", ["groupby", "count"], "which manufacturer has the most distinct models?", """
result = str(mpg.groupby("manufacturer")["model"].nunique().idxmax())
""", kind="label", choices=choices_of(T, "manufacturer"))

closed(T, "mpg", ["test"], """
Perform a chi-square test of independence between the number of cylinders (`cyl`) and the drive train (`drv`), using the contingency table of counts.
Constraints: no continuity correction is relevant (the table is larger than 2x2); significance level 0.05.
Format: @chi2[value] where value is the test statistic rounded to two decimals; @dof[n] where n is an integer; @dependent[answer] where answer is "yes" if the variables are dependent at the 0.05 level, otherwise "no".
""", """
c = stats.chi2_contingency(pd.crosstab(mpg["cyl"], mpg["drv"]))
result = {"chi2": float(c.statistic), "dof": int(c.dof), "dependent": "yes" if c.pvalue < 0.05 else "no"}
""", {"chi2": ("float", 2), "dof": ("int",), "dependent": ("text",)})

natural(T, "mpg", ["groupby", "dates"], "Did average city mileage go up from 1999 to 2008?", """
m = mpg.groupby("year")["cty"].mean()
result = "yes" if m[2008] > m[1999] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- txhousing
T = "txhousing.csv"
natural(T, "tx", ["groupby", "filter", "topk"], "which city had the most total sales in 2014?", """
result = str(tx[tx["year"] == 2014].groupby("city")["sales"].sum().idxmax())
""", kind="label", choices=choices_of(T, "city"))

closed(T, "tx", ["dates", "groupby"], """
Using only the complete years 2000 through 2014 (inclusive), add up `sales` over all cities and months for each year. Which year has the highest total, and what is the total?
Constraints: missing sales values are skipped in the sums.
Format: @year[year] where year is a four-digit integer; @total_sales[n] where n is an integer.
""", """
s = tx[tx["year"].between(2000, 2014)].groupby("year")["sales"].sum()
result = {"year": int(s.idxmax()), "total_sales": int(round(s.max()))}
""", {"year": ("int",), "total_sales": ("int",)})

natural(T, "tx", ["missing", "count"], "how many cities have at least one month with missing sales?", """
result = int(tx.loc[tx["sales"].isna(), "city"].nunique())
""", kind="count")

closed(T, "tx", ["dates", "groupby", "filter"], """
For the city Houston, compute the average of `sales` for each calendar month (1-12) across all years. Which month has the highest average?
Format: @month[m] where m is an integer from 1 to 12; @avg_sales[value] where value is rounded to one decimal place.
""", """
m = tx[tx["city"] == "Houston"].groupby("month")["sales"].mean()
result = {"month": int(m.idxmax()), "avg_sales": float(m.max())}
""", {"month": ("int",), "avg_sales": ("float", 1)})

natural(T, "tx", ["spread", "quantiles"], "what's the interquartile range of the median sale price?", """
q = tx["median"].quantile([0.25, 0.75])
result = float(q[0.75] - q[0.25])
""", kind="number", tolerance=1)

# ---------------------------------------------------------------- msleep
T = "msleep.csv"
natural(T, "msleep", ["count", "groupby"], "which order has the most species in this data?", """
result = str(msleep["order"].value_counts().idxmax())
""", kind="label", choices=choices_of(T, "order"))

closed(T, "msleep", ["missing"], """
Count the missing values in every column. Report the column with the most missing values, how many it has, and how many rows have no missing value in any column.
Format: @column[name] where name is the column name; @n_missing[n] where n is an integer; @complete_rows[n] where n is an integer.
""", """
na = msleep.isna().sum()
result = {"column": str(na.idxmax()), "n_missing": int(na.max()), "complete_rows": int(msleep.notna().all(axis=1).sum())}
""", {"column": ("text",), "n_missing": ("int",), "complete_rows": ("int",)})

natural(T, "msleep", ["correlation"], "what's the spearman correlation between body weight and total sleep?", """
result = float(msleep["bodywt"].corr(msleep["sleep_total"], method="spearman"))
""", kind="number", tolerance=0.01)

closed(T, "msleep", ["groupby", "missing"], """
Excluding rows where `vore` is missing, compute the mean of `sleep_total` for each vore group. Which group sleeps the most on average?
Format: @vore[group] where group is the vore value as written in the data; @mean_sleep[value] where value is rounded to two decimals.
""", """
m = msleep.dropna(subset=["vore"]).groupby("vore")["sleep_total"].mean()
result = {"vore": str(m.idxmax()), "mean_sleep": float(m.max())}
""", {"vore": ("text",), "mean_sleep": ("float", 2)})

natural(T, "msleep", ["groupby", "filter"], "which vore groups sleep more than 10 hours on average?", """
m = msleep.groupby("vore")["sleep_total"].mean()
result = sorted(str(v) for v in m[m > 10].index)
""", kind="list", ordered=False)

# ---------------------------------------------------------------- salaries
T = "salaries.csv"
natural(T, "salaries", ["groupby"], "By how many dollars does the average male salary exceed the average female salary?", """
m = salaries.groupby("sex")["salary"].mean()
result = float(m["Male"] - m["Female"])
""", kind="number", tolerance=1)

closed(T, "salaries", ["test"], """
Run Welch's two-sample t-test (unequal variances, two-sided) comparing `salary` of Male and Female faculty, with Male as the first sample.
Constraints: significance level 0.05.
Format: @t_stat[value] rounded to two decimals; @p_value[value] rounded to four decimals; @significant[answer] where answer is "yes" or "no".
""", """
t = stats.ttest_ind(salaries.loc[salaries["sex"] == "Male", "salary"], salaries.loc[salaries["sex"] == "Female", "salary"], equal_var=False)
result = {"t_stat": float(t.statistic), "p_value": float(t.pvalue), "significant": "yes" if t.pvalue < 0.05 else "no"}
""", {"t_stat": ("float", 2), "p_value": ("float", 4), "significant": ("text",)})

natural(T, "salaries", ["share"], "what percentage of the faculty are full professors?", """
result = float((salaries["rank"] == "Prof").mean() * 100)
""", kind="number", tolerance=0.05)

closed(T, "salaries", ["regression"], """
Fit an ordinary least squares regression of salary on yrs.since.phd (one predictor plus intercept).
Format: @slope[value] rounded to two decimals; @intercept[value] rounded to two decimals; @r_squared[value] rounded to three decimals.
""", """
fit = stats.linregress(salaries["yrs.since.phd"], salaries["salary"])
result = {"slope": float(fit.slope), "intercept": float(fit.intercept), "r_squared": float(fit.rvalue ** 2)}
""", {"slope": ("float", 2), "intercept": ("float", 2), "r_squared": ("float", 3)})

natural(T, "salaries", ["quantiles", "filter"], "what's the median salary of assistant professors in discipline B?", """
result = float(salaries.loc[(salaries["rank"] == "AsstProf") & (salaries["discipline"] == "B"), "salary"].median())
""", kind="number", tolerance=0.5)

# ---------------------------------------------------------------- titanic
T = "titanic_survival.csv"
natural(T, "titanic", ["share", "filter"], "what percentage of 3rd class passengers survived?", """
t3 = titanic[titanic["passengerClass"] == "3rd"]
result = float((t3["survived"] == "yes").mean() * 100)
""", kind="number", tolerance=0.05)

closed(T, "titanic", ["test"], """
Test whether survival (`survived`) is independent of passenger class (`passengerClass`) with a chi-square test of independence on their contingency table.
Constraints: significance level 0.05.
Format: @chi2[value] where value is the statistic rounded to two decimals; @dof[n] where n is an integer; @independent[answer] where answer is "yes" if independence is not rejected, otherwise "no".
""", """
c = stats.chi2_contingency(pd.crosstab(titanic["survived"], titanic["passengerClass"]))
result = {"chi2": float(c.statistic), "dof": int(c.dof), "independent": "yes" if c.pvalue >= 0.05 else "no"}
""", {"chi2": ("float", 2), "dof": ("int",), "independent": ("text",)})

natural(T, "titanic", ["missing", "count"], "how many passengers have no age recorded?", """
result = int(titanic["age"].isna().sum())
""", kind="count")

closed(T, "titanic", ["groupby", "missing"], """
Compute the mean age of passengers who survived and of those who did not, ignoring missing ages.
Format: @mean_age_survived[value] and @mean_age_died[value], each rounded to two decimals; @older_group[group] where group is "survived" or "died", whichever has the higher mean age.
""", """
m = titanic.groupby("survived")["age"].mean()
result = {"mean_age_survived": float(m["yes"]), "mean_age_died": float(m["no"]), "older_group": "survived" if m["yes"] > m["no"] else "died"}
""", {"mean_age_survived": ("float", 2), "mean_age_died": ("float", 2), "older_group": ("text",)})

natural(T, "titanic", ["filter", "count"], "how many passengers were under 18?", """
result = int((titanic["age"] < 18).sum())
""", kind="count")

# ---------------------------------------------------------------- cps1985
T = "cps1985.csv"
closed(T, "cps", ["regression"], """
Fit a simple linear regression of `wage` (response) on `education` (predictor, years of schooling) by ordinary least squares with an intercept.
Format: @slope[value] rounded to three decimals; @intercept[value] rounded to three decimals; @r_squared[value] rounded to three decimals.
""", """
fit = stats.linregress(cps["education"], cps["wage"])
result = {"slope": float(fit.slope), "intercept": float(fit.intercept), "r_squared": float(fit.rvalue ** 2)}
""", {"slope": ("float", 3), "intercept": ("float", 3), "r_squared": ("float", 3)})

natural(T, "cps", ["groupby", "quantiles"], "which occupation has the lowest median wage?", """
result = str(cps.groupby("occupation")["wage"].median().idxmin())
""", kind="label", choices=choices_of(T, "occupation"))

natural(T, "cps", ["share"], "what percentage of workers are union members?", """
result = float((cps["union"] == "yes").mean() * 100)
""", kind="number", tolerance=0.05)

closed(T, "cps", ["outliers"], """
Flag outliers in `wage` using z-scores: z = (wage - mean) / std, where std is the population standard deviation (ddof = 0, as scipy.stats.zscore computes it). A wage is an outlier when |z| > 3.
Format: @n_outliers[n] where n is an integer; @max_abs_z[value] where value is the largest |z| rounded to two decimals.
""", """
z = np.abs(stats.zscore(cps["wage"]))
result = {"n_outliers": int((z > 3).sum()), "max_abs_z": float(z.max())}
""", {"n_outliers": ("int",), "max_abs_z": ("float", 2)})

natural(T, "cps", ["test"], "Do union members earn significantly more than non-members?", """
t = stats.ttest_ind(cps.loc[cps["union"] == "yes", "wage"], cps.loc[cps["union"] == "no", "wage"], equal_var=False)
result = "yes" if (t.pvalue < 0.05 and t.statistic > 0) else "no"
""", kind="yesno")

# ---------------------------------------------------------------- toothgrowth
T = "toothgrowth.csv"
closed(T, "tooth", ["test", "filter"], """
For the rows with dose equal to 0.5, compare `len` between the supplements OJ and VC with Welch's t-test (unequal variances, two-sided), OJ as the first sample.
Constraints: significance level 0.05.
Format: @t_stat[value] rounded to three decimals; @p_value[value] rounded to four decimals; @significant[answer] where answer is "yes" or "no".
""", """
d = tooth[tooth["dose"] == 0.5]
t = stats.ttest_ind(d.loc[d["supp"] == "OJ", "len"], d.loc[d["supp"] == "VC", "len"], equal_var=False)
result = {"t_stat": float(t.statistic), "p_value": float(t.pvalue), "significant": "yes" if t.pvalue < 0.05 else "no"}
""", {"t_stat": ("float", 3), "p_value": ("float", 4), "significant": ("text",)})

natural(T, "tooth", ["filter", "groupby"], "what's the average tooth length for OJ at dose 1?", """
result = float(tooth.loc[(tooth["supp"] == "OJ") & (tooth["dose"] == 1.0), "len"].mean())
""", kind="number", tolerance=0.01)

closed(T, "tooth", ["test", "groupby"], """
Run a one-way ANOVA of `len` across the three dose levels (0.5, 1 and 2), ignoring the supplement.
Format: @f_stat[value] where value is the F statistic rounded to two decimals; @below_0_001[answer] where answer is "yes" if the p-value is below 0.001, otherwise "no".
""", """
f = stats.f_oneway(*[g["len"] for _, g in tooth.groupby("dose")])
result = {"f_stat": float(f.statistic), "below_0_001": "yes" if f.pvalue < 0.001 else "no"}
""", {"f_stat": ("float", 2), "below_0_001": ("text",)})

# ---------------------------------------------------------------- quakes
T = "quakes.csv"
natural(T, "quakes", ["filter", "count"], "how many quakes had a magnitude of 5 or more?", """
result = int((quakes["mag"] >= 5).sum())
""", kind="count")

closed(T, "quakes", ["correlation", "test"], """
Calculate the Pearson correlation coefficient between `mag` and `stations` and test it for significance (two-sided, alpha 0.05).
Format: @r[value] where value is rounded to three decimals; @significant[answer] where answer is "yes" or "no".
""", """
r = stats.pearsonr(quakes["mag"], quakes["stations"])
result = {"r": float(r.statistic), "significant": "yes" if r.pvalue < 0.05 else "no"}
""", {"r": ("float", 3), "significant": ("text",)})

natural(T, "quakes", ["quantiles"], "what's the 90th percentile of depth?", """
result = float(quakes["depth"].quantile(0.9))
""", kind="number", tolerance=0.5)

closed(T, "quakes", ["outliers", "quantiles"], """
Apply the IQR rule to the `stations` column: Q1 and Q3 are the 25th and 75th percentiles, and a value is an outlier if it lies below Q1 - 1.5*(Q3 - Q1) or above Q3 + 1.5*(Q3 - Q1).
Format: @q1[value] and @q3[value], integers; @n_outliers[n] where n is the integer number of outlying rows.
""", """
q1, q3 = quakes["stations"].quantile([0.25, 0.75])
i = q3 - q1
result = {"q1": int(q1), "q3": int(q3), "n_outliers": int(((quakes["stations"] < q1 - 1.5 * i) | (quakes["stations"] > q3 + 1.5 * i)).sum())}
""", {"q1": ("int",), "q3": ("int",), "n_outliers": ("int",)})

# ---------------------------------------------------------------- fair
T = "fair.csv"
closed(T, "fair", ["duplicates", "count"], """
Count the rows that are exact duplicates of an earlier row (all columns equal; the first occurrence is not counted), then report how many rows remain after removing those duplicates.
Format: @n_duplicates[n] where n is an integer; @rows_after[n] where n is an integer.
""", """
result = {"n_duplicates": int(fair.duplicated().sum()), "rows_after": int(len(fair.drop_duplicates()))}
""", {"n_duplicates": ("int",), "rows_after": ("int",)})

natural(T, "fair", ["share", "filter"], "what percentage of the women reported any affair at all (affairs above zero)?", """
result = float((fair["affairs"] > 0).mean() * 100)
""", kind="number", tolerance=0.05)

closed(T, "fair", ["groupby"], """
Group the data by `rate_marriage` and compute the mean of `affairs` in each group. Report the rating with the highest mean.
Format: @rating[r] where r is an integer; @mean_affairs[value] where value is rounded to three decimals.
""", """
m = fair.groupby("rate_marriage")["affairs"].mean()
result = {"rating": int(m.idxmax()), "mean_affairs": float(m.max())}
""", {"rating": ("int",), "mean_affairs": ("float", 3)})

natural(T, "fair", ["correlation"], "is there a correlation between age and years married?", """
r = stats.pearsonr(fair["age"], fair["yrs_married"])
result = "yes" if (r.pvalue < 0.05 and abs(r.statistic) >= 0.3) else "no"
""", kind="yesno")

# ---------------------------------------------------------------- macrodata
T = "macrodata.csv"
natural(T, "macro", ["dates", "filter"], "what was the average unemployment rate in the 1980s?", """
result = float(macro.loc[macro["year"].between(1980, 1989), "unemp"].mean())
""", kind="number", tolerance=0.01)

closed(T, "macro", ["topk", "dates"], """
Find the quarter with the highest inflation rate (`infl`).
Format: @year[y] where y is a four-digit integer; @quarter[q] where q is an integer from 1 to 4; @infl[value] where value is rounded to two decimals.
""", """
row = macro.loc[macro["infl"].idxmax()]
result = {"year": int(row["year"]), "quarter": int(row["quarter"]), "infl": float(row["infl"])}
""", {"year": ("int",), "quarter": ("int",), "infl": ("float", 2)})

closed(T, "macro", ["regression"], """
Regress real consumption (`realcons`) on real disposable income (`realdpi`) with ordinary least squares and an intercept.
Format: @slope[value] rounded to four decimals; @r_squared[value] rounded to four decimals.
""", """
fit = stats.linregress(macro["realdpi"], macro["realcons"])
result = {"slope": float(fit.slope), "r_squared": float(fit.rvalue ** 2)}
""", {"slope": ("float", 4), "r_squared": ("float", 4)})

natural(T, "macro", ["dates", "count"], "how many quarters saw real GDP fall from the previous quarter?", """
result = int((macro.sort_values(["year", "quarter"])["realgdp"].diff() < 0).sum())
""", kind="count")

# ---------------------------------------------------------------- planes
T = "planes.csv"
natural(T, "planes", ["count", "topk"], "which manufacturer has the most planes?", """
result = str(planes["manufacturer"].value_counts().idxmax())
""", kind="label", choices=choices_of(T, "manufacturer"))

closed(T, "planes", ["missing", "quantiles"], """
How many planes have no year of manufacture recorded, and what is the median year among the planes that have one?
Format: @missing_year[n] where n is an integer; @median_year[y] where y is an integer.
""", """
result = {"missing_year": int(planes["year"].isna().sum()), "median_year": int(planes["year"].median())}
""", {"missing_year": ("int",), "median_year": ("int",)})

natural(T, "planes", ["filter"], "What's the average number of seats for planes built before 2000?", """
result = float(planes.loc[planes["year"] < 2000, "seats"].mean())
""", kind="number", tolerance=0.01)

closed(T, "planes", ["topk", "share", "count"], """
Count the planes of each `engine` type. Report the most common engine type, its share of all planes as a percentage, and the second most common type.
Format: @top_engine[type] where type is written as in the data; @top_share[value] where value is a percentage rounded to one decimal place (e.g. 12.3); @second_engine[type].
""", """
vc = planes["engine"].value_counts()
result = {"top_engine": str(vc.index[0]), "top_share": float(vc.iloc[0] / len(planes) * 100), "second_engine": str(vc.index[1])}
""", {"top_engine": ("text",), "top_share": ("float", 1), "second_engine": ("text",)})


def build() -> list[dict]:
    import sys

    sys.path.insert(0, str(HERE))
    from score import run_reference  # noqa: E402

    out = []
    for i, q in enumerate(QUESTIONS, 1):
        q = dict(q)
        parts = q.pop("_parts", None)
        spec = q.pop("_spec", None)
        value = run_reference(q)
        if parts is not None:
            built = {}
            for name, p in parts.items():
                v = value[name]
                if p[0] == "float":
                    built[name] = {"kind": "float", "value": round(float(v), p[1]), "tolerance": 10 ** -p[1]}
                elif p[0] == "int":
                    built[name] = {"kind": "int", "value": int(v)}
                else:
                    built[name] = {"kind": "text", "value": str(v)}
            if set(value) != set(parts):
                raise ValueError(f"question {i}: parts differ from result keys")
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
        out.append({"id": f"ext-{i:02d}", "table": q["table"], "frame": q["frame"],
                    "style": q["style"], "topics": q["topics"], "question": q["question"],
                    "answer": answer, "reference_code": q["reference_code"]})
    return out


def main() -> None:
    qs = build()
    (HERE / "questions.json").write_text(json.dumps(qs, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(qs)} questions")


if __name__ == "__main__":
    main()
