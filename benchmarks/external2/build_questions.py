"""Build questions.json from the question specifications below.

Each reference answer is computed by running the question's
`reference_code` on the committed CSV (see `run_reference` in score.py for
the execution convention: the table is loaded with `pd.read_csv` into the
variable named by `frame`; `pd`, `np` and `stats` (scipy.stats) are
available; the code assigns `result`). Closed questions return a dict of
parts; natural questions return a single value.

Run by hand:  python benchmarks/external2/build_questions.py
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


# ---------------------------------------------------------------- gapminder
T = "gapminder.csv"
closed(T, "gapminder", ["feature engineering", "groupby", "filter"], """
Using only the rows for the year 2007, create a column `gdp` equal to `pop` multiplied by `gdpPercap`, then add up `gdp` for each continent. Which continent has the largest total, and what is that total expressed in trillions (the sum divided by 1e12)?
Format: @continent[name] @total_gdp_trillions[value], where name is the continent as written in the data and value is a number rounded to two decimal places.
""", """
d = gapminder[gapminder["year"] == 2007].copy()
d["gdp"] = d["pop"] * d["gdpPercap"]
tot = d.groupby("continent")["gdp"].sum()
result = {"continent": str(tot.idxmax()), "total_gdp_trillions": float(tot.max() / 1e12)}
""", {"continent": ("text",), "total_gdp_trillions": ("float", 2)})

closed(T, "gapminder", ["change", "groupby"], """
By what percentage did the total population in the table (the sum of `pop` over all countries) grow between 1952 and 2007, computed as (total in 2007 / total in 1952 - 1) * 100? Format: @pop_growth_pct[value] where "value" is a number rounded to one decimal place.
""", """
tot = gapminder.groupby("year")["pop"].sum()
result = {"pop_growth_pct": float((tot[2007] / tot[1952] - 1) * 100)}
""", {"pop_growth_pct": ("float", 1)})

closed(T, "gapminder", ["correlation", "test", "feature engineering"], """
For the year 2007, compute the Pearson correlation coefficient between the base-10 logarithm of `gdpPercap` and `lifeExp`, and test it for significance.
Constraints: use the 2007 rows only (one per country); two-sided test at the 0.05 significance level.
Format: @r[r_value] @relationship[relation] where r_value is between -1 and 1 rounded to 2 decimals, and relation is "positive" or "negative" (the sign of r) when the p-value is below 0.05, or "none" otherwise.
""", """
d = gapminder[gapminder["year"] == 2007]
r, p = stats.pearsonr(np.log10(d["gdpPercap"]), d["lifeExp"])
result = {"r": float(r), "relationship": ("positive" if r > 0 else "negative") if p < 0.05 else "none"}
""", {"r": ("float", 2), "relationship": ("text",)})

closed(T, "gapminder", ["topk", "feature engineering"], """
For each country, compute the gain in life expectancy between 1952 and 2007 (lifeExp in 2007 minus lifeExp in 1952). Which three countries gained the most?

Format: @top_3_countries[country1, country2, country3]
The three names go inside one pair of brackets, largest gain first, separated by a comma and a space, spelled exactly as in the `country` column.
""", """
w = gapminder.pivot(index="country", columns="year", values="lifeExp")
gain = (w[2007] - w[1952]).sort_values(ascending=False)
result = {"top_3_countries": ", ".join(gain.index[:3])}
""", {"top_3_countries": ("text",)})

natural(T, "gapminder", ["topk", "filter"], "What were the three most populous countries in 2007, largest first?", """
d = gapminder[gapminder["year"] == 2007]
result = [str(c) for c in d.sort_values("pop", ascending=False)["country"].head(3)]
""", kind="list", ordered=True)

natural(T, "gapminder", ["change", "groupby"], "Which country had the sharpest drop in life expectancy from one observation year to the next?", """
d = gapminder.sort_values(["country", "year"]).copy()
d["delta"] = d.groupby("country")["lifeExp"].diff()
result = str(d.loc[d["delta"].idxmin(), "country"])
""", kind="label", choices=choices_of(T, "country"))

# ---------------------------------------------------------------- starwars
T = "starwars.csv"
closed(T, "starwars", ["missing", "count"], """
How many characters have no recorded `mass`, how many have no recorded `birth_year`, and how many are missing both?

