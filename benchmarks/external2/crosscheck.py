"""Second, independent computation of every reference answer.

The reference code in questions.json uses pandas. Here each answer is
recomputed from the raw CSV text with the csv module, plain Python, numpy,
hand-written formulas and statsmodels, and compared with the stored answer.
Every "which group is largest" answer is also checked for ties.

Run by hand:  python benchmarks/external2/crosscheck.py
(test_score.py also runs it.)
"""
from __future__ import annotations

import csv
import datetime as dt
import math
import statistics as st
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def rows(table: str) -> list[dict]:
    with open(HERE / "tables" / table, newline="") as fh:
        return list(csv.DictReader(fh))


def f(x: str) -> float | None:
    """A cell as a number; the tables write missing values as empty cells."""
    return None if x == "" else float(x)


def col(rs, name, where=lambda r: True):
    return [f(r[name]) for r in rs if where(r) and r[name] != ""]


def q_linear(xs, p):
    """Percentile with linear interpolation (type 7), written out."""
    s = sorted(xs)
    h = (len(s) - 1) * p
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def ols(x, y):
    import statsmodels.api as sm

    res = sm.OLS(np.asarray(y, float), sm.add_constant(np.asarray(x, float))).fit()
    return res.params[1], res.params[0], res.rsquared


def pearson(x, y):
    """r from numpy, two-sided p from the t statistic with n - 2 df."""
    from scipy.stats import t as tdist

    x, y = np.asarray(x, float), np.asarray(y, float)
    r = float(np.corrcoef(x, y)[0, 1])
    n = len(x)
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return r, float(2 * tdist.sf(abs(t), n - 2))


def welch(a, b):
    from scipy.stats import t as tdist

    a, b = np.asarray(a, float), np.asarray(b, float)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return t, 2 * tdist.sf(abs(t), df)


def chi2(pairs):
    """Pearson chi-square of independence (no continuity correction)."""
    from scipy.stats import chi2 as c2

    cnt = Counter(pairs)
    ra, cb = sorted({a for a, _ in cnt}), sorted({b for _, b in cnt})
    n = sum(cnt.values())
    ri = {a: sum(v for (x, _), v in cnt.items() if x == a) for a in ra}
    ci = {b: sum(v for (_, y), v in cnt.items() if y == b) for b in cb}
    stat = sum((cnt.get((a, b), 0) - ri[a] * ci[b] / n) ** 2 / (ri[a] * ci[b] / n) for a in ra for b in cb)
    dof = (len(ra) - 1) * (len(cb) - 1)
    return stat, dof, c2.sf(stat, dof)


def anova(groups):
    """One-way ANOVA F and p, from the sums of squares."""
    from scipy.stats import f as fdist

    allv = [v for g in groups for v in g]
    grand = st.fmean(allv)
    ssb = sum(len(g) * (st.fmean(g) - grand) ** 2 for g in groups)
    ssw = sum((v - st.fmean(g)) ** 2 for g in groups for v in g)
    k, n = len(groups), len(allv)
    fstat = (ssb / (k - 1)) / (ssw / (n - k))
    return fstat, fdist.sf(fstat, k - 1, n - k)


def group(rs, key, val, where=lambda r: True):
    g = defaultdict(list)
    for r in rs:
        if where(r) and r[key] != "" and r[val] != "":
            g[r[key]].append(f(r[val]))
    return g


def mean_by(rs, key, val, where=lambda r: True):
    return {k: st.fmean(v) for k, v in group(rs, key, val, where).items()}


def argmax(d):
    best = max(d.values())
    keys = [k for k, v in d.items() if v == best]
    assert len(keys) == 1, f"tie: {keys}"
    return keys[0]


def argmin(d):
    return argmax({k: -v for k, v in d.items()})


def top(counter_or_dict, k):
    """The k largest keys, checking that no tie crosses the cut."""
    items = sorted(counter_or_dict.items(), key=lambda kv: kv[1], reverse=True)
    assert items[k - 1][1] != items[k][1], f"tie at position {k}: {items[k - 1]}, {items[k]}"
    assert len({v for _, v in items[:k]}) == k, f"tie inside the top {k}"
    return [key for key, _ in items[:k]]


def pct(n, d):
    return 100.0 * n / d


