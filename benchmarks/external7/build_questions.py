"""Build questions.json for the seventh external evaluation set (folder external7).

Each answer is computed by running the question's `reference_code` on the committed CSV
(see `run_reference` in score.py: the table is read with `pd.read_csv` into the variable
named by `frame`; `pd`, `np` and `stats` (scipy.stats) are defined; the code assigns
`result`). Closed questions return a dict of parts, natural ones a single value.

Run by hand:  python benchmarks/external7/build_questions.py
crosscheck.py recomputes every answer a second, independent way.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "x7"
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


# ---------------------------------------------------------------- fastfood
T = "fastfood.csv"
closed(T, "ff", ["groupby", "topk"], """
The fast-food table lists menu items of eight chains with their nutrition facts. Averaging over each restaurant's items, which chain has the most calories per item and what is that average, and which chain has the lowest average sodium?
Send back: @richest_chain[restaurant name as spelled in the data] @richest_mean_calories[to 1 decimal place] @lowest_sodium_chain[restaurant name as spelled in the data]
""", """
g = ff.groupby("restaurant")
cal = g["calories"].mean()
sod = g["sodium"].mean()
result = {"richest_chain": str(cal.idxmax()), "richest_mean_calories": float(cal.max()),
          "lowest_sodium_chain": str(sod.idxmin())}
""", {"richest_chain": ("text",), "richest_mean_calories": ("float", 1), "lowest_sodium_chain": ("text",)})

closed(T, "ff", ["correlation", "missing"], """
How closely do sugar and fibre track the carbohydrate count? Compute the Pearson correlation of `sugar` with `total_carb` and the Spearman rank correlation of `fiber` with `total_carb`, and count the items whose fibre value is blank.
Constraints: each coefficient is computed on the items where both of its columns are filled in.
Three slots to fill, one per line:
@pearson_sugar_carb[three places after the point]
@spearman_fiber_carb[three places after the point]
@fiber_blank[how many items]
""", """
a = ff[["sugar", "total_carb"]].dropna()
b = ff[["fiber", "total_carb"]].dropna()
result = {"pearson_sugar_carb": float(a["sugar"].corr(a["total_carb"])),
          "spearman_fiber_carb": float(stats.spearmanr(b["fiber"], b["total_carb"])[0]),
          "fiber_blank": int(ff["fiber"].isna().sum())}
""", {"pearson_sugar_carb": ("float", 3), "spearman_fiber_carb": ("float", 3), "fiber_blank": ("int",)})

closed(T, "ff", ["outliers", "distribution"], """
Screen `sodium` (mg per item) for unusually salty items with Tukey's fences: anything above Q3 + 1.5 x IQR counts as a high outlier.
Constraints: quartiles from pandas' default quantile (linear interpolation) over all 515 items; "above" is strict.
Tag each number like so — @upper_fence[mg, rounded to the nearest whole number] @high_outliers[integer] @saltiest_item[the item name exactly as listed]
""", """
q1, q3 = ff["sodium"].quantile(0.25), ff["sodium"].quantile(0.75)
hi = q3 + 1.5 * (q3 - q1)
result = {"upper_fence": int(round(float(hi))), "high_outliers": int((ff["sodium"] > hi).sum()),
          "saltiest_item": str(ff.loc[ff["sodium"].idxmax(), "item"])}
