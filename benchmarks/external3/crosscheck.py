"""Second, independent computation of every reference answer.

The reference code in questions.json uses pandas and scipy. Here each answer
is recomputed from the raw CSV text with the csv module, plain Python, numpy
and hand-written test statistics (the t, F and chi-square distributions come
from scipy only to turn a statistic into a p-value), and compared with the
stored answer. Every "which group is largest" answer is also checked for
ties.

Run by hand:  python benchmarks/external3/crosscheck.py
(test_score.py also runs it.)
"""
from __future__ import annotations

import csv
import datetime as dt
import math
import re
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


def median(xs):
    return st.median(xs)


def ols(x, y):
    """Slope, intercept and R² from the normal equations (numpy lstsq)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    X = np.column_stack([np.ones_like(x), x])
    (b0, b1), *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - (b0 + b1 * x)
    r2 = 1 - (resid @ resid) / ((y - y.mean()) @ (y - y.mean()))
    return float(b1), float(b0), float(r2)


def pearson(x, y):
    """r written out, two-sided p from the t statistic with n - 2 df."""
    from scipy.stats import t as tdist

    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    r = sxy / math.sqrt(sxx * syy)
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return r, float(2 * tdist.sf(abs(t), n - 2))


def welch(a, b):
    from scipy.stats import t as tdist

    va, vb = st.variance(a) / len(a), st.variance(b) / len(b)
    t = (st.fmean(a) - st.fmean(b)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return t, float(2 * tdist.sf(abs(t), df))


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
    return stat, dof, float(c2.sf(stat, dof))


def anova(groups):
    """One-way ANOVA F and p, from the sums of squares."""
    from scipy.stats import f as fdist

    allv = [v for g in groups for v in g]
    grand = st.fmean(allv)
    ssb = sum(len(g) * (st.fmean(g) - grand) ** 2 for g in groups)
    ssw = sum((v - st.fmean(g)) ** 2 for g in groups for v in g)
    k, n = len(groups), len(allv)
    fstat = (ssb / (k - 1)) / (ssw / (n - k))
    return fstat, float(fdist.sf(fstat, k - 1, n - k))


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
    if len(items) > k:
        assert items[k - 1][1] != items[k][1], f"tie at position {k}: {items[k - 1]}, {items[k]}"
    assert len({v for _, v in items[:k]}) == len(items[:k]), f"tie inside the top {k}"
    return [key for key, _ in items[:k]]


def pct(n, d):
    return 100.0 * n / d


_PLAIN_NUMBER = re.compile(r"^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$")


def as_number(text: str) -> float | None:
    """A free-text cell read as a plain decimal number, else None."""
    return float(text) if _PLAIN_NUMBER.match(text) else None


def compute() -> dict[str, object]:
    A: dict[str, object] = {}

    # ---------------------------------------------------------------- gss_vocab
    gss = rows("gss_vocab.csv")
    n_miss = sum(r["vocab"] == "" for r in gss)
    A["x3-01"] = {"missing_vocab": n_miss, "missing_pct": pct(n_miss, len(gss))}
    A["x3-02"] = dict(zip(("best_year", "mean_vocab"), max(
        ((int(k), v) for k, v in mean_by(gss, "year", "vocab").items()), key=lambda kv: kv[1])))
    by_year = mean_by(gss, "year", "vocab")
    assert sorted(by_year.values())[-1] != sorted(by_year.values())[-2]
    stat, dof, p = chi2([(r["nativeBorn"], r["educGroup"]) for r in gss
                         if r["nativeBorn"] != "" and r["educGroup"] != ""])
    A["x3-03"] = {"chi2_stat": stat, "degrees_of_freedom": dof, "independent": "no" if p < 0.05 else "yes"}
    A["x3-04"] = {"n_respondents": sum(
        r["year"] == "2016" and r["gender"] == "female" and r["nativeBorn"] == "yes" and r["age"] != ""
        and 30 <= float(r["age"]) <= 39 and r["vocab"] != "" and float(r["vocab"]) >= 8 for r in gss)}
    A["x3-05"] = argmax(Counter(r["year"] for r in gss))
    voc = mean_by(gss, "gender", "vocab")
    A["x3-06"] = "yes" if voc["male"] > voc["female"] else "no"

    # ---------------------------------------------------------------- storms
    sto = rows("storms.csv")
    b1, _, r2 = ols(col(sto, "wind"), col(sto, "pressure"))
    A["x3-07"] = {"slope": b1, "r_squared": r2}
    peak: dict = defaultdict(float)
    for r in sto:
        k = (r["name"], int(r["year"]))
        peak[k] = max(peak[k], float(r["wind"]))
    name, year = argmax(peak)
    A["x3-08"] = {"storm_name": name, "storm_year": year, "peak_wind": max(peak.values())}
    kat = [dt.datetime(int(r["year"]), int(r["month"]), int(r["day"]), int(float(r["hour"])))
           for r in sto if r["name"] == "Katrina" and r["year"] == "2005"]
    A["x3-09"] = {"duration_hours": (max(kat) - min(kat)).total_seconds() / 3600, "n_records": len(kat)}
    A["x3-10"] = len({(r["name"], r["year"]) for r in sto if r["status"] == "hurricane"})
    per_year = Counter(y for _, y in {(r["name"], r["year"]) for r in sto})
    A["x3-11"] = sorted(y for y, v in per_year.items() if v > 20)
    A["x3-12"] = pct(sum(r["tropicalstorm_force_diameter"] == "" for r in sto), len(sto))

    # ---------------------------------------------------------------- us_diseases
    dis = rows("us_diseases.csv")
    nopop = [r for r in dis if r["population"] == ""]
    A["x3-13"] = {"rows_missing_population": len(nopop), "states_affected": len({r["state"] for r in nopop})}
    rates = {}
    for r in dis:
        if r["disease"] == "Measles" and float(r["weeks_reporting"]) > 0 and r["population"] != "":
            rates[(r["state"], int(r["year"]))] = (float(r["count"]) * 52 / float(r["weeks_reporting"])
                                                   / float(r["population"]) * 1e5)
    st_, yr = argmax(rates)
    A["x3-14"] = {"state": st_, "year": yr, "rate": max(rates.values())}
    polio: Counter = Counter()
    for r in dis:
        if r["disease"] == "Polio":
            polio[r["state"]] += float(r["count"])
    A["x3-15"] = {"top_states": ", ".join(top(polio, 3))}
    mea: Counter = Counter()
    for r in dis:
        if r["disease"] == "Measles":
            mea[int(r["year"])] += float(r["count"])
    A["x3-16"] = {"peak_year": argmax(mea), "drop_pct": (1 - mea[1970] / mea[1962]) * 100}
    tot: Counter = Counter()
    for r in dis:
        tot[r["disease"]] += float(r["count"])
    A["x3-17"] = argmax(tot)
    A["x3-18"] = sum(float(r["weeks_reporting"]) == 0 for r in dis)

    # ---------------------------------------------------------------- student_survey
    sv = rows("student_survey.csv")
    hm = col(sv, "Height", lambda r: r["Sex"] == "Male")
    hf = col(sv, "Height", lambda r: r["Sex"] == "Female")
    t, p = welch(hm, hf)
    A["x3-19"] = {"t_stat": t, "significant": "yes" if p < 0.01 else "no"}
    pulse = col(sv, "Pulse")
    med = median(pulse)
    filled = [med if r["Pulse"] == "" else float(r["Pulse"]) for r in sv]
    A["x3-20"] = {"incomplete_rows": sum(any(v == "" for v in r.values()) for r in sv),
                  "mean_pulse_filled": st.fmean(filled)}
    ages = col(sv, "Age")
    q1, q3 = q_linear(ages, 0.25), q_linear(ages, 0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    A["x3-21"] = {"n_outliers": sum(a < lo or a > hi for a in ages), "upper_fence": hi}
    smk = [r["Smoke"] for r in sv if r["Smoke"] != ""]
    A["x3-22"] = pct(smk.count("Never"), len(smk))
    A["x3-23"] = argmax(mean_by(sv, "Smoke", "Pulse"))
    clap = Counter(r["Clap"] for r in sv if r["Clap"] != "")
    A["x3-24"] = top(clap, len(clap))

    # ---------------------------------------------------------------- airports
    ap = rows("airports.csv")
    A["x3-25"] = {"missing_city": sum(r["city"] == "" for r in ap), "missing_state": sum(r["state"] == "" for r in ap)}
    states = Counter(r["state"] for r in ap if r["state"] != "")
    A["x3-26"] = {"state": argmax(states), "n_airports": max(states.values())}
    A["x3-27"] = {"municipal": sum("municipal" in r["name"].lower() for r in ap),
                  "far_northwest": sum(float(r["latitude"]) > 60 and float(r["longitude"]) < -150 for r in ap)}
    lat = group(ap, "state", "latitude")
    big = {k: st.fmean(v) for k, v in lat.items() if len(v) >= 100}
    A["x3-28"] = {"southernmost_state": argmin(big), "mean_latitude": min(big.values())}
    A["x3-29"] = sorted(k for k, v in Counter(r["city"] for r in ap if r["city"] != "").items() if v >= 9)
    A["x3-30"] = "yes" if any(float(r["latitude"]) < 0 for r in ap) else "no"

    # ---------------------------------------------------------------- grunfeld
    gr = rows("grunfeld.csv")
    b1, _, r2 = ols(col(gr, "value"), col(gr, "invest"))
    A["x3-31"] = {"slope": b1, "r2": r2}
    inv = {(r["firm"], int(float(r["year"]))): float(r["invest"]) for r in gr}
    firms = sorted({fm for fm, _ in inv})
    growth = {fm: (inv[(fm, 1954)] / inv[(fm, 1935)] - 1) * 100 for fm in firms}
    A["x3-32"] = {"firm": argmax(growth), "growth_pct": max(growth.values())}
    F, p = anova(list(group(gr, "firm", "invest").values()))
    A["x3-33"] = {"f_statistic": F, "equal_means": "rejected" if p < 0.05 else "not rejected"}
    cap54 = {r["firm"]: float(r["capital"]) for r in gr if int(float(r["year"])) == 1954}
    A["x3-34"] = argmax(cap54)
    A["x3-35"] = sorted(k for k, v in mean_by(gr, "firm", "invest").items() if v > 100)
    years = sorted({y for _, y in inv})
    A["x3-36"] = "yes" if all(inv[("General Motors", y)] > inv[("US Steel", y)] for y in years) else "no"

    # ---------------------------------------------------------------- economics
    ec = sorted(rows("economics.csv"), key=lambda r: dt.date.fromisoformat(r["date"]))
    by_year = defaultdict(list)
    for r in ec:
        by_year[int(r["date"][:4])].append(float(r["psavert"]))
    full = {y: st.fmean(v) for y, v in by_year.items() if len(v) == 12}
    A["x3-37"] = {"year": argmax(full), "avg_psavert": max(full.values())}
    share = {r["date"]: float(r["unemploy"]) / float(r["pop"]) * 100 for r in ec}
    A["x3-38"] = {"month": argmax(share), "share": max(share.values())}
    jumps = {ec[i]["date"]: float(ec[i]["unemploy"]) - float(ec[i - 1]["unemploy"]) for i in range(1, len(ec))}
    A["x3-39"] = {"date_of_jump": argmax(jumps), "increase": max(jumps.values())}
    r, p = pearson(col(ec, "psavert"), col(ec, "uempmed"))
    A["x3-40"] = {"pearson_r": r, "direction": ("positive" if r > 0 else "negative") if p < 0.05 else "none"}
    A["x3-41"] = sum(float(r["psavert"]) < 3 for r in ec)
    une = {i: float(r["unemploy"]) for i, r in enumerate(ec)}
    A["x3-42"] = float(ec[argmax(une)]["uempmed"])

    # ---------------------------------------------------------------- reported_heights
    rh = rows("reported_heights.csv")
    nums = [as_number(r["height"]) for r in rh]
    A["x3-43"] = {"unparseable": sum(v is None for v in nums),
                  "plausible_inches": sum(v is not None and 50 <= v <= 84 for v in nums)}
    ok = defaultdict(list)
    for r, v in zip(rh, nums):
        if v is not None and 50 <= v <= 84:
            ok[r["sex"]].append(v)
    A["x3-44"] = {"gap_inches": st.fmean(ok["Male"]) - st.fmean(ok["Female"])}
    yc = Counter(dt.datetime.fromisoformat(r["time_stamp"]).year for r in rh)
    A["x3-45"] = {"busiest_year": argmax(yc), "pct_of_reports": pct(max(yc.values()), len(rh))}
    A["x3-46"] = sum(r["sex"] == "Female" for r in rh)
    A["x3-47"] = "yes" if median(ok["Male"]) > 69 else "no"
    A["x3-48"] = top(Counter(r["height"] for r in rh if r["height"] != ""), 3)
    return A


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
