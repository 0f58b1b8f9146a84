"""The answer benchmark's CSV files: generated from fixed seeds, messy like real exports.

Ten files of 2,000 to 4,100 rows from ten domains. Column names carry dots, spaces, brackets,
unicode and leading digits (``Mar.2020``, ``No. of cases``, ``Größe (cm)``, ``2019 total``);
numbers are stored as text with thousands separators, currency signs, percent signs, footnote
markers and WHO-style uncertainty ranges (``$1,234.50``, ``12.5%``, ``1,234*``,
``630308[495000-801000]``); a missing value is written as an empty cell, ``NA``, ``n/a``, ``-``
or ``null``; dates come as ISO, ``03/15/2021``, ``15.03.2021`` or ``2021-03-15 14:02:00``;
flags are ``Yes``/``No``; some rows are exact duplicates of others.

:func:`write_files` writes them (byte-identical on every run: seeded ``numpy`` generators and
explicit formatting, no clock, no locale). :func:`read_reference` reads one back the way the
reference answers define it: every missing marker is missing, text numbers become numbers
(the point estimate before a ``[low-high]`` range; ``$``, ``€``, ``,``, ``%`` and ``*`` dropped),
dates parse with their file's format, ``Yes``/``No`` become booleans.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["FileSpec", "FILES", "MISSING", "file_spec", "write_files", "read_reference", "render_csv",
           "parse_number"]

#: every way a missing value is written in the files
MISSING = frozenset({"", "NA", "n/a", "-", "null"})

US, EU, ISO, ISO_TIME = "%m/%d/%Y", "%d.%m.%Y", "%Y-%m-%d", "%Y-%m-%d %H:%M:%S"

Rows = list[list[str]]


@dataclass(frozen=True)
class Number:
    """A number stored as text (currency, thousands separators, %, footnotes, ranges)."""


@dataclass(frozen=True)
class Date:
    fmt: str


@dataclass(frozen=True)
class YesNo:
    """``Yes`` / ``No``."""


Parser = Number | Date | YesNo


@dataclass(frozen=True)
class FileSpec:
    name: str
    domain: str
    seed: int
    build: Callable[[np.random.Generator], tuple[list[str], Rows]]
    #: how the reference reads each non-text column
    columns: Mapping[str, Parser] = field(default_factory=dict)

    @property
    def stem(self) -> str:
        return self.name.removesuffix(".csv")


# -- formatting ---------------------------------------------------------------------------------

def _money(value: float, symbol: str = "$") -> str:
    return f"{symbol}{value:,.2f}"


def _grouped(value: float, decimals: int = 0) -> str:
    return f"{value:,.{decimals}f}"


def _percent(value: float) -> str:
    return f"{value:g}%"


def _yes_no(flag: bool) -> str:
    return "Yes" if flag else "No"


def _blank(rng: np.random.Generator, column: list[str], rate: float, markers: Sequence[str]) -> list[str]:
    """``column`` with about ``rate`` of its cells replaced by one of ``markers``."""
    hit = rng.random(len(column)) < rate
    picks = rng.integers(0, len(markers), len(column))
    return [markers[k] if h else v for v, h, k in zip(column, hit, picks)]


def _days(start: date, offsets: Iterable[int], fmt: str) -> list[str]:
    return [(start + timedelta(days=int(d))).strftime(fmt) for d in offsets]


def _with_duplicates(rng: np.random.Generator, rows: Rows, rate: float) -> Rows:
    """``rows`` with about ``rate`` of them repeated, each copy a little after its original."""
    n = len(rows)
    chosen = np.sort(rng.choice(n, size=int(round(n * rate)), replace=False))
    keys = [float(i) for i in range(n)] + [float(i) + float(rng.uniform(0.5, 40.0)) for i in chosen]
    source = list(range(n)) + [int(i) for i in chosen]
    order = sorted(range(len(keys)), key=lambda k: (keys[k], k))
    return [list(rows[source[k]]) for k in order]


def _columns(*columns: Sequence[str]) -> Rows:
    return [list(row) for row in zip(*columns)]


# -- the files ----------------------------------------------------------------------------------

_REPS = ["Ana Souza", "Björn Larsen", "Chloé Martin", "Dmitri Ivanov", "Emeka Obi", "Fatima Zahra",
         "Grace Kim", "Hiro Tanaka", "Isabel Núñez", "Jonas Weiß", "Kofi Mensah", "Lena Schmidt"]


def _sales(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 3000
    offsets = np.sort(rng.integers(0, 730, n))
    region = rng.choice(["West", "East", "Central", "South", "North"], n, p=[.27, .24, .2, .17, .12])
    rep = rng.choice(_REPS, n)
    categories = ["Furniture", "Office Supplies", "Technology", "Appliances"]
    category = rng.choice(categories, n, p=[.22, .38, .26, .14])
    base = {"Furniture": 320.0, "Office Supplies": 25.0, "Technology": 540.0, "Appliances": 410.0}
    price = [round(base[c] * float(f), 2) for c, f in zip(category, rng.lognormal(0, .45, n))]
    units = rng.poisson(4, n) + 1
    discount = rng.choice([0, 5, 10, 12.5, 15, 20, 25], n, p=[.4, .15, .15, .1, .1, .06, .04])
    segment = rng.choice(["Consumer", "Corporate", "Home Office"], n, p=[.5, .32, .18])
    rows = _columns([f"SO-{100001 + i}" for i in range(n)], _days(date(2022, 1, 1), offsets, US),
                    region, rep, category, [str(u) for u in units], [_money(p) for p in price],
                    _blank(rng, [_percent(float(d)) for d in discount], .05, ["-", ""]),
                    [_yes_no(r) for r in rng.random(n) < .06],
                    _blank(rng, list(segment), .03, [""]))
    header = ["Order ID", "Order Date", "Region", "Sales Rep", "Product Category", "Units",
              "Unit Price (USD)", "Discount", "Returned?", "Customer Segment"]
    return header, _with_duplicates(rng, rows, .015)


def _trial(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 2400
    arm = rng.choice(["Placebo", "Drug A", "Drug B"], n, p=[.34, .33, .33])
    sex = rng.choice(["F", "M"], n)
    height = np.where(sex == "F", rng.normal(165, 7, n), rng.normal(178, 7.5, n)).round(1)
    weight = (22.5 * (height / 100) ** 2 * rng.lognormal(0, .13, n)).round(1)
    age = rng.integers(35, 80, n)
    baseline = rng.normal(142, 14, n).round()
    effect = {"Placebo": -2.0, "Drug A": -8.0, "Drug B": -3.0}
    week12 = (baseline + [effect[a] for a in arm] + rng.normal(0, 11, n)).round()
    adverse = rng.random(n) < np.array([{"Placebo": .08, "Drug A": .115, "Drug B": .095}[a] for a in arm])
    offsets = np.clip(rng.gamma(4.0, 45.0, n), 0, 599).astype(int)
    rows = _columns([f"S-{i + 1:04d}" for i in range(n)], [f"Site {k:02d}" for k in rng.integers(1, 9, n)],
                    arm, sex, [str(a) for a in age], [f"{h:.1f}" for h in height],
                    _blank(rng, [f"{w:.1f}" for w in weight], .03, ["NA"]),
                    [f"{b:.0f}" for b in baseline],
                    _blank(rng, [f"{w:.0f}" for w in week12], .06, ["NA", "n/a", ""]),
                    [_yes_no(a) for a in adverse], _days(date(2021, 1, 4), offsets, ISO))
    header = ["subject.id", "site", "arm", "sex", "age (years)", "Größe (cm)", "weight.kg",
              "baseline.sbp", "week12.sbp", "adverse.event", "enrolled"]
    return header, rows


def _housing(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 3000
    areas = ["Riverside", "Old Town", "Hillcrest", "Sankt Görgen", "Lakeview", "Market District",
             "Eastgate", "Ørestad"]
    premium = dict(zip(areas, [35000, 60000, 20000, -15000, 85000, 5000, -30000, 40000]))
    hood = rng.choice(areas, n)
    area = np.clip(rng.lognormal(7.42, .33, n), 450, 6000).round()
    bedrooms = np.clip((area / 600 + rng.normal(0, .7, n)).round(), 1, 6).astype(int)
    bathrooms = np.clip((bedrooms * .6 + rng.normal(0, .5, n)) * 2, 2, 8).round() / 2
    condition = rng.choice(["Poor", "Fair", "Good", "Excellent"], n, p=[.08, .27, .45, .2])
    bonus = {"Poor": -40000, "Fair": -10000, "Good": 0, "Excellent": 30000}
    price = 40000 + 185 * area + np.array([premium[h] + bonus[c] for h, c in zip(hood, condition)])
    price = price + rng.normal(0, 45000, n)
    price = np.where(rng.random(n) < .012, price * 2.6, price)
    price = (np.maximum(price, 60000) / 500).round() * 500
    weekday_p = np.array([.12, .13, .14, .15, .2, .17, .09])
    weeks = rng.integers(0, 156, n)
    weekday = rng.choice(7, n, p=weekday_p)
    sold = [date(2021, 1, 4) + timedelta(days=int(7 * w + d)) for w, d in zip(weeks, weekday)]
    lot = [f"{v:.2f}" for v in np.clip(rng.lognormal(-1.4, .5, n), .05, 3)]
    rows = _columns([f"H-{20001 + i}" for i in range(n)], hood, [_money(p).removesuffix(".00") for p in price],
                    [_grouped(a) for a in area], [str(b) for b in bedrooms], [f"{b:g}" for b in bathrooms],
                    [str(y) for y in rng.integers(1920, 2023, n)], _blank(rng, lot, .08, ["-", ""]),
                    [_yes_no(g) for g in rng.random(n) < .62], condition, [d.strftime(EU) for d in sold])
    header = ["listing_id", "Neighbourhood", "Price (USD)", "Living area (sq ft)", "Bedrooms", "Bathrooms",
              "Year built", "Lot size (acres)", "Garage", "Condition", "Sold on"]
    return header, rows


def _employees(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 2500
    departments = ["Engineering", "Sales", "Marketing", "Finance", "HR", "Operations", "Support"]
    dept = rng.choice(departments, n, p=[.26, .18, .1, .09, .06, .17, .14])
    dept_pay = dict(zip(departments, [78000, 61000, 64000, 70000, 55000, 52000, 46000]))
    level = rng.choice(["L1", "L2", "L3", "L4", "L5"], n, p=[.25, .3, .24, .14, .07])
    level_pay = {"L1": .78, "L2": .92, "L3": 1.08, "L4": 1.3, "L5": 1.62}
    salary = np.array([dept_pay[d] * level_pay[lv] for d, lv in zip(dept, level)]) * rng.lognormal(0, .12, n)
    salary = np.where(rng.random(n) < .004, salary * 3.2, salary)
    salary = (salary / 100).round() * 100
    remote_p = {"Engineering": .55, "Sales": .25, "Marketing": .4, "Finance": .3, "HR": .2,
                "Operations": .1, "Support": .45}
    remote = rng.random(n) < np.array([remote_p[d] for d in dept])
    salary = salary + np.where(remote, 1500, 0)
    performance = np.clip(rng.normal(3.3, .9, n).round(), 1, 5).astype(int)
    satisfaction = np.clip((performance * 1.1 + rng.normal(2.5, 1.8, n)).round(), 1, 10).astype(int)
    office = rng.choice(["Berlin", "München", "Zürich", "London", "New York", "São Paulo", "Kraków"], n,
                        p=[.24, .19, .08, .16, .13, .11, .09])
    hired = np.sort(rng.integers(0, 5840, n))
    rows = _columns([f"E{i + 1:05d}" for i in range(n)], dept, level, office, _days(date(2008, 1, 1), hired, ISO),
                    _blank(rng, [_grouped(s) for s in salary], .035, ["null", ""]),
                    [_percent(float(b)) for b in rng.choice([0, 2.5, 5, 7.5, 10, 15], n)],
                    [_yes_no(r) for r in remote], [str(p) for p in performance], [str(s) for s in satisfaction],
                    [str(a) for a in rng.integers(21, 66, n)])
    header = ["Employee #", "Department", "Job level", "Office", "Hire date", "Annual salary", "Bonus %",
              "Remote?", "Performance (1-5)", "Satisfaction (1–10)", "Age"]
    return header, rows


def _web(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 4000
    hour_p = np.array([1, 1, 1, 1, 1, 2, 3, 5, 7, 8, 8, 8, 9, 8, 7, 7, 8, 9, 11, 13, 14, 12, 7, 3], float)
    hours = rng.choice(24, n, p=hour_p / hour_p.sum())
    day_p = np.array([.13, .14, .15, .15, .14, .16, .13])
    days = rng.integers(0, 17, n) * 7 + rng.choice(7, n, p=day_p)
    seconds = rng.integers(0, 3600, n)
    start = [datetime(2021, 3, 1) + timedelta(days=int(d), hours=int(h), seconds=int(s))
             for d, h, s in zip(days, hours, seconds)]
    order = np.argsort(np.array([t.timestamp() for t in start]), kind="stable")
    device = rng.choice(["Desktop", "Mobile", "Tablet"], n, p=[.46, .44, .1])
    pages = np.where(rng.random(n) < .38, 1, rng.geometric(.17, n) + 1)
    duration = np.where(pages == 1, rng.gamma(1.2, 25, n), pages * rng.gamma(2.2, 30, n)).round().astype(int)
    source = rng.choice(["google", "newsletter", "direct", "facebook", "bing"], n, p=[.38, .14, .26, .15, .07])
    conv_p = np.where(pages == 1, 0, .05 + .012 * np.minimum(pages, 12)) * np.where(device == "Mobile", .85, 1.0)
    converted = rng.random(n) < conv_p
    value_scale = {"google": 70, "newsletter": 95, "direct": 80, "facebook": 60, "bing": 75}
    value = np.array([value_scale[s] for s in source]) * rng.lognormal(0, .5, n)
    values = [_money(v) if c else ("-" if k else "") for v, c, k in zip(value, converted, rng.random(n) < .5)]
    rows = _columns([f"{int(x):012x}" for x in rng.integers(0, 2 ** 47, n)],
                    [t.strftime(ISO_TIME) for t in start], device,
                    rng.choice(["Chrome", "Safari", "Firefox", "Edge", "Other"], n, p=[.5, .25, .1, .1, .05]),
                    rng.choice(["United States", "Deutschland", "France", "India", "Brasil", "Côte d'Ivoire",
                                "Japan"], n, p=[.3, .16, .1, .18, .1, .06, .1]),
                    source, [str(p) for p in pages], [_grouped(d) for d in duration],
                    [_yes_no(p == 1) for p in pages], [_yes_no(c) for c in converted], values)
    rows = [rows[i] for i in order]
    header = ["session_id", "Start time", "Device", "Browser", "Country", "utm.source", "Pages/visit",
              "Duration (s)", "Bounced", "Converted", "Order value"]
    return header, _with_duplicates(rng, rows, .015)


_STATIONS = [("Zürich-Fluntern", 9.5, 9.0), ("München-Stadt", 9.0, 9.5), ("Oslo-Blindern", 6.0, 10.0),
             ("Sevilla Aeropuerto", 19.0, 8.0), ("Reykjavík", 5.0, 5.5), ("Lisboa", 17.5, 5.5),
             ("Wien Hohe Warte", 11.0, 10.0), ("Kraków", 8.5, 11.0)]


def _weather(rng: np.random.Generator) -> tuple[list[str], Rows]:
    rows: Rows = []
    day = np.arange(365)
    season = -np.cos(2 * np.pi * (day - 15) / 365)
    for station, mean, swing in _STATIONS:
        tmax = (mean + 4 + swing * season + rng.normal(0, 3, 365)).round(1)
        tmin = (tmax - rng.gamma(6, 1.3, 365)).round(1)
        rain = rng.random(365) < .33 + .08 * np.cos(2 * np.pi * (day - 320) / 365)
        precip = np.where(rain, rng.gamma(.9, 6 + 2 * (station == "Lisboa"), 365), 0).round(1)
        humidity = np.clip(88 - 1.1 * tmax + 8 * rain + rng.normal(0, 6, 365), 20, 100).round()
        wind = rng.gamma(2.0, 6.5, 365).round(1)
        snow = rain & (tmax < 1)
        rows += _columns(_days(date(2021, 1, 1), day, ISO), [station] * 365, [f"{t:.1f}" for t in tmax],
                         [f"{t:.1f}" for t in tmin], _blank(rng, [f"{p:.1f}" for p in precip], .025, ["-", ""]),
                         [f"{w:.1f}" for w in wind], [f"{h:.0f}%" for h in humidity],
                         [f"{s:.1f}" for s in np.clip(rng.normal(6 + 3 * season, 2.5), 0, 15)],
                         [_yes_no(s) for s in snow])
    header = ["Date", "Station", "Temp.max (°C)", "Temp.min (°C)", "Precip. (mm)", "Wind (km/h)", "Humidity %",
              "Sunshine (h)", "Snow?"]
    return header, rows


def _survey(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 3000
    ages = ["18-24", "25-34", "35-44", "45-54", "55+"]
    age = rng.choice(ages, n, p=[.16, .27, .23, .19, .15])
    satisfaction = np.clip(rng.normal(3.5, 1.0, n).round(), 1, 5).astype(int)
    importance = np.clip((satisfaction * 1.4 + rng.normal(1.8, 2.0, n)).round(), 0, 10).astype(int)
    rec_p = np.array([{"18-24": .645, "25-34": .66, "35-44": .675, "45-54": .68, "55+": .69}[a] for a in age])
    recommend = rng.random(n) < rec_p + .05 * (satisfaction - 3.5)
    brackets = ["<30k", "30k-60k", "60k-100k", ">100k"]
    bracket = rng.choice(brackets, n, p=[.24, .37, .27, .12])
    spend = np.array([{"<30k": 28, "30k-60k": 41, "60k-100k": 56, ">100k": 83}[b] for b in bracket])
    spend = (spend * rng.lognormal(0, .55, n)).round(2)
    offsets = np.sort(rng.integers(0, 115, n))
    rows = _columns([f"R-{i + 1:05d}" for i in range(n)], _days(date(2021, 2, 8), offsets, EU), age,
                    rng.choice(["Nord", "Süd", "Ost", "West"], n, p=[.3, .28, .2, .22]),
                    [str(s) for s in satisfaction],
                    _blank(rng, [_yes_no(r) for r in recommend], .04, ["n/a"]),
                    _blank(rng, [str(i) for i in importance], .05, ["-", "", "n/a"]),
                    [f"{s:.2f}" for s in spend], bracket,
                    rng.choice(["Web", "App", "Phone", "In store"], n, p=[.45, .3, .1, .15]))
    header = ["Respondent ID", "Submitted", "Age group", "Region", "Q1. Overall satisfaction (1-5)",
              "Q2. Would recommend?", "Q3. importance.score", "Q4. Monthly spend (€)", "Income bracket", "Channel"]
    return header, _with_duplicates(rng, rows, .02)


def _shipments(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 3500
    carriers = ["DHL", "UPS", "FedEx", "La Poste", "Correos"]
    carrier = rng.choice(carriers, n, p=[.28, .24, .2, .15, .13])
    service = rng.choice(["Standard", "Express", "Economy"], n, p=[.55, .25, .2])
    base_days = {"DHL": 3.2, "UPS": 3.4, "FedEx": 3.1, "La Poste": 4.6, "Correos": 5.1}
    speed = {"Standard": 1.0, "Express": .55, "Economy": 1.6}
    transit = np.array([base_days[c] * speed[s] for c, s in zip(carrier, service)]) * rng.lognormal(0, .3, n)
    transit = np.maximum(transit.round(), 1).astype(int)
    ship = np.sort(rng.integers(0, 540, n))
    delivered = _days(date(2021, 1, 1), ship + transit, US)
    in_transit = ship > 525
    lost = rng.random(n) < .01
    delivered = [("" if t else "-") if (t or lo) else d for d, t, lo in zip(delivered, in_transit, lost)]
    promised = np.array([{"Standard": 5, "Express": 2, "Economy": 8}[s] for s in service])
    weight = np.where(rng.random(n) < .01, rng.uniform(900, 2400, n), rng.lognormal(3.2, .9, n)).round(1)
    premium = {"Standard": 0.0, "Express": 28.0, "Economy": -6.0}
    cost = 14 + 2.05 * weight + np.array([premium[s] for s in service]) + rng.normal(0, 9, n)
    cost = np.maximum(cost, 7.5).round(2)
    rows = _columns([f"SH-{300001 + i}" for i in range(n)], _days(date(2021, 1, 1), ship, US), delivered,
                    carrier, service,
                    rng.choice(["Rotterdam", "Hamburg", "Shanghai", "Newark", "Lyon"], n, p=[.26, .22, .24, .16, .12]),
                    rng.choice(["São Paulo", "Kraków", "Zürich", "Chicago", "Lagos", "Mumbai", "Toronto"], n,
                               p=[.12, .13, .1, .2, .11, .19, .15]),
                    [_grouped(w, 1) for w in weight], [_money(c) for c in cost],
                    [_yes_no(t <= p) for t, p in zip(transit, promised)],
                    [_yes_no(d) for d in rng.random(n) < .035 + .00002 * weight])
    header = ["Shipment ID", "Ship date", "Delivered", "Carrier", "Service level", "Origin", "Destination",
              "Weight (kg)", "Cost", "On time", "Damaged?"]
    return header, rows


_COUNTRIES = [
    ("AFR", "Nigeria", 200000), ("AFR", "Democratic Republic of the Congo", 90000), ("AFR", "Uganda", 45000),
    ("AFR", "Mozambique", 31000), ("AFR", "Côte d'Ivoire", 26000), ("AFR", "Niger", 24000),
    ("AFR", "Burkina Faso", 21000), ("AFR", "Mali", 20000), ("AFR", "Cameroon", 26000), ("AFR", "Ghana", 31000),
    ("AFR", "United Republic of Tanzania", 60000), ("AFR", "Angola", 32000), ("AFR", "Malawi", 19000),
    ("AFR", "Kenya", 53000), ("AFR", "Benin", 12000), ("AFR", "Guinea", 13000), ("AFR", "Chad", 16000),
    ("AFR", "Zambia", 18000), ("AFR", "Madagascar", 27000), ("AFR", "São Tomé and Príncipe", 220),
    ("AFR", "Sierra Leone", 8000), ("AFR", "Togo", 8300), ("AFR", "Senegal", 16700), ("AFR", "Rwanda", 13000),
    ("EMR", "Sudan", 43000), ("EMR", "Somalia", 16000), ("EMR", "Yemen", 30000), ("EMR", "Pakistan", 220000),
    ("EMR", "Afghanistan", 39000), ("EMR", "Djibouti", 1000), ("SEAR", "India", 1380000),
    ("SEAR", "Indonesia", 273000), ("SEAR", "Myanmar", 54000), ("SEAR", "Bangladesh", 165000),
    ("SEAR", "Nepal", 29000), ("SEAR", "Thailand", 70000), ("SEAR", "Timor-Leste", 1300),
    ("WPR", "Papua New Guinea", 9000), ("WPR", "Solomon Islands", 690), ("WPR", "Cambodia", 16700),
    ("WPR", "Lao People's Democratic Republic", 7300), ("WPR", "Viet Nam", 97000), ("WPR", "Philippines", 110000),
    ("WPR", "Vanuatu", 310), ("AMR", "Venezuela (Bolivarian Republic of)", 28000), ("AMR", "Brazil", 212000),
    ("AMR", "Colombia", 51000), ("AMR", "Peru", 33000), ("AMR", "Haiti", 11400), ("AMR", "Guyana", 790),
    ("AMR", "Honduras", 9900), ("AMR", "Nicaragua", 6600), ("AMR", "Bolivia (Plurinational State of)", 11700),
    ("AMR", "Ecuador", 17600), ("AMR", "Guatemala", 17900), ("AMR", "Panama", 4300),
    ("AMR", "Suriname", 590), ("AMR", "French Guiana", 300), ("AMR", "Dominican Republic", 10800),
    ("AMR", "Mexico", 128900)]
_RISK = {"AFR": 260.0, "EMR": 40.0, "SEAR": 6.0, "WPR": 18.0, "AMR": 5.0}


def _estimate(rng: np.random.Generator, point: float) -> str:
    low, high = point * rng.uniform(.62, .9), point * rng.uniform(1.12, 1.45)
    return f"{int(round(point))}[{int(round(low))}-{int(round(high))}]"


def _malaria(rng: np.random.Generator) -> tuple[list[str], Rows]:
    rows: Rows = []
    for region, country, population in _COUNTRIES:
        risk = _RISK[region] * rng.lognormal(0, .6)
        for year in range(2000, 2022):
            trend = 1.0 - .025 * (year - 2000) + (.06 if year == 2020 else 0)
            pop = population * (1 + .024) ** (year - 2020)
            for age_group, share, cfr in (("<5", .16, .0042), ("5+", .84, .0011)):
                people = pop * share
                incidence = max(risk * trend * (1.6 if age_group == "<5" else .85) * rng.lognormal(0, .15), .05)
                cases = people * incidence
                deaths = cases * cfr * rng.lognormal(0, .2)
                inc_text = f"{incidence:.1f}" + ("*" if rng.random() < .1 else "")
                rows.append([country, region, str(year), age_group, _grouped(people),
                             _estimate(rng, cases), _estimate(rng, deaths) if rng.random() > .03 else "-",
                             inc_text, _yes_no(bool(rng.random() < .8))])
    header = ["Country", "WHO region", "Year", "Age group", "Population (thousands)", "No. of cases",
              "No. of deaths", "Incidence per 1000", "Reported?"]
    return header, rows


_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_PROVINCES = ["Northern", "Southern", "Eastern", "Western", "Central", "Lakes", "Highlands", "Coastal", "Río Verde"]


def _district_names(rng: np.random.Generator, n: int) -> list[str]:
    first = ["Ka", "Mbe", "Lu", "Nya", "Ki", "Ma", "Zo", "Ta", "Bu", "Sé", "Ngo", "Ri", "Fa", "Dji", "Wo"]
    second = ["ranga", "lembe", "tuku", "mosi", "bwe", "nzara", "koro", "dougou", "sanga", "wele", "mbo", "rita"]
    uses: dict[str, int] = {}
    names: list[str] = []
    for _ in range(n):
        name = str(rng.choice(first)) + str(rng.choice(second))
        uses[name] = uses.get(name, 0) + 1
        names.append(name if uses[name] == 1 else f"{name} {uses[name]}")
    return names


def _district_cases(rng: np.random.Generator) -> tuple[list[str], Rows]:
    n = 2000
    province = rng.choice(_PROVINCES, n, p=[.14, .13, .12, .12, .15, .09, .08, .1, .07])
    population = np.clip(rng.lognormal(11.3, .7, n), 5000, 2_000_000).round()
    rate = rng.lognormal(-5.2, .5, n)
    total_2019 = (population * rate * 12 * rng.lognormal(0, .15, n)).round()
    total_2019 = np.where(rng.random(n) < .012, total_2019 * 6, total_2019).round()
    seasonal = np.array([.7, .75, 1.5, 1.3, 1.1, .9, .8, .8, .9, 1.0, 1.15, 1.25])
    months = [(population * rate * s * rng.lognormal(0, .25, n)).round() for s in seasonal]
    cols = []
    for values in months:
        text = [_grouped(v) + ("*" if f else "") for v, f in zip(values, rng.random(n) < .01)]
        cols.append(_blank(rng, text, .02, ["-", ""]))
    rows = _columns(_district_names(rng, n), province, [_grouped(p) for p in population],
                    [_grouped(t) for t in total_2019], *cols, [_yes_no(c) for c in rng.random(n) < .7])
    header = ["District", "Province", "Population", "2019 total"] + [f"{m}.2020" for m in _MONTHS] + ["Lab confirmed?"]
    return header, _with_duplicates(rng, rows, .012)


FILES: tuple[FileSpec, ...] = (
    FileSpec("sales_orders.csv", "sales", 101, _sales, {
        "Order Date": Date(US), "Units": Number(), "Unit Price (USD)": Number(), "Discount": Number(),
        "Returned?": YesNo()}),
    FileSpec("clinical_trial.csv", "clinical trial", 202, _trial, {
        "age (years)": Number(), "Größe (cm)": Number(), "weight.kg": Number(), "baseline.sbp": Number(),
        "week12.sbp": Number(), "adverse.event": YesNo(), "enrolled": Date(ISO)}),
    FileSpec("housing.csv", "housing", 303, _housing, {
        "Price (USD)": Number(), "Living area (sq ft)": Number(), "Bedrooms": Number(), "Bathrooms": Number(),
        "Year built": Number(), "Lot size (acres)": Number(), "Garage": YesNo(), "Sold on": Date(EU)}),
    FileSpec("employees.csv", "employees", 404, _employees, {
        "Hire date": Date(ISO), "Annual salary": Number(), "Bonus %": Number(), "Remote?": YesNo(),
        "Performance (1-5)": Number(), "Satisfaction (1–10)": Number(), "Age": Number()}),
    FileSpec("web_sessions.csv", "web analytics", 505, _web, {
        "Start time": Date(ISO_TIME), "Pages/visit": Number(), "Duration (s)": Number(), "Bounced": YesNo(),
        "Converted": YesNo(), "Order value": Number()}),
    FileSpec("weather_daily.csv", "weather", 606, _weather, {
        "Date": Date(ISO), "Temp.max (°C)": Number(), "Temp.min (°C)": Number(), "Precip. (mm)": Number(),
        "Wind (km/h)": Number(), "Humidity %": Number(), "Sunshine (h)": Number(), "Snow?": YesNo()}),
    FileSpec("survey_responses.csv", "survey", 707, _survey, {
        "Submitted": Date(EU), "Q1. Overall satisfaction (1-5)": Number(), "Q2. Would recommend?": YesNo(),
        "Q3. importance.score": Number(), "Q4. Monthly spend (€)": Number()}),
    FileSpec("shipments.csv", "logistics", 808, _shipments, {
        "Ship date": Date(US), "Delivered": Date(US), "Weight (kg)": Number(), "Cost": Number(),
        "On time": YesNo(), "Damaged?": YesNo()}),
    FileSpec("malaria_estimates.csv", "public health", 909, _malaria, {
        "Year": Number(), "Population (thousands)": Number(), "No. of cases": Number(), "No. of deaths": Number(),
        "Incidence per 1000": Number(), "Reported?": YesNo()}),
    FileSpec("district_cases_wide.csv", "epidemiology (wide)", 1010, _district_cases, {
        "Population": Number(), "2019 total": Number(), **{f"{m}.2020": Number() for m in _MONTHS},
        "Lab confirmed?": YesNo()}),
)


def file_spec(name: str) -> FileSpec:
    """The spec of a file, by its name or stem (``sales_orders`` or ``sales_orders.csv``)."""
    for spec in FILES:
        if name in (spec.name, spec.stem):
            return spec
    raise KeyError(f"no benchmark file {name!r} (known: {', '.join(s.stem for s in FILES)})")


def render_csv(spec: FileSpec) -> str:
    """The file's text (``\\n`` line ends, minimal quoting)."""
    header, rows = spec.build(np.random.default_rng(spec.seed))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def write_files(directory: Path | str, names: Iterable[str] | None = None) -> list[Path]:
    """Write the benchmark's files (all, or those named) into ``directory``; returns their paths.

    A file whose bytes are already right is left alone (its mtime too)."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    specs = FILES if names is None else [file_spec(n) for n in names]
    paths = []
    for spec in specs:
        data = render_csv(spec).encode("utf-8")
        path = target / spec.name
        if not path.exists() or path.read_bytes() != data:
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        paths.append(path)
    return paths


# -- the reference reading -----------------------------------------------------------------------

_RANGE = re.compile(r"\[[^\]]*\]$")


def parse_number(text: str) -> float:
    """``$1,234.50`` → 1234.5, ``12.5%`` → 12.5, ``1,234*`` → 1234, ``630308[495000-801000]`` →
    630308; a missing marker → NaN."""
    value = text.strip()
    if value in MISSING:
        return float("nan")
    value = _RANGE.sub("", value)
    for junk in ("$", "€", "%", "*", ","):
        value = value.replace(junk, "")
    return float(value)


def _parse(column: pd.Series, parser: Parser) -> pd.Series:
    missing = column.str.strip().isin(MISSING)
    if isinstance(parser, Number):
        return column.map(parse_number).astype("float64")
    if isinstance(parser, Date):
        return pd.to_datetime(column.where(~missing), format=parser.fmt)
    flags = column.map({"Yes": True, "No": False}).where(~missing)
    return flags.astype("boolean")


def read_reference(path: Path | str) -> pd.DataFrame:
    """A benchmark file read as the reference answers define it (see the module docstring)."""
    path = Path(path)
    spec = file_spec(path.name)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    out = {}
    for name in raw.columns:
        parser = spec.columns.get(name)
        if parser is None:
            out[name] = raw[name].where(~raw[name].str.strip().isin(MISSING))
        else:
            out[name] = _parse(raw[name], parser)
    return pd.DataFrame(out)