""", {"upper_fence": ("int",), "high_outliers": ("int",), "saltiest_item": ("text",)})

natural(T, "ff", ["share", "filter"], "What percentage of Taco Bell's items are over 500 calories?", """
tb = ff[ff["restaurant"] == "Taco Bell"]
result = float(100 * (tb["calories"] > 500).mean())
""", kind="number", tolerance=0.5)

natural(T, "ff", ["groupby", "topk"], "List the three chains with the highest average protein per item, top one first.", """
m = ff.groupby("restaurant")["protein"].mean().sort_values(ascending=False)
result = [str(r) for r in m.index[:3]]
""", kind="list", ordered=True)

# ---------------------------------------------------------------- pbc_liver
T = "pbc_liver.csv"
closed(T, "pbc", ["test", "groupby"], """
In the Mayo Clinic primary biliary cirrhosis data, `status` is 0 (censored), 1 (transplant) or 2 (dead). Does serum bilirubin (`bili`) differ between the patients who died and everybody else?
Constraints: Mann-Whitney U test, scipy.stats.mannwhitneyu with its defaults (two-sided), the died group passed first; decide at the 1% level.
Slots (one a line):
@u_statistic[one decimal]
@median_bili_died[two decimals]
@median_bili_others[two decimals]
@decision[reject or retain]
""", """
d = pbc.loc[pbc["status"] == 2, "bili"]
o = pbc.loc[pbc["status"] != 2, "bili"]
u, p = stats.mannwhitneyu(d, o)
result = {"u_statistic": float(u), "median_bili_died": float(d.median()), "median_bili_others": float(o.median()),
          "decision": "reject" if p < 0.01 else "retain"}
""", {"u_statistic": ("float", 1), "median_bili_died": ("float", 2), "median_bili_others": ("float", 2),
      "decision": ("text",)})

closed(T, "pbc", ["missing", "count"], """
Only 312 of the patients took part in the randomised trial; the others have a blank `trt`. How many patients have no `trt`, how many of the trial patients (non-blank `trt`) lack at least one of `chol`, `copper`, `trig` and `platelet`, and which column of the whole table has the most blanks?
Turn in the three results as @no_trt[a whole number], @trial_incomplete[a whole number] and @most_blank_column[column name from the header].
""", """
trial = pbc[pbc["trt"].notna()]
result = {"no_trt": int(pbc["trt"].isna().sum()),
          "trial_incomplete": int(trial[["chol", "copper", "trig", "platelet"]].isna().any(axis=1).sum()),
          "most_blank_column": str(pbc.isna().sum().idxmax())}
""", {"no_trt": ("int",), "trial_incomplete": ("int",), "most_blank_column": ("text",)})

closed(T, "pbc", ["test", "share"], """
Is oedema associated with dying? Cross-tabulate `edema` (0, 0.5, 1) against whether the patient died (`status` == 2) and test for independence.
Constraints: scipy.stats.chi2_contingency on the 3 x 2 table of counts (no continuity correction applies to it).
The grader reads these lines:
@chi_square[rounded to the nearest hundredth]
@dof[integer]
@pct_died_edema1[percentage of the edema = 1 patients who died, one decimal, no % sign]
@associated[yes if p < 0.05, else no]
""", """
tab = pd.crosstab(pbc["edema"], pbc["status"] == 2)
chi, p, dof, _ = stats.chi2_contingency(tab)
e1 = pbc[pbc["edema"] == 1]
result = {"chi_square": float(chi), "dof": int(dof), "pct_died_edema1": float(100 * (e1["status"] == 2).mean()),
          "associated": "yes" if p < 0.05 else "no"}
