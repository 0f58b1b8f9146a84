"""Second, independent computation of every reference answer of the tenth set.

The reference code uses pandas and scipy; here each answer is recomputed from the raw CSV
text with the csv module and plain Python (datetime for dates, statistics for medians),
with hand-written average ranks, the Mann-Whitney U, Kruskal-Wallis H and Wilcoxon
signed-rank statistics (with their tie corrections), Spearman's rho, Pearson's r, least
squares, a one-way ANOVA F, a chi-square test of independence, IQR fences and
linear-interpolation quantiles; scipy is used only to turn a statistic into a p-value.
Every "which is largest/smallest" answer and every top-k cut or ranking is checked for
ties, and thresholds an answer depends on are checked not to be hit exactly (where a
question states an inclusive cut, the values on it are counted as it says).

Run by hand:  python benchmarks/external10/crosscheck.py   (test_score.py also runs it.)
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
    if len({v for _, v in items[:k]}) < k or (len(items) > k and items[k - 1][1] == items[k][1]):
        raise AssertionError(f"tie at the top-{k} cut: {items[:k + 1]}")
    return [key for key, _ in items[:k]]


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


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


def ranks(xs):
    """Average ranks (1-based) of xs, and the tie sizes."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    ties = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        ties.append(j - i + 1)
        i = j + 1
    return r, ties


def spearman(xs, ys):
    return pearson(ranks(xs)[0], ranks(ys)[0])


def mann_whitney(a, b):
    """U of the first sample, and the two-sided normal-approximation p-value with the tie
    and continuity corrections (what scipy's default gives for samples this large with ties)."""
    from scipy import stats as sps

    r, ties = ranks(list(a) + list(b))
    n1, n2 = len(a), len(b)
    n = n1 + n2
    u = sum(r[:n1]) - n1 * (n1 + 1) / 2
    mu = n1 * n2 / 2
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - sum(t ** 3 - t for t in ties) / (n * (n - 1))))
    z = (abs(u - mu) - 0.5) / sd
    return u, 2 * sps.norm.sf(z)


def kruskal(groups):
    from scipy import stats as sps

    pooled = [x for g in groups for x in g]
    r, ties = ranks(pooled)
    n = len(pooled)
    h, i = 0.0, 0
    for g in groups:
        rs = r[i:i + len(g)]
        i += len(g)
        h += sum(rs) ** 2 / len(g)
    h = 12 / (n * (n + 1)) * h - 3 * (n + 1)
    h /= 1 - sum(t ** 3 - t for t in ties) / (n ** 3 - n)
    return h, sps.chi2.sf(h, len(groups) - 1)


def wilcoxon_signed_rank(xs, ys):
    """min(W+, W-) over the non-zero differences and the normal-approximation p-value with the
    tie correction."""
    from scipy import stats as sps

    d = [x - y for x, y in zip(xs, ys) if x != y]
    r, ties = ranks([abs(v) for v in d])
    wp = sum(rk for rk, v in zip(r, d) if v > 0)
    wm = sum(rk for rk, v in zip(r, d) if v < 0)
    n = len(d)
    w = min(wp, wm)
    var = n * (n + 1) * (2 * n + 1) / 24 - sum(t ** 3 - t for t in ties) / 48
    z = (w - n * (n + 1) / 4) / math.sqrt(var)
    return w, 2 * sps.norm.sf(abs(z))


def anova_f(groups):
    from scipy import stats as sps

    allv = [x for g in groups for x in g]
    gm = mean(allv)
    ssb = sum(len(g) * (mean(g) - gm) ** 2 for g in groups)
    ssw = sum(sum((x - mean(g)) ** 2 for x in g) for g in groups)
    dfb, dfw = len(groups) - 1, len(allv) - len(groups)
    f = (ssb / dfb) / (ssw / dfw)
    return f, sps.f.sf(f, dfb, dfw)


def chi2_independence(obs):
    """Pearson's chi-square statistic (no continuity correction) and its degrees of freedom."""
    n = sum(map(sum, obs))
    rs = [sum(row) for row in obs]
    cs = [sum(row[j] for row in obs) for j in range(len(obs[0]))]
    chi = sum((obs[i][j] - rs[i] * cs[j] / n) ** 2 / (rs[i] * cs[j] / n)
              for i in range(len(obs)) for j in range(len(cs)))
    return chi, (len(obs) - 1) * (len(cs) - 1)


