"""Second, independent computation of every reference answer of the eighth set.

The reference code uses pandas and scipy; here each answer is recomputed from the raw CSV
text with the csv module and plain Python (datetime for dates, statistics for medians),
with hand-written Pearson correlation, least squares, Welch and one-sample t statistics,
a chi-square test of independence with Yates' correction, IQR fences and
linear-interpolation quantiles; scipy is used only to turn a statistic into a p-value.
Every "which is largest/smallest" answer and every top-k cut is checked for ties, and
thresholds an answer depends on are checked not to be hit exactly.

Run by hand:  python benchmarks/external8/crosscheck.py   (test_score.py also runs it.)
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

    def welch_p(a, b):
        t, df = welch(a, b)
        return t, 2 * sps.t.sf(abs(t), df)

    out = {}
    # ---------------------------------------------------------------- gestation_chds
    ch = rows("gestation_chds.csv")
    now = [float(r["wt"]) for r in ch if r["smoke"] == "now"]
    never = [float(r["wt"]) for r in ch if r["smoke"] == "never"]
    t, p = welch_p(now, never)
    out["x8-01"] = {"mean_wt_now": mean(now), "mean_wt_never": mean(never), "welch_t": t,
                    "decision": "reject" if p < 0.01 else "retain"}
    dates = [dt.date.fromisoformat(r["date"]) for r in ch]
    months = Counter(d.strftime("%Y-%m") for d in dates)
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    days = Counter(names[d.weekday()] for d in dates)
    assert len(days) == 7
    out["x8-02"] = {"busiest_month": argmax(dict(months)), "quietest_weekday": argmax(dict(days), low=True),
                    "born_before_1965": sum(d < dt.date(1965, 1, 1) for d in dates)}
    pairs = [(float(r["gestation"]), float(r["wt"])) for r in ch if r["gestation"] and r["wt"]]
    blanks = {c: sum(r[c] == "" for r in ch) for c in ch[0]}
    out["x8-03"] = {"r_gestation_wt": pearson([a for a, _ in pairs], [b for _, b in pairs]),
                    "blank_dht": blanks["dht"], "most_blank_column": argmax(blanks)}
    out["x8-04"] = mean(now) / 16
    race = defaultdict(list)
    for r in ch:
        if r["race"]:
            race[r["race"]].append(float(r["wt"]))
    out["x8-05"] = argmax({k: mean(v) for k, v in race.items()}, low=True)

    # ---------------------------------------------------------------- australian_polls
    po = rows("australian_polls.csv")
    field = defaultdict(list)
    for r in po:
        d = dt.date.fromisoformat(r["endDate"]) - dt.date.fromisoformat(r["startDate"])
        field[r["org"]].append(d.days)
    fm = {k: mean(v) for k, v in field.items()}
    top = argmax(fm)
    out["x8-06"] = {"longest_field_org": top, "longest_mean_days": fm[top],
                    "ended_in_2006": sum(r["endDate"][:4] == "2006" for r in po)}
    not_on([r["startDate"] for r in po], "2006-12-04")
    rudd = [float(r["ALP"]) for r in po if r["startDate"] >= "2006-12-04"]
    before = [float(r["ALP"]) for r in po if r["startDate"] < "2006-12-04"]
    t, p = welch_p(rudd, before)
    gap = mean(rudd) - mean(before)
    assert abs(gap - 5) > 0.5
    out["x8-07"] = {"mean_alp_rudd": mean(rudd), "mean_alp_before": mean(before), "welch_t": t,
                    "verdict": "reject" if p < 0.05 else "retain", "gap_over_5_points": "yes" if gap > 5 else "no"}
    out["x8-08"] = {"r_alp_lib": pearson([float(r["ALP"]) for r in po], [float(r["Lib"]) for r in po]),
                    "busiest_houses": "; ".join(topk(dict(Counter(r["org"] for r in po)), 3)),
                    "blank_remarks": sum(r["remark"] == "" for r in po)}
    out["x8-09"] = sum(r["source"] == "" for r in po)
    out["x8-10"] = mean([float(r["sampleSize"]) for r in po if r["source"] != ""])

    # ---------------------------------------------------------------- ontario_towns
    tw = rows("ontario_towns.csv")
    pop = defaultdict(list)
    for r in tw:
        pop[r["csd_type"]].append(float(r["population_2021"]))
    med = {k: st.median(v) for k, v in pop.items()}
    assert med["village"] == round(med["village"])
    out["x8-11"] = {"highest_median_type": argmax(med), "village_median": round(med["village"]),
                    "n_townships": len(pop["township"])}
    sites = [r["website"] for r in tw if r["website"]]
    hosts = [s.split("://", 1)[1].split("/", 1)[0] for s in sites]
    tld = Counter(h.rsplit(".", 1)[1].lower() for h in hosts)
    del tld["ca"]
    out["x8-12"] = {"no_website": len(tw) - len(sites), "www_sites": sum("www." in s for s in sites),
                    "runner_up_domain": argmax(dict(tld))}
    lower = [float(r["pop_change_2016_2021_pct"]) for r in tw if r["status"] == "lower-tier" and r["pop_change_2016_2021_pct"]]
    single = [float(r["pop_change_2016_2021_pct"]) for r in tw if r["status"] == "single-tier" and r["pop_change_2016_2021_pct"]]
    t, p = welch_p(lower, single)
    out["x8-13"] = {"mean_lower": mean(lower), "mean_single": mean(single), "t_value": t,
                    "tiers_differ": "yes" if p < 0.05 else "no"}
    change = [float(r["pop_change_2016_2021_pct"]) for r in tw if r["pop_change_2016_2021_pct"]]
    not_on(change, 0.2)
    out["x8-14"] = sum(v > 0.2 for v in change)
    out["x8-15"] = argmax({r["name"]: float(r["density_2021"]) for r in tw if r["name"] != "Toronto"})

    # ---------------------------------------------------------------- baseball_1986
    bb = rows("baseball_1986.csv")
    paid = [r for r in bb if r["sal87"] != ""]
    team = defaultdict(list)
    for r in paid:
        team[r["team86"]].append(float(r["sal87"]))
    tm = {k: mean(v) for k, v in team.items()}
    npos = Counter(r["posit86"] for r in bb)
    pos = defaultdict(list)
    for r in paid:
        if npos[r["posit86"]] >= 10:
            pos[r["posit86"]].append(float(r["sal87"]))
    out["x8-16"] = {"no_salary": len(bb) - len(paid), "median_salary": st.median(float(r["sal87"]) for r in paid),
                    "top_paying_position": argmax({k: mean(v) for k, v in pos.items()})}
    x = [float(r["hits86"]) for r in paid]
    y = [float(r["sal87"]) for r in paid]
    mx, my = mean(x), mean(y)
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
    out["x8-17"] = {"slope": slope, "intercept": my - slope * mx, "r_squared": pearson(x, y) ** 2}
    not_on([int(r["atbat86"]) for r in bb], 300)
    q = [r for r in bb if int(r["atbat86"]) >= 300]
    avg = {f"{r['name1']} {r['name2']}": int(r["hits86"]) / int(r["atbat86"]) for r in q}
    assert len(avg) == len(q)
    not_on(list(avg.values()), 0.320)
    out["x8-18"] = {"qualified": len(q), "best_hitter": argmax(avg), "above_320": sum(v > 0.320 for v in avg.values())}
    out["x8-19"] = topk(tm, 3)
    lg = {k: mean([float(r["sal87"]) for r in paid if r["league86"] == k]) for k in ("A", "N")}
    assert lg["A"] != lg["N"]
    out["x8-20"] = "yes" if lg["A"] > lg["N"] else "no"

    # ---------------------------------------------------------------- world_gdp_decades
    gd = rows("world_gdp_decades.csv")
    yrs = [c for c in gd[0] if c.startswith("year_")]
    assert len(yrs) == 7
    g = [r for r in gd if r["description"] == "GDP"]
    out["x8-21"] = {"complete_rows": sum(all(r[c] != "" for c in yrs) for r in g),
                    "emptiest_column": argmax({c: sum(r[c] == "" for r in g) for c in yrs}),
                    "missing_2020": sum(r["year_2020"] == "" for r in g)}
    v20 = {r["country"]: float(r["year_2020"]) for r in g if r["year_2020"] != ""}
    world = v20.pop("World")
    ranked = sorted(v20.items(), key=lambda kv: kv[1], reverse=True)
    assert ranked[3][1] != ranked[4][1] != ranked[5][1]
    not_on(v20.values(), 1e12)
    out["x8-22"] = {"us_share_pct": 100 * v20["United States"] / world, "fifth_largest": ranked[4][0],
                    "trillion_countries": sum(v > 1e12 for v in v20.values())}
    gr = [float(r["year_2020"]) for r in gd
          if r["description"] == "GDP growth" and r["country"] != "World" and r["year_2020"] != ""]
    not_on(gr, -5)
    t = mean(gr) / math.sqrt(var(gr) / len(gr))
    p = 2 * sps.t.sf(abs(t), len(gr) - 1)
    out["x8-23"] = {"median_growth": st.median(gr), "below_minus_5": sum(v < -5 for v in gr), "t_stat": t,
                    "shrank_significantly": "yes" if mean(gr) < 0 and p < 0.05 else "no"}
    pc = {r["country"]: float(r["year_2020"]) for r in gd
          if r["description"] == "GDP per capita" and r["year_2020"] != ""}
    not_on(pc.values(), 1000)
    not_on(pc.values(), 80000)
    out["x8-24"] = sum(v < 1000 for k, v in pc.items() if k != "World")
    out["x8-25"] = sorted(k for k, v in pc.items() if v > 80000)

    # ---------------------------------------------------------------- climber_drugs
    cl = rows("climber_drugs.csv")
    per = Counter(r["positive_sample"] for r in cl)
    argmax(dict(per))  # the sample with the most rows is unique
    out["x8-26"] = {"distinct_samples": len(per), "multi_substance": sum(v > 1 for v in per.values()),
                    "most_substances": max(per.values())}
    huts = sorted({r["hut"] for r in cl})
    levels = sorted({r["screening_analysis"] for r in cl})
    assert len(huts) == 2 and len(levels) == 2
    obs = [[sum(1 for r in cl if r["hut"] == h and r["screening_analysis"] == s) for s in levels] for h in huts]
    n = len(cl)
    rs = [sum(row) for row in obs]
    cs = [sum(obs[i][j] for i in range(2)) for j in range(2)]
    chi = 0.0
    for i in range(2):
        for j in range(2):
            e = rs[i] * cs[j] / n
            d = abs(obs[i][j] - e)
            d -= min(0.5, d)  # Yates
            chi += d * d / e
    gou = [r for r in cl if r["hut"] == "GOUTER"]
    out["x8-27"] = {"chi_square": chi, "pct_screened_gouter": 100 * sum(r["screening_analysis"] == "yes" for r in gou) / len(gou),
                    "independence": "reject" if sps.chi2.sf(chi, 1) < 0.05 else "retain"}
    conc = [float(r["concentration"]) for r in cl]
    q1, q3 = quantile(conc, 0.25), quantile(conc, 0.75)
    hi = q3 + 1.5 * (q3 - q1)
    not_on(conc, hi)
    out["x8-28"] = {"upper_fence": hi, "high_outliers": sum(v > hi for v in conc),
                    "top_substance": cl[argmax({i: v for i, v in enumerate(conc)})]["substance"]}
    ace = {h: len({r["positive_sample"] for r in cl if r["hut"] == h and r["substance"] == "Acetazolamide"}) for h in huts}
    assert ace["GOUTER"] != ace["COSM"]
    out["x8-29"] = "yes" if ace["GOUTER"] > ace["COSM"] else "no"
    out["x8-30"] = 100 * ace["GOUTER"] / len({r["positive_sample"] for r in gou})
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