""", {"chi_square": ("float", 2), "dof": ("int",), "pct_died_edema1": ("float", 1), "associated": ("text",)})

natural(T, "pbc", ["count", "filter"], "How many patients died during follow-up?", """
result = int((pbc["status"] == 2).sum())
""", kind="count")

natural(T, "pbc", ["share", "groupby"], "And was the share who died higher among the men than among the women?", """
s = pbc.groupby("sex")["status"].apply(lambda x: (x == 2).mean())
result = "yes" if s["m"] > s["f"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- galton_families
T = "galton_families.csv"
closed(T, "galton", ["regression"], """
Galton's family data give each adult child's height (`childHeight`, inches) with the parents' mid-parent height (`midparentHeight`). Regress child height on mid-parent height by ordinary least squares over all children.
Supply the fit as @slope[2 d.p.], @intercept[2 d.p.], @r_squared[3 d.p.]
""", """
fit = stats.linregress(galton["midparentHeight"], galton["childHeight"])
result = {"slope": float(fit.slope), "intercept": float(fit.intercept), "r_squared": float(fit.rvalue ** 2)}
""", {"slope": ("float", 2), "intercept": ("float", 2), "r_squared": ("float", 3)})

closed(T, "galton", ["strings", "count"], """
The `family` column is an identifier read as text: mostly three digits with leading zeros, but a few carry a trailing letter (such as 136A). How many distinct family identifiers are there, how many of them end in a letter, and which family has the most children listed in the table?
Write the tags below, each on its own line:
@n_families[integer]
@lettered_ids[integer]
@largest_family[identifier exactly as written, leading zeros kept]
""", """
ids = galton["family"].astype(str)
u = pd.Series(ids.unique())
vc = ids.value_counts()
result = {"n_families": int(u.size), "lettered_ids": int(u.str.contains(r"[A-Za-z]$", regex=True).sum()),
          "largest_family": str(vc.idxmax())}
""", {"n_families": ("int",), "lettered_ids": ("int",), "largest_family": ("text",)})

closed(T, "galton", ["test", "feature engineering"], """
Are sons taller than their fathers? For every male child compute son height minus father height and test whether the mean difference is zero.
Constraints: paired t-test, scipy.stats.ttest_rel(son heights, father heights), two-sided, alpha 0.05.
Return @mean_diff[inches, two decimals], @t_stat[two decimals], @n_pairs[count] and @sons_taller[yes or no: is the mean difference positive and significant].
""", """
m = galton[galton["gender"] == "male"]
t, p = stats.ttest_rel(m["childHeight"], m["father"])
d = float((m["childHeight"] - m["father"]).mean())
result = {"mean_diff": d, "t_stat": float(t), "n_pairs": int(len(m)),
          "sons_taller": "yes" if d > 0 and p < 0.05 else "no"}
""", {"mean_diff": ("float", 2), "t_stat": ("float", 2), "n_pairs": ("int",), "sons_taller": ("text",)})

natural(T, "galton", ["summary", "filter"], "what's the average height of the daughters, in inches", """
result = float(galton.loc[galton["gender"] == "female", "childHeight"].mean())
""", kind="number", tolerance=0.05)

natural(T, "galton", ["count", "filter"], "How many families have more than 8 children?", """
fam = galton.drop_duplicates("family")
result = int((fam["children"] > 8).sum())
""", kind="count")

# ---------------------------------------------------------------- ucla_textbooks
T = "ucla_textbooks.csv"
closed(T, "books", ["strings", "count"], """
The UCLA textbook table (Fall 2018) stores course numbers as text in `course_num`: some start with a letter (M for multiple listing, C for concurrent) and some end in letters (11D, 71AF). Ignoring the row with no course number, how many course numbers begin with the letter M, how many end in a letter, and which subject has the most rows?
Expected tags, line by line:
@starts_with_m[count]
@ends_with_letter[count]
@busiest_subject[subject name as written]
""", """
cn = books["course_num"].dropna().astype(str)
result = {"starts_with_m": int(cn.str.match(r"M").sum()), "ends_with_letter": int(cn.str.contains(r"[A-Za-z]$").sum()),
          "busiest_subject": str(books["subject"].value_counts().idxmax())}
""", {"starts_with_m": ("int",), "ends_with_letter": ("int",), "busiest_subject": ("text",)})

closed(T, "books", ["feature engineering", "share"], """
Compare prices for the books that have both a new bookstore price (`bookstore_new`) and a new Amazon price (`amazon_new`). Define saving = bookstore_new - amazon_new.
Constraints: only rows with both prices present; a saving of exactly zero is not "cheaper".
Slot the figures into @n_both[integer], @mean_saving[dollars to the cent] and @pct_amazon_cheaper[percent of those books where Amazon is cheaper, 1 decimal].
""", """
b = books[["bookstore_new", "amazon_new"]].dropna()
s = b["bookstore_new"] - b["amazon_new"]
result = {"n_both": int(len(b)), "mean_saving": float(s.mean()), "pct_amazon_cheaper": float(100 * (s > 0).mean())}
""", {"n_both": ("int",), "mean_saving": ("float", 2), "pct_amazon_cheaper": ("float", 1)})

closed(T, "books", ["distribution", "filter"], """
Describe the new bookstore prices (`bookstore_new`, blanks dropped): the median, the 90th percentile and how many books cost more than $100 new at the bookstore.
Constraints: percentiles with numpy's default linear interpolation (the same as pandas' quantile).
Enter the three quantities here:
@median_price[nearest cent]
@p90_price[nearest cent]
@over_100[count]
""", """
x = books["bookstore_new"].dropna()
result = {"median_price": float(x.median()), "p90_price": float(x.quantile(0.9)), "over_100": int((x > 100).sum())}
""", {"median_price": ("float", 2), "p90_price": ("float", 2), "over_100": ("int",)})

natural(T, "books", ["missing", "count"], "How many rows have no ISBN recorded?", """
result = int(books["textbook_isbn"].isna().sum())
""", kind="count")

natural(T, "books", ["groupby", "topk"], "Which subject with at least five rows has the highest average new bookstore price?", """
g = books.groupby("subject")
n = g.size()
m = g["bookstore_new"].mean()[n[n >= 5].index].dropna()
result = str(m.idxmax())
""", kind="label", choices="SUBJECTS")

# ---------------------------------------------------------------- fuel_economy_2021
T = "fuel_economy_2021.csv"
closed(T, "epa", ["dates", "groupby"], """
Each row of the EPA 2021 fuel-economy table carries a `release_date` timestamp (ISO text with a Z suffix). Parse it. In which calendar month were the most models released, how many models came out in that month, and how many were released before 1 September 2020?
Answer with the tags @busiest_month[year-month written YYYY-MM], @busiest_month_models[integer] and @before_sept_2020[integer].
""", """
d = pd.to_datetime(epa["release_date"])
m = d.dt.strftime("%Y-%m").value_counts()
result = {"busiest_month": str(m.idxmax()), "busiest_month_models": int(m.max()),
          "before_sept_2020": int((d < pd.Timestamp("2020-09-01", tz="UTC")).sum())}
""", {"busiest_month": ("text",), "busiest_month_models": ("int",), "before_sept_2020": ("int",)})

closed(T, "epa", ["groupby", "topk", "count"], """
Using `drive_desc` and the combined rating `comb_mpg`: which drive type has the best mean combined mpg and what is it? Also, `guzzler` is Y for models that pay the gas-guzzler tax — how many do, and which manufacturer (`mfr_name`) has the most of them?
One tag per line, please:
@best_drive[drive description as written]
@best_drive_mpg[mean mpg, two decimals]
@guzzlers[count]
@guzzler_maker[manufacturer as written]
""", """
m = epa.groupby("drive_desc")["comb_mpg"].mean()
gz = epa[epa["guzzler"] == "Y"]
result = {"best_drive": str(m.idxmax()), "best_drive_mpg": float(m.max()), "guzzlers": int(len(gz)),
          "guzzler_maker": str(gz["mfr_name"].value_counts().idxmax())}
""", {"best_drive": ("text",), "best_drive_mpg": ("float", 2), "guzzlers": ("int",), "guzzler_maker": ("text",)})

closed(T, "epa", ["correlation"], """
Bigger engines, worse mileage? Compute the Pearson correlation between `engine_displacement` and `comb_mpg`, and the Spearman correlation between `no_cylinders` and `hwy_mpg`, over all models.
Constraints: scipy.stats.spearmanr for the rank correlation (average ranks for ties).
Give @pearson_disp_mpg[rounded to 3 decimals], @spearman_cyl_hwy[rounded to 3 decimals], @both_below_minus_half[yes or no].
""", """
r = float(epa["engine_displacement"].corr(epa["comb_mpg"]))
rho = float(stats.spearmanr(epa["no_cylinders"], epa["hwy_mpg"])[0])
result = {"pearson_disp_mpg": r, "spearman_cyl_hwy": rho, "both_below_minus_half": "yes" if r < -0.5 and rho < -0.5 else "no"}
""", {"pearson_disp_mpg": ("float", 3), "spearman_cyl_hwy": ("float", 3), "both_below_minus_half": ("text",)})

natural(T, "epa", ["strings", "count"], "how many rows have car_truck set to something other than car, not counting blanks", """
ct = epa["car_truck"].dropna()
result = int((ct != "car").sum())
""", kind="count")

natural(T, "epa", ["groupby", "summary"], "Is the median highway mpg of turbocharged models higher than that of naturally aspirated ones?", """
m = epa.groupby("air_aspir_method_desc")["hwy_mpg"].median()
result = "yes" if m["Turbocharged"] > m["Naturally Aspirated"] else "no"
""", kind="yesno")

# ---------------------------------------------------------------- oscar_winners
T = "oscar_winners.csv"
closed(T, "oscars", ["dates", "count"], """
The Oscar table has one row per Best Actor and Best Actress award up to 2019, with the winner's `birth_date` (YYYY-MM-DD text). Parse the dates. Which month of birth is the most common among the award rows, how many award rows belong to winners born on a Saturday or a Sunday, and who is the earliest-born winner?
Needed output lines:
@top_birth_month[month number 1 to 12]
@weekend_births[integer]
@earliest_born[winner's name as written]
""", """
d = pd.to_datetime(oscars["birth_date"])
m = d.dt.month.value_counts()
result = {"top_birth_month": int(m.idxmax()), "weekend_births": int((d.dt.day_of_week >= 5).sum()),
          "earliest_born": str(oscars.loc[d.idxmin(), "name"])}
""", {"top_birth_month": ("int",), "weekend_births": ("int",), "earliest_born": ("text",)})

closed(T, "oscars", ["test", "groupby"], """
Are Best Actress winners younger than Best Actor winners when they win? Compare `age` between the two awards.
Constraints: Welch's two-sample t-test (scipy.stats.ttest_ind, equal_var=False) with the actresses passed first; two-sided; 5% level.
Respond with @mean_age_actress[to two decimal places] @mean_age_actor[to two decimal places] @welch_t[to two decimal places] @verdict[reject or retain]
""", """
a = oscars.loc[oscars["award"] == "Best actress", "age"]
b = oscars.loc[oscars["award"] == "Best actor", "age"]
t, p = stats.ttest_ind(a, b, equal_var=False)
result = {"mean_age_actress": float(a.mean()), "mean_age_actor": float(b.mean()), "welch_t": float(t),
          "verdict": "reject" if p < 0.05 else "retain"}
""", {"mean_age_actress": ("float", 2), "mean_age_actor": ("float", 2), "welch_t": ("float", 2), "verdict": ("text",)})

closed(T, "oscars", ["duplicates", "topk"], """
Some people won more than once. How many distinct winners have two or more awards in the table, who has the most awards, and which three birthplaces (`birth_pl`) occur most often among the award rows?
Tags to return (each on a new line):
@repeat_winners[count of people]
@most_awards[name as written]
@top_birthplaces[the three places, most frequent first, separated by a semicolon and a space]
""", """
vc = oscars["name"].value_counts()
bp = oscars["birth_pl"].value_counts()
result = {"repeat_winners": int((vc >= 2).sum()), "most_awards": str(vc.idxmax()),
          "top_birthplaces": "; ".join(str(x) for x in bp.index[:3])}
""", {"repeat_winners": ("int",), "most_awards": ("text",), "top_birthplaces": ("text",)})

natural(T, "oscars", ["count", "filter"], "How many of the award rows are for winners born in England?", """
result = int((oscars["birth_pl"] == "England").sum())
""", kind="count")

natural(T, "oscars", ["count", "groupby"], "And which birthplaces account for at least five award rows?", """
bp = oscars["birth_pl"].value_counts()
result = sorted(str(x) for x in bp[bp >= 5].index)
""", kind="list", ordered=False)


def _choices(name: str) -> list[str]:
    import pandas as pd

    if name == "SUBJECTS":  # the subjects of the well-formed rows (term Fall)
        df = pd.read_csv(HERE / "tables" / "ucla_textbooks.csv")
        return sorted(str(v) for v in df.loc[df["term"] == "Fall", "subject"].dropna().unique())
    raise KeyError(name)


def build() -> list[dict]:
    import sys

    try:
        from benchmarks.external7.score import run_reference
    except ImportError:
        sys.path.insert(0, str(HERE.parents[1]))
        from benchmarks.external7.score import run_reference

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
