"""Second, independent computation of every reference answer of the sixth set.

The reference code uses pandas and scipy; here each answer is recomputed from the raw CSV
text with the csv module and plain Python (datetime for dates, statistics for medians),
with hand-written Pearson and Spearman correlations, least squares, Welch and Student t,
one-way ANOVA, chi-square with Yates' correction, IQR fences and sample skewness; scipy is
used only to turn a statistic into a p-value. Every "which is largest/smallest" answer
and every top-k cut is checked for ties, and thresholds an answer depends on are checked
not to be hit exactly.

Run by hand:  python benchmarks/external6b/crosscheck.py   (test_score.py also runs it.)
"""
from __future__ import annotations

import csv
import datetime as dt
import math
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


def compute() -> dict:
    from scipy import stats as sps  # p-values only

    out = {}
    # ---------------------------------------------------------------- cia_factbook
    cia = rows("cia_factbook.csv")
    numcols = [c for c in cia[0] if c != "country"]
    miss = Counter({c: sum(r[c] == "" for r in cia) for c in numcols})
    out["x6-01"] = {"no_population": miss["population"],
                    "complete_rows": sum(all(r[c] != "" for c in numcols) for r in cia),
                    "most_missing": argmax(dict(miss))}
    big = [r for r in cia if r["area"] != "" and float(r["area"]) >= 10000]
    dens = {r["country"]: float(r["population"]) / float(r["area"]) for r in big if r["population"]}
    net = {r["country"]: 100 * float(r["internet_users"]) / float(r["population"])
           for r in big if r["population"] and r["internet_users"]}
    top = argmax(dens)
    out["x6-02"] = {"densest_country": top, "density": dens[top], "most_online": argmax(net)}
    a = [(float(r["birth_rate"]), float(r["life_exp_at_birth"])) for r in cia if r["birth_rate"] and r["life_exp_at_birth"]]
    b = [(float(r["infant_mortality_rate"]), float(r["life_exp_at_birth"]))
         for r in cia if r["infant_mortality_rate"] and r["life_exp_at_birth"]]
    rr = pearson([x for x, _ in a], [y for _, y in a])
    rho = pearson(ranks([x for x, _ in b]), ranks([y for _, y in b]))
    out["x6-03"] = {"pearson_birth_life": rr, "spearman_infant_life": rho,
                    "both_negative": "yes" if rr < 0 and rho < 0 else "no"}
    neg = [r for r in cia if r["population_growth_rate"] and float(r["population_growth_rate"]) < 0]
    out["x6-04"] = len(neg)
    out["x6-05"] = argmax({r["country"]: float(r["population"]) for r in neg if r["population"]})

    # ---------------------------------------------------------------- cholera_1849
    ch = rows("cholera_1849.csv")
    chol = [r for r in ch if r["cause_of_death"] == "Cholera"]
    for r in ch:
        r["d"] = dt.date.fromisoformat(r["date"])
    per_month = defaultdict(int)
    for r in chol:
        per_month[r["d"].month] += int(r["deaths"])
    pm = argmax(per_month)
    worst = argmax({r["date"]: int(r["deaths"]) for r in chol})
    out["x6-06"] = {"peak_month": pm, "peak_month_deaths": per_month[pm], "worst_day": worst}
    total = sum(int(r["deaths"]) for r in ch)
    wd = defaultdict(int)
    for r in ch:
        if r["cause_of_death"] == "Diarrhaea":
            wd[r["d"].strftime("%a")] += int(r["deaths"])
    assert all(r["day_of_week"] == r["d"].strftime("%a") for r in ch)
    out["x6-07"] = {"cholera_pct": 100 * sum(int(r["deaths"]) for r in chol) / total, "diarrhoea_weekday": argmax(wd)}
    h1 = [int(r["deaths"]) for r in chol if r["d"].month <= 6]
    h2 = [int(r["deaths"]) for r in chol if r["d"].month >= 7]
    se = math.sqrt(var(h1) / len(h1) + var(h2) / len(h2))
    t = (mean(h1) - mean(h2)) / se
    dfw = se ** 4 / ((var(h1) / len(h1)) ** 2 / (len(h1) - 1) + (var(h2) / len(h2)) ** 2 / (len(h2) - 1))
    p = 2 * sps.t.sf(abs(t), dfw)
    out["x6-08"] = {"mean_first_half": mean(h1), "mean_second_half": mean(h2), "t_statistic": t,
                    "verdict": "reject" if p < 0.05 else "retain"}
    not_on([int(r["deaths"]) for r in chol], 400)
    over = sorted(r["d"] for r in chol if int(r["deaths"]) > 400)
    out["x6-09"] = len(over)
    out["x6-10"] = over[0].isoformat()

    # ---------------------------------------------------------------- nba_players_2019
    nba = rows("nba_players_2019.csv")
    by_pos = defaultdict(list)
    for r in nba:
        by_pos[r["position"]].append(int(r["height"]))
    pos_mean = {k: mean(v) for k, v in by_pos.items()}
    tp = argmax(pos_mean)
    out["x6-11"] = {"tallest_position": tp, "tallest_mean_height": pos_mean[tp],
                    "shortest_position": argmax(pos_mean, low=True)}
    ln = Counter(r["last_name"] for r in nba if r["last_name"] != "")
    out["x6-12"] = {"shared_surnames": sum(1 for v in ln.values() if v >= 2), "commonest_surname": argmax(dict(ln)),
                    "hyphenated": sum(v for k, v in ln.items() if "-" in k)}
    groups = [by_pos["Guard"], by_pos["Forward"], by_pos["Center"]]
    allv = [x for g in groups for x in g]
    gm = mean(allv)
    ssb = sum(len(g) * (mean(g) - gm) ** 2 for g in groups)
    ssw = sum(sum((x - mean(g)) ** 2 for x in g) for g in groups)
    dfw_ = len(allv) - 3
    fstat = (ssb / 2) / (ssw / dfw_)
    assert abs(fstat - round(fstat)) < 0.45
    out["x6-13"] = {"f_stat": round(fstat), "df_within": dfw_, "differ": "yes" if sps.f.sf(fstat, 2, dfw_) < 0.001 else "no"}
    by_team = defaultdict(list)
    for r in nba:
        by_team[r["team"]].append(int(r["height"]))
    tm = {k: mean(v) for k, v in by_team.items()}
    out["x6-14"] = topk(tm, 3)
    out["x6-15"] = argmax(tm, low=True)

    # ---------------------------------------------------------------- ca_schools
    sc = rows("ca_schools.csv")
    ratio = {i: float(r["students"]) / float(r["teachers"]) for i, r in enumerate(sc)}
    i = argmax(ratio)
    assert all(abs(v - 19) > 0.005 for v in ratio.values())
    out["x6-16"] = {"highest_ratio_school": sc[i]["school"], "highest_ratio": ratio[i],
                    "below_19": sum(v < 19 for v in ratio.values())}
    x = [float(r["income"]) for r in sc]
    y = [float(r["math"]) for r in sc]
    mx, my = mean(x), mean(y)
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
    icpt = my - slope * mx
    res = sum((b - icpt - slope * a) ** 2 for a, b in zip(x, y))
    out["x6-17"] = {"slope": slope, "intercept": icpt, "r_squared": 1 - res / sum((b - my) ** 2 for b in y)}
    g6 = [float(r["read"]) for r in sc if r["grades"] == "KK-06"]
    g8 = [float(r["read"]) for r in sc if r["grades"] == "KK-08"]
    n1, n2 = len(g6), len(g8)
    sp = ((n1 - 1) * var(g6) + (n2 - 1) * var(g8)) / (n1 + n2 - 2)
    tt = (mean(g6) - mean(g8)) / math.sqrt(sp * (1 / n1 + 1 / n2))
    out["x6-18"] = {"mean_read_kk06": mean(g6), "t_value": tt,
                    "significant": "yes" if 2 * sps.t.sf(abs(tt), n1 + n2 - 2) < 0.05 else "no"}
    out["x6-19"] = argmax(dict(Counter(r["county"] for r in sc)))
    avg = [(float(r["read"]) + float(r["math"])) / 2 for r in sc]
    not_on(avg, 660)
    out["x6-20"] = 100 * sum(v > 660 for v in avg) / len(avg)

    # ---------------------------------------------------------------- mgus2
    mg = rows("mgus2.csv")
    out["x6-21"] = {"incomplete_labs": sum(any(r[c] == "" for c in ("hgb", "creat", "mspike")) for r in mg),
                    "median_hgb_m": st.median([float(r["hgb"]) for r in mg if r["sex"] == "M" and r["hgb"]]),
                    "median_hgb_f": st.median([float(r["hgb"]) for r in mg if r["sex"] == "F" and r["hgb"]])}
    died = {s: 100 * mean([int(r["death"]) for r in mg if r["sex"] == s]) for s in ("M", "F")}
    out["x6-22"] = {"pct_died_men": died["M"], "pct_died_women": died["F"], "higher_sex": argmax(died)}
    tab = Counter((r["sex"], r["pstat"]) for r in mg)
    cells = [[tab[(s, p)] for p in ("0", "1")] for s in ("F", "M")]
    n = sum(map(sum, cells))
    chi = 0.0
    for i_ in range(2):
        for j in range(2):
            e = sum(cells[i_]) * (cells[0][j] + cells[1][j]) / n
            chi += (max(abs(cells[i_][j] - e) - 0.5, 0)) ** 2 / e
    pch = sps.chi2.sf(chi, 1)
    out["x6-23"] = {"progressed": cells[0][1] + cells[1][1], "chi_square": chi, "p_value": pch,
                    "associated": "yes" if pch < 0.05 else "no"}
    prog = [r for r in mg if r["pstat"] == "1"]
    out["x6-24"] = st.median([int(r["age"]) for r in prog])
    out["x6-25"] = sum(int(r["dxyr"]) < 1970 for r in prog)

    # ---------------------------------------------------------------- census_2000
    ce = rows("census_2000.csv")
    inc = defaultdict(list)
    for r in ce:
        if r["total_personal_income"] != "":
            inc[r["sex"]].append(float(r["total_personal_income"]))
    for s in inc:
        assert abs(mean(inc[s]) - round(mean(inc[s]))) < 0.49
    out["x6-26"] = {"missing_personal_income": sum(r["total_personal_income"] == "" for r in ce),
                    "mean_income_male": round(mean(inc["Male"])), "mean_income_female": round(mean(inc["Female"]))}
    states = Counter(r["state_fips_code"] for r in ce)
    out["x6-27"] = {"top_four": "; ".join(topk(dict(states), 4)), "n_states": len(states)}
    fam = [float(r["total_family_income"]) for r in ce if r["total_family_income"] != ""]
    q1, q3 = quantile(fam, 0.25), quantile(fam, 0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    not_on(fam, lo)
    not_on(fam, hi)
    nn = len(fam)
    m = mean(fam)
    m2 = sum((v - m) ** 2 for v in fam) / nn
    m3 = sum((v - m) ** 3 for v in fam) / nn
    g1 = m3 / m2 ** 1.5
    out["x6-28"] = {"q1": round(q1), "q3": round(q3), "n_outliers": sum(v < lo or v > hi for v in fam),
                    "skewness": g1 * math.sqrt(nn * (nn - 1)) / (nn - 2)}
    ms = Counter(r["marital_status"] for r in ce)
    not_on(ms.values(), 30)
    out["x6-29"] = sorted(k for k, v in ms.items() if v > 30)
    ages = {s: st.median([int(r["age"]) for r in ce if r["sex"] == s]) for s in ("Male", "Female")}
    assert ages["Male"] != ages["Female"]
    out["x6-30"] = "yes" if ages["Female"] > ages["Male"] else "no"
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
