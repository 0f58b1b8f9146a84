"""Second, independent computation of every reference answer of the seventh set.

The reference code uses pandas and scipy; here each answer is recomputed from the raw CSV
text with the csv module and plain Python (datetime for dates, statistics for medians),
with hand-written Pearson and Spearman correlations, least squares, paired and Welch t,
the Mann-Whitney U statistic with its tie-corrected normal approximation, a chi-square
test of independence, IQR fences and linear-interpolation quantiles; scipy is used only
to turn a statistic into a p-value. Every "which is largest/smallest" answer and every
top-k cut is checked for ties, and thresholds an answer depends on are checked not to be
hit exactly.

Run by hand:  python benchmarks/external7/crosscheck.py   (test_score.py also runs it.)
"""
from __future__ import annotations

import csv
import datetime as dt
import math
import re
import statistics as st
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(table: str) -> list[dict]:
    with open(HERE / "tables" / table, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def f(x: str) -> float | None:
    return None if x == "" else float(x)


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
    return sum(xs) / len(xs)


def var(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def pearson(xs, ys):
    mx, my = mean(xs), mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return sxy / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


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


def compute() -> dict:
    from scipy import stats as sps  # p-values only

    out = {}
    # ---------------------------------------------------------------- fastfood
    ff = rows("fastfood.csv")
    by = defaultdict(list)
    for r in ff:
        by[r["restaurant"]].append(r)
    cal = {k: mean([float(r["calories"]) for r in v]) for k, v in by.items()}
    sod = {k: mean([float(r["sodium"]) for r in v]) for k, v in by.items()}
    top = argmax(cal)
    out["x7-01"] = {"richest_chain": top, "richest_mean_calories": cal[top], "lowest_sodium_chain": argmax(sod, low=True)}
    a = [(float(r["sugar"]), float(r["total_carb"])) for r in ff if r["sugar"] and r["total_carb"]]
    b = [(float(r["fiber"]), float(r["total_carb"])) for r in ff if r["fiber"] and r["total_carb"]]
    out["x7-02"] = {"pearson_sugar_carb": pearson([x for x, _ in a], [y for _, y in a]),
                    "spearman_fiber_carb": pearson(ranks([x for x, _ in b]), ranks([y for _, y in b])),
                    "fiber_blank": sum(r["fiber"] == "" for r in ff)}
    sodium = [float(r["sodium"]) for r in ff]
    q1, q3 = quantile(sodium, 0.25), quantile(sodium, 0.75)
    hi = q3 + 1.5 * (q3 - q1)
    not_on(sodium, hi)
    assert abs(hi - round(hi)) < 0.49
    out["x7-03"] = {"upper_fence": round(hi), "high_outliers": sum(v > hi for v in sodium),
                    "saltiest_item": ff[argmax({i: v for i, v in enumerate(sodium)})]["item"]}
    tb = [float(r["calories"]) for r in by["Taco Bell"]]
    not_on(tb, 500)
    out["x7-04"] = 100 * sum(v > 500 for v in tb) / len(tb)
    prot = {k: mean([float(r["protein"]) for r in v if r["protein"]]) for k, v in by.items()}
    out["x7-05"] = topk(prot, 3)

    # ---------------------------------------------------------------- pbc_liver
    pb = rows("pbc_liver.csv")
    died = [float(r["bili"]) for r in pb if r["status"] == "2"]
    others = [float(r["bili"]) for r in pb if r["status"] != "2"]
    rk = ranks(died + others)
    n1, n2 = len(died), len(others)
    u1 = sum(rk[:n1]) - n1 * (n1 + 1) / 2
    cnt = Counter(died + others)
    n = n1 + n2
    tie = sum(c ** 3 - c for c in cnt.values())
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie / (n * (n - 1))))
    z = (abs(u1 - n1 * n2 / 2) - 0.5) / sd
    p = 2 * sps.norm.sf(z)
    out["x7-06"] = {"u_statistic": u1, "median_bili_died": st.median(died), "median_bili_others": st.median(others),
                    "decision": "reject" if p < 0.01 else "retain"}
    trial = [r for r in pb if r["trt"] != ""]
    blanks = Counter({c: sum(r[c] == "" for r in pb) for c in pb[0]})
    out["x7-07"] = {"no_trt": len(pb) - len(trial),
                    "trial_incomplete": sum(any(r[c] == "" for c in ("chol", "copper", "trig", "platelet")) for r in trial),
                    "most_blank_column": argmax(dict(blanks))}
    levels = sorted({float(r["edema"]) for r in pb})
    assert levels == [0.0, 0.5, 1.0]
    tab = [[sum(1 for r in pb if float(r["edema"]) == e and (r["status"] == "2") == d) for d in (False, True)]
           for e in levels]
    rs, cs = [sum(x) for x in tab], [sum(tab[i][j] for i in range(3)) for j in range(2)]
    chi = sum((tab[i][j] - rs[i] * cs[j] / n) ** 2 / (rs[i] * cs[j] / n) for i in range(3) for j in range(2))
    pchi = sps.chi2.sf(chi, 2)
    out["x7-08"] = {"chi_square": chi, "dof": 2, "pct_died_edema1": 100 * tab[2][1] / rs[2],
                    "associated": "yes" if pchi < 0.05 else "no"}
    out["x7-09"] = n1
    share = {s: mean([r["status"] == "2" for r in pb if r["sex"] == s]) for s in ("m", "f")}
    assert share["m"] != share["f"]
    out["x7-10"] = "yes" if share["m"] > share["f"] else "no"

    # ---------------------------------------------------------------- galton_families
    ga = rows("galton_families.csv")
    x = [float(r["midparentHeight"]) for r in ga]
    y = [float(r["childHeight"]) for r in ga]
    mx, my = mean(x), mean(y)
    slope = sum((a_ - mx) * (b_ - my) for a_, b_ in zip(x, y)) / sum((a_ - mx) ** 2 for a_ in x)
    icpt = my - slope * mx
    out["x7-11"] = {"slope": slope, "intercept": icpt, "r_squared": pearson(x, y) ** 2}
    fams = Counter(r["family"] for r in ga)
    out["x7-12"] = {"n_families": len(fams), "lettered_ids": sum(1 for k in fams if k[-1].isalpha()),
                    "largest_family": argmax(dict(fams))}
    sons = [r for r in ga if r["gender"] == "male"]
    d = [float(r["childHeight"]) - float(r["father"]) for r in sons]
    t = mean(d) / math.sqrt(var(d) / len(d))
    pp = 2 * sps.t.sf(abs(t), len(d) - 1)
    out["x7-13"] = {"mean_diff": mean(d), "t_stat": t, "n_pairs": len(d),
                    "sons_taller": "yes" if mean(d) > 0 and pp < 0.05 else "no"}
    out["x7-14"] = mean([float(r["childHeight"]) for r in ga if r["gender"] == "female"])
    size = {}
    for r in ga:
        size.setdefault(r["family"], int(r["children"]))
        assert size[r["family"]] == int(r["children"])
    out["x7-15"] = sum(v > 8 for v in size.values())

    # ---------------------------------------------------------------- ucla_textbooks
    bk = rows("ucla_textbooks.csv")
    cn = [r["course_num"] for r in bk if r["course_num"] != ""]
    assert len(cn) == len(bk) - 1
    out["x7-16"] = {"starts_with_m": sum(c.startswith("M") for c in cn),
                    "ends_with_letter": sum(c[-1].isalpha() for c in cn),
                    "busiest_subject": argmax(dict(Counter(r["subject"] for r in bk if r["subject"])))}
    both = [(float(r["bookstore_new"]), float(r["amazon_new"])) for r in bk if r["bookstore_new"] and r["amazon_new"]]
    sv = [a_ - b_ for a_, b_ in both]
    out["x7-17"] = {"n_both": len(both), "mean_saving": mean(sv), "pct_amazon_cheaper": 100 * sum(v > 0 for v in sv) / len(sv)}
    price = [float(r["bookstore_new"]) for r in bk if r["bookstore_new"]]
    not_on(price, 100)
    out["x7-18"] = {"median_price": st.median(price), "p90_price": quantile(price, 0.9),
                    "over_100": sum(v > 100 for v in price)}
    out["x7-19"] = sum(r["textbook_isbn"] == "" for r in bk)
    rows_by = Counter(r["subject"] for r in bk)
    pr = defaultdict(list)
    for r in bk:
        if r["bookstore_new"]:
            pr[r["subject"]].append(float(r["bookstore_new"]))
    cand = {k: mean(v) for k, v in pr.items() if rows_by[k] >= 5}
    out["x7-20"] = argmax(cand)

    # ---------------------------------------------------------------- fuel_economy_2021
    ep = rows("fuel_economy_2021.csv")
    dates = [dt.datetime.fromisoformat(r["release_date"].replace("Z", "+00:00")) for r in ep]
    months = Counter(d_.strftime("%Y-%m") for d_ in dates)
    bm = argmax(dict(months))
    cut = dt.datetime(2020, 9, 1, tzinfo=dt.timezone.utc)
    out["x7-21"] = {"busiest_month": bm, "busiest_month_models": months[bm], "before_sept_2020": sum(d_ < cut for d_ in dates)}
    dm = defaultdict(list)
    for r in ep:
        dm[r["drive_desc"]].append(float(r["comb_mpg"]))
    dmm = {k: mean(v) for k, v in dm.items()}
    bd = argmax(dmm)
    gz = [r for r in ep if r["guzzler"] == "Y"]
    out["x7-22"] = {"best_drive": bd, "best_drive_mpg": dmm[bd], "guzzlers": len(gz),
                    "guzzler_maker": argmax(dict(Counter(r["mfr_name"] for r in gz)))}
    r1 = pearson([float(r["engine_displacement"]) for r in ep], [float(r["comb_mpg"]) for r in ep])
    r2 = pearson(ranks([float(r["no_cylinders"]) for r in ep]), ranks([float(r["hwy_mpg"]) for r in ep]))
    out["x7-23"] = {"pearson_disp_mpg": r1, "spearman_cyl_hwy": r2,
                    "both_below_minus_half": "yes" if r1 < -0.5 and r2 < -0.5 else "no"}
    out["x7-24"] = sum(r["car_truck"] not in ("", "car") for r in ep)
    hw = defaultdict(list)
    for r in ep:
        hw[r["air_aspir_method_desc"]].append(float(r["hwy_mpg"]))
    mt, mn = st.median(hw["Turbocharged"]), st.median(hw["Naturally Aspirated"])
    assert mt != mn
    out["x7-25"] = "yes" if mt > mn else "no"

    # ---------------------------------------------------------------- oscar_winners
    osc = rows("oscar_winners.csv")
    bd_ = [dt.date.fromisoformat(r["birth_date"]) for r in osc]
    out["x7-26"] = {"top_birth_month": argmax(dict(Counter(d_.month for d_ in bd_))),
                    "weekend_births": sum(d_.weekday() >= 5 for d_ in bd_),
                    "earliest_born": osc[argmax({i: d_.toordinal() for i, d_ in enumerate(bd_)}, low=True)]["name"]}
    fa = [float(r["age"]) for r in osc if r["award"] == "Best actress"]
    ma = [float(r["age"]) for r in osc if r["award"] == "Best actor"]
    tw, dfw = welch(fa, ma)
    out["x7-27"] = {"mean_age_actress": mean(fa), "mean_age_actor": mean(ma), "welch_t": tw,
                    "verdict": "reject" if 2 * sps.t.sf(abs(tw), dfw) < 0.05 else "retain"}
    names = Counter(r["name"] for r in osc)
    bp = Counter(r["birth_pl"] for r in osc)
    out["x7-28"] = {"repeat_winners": sum(v >= 2 for v in names.values()), "most_awards": argmax(dict(names)),
                    "top_birthplaces": "; ".join(topk(dict(bp), 3))}
    out["x7-29"] = bp["England"]
    out["x7-30"] = sorted(k for k, v in bp.items() if v >= 5)
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
