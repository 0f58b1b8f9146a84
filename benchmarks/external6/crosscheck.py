"""Second, independent computation of every reference answer.

The reference code in questions.json uses pandas and scipy. Here each answer is
recomputed from the raw CSV text with the csv module and plain Python: datetime for the
dates, statistics for means and medians, numpy only to solve the normal equations of the
regression, and hand-written statistics (Pearson and Spearman correlations, the Welch t
statistic, one-way ANOVA, the chi-square of independence with Yates' correction on a 2x2
table as scipy's default does, the Mann-Whitney U from rank sums, the Kruskal-Wallis H
with its tie correction, biased sample skewness and the Shapiro-Wilk W of Royston's AS R94
algorithm). scipy is used only to turn a t, F, chi-square or normal statistic into a
p-value. Every "which is largest/smallest" answer is checked for ties, and so is every
ranked list and every top-k cut; `away` checks that no value sits on a threshold that an
answer depends on (a cut-off, a fence, a significance level).

Run by hand:  python benchmarks/external6/crosscheck.py
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
    with open(HERE / "tables" / table, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def num(rs, name, where=lambda r: True):
    return [float(r[name]) for r in rs if where(r) and r[name] != ""]


def q_linear(xs, p):
    """Percentile with linear interpolation (type 7), written out."""
    s = sorted(xs)
    h = (len(s) - 1) * p
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def ols(X_cols, y):
    """Coefficients (intercept first) and R^2 from the normal equations (X'X) b = X'y."""
    y = np.asarray(y, float)
    X = np.column_stack([np.ones(len(y))] + [np.asarray(c, float) for c in X_cols])
    b = np.linalg.solve(X.T @ X, X.T @ y)
    resid = y - X @ b
    r2 = 1 - (resid @ resid) / ((y - y.mean()) @ (y - y.mean()))
    return [float(v) for v in b], float(r2)


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def ranks(xs):
    """Ranks 1..n, ties given their average rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


def welch(a, b):
    from scipy.stats import t as tdist

    va, vb = st.variance(a) / len(a), st.variance(b) / len(b)
    t = (st.fmean(a) - st.fmean(b)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return t, float(2 * tdist.sf(abs(t), df))


def mann_whitney(a, b):
    """U of the first sample from the rank sum, and the two-sided p of the normal
    approximation with tie correction and continuity correction (scipy's asymptotic)."""
    from scipy.stats import norm

    n1, n2 = len(a), len(b)
    r = ranks(list(a) + list(b))
    u1 = sum(r[:n1]) - n1 * (n1 + 1) / 2
    n = n1 + n2
    tie_term = sum(t ** 3 - t for t in Counter(list(a) + list(b)).values())
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    z = (abs(u1 - n1 * n2 / 2) - 0.5) / sigma
    return u1, float(2 * norm.sf(z))


def kruskal(groups):
    """Kruskal-Wallis H with the tie correction, and its chi-square p-value."""
    from scipy.stats import chi2 as c2

    allv = [v for g in groups for v in g]
    r = ranks(allv)
    n = len(allv)
    h, start = 0.0, 0
    for g in groups:
        rs = r[start:start + len(g)]
        start += len(g)
        h += sum(rs) ** 2 / len(g)
    h = 12 / (n * (n + 1)) * h - 3 * (n + 1)
    h /= 1 - sum(t ** 3 - t for t in Counter(allv).values()) / (n ** 3 - n)
    return h, float(c2.sf(h, len(groups) - 1))


def chi2(pairs, yates_2x2=True):
    """Pearson chi-square of independence; Yates' correction on a 2x2 table when asked."""
    from scipy.stats import chi2 as c2

    cnt = Counter(pairs)
    ra, cb = sorted({a for a, _ in cnt}), sorted({b for _, b in cnt})
    n = sum(cnt.values())
    ri = {a: sum(v for (x, _), v in cnt.items() if x == a) for a in ra}
    ci = {b: sum(v for (_, y), v in cnt.items() if y == b) for b in cb}
    dof = (len(ra) - 1) * (len(cb) - 1)
    stat = 0.0
    for a in ra:
        for b in cb:
            e = ri[a] * ci[b] / n
            d = abs(cnt.get((a, b), 0) - e)
            if dof == 1 and yates_2x2:
                d = max(0.0, d - 0.5)
            stat += d * d / e
    return stat, dof, float(c2.sf(stat, dof))


def anova(groups):
    from scipy.stats import f as fdist

    allv = [v for g in groups for v in g]
    grand = st.fmean(allv)
    ssb = sum(len(g) * (st.fmean(g) - grand) ** 2 for g in groups)
    ssw = sum((v - st.fmean(g)) ** 2 for g in groups for v in g)
    k, n = len(groups), len(allv)
    fstat = (ssb / (k - 1)) / (ssw / (n - k))
    return fstat, float(fdist.sf(fstat, k - 1, n - k))


def skew_biased(xs):
    n = len(xs)
    m = sum(xs) / n
    m2 = sum((x - m) ** 2 for x in xs) / n
    m3 = sum((x - m) ** 3 for x in xs) / n
    return m3 / m2 ** 1.5


def shapiro_wilk(xs):
    """W and p of the Shapiro-Wilk test, Royston (1995) AS R94 approximations (n >= 12)."""
    nd = st.NormalDist()
    x = sorted(xs)
    n = len(x)
    m = [nd.inv_cdf((i - 0.375) / (n + 0.25)) for i in range(1, n + 1)]
    mm = sum(v * v for v in m)
    u = 1 / math.sqrt(n)
    an = m[-1] / math.sqrt(mm) + 0.221157 * u - 0.147981 * u ** 2 - 2.071190 * u ** 3 \
        + 4.434685 * u ** 4 - 2.706056 * u ** 5
    an1 = m[-2] / math.sqrt(mm) + 0.042981 * u - 0.293762 * u ** 2 - 1.752461 * u ** 3 \
        + 5.682633 * u ** 4 - 3.582633 * u ** 5
    phi = (mm - 2 * m[-1] ** 2 - 2 * m[-2] ** 2) / (1 - 2 * an ** 2 - 2 * an1 ** 2)
    a = [v / math.sqrt(phi) for v in m]
    a[-1], a[-2], a[0], a[1] = an, an1, -an, -an1
    mean = sum(x) / n
    W = sum(ai * xi for ai, xi in zip(a, x)) ** 2 / sum((xi - mean) ** 2 for xi in x)
    ln = math.log(n)
    mu = 0.0038915 * ln ** 3 - 0.083751 * ln ** 2 - 0.31082 * ln - 1.5861
    sigma = math.exp(0.0030302 * ln ** 2 - 0.082676 * ln - 0.4803)
    return W, 1 - nd.cdf((math.log(1 - W) - mu) / sigma)


def group(rs, key, val, where=lambda r: True):
    g = defaultdict(list)
    for r in rs:
        if where(r) and r[key] != "" and r[val] != "":
            g[r[key]].append(float(r[val]))
    return g


def argmax(d):
    best = max(d.values())
    keys = [k for k, v in d.items() if v == best]
    assert len(keys) == 1, f"tie: {keys}"
    return keys[0]


def argmin(d):
    return argmax({k: -v for k, v in d.items()})


def top(d, k):
    """The k largest keys, checking that no tie crosses the cut or sits inside it."""
    items = sorted(d.items(), key=lambda kv: kv[1], reverse=True)
    if len(items) > k:
        assert items[k - 1][1] != items[k][1], f"tie at position {k}: {items[k - 1]}, {items[k]}"
    assert len({v for _, v in items[:k]}) == len(items[:k]), f"tie inside the top {k}"
    return [key for key, _ in items[:k]]


def away(values, threshold, margin):
    """No value sits within `margin` of a threshold the answer depends on."""
    values = list(values)
    assert all(abs(v - threshold) > margin for v in values), \
        (threshold, sorted(values, key=lambda v: abs(v - threshold))[:3])


def pct(n, d):
    return 100.0 * n / d


WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def compute() -> dict[str, object]:
    A: dict[str, object] = {}

    # ---------------------------------------------------------------- hhs_breaches
    hb = rows("hhs_breaches.csv")
    desc = [r["Web.Description"] for r in hb]
    A["x6-01"] = {"empty_cells": desc.count(""), "placeholder_cells": desc.count("\\N"),
                  "pct_described": pct(sum(d not in ("", "\\N") for d in desc), len(hb))}
    dates = [dt.date.fromisoformat(r["Breach.Submission.Date"]) for r in hb]
    years = Counter(d.year for d in dates)
    people = defaultdict(int)
    for d, r in zip(dates, hb):
        people[f"{d.year:04d}-{d.month:02d}"] += int(r["Individuals.Affected"])
    A["x6-02"] = {"busiest_year": argmax(years), "reports_in_busiest_year": max(years.values()),
                  "top_weekday": WEEKDAYS[argmax(Counter(d.weekday() for d in dates))],
                  "peak_month": argmax(people)}
    types = [[p.strip() for p in r["Type.of.Breach"].split(",")] for r in hb]
    tally = Counter(t for ts in types for t in ts)
    second = top(tally, 2)[1]
    A["x6-03"] = {"distinct_types": len(tally), "multi_type_reports": sum(len(ts) > 1 for ts in types),
                  "second_type": second, "second_type_reports": tally[second]}
    assert "Unauthorized Access/Disclosure " in {p for r in hb for p in r["Type.of.Breach"].split(", ")}  # the stray space
    A["x6-04"] = argmax({k: st.median(v) for k, v in group(hb, "Covered.Entity.Type", "Individuals.Affected").items()})
    aff = [int(r["Individuals.Affected"]) for r in hb]
    away(aff, 100000, 0.5)
    A["x6-05"] = sum(a >= 100000 for a in aff)
    A["x6-06"] = pct(sum(a for a in aff if a >= 100000), sum(aff))

    # ---------------------------------------------------------------- dunn_run
    dr = rows("dunn_run.csv")
    cities = [r["city"] for r in dr if r["city"] != ""]
    A["x6-07"] = {"raw_cities": len(set(cities)), "normalised_cities": len({c.strip().lower() for c in cities}),
                  "menomonie_runners": sum(c.strip().lower() == "menomonie" for c in cities)}
    k18 = [r for r in dr if r["date"] == "2018-05-12" and r["race"] == "5k"]
    men = num(k18, "run_time_minutes", lambda r: r["sex"] == "M")
    women = num(k18, "run_time_minutes", lambda r: r["sex"] == "F")
    t, p = welch(men, women)
    away([p], 0.01, 0.005)
    A["x6-08"] = {"t_value": t, "mean_gap": st.fmean(men) - st.fmean(women), "significant": "yes" if p < 0.01 else "no"}
    k5 = [r for r in dr if r["race"] == "5k"]
    assert all(float(r["age"]) == int(float(r["age"])) for r in k5 if r["age"] != "")  # whole years: no edge doubt
    bins = defaultdict(list)
    for r in k5:
        if r["age"] == "":
            continue
        a = float(r["age"])
        b = "u20" if a < 20 else "20-39" if a < 40 else "40-59" if a < 60 else "60+"
        bins[b].append(float(r["run_time_minutes"]))
    A["x6-09"] = {"median_under_20": st.median(bins["u20"]), "median_20_39": st.median(bins["20-39"]),
                  "median_40_59": st.median(bins["40-59"]), "median_60_plus": st.median(bins["60+"]),
                  "no_age": sum(r["age"] == "" for r in k5)}
    per = Counter((r["first_name"], r["last_initial"], r["sex"], r["race"], r["date"]) for r in dr)
    keys_dates = defaultdict(set)
    for (f, l, s, rc, d) in per:
        keys_dates[(f, l, s, rc)].add(d)
    ambiguous = {k[:4] for k, n in per.items() if n > 1}
    times = defaultdict(dict)
    for r in k5:
        k = (r["first_name"], r["last_initial"], r["sex"], "5k", r["date"])
        if per[k] == 1:
            times[k[:3]][r["date"]] = float(r["run_time_minutes"])
    matched = {k: v for k, v in times.items() if len(v) == 2}
    assert all(v["2018-05-12"] != v["2017-05-13"] for v in matched.values())  # no equal times
    A["x6-10"] = {"keys_on_both_dates": sum(len(v) == 2 for v in keys_dates.values()), "ambiguous_keys": len(ambiguous),
                  "matched_5k_runners": len(matched),
                  "faster_in_2018": sum(v["2018-05-12"] < v["2017-05-13"] for v in matched.values())}
    A["x6-11"] = min(num(dr, "run_time_minutes", lambda r: r["race"] == "half-marathon" and r["date"] == "2018-05-12"))
    h18 = st.fmean(num(dr, "age", lambda r: r["race"] == "half-marathon" and r["date"] == "2018-05-12"))
    h17 = st.fmean(num(dr, "age", lambda r: r["race"] == "half-marathon" and r["date"] == "2017-05-13"))
    A["x6-12"] = "yes" if h18 < h17 else "no"

    # ---------------------------------------------------------------- forbes2000
    fb = rows("forbes2000.csv")
    prof = {r["name"]: float(r["profits"]) for r in fb if r["profits"] != ""}
    assert len({r["name"] for r in fb}) == len(fb)
    A["x6-13"] = {"missing_profits": sum(r["profits"] == "" for r in fb), "loss_makers": sum(v < 0 for v in prof.values()),
                  "zero_profit": sum(v == 0 for v in prof.values()), "biggest_loss": argmin(prof)}
    lmv = [math.log10(float(r["marketvalue"])) for r in fb]
    (b0, b1, b2), r2 = ols([[math.log10(float(r["sales"])) for r in fb], [math.log10(float(r["assets"])) for r in fb]], lmv)
    A["x6-14"] = {"b0": b0, "b1": b1, "b2": b2, "r_squared": r2}
    ncountry = Counter(r["country"] for r in fb)
    big = {c for c, n in ncountry.items() if n >= 20}
    # the threshold gives the same countries whether or not the five without profits are counted
    assert big == {c for c, n in Counter(r["country"] for r in fb if r["profits"] != "").items() if n >= 20}
    margins = {c: st.median(float(r["profits"]) / float(r["sales"]) for r in fb if r["country"] == c and r["profits"] != "")
               for c in big}
    A["x6-15"] = {"top_country": argmax(margins), "top_median_margin": max(margins.values()), "bottom_country": argmin(margins)}
    cats = Counter(r["category"] for r in fb)
    top5 = top(cats, 5)
    assert top5 == ["Banking", "Diversified financials", "Insurance", "Utilities", "Materials"]  # as the question names them
    F, p = anova([[math.log10(float(r["marketvalue"])) for r in fb if r["category"] == c] for c in top5])
    away([p], 0.01, 0.002)
    A["x6-16"] = {"f_stat": F, "p_value": p, "conclusion": "means differ" if p < 0.01 else "no evidence"}
    mv = defaultdict(float)
    for r in fb:
        mv[r["country"]] += float(r["marketvalue"])
    A["x6-17"] = top(mv, 3)
    A["x6-18"] = argmax({k: sum(v) for k, v in group(fb, "category", "profits").items()})

    # ---------------------------------------------------------------- marathon_training
    tr = rows("marathon_training.csv")

    def mdy(s):
        m, d, y = (int(x) for x in s.split("/"))
        return dt.date(y, m, d)

    tdates = [mdy(r["Date"]) for r in tr]
    miles = defaultdict(float)
    for d, r in zip(tdates, tr):
        miles[d.year] += float(r["Miles"])
    A["x6-19"] = {"top_year": argmax(miles), "top_year_miles": max(miles.values()),
                  "busiest_month": argmax(Counter(d.month for d in tdates))}
    uniq = sorted(set(tdates))
    gaps = {uniq[i]: (uniq[i] - uniq[i - 1]).days for i in range(1, len(uniq))}
    resumed = argmax(gaps)
    per_day = Counter(tdates)
    assert max(per_day.values()) == 2
    A["x6-20"] = {"longest_break_days": gaps[resumed], "resumed_on": resumed.isoformat(),
                  "double_days": sum(v == 2 for v in per_day.values())}
    pace = num(tr, "PaceMin")
    assert len(pace) == len(tr) - 1
    q1, q3 = q_linear(pace, 0.25), q_linear(pace, 0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    away(pace, hi, 1e-6)
    away(pace, lo, 1e-6)
    sk = skew_biased(pace)
    A["x6-21"] = {"upper_fence": hi, "outliers": sum(v < lo or v > hi for v in pace), "skewness": sk,
                  "longer_tail": "right" if sk > 0 else "left"}
    A["x6-22"] = sum(float(r["Miles"]) >= 20 for r in tr)
    shoes = group(tr, "ShoeBrand", "PaceMin")
    A["x6-23"] = argmin({k: st.fmean(v) for k, v in shoes.items()})
    sizes = Counter(r["ShoeBrand"] for r in tr if r["ShoeBrand"] != "")
    assert all(len(shoes[k]) == n for k, n in sizes.items())  # every brand row has a pace
    away(sizes.values(), 20, 1)
    A["x6-24"] = argmin({k: st.fmean(v) for k, v in shoes.items() if len(v) >= 20})

    # ---------------------------------------------------------------- us_seatbelts
    sb = rows("us_seatbelts.csv")
    missing = [r for r in sb if r["seatbelt"] == ""]
    by_state = defaultdict(list)
    for r in sb:
        by_state[r["state"]].append(r)
    assert all(len(v) == 15 for v in by_state.values()) and len(by_state) == 51
    A["x6-25"] = {"missing_rates": len(missing), "last_year_with_gaps": max(int(r["year"]) for r in missing),
                  "complete_states": sum(all(r["seatbelt"] != "" for r in v) for v in by_state.values())}
    pairs = [(float(r["seatbelt"]), float(r["fatalities"])) for r in sb if r["seatbelt"] != ""]
    x, y = [a for a, _ in pairs], [b for _, b in pairs]
    r_ = pearson(x, y)
    A["x6-26"] = {"pearson_r": r_, "spearman_rho": spearman(x, y), "rows_used": len(pairs),
                  "sign": "positive" if r_ > 0 else "negative"}
    rate = {(r["state"], int(r["year"])): float(r["fatalities"]) for r in sb}
    change = {s: (rate[(s, 1997)] - rate[(s, 1983)]) / rate[(s, 1983)] * 100 for s in by_state}
    worst = argmin(change)
    A["x6-27"] = {"states_with_rise": sum(v > 0 for v in change.values()), "largest_decline_state": worst,
                  "largest_decline_pct": -change[worst]}
    yes = num(sb, "fatalities", lambda r: r["speed65"] == "yes")
    other = num(sb, "fatalities", lambda r: r["speed65"] != "yes")
    t, p = welch(yes, other)
    away([p], 0.05, 0.01)
    A["x6-28"] = {"t": t, "mean_65": st.fmean(yes), "mean_other": st.fmean(other),
                  "verdict": "different" if p < 0.05 else "not different"}
    A["x6-29"] = argmax({s: st.fmean(float(r["fatalities"]) for r in v) for s, v in by_state.items()})
    # the same state if the average is weighted by traffic miles
    assert A["x6-29"] == argmax({s: sum(float(r["fatalities"]) * float(r["miles"]) for r in v)
                                 / sum(float(r["miles"]) for r in v) for s, v in by_state.items()})
    A["x6-30"] = sum(r["year"] == "1990" and r["enforce"] == "no" for r in sb)

    # ---------------------------------------------------------------- air_crashes
    ac = rows("air_crashes.csv")
    stat, dof, p = chi2([(r["Phase"], r["Cause"]) for r in ac if r["Phase"] in ("landing", "en route", "take-off")])
    away([p], 0.05, 0.01)
    A["x6-31"] = {"chi2": stat, "dof": dof, "relationship": "dependent" if p < 0.05 else "independent"}
    cdates = [dt.date.fromisoformat(r["date"]) for r in ac]
    assert all(d.year == int(r["Year"]) for d, r in zip(cdates, ac))
    deaths = defaultdict(int)
    for d, r in zip(cdates, ac):
        deaths[d.month] += int(r["Fatalities"])
    cu = sorted(set(cdates))
    gaps = {cu[i]: (cu[i] - cu[i - 1]).days for i in range(1, len(cu))}
    argmax(gaps)
    A["x6-32"] = {"top_weekday": WEEKDAYS[argmax(Counter(d.weekday() for d in cdates))],
                  "deadliest_month": argmax(deaths), "longest_gap_days": max(gaps.values())}
    fat = num(ac, "Fatalities")
    q1, q3 = q_linear(fat, 0.25), q_linear(fat, 0.75)
    hi = q3 + 1.5 * (q3 - q1)
    away(fat, hi, 1e-6)
    A["x6-33"] = {"upper_fence": hi, "above_fence": sum(v > hi for v in fat), "skew_raw": skew_biased(fat),
                  "skew_log": skew_biased([math.log(v) for v in fat])}
    away(fat, 200, 0.5)
    A["x6-34"] = sum(v > 200 for v in fat)
    cause = {k: sum(v) for k, v in group(ac, "Cause", "Fatalities").items()}
    A["x6-35"] = argmax(cause)
    A["x6-36"] = pct(max(cause.values()), sum(cause.values()))

    # ---------------------------------------------------------------- piracy_votes
    pv = rows("piracy_votes.csv")
    party = Counter(r["party"].strip() for r in pv)
    assert all(r["party"] != r["party"].strip() for r in pv)  # every code has the space
    firsts = Counter(r["name"].split(",", 1)[1].strip() for r in pv)
    A["x6-37"] = {"democrats": party["D"], "republicans": party["R"], "independents": party["I"],
                  "commonest_first_name": argmax(firsts)}
    known = [(r["party"].strip(), r["stance"] == "yes") for r in pv
             if r["stance"] in ("yes", "no", "leaning no") and r["party"].strip() in ("D", "R")]
    stat, dof, p = chi2(known)
    assert dof == 1
    away([p], 0.01, 0.002)
    rate = {g: st.fmean(s for pp, s in known if pp == g) for g in ("D", "R")}
    A["x6-38"] = {"chi_square": stat, "p": p, "more_supportive_party": argmax(rate),
                  "reject_independence": "yes" if p < 0.01 else "no"}
    nets = defaultdict(list)
    for r in pv:
        if r["money_pro"] != "" and r["money_con"] != "":
            nets[r["stance"]].append(float(r["money_pro"]) - float(r["money_con"]))
    med = {k: st.median(v) for k, v in nets.items()}
    best = argmax(med)
    assert med[best] == int(med[best])
    A["x6-39"] = {"no_net_members": sum(r["money_pro"] == "" or r["money_con"] == "" for r in pv),
                  "top_stance": best, "top_median": int(med[best]), "bottom_stance": argmin(med)}
    both = [(float(r["money_pro"]), float(r["money_con"])) for r in pv if r["money_pro"] != "" and r["money_con"] != ""]
    A["x6-40"] = {"rho": spearman(*zip(*both)), "r": pearson(*zip(*both)), "pairs": len(both)}
    states = Counter(r["state"] for r in pv)
    away(states.values(), 25, 1.5)
    A["x6-41"] = sorted(s for s, n in states.items() if n >= 25)
    A["x6-42"] = sum(r["chamber"] == "senate" and r["stance"] == "yes" for r in pv)

    # ---------------------------------------------------------------- commodity_prices
    cp = rows("commodity_prices.csv")
    cdts = [dt.date.fromisoformat(r["date"]) for r in cp]
    assert cdts == sorted(cdts) and all(d.day == 1 for d in cdts)
    annual = defaultdict(list)
    for d, r in zip(cdts, cp):
        annual[d.year].append(float(r["oil_brent"]))
    am = {y: st.fmean(v) for y, v in annual.items()}
    yoy = {y: (am[y] / am[y - 1] - 1) * 100 for y in am if y - 1 in am}
    A["x6-43"] = {"biggest_rise_year": argmax(yoy), "biggest_rise_pct": max(yoy.values()), "biggest_fall_year": argmin(yoy)}

    def rets(col):
        v = [float(r[col]) for r in cp]
        return [(v[i] / v[i - 1] - 1) * 100 for i in range(1, len(v))]

    A["x6-44"] = {"r_oil": pearson(rets("oil_brent"), rets("oil_dubai")),
                  "r_coffee": pearson(rets("coffee_arabica"), rets("coffee_robustas")), "returns_used": len(cp) - 1}
    ar = [float(r["coffee_arabica"]) for r in cp]
    lr = [math.log(ar[i] / ar[i - 1]) for i in range(1, len(ar)) if cdts[i].year >= 2000]
    W, p = shapiro_wilk(lr)
    away([p], 0.05, 0.01)
    A["x6-45"] = {"w_stat": W, "normal": "yes" if p >= 0.05 else "no", "skewness": skew_biased(lr), "n_returns": len(lr)}
    brent = {d: float(r["oil_brent"]) for d, r in zip(cdts, cp)}
    away(brent.values(), 100, 0.01)
    A["x6-46"] = {"top_months": " / ".join(d.strftime("%Y-%m") for d in top(brent, 3)),
                  "first_above_100": min(d for d, v in brent.items() if v > 100).strftime("%Y-%m")}
    A["x6-47"] = (am[2022] / am[2021] - 1) * 100
    A["x6-48"] = "yes" if any(float(r["oil_dubai"]) > float(r["oil_brent"]) for r in cp) else "no"

    # ---------------------------------------------------------------- blizzard_salary
    bz = rows("blizzard_salary.csv")
    factor = {"year": 1, "hour": 2080, "week": 52}
    annual_pay = [(float(r["current_salary"]) * factor[r["salary_type"]], r) for r in bz if r["current_salary"] != ""]
    away([a for a, _ in annual_pay], 10000, 1000)
    usable = [(a, r) for a, r in annual_pay if a >= 10000]
    A["x6-49"] = {"usable": len(usable), "median_annual": round(st.median(a for a, _ in usable)),
                  "from_hourly": sum(r["salary_type"] == "hour" for _, r in usable)}
    assert st.median(a for a, _ in usable) % 1 != 0.5  # no rounding of a half
    rated = group(bz, "performance_rating", "percent_incr")
    assert len(rated) == 4
    H, p = kruskal(list(rated.values()))
    away([p], 0.001, 0.0005)
    means = {k: st.fmean(v) for k, v in rated.items()}
    A["x6-50"] = {"h_stat": H, "differ": "yes" if p < 0.001 else "no", "best_rating": argmax(means), "best_mean": max(means.values())}

    def is_eng(r):
        return "engineer" in r["current_title"].lower()

    yearly = [r for r in bz if r["salary_type"] == "year" and r["current_salary"] != "" and float(r["current_salary"]) >= 10000]
    e = [float(r["current_salary"]) for r in yearly if is_eng(r)]
    o = [float(r["current_salary"]) for r in yearly if not is_eng(r)]
    u, p = mann_whitney(e, o)
    away([p], 0.05, 0.01)
    A["x6-51"] = {"engineer_titles": sum(is_eng(r) for r in bz), "median_engineers": st.median(e),
                  "median_others": st.median(o), "significant": "true" if p < 0.05 else "false"}
    stamps = [dt.datetime.strptime(r["timestamp"], "%m/%d/%y %H:%M") for r in bz]
    days = Counter(s.date() for s in stamps)
    busiest = argmax(days)
    A["x6-52"] = {"busiest_day": busiest.isoformat(), "busiest_day_responses": days[busiest],
                  "after_august": sum(s >= dt.datetime(2020, 9, 1) for s in stamps),
                  "busiest_hour": argmax(Counter(s.hour for s in stamps))}
    ym = {k: v for k, v in group(bz, "location", "current_salary", lambda r: r["salary_type"] == "year").items()}
    away([len(v) for v in ym.values()], 10, 0.5)
    A["x6-53"] = argmax({k: st.median(v) for k, v in ym.items() if len(v) >= 10})
    inc = {k: st.fmean(v) for k, v in group(bz, "status", "percent_incr").items()}
    A["x6-54"] = "yes" if inc["Contractor"] < inc["Full Time Employee"] else "no"

    # ---------------------------------------------------------------- paris_metro
    mt = rows("paris_metro.csv")
    served = {r["name"]: [p.strip() for p in r["lines"].split(",")] for r in mt}
    assert len(served) == len(mt)
    most = max(len(v) for v in served.values())
    A["x6-55"] = {"distinct_lines": len({l for v in served.values() for l in v}),
                  "three_plus": sum(len(v) >= 3 for v in served.values()),
                  "most_connected": " & ".join(sorted(n for n, v in served.items() if len(v) == most))}
    lat = [float(r["latitude"]) for r in mt]
    mean, sd = st.fmean(lat), st.stdev(lat)
    z = [(v - mean) / sd for v in lat]
    away([abs(v) for v in z], 3, 0.1)
    q1, q3 = q_linear(lat, 0.25), q_linear(lat, 0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    away(lat, lo, 1e-7)
    away(lat, hi, 1e-7)
    flagged = [i for i, v in enumerate(z) if abs(v) > 3]
    A["x6-56"] = {"z_flagged": len(flagged), "flagged_station": mt[flagged[0]]["name"],
                  "iqr_flagged": sum(v < lo or v > hi for v in lat),
                  "mean_latitude_rest": st.fmean(v for i, v in enumerate(lat) if i not in flagged)}
    with_p = [r for r in mt if r["passengers"] != ""]
    rer = [float(r["passengers"]) for r in with_p if r["connect_rer"] != ""]
    norer = [float(r["passengers"]) for r in with_p if r["connect_rer"] == ""]
    u, p = mann_whitney(rer, norer)
    away([p], 0.001, 0.0005)
    assert st.median(rer) % 1 != 0.5
    A["x6-57"] = {"no_passenger_count": len(mt) - len(with_p), "u": round(u), "median_rer": round(st.median(rer)),
                  "reject": "yes" if p < 0.001 else "no"}
    pas = {r["name"]: float(r["passengers"]) for r in with_p}
    A["x6-58"] = top(pas, 5)
    assert all("," not in n for n in A["x6-58"])
    med = st.median(pas.values())
    A["x6-59"] = med
    away(pas.values(), 2 * med, 1)
    A["x6-60"] = sum(v > 2 * med for v in pas.values())
    return A


def _same(stored: dict, got, tol_default=0.0) -> bool:
    kind = stored["kind"]
    if kind in ("float", "number"):
        return abs(float(got) - float(stored["value"])) <= float(stored.get("tolerance", tol_default)) / 2 + 1e-9
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
