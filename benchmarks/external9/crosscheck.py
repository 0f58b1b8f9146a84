"""Second, independent computation of every reference answer of the ninth set.

The reference code uses pandas and scipy; here each answer is recomputed from the raw CSV
text with the csv module and plain Python (datetime for dates, statistics for medians),
with hand-written Pearson correlation, least squares, Welch and paired t statistics,
a chi-square test of independence with Yates' correction, IQR fences and
linear-interpolation quantiles; scipy is used only to turn a statistic into a p-value.
Every "which is largest/smallest" answer and every top-k cut is checked for ties, and
thresholds an answer depends on are checked not to be hit exactly.

Run by hand:  python benchmarks/external9/crosscheck.py   (test_score.py also runs it.)
"""
from __future__ import annotations

import calendar
import csv
import datetime as dt
import math
import statistics as st
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
MONTHS = list(calendar.month_name)  # "", "January", ...
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def rows(table: str) -> list[dict]:
    with open(HERE / "tables" / table, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def argmax(d: dict, low=False):
    """The key of the largest (or smallest) value; raises on a tie."""
    items = sorted(d.items(), key=lambda kv: kv[1], reverse=not low)
    if len(items) > 1 and items[0][1] == items[1][1]:
        raise AssertionError(f"tie for the top: {items[:2]}")
    return items[0][0]


def topk(d: dict, k: int) -> list:
    items = sorted(d.items(), key=lambda kv: kv[1], reverse=True)
    if items[k - 1][1] == items[k][1] or len({v for _, v in items[:k]}) < k:
        raise AssertionError(f"tie at the top-{k} cut: {items[:k + 1]}")
    return [key for key, _ in items[:k]]


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def var(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def pearson(xs, ys):
    mx, my = mean(xs), mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return sxy / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))


def ols(xs, ys):
    mx, my = mean(xs), mean(ys)
    slope = sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / sum((a - mx) ** 2 for a in xs)
    return slope, my - slope * mx


def quantile(xs, p):
    s = sorted(xs)
    h = (len(s) - 1) * p
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def not_on(values, threshold):
    assert all(v != threshold for v in values), f"a value sits on the threshold {threshold}"


def welch(a, b):
    se = math.sqrt(var(a) / len(a) + var(b) / len(b))
    t = (mean(a) - mean(b)) / se
    df = se ** 4 / ((var(a) / len(a)) ** 2 / (len(a) - 1) + (var(b) / len(b)) ** 2 / (len(b) - 1))
    return t, df


def yates_chi2(obs):
    """Chi-square statistic of a 2 x 2 table with Yates' continuity correction."""
    n = sum(map(sum, obs))
    rs = [sum(row) for row in obs]
    cs = [sum(obs[i][j] for i in range(2)) for j in range(2)]
    chi = 0.0
    for i in range(2):
        for j in range(2):
            e = rs[i] * cs[j] / n
            d = abs(obs[i][j] - e)
            d -= min(0.5, d)
            chi += d * d / e
    return chi


def minutes(hms: str) -> float:
    h, m, s = (int(x) for x in hms.split(":"))
    return 60 * h + m + s / 60