def compute() -> dict[str, object]:
    A: dict[str, object] = {}

    # ---------------------------------------------------------------- gapminder
    g = rows("gapminder.csv")
    g07 = [r for r in g if r["year"] == "2007"]
    gdp = defaultdict(float)
    for r in g07:
        gdp[r["continent"]] += int(r["pop"]) * float(r["gdpPercap"])
    A["x2-01"] = {"continent": argmax(gdp), "total_gdp_trillions": max(gdp.values()) / 1e12}
    popyear = defaultdict(int)
    for r in g:
        popyear[r["year"]] += int(r["pop"])
    A["x2-02"] = {"pop_growth_pct": pct(popyear["2007"], popyear["1952"]) - 100}
    r, p = pearson([math.log10(float(r["gdpPercap"])) for r in g07], [float(r["lifeExp"]) for r in g07])
    A["x2-03"] = {"r": r, "relationship": ("positive" if r > 0 else "negative") if p < 0.05 else "none"}
    life = defaultdict(dict)
    for r in g:
        life[r["country"]][int(r["year"])] = float(r["lifeExp"])
    gain = {c: v[2007] - v[1952] for c, v in life.items()}
    A["x2-04"] = {"top_3_countries": ", ".join(top(gain, 3))}
    A["x2-05"] = top({r["country"]: int(r["pop"]) for r in g07}, 3)
    drops = {}
    for c, v in life.items():
        ys = sorted(v)
        drops[c] = min(v[b] - v[a] for a, b in zip(ys, ys[1:]))
    A["x2-06"] = argmin(drops)

    # ---------------------------------------------------------------- starwars
    s = rows("starwars.csv")
    A["x2-07"] = {"missing_mass": sum(r["mass"] == "" for r in s),
                  "missing_birth_year": sum(r["birth_year"] == "" for r in s),
                  "missing_both": sum(r["mass"] == "" and r["birth_year"] == "" for r in s)}
    both = [r for r in s if r["mass"] != "" and r["height"] != ""]
    bmi = {r["name"]: float(r["mass"]) / (float(r["height"]) / 100) ** 2 for r in both}
    A["x2-08"] = {"median_bmi": st.median(bmi.values()), "max_bmi_character": argmax(bmi)}
    r_all, _ = pearson([f(r["height"]) for r in both], [f(r["mass"]) for r in both])
    light = [r for r in both if float(r["mass"]) <= 1000]
    r2, p2 = pearson([f(r["height"]) for r in light], [f(r["mass"]) for r in light])
    A["x2-09"] = {"r_all": r_all, "r_without_heavy": r2, "significant": "yes" if p2 < 0.05 else "no"}
    A["x2-10"] = st.median(col(s, "height", lambda r: r["species"] == "Human"))
    A["x2-11"] = argmax(Counter(r["homeworld"] for r in s if r["homeworld"] != ""))

    # ---------------------------------------------------------------- house prices
    h = rows("house_prices.csv")
    slope, icpt, r2 = ols(col(h, "lotsize"), col(h, "price"))
    A["x2-12"] = {"slope": slope, "intercept": icpt, "r_squared": r2}
    t, p = welch(col(h, "price", lambda r: r["aircon"] == "yes"), col(h, "price", lambda r: r["aircon"] == "no"))
    A["x2-13"] = {"t_statistic": t, "significant": "True" if p < 0.05 else "False"}
    seen, first = set(), []
    for r in h:
        key = tuple(r.values())
        if key not in seen:
            seen.add(key)
            first.append(r)
    A["x2-14"] = {"duplicate_rows": len(h) - len(first), "mean_price": st.fmean(col(first, "price"))}
    sel = [r for r in h if int(r["bedrooms"]) >= 3 and int(r["bathrooms"]) >= 2 and r["aircon"] == "yes"]
    A["x2-15"] = {"n_houses": len(sel), "avg_price": st.fmean(col(sel, "price"))}
    A["x2-16"] = pct(sum(r["aircon"] == "yes" for r in h), len(h))
    fb = mean_by(h, "fullbase", "price")
    A["x2-17"] = "yes" if fb["yes"] > fb["no"] else "no"

    # ---------------------------------------------------------------- chile
    c = rows("chile.csv")
    stat, dof, p = chi2([(r["sex"], r["vote"]) for r in c if r["vote"] != ""])
    A["x2-18"] = {"chi2": stat, "dof": dof, "independent": "yes" if p >= 0.05 else "no"}
    inc = col(c, "income")
    med = st.median(inc)
    A["x2-19"] = {"missing_income": len(c) - len(inc),
                  "mean_income_imputed": st.fmean([med if r["income"] == "" else float(r["income"]) for r in c])}
    yes = {reg: pct(sum(v == "Y" for v in vs), len(vs))
           for reg, vs in _values_by(c, "region", "vote").items()}
    A["x2-20"] = {"region": argmax(yes), "yes_pct": max(yes.values())}
    sq = group(c, "education", "statusquo")
    fstat, p = anova(list(sq.values()))
    A["x2-21"] = {"f_statistic": fstat, "p_below_0_05": "yes" if p < 0.05 else "no",
                  "highest_group": argmax({k: st.fmean(v) for k, v in sq.items()})}
    A["x2-22"] = sum(r["vote"] == "" for r in c)
    A["x2-23"] = st.fmean(col(c, "age", lambda r: r["vote"] == "N"))

    # ---------------------------------------------------------------- arrests
    a = rows("arrests.csv")
    rel = {k: pct(sum(v == "Yes" for v in vs), len(vs)) for k, vs in _values_by(a, "colour", "released").items()}
    A["x2-24"] = {"higher_group": argmax(rel), "gap_pp": max(rel.values()) - min(rel.values())}
    stat, dof, p = chi2([(r["released"], r["employed"]) for r in a])
    A["x2-25"] = {"chi_square": stat, "association": "significant" if p < 0.05 else "not significant"}
    years = Counter(r["year"] for r in a)
    y = argmax(years)
    in_y = [r for r in a if r["year"] == y]
    A["x2-26"] = {"year": int(y), "arrests": years[y], "released_pct": pct(sum(r["released"] == "Yes" for r in in_y), len(in_y))}
    A["x2-27"] = "yes" if years["2002"] > years["1997"] else "no"

    # ---------------------------------------------------------------- nyc weather
    w = rows("nyc_weather.csv")
    assert all(r["time_hour"].endswith("Z") for r in w)
    wet = defaultdict(float)
    for r in w:
        if r["origin"] == "JFK":
            wet[r["time_hour"][:10]] += float(r["precip"])  # the timestamps are UTC ("Z")
    A["x2-28"] = {"wettest_date": argmax(wet), "total_precip": max(wet.values())}
    ws = np.asarray(col(w, "wind_speed"), float)
    z = (ws - ws.mean()) / ws.std(ddof=1)
    A["x2-29"] = {"n_outliers": int((np.abs(z) > 3).sum()), "max_wind_speed": float(ws.max())}
    miss = {k: sum(r[k] == "" for r in w) for k in w[0]}
    A["x2-30"] = {"columns_with_missing": sum(v > 0 for v in miss.values()), "most_missing_column": argmax(miss),
                  "missing_pct": pct(max(miss.values()), len(w))}
    A["x2-31"] = {"hot_humid_hours": sum(r["origin"] == "JFK" and r["month"] == "7" and r["temp"] != ""
                                         and float(r["temp"]) > 85 and float(r["humid"]) > 60 for r in w)}
    A["x2-32"] = max(col(w, "temp", lambda r: r["origin"] == "LGA"))

    # ---------------------------------------------------------------- polls
    po = rows("polls_2016.csv")
    octo = [r for r in po if r["state"] == "U.S." and r["enddate"].startswith("2016-10-")]
    A["x2-33"] = {"n_polls": len(octo), "mean_lead": st.fmean(float(r["rawpoll_clinton"]) - float(r["rawpoll_trump"]) for r in octo)}
    A["x2-34"] = {"top_pollsters": ", ".join(top(Counter(r["pollster"] for r in po), 3))}
    dur = [(dt.date.fromisoformat(r["enddate"]) - dt.date.fromisoformat(r["startdate"])).days for r in po]
    longest = [r["pollster"] for r, d in zip(po, dur) if d == max(dur)]
    assert len(longest) == 1
    A["x2-35"] = {"mean_duration": st.fmean(dur), "max_duration": max(dur), "longest_pollster": longest[0]}
    months = Counter(r["enddate"][:7] for r in po)
    A["x2-36"] = {"busiest_month": argmax(months), "polls_in_month": max(months.values())}
    A["x2-37"] = sum(r["grade"] == "" for r in po)
    A["x2-38"] = argmax(Counter(r["state"] for r in po if r["state"] != "U.S."))

    # ---------------------------------------------------------------- births14
    b = rows("births14.csv")
    t, p = welch(col(b, "weight", lambda r: r["habit"] == "smoker"), col(b, "weight", lambda r: r["habit"] == "nonsmoker"))
    A["x2-39"] = {"t": t, "p": p, "significant": "yes" if p < 0.05 else "no"}
    from scipy.stats import shapiro
    from statsmodels.stats.diagnostic import lilliefors, normal_ad

    bw = col(b, "weight")
    sw = shapiro(bw)
    # the conclusion is also checked with two other normality tests on the same data
    assert (sw.pvalue < 0.05) == (lilliefors(bw)[1] < 0.05) == (normal_ad(np.asarray(bw))[1] < 0.05)
    A["x2-40"] = {"w_statistic": sw.statistic, "is_normal": "yes" if sw.pvalue >= 0.05 else "no"}
    r, p = pearson(col(b, "weeks"), col(b, "weight"))
    A["x2-41"] = {"correlation_coefficient": r, "is_significant": "True" if p < 0.05 else "False"}
    gm = st.median(col(b, "gained"))
    gf = [gm if r["gained"] == "" else float(r["gained"]) for r in b]
    A["x2-42"] = {"mean_gained": st.fmean(gf), "std_gained": st.stdev(gf)}
    A["x2-43"] = pct(sum(r["premie"] == "premie" for r in b), len(b))
    sx = mean_by(b, "sex", "weight")
    A["x2-44"] = "yes" if sx["male"] > sx["female"] else "no"

    # ---------------------------------------------------------------- ames
    am = rows("ames.csv")
    nb = {k: st.median(v) for k, v in group(am, "Neighborhood", "Sale_Price").items() if len(v) >= 20}
    A["x2-45"] = {"neighborhood": argmax(nb), "median_price": max(nb.values())}
    age = [int(r["Year_Sold"]) - int(r["Year_Built"]) for r in am]
    A["x2-46"] = {"negative_age": sum(x < 0 for x in age), "r_age_price": pearson(age, col(am, "Sale_Price"))[0]}
    slope, _, r2 = ols(col(am, "Gr_Liv_Area"), col(am, "Sale_Price"))
    A["x2-47"] = {"slope": slope, "r2": r2}
    sp = col(am, "Sale_Price")
    q1, q3 = q_linear(sp, 0.25), q_linear(sp, 0.75)
    iqr = q3 - q1
    A["x2-48"] = {"iqr": iqr, "n_outliers": sum(v < q1 - 1.5 * iqr or v > q3 + 1.5 * iqr for v in sp),
                  "upper_bound": q3 + 1.5 * iqr}
    A["x2-49"] = sum(r["Central_Air"] == "Y" for r in am)
    A["x2-50"] = argmax(mean_by(am, "Bldg_Type", "Sale_Price"))

    # ---------------------------------------------------------------- fertility
    fe = rows("fertility.csv")
    yrs = [str(y) for y in range(1960, 2014)]
    A["x2-51"] = {"rows_all_missing": sum(all(r[y] == "" for y in yrs) for r in fe),
                  "empty_year_columns": sum(all(r[y] == "" for r in fe) for y in yrs)}
    v11 = {r["Country Name"]: float(r["2011"]) for r in fe if r["2011"] != ""}
    A["x2-52"] = {"highest_2011": ", ".join(top(v11, 3))}
    chg = {r["Country Name"]: (float(r["2011"]) - float(r["1960"])) / float(r["1960"]) * 100
           for r in fe if r["1960"] != "" and r["2011"] != ""}
    A["x2-53"] = {"n_increase": sum(v > 0 for v in chg.values()), "largest_decline": argmin(chg),
                  "decline_pct": min(chg.values())}
    below = sum(v < 2.1 for v in v11.values())
    A["x2-54"] = {"below_replacement": below, "pct_below": pct(below, len(v11))}
    A["x2-55"] = argmax({r["Country Name"]: float(r["1960"]) for r in fe if r["1960"] != ""})
    A["x2-56"] = st.median(col(fe, "2000"))

    # ---------------------------------------------------------------- co2
    co = rows("co2.csv")
    dates = [dt.date.fromisoformat(r["date"]) for r in co]
    assert all((b_ - a_).days == 7 for a_, b_ in zip(dates, dates[1:]))
    miss_y = Counter(r["date"][:4] for r in co if r["co2"] == "")
    wy = argmax(miss_y)
    A["x2-57"] = {"total_missing": sum(miss_y.values()), "worst_year": int(wy), "missing_in_worst_year": miss_y[wy]}
    by_month = defaultdict(list)
    for r in co:
        if r["co2"] != "":
            by_month[int(r["date"][5:7])].append(float(r["co2"]))
    mm = {k: st.fmean(v) for k, v in by_month.items()}
    A["x2-58"] = {"peak_month": argmax(mm), "lowest_month": argmin(mm)}
    vals = [f(r["co2"]) for r in co]
    filled = list(vals)
    i = 0
    while i < len(vals):
        if vals[i] is None:
            j = i
            while vals[j] is None:
                j += 1
            lo, hi = vals[i - 1], vals[j]
            for k in range(i, j):
                filled[k] = lo + (hi - lo) * (k - i + 1) / (j - i + 1)
            i = j
        i += 1
    A["x2-59"] = {"mean_1964": st.fmean(v for r, v in zip(co, filled) if r["date"].startswith("1964-"))}
    ym = {y: st.fmean(float(r["co2"]) for r in co if r["date"].startswith(y + "-") and r["co2"] != "")
          for y in ("1960", "2000")}
    A["x2-60"] = ym["2000"] - ym["1960"]

    # ---------------------------------------------------------------- la riots
    la = rows("la_riots.csv")
    dd = Counter(r["death_date"] for r in la)
    A["x2-61"] = {"deadliest_date": argmax(dd),
                  "deaths_after_may_5": sum(dt.date.fromisoformat(r["death_date"]) > dt.date(1992, 5, 5) for r in la)}
    hom = Counter(r["race"] for r in la if r["type"] == "Homicide")
    A["x2-62"] = {"race": argmax(hom), "share_pct": pct(max(hom.values()), sum(hom.values()))}
    ga = mean_by(la, "gender", "age")
    A["x2-63"] = {"missing_age": sum(r["age"] == "" for r in la), "older_gender": argmax(ga),
                  "age_gap": max(ga.values()) - min(ga.values())}
    nh = Counter(r["neighborhood"] for r in la)
    A["x2-64"] = sorted(k for k, v in nh.items() if v == max(nh.values()))
    return A