Format:
@missing_mass[n1]
@missing_birth_year[n2]
@missing_both[n3]
where n1, n2 and n3 are integers.
""", """
m, b = starwars["mass"].isna(), starwars["birth_year"].isna()
result = {"missing_mass": int(m.sum()), "missing_birth_year": int(b.sum()), "missing_both": int((m & b).sum())}
""", {"missing_mass": ("int",), "missing_birth_year": ("int",), "missing_both": ("int",)})

closed(T, "starwars", ["feature engineering", "outliers"], """
Create a body mass index column, bmi = mass / (height / 100) ** 2, keeping only the characters that have both mass and height recorded. Report the median BMI of those characters and the name of the character with the highest BMI.
Constraints: no other filtering; the median is taken over all the kept characters.
Format: @median_bmi[value] with value rounded to 2 decimal places; @max_bmi_character[name] with the name exactly as in the `name` column.
""", """
d = starwars.dropna(subset=["mass", "height"]).copy()
d["bmi"] = d["mass"] / (d["height"] / 100) ** 2
result = {"median_bmi": float(d["bmi"].median()), "max_bmi_character": str(d.loc[d["bmi"].idxmax(), "name"])}
""", {"median_bmi": ("float", 2), "max_bmi_character": ("text",)})

closed(T, "starwars", ["correlation", "outliers", "test"], """
Compute the Pearson correlation between `height` and `mass` over the characters that have both values: first using all of them, then again after removing every character whose mass is above 1000. Is the second correlation significant at alpha = 0.05 (two-sided)?
Format: @r_all[value] @r_without_heavy[value] @significant[answer], where both correlations are rounded to three decimals and answer is "yes" or "no".
""", """
d = starwars.dropna(subset=["height", "mass"])
r_all = stats.pearsonr(d["height"], d["mass"])
e = d[d["mass"] <= 1000]
r2 = stats.pearsonr(e["height"], e["mass"])
result = {"r_all": float(r_all[0]), "r_without_heavy": float(r2[0]), "significant": "yes" if r2[1] < 0.05 else "no"}
""", {"r_all": ("float", 3), "r_without_heavy": ("float", 3), "significant": ("text",)})

natural(T, "starwars", ["summary", "filter"], "What's the median height of the human characters?", """
result = float(starwars.loc[starwars["species"] == "Human", "height"].median())
""", kind="number", tolerance=0.5)

natural(T, "starwars", ["groupby", "topk"], "Which homeworld do the most characters come from?", """
result = str(starwars["homeworld"].value_counts().idxmax())
""", kind="label", choices=choices_of(T, "homeworld"))

# ---------------------------------------------------------------- house prices
T = "house_prices.csv"
closed(T, "houses", ["regression"], """
Fit an ordinary least squares regression of `price` on `lotsize` (a single predictor plus an intercept).
Format: @slope[value] @intercept[value] @r_squared[value] -- the slope rounded to 4 decimal places, the intercept rounded to 2 decimal places and r_squared (the coefficient of determination) rounded to 3 decimal places.
""", """
fit = stats.linregress(houses["lotsize"], houses["price"])
result = {"slope": float(fit.slope), "intercept": float(fit.intercept), "r_squared": float(fit.rvalue ** 2)}
""", {"slope": ("float", 4), "intercept": ("float", 2), "r_squared": ("float", 3)})

closed(T, "houses", ["test", "groupby"], """
Is there a significant difference in mean sale price between houses with and without central air conditioning (`aircon`)?
Constraints: Welch's two-sample t-test (unequal variances, two-sided), with the "yes" group as the first sample; significance level 0.05.
Format: @t_statistic[t] where t is rounded to two decimals, and @significant[flag] where flag is True or False.
""", """
t = stats.ttest_ind(houses.loc[houses["aircon"] == "yes", "price"], houses.loc[houses["aircon"] == "no", "price"], equal_var=False)
result = {"t_statistic": float(t.statistic), "significant": "True" if t.pvalue < 0.05 else "False"}
""", {"t_statistic": ("float", 2), "significant": ("text",)})

closed(T, "houses", ["duplicates", "summary"], """
Check the table for rows that exactly duplicate an earlier row (every column equal). How many such rows are there, and what is the mean `price` after dropping them (keeping the first occurrence)?
Format: @duplicate_rows[count] @mean_price[value] -- count is an integer; value is rounded to 2 decimal places.
""", """
dup = houses.duplicated()
result = {"duplicate_rows": int(dup.sum()), "mean_price": float(houses.loc[~dup, "price"].mean())}
""", {"duplicate_rows": ("int",), "mean_price": ("float", 2)})

closed(T, "houses", ["filter", "summary"], """
Select the houses that have at least 3 bedrooms, at least 2 bathrooms and central air conditioning (aircon equal to "yes"). How many houses match, and what is their average price? Format: @n_houses[integer] @avg_price[a number rounded to 2 decimals]
""", """
m = (houses["bedrooms"] >= 3) & (houses["bathrooms"] >= 2) & (houses["aircon"] == "yes")
result = {"n_houses": int(m.sum()), "avg_price": float(houses.loc[m, "price"].mean())}
""", {"n_houses": ("int",), "avg_price": ("float", 2)})

natural(T, "houses", ["share"], "What percentage of the houses have central air conditioning?", """
result = float((houses["aircon"] == "yes").mean() * 100)
""", kind="number", tolerance=0.05)

natural(T, "houses", ["groupby", "comparison"], "Do houses with a full finished basement sell for more on average than houses without one?", """
m = houses.groupby("fullbase")["price"].mean()
result = "yes" if m["yes"] > m["no"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- chile
T = "chile.csv"
closed(T, "chile", ["test", "missing"], """
Test whether voting intention (`vote`) is independent of `sex` with a chi-square test of independence on their contingency table, after dropping the rows where `vote` is missing.
Constraints: Pearson chi-square statistic on the full 2 x 4 table (no continuity correction applies); significance level 0.05.
Format: @chi2[statistic rounded to two decimals] @dof[degrees of freedom, an integer] @independent[yes or no]
""", """
ct = pd.crosstab(chile["sex"], chile["vote"])
chi2, p, dof, _ = stats.chi2_contingency(ct)
result = {"chi2": float(chi2), "dof": int(dof), "independent": "yes" if p >= 0.05 else "no"}
""", {"chi2": ("float", 2), "dof": ("int",), "independent": ("text",)})

closed(T, "chile", ["missing", "summary"], """
The `income` column has missing values. Count them, replace each missing income with the median of the non-missing incomes, and then compute the mean of the filled column.
Format: @missing_income[n] where n is an integer; @mean_income_imputed[value] where value is rounded to 2 decimal places.
""", """
filled = chile["income"].fillna(chile["income"].median())
result = {"missing_income": int(chile["income"].isna().sum()), "mean_income_imputed": float(filled.mean())}
""", {"missing_income": ("int",), "mean_income_imputed": ("float", 2)})

closed(T, "chile", ["groupby", "share"], """
Among respondents whose vote is recorded, compute for each `region` the percentage who answered "Y". Which region has the highest percentage?
Format: @region[code] where code is the region code as it appears in the data; @yes_pct[value] where value is a percentage between 0 and 100 rounded to two decimals.
""", """
d = chile.dropna(subset=["vote"])
pct = (d["vote"] == "Y").groupby(d["region"]).mean() * 100
result = {"region": str(pct.idxmax()), "yes_pct": float(pct.max())}
""", {"region": ("text",), "yes_pct": ("float", 2)})

closed(T, "chile", ["test", "groupby"], """
Run a one-way ANOVA of `statusquo` across the three `education` groups, excluding rows where either column is missing. Report the F statistic, whether the group means differ significantly at the 5% level, and the education group with the highest mean statusquo.
Format: @f_statistic[value rounded to 2 decimals] @p_below_0_05[yes/no] @highest_group[education code as in the data]
""", """
d = chile.dropna(subset=["education", "statusquo"])
groups = [g["statusquo"].to_numpy() for _, g in d.groupby("education")]
f, p = stats.f_oneway(*groups)
result = {"f_statistic": float(f), "p_below_0_05": "yes" if p < 0.05 else "no",
          "highest_group": str(d.groupby("education")["statusquo"].mean().idxmax())}
""", {"f_statistic": ("float", 2), "p_below_0_05": ("text",), "highest_group": ("text",)})

natural(T, "chile", ["missing", "count"], "How many respondents didn't give a vote intention?", """
result = int(chile["vote"].isna().sum())
""", kind="count")

natural(T, "chile", ["filter", "summary"], "What's the average age of the respondents who intend to vote No (coded N)?", """
result = float(chile.loc[chile["vote"] == "N", "age"].mean())
""", kind="number", tolerance=0.05)

# ---------------------------------------------------------------- arrests
T = "arrests.csv"
closed(T, "arrests", ["groupby", "share"], """
Compute the release rate -- the percentage of arrestees with released equal to "Yes" -- separately for each `colour`. Which group has the higher rate, and by how many percentage points does it exceed the other group's rate?
Format: @higher_group[colour] @gap_pp[value] where colour is written as in the data and value is rounded to 2 decimals.
""", """
rate = (arrests["released"] == "Yes").groupby(arrests["colour"]).mean() * 100
result = {"higher_group": str(rate.idxmax()), "gap_pp": float(rate.max() - rate.min())}
""", {"higher_group": ("text",), "gap_pp": ("float", 2)})

closed(T, "arrests", ["test"], """
Is being released associated with being employed? Run a chi-square test of independence on the 2 x 2 table of `released` by `employed`, without Yates' continuity correction.
Format: @chi_square[value] rounded to one decimal place; @association[answer] where answer is "significant" if p < 0.05 and "not significant" otherwise.
""", """
chi2, p, dof, _ = stats.chi2_contingency(pd.crosstab(arrests["released"], arrests["employed"]), correction=False)
result = {"chi_square": float(chi2), "association": "significant" if p < 0.05 else "not significant"}
""", {"chi_square": ("float", 1), "association": ("text",)})

closed(T, "arrests", ["dates", "groupby", "share"], """
Which year had the most arrests, how many arrests were there in that year, and what percentage of that year's arrestees were released (released equal to "Yes")?
Format: @year[yyyy] @arrests[n] @released_pct[pct] -- yyyy and n are integers, pct is rounded to 1 decimal.
""", """
vc = arrests["year"].value_counts()
y = int(vc.idxmax())
d = arrests[arrests["year"] == y]
result = {"year": y, "arrests": int(vc.max()), "released_pct": float((d["released"] == "Yes").mean() * 100)}
""", {"year": ("int",), "arrests": ("int",), "released_pct": ("float", 1)})

natural(T, "arrests", ["dates", "comparison"], "Were there more arrests in 2002 than in 1997?", """
vc = arrests["year"].value_counts()
result = "yes" if vc[2002] > vc[1997] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- nyc weather
T = "nyc_weather.csv"
closed(T, "weather", ["dates", "groupby", "filter"], """
Parse `time_hour` as UTC timestamps and take their calendar date (in UTC). For the JFK station, add up `precip` per date. On which date was the total largest, and what was that total?
Format: @wettest_date[date] where date is written YYYY-MM-DD; @total_precip[value] where value is rounded to 2 decimals.
""", """
d = weather[weather["origin"] == "JFK"]
day = pd.to_datetime(d["time_hour"], utc=True).dt.strftime("%Y-%m-%d")
tot = d.groupby(day)["precip"].sum()
result = {"wettest_date": str(tot.idxmax()), "total_precip": float(tot.max())}
""", {"wettest_date": ("text",), "total_precip": ("float", 2)})

closed(T, "weather", ["outliers", "distribution"], """
Flag outliers in `wind_speed` with the z-score method: z = (x - mean) / std, using the sample standard deviation (ddof = 1) and ignoring missing values; a value is an outlier when |z| > 3. How many outliers are there, and what is the largest `wind_speed`?
Format: @n_outliers[count] @max_wind_speed[value rounded to 2 decimals]
""", """
w = weather["wind_speed"].dropna()
z = (w - w.mean()) / w.std(ddof=1)
result = {"n_outliers": int((z.abs() > 3).sum()), "max_wind_speed": float(w.max())}
""", {"n_outliers": ("int",), "max_wind_speed": ("float", 2)})

closed(T, "weather", ["missing"], """
Count the missing values in every column. How many columns contain at least one missing value, which column has the most, and what percentage of that column's values are missing?
Format: @columns_with_missing[an integer] @most_missing_column[the column name] @missing_pct[a percentage with two decimals]
""", """
na = weather.isna().sum()
result = {"columns_with_missing": int((na > 0).sum()), "most_missing_column": str(na.idxmax()),
          "missing_pct": float(na.max() / len(weather) * 100)}
""", {"columns_with_missing": ("int",), "most_missing_column": ("text",), "missing_pct": ("float", 2)})

closed(T, "weather", ["filter", "count"], """
How many hourly records from JFK in July (the `month` column equal to 7) have a temperature (`temp`) above 85 and a relative humidity (`humid`) above 60? Both comparisons are strict. Format: @hot_humid_hours[count], an integer.
""", """
m = (weather["origin"] == "JFK") & (weather["month"] == 7) & (weather["temp"] > 85) & (weather["humid"] > 60)
result = {"hot_humid_hours": int(m.sum())}
""", {"hot_humid_hours": ("int",)})

natural(T, "weather", ["filter", "summary"], "What's the highest temperature recorded at LGA?", """
result = float(weather.loc[weather["origin"] == "LGA", "temp"].max())
""", kind="number", tolerance=0.01)

# ---------------------------------------------------------------- polls 2016
T = "polls_2016.csv"
closed(T, "polls", ["dates", "filter", "summary"], """
Consider national polls only (state equal to "U.S.") whose `enddate` falls in October 2016. How many are there, and what is their average raw Clinton lead (rawpoll_clinton minus rawpoll_trump)?
Format: @n_polls[n] @mean_lead[value], n an integer, value rounded to 2 decimals.
""", """
end = pd.to_datetime(polls["enddate"])
m = (polls["state"] == "U.S.") & (end.dt.year == 2016) & (end.dt.month == 10)
d = polls[m]
result = {"n_polls": int(m.sum()), "mean_lead": float((d["rawpoll_clinton"] - d["rawpoll_trump"]).mean())}
""", {"n_polls": ("int",), "mean_lead": ("float", 2)})

closed(T, "polls", ["topk", "count"], """
Which three pollsters conducted the most polls in the table (one row is one poll)?
Format: @top_pollsters[...] -- several values inside [ ]: the three pollster names in descending order of poll count, separated by ", " and written exactly as in the `pollster` column.
""", """
vc = polls["pollster"].value_counts()
result = {"top_pollsters": ", ".join(vc.index[:3])}
""", {"top_pollsters": ("text",)})

closed(T, "polls", ["feature engineering", "dates"], """
Create a `duration` column holding the number of days from `startdate` to `enddate` (enddate minus startdate). What is the mean duration, what is the longest duration, and which pollster ran the poll with the longest duration?
Format:
@mean_duration[value] -- value rounded to 2 decimals
@max_duration[days] -- an integer
@longest_pollster[name] -- as written in the data
""", """
dur = (pd.to_datetime(polls["enddate"]) - pd.to_datetime(polls["startdate"])).dt.days
result = {"mean_duration": float(dur.mean()), "max_duration": int(dur.max()),
          "longest_pollster": str(polls.loc[dur.idxmax(), "pollster"])}
""", {"mean_duration": ("float", 2), "max_duration": ("int",), "longest_pollster": ("text",)})

closed(T, "polls", ["dates", "groupby", "count"], """
Group the polls by the calendar month of their `enddate`. Which month has the most polls, and how many polls does it have?
Format: @busiest_month[YYYY-MM] @polls_in_month[count]
""", """
month = pd.to_datetime(polls["enddate"]).dt.strftime("%Y-%m")
vc = month.value_counts()
result = {"busiest_month": str(vc.idxmax()), "polls_in_month": int(vc.max())}
""", {"busiest_month": ("text",), "polls_in_month": ("int",)})

natural(T, "polls", ["missing", "count"], "How many polls have no pollster grade?", """
result = int(polls["grade"].isna().sum())
""", kind="count")

natural(T, "polls", ["topk", "filter"], "Leaving out the national polls, which state was polled most often?", """
result = str(polls.loc[polls["state"] != "U.S.", "state"].value_counts().idxmax())
""", kind="label", choices=choices_of(T, "state"))

# ---------------------------------------------------------------- births14
T = "births14.csv"
closed(T, "births", ["test", "groupby"], """
Do babies of smoking mothers weigh less? Compare `weight` between mothers whose `habit` is "smoker" and "nonsmoker" with Welch's t-test (two-sided, smokers as the first sample), excluding rows where `habit` is missing.
Format: @t[t_value] @p[p_value] @significant[yes/no] where t_value is rounded to 2 decimals, p_value is rounded to 4 decimals, and significant means p < 0.05.
""", """
d = births.dropna(subset=["habit"])
t = stats.ttest_ind(d.loc[d["habit"] == "smoker", "weight"], d.loc[d["habit"] == "nonsmoker", "weight"], equal_var=False)
result = {"t": float(t.statistic), "p": float(t.pvalue), "significant": "yes" if t.pvalue < 0.05 else "no"}
""", {"t": ("float", 2), "p": ("float", 4), "significant": ("text",)})

closed(T, "births", ["distribution", "test"], """
Use the Shapiro-Wilk test to check whether the babies' birth `weight` is normally distributed, at the 0.05 significance level.
Format: @w_statistic[the W statistic rounded to three decimals] @is_normal[answer] where answer is "yes" (p >= 0.05) or "no" (p < 0.05).
""", """
w, p = stats.shapiro(births["weight"])
result = {"w_statistic": float(w), "is_normal": "yes" if p >= 0.05 else "no"}
""", {"w_statistic": ("float", 3), "is_normal": ("text",)})

closed(T, "births", ["correlation", "test"], """
Calculate the Pearson correlation coefficient (r) between the length of pregnancy (`weeks`) and the baby's `weight`, and assess its significance with a two-tailed test at alpha = 0.05. Constraints: every row has both values; report r to 2 decimal places. Format: @correlation_coefficient[r_value] @is_significant[True/False]
""", """
r, p = stats.pearsonr(births["weeks"], births["weight"])
result = {"correlation_coefficient": float(r), "is_significant": "True" if p < 0.05 else "False"}
""", {"correlation_coefficient": ("float", 2), "is_significant": ("text",)})

closed(T, "births", ["missing", "summary", "distribution"], """
Fill the missing values of `gained` (weight gained by the mother) with the median of its observed values. After filling, what are the mean and the sample standard deviation (ddof = 1) of `gained`?
Format: @mean_gained[value] @std_gained[value], both rounded to 2 decimal places.
""", """
g = births["gained"].fillna(births["gained"].median())
result = {"mean_gained": float(g.mean()), "std_gained": float(g.std(ddof=1))}
""", {"mean_gained": ("float", 2), "std_gained": ("float", 2)})

natural(T, "births", ["share"], "What percentage of the babies were born premature?", """
result = float((births["premie"] == "premie").mean() * 100)
""", kind="number", tolerance=0.05)

natural(T, "births", ["groupby", "comparison"], "Are male babies heavier than female babies on average?", """
m = births.groupby("sex")["weight"].mean()
result = "yes" if m["male"] > m["female"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- ames
T = "ames.csv"
closed(T, "df", ["groupby", "filter"], """
Among neighborhoods with at least 20 sales, which one has the highest median `Sale_Price`? Format: @neighborhood[name as written in the data] @median_price[an integer]
""", """
g = df.groupby("Neighborhood")["Sale_Price"].agg(["size", "median"])
g = g[g["size"] >= 20]
result = {"neighborhood": str(g["median"].idxmax()), "median_price": int(g["median"].max())}
""", {"neighborhood": ("text",), "median_price": ("int",)})

closed(T, "df", ["feature engineering", "correlation"], """
Create a column `age` = Year_Sold - Year_Built. How many houses have a negative age, and what is the Pearson correlation between `age` and `Sale_Price` over all rows?
Format: @negative_age[count] @r_age_price[value between -1 and 1, rounded to 3 decimals]
""", """
age = df["Year_Sold"] - df["Year_Built"]
result = {"negative_age": int((age < 0).sum()), "r_age_price": float(age.corr(df["Sale_Price"]))}
""", {"negative_age": ("int",), "r_age_price": ("float", 3)})

closed(T, "df", ["regression"], """
Regress Sale_Price on Gr_Liv_Area (above-ground living area) by ordinary least squares with an intercept. What are the slope and the coefficient of determination?
Format: @slope[slope rounded to two decimals] @r2[R squared rounded to three decimals]
""", """
fit = stats.linregress(df["Gr_Liv_Area"], df["Sale_Price"])
result = {"slope": float(fit.slope), "r2": float(fit.rvalue ** 2)}
""", {"slope": ("float", 2), "r2": ("float", 3)})

closed(T, "df", ["outliers", "distribution"], """
Identify outliers in `Sale_Price` with the 1.5 x IQR rule. Q1 and Q3 are the 25th and 75th percentiles computed with linear interpolation (the numpy/pandas default) and IQR = Q3 - Q1; a price is an outlier if it is below Q1 - 1.5 * IQR or above Q3 + 1.5 * IQR.
Format: @iqr[value] @n_outliers[count] @upper_bound[value] -- all three are integers.
""", """
q1, q3 = df["Sale_Price"].quantile([0.25, 0.75])
iqr = q3 - q1
lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
result = {"iqr": int(iqr), "n_outliers": int(((df["Sale_Price"] < lo) | (df["Sale_Price"] > hi)).sum()), "upper_bound": int(hi)}
""", {"iqr": ("int",), "n_outliers": ("int",), "upper_bound": ("int",)})

natural(T, "df", ["count", "filter"], "How many houses have central air conditioning?", """
result = int((df["Central_Air"] == "Y").sum())
""", kind="count")

natural(T, "df", ["groupby"], "Which building type has the highest average sale price?", """
result = str(df.groupby("Bldg_Type")["Sale_Price"].mean().idxmax())
""", kind="label", choices=choices_of(T, "Bldg_Type"))

# ---------------------------------------------------------------- fertility
T = "fertility.csv"
closed(T, "fertility", ["missing"], """
The year columns run from 1960 to 2013. How many rows have no value at all in any of the year columns, and how many year columns are completely empty?
Format: @rows_all_missing[n] @empty_year_columns[n], both integers.
""", """
years = [str(y) for y in range(1960, 2014)]
v = fertility[years]
result = {"rows_all_missing": int(v.isna().all(axis=1).sum()), "empty_year_columns": int(v.isna().all(axis=0).sum())}
""", {"rows_all_missing": ("int",), "empty_year_columns": ("int",)})

closed(T, "fertility", ["topk", "filter"], """
Which three rows (identified by `Country Name`) have the highest fertility rate in 2011?
Format: @highest_2011[name1, name2, name3] listing the names in descending order of the 2011 value, exactly as written in `Country Name`, separated by a comma and a space.
""", """
top = fertility.nlargest(3, "2011")
result = {"highest_2011": ", ".join(top["Country Name"])}
""", {"highest_2011": ("text",)})

closed(T, "fertility", ["change", "feature engineering", "filter"], """
For every row that has values for both 1960 and 2011, compute the percentage change in the fertility rate: (value in 2011 - value in 1960) / value in 1960 * 100.
How many rows show an increase (change > 0)? Which row has the largest decrease, and what is its percentage change?
Format: @n_increase[count] @largest_decline[Country Name] @decline_pct[value] where value is a negative number rounded to 2 decimals.
""", """
d = fertility.dropna(subset=["1960", "2011"])
chg = (d["2011"] - d["1960"]) / d["1960"] * 100
result = {"n_increase": int((chg > 0).sum()), "largest_decline": str(d.loc[chg.idxmin(), "Country Name"]),
          "decline_pct": float(chg.min())}
""", {"n_increase": ("int",), "largest_decline": ("text",), "decline_pct": ("float", 2)})

closed(T, "fertility", ["filter", "share"], """
Replacement-level fertility is 2.1 births per woman. Among the rows that have a value for 2011, how many are strictly below 2.1, and what percentage of those rows is that?
Format: @below_replacement[n] where n is an integer; @pct_below[p] where p is a percentage rounded to 1 decimal place.
""", """
v = fertility["2011"].dropna()
result = {"below_replacement": int((v < 2.1).sum()), "pct_below": float((v < 2.1).mean() * 100)}
""", {"below_replacement": ("int",), "pct_below": ("float", 1)})

natural(T, "fertility", ["topk", "filter"], "Which country had the highest fertility rate in 1960?", """
result = str(fertility.loc[fertility["1960"].idxmax(), "Country Name"])
""", kind="label", choices=choices_of(T, "Country Name"))

natural(T, "fertility", ["summary"], "What was the median fertility rate in 2000?", """
result = float(fertility["2000"].median())
""", kind="number", tolerance=0.005)

# ---------------------------------------------------------------- co2
T = "co2.csv"
closed(T, "co2", ["missing", "dates", "groupby"], """
How many weekly `co2` readings are missing? Parse `date` and count the missing readings per calendar year: which year has the most, and how many does it have?
Format: @total_missing[n] @worst_year[yyyy] @missing_in_worst_year[n], all integers.
""", """
miss = co2["co2"].isna()
per_year = miss.groupby(pd.to_datetime(co2["date"]).dt.year).sum()
result = {"total_missing": int(miss.sum()), "worst_year": int(per_year.idxmax()), "missing_in_worst_year": int(per_year.max())}
""", {"total_missing": ("int",), "worst_year": ("int",), "missing_in_worst_year": ("int",)})

closed(T, "co2", ["dates", "groupby"], """
Average the `co2` readings by calendar month (1-12) over all years, ignoring missing readings. Which month has the highest average and which has the lowest?
Format: @peak_month[m] @lowest_month[m] where m is the month number (1 = January, 12 = December).
""", """
m = co2.groupby(pd.to_datetime(co2["date"]).dt.month)["co2"].mean()
result = {"peak_month": int(m.idxmax()), "lowest_month": int(m.idxmin())}
""", {"peak_month": ("int",), "lowest_month": ("int",)})

closed(T, "co2", ["missing", "dates", "summary"], """
Fill the missing `co2` readings by linear interpolation between the neighbouring weeks (the rows are in date order, exactly one week apart). Then compute the mean of the filled series over the calendar year 1964.
Format: @mean_1964[value] where value is rounded to 2 decimal places.
""", """
filled = co2["co2"].interpolate(method="linear")
result = {"mean_1964": float(filled[pd.to_datetime(co2["date"]).dt.year == 1964].mean())}
""", {"mean_1964": ("float", 2)})

natural(T, "co2", ["dates", "change"], "By how much did the yearly average CO2 concentration rise between 1960 and 2000?", """
ym = co2.groupby(pd.to_datetime(co2["date"]).dt.year)["co2"].mean()
result = float(ym[2000] - ym[1960])
""", kind="number", tolerance=0.05)

# ---------------------------------------------------------------- la riots
T = "la_riots.csv"
closed(T, "data", ["dates", "count"], """
Which `death_date` has the most deaths, and how many deaths are dated strictly after 1992-05-05?
Format: @deadliest_date[YYYY-MM-DD] @deaths_after_may_5[count]
""", """
d = pd.to_datetime(data["death_date"])
vc = data["death_date"].value_counts()
result = {"deadliest_date": str(vc.idxmax()), "deaths_after_may_5": int((d > "1992-05-05").sum())}
""", {"deadliest_date": ("text",), "deaths_after_may_5": ("int",)})

closed(T, "data", ["groupby", "filter", "share"], """
Restrict the table to deaths whose `type` is "Homicide". Which race accounts for the most homicide victims, and what share of the homicides is that?
Format: @race[label] @share_pct[value] where label is written as in the data and value is a percentage rounded to 2 decimal places.
""", """
h = data[data["type"] == "Homicide"]
vc = h["race"].value_counts()
result = {"race": str(vc.idxmax()), "share_pct": float(vc.max() / len(h) * 100)}
""", {"race": ("text",), "share_pct": ("float", 2)})

closed(T, "data", ["missing", "groupby"], """
How many victims have no recorded age? Ignoring them, compute the mean age for each gender: which gender has the higher mean age, and what is the difference between the two means?
Format: @missing_age[n] @older_gender[label] @age_gap[years rounded to 2 decimals]
""", """
m = data.dropna(subset=["age"]).groupby("gender")["age"].mean()
result = {"missing_age": int(data["age"].isna().sum()), "older_gender": str(m.idxmax()), "age_gap": float(m.max() - m.min())}
""", {"missing_age": ("int",), "older_gender": ("text",), "age_gap": ("float", 2)})

natural(T, "data", ["groupby", "topk"], "Which neighborhoods had the most deaths?", """
vc = data["neighborhood"].value_counts()
result = sorted(str(n) for n in vc[vc == vc.max()].index)
""", kind="list", ordered=False)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external2.score import run_reference
    except ImportError:  # run as a script
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external2.score import run_reference

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
        out.append({"id": f"x2-{i:02d}", "table": q["table"], "frame": q["frame"],
                    "style": q["style"], "topics": q["topics"], "question": q["question"],
                    "answer": answer, "reference_code": q["reference_code"]})
    return out


def main() -> None:
    qs = build()
    (HERE / "questions.json").write_text(json.dumps(qs, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(qs)} questions")


if __name__ == "__main__":
    main()