def compute() -> dict:
    from scipy import stats as sps  # p-values only

    def welch_p(a, b):
        t, df = welch(a, b)
        return t, 2 * sps.t.sf(abs(t), df)

    out = {}
    # ---------------------------------------------------------------- iowa_hawks
    hk = rows("iowa_hawks.csv")
    ss = [r for r in hk if r["Species"] == "SS" and r["Sex"] != "" and r["Weight"] != ""]
    f = [float(r["Weight"]) for r in ss if r["Sex"] == "F"]
    m = [float(r["Weight"]) for r in ss if r["Sex"] == "M"]
    assert len(f) + len(m) == len(ss)
    t, p = welch_p(f, m)
    out["x9-01"] = {"female_mean_g": mean(f), "male_mean_g": mean(m), "welch_statistic": t,
                    "significant_at_1pct": "yes" if p < 0.01 else "no"}
    dates = [dt.date(int(r["Year"]), int(r["Month"]), int(r["Day"])) for r in hk]
    out["x9-02"] = {"top_weekday": argmax(dict(Counter(DAYS[d.weekday()] for d in dates))),
                    "capture_dates": len(set(dates)),
                    "peak_day_of_year": argmax(dict(Counter(f"{d.month:02d}-{d.day:02d}" for d in dates)))}
    rt = [float(r["Hallux"]) for r in hk if r["Species"] == "RT" and r["Hallux"] != ""]
    q1, q3 = quantile(rt, 0.25), quantile(rt, 0.75)
    fence = q3 + 1.5 * (q3 - q1)
    not_on(rt, fence)
    out["x9-03"] = {"sex_missing": sum(r["Sex"] == "" for r in hk),
                    "band_blank": sum(r["BandNumber"].strip() == "" for r in hk),
                    "rt_hallux_fence": fence, "rt_hallux_flagged": sum(v > fence for v in rt)}
    out["x9-04"] = st.median(float(r["Wing"]) for r in hk if r["Species"] == "CH" and r["Wing"] != "")
    tails = defaultdict(list)
    for r in hk:
        tails[r["Species"]].append(float(r["Tail"]))
    out["x9-05"] = argmax({k: mean(v) for k, v in tails.items()})

    # ---------------------------------------------------------------- boston_marathon_winners
    bo = rows("boston_marathon_winners.csv")
    timed = [r for r in bo if r["Time"] != ""]
    assert len(bo) - len(timed) == 1
    women = {i: minutes(r["Time"]) for i, r in enumerate(timed) if r["Event"] == "Women's open champion"}
    i = argmax(women, low=True)
    men = [minutes(r["Time"]) for r in timed if r["Event"] == "Men's open division"]
    not_on(men, 130)
    out["x9-06"] = {"fastest_woman": timed[i]["Champion"], "her_year": int(timed[i]["Year"]),
                    "men_under_2h10": sum(v < 130 for v in men)}
    countries = Counter(r["Country"] for r in bo if r["Country"] != "")
    men_rows = [r for r in bo if r["Event"] == "Men's open division"]
    out["x9-07"] = {"top_countries": "; ".join(topk(dict(countries), 3)),
                    "kenya_share_men_pct": 100 * sum(r["Country"] == "Kenya" for r in men_rows) / len(men_rows),
                    "countries_with_a_win": len(countries)}
    late = [r for r in men_rows if 1950 <= int(r["Year"]) <= 2019]
    x = [float(r["Year"]) for r in late]
    y = [minutes(r["Time"]) for r in late]
    slope, icpt = ols(x, y)
    out["x9-08"] = {"minutes_per_year": slope, "fit_r2": pearson(x, y) ** 2, "trend_at_2020": icpt + slope * 2020}
    out["x9-09"] = sum(r["Country"] == "Japan" for r in bo)
    out["x9-10"] = argmax(dict(Counter(r["Champion"] for r in bo)))

    # ---------------------------------------------------------------- durham_pm25_2011
    pm = rows("durham_pm25_2011.csv")

    def md_y(s):
        mo, da, yy = (int(v) for v in s.split("/"))
        return dt.date(2000 + yy, mo, da)

    for r in pm:
        r["_d"] = md_y(r["date"])
        r["_c"] = float(r["daily_mean_pm2_5_concentration"])
    by_month, by_day = defaultdict(list), defaultdict(list)
    for r in pm:
        by_month[MONTHS[r["_d"].month]].append(r["_c"])
        by_day[DAYS[r["_d"].weekday()]].append(r["_c"])
    month_mean = {k: mean(v) for k, v in by_month.items()}
    out["x9-11"] = {"dirtiest_month": argmax(month_mean), "distinct_dates": len({r["_d"] for r in pm}),
                    "dirtiest_weekday": argmax({k: mean(v) for k, v in by_day.items()})}
    aqi = [r for r in pm if r["daily_aqi_value"] != ""]
    out["x9-12"] = {"aqi_blank": len(pm) - len(aqi),
                    "r_conc_aqi": pearson([r["_c"] for r in aqi], [float(r["daily_aqi_value"]) for r in aqi]),
                    "aqi_only_poc1": "yes" if all(r["poc"] == "1" for r in aqi) else "no"}
    per = defaultdict(dict)
    for r in pm:
        assert r["poc"] not in per[r["_d"]], "one row per date and monitor"
        per[r["_d"]][r["poc"]] = r["_c"]
    diffs = [v["1"] - v["3"] for v in per.values() if "1" in v and "3" in v]
    n = len(diffs)
    t = mean(diffs) / math.sqrt(var(diffs) / n)
    out["x9-13"] = {"paired_days": n, "mean_difference": mean(diffs), "t_paired": t,
                    "h0_decision": "reject" if 2 * sps.t.sf(abs(t), n - 1) < 0.05 else "retain"}
    conc = [r["_c"] for r in pm]
    not_on(conc, 15)
    out["x9-14"] = sum(v > 15 for v in conc)
    out["x9-15"] = topk(month_mean, 3)

    # ---------------------------------------------------------------- us_gdp_presidents
    us = rows("us_gdp_presidents.csv")
    by_year = {int(r["Year"]): r for r in us}
    assert len(by_year) == len(us)
    gdp = {yr: float(r["realGDPperCapita"]) for yr, r in by_year.items() if r["realGDPperCapita"] != ""}
    one_year = {yr: 100 * (gdp[yr] / gdp[yr - 1] - 1) for yr in gdp if yr - 1 in gdp}
    worst = argmax(one_year, low=True)
    out["x9-16"] = {"depression_change_pct": 100 * (gdp[1933] / gdp[1929] - 1), "worst_year": worst,
                    "executive_then": by_year[worst]["executive"]}
    unemp = {}
    for yr, r in by_year.items():
        if r["unemployment"] != "":
            v = float(r["unemployment"])
            unemp[yr] = v if yr >= 1948 else 100 * v
    peak = argmax(unemp)
    out["x9-17"] = {"unemployment_blank": len(us) - len(unemp), "peak_unemployment_year": peak,
                    "peak_unemployment_pct": unemp[peak],
                    "longest_source": argmax(dict(Counter(r["unempSource"] for r in us if r["unempSource"] != "")))}
    post = [by_year[yr] for yr in range(1948, 2021)]
    u = [float(r["unemployment"]) for r in post]
    s = [float(r["fedSurplus_pGDP"]) for r in post]
    r_us = pearson(u, s)
    tt = r_us * math.sqrt((len(u) - 2) / (1 - r_us ** 2))
    surplus = [float(r["fedSurplus"]) for r in post]
    not_on(surplus, 0)
    out["x9-18"] = {"r_unemp_surplus": r_us, "significant": "yes" if 2 * sps.t.sf(abs(tt), len(u) - 2) < 0.05 else "no",
                    "surplus_years": sum(v > 0 for v in surplus)}
    deaths = defaultdict(float)
    for r in us:
        if r["war"] != "":
            deaths[r["war"]] += float(r["battleDeaths"])
    war = argmax(dict(deaths))
    out["x9-19"] = war
    years = [yr for yr, r in by_year.items() if r["war"] == war]
    assert all(yr - 1 in gdp and yr in gdp for yr in years)
    out["x9-20"] = "yes" if all(gdp[yr] > gdp[yr - 1] for yr in years) else "no"

    # ---------------------------------------------------------------- grinnell_house_sales
    gh = rows("grinnell_house_sales.csv")
    origin = dt.date(1960, 1, 1)
    sold = [origin + dt.timedelta(days=int(r["Date"])) for r in gh]
    wd = Counter(DAYS[d.weekday()] for d in sold)
    mo = Counter(MONTHS[d.month] for d in sold)
    assert len(mo) == 12
    out["x9-21"] = {"first_sale": min(sold).isoformat(), "quietest_sale_month": argmax(dict(mo), low=True),
                    "busiest_sale_weekday": argmax(dict(wd)),
                    "dates_consistent": "yes" if all((d.year, d.month, d.day) == (int(r["YearSold"]), int(r["MonthSold"]), int(r["DaySold"]))
                                                     for d, r in zip(sold, gh)) else "no"}
    early = [int(r["YearSold"]) <= 2008 for r in gh]
    hit = [int(r["SalePrice"]) >= int(r["ListPrice"]) for r in gh]
    obs = [[sum(1 for e, h in zip(early, hit) if e == a and h == b) for b in (False, True)] for a in (False, True)]
    chi = yates_chi2(obs)
    out["x9-22"] = {"chi2_stat": chi, "pct_at_or_above_2005_2008": 100 * obs[1][1] / sum(obs[1]),
                    "period_effect": "reject" if sps.chi2.sf(chi, 1) < 0.05 else "retain"}
    sq = [r for r in gh if r["SquareFeet"] != ""]
    x = [float(r["SquareFeet"]) for r in sq]
    y = [float(r["SalePrice"]) for r in sq]
    slope, icpt = ols(x, y)
    out["x9-23"] = {"dollars_per_sqft": slope, "intercept_dollars": icpt, "r_sq": pearson(x, y) ** 2,
                    "sqft_blank": len(gh) - len(sq)}
    med = {yr: st.median(float(r["SalePrice"]) for r in gh if int(r["YearSold"]) == yr) for yr in (2009, 2013)}
    out["x9-24"] = 100 * (med[2013] / med[2009] - 1)
    addr = Counter(" ".join(r["Address"].split()) for r in gh)
    assert max(addr.values()) == 3
    out["x9-25"] = sorted(a for a, c in addr.items() if c == 3)

    # ---------------------------------------------------------------- tipi_personality
    tp = rows("tipi_personality.csv")
    ages = [int(r["age"]) for r in tp]
    not_on(ages, 100)
    blanks = {c: sum(r[c] == "" for r in tp) for c in tp[0]}
    out["x9-26"] = {"impossible_ages": sum(a > 100 for a in ages), "median_age_all": st.median(ages),
                    "mean_age_clean": mean(a for a in ages if a <= 100), "emptiest_field": argmax(blanks)}
    vt = [r for r in tp if r["voted"] != ""]
    genders, answers = sorted({r["gender"] for r in vt}), sorted({r["voted"] for r in vt})
    assert genders == ["F", "M"] and answers == ["No", "Yes"]
    obs = [[sum(1 for r in vt if r["gender"] == g and r["voted"] == v) for v in answers] for g in genders]
    chi = yates_chi2(obs)
    out["x9-27"] = {"chi2_gender_voted": chi, "pct_women_voted": 100 * obs[0][1] / sum(obs[0]),
                    "gender_vote_independent": "no" if sps.chi2.sf(chi, 1) < 0.01 else "yes"}
    neu = [float(r["Neuroticism"]) for r in tp]
    corr = {t: pearson([float(r[t]) for r in tp], neu)
            for t in ("Extraversion", "Conscientiousness", "Agreeableness", "Openness")}
    anti = argmax(corr, low=True)
    edu = defaultdict(list)
    for r in tp:
        if r["education"] != "":
            edu[r["education"]].append(float(r["Conscientiousness"]))
    out["x9-28"] = {"anti_neurotic_trait": anti, "r_with_neuroticism": corr[anti],
                    "most_conscientious_education": argmax({k: mean(v) for k, v in edu.items()})}
    agree = {k: mean(float(r["Agreeableness"]) for r in tp if r["engnat"] == k) for k in ("Native", "Non-native")}
    assert agree["Native"] != agree["Non-native"]
    out["x9-29"] = "yes" if agree["Native"] > agree["Non-native"] else "no"
    out["x9-30"] = mean(float(r["Openness"]) for r in tp if r["engnat"] == "Non-native")
    return out


def _same(stored: dict, got) -> bool:
    kind = stored["kind"]
    if kind in ("float", "number"):
        return abs(float(got) - float(stored["value"])) <= float(stored["tolerance"]) / 2 + 1e-9
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