def _values_by(rs, key, val):
    g = defaultdict(list)
    for r in rs:
        if r[key] != "" and r[val] != "":
            g[r[key]].append(r[val])
    return g


def _same(stored: dict, got, tol_default=0.0) -> bool:
    kind = stored["kind"]
    if kind in ("float", "number"):
        return abs(float(got) - float(stored["value"])) <= float(stored.get("tolerance", tol_default)) + 1e-9
    if kind in ("int", "count"):
        return float(got) == int(stored["value"])
    if kind == "list":
        a, b = [str(x).lower() for x in got], [str(x).lower() for x in stored["value"]]
        return a == b if stored.get("ordered") else sorted(a) == sorted(b)
    return str(got).lower() == str(stored["value"]).lower()


def check() -> list[str]:
    import json

    qs = json.loads((HERE / "questions.json").read_text())
    got = compute()
    problems = []
    for q in qs:
        if q["id"] not in got:
            problems.append(f"{q['id']}: no second computation")
            continue
        g, ans = got[q["id"]], q["answer"]
        if "parts" in ans:
            if set(g) != set(ans["parts"]):
                problems.append(f"{q['id']}: parts {sorted(g)} vs stored {sorted(ans['parts'])}")
                continue
            for name, spec in ans["parts"].items():
                if not _same(spec, g[name]):
                    problems.append(f"{q['id']}.{name}: stored {spec['value']!r}, recomputed {g[name]!r}")
        elif not _same(ans, g):
            problems.append(f"{q['id']}: stored {ans['value']!r}, recomputed {g!r}")
    for extra in sorted(set(got) - {q["id"] for q in qs}):
        problems.append(f"{extra}: recomputed but not in questions.json")
    return problems


if __name__ == "__main__":
    probs = check()
    print("\n".join(probs) if probs else "all answers agree")
