"""The held-out answer set's CSV files: a second generator, independent of ``answers_data``.

Eight wide exports (21 to 29 columns, 1,400 to 2,640 rows) from domains the development set
does not cover. The mess differs from file to file: snake_case names with units
(``reading_kwh_peak`` next to ``reading_kwh_offpeak`` and ``reading_kwh_total``), CamelCase,
names with spaces, dots or bracketed units; numbers written as text with currency signs or
codes (``£1,204.50``, ``1,204.50 EUR``), accounting negatives (``(12.40)``), thousands
separators, percent signs and unit suffixes (``12.5 min``); timestamps with a ``T``, dates
written ``DD/MM/YYYY``, ``YYYY/MM/DD``, ``05-Mar-2024 07:15`` or ``Mar 05 2024``; flags written
``Y``/``N``, ``TRUE``/``FALSE``, ``yes``/``no`` or ``1``/``0``; categorical codes; each file
has its own missing markers (``N/A``, ``--``, ``?``, ``#N/A``, ``none``, ``missing`` or an
empty cell); some files repeat rows exactly.

:func:`write_files` writes them byte-identically on every run (seeded ``numpy`` generators,
explicit formatting). :func:`read_reference` reads one back the way the held-out reference
answers define it: the file's missing markers are missing, text numbers become numbers,
dates parse with their column's format, flags become booleans.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["Sheet", "SHEETS", "sheet", "write_files", "read_reference", "render_csv", "text_number"]

Table = tuple[list[str], list[list[str]]]


@dataclass(frozen=True)
class Num:
    """A number written as text (currency, codes, separators, %, units, accounting negatives)."""


@dataclass(frozen=True)
class Stamp:
    fmt: str


@dataclass(frozen=True)
class Flag:
    yes: str
    no: str


Reader = Num | Stamp | Flag


@dataclass(frozen=True)
class Sheet:
    """One held-out file: its name, domain, seed, generator, missing markers and column readers."""

    name: str
    domain: str
    seed: int
    build: Callable[[np.random.Generator], Table]
    missing: frozenset[str]
    readers: Mapping[str, Reader] = field(default_factory=dict)

    @property
    def stem(self) -> str:
        return self.name.removesuffix(".csv")


# -- writing helpers ------------------------------------------------------------------------------

def _fmt(values: Iterable[float], pattern: str) -> list[str]:
    return [pattern.format(float(v)) for v in values]


def _ints(values: Iterable[float]) -> list[str]:
    return [str(int(v)) for v in values]


def _holes(rng: np.random.Generator, cells: list[str], rate: float, markers: Sequence[str]) -> list[str]:
    """``cells`` with about ``rate`` of them replaced by one of ``markers``."""
    hit = rng.random(len(cells)) < rate
    pick = rng.integers(0, len(markers), len(cells))
    return [markers[k] if h else c for c, h, k in zip(cells, hit, pick)]


def _flags(values: Iterable[bool], yes: str, no: str) -> list[str]:
    return [yes if v else no for v in values]


def _times(values: Iterable[datetime], fmt: str) -> list[str]:
    return [v.strftime(fmt) for v in values]


def _repeat_some(rng: np.random.Generator, rows: list[list[str]], rate: float) -> list[list[str]]:
    """``rows`` with about ``rate`` of them written a second time a few rows later."""
    n = len(rows)
    picked = set(int(i) for i in rng.choice(n, size=int(n * rate), replace=False))
    out: list[list[str]] = []
    pending: list[tuple[int, list[str]]] = []
    for index, row in enumerate(rows):
        out.append(row)
        if index in picked:
            pending.append((index + int(rng.integers(1, 25)), list(row)))
        for item in [p for p in pending if p[0] == index]:
            out.append(item[1])
            pending.remove(item)
    out.extend(row for _, row in pending)
    return out


def _table(header: list[str], columns: Sequence[Sequence[str]]) -> Table:
    assert len(header) == len(columns), (len(header), len(columns))
    return header, [list(r) for r in zip(*columns)]


def _minutes_since(start: datetime, minutes: Iterable[float]) -> list[datetime]:
    return [start + timedelta(minutes=int(m)) for m in minutes]


# -- energy meters ---------------------------------------------------------------------------------

def _meters(rng: np.random.Generator) -> Table:
    meters, months = 200, 12
    n = meters * months
    mid = np.repeat(np.arange(meters), months)
    month = np.tile(np.arange(1, months + 1), meters)
    site = rng.choice(["RES-N", "RES-S", "COM-E", "COM-W", "IND-C"], meters, p=[.3, .25, .18, .17, .1])[mid]
    tariff = rng.choice(["STD", "E7", "EV", "TOU"], meters, p=[.42, .25, .15, .18])[mid]
    solar = (rng.random(meters) < .28)[mid]
    scale = {"RES-N": 310, "RES-S": 280, "COM-E": 900, "COM-W": 840, "IND-C": 2100}
    base = np.array([scale[s] for s in site]) * rng.lognormal(0, .25, meters)[mid]
    temp_avg = 10 - 8 * np.cos(2 * np.pi * (month - 1.3) / 12) + rng.normal(0, 1.8, n)
    total = base * (1.25 - .022 * temp_avg) * rng.lognormal(0, .12, n)
    offpeak_share = np.array([{"STD": .28, "E7": .46, "EV": .55, "TOU": .38}[t] for t in tariff])
    offpeak_share = np.clip(offpeak_share + rng.normal(0, .05, n), .05, .85)
    offpeak = total * offpeak_share
    shoulder = (total - offpeak) * rng.uniform(.15, .3, n)
    peak = total - offpeak - shoulder
    peak, offpeak, shoulder = peak.round(1), offpeak.round(1), shoulder.round(1)
    total = (peak + offpeak + shoulder).round(1)
    prev = np.concatenate([[np.nan], total[:-1]])
    prev[month == 1] = np.nan
    export = np.where(solar, (180 + 25 * temp_avg) * rng.lognormal(0, .3, n), 0).clip(0).round(1)
    demand_max = (total / 300 * rng.lognormal(0, .3, n) + 1.5).round(2)
    demand_max = np.where(rng.random(n) < .008, demand_max * 5.5, demand_max).round(2)
    demand_avg = (total / (30 * 24) * rng.uniform(.95, 1.05, n)).round(2)
    v_avg = rng.normal(239.5, 2.2, n).round(1)
    rate_peak = np.array([{"STD": .3120, "E7": .3655, "EV": .3810, "TOU": .4205}[t] for t in tariff])
    rate_off = np.array([{"STD": .3120, "E7": .1440, "EV": .0950, "TOU": .1890}[t] for t in tariff])
    standing = np.array([{"RES-N": 14.2, "RES-S": 14.2, "COM-E": 31.5, "COM-W": 31.5, "IND-C": 58.0}[s]
                         for s in site])
    bill = ((peak + shoulder) * rate_peak + offpeak * rate_off + standing - export * .15).round(2)
    read_day = [datetime(2023, m, 1) + timedelta(days=int(d), minutes=int(t))
                for m, d, t in zip(month, rng.integers(24, 28, n), rng.integers(0, 1440, n))]
    read_type = rng.choice(["A", "E", "C"], n, p=[.78, .15, .07])
    outage = np.where(rng.random(n) < .12, rng.gamma(1.5, 40, n), 0).round()
    markers = ["N/A", "--", ""]
    columns = [
        [f"MTR-{100 + i:05d}" for i in mid], list(site), list(tariff), _times(read_day, "%Y-%m-%dT%H:%M"),
        [f"2023-{m:02d}" for m in month], list(read_type),
        _fmt(peak, "{:.1f}"), _fmt(offpeak, "{:.1f}"), _fmt(shoulder, "{:.1f}"),
        _holes(rng, _fmt(total, "{:.1f}"), .02, markers),
        ["N/A" if np.isnan(p) else f"{p:.1f}" for p in prev],
        _flags(solar, "Y", "N"),
        [(_holes(rng, [f"{e:.1f}"], .09, ["--"])[0] if s else "0.0") for e, s in zip(export, solar)],
        _fmt(demand_max, "{:.2f}"), _fmt(demand_avg, "{:.2f}"),
        _fmt(v_avg - rng.gamma(2, 2.5, n), "{:.1f}"), _fmt(v_avg, "{:.1f}"), _fmt(v_avg + rng.gamma(2, 2.5, n), "{:.1f}"),
        _holes(rng, _fmt(np.clip(rng.normal(.93, .03, n), .7, 1), "{:.3f}"), .03, markers),
        _fmt(temp_avg, "{:.1f}"), _fmt(temp_avg - rng.gamma(3, 1.5, n), "{:.1f}"),
        _fmt(np.clip(15.5 - temp_avg, 0, None) * 30, "{:.0f}"), _fmt(np.clip(temp_avg - 18, 0, None) * 30, "{:.0f}"),
        [f"£{b:,.2f}" for b in bill], [f"£{s:,.2f}" for s in standing],
        _fmt(rate_peak, "{:.4f}"), _fmt(rate_off, "{:.4f}"),
        _ints(rng.integers(1, 19, meters)[mid]), _ints(outage),
    ]
    header = ["meter_id", "site_code", "tariff_code", "read_ts", "billing_month", "read_type",
              "reading_kwh_peak", "reading_kwh_offpeak", "reading_kwh_shoulder", "reading_kwh_total",
              "reading_kwh_prev_total", "has_solar", "export_kwh_solar", "demand_kw_max", "demand_kw_avg",
              "voltage_v_min", "voltage_v_avg", "voltage_v_max", "power_factor", "outdoor_temp_c_avg",
              "outdoor_temp_c_min", "heating_degree_days", "cooling_degree_days", "bill_amount_gbp",
              "standing_charge_gbp", "unit_rate_peak_gbp_kwh", "unit_rate_offpeak_gbp_kwh", "meter_age_yrs",
              "outage_minutes"]
    head, rows = _table(header, columns)
    return head, _repeat_some(rng, rows, .018)


# -- clinic visits ---------------------------------------------------------------------------------

def _clinic(rng: np.random.Generator) -> Table:
    n = 2200
    clinic = rng.choice(["CL-NORTH", "CL-SOUTH", "CL-EAST", "CL-URBAN"], n, p=[.3, .25, .2, .25])
    day = np.sort(rng.integers(0, 365, n))
    hour = rng.choice(np.arange(7, 20), n, p=np.array([5, 9, 10, 9, 7, 5, 6, 8, 8, 7, 6, 5, 5], float) / 90)
    checkin = [datetime(2023, 1, 2) + timedelta(days=int(d), hours=int(h), minutes=int(m))
               for d, h, m in zip(day, hour, rng.integers(0, 60, n))]
    triage = rng.choice([1, 2, 3, 4, 5], n, p=[.04, .12, .38, .32, .14])
    wait = (rng.gamma(2.2, 9, n) * np.array([{"CL-NORTH": 1.0, "CL-SOUTH": 1.25, "CL-EAST": .9,
                                                "CL-URBAN": 1.45}[c] for c in clinic]) * (triage / 3.5)).round()
    consult = (rng.gamma(4, 4, n) + (6 - triage) * 2.5).round()
    age = rng.integers(1, 95, n)
    sys_bp = (105 + .45 * age + rng.normal(0, 13, n)).round()
    dia_bp = (sys_bp * .62 + rng.normal(0, 7, n)).round()
    smoker = rng.random(n) < .19
    hr = (74 + 6 * smoker + rng.normal(0, 10, n)).round()
    bmi = np.clip(rng.normal(26.5, 4.8, n), 15, 50).round(1)
    insurance = rng.choice(["PUBLIC", "PRIVATE", "SELF", "OTHER"], n, p=[.52, .31, .12, .05])
    copay = np.array([{"PUBLIC": 10.0, "PRIVATE": 25.0, "SELF": 85.0, "OTHER": 40.0}[i] for i in insurance])
    copay = copay * rng.choice([1, 1, 1, 1.5, 2], n)
    diag = rng.choice(["J06", "I10", "E11", "M54", "K21", "F41", "R51", "L30"], n,
                      p=[.22, .16, .12, .14, .09, .1, .09, .08])
    followup = rng.random(n) < np.where(np.isin(diag, ["I10", "E11"]), .62, .21)
    rx = rng.poisson(np.where(np.isin(diag, ["I10", "E11", "F41"]), 2.1, 1.0))
    markers = ["?", ""]
    columns = [
        [f"V{300000 + i}" for i in range(n)], [f"P{int(p):06d}" for p in rng.integers(1, 1600, n)], list(clinic),
        _times(checkin, "%d/%m/%Y"), _times(checkin, "%H:%M"), _ints(age),
        list(rng.choice(["F", "M", "X"], n, p=[.52, .46, .02])), _ints(triage),
        _holes(rng, _ints(wait), .03, markers), _ints(consult),
        _holes(rng, _ints(sys_bp), .04, markers), _holes(rng, _ints(dia_bp), .04, markers), _ints(hr),
        _holes(rng, _fmt(bmi, "{:.1f}"), .06, markers), _fmt(np.clip(rng.normal(36.9, .5, n), 35.5, 40.5), "{:.1f}"),
        _ints(np.clip(rng.normal(97.5, 1.4, n), 88, 100).round()), list(diag), _ints(rx), list(insurance),
        [f"${c:,.2f}" for c in copay], _flags(followup, "TRUE", "FALSE"), _flags(smoker, "TRUE", "FALSE"),
        _ints(rng.poisson(.4, n)), list(rng.choice(["WALKIN", "BOOKED", "REFERRAL"], n, p=[.35, .5, .15])),
    ]
    header = ["VisitID", "PatientRef", "ClinicCode", "VisitDate", "CheckInTime", "PatientAgeYears", "SexCode",
              "TriageLevel", "WaitMinutes", "ConsultMinutes", "SystolicBP", "DiastolicBP", "HeartRateBpm",
              "BmiValue", "TempCelsius", "SpO2Pct", "DiagnosisCode", "PrescriptionCount", "InsuranceType",
              "CopayAmount", "FollowUpRequired", "SmokerFlag", "PriorNoShows", "BookingChannel"]
    return _table(header, columns)


# -- library loans ---------------------------------------------------------------------------------

def _library(rng: np.random.Generator) -> Table:
    n = 2600
    branch = rng.choice(["Central", "Riverside Branch", "Northgate", "Eastfield", "Mobile Unit"], n,
                        p=[.34, .22, .2, .17, .07])
    item = rng.choice(["Book", "Audiobook", "DVD", "Magazine", "Board Game"], n, p=[.6, .14, .1, .1, .06])
    genre = rng.choice(["FIC", "NF", "SCI", "BIO", "KIDS", "YA", "REF"], n, p=[.27, .18, .12, .08, .17, .12, .06])
    out = np.sort(rng.integers(0, 420, n))
    checkout = [datetime(2023, 1, 3) + timedelta(days=int(d)) for d in out]
    period = np.array([{"Book": 21, "Audiobook": 21, "DVD": 7, "Magazine": 14, "Board Game": 14}[i] for i in item])
    renewals = rng.choice([0, 1, 2, 3], n, p=[.62, .22, .11, .05])
    due = [c + timedelta(days=int(p * (1 + r))) for c, p, r in zip(checkout, period, renewals)]
    kept = np.maximum((period * (1 + renewals)) * rng.lognormal(-.1, .35, n), 1).round()
    returned = [c + timedelta(days=int(k)) for c, k in zip(checkout, kept)]
    late_days = np.array([(r - d).days for r, d in zip(returned, due)])
    not_back = out > 395
    fine = np.where(late_days > 0, late_days * np.where(item == "DVD", .5, .2), 0).round(2)
    borrower = rng.choice(["Adult", "Child", "Student", "Senior", "Staff"], n, p=[.45, .18, .17, .15, .05])
    pages = np.where(item == "Book", rng.gamma(5, 70, n).round() + 40, np.nan)
    pub_year = np.clip(2024 - rng.gamma(1.6, 9, n).round(), 1900, 2023)
    markers = ["none", ""]
    columns = [
        [f"LN {700000 + i}" for i in range(n)], [f"B{int(b):05d}" for b in rng.integers(1, 1900, n)], list(branch),
        list(item), list(genre), _times(checkout, "%Y/%m/%d"), _times(due, "%Y/%m/%d"),
        ["" if nb else r.strftime("%Y/%m/%d") for r, nb in zip(returned, not_back)], _ints(renewals),
        _ints(period),
        ["" if nb else f"{f:.2f}" for f, nb in zip(fine, not_back)],
        _flags(fine > 0, "yes", "no"), list(borrower),
        list(rng.choice(["0-12", "13-17", "18-29", "30-49", "50-64", "65+"], n)),
        _holes(rng, ["none" if np.isnan(p) else str(int(p)) for p in pages], .04, ["none"]),
        _ints(pub_year), list(rng.choice(["EN", "ES", "FR", "DE", "PL", "AR"], n, p=[.74, .1, .05, .04, .04, .03])),
        _holes(rng, _fmt(np.clip(rng.normal(3.9, .7, n), 1, 5), "{:.1f}"), .35, markers),
        _flags(rng.random(n) < .31, "yes", "no"), _ints(rng.poisson(3, n)),
        list(rng.choice(["Self-service kiosk", "Front desk", "App"], n, p=[.46, .34, .2])),
    ]
    header = ["Loan No", "Borrower Ref", "Branch Name", "Item Type", "Genre Code", "Checkout Date", "Due Date",
              "Return Date", "Renewal Count", "Loan Period Days", "Fine Paid", "Fine Charged", "Borrower Type",
              "Borrower Age Band", "Page Count", "Publication Year", "Language Code", "Item Rating",
              "Hold Placed", "Holds Queue Length", "Checkout Channel"]
    head, rows = _table(header, columns)
    return head, _repeat_some(rng, rows, .015)


# -- ride sharing ----------------------------------------------------------------------------------

def _rides(rng: np.random.Generator) -> Table:
    n = 2500
    zone = rng.choice(["DT", "AIR", "UNI", "SUB-N", "SUB-S", "HARBOR"], n, p=[.3, .12, .15, .16, .17, .1])
    vclass = rng.choice(["Economy", "Comfort", "XL", "Green"], n, p=[.55, .2, .12, .13])
    hour_w = np.array([2, 1, 1, 1, 1, 2, 4, 7, 9, 6, 5, 5, 6, 5, 5, 6, 8, 10, 9, 7, 6, 5, 4, 3], float)
    hour = rng.choice(24, n, p=hour_w / hour_w.sum())
    pickup = [datetime(2024, 3, 1) + timedelta(days=int(d), hours=int(h), minutes=int(m), seconds=int(s))
              for d, h, m, s in zip(rng.integers(0, 61, n), hour, rng.integers(0, 60, n), rng.integers(0, 60, n))]
    order = np.argsort([p.timestamp() for p in pickup], kind="stable")
    km = np.where(zone == "AIR", rng.gamma(6, 3.2, n), rng.gamma(2.4, 2.6, n)).round(2)
    minutes = (km * rng.uniform(1.6, 3.4, n) + rng.gamma(2, 2, n)).round(1)
    dropoff = [p + timedelta(seconds=int(m * 60)) for p, m in zip(pickup, minutes)]
    surge = np.where(np.isin(hour, [7, 8, 17, 18, 19]), rng.choice([1.0, 1.2, 1.5, 1.8], n, p=[.45, .3, .17, .08]),
                     rng.choice([1.0, 1.2], n, p=[.88, .12]))
    mult = np.array([{"Economy": 1.0, "Comfort": 1.3, "XL": 1.6, "Green": 1.1}[v] for v in vclass])
    base = (2.5 + 1.15 * km + .28 * minutes) * mult
    total = (base * surge).round(2)
    tip_pct = np.where(rng.random(n) < .58, rng.choice([5, 10, 15, 18, 20, 25], n), 0)
    tip = (total * tip_pct / 100).round(2)
    rating_driver = np.clip(5 - rng.gamma(.8, .35, n) - .004 * minutes, 1, 5).round(1)
    promo = rng.choice(["", "SPRING10", "NEWRIDER", "AIRPORT5"], n, p=[.8, .09, .07, .04])
    pay = rng.choice(["card", "wallet", "cash", "corporate"], n, p=[.56, .26, .1, .08])
    markers = ["#N/A", ""]
    columns = [
        [f"T{8000000 + i}" for i in range(n)], [f"D{int(d):04d}" for d in rng.integers(1, 420, n)],
        [f"R{int(r):06d}" for r in rng.integers(1, 9000, n)], list(zone),
        list(rng.choice(["DT", "AIR", "UNI", "SUB-N", "SUB-S", "HARBOR"], n)), list(vclass),
        _times(pickup, "%Y-%m-%d %H:%M:%S"), _times(dropoff, "%Y-%m-%d %H:%M:%S"),
        _fmt(km, "{:.2f}"), _fmt(km * .621371, "{:.2f}"), [f"{m:.1f} min" for m in minutes],
        _holes(rng, [f"{w:.1f} min" for w in rng.gamma(2, 2.2, n)], .04, markers),
        _fmt(base, "{:.2f}"), _fmt(surge, "{:.1f}"), _holes(rng, _fmt(total, "{:.2f}"), .015, markers),
        _fmt(tip, "{:.2f}"), [f"{t}%" for t in tip_pct], _holes(rng, _fmt(rating_driver, "{:.1f}"), .12, markers),
        _holes(rng, _fmt(np.clip(5 - rng.gamma(.6, .3, n), 1, 5), "{:.1f}"), .2, markers),
        list(pay), list(promo), _flags(rng.random(n) < .07, "1", "0"), _ints(rng.choice([1, 1, 1, 2, 2, 3, 4], n)),
    ]
    header = ["trip.id", "driver.id", "rider.id", "pickup.zone", "dropoff.zone", "vehicle.class", "pickup.ts",
              "dropoff.ts", "distance.km", "distance.mi", "duration.min", "wait.min", "fare.base",
              "fare.surge_mult", "fare.total", "tip.amount", "tip.pct", "rating.by_rider", "rating.by_driver",
              "payment.method", "promo.code", "cancelled.flag", "party.size"]
    head, rows = _table(header, columns)
    return head, [rows[i] for i in order]


# -- manufacturing QA ------------------------------------------------------------------------------

def _quality(rng: np.random.Generator) -> Table:
    n = 2000
    line = rng.choice(["L1", "L2", "L3", "L4"], n, p=[.3, .28, .24, .18])
    shift = rng.choice(["A", "B", "C"], n, p=[.38, .36, .26])
    machine = rng.choice(["CNC-07", "CNC-09", "CNC-12", "PRS-02", "PRS-05"], n)
    at = [datetime(2024, 1, 8) + timedelta(days=int(d), hours=int({"A": 6, "B": 14, "C": 22}[s]) + int(h),
                                           minutes=int(m))
          for d, s, h, m in zip(np.sort(rng.integers(0, 150, n)), shift, rng.integers(0, 8, n), rng.integers(0, 60, n))]
    drift = np.array([{"L1": 0.0, "L2": .012, "L3": -.006, "L4": .025}[x] for x in line])
    diameter = (25.0 + drift + rng.normal(0, .018, n) + np.where(shift == "C", .006, 0)).round(3)
    thickness = (3.2 + rng.normal(0, .04, n)).round(3)
    weight = (41.5 + 55 * (diameter - 25) + 8 * (thickness - 3.2) + rng.normal(0, .35, n)).round(2)
    hardness = (rng.normal(52, 1.6, n) - np.where(line == "L4", .9, 0)).round(1)
    torque = (rng.normal(18.5, 1.1, n)).round(2)
    temp = (rng.normal(41, 3.5, n) + np.where(shift == "B", 2.2, 0)).round(1)
    visual = rng.poisson(np.where(shift == "C", .5, .3))
    dimensional = (np.abs(diameter - 25) > .03).astype(int) + rng.poisson(.1, n)
    total = visual + dimensional
    passed = total == 0
    operator = rng.choice(["OP-11", "OP-12", "OP-23", "OP-31", "OP-44", "OP-45", "OP-52"], n)
    markers = ["--", ""]
    columns = [
        [f"LOT-{24000 + i}" for i in range(n)], list(line), list(shift), list(machine), list(operator),
        _times(at, "%d-%b-%Y %H:%M"), _fmt(diameter, "{:.3f}"), ["25.000"] * n, ["0.030"] * n,
        _holes(rng, _fmt(thickness, "{:.3f}"), .02, markers), ["3.200"] * n, _fmt(weight, "{:.2f}"),
        _holes(rng, _fmt(hardness, "{:.1f}"), .05, markers), _fmt(torque, "{:.2f}"),
        _fmt(torque * rng.uniform(.9, .98, n), "{:.2f}"), _fmt(temp, "{:.1f}"),
        [f"{h:.0f}%" for h in np.clip(rng.normal(46, 7, n), 20, 80)], _ints(visual), _ints(dimensional),
        _ints(total), ["PASS" if p else "FAIL" for p in passed], _ints(rng.integers(20, 61, n)),
        _fmt(rng.gamma(3, 1.2, n), "{:.1f}"), list(rng.choice(["STEEL-A", "STEEL-B", "ALLOY-X"], n, p=[.5, .3, .2])),
        _holes(rng, _fmt(rng.normal(0.8, .15, n).clip(.2), "{:.2f}"), .04, markers),
    ]
    header = ["Lot", "Line", "Shift", "Machine", "Operator", "Inspected At", "Diameter [mm]",
              "Diameter Target [mm]", "Diameter Tol [mm]", "Thickness [mm]", "Thickness Target [mm]",
              "Weight [g]", "Hardness [HRC]", "Torque [Nm]", "Torque Min [Nm]", "Machine Temp [°C]",
              "Humidity [%]", "Defects Visual", "Defects Dimensional", "Defects Total", "Result",
              "Sample Size", "Cycle Time [s]", "Material Batch", "Surface Roughness [µm]"]
    return _table(header, columns)


# -- retail returns --------------------------------------------------------------------------------

def _returns(rng: np.random.Generator) -> Table:
    n = 1800
    store = rng.choice(["ST-101", "ST-102", "ST-205", "ST-311", "ST-420", "ST-512"], n)
    dept = rng.choice(["APP", "FTW", "ELC", "HOM", "TOY", "SPT"], n, p=[.3, .16, .14, .17, .11, .12])
    price_scale = {"APP": 38, "FTW": 72, "ELC": 190, "HOM": 45, "TOY": 26, "SPT": 58}
    price = np.array([price_scale[d] for d in dept]) * rng.lognormal(0, .5, n)
    qty = rng.choice([1, 1, 1, 1, 2, 2, 3], n)
    buy = np.sort(rng.integers(0, 300, n))
    delay = np.minimum(rng.gamma(1.8, 7, n).round() + 1, 120)
    purchase = [datetime(2023, 6, 1) + timedelta(days=int(b)) for b in buy]
    returned = [p + timedelta(days=int(d)) for p, d in zip(purchase, delay)]
    reason = rng.choice(["DEF", "SIZ", "CHG", "LATE", "DMG", "WRG"], n, p=[.18, .27, .25, .05, .12, .13])
    grade = rng.choice(["A", "B", "C", "D"], n, p=[.44, .3, .17, .09])
    fee_pct = np.where(np.isin(reason, ["CHG", "LATE"]), rng.choice([10, 15, 20], n), 0)
    fee_pct = np.where(grade == "D", fee_pct + 10, fee_pct)
    gross = (price * qty).round(2)
    refund = (gross * (1 - fee_pct / 100)).round(2)
    loyalty = rng.random(n) < .41
    markers = ["missing", ""]
    columns = [
        [f"RMA{60000 + i}" for i in range(n)], list(store), list(dept), [f"SKU-{int(s):06d}" for s in rng.integers(1, 400_000, n)],
        _times(purchase, "%b %d %Y"), _times(returned, "%b %d %Y"), _ints(qty),
        [f"{p:,.2f} EUR" for p in price], [f"{g:,.2f} EUR" for g in gross], [f"{r:,.2f} EUR" for r in refund],
        [f"{f}%" for f in fee_pct], list(reason), list(grade),
        list(rng.choice(["original", "store credit", "gift card"], n, p=[.62, .3, .08])),
        _flags(loyalty, "yes", "no"), _holes(rng, list(rng.choice(["online", "in-store"], n, p=[.43, .57])), .03, markers),
        _holes(rng, _ints(rng.integers(18, 80, n)), .1, markers), _flags(rng.random(n) < .23, "yes", "no"),
        [f"({c:.2f})" if c > 0 else "0.00" for c in np.where(rng.random(n) < .2, rng.gamma(2, 4, n), 0)],
        _ints(delay), list(rng.choice(["EMP-3", "EMP-7", "EMP-9", "EMP-14", "EMP-21"], n)),
    ]
    header = ["return_ref", "store_no", "dept_code", "sku", "purchase_dt", "return_dt", "qty_returned",
              "unit_price_eur", "gross_value_eur", "refund_value_eur", "restocking_fee_pct", "reason_code",
              "condition_grade", "refund_method", "loyalty_member", "sales_channel", "customer_age_yrs",
              "receipt_missing", "shipping_adj_eur", "days_since_purchase", "processed_by"]
    head, rows = _table(header, columns)
    return head, _repeat_some(rng, rows, .025)


# -- sports seasons --------------------------------------------------------------------------------

def _seasons(rng: np.random.Generator) -> Table:
    n = 1400
    team = rng.choice(["HAW", "OWL", "FOX", "BEA", "WOL", "ELK", "RAY", "LYN"], n)
    pos = rng.choice(["G", "F", "C"], n, p=[.44, .38, .18])
    season = rng.choice(["2019-20", "2020-21", "2021-22", "2022-23", "2023-24"], n)
    gp = rng.integers(8, 83, n)
    mpg = np.clip(rng.gamma(5, 4.2, n), 4, 38)
    mins = (gp * mpg).round()
    fga = (mins * rng.uniform(.18, .42, n)).round()
    fg_pct = np.clip(rng.normal(.45, .05, n) + np.where(pos == "C", .06, 0), .25, .7)
    fgm = (fga * fg_pct).round()
    tpa = (fga * np.where(pos == "C", .08, rng.uniform(.25, .5, n))).round()
    tpm = (tpa * np.clip(rng.normal(.35, .06, n), 0, .6)).round()
    fta = (fga * rng.uniform(.15, .35, n)).round()
    ftm = (fta * np.clip(rng.normal(.76, .08, n), .3, .98)).round()
    pts = 2 * (fgm - tpm) + 3 * tpm + ftm
    reb = (mins * np.where(pos == "C", .3, np.where(pos == "F", .2, .11)) * rng.lognormal(0, .2, n)).round()
    ast = (mins * np.where(pos == "G", .17, .07) * rng.lognormal(0, .25, n)).round()
    salary = (np.exp(12.9 + .0016 * pts + rng.normal(0, .45, n)) / 1000).round() * 1000
    birth = [datetime(1985, 1, 1) + timedelta(days=int(d)) for d in rng.integers(0, 6000, n)]

    def pct(made: np.ndarray, tried: np.ndarray) -> list[str]:
        return ["" if t == 0 else f"{100 * m / t:.1f}%" for m, t in zip(made, tried)]

    columns = [
        [f"PL{int(p):04d}" for p in rng.integers(1, 900, n)], list(team), list(season), list(pos), _ints(gp),
        _ints(rng.integers(0, 1, n) + np.minimum(gp, rng.integers(0, 83, n))), _ints(mins),
        _ints(pts), _ints(fgm), _ints(fga), pct(fgm, fga), _ints(tpm), _ints(tpa), pct(tpm, tpa), _ints(ftm),
        _ints(fta), pct(ftm, fta), _ints(reb), _ints(ast), _ints((mins * .025 * rng.lognormal(0, .4, n)).round()),
        _ints((mins * np.where(pos == "C", .05, .012) * rng.lognormal(0, .4, n)).round()),
        _ints((mins * .045 * rng.lognormal(0, .3, n)).round()), [f"${s:,.0f}" for s in salary],
        _times(birth, "%m/%d/%Y"), _fmt(np.where(pos == "C", rng.normal(211, 4, n), rng.normal(199, 6, n)), "{:.0f}"),
        _holes(rng, _fmt(rng.normal(4.5, 3, n), "{:.1f}"), .05, ["N/A"]),
    ]
    header = ["PlayerCode", "TeamAbbr", "SeasonLabel", "Pos", "GP", "GS", "MIN", "PTS", "FGM", "FGA", "FG%",
              "3PM", "3PA", "3P%", "FTM", "FTA", "FT%", "REB", "AST", "STL", "BLK", "TOV", "Salary",
              "BirthDate", "HeightCm", "PlusMinusPer100"]
    return _table(header, columns)


# -- insurance claims ------------------------------------------------------------------------------

def _claims(rng: np.random.Generator) -> Table:
    n = 2100
    policy = rng.choice(["AUTO", "HOME", "TRAVEL", "PET", "HEALTH"], n, p=[.36, .27, .12, .08, .17])
    office = rng.choice(["NE", "SE", "MW", "SW", "NW"], n, p=[.24, .22, .2, .18, .16])
    scale = {"AUTO": 4200, "HOME": 9800, "TRAVEL": 900, "PET": 650, "HEALTH": 3100}
    claimed = np.array([scale[p] for p in policy]) * rng.lognormal(0, .8, n)
    claimed = np.where(rng.random(n) < .01, claimed * 9, claimed).round(2)
    fraud = rng.random(n) < np.where(claimed > np.median(claimed) * 3, .14, .035)
    status = np.where(fraud & (rng.random(n) < .7), "DENIED",
                      rng.choice(["APPROVED", "PARTIAL", "DENIED", "OPEN"], n, p=[.58, .22, .1, .1]))
    deductible = rng.choice([0, 250, 500, 1000], n, p=[.12, .33, .38, .17])
    approved = np.where(status == "APPROVED", np.maximum(claimed - deductible, 0),
                        np.where(status == "PARTIAL", claimed * rng.uniform(.3, .8, n), 0)).round(2)
    incident = [datetime(2023, 1, 1) + timedelta(days=int(d), hours=int(h), minutes=int(m))
                for d, h, m in zip(rng.integers(0, 365, n), rng.integers(0, 24, n), rng.integers(0, 60, n))]
    lag = rng.gamma(1.5, 4, n).round()
    reported = [i + timedelta(days=int(x)) for i, x in zip(incident, lag)]
    settle = np.where(status == "OPEN", np.nan, (rng.gamma(3, 9, n) + lag * .8 + 10 * fraud).round())
    holder_age = rng.integers(18, 86, n)
    markers = ["N/A", ""]
    columns = [
        [f"CLM/{23000 + i}" for i in range(n)], [f"POL{int(p):07d}" for p in rng.integers(1, 2_000_000, n)],
        list(policy), list(office), _times(incident, "%Y-%m-%d %H:%M"), _times(reported, "%d/%m/%Y"),
        _ints(lag), [f"${c:,.2f}" for c in claimed], [f"${a:,.2f}" for a in approved],
        [f"${d:,.0f}" for d in deductible], list(status), _flags(fraud, "Y", "N"),
        ["N/A" if np.isnan(s) else str(int(s)) for s in settle],
        _holes(rng, _ints(holder_age), .04, markers), _ints(rng.integers(0, 31, n)),
        _holes(rng, _ints(rng.poisson(.7, n)), .03, markers),
        list(rng.choice(["phone", "web", "agent", "app"], n, p=[.3, .33, .17, .2])),
        [f"ADJ-{int(a):02d}" for a in rng.integers(1, 19, n)],
        _holes(rng, _fmt(np.clip(rng.normal(.35, .2, n), 0, 1) * 100, "{:.1f}%"), .05, markers),
        _flags(rng.random(n) < .22, "Y", "N"), _flags(rng.random(n) < .09, "Y", "N"),
    ]
    header = ["Claim Number", "Policy Number", "Policy Type", "Regional Office", "Incident Time",
              "Reported On", "Report Lag Days", "Amount Claimed", "Amount Approved", "Deductible",
              "Claim Status", "Fraud Flag", "Days To Settle", "Holder Age", "Years As Customer",
              "Prior Claims", "Filing Channel", "Adjuster", "Risk Score", "Police Report", "Litigated"]
    return _table(header, columns)


_FLOATS = Num()

SHEETS: tuple[Sheet, ...] = (
    Sheet("meter_readings_2023.csv", "energy meters", 8101, _meters, frozenset({"N/A", "--", ""}), {
        **{c: _FLOATS for c in ("reading_kwh_peak", "reading_kwh_offpeak", "reading_kwh_shoulder",
                                "reading_kwh_total", "reading_kwh_prev_total", "export_kwh_solar", "demand_kw_max",
                                "demand_kw_avg", "voltage_v_min", "voltage_v_avg", "voltage_v_max", "power_factor",
                                "outdoor_temp_c_avg", "outdoor_temp_c_min", "heating_degree_days",
                                "cooling_degree_days", "bill_amount_gbp", "standing_charge_gbp",
                                "unit_rate_peak_gbp_kwh", "unit_rate_offpeak_gbp_kwh", "meter_age_yrs",
                                "outage_minutes")},
        "read_ts": Stamp("%Y-%m-%dT%H:%M"), "has_solar": Flag("Y", "N")}),
    Sheet("ClinicVisits.csv", "clinic visits", 8202, _clinic, frozenset({"?", ""}), {
        **{c: _FLOATS for c in ("PatientAgeYears", "TriageLevel", "WaitMinutes", "ConsultMinutes", "SystolicBP",
                                "DiastolicBP", "HeartRateBpm", "BmiValue", "TempCelsius", "SpO2Pct",
                                "PrescriptionCount", "CopayAmount", "PriorNoShows")},
        "VisitDate": Stamp("%d/%m/%Y"), "FollowUpRequired": Flag("TRUE", "FALSE"), "SmokerFlag": Flag("TRUE", "FALSE")}),
    Sheet("library loans export.csv", "library loans", 8303, _library, frozenset({"none", ""}), {
        **{c: _FLOATS for c in ("Renewal Count", "Loan Period Days", "Fine Paid", "Page Count", "Publication Year",
                                "Item Rating", "Holds Queue Length")},
        "Checkout Date": Stamp("%Y/%m/%d"), "Due Date": Stamp("%Y/%m/%d"), "Return Date": Stamp("%Y/%m/%d"),
        "Fine Charged": Flag("yes", "no"), "Hold Placed": Flag("yes", "no")}),
    Sheet("rides.march-april.csv", "ride sharing", 8404, _rides, frozenset({"#N/A", ""}), {
        **{c: _FLOATS for c in ("distance.km", "distance.mi", "duration.min", "wait.min", "fare.base",
                                "fare.surge_mult", "fare.total", "tip.amount", "tip.pct", "rating.by_rider",
                                "rating.by_driver", "party.size")},
        "pickup.ts": Stamp("%Y-%m-%d %H:%M:%S"), "dropoff.ts": Stamp("%Y-%m-%d %H:%M:%S"),
        "cancelled.flag": Flag("1", "0")}),
    Sheet("QA_Inspections.csv", "manufacturing QA", 8505, _quality, frozenset({"--", ""}), {
        **{c: _FLOATS for c in ("Diameter [mm]", "Diameter Target [mm]", "Diameter Tol [mm]", "Thickness [mm]",
                                "Thickness Target [mm]", "Weight [g]", "Hardness [HRC]", "Torque [Nm]",
                                "Torque Min [Nm]", "Machine Temp [°C]", "Humidity [%]", "Defects Visual",
                                "Defects Dimensional", "Defects Total", "Sample Size", "Cycle Time [s]",
                                "Surface Roughness [µm]")},
        "Inspected At": Stamp("%d-%b-%Y %H:%M")}),
    Sheet("retail_returns_h2.csv", "retail returns", 8606, _returns, frozenset({"missing", ""}), {
        **{c: _FLOATS for c in ("qty_returned", "unit_price_eur", "gross_value_eur", "refund_value_eur",
                                "restocking_fee_pct", "customer_age_yrs", "shipping_adj_eur", "days_since_purchase")},
        "purchase_dt": Stamp("%b %d %Y"), "return_dt": Stamp("%b %d %Y"), "loyalty_member": Flag("yes", "no"),
        "receipt_missing": Flag("yes", "no")}),
    Sheet("PlayerSeasons.csv", "sports seasons", 8707, _seasons, frozenset({"N/A", ""}), {
        **{c: _FLOATS for c in ("GP", "GS", "MIN", "PTS", "FGM", "FGA", "FG%", "3PM", "3PA", "3P%", "FTM", "FTA",
                                "FT%", "REB", "AST", "STL", "BLK", "TOV", "Salary", "HeightCm", "PlusMinusPer100")},
        "BirthDate": Stamp("%m/%d/%Y")}),
    Sheet("claims register.csv", "insurance claims", 8808, _claims, frozenset({"N/A", ""}), {
        **{c: _FLOATS for c in ("Report Lag Days", "Amount Claimed", "Amount Approved", "Deductible",
                                "Days To Settle", "Holder Age", "Years As Customer", "Prior Claims", "Risk Score")},
        "Incident Time": Stamp("%Y-%m-%d %H:%M"), "Reported On": Stamp("%d/%m/%Y"), "Fraud Flag": Flag("Y", "N"),
        "Police Report": Flag("Y", "N"), "Litigated": Flag("Y", "N")}),
)


def sheet(name: str) -> Sheet:
    """A held-out file's spec, by its name or stem."""
    for spec in SHEETS:
        if name in (spec.name, spec.stem):
            return spec
    raise KeyError(f"no held-out file {name!r} (known: {', '.join(s.stem for s in SHEETS)})")