def num(s: str) -> float | None:
    return None if s.strip() == "" else float(s)


def compute() -> dict:
    from scipy import stats as sps  # p-values only

    out = {}
    # ---------------------------------------------------------------- ncaa_basketball_rpi
    nc = rows("ncaa_basketball_rpi.csv")
    conf = defaultdict(list)
    wins = defaultdict(int)
    for r in nc:
        conf[r["conference"]].append(float(r["winperc"]))
        wins[r["team"]] += int(r["wins"])
    conf_mean = {k: mean(v) for k, v in conf.items()}
    out["x10-01"] = {"best_conference": argmax(conf_mean), "worst_conference": argmax(conf_mean, low=True),
                     "most_wins_top3": " / ".join(topk(dict(wins), 3))}
    a = [float(r["prerpi"]) for r in nc if r["tourney"] == "1"]
    b = [float(r["prerpi"]) for r in nc if r["tourney"] == "0"]
    assert len(a) + len(b) == len(nc)
    u, p = mann_whitney(a, b)
    out["x10-02"] = {"u_statistic": u, "median_prerpi_tourney": st.median(a), "median_prerpi_others": st.median(b),
                     "shift_significant": "yes" if p < 0.01 else "no"}
    bids = Counter()
    for r in nc:
        first, second = r["year"].split("-")
        assert int(second) == int(first) + 1
        bids[int(first)] += int(r["tourney"])
    s15 = {r["team"]: int(r["postrpi"]) for r in nc if r["year"].startswith("2015-")}
    out["x10-03"] = {"fewest_bids_start_year": argmax(dict(bids), low=True), "top_team_2015": argmax(s15, low=True),
                     "rank_agreement_rho": spearman([float(r["prerpi"]) for r in nc], [float(r["postrpi"]) for r in nc])}
    made = Counter(r["team"] for r in nc if r["tourney"] == "1")
    always = {t for t, c in made.items() if c == 4}
    out["x10-04"] = len(always)
    team_conf = {}
    for r in nc:
        assert team_conf.setdefault(r["team"], r["conference"]) == r["conference"], "one conference per team"
    out["x10-05"] = argmax(dict(Counter(team_conf[t] for t in always)))

    # ---------------------------------------------------------------- liver_transplant_waitlist
    wl = rows("liver_transplant_waitlist.csv")
    ltx = defaultdict(list)
    for r in wl:
        if r["event"] == "ltx":
            ltx[r["abo"]].append(int(r["futime"]))
    assert sorted(ltx) == ["A", "AB", "B", "O"]
    h, p = kruskal([ltx[k] for k in sorted(ltx)])
    med = {k: st.median(v) for k, v in ltx.items()}
    slow = argmax(med)
    out["x10-06"] = {"kruskal_h": h, "longest_median_wait_group": slow, "that_group_median_days": med[slow],
                     "groups_differ": "yes" if p < 0.001 else "no"}
    blank = [r for r in wl if r["age"] == ""]
    early = [r for r in wl if 1990 <= int(r["year"]) <= 1994]
    out["x10-07"] = {"age_blank": len(blank), "blank_age_all_ltx": "yes" if all(r["event"] == "ltx" for r in blank) else "no",
                     "peak_listing_year": int(argmax(dict(Counter(r["year"] for r in wl)))),
                     "died_waiting_pct_1990_1994": 100 * sum(r["event"] == "death" for r in early) / len(early)}
    fut = [int(r["futime"]) for r in wl]
    q1, q3 = quantile(fut, 0.25), quantile(fut, 0.75)
    fence = q3 + 1.5 * (q3 - q1)
    not_on(fut, fence)
    longest = argmax({i: v for i, v in enumerate(fut)})
    out["x10-08"] = {"upper_fence_days": fence, "stays_beyond_fence": sum(v > fence for v in fut),
                     "longest_stay_years": fut[longest] / 365.25, "longest_stay_outcome": wl[longest]["event"]}
    share = {g: 100 * sum(r["event"] == "ltx" for r in wl if r["abo"] == g) / sum(r["abo"] == g for r in wl)
             for g in ("A", "O")}
    out["x10-09"] = share["O"]
    assert share["O"] != share["A"]
    out["x10-10"] = "yes" if share["O"] < share["A"] else "no"

    # ---------------------------------------------------------------- swiss_nox_2004
    nx = rows("swiss_nox_2004.csv")
    sites = [c for c in nx[0] if c != "date"]
    assert len(sites) == 13 and len({r["date"] for r in nx}) == len(nx) == 366
    by_month, by_day, by_date = defaultdict(list), defaultdict(list), {}
    for r in nx:
        d = dt.date.fromisoformat(r["date"])
        vals = [float(r[s]) for s in sites if r[s] != ""]
        by_month[MONTHS[d.month]] += vals
        by_day[DAYS[d.weekday()]] += vals
        by_date[r["date"]] = mean(vals)
    out["x10-11"] = {"dirtiest_month": argmax({k: mean(v) for k, v in by_month.items()}),
                     "cleanest_weekday": argmax({k: mean(v) for k, v in by_day.items()}, low=True),
                     "worst_day": argmax(by_date)}
    gaps = {s: sum(r[s] == "" for r in nx) for s in sites}
    ef = [float(r["ef"]) for r in nx if r["ef"] != ""]
    q1, q3 = quantile(ef, 0.25), quantile(ef, 0.75)
    fence = q3 + 1.5 * (q3 - q1)
    not_on(ef, fence)
    out["x10-12"] = {"most_gaps_site": argmax(gaps), "all_sites_days": sum(all(r[s] != "" for s in sites) for r in nx),
                     "ef_fence_ppb": fence, "ef_days_above": sum(v > fence for v in ef)}
    both = [(float(r["lu"]), float(r["se"])) for r in nx if r["lu"] != "" and r["se"] != ""]
    w, p = wilcoxon_signed_rank([x for x, _ in both], [y for _, y in both])
    out["x10-13"] = {"shared_days": len(both), "wilcoxon_w": w, "lu_se_pearson": pearson([x for x, _ in both], [y for _, y in both]),
                     "null_hypothesis": "reject" if p < 0.05 else "retain"}
    site_mean = {s: mean(float(r[s]) for r in nx if r[s] != "") for s in sites}
    not_on(site_mean.values(), 40)
    out["x10-14"] = sorted(s for s, v in site_mean.items() if v > 40)
    allv = [float(r[s]) for r in nx for s in sites if r[s] != ""]
    not_on(allv, 100)
    out["x10-15"] = sum(any(r[s] != "" and float(r[s]) > 100 for s in sites) for r in nx)

    # ---------------------------------------------------------------- ess9_great_britain
    es = rows("ess9_great_britain.csv")
    starts = [dt.date.fromisoformat(r["stintrvw"]) for r in es]
    ends = [dt.date.fromisoformat(r["endintrvw"]) if r["endintrvw"] else None for r in es]
    out["x10-16"] = {"no_end_date": sum(e is None for e in ends),
                     "ends_before_start": sum(1 for s, e in zip(starts, ends) if e is not None and e < s),
                     "busiest_start_month": argmax(dict(Counter(MONTHS[s.month] for s in starts))),
                     "final_start_date": max(starts).isoformat()}
    sent = defaultdict(list)
    for r in es:
        if r["immigsent"] != "":
            sent[r["region"]].append(float(r["immigsent"]))
    assert len(sent) == 12
    f, p = anova_f(list(sent.values()))
    reg_mean = {k: mean(v) for k, v in sent.items()}
    out["x10-17"] = {"f_statistic": f, "most_favourable_region": argmax(reg_mean),
                     "least_favourable_region": argmax(reg_mean, low=True), "regions_differ": "yes" if p < 0.01 else "no"}
    const = [c for c in es[0] if len({r[c] for r in es}) == 1]
    pairs = [(float(r["lrscale"]), float(r["immigsent"])) for r in es if r["lrscale"] != "" and r["immigsent"] != ""]
    out["x10-18"] = {"constant_columns": ", ".join(const), "rho_lr_immig": spearman([x for x, _ in pairs], [y for _, y in pairs]),
                     "income_missing_pct": 100 * sum(r["hinctnta"] == "" for r in es) / len(es)}
    out["x10-19"] = mean(float(r["agea"]) for r in es if r["region"] == "Wales" and r["agea"] != "")
    ages = defaultdict(list)
    for r in es:
        if r["agea"] != "":
            ages[r["region"]].append(float(r["agea"]))
    age_mean = {k: mean(v) for k, v in ages.items()}
    assert all(v != age_mean["Wales"] for k, v in age_mean.items() if k != "Wales")
    out["x10-20"] = "yes" if any(v > age_mean["Wales"] for k, v in age_mean.items() if k != "Wales") else "no"

    # ---------------------------------------------------------------- us_state_production
    pr = rows("us_state_production.csv")
    gsp = {(r["state"], int(r["year"])): float(r["gsp"]) for r in pr}
    states = sorted({r["state"] for r in pr})
    assert len(states) == 48 and len(gsp) == len(pr) == 48 * 17
    growth = {s: 100 * (gsp[(s, 1986)] / gsp[(s, 1970)] - 1) for s in states}
    not_on(growth.values(), 100)
    fast = argmax(growth)
    out["x10-21"] = {"fastest_state": fast, "fastest_growth_pct": growth[fast], "slowest_state": argmax(growth, low=True),
                     "states_doubled": sum(v > 100 for v in growth.values())}
    lx = [math.log(float(r["pc"])) for r in pr]
    ly = [math.log(float(r["gsp"])) for r in pr]
    slope, icpt = ols(lx, ly)
    out["x10-22"] = {"capital_elasticity": slope, "log_intercept": icpt, "fit_r_squared": pearson(lx, ly) ** 2}
    un_year = defaultdict(list)
    for r in pr:
        un_year[int(r["year"])].append(float(r["unemp"]))
    peak = argmax({i: float(r["unemp"]) for i, r in enumerate(pr)})
    out["x10-23"] = {"worst_year": argmax({y: mean(v) for y, v in un_year.items()}), "peak_state": pr[peak]["state"],
                     "peak_year": int(pr[peak]["year"]),
                     "double_digit_state_years": sum(float(r["unemp"]) >= 10.0 for r in pr)}
    y86 = {r["state"]: r for r in pr if r["year"] == "1986"}
    best = argmax({s: float(r["gsp"]) / float(r["emp"]) for s, r in y86.items()})
    out["x10-24"] = best
    avg86 = mean(float(r["unemp"]) for r in y86.values())
    assert float(y86[best]["unemp"]) != avg86
    out["x10-25"] = "yes" if float(y86[best]["unemp"]) > avg86 else "no"

    # ---------------------------------------------------------------- travel_mode_choice
    tr = rows("travel_mode_choice.csv")
    per = defaultdict(list)
    for r in tr:
        per[r["individual"]].append(r)
    chosen = [r for r in tr if r["choice"] == "yes"]
    layout = all(len(v) == 4 and sorted(x["mode"] for x in v) == ["air", "bus", "car", "train"]
                 and sum(x["choice"] == "yes" for x in v) == 1 for v in per.values())
    modes = Counter(r["mode"] for r in chosen)
    out["x10-26"] = {"layout_ok": "yes" if layout else "no", "most_taken_mode": argmax(dict(modes)),
                     "flew_pct": 100 * modes["air"] / len(chosen),
                     "train_income_mean": mean(float(r["income"]) for r in chosen if r["mode"] == "train")}
    mode_list = sorted(modes)
    party = [[sum(1 for r in chosen if (int(r["size"]) > 1) == grp and r["mode"] == m) for m in mode_list]
             for grp in (False, True)]
    chi, dof = chi2_independence(party)
    out["x10-27"] = {"chi_square": chi, "degrees_of_freedom": dof,
                     "dependent_at_1pct": "yes" if sps.chi2.sf(chi, dof) < 0.01 else "no",
                     "parties_favourite_mode": argmax(dict(zip(mode_list, party[1])))}
    air = [r for r in tr if r["mode"] == "air"]
    inc = [float(r["income"]) for r in air]
    flew = [1.0 if r["choice"] == "yes" else 0.0 for r in air]
    r_air = pearson(inc, flew)
    t = r_air * math.sqrt((len(inc) - 2) / (1 - r_air ** 2))
    car = [r for r in tr if r["mode"] == "car"]
    slope, icpt = ols([float(r["travel"]) for r in car], [float(r["gcost"]) for r in car])
    out["x10-28"] = {"income_air_r": r_air, "income_effect_significant": "yes" if 2 * sps.t.sf(abs(t), len(inc) - 2) < 0.01 else "no",
                     "car_cost_per_minute": slope, "car_fit_intercept": icpt}
    out["x10-29"] = topk(dict(modes), len(modes) - 1) + [argmax(dict(modes), low=True)]
    waits = [float(r["wait"]) for r in chosen]
    not_on(waits, 70)
    out["x10-30"] = sum(v > 70 for v in waits)
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