def render_csv(spec: Sheet) -> str:
    header, rows = spec.build(np.random.default_rng(spec.seed))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def write_files(directory: Path | str, names: Iterable[str] | None = None) -> list[Path]:
    """Write the held-out files (all, or those named) into ``directory``; a file already right is
    left alone."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    specs = SHEETS if names is None else [sheet(n) for n in names]
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


# -- the reference reading -------------------------------------------------------------------------

_NOT_NUMBER = re.compile(r"[^0-9.\-]")


def text_number(text: str, missing: Iterable[str] = ("",)) -> float:
    """``£1,204.50`` → 1204.5, ``1,204.50 EUR`` → 1204.5, ``(12.40)`` → −12.4, ``12.5 min`` → 12.5,
    ``18%`` → 18; a missing marker → NaN."""
    value = text.strip()
    if value in set(missing):
        return float("nan")
    negative = value.startswith("(") and value.endswith(")")
    digits = _NOT_NUMBER.sub("", value)
    number = float(digits)
    return -number if negative else number


def _read(column: pd.Series, reader: Reader, missing: frozenset[str]) -> pd.Series:
    absent = column.str.strip().isin(missing)
    if isinstance(reader, Num):
        return column.map(lambda v: text_number(v, missing)).astype("float64")
    if isinstance(reader, Stamp):
        return pd.to_datetime(column.where(~absent), format=reader.fmt)
    return column.map({reader.yes: True, reader.no: False}).where(~absent).astype("boolean")


def read_reference(path: Path | str) -> pd.DataFrame:
    """A held-out file read as its reference answers define it (see the module docstring)."""
    path = Path(path)
    spec = sheet(path.name)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    out = {}
    for name in raw.columns:
        reader = spec.readers.get(name)
        out[name] = (_read(raw[name], reader, spec.missing) if reader is not None
                     else raw[name].where(~raw[name].str.strip().isin(spec.missing)))
    return pd.DataFrame(out)
